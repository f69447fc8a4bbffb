// Convolution decisions without a GPU: geometry and its errors, the path choice, the k split,
// scratch sizes and chunks, push constants and the products.
#include <gtest/gtest.h>

#include "kernels/conv/conv_plan.h"
#include "onegpu/errors.h"
#include "support/shape_error.h"

namespace onegpu::kernels::conv {
namespace {

ConvProblem layer(int64_t batch, int64_t cin, int64_t cout, int64_t hw, int64_t k, int64_t stride = 1,
                  int64_t groups = 1) {
  ConvProblem p;
  p.batch = batch, p.in_channels = cin, p.out_channels = cout, p.input = {hw, hw}, p.groups = groups;
  const int64_t pad = k / 2;
  p.window = Window{{k, k}, {stride, stride}, {1, 1}, {pad, pad, pad, pad}};
  return p;
}

using onegpu::testing::shape_error_argument;

const Config kFast{DataType::float32, KernelMode::fast, ConvVariant::automatic, false};
const Config kDet{DataType::float32, KernelMode::deterministic, ConvVariant::automatic, false};
const Config kHalf{DataType::float16, KernelMode::fast, ConvVariant::automatic, false};
const Config kHalfMatrix{DataType::float16, KernelMode::fast, ConvVariant::automatic, true};
const Config kHalfImplicitMatrix{DataType::float16, KernelMode::fast, ConvVariant::automatic, true, true};

TEST(ConvPlan, GeometryOfResNetLayers) {
  const Geometry g = resolve(layer(8, 256, 256, 14, 3));
  EXPECT_EQ(g.oh, 14u);
  EXPECT_EQ(g.depth(), 2304u);
  const Geometry s = resolve(layer(1, 3, 64, 224, 7, 2));
  EXPECT_EQ(s.oh, 112u);
  EXPECT_EQ(s.depth(), 147u);
  const Counts c = counts(s);
  EXPECT_EQ(c.x, 3u * 224 * 224);
  EXPECT_EQ(c.w, 64u * 3 * 49);
  EXPECT_EQ(c.y, 64u * 112 * 112);
}

TEST(ConvPlan, PathChoice) {
  EXPECT_EQ(plan(resolve(layer(1, 32, 32, 14, 3, 1, 32)), kFast).path, Path::direct);
  EXPECT_EQ(plan(resolve(layer(1, 32, 64, 14, 3, 1, 32)), kFast).path, Path::direct);  // multiplier 2
  // Wide products run on Gemm, the rest on the implicit kernel (float32: the 128 x 128 tile's shapes).
  EXPECT_EQ(plan(resolve(layer(1, 256, 256, 16, 1)), kFast).path, Path::pointwise);
  EXPECT_EQ(plan(resolve(layer(8, 256, 256, 14, 3)), kFast).path, Path::winograd);  // 392 tiles
  EXPECT_EQ(plan(resolve(layer(8, 256, 256, 14, 3, 2)), kFast).path, Path::unfold);
  EXPECT_EQ(plan(resolve(layer(8, 256, 256, 14, 1)), kFast).path, Path::implicit);  // pointwise, batch 8
  EXPECT_EQ(plan(resolve(layer(8, 64, 64, 56, 3)), kFast).path, Path::winograd);     // 6272 tiles
  EXPECT_EQ(plan(resolve(layer(8, 64, 64, 56, 3)), kDet).path, Path::implicit);
  EXPECT_EQ(plan(resolve(layer(1, 64, 64, 56, 3)), kFast).path, Path::winograd);     // 784 tiles
  EXPECT_EQ(plan(resolve(layer(1, 512, 512, 7, 3)), kFast).path, Path::implicit);     // 16 tiles
  EXPECT_EQ(plan(resolve(layer(8, 3, 64, 224, 7, 2)), kFast).path, Path::implicit);   // the stem
  EXPECT_EQ(plan(resolve(layer(8, 256, 256, 14, 3)), kDet).path, Path::implicit);
  EXPECT_EQ(plan(resolve(layer(8, 256, 256, 14, 3)), kHalf).path, Path::implicit);
  EXPECT_EQ(plan(resolve(layer(8, 256, 256, 28, 3)), kHalfMatrix).path, Path::unfold);
  EXPECT_EQ(plan(resolve(layer(8, 1024, 256, 14, 1)), kHalfMatrix).path, Path::unfold);   // 1x1, batch 8
  EXPECT_EQ(plan(resolve(layer(1, 1024, 256, 14, 1)), kHalfMatrix).path, Path::unfold);   // 196 pixels
  EXPECT_EQ(plan(resolve(layer(1, 1024, 256, 16, 1)), kHalfMatrix).path, Path::pointwise);
  EXPECT_EQ(plan(resolve(layer(8, 256, 512, 28, 1, 2)), kFast).path, Path::unfold);  // strided 1x1
  Config forced = kFast;
  forced.variant = ConvVariant::direct;
  EXPECT_THROW(plan(resolve(layer(1, 64, 64, 14, 3)), forced), UnsupportedError);
  forced.variant = ConvVariant::pointwise;
  EXPECT_THROW(plan(resolve(layer(1, 64, 64, 14, 3)), forced), UnsupportedError);
  ConvTransposeProblem t;
  t.in_channels = 8, t.out_channels = 4, t.input = {4, 4};
  EXPECT_EQ(plan(resolve(t), kFast).path, Path::implicit);  // one phase
  EXPECT_EQ(plan(resolve(t), kFast).phases, 1u);
}

// Without aliased_writable_bindings (WebGPU) unfold's products cannot read and write the scratch in
// one dispatch: automatic takes the implicit kernel where it would take unfold, and a forced unfold
// throws UnsupportedError naming the capability.
TEST(ConvPlan, NoUnfoldWithoutAliasedWritableBindings) {
  for (Config c : {kFast, kHalfMatrix}) {
    c.aliased_writable_bindings = false;
    EXPECT_EQ(plan(resolve(layer(8, 256, 256, 14, 3, 2)), c).path, Path::implicit);
    EXPECT_EQ(plan(resolve(layer(8, 256, 512, 28, 1, 2)), c).path, Path::implicit);
    EXPECT_EQ(plan(resolve(layer(8, 256, 256, 14, 3)), c).path,
              c.type == DataType::float32 ? Path::winograd : Path::implicit);
    c.variant = ConvVariant::unfold;
    try {
      (void)plan(resolve(layer(1, 64, 64, 14, 3)), c);
      ADD_FAILURE() << "a forced unfold was planned";
    } catch (const UnsupportedError& e) {
      EXPECT_NE(std::string(e.what()).find("aliased_writable_bindings"), std::string::npos) << e.what();
    }
  }
  Config no_alias = kFast;
  no_alias.aliased_writable_bindings = false;
  EXPECT_EQ(plan(resolve(layer(1, 256, 256, 16, 1)), no_alias).path, Path::pointwise);  // Gemm of w and x into scratch
}

TEST(ConvPlan, TransposePhases) {
  // One axis: kernel 4, stride 2, pad 1 over 64 outputs; kernel 3 leaves phase 1 one tap; kernel
  // 1 with stride 3 leaves phases 1 and 2 none.
  EXPECT_EQ(phase_axis(0, 2, 4, 1, 64).taps, 2u);
  EXPECT_EQ(phase_axis(0, 2, 4, 1, 64).first, 1u);
  EXPECT_EQ(phase_axis(0, 2, 4, 1, 64).count, 32u);
  EXPECT_EQ(phase_axis(1, 2, 4, 1, 64).first, 0u);
  EXPECT_EQ(phase_axis(1, 2, 3, 0, 7).taps, 1u);
  EXPECT_EQ(phase_axis(1, 2, 3, 0, 7).count, 3u);
  EXPECT_EQ(phase_axis(2, 3, 1, 0, 7).taps, 0u);
  EXPECT_EQ(phase_axis(2, 3, 1, 5, 7).first, 0u);
  // The benchmark's 4x4 stride 2 layer: four phases of 32 x 32 outputs and 4 taps, no split.
  ConvTransposeProblem t;
  t.batch = 8, t.in_channels = 64, t.out_channels = 64, t.input = {32, 32};
  t.window = Window{{4, 4}, {2, 2}, {1, 1}, {1, 1, 1, 1}};
  const Geometry g = resolve(t);
  const Plan f = plan(g, kFast);
  EXPECT_EQ(f.path, Path::implicit);
  EXPECT_EQ(f.phases, 4u);
  EXPECT_EQ(f.product_pixels(g), 32u * 32);
  EXPECT_EQ(f.product_depth(g), 64u * 4);
  EXPECT_EQ(f.splits, 1u);
  EXPECT_FALSE(f.epilogue_pass);
  EXPECT_EQ(path_name(f), "conv.transpose.phases.implicit");
  EXPECT_EQ(f.scratch_words(g, DataType::float32, 8), 64u * 64 * 16);  // the rearranged weights only
  const Plan h = plan(g, kHalfImplicitMatrix);
  EXPECT_EQ(h.path, Path::implicit_matrix);
  EXPECT_FALSE(h.epilogue_pass);  // the kernel stores the phases' outputs itself
  EXPECT_TRUE(h.phase_pairs);     // stride 2 across, 64 columns: whole words, both column phases
  EXPECT_EQ(h.views(), 2u);
  EXPECT_EQ(path_name(h), "conv.transpose.phases.implicit_coopmat.64x64.4sg.pairs");
  ConvTransposeProblem odd = t;
  odd.output_padding = {0, 1};  // 65 columns: single halves
  const Plan o = plan(resolve(odd), kHalfImplicitMatrix);
  EXPECT_FALSE(o.phase_pairs);
  EXPECT_FALSE(o.epilogue_pass);
  EXPECT_EQ(o.views(), 4u);
  EXPECT_EQ(h.scratch_words(g, DataType::float16, 1), 64u * 64 * 8);  // the rearranged weights only
  EXPECT_EQ(plan(g, kHalf).path, Path::implicit);
  // Forced: col2im keeps Gemm and the gathering pass; dilation leaves the phases.
  Config forced = kFast;
  forced.variant = ConvVariant::col2im;
  EXPECT_EQ(plan(g, forced).path, Path::transpose);
  EXPECT_EQ(plan(g, forced).phases, 0u);
  EXPECT_THROW(plan(resolve(layer(1, 8, 8, 6, 3)), forced), UnsupportedError);
  t.window.dilations = {1, 2};
  const Geometry d = resolve(t);
  EXPECT_EQ(plan(d, kFast).path, Path::transpose);
  forced.variant = ConvVariant::phases;
  EXPECT_THROW(plan(d, forced), UnsupportedError);
  // Small grids split k over the largest phase's depth.
  t.batch = 1, t.in_channels = 128, t.input = {3, 3}, t.window.dilations = {1, 1};
  const Plan s = plan(resolve(t), kFast);
  EXPECT_EQ(s.phases, 4u);
  EXPECT_EQ(s.splits, 4u);
  EXPECT_TRUE(s.epilogue_pass);
}

TEST(ConvPlan, ImplicitMatrixChoiceTileSplitAndStore) {
  // Automatic on a device that runs it: the 3 x 3 and the stem layers, not depthwise ones.
  const Geometry l64 = resolve(layer(8, 64, 64, 56, 3));
  const Plan p = plan(l64, kHalfImplicitMatrix);
  EXPECT_EQ(p.path, Path::implicit_matrix);
  EXPECT_EQ(std::string(kMatrixTiles[p.tile].name), "64x64.4sg");
  EXPECT_EQ(p.splits, 1u);
  EXPECT_FALSE(p.epilogue_pass);  // 3136 pixels, y at 0: the kernel stores the halves itself
  EXPECT_EQ(p.scratch_words(l64, DataType::float16, 8), 0u);
  EXPECT_EQ(path_name(p), "conv.implicit_coopmat.64x64.4sg");
  EXPECT_EQ(tile_shape(p).rows, 64u);
  EXPECT_EQ(tile_shape(p).columns, 64u);
  EXPECT_EQ(plan(resolve(layer(8, 3, 64, 224, 7, 2)), kHalfImplicitMatrix).path, Path::implicit_matrix);
  EXPECT_EQ(plan(resolve(layer(8, 240, 240, 14, 3, 1, 240)), kHalfImplicitMatrix).path, Path::direct);
  EXPECT_EQ(plan(resolve(layer(8, 64, 64, 56, 3)), kHalfMatrix).path, Path::unfold);  // not on this device
  // Wide, short products stay on Gemm's larger tiles: more than 256 output channels and fewer
  // than 4096 columns.
  EXPECT_EQ(plan(resolve(layer(8, 1024, 512, 14, 1)), kHalfImplicitMatrix).path, Path::unfold);
  EXPECT_EQ(plan(resolve(layer(1, 512, 512, 7, 3)), kHalfImplicitMatrix).path, Path::unfold);
  EXPECT_EQ(plan(resolve(layer(8, 256, 512, 56, 1, 2)), kHalfImplicitMatrix).path, Path::implicit_matrix);
  EXPECT_EQ(plan(resolve(layer(8, 1024, 256, 14, 1)), kHalfImplicitMatrix).path, Path::implicit_matrix);
  Config forced = kHalfImplicitMatrix;
  forced.variant = ConvVariant::implicit_matrix;
  // A small grid (one column tile, 8 channel tiles) splits k, and the epilogue pass adds the planes.
  const Plan small = plan(resolve(layer(1, 512, 512, 7, 3)), forced);
  EXPECT_EQ(small.splits, 16u);
  EXPECT_EQ(path_name(small), "conv.implicit_coopmat.64x64.4sg.splitk16");
  EXPECT_EQ(small.k_chunk % 32, 0u);
  EXPECT_GE(uint64_t(small.splits) * small.k_chunk, 4608u);
  EXPECT_TRUE(small.epilogue_pass);
  // An odd pixel count or an odd y offset: the halves do not pair into whole words.
  EXPECT_TRUE(plan(resolve(layer(8, 64, 64, 7, 3)), kHalfImplicitMatrix).epilogue_pass);
  ConvProblem odd = layer(8, 64, 64, 56, 3);
  odd.y_offset = 3;
  EXPECT_TRUE(plan(resolve(odd), kHalfImplicitMatrix).epilogue_pass);
  // Forced: float16 in fast mode on a device that runs it, at most 256 taps.
  EXPECT_EQ(plan(resolve(layer(8, 240, 240, 14, 3, 1, 240)), forced).path, Path::implicit_matrix);
  forced.matrix_tile = 3;
  EXPECT_EQ(std::string(kMatrixTiles[plan(l64, forced).tile].name), "64x256.8sg");
  EXPECT_EQ(tile_shape(plan(l64, forced)).columns, 256u);
  EXPECT_THROW(plan(resolve(layer(1, 4, 4, 40, 17)), forced), UnsupportedError);  // 289 taps
  for (Config c : {kHalfMatrix, kFast}) {
    c.variant = ConvVariant::implicit_matrix;
    EXPECT_THROW(plan(l64, c), UnsupportedError);
  }
  Config det = forced;
  det.mode = KernelMode::deterministic;
  EXPECT_THROW(plan(l64, det), UnsupportedError);
}

TEST(ConvPlan, SplitKForSmallGridsFromTheShapeOnly) {
  // 512 channels at 7 x 7, batch 1: one pixel tile, 8 channel tiles, k = 4608.
  const Plan p = plan(resolve(layer(1, 512, 512, 7, 3)), kDet);
  EXPECT_EQ(p.path, Path::implicit);
  EXPECT_EQ(p.splits, 16u);
  EXPECT_EQ(p.k_chunk % 32, 0u);
  EXPECT_GE(p.k_chunk, 128u);
  EXPECT_GE(uint64_t(p.splits) * p.k_chunk, 4608u);
  EXPECT_TRUE(p.epilogue_pass);
  // 56 x 56 at batch 8 (392 pixel tiles) stays whole, and so do short k.
  EXPECT_EQ(plan(resolve(layer(8, 64, 64, 56, 3)), kDet).splits, 1u);
  EXPECT_EQ(plan(resolve(layer(1, 16, 16, 7, 3)), kDet).splits, 1u);  // k = 144
  EXPECT_FALSE(plan(resolve(layer(8, 64, 64, 56, 3)), kDet).epilogue_pass);
}

TEST(ConvPlan, ScratchAndChunks) {
  const Geometry g = resolve(layer(8, 64, 32, 14, 3));
  Config unfold = kFast;
  unfold.variant = ConvVariant::unfold;
  const Plan p = plan(g, unfold);
  ASSERT_EQ(p.path, Path::unfold);
  const uint64_t one = p.scratch_words(g, DataType::float32, 1), all = p.scratch_words(g, DataType::float32, 8);
  EXPECT_EQ(Plan::row_length(g, 1), 200u);  // 196 rounded up to 8
  EXPECT_EQ(one, 576u * 200 + 32u * 200);
  EXPECT_GT(all, 7 * one);
  EXPECT_EQ(chunk_images(p, g, DataType::float32, all), 8u);
  EXPECT_EQ(chunk_images(p, g, DataType::float32, one), 1u);
  EXPECT_EQ(chunk_images(p, g, DataType::float32, one - 1), 0u);
  const uint64_t three = p.scratch_words(g, DataType::float32, 3);
  EXPECT_EQ(chunk_images(p, g, DataType::float32, three), 3u);
  EXPECT_EQ(chunk_images(p, g, DataType::float32, three + 1), 3u);
  // Half column matrices take half the words.
  EXPECT_LT(p.scratch_words(g, DataType::float16, 1), one);
  // The direct kernel and an unsplit float32 implicit kernel need none.
  EXPECT_EQ(plan(resolve(layer(1, 8, 8, 9, 3, 1, 8)), kFast).scratch_words(resolve(layer(1, 8, 8, 9, 3, 1, 8)),
                                                                            DataType::float32, 1), 0u);
  const Geometry big = resolve(layer(8, 64, 64, 56, 3));
  EXPECT_EQ(plan(big, kDet).scratch_words(big, DataType::float32, 8), 0u);
}

TEST(ConvPlan, ImplicitTileWidth) {
  // float32: the 64 x 128 tile, except where the 64 x 64 one fills the device unsplit and the wide
  // one would not; float16 and ConvTranspose phases keep 64 x 64.
  const Plan stem = plan(resolve(layer(8, 3, 64, 224, 7, 2)), kFast);
  EXPECT_TRUE(stem.wide);
  EXPECT_EQ(path_name(stem), "conv.implicit.wide");
  EXPECT_EQ(tile_shape(stem).columns, 128u);
  EXPECT_FALSE(plan(resolve(layer(8, 64, 64, 56, 3)), kDet).wide);  // 392 narrow, 196 wide tiles
  EXPECT_TRUE(plan(resolve(layer(1, 512, 512, 7, 3)), kDet).wide);  // split either way
  EXPECT_FALSE(plan(resolve(layer(8, 3, 64, 224, 7, 2)), kHalf).wide);
  Config narrow = kFast;
  narrow.implicit_wide = 0;
  EXPECT_FALSE(plan(resolve(layer(8, 3, 64, 224, 7, 2)), narrow).wide);
  Config wide = kDet;
  wide.implicit_wide = 1;
  EXPECT_TRUE(plan(resolve(layer(8, 64, 64, 56, 3)), wide).wide);
}

TEST(ConvPlan, Winograd) {
  Config forced = kFast;
  forced.variant = ConvVariant::winograd;
  const Geometry g = resolve(layer(8, 64, 32, 15, 3));  // 8 x 8 tiles of the 15 x 15 output
  const Plan p = plan(g, forced);
  ASSERT_EQ(p.path, Path::winograd);
  EXPECT_EQ(path_name(p), "conv.winograd");
  EXPECT_EQ(winograd_tiles(g), 64u);
  const Plan::Layout l = p.layout(g, DataType::float32, 3);
  EXPECT_EQ(l.weights, 0u);
  EXPECT_EQ(l.columns, 16u * 32 * 64);
  EXPECT_EQ(l.sums, l.columns + 16u * 64 * 3 * 64);
  EXPECT_EQ(l.total, l.sums + 16u * 32 * 3 * 64);
  // Only float32 3 x 3, stride 1, dilation 1, one group.
  Config half = forced;
  half.type = DataType::float16;
  EXPECT_THROW(plan(g, half), UnsupportedError);
  EXPECT_THROW(plan(resolve(layer(8, 64, 32, 15, 3, 2)), forced), UnsupportedError);
  EXPECT_THROW(plan(resolve(layer(8, 64, 32, 15, 5)), forced), UnsupportedError);
  EXPECT_THROW(plan(resolve(layer(8, 64, 32, 15, 3, 1, 2)), forced), UnsupportedError);
}

TEST(ConvPlan, PushConstantsAdvanceToTheChunk) {
  ConvProblem pr = layer(4, 8, 16, 10, 3, 2);
  pr.x_offset = 5, pr.y_offset = 7, pr.residual_offset = 9, pr.residual = true, pr.bias = true;
  pr.activation = {UnaryOp::clip, {-1.0f, 2.0f}};
  const Geometry g = resolve(pr);
  const ConvPush c = push_constants(g, plan(g, kDet), 2, 2);
  EXPECT_EQ(c.images, 2u);
  EXPECT_EQ(c.x_off, 5u + 2 * 8 * 100);
  EXPECT_EQ(c.y_off, 7u + 2 * 16 * 25);
  EXPECT_EQ(c.r_off, 9u + 2 * 16 * 25);
  EXPECT_EQ(c.flags, OG_CONV_BIAS | OG_CONV_RESIDUAL | (uint32_t(UnaryOp::clip) << OG_CONV_ACT_SHIFT));
  EXPECT_EQ(c.act_beta, 2.0f);
}

TEST(ConvPlan, ProductsOfEachPath) {
  // Unfold: one product batched over groups, planned for the whole batch's row length.
  Config unfold = kFast, pointwise = kFast;
  unfold.variant = ConvVariant::unfold, pointwise.variant = ConvVariant::pointwise;
  const Geometry g = resolve(layer(6, 8, 12, 5, 3, 1, 2));
  const Plan up = plan(g, unfold);
  EXPECT_EQ(up.depth_padded, 40u);  // 4 x 9 rounded up to 8
  EXPECT_TRUE(up.pad_weights);
  const auto u = products(g, up, DataType::float32, 2, 3, 100, 2000);
  ASSERT_EQ(u.size(), 1u);
  const Plan::Layout l = up.layout(g, DataType::float32, 3);
  EXPECT_EQ(u[0].problem.batch, 2u);
  EXPECT_EQ(u[0].problem.m, 6u);
  EXPECT_EQ(u[0].problem.k, 40u);
  EXPECT_EQ(u[0].problem.n, 80u);  // 3 x 25 rounded to 8
  EXPECT_EQ(*u[0].problem.plan_n, 152u);
  EXPECT_TRUE(u[0].a_is_scratch);
  EXPECT_EQ(u[0].problem.offset_a, 100u + l.weights);
  EXPECT_EQ(u[0].problem.offset_b, 100u);
  EXPECT_EQ(u[0].problem.offset_c, 2000u + l.sums);
  EXPECT_EQ(l.weights, 2u * 40 * 80);
  EXPECT_EQ(l.sums, l.weights + 12u * 40);
  // Float16 on matrix hardware with few tiles: k ranges as batch entries.
  const Geometry deep = resolve(layer(1, 512, 512, 7, 3));
  const Plan dp = plan(deep, kHalfMatrix);
  EXPECT_EQ(dp.path, Path::unfold);
  EXPECT_EQ(dp.product_splits, 16u);
  const auto d = products(deep, dp, DataType::float16, 0, 1, 0, 0);
  EXPECT_EQ(d[0].problem.batch, 16u);
  EXPECT_EQ(d[0].problem.k, 288u);
  EXPECT_EQ(*d[0].problem.stride_a, 288u);
  EXPECT_EQ(path_name(dp), "conv.unfold.splitk16");
  // Pointwise with one group: over images, planned for the whole batch.
  const Geometry pw = resolve(layer(6, 8, 12, 5, 1));
  const auto q = products(pw, plan(pw, pointwise), DataType::float32, 2, 3, 0, 64);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].problem.batch, 3u);
  EXPECT_EQ(*q[0].problem.plan_batch, 6u);
  EXPECT_EQ(q[0].problem.offset_b, 2u * 8 * 25);
  EXPECT_EQ(*q[0].problem.stride_c, 12u * 25);
  // Transpose with more groups than images: over groups, one product per image.
  ConvTransposeProblem t;
  t.batch = 2, t.in_channels = 8, t.out_channels = 8, t.groups = 4, t.input = {3, 3};
  t.window = Window{{2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}};
  const Geometry tg = resolve(t);
  Config col2im = kFast;
  col2im.variant = ConvVariant::col2im;
  const auto tr = products(tg, plan(tg, col2im), DataType::float32, 0, 2, 0, 0);
  ASSERT_EQ(tr.size(), 2u);
  EXPECT_TRUE(tr[0].problem.transpose_a);
  EXPECT_EQ(tr[0].problem.m, 2u * 4);
  EXPECT_EQ(tr[0].problem.k, 2u);
  EXPECT_EQ(tr[0].problem.batch, 4u);
  EXPECT_EQ(tr[1].problem.offset_c, 4u * 8 * 9);
}

TEST(ConvPlan, ErrorsNameTheArgument) {
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1, 8, 12, 6, 3, 1, 3)); }), "groups");
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1, 0, 12, 6, 3)); }), "in_channels");
  EXPECT_EQ(shape_error_argument([] { resolve(layer(-1, 8, 12, 6, 3)); }), "batch");
  ConvProblem big_kernel = layer(1, 8, 12, 6, 9);
  big_kernel.window.pads = {1, 1, 1, 1};  // 8 < 9
  EXPECT_EQ(shape_error_argument([&] { resolve(big_kernel); }), "kernel");
  // Element counts past 2^31 (each factor fine on its own).
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1 << 20, 64, 8, 64, 1)); }), "x");
  ConvProblem off = layer(1, 8, 8, 8, 3);
  off.y_offset = (uint64_t(1) << 32) - 10;
  EXPECT_EQ(shape_error_argument([&] { resolve(off); }), "y");
  // Unfolded columns past 2^31 though x and y fit.
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1, 2048, 8, 200, 11)); }), "x");
}

}  // namespace
}  // namespace onegpu::kernels::conv
