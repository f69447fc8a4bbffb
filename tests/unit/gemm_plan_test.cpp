// GEMM decisions without a GPU: defaults, operand checks, kernel choice, split k, bound ranges,
// grid limits, push constants, and the matrix tiles read from the variant table.
#include <gtest/gtest.h>

#include <tuple>

#include "kernels/gemm/gemm_plan.h"
#include "support/shape_error.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::gemm {
namespace {

using onegpu::testing::shape_error_message;

std::string name_of(const GemmProblem& p, const Config& c, UnaryFunction f = {}) {
  return variant_name(plan(resolve(p), c, f));
}
const Config kF32{.type = DataType::float32};
const Config kF16{.type = DataType::float16};
const Config kBF16{.type = DataType::bfloat16};
Config deterministic(DataType t) { return {.type = t, .mode = KernelMode::deterministic}; }
Config on_tile(std::string_view tile) {
  const CoopTile* t = coop_tile(tile);
  return {.type = t ? t->type : DataType::float16, .coop = t};
}
// The same on a device without the 64 x 128 x 64 tile (no workgroup shape for 128 invocations).
Config without_unsplit_tile(std::string_view tile) {
  Config c = on_tile(tile);
  c.unsplit_grid = 0;
  return c;
}

TEST(GemmResolve, DefaultsFollowTheStoredShapes) {
  Shape s = resolve({.m = 4, .n = 3, .k = 2, .alpha = 2.0f, .beta = 0.5f});
  EXPECT_EQ(s.lda, 2u);
  EXPECT_EQ(s.ldb, 3u);
  EXPECT_EQ(s.ldc, 3u);
  EXPECT_EQ(s.stride_a, 8u);
  EXPECT_EQ(s.stride_b, 6u);
  EXPECT_EQ(s.stride_c, 12u);
  EXPECT_EQ(s.alpha, 2.0f);
  EXPECT_EQ(s.beta, 0.5f);
  s = resolve({.m = 4, .n = 3, .k = 2, .transpose_a = true, .transpose_b = true});
  EXPECT_EQ(s.lda, 4u);  // A stored K x M
  EXPECT_EQ(s.ldb, 2u);  // B stored N x K
}

TEST(GemmResolve, MessagesNameTheArgument) {
  GemmProblem p{.m = 8, .n = 8, .k = 16};
  p.lda = 12;
  EXPECT_EQ(shape_error_message([&] { resolve(p); }), "Gemm: lda: 12 is less than K = 16");
  p = {.m = 8, .n = 8, .k = 16, .batch = 2};
  p.stride_c = 63;
  EXPECT_THROW(resolve(p), KernelShapeError);
  p.stride_c = 64;
  EXPECT_NO_THROW(resolve(p));
}

TEST(GemmExtent, CoversTheLastElementOfTheLastMatrix) {
  GemmProblem p{.m = 3, .n = 5, .k = 7, .batch = 2};
  p.lda = 10;
  p.offset_a = 4;
  p.stride_a = 100;
  Shape s = resolve(p);
  Extent a = extent_a(s);
  EXPECT_EQ(a.first, 4u);
  EXPECT_EQ(a.end, 4u + 100 + 2 * 10 + 7);
  p.stride_b = 0;
  EXPECT_EQ(extent_b(resolve(p)).end, 6u * 5 + 5);
  EXPECT_EQ(extent_a(resolve({.m = 3, .n = 5, .k = 0})).end, 0u);  // empty
}

// Batch strides times batch counts that pass 64 bits (or wrap to a small number) are refused in
// resolve, so no extent, byte count or piece offset after it can wrap.
TEST(GemmResolve, ExtentsThatWrapAreRefused) {
  auto argument_of = [](const GemmProblem& p) {
    try {
      (void)resolve(p);
    } catch (const KernelShapeError& e) {
      return e.argument();
    }
    return std::string("no error");
  };
  // (2^25) x 2^39 = 2^64: the product wraps to 0, the extent would read as 1 element.
  GemmProblem p{.m = 1, .n = 1, .k = 1, .batch = (1ull << 25) + 1};
  p.stride_a = 1ull << 39;
  EXPECT_EQ(argument_of(p), "stride_a");
  p.stride_a.reset();
  p.stride_b = (1ull << 40) - 1;
  p.batch = (1ull << 31) - 1;  // about 2^71
  EXPECT_EQ(argument_of(p), "stride_b");
  p.stride_b.reset();
  p.stride_c = 1ull << 39;
  p.batch = (1ull << 23) + 1;  // the last matrix starts at 2^62: one element past the limit
  EXPECT_EQ(argument_of(p), "stride_c");
  p.batch = 1ull << 23;
  EXPECT_EQ(argument_of(p), "no error");
  EXPECT_EQ(extent_c(resolve(p)).end, ((1ull << 23) - 1) * (1ull << 39) + 1);
  // The largest offsets and strides with the largest batch.
  GemmProblem most{.m = 1, .n = 1, .k = 1, .batch = (1ull << 31) - 1};
  most.offset_a = most.offset_b = most.offset_c = (1ull << 40) - 1;
  most.stride_a = most.stride_b = most.stride_c = (1ull << 40) - 1;
  EXPECT_EQ(argument_of(most), "stride_a");
  most.batch = 1;
  EXPECT_EQ(argument_of(most), "no error");
}

TEST(GemmOperands, EachBufferBiasAndFunctionChecked) {
  const Shape s = resolve({.m = 16, .n = 17, .k = 16});
  const OperandSizes fit{.a_bytes = 16 * 16 * 2, .b_bytes = 16 * 17 * 2, .c_bytes = 16 * 17 * 4};
  EXPECT_NO_THROW(check_operands(s, DataType::float16, fit, {}));
  OperandSizes x = fit;
  x.b_bytes -= 2;
  EXPECT_EQ(shape_error_message([&] { check_operands(s, DataType::float16, x, {}); }),
            "Gemm: b: needs elements up to 272, the buffer holds 271");
  EXPECT_EQ(shape_error_message([&] { check_operands(s, DataType::float32, fit, {}); }),  // 4-byte elements
            "Gemm: a: needs elements up to 256, the buffer holds 128");
  x = fit;
  x.c_bytes -= 4;
  EXPECT_EQ(shape_error_message([&] { check_operands(s, DataType::float16, x, {}); }),
            "Gemm: c: needs elements up to 272, the buffer holds 271");
  x = fit;
  x.bias_elements = 20;
  x.bias_offset = 3;
  EXPECT_NO_THROW(check_operands(s, DataType::float16, x, {}));
  x.bias_offset = 4;
  EXPECT_EQ(shape_error_message([&] { check_operands(s, DataType::float16, x, {}); }),
            "Gemm: bias: needs 17 elements from offset 4, the buffer holds 20");
  x.bias_offset = 21;
  EXPECT_THROW(check_operands(s, DataType::float16, x, {}), KernelShapeError);
  EXPECT_NO_THROW(check_operands(s, DataType::float16, fit, {UnaryOp::leaky_relu, {0.1f}}));
  EXPECT_EQ(shape_error_message([&] { check_operands(s, DataType::float16, fit, {UnaryOp(18)}); }),
            "Gemm: activation: unknown unary function 18");
  // Empty operands need nothing of their buffers.
  EXPECT_NO_THROW(check_operands(resolve({.m = 0, .n = 0, .k = 16}), DataType::float32, {}, {}));
  EXPECT_THROW(check_operands(resolve({.m = 0, .n = 17, .k = 16}), DataType::float32, {}, {}), KernelShapeError);
}

TEST(GemmOperands, TheOutputOverlapsNoInput) {
  // One buffer of 4096 bytes: A (half, 16 x 16) at element 0, B at element 256, C (float) at 256.
  GemmProblem p{.m = 16, .n = 16, .k = 16, .offset_a = 0, .offset_b = 256, .offset_c = 256};
  const OperandSizes one{.a_bytes = 4096, .b_bytes = 4096, .c_bytes = 4096, .a_buffer = 7, .b_buffer = 7,
                         .c_buffer = 7};
  EXPECT_NO_THROW(check_operands(resolve(p), DataType::float16, one, {}));  // bytes 0..512, 512..1024, 1024..2048
  EXPECT_EQ(shape_error_message([&] { check_operands(resolve(p), DataType::float32, one, {}); }),
            "Gemm: c: overlaps b in the same buffer (bytes 1024..2048 and 1024..2048)");
  p.offset_c = 255;
  EXPECT_EQ(shape_error_message([&] { check_operands(resolve(p), DataType::float16, one, {}); }),
            "Gemm: c: overlaps b in the same buffer (bytes 1020..2044 and 512..1024)");
  OperandSizes apart = one;
  apart.b_buffer = 8;  // B elsewhere: C at 255 overlaps nothing
  EXPECT_NO_THROW(check_operands(resolve(p), DataType::float16, apart, {}));
  p.offset_c = 100;
  apart.a_buffer = 7;
  EXPECT_EQ(shape_error_message([&] { check_operands(resolve(p), DataType::float16, apart, {}); }),
            "Gemm: c: overlaps a in the same buffer (bytes 400..1424 and 0..512)");
  // The bias: N floats from its offset.
  p.offset_c = 512;
  OperandSizes with_bias = one;
  with_bias.bias_elements = 1024, with_bias.bias_buffer = 7, with_bias.bias_offset = 768;
  EXPECT_NO_THROW(check_operands(resolve(p), DataType::float16, with_bias, {}));  // C 512..768 floats
  with_bias.bias_offset = 767;
  EXPECT_EQ(shape_error_message([&] { check_operands(resolve(p), DataType::float16, with_bias, {}); }),
            "Gemm: c: overlaps bias in the same buffer (bytes 2048..3072 and 3068..3132)");
  // Unknown buffers (0) never overlap; an empty product has no range.
  EXPECT_NO_THROW(check_operands(resolve(p), DataType::float16, OperandSizes{.a_bytes = 4096, .b_bytes = 4096,
                                                                             .c_bytes = 4096}, {}));
  EXPECT_NO_THROW(check_operands(resolve({.m = 0, .n = 16, .k = 16}), DataType::float16, one, {}));
}

TEST(GemmBoundRange, AlignedDownWholeWordsInsideTheBuffer) {
  BoundRange r = bound_range({37, 101}, 2, 64, 1000);
  EXPECT_EQ(r.offset_bytes, 64u);
  EXPECT_EQ(r.size_bytes, 204u - 64u);
  EXPECT_EQ(r.base_elements, 32u);
  r = bound_range({0, 3}, 2, 16, 8);  // ends in the padding word
  EXPECT_EQ(r.size_bytes, 8u);
}

TEST(GemmBoundRange, RangesBeyondOneBindingOrThirtyTwoBitIndicesAreUnsupported) {
  ComputeCapabilities caps;
  caps.max_storage_buffer_range = 128ull << 20;
  caps.min_storage_buffer_offset_alignment = 64;
  GemmProblem p{.m = 1, .n = 51865, .k = 768, .transpose_b = true};
  p.offset_b = 40;
  const Shape s = resolve(p);
  OperandSizes sizes{.a_bytes = 768 * 4, .b_bytes = (40 + 51865ull * 768) * 2, .c_bytes = 51865 * 4};
  const Bindings b = bind_ranges(s, DataType::float16, sizes, caps);
  EXPECT_EQ(b.b.offset_bytes, 64u);  // 80 aligned down to 64
  EXPECT_EQ(b.b.base_elements, 32u);
  EXPECT_EQ(b.b.size_bytes, sizes.b_bytes - 64);
  EXPECT_EQ(b.c.size_bytes, 51865u * 4);
  sizes.b_bytes = (40 + 51865ull * 768) * 4;
  try {
    bind_ranges(s, DataType::float32, sizes, caps);  // 159 MB of float32 B
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "max_storage_buffer_range");
  }
  caps.max_storage_buffer_range = 1ull << 40;
  GemmProblem big{.m = 1, .n = 1ull << 30, .k = 8, .transpose_b = true};
  EXPECT_THROW(bind_ranges(resolve(big), DataType::float16, {.a_bytes = 16, .b_bytes = 8ull << 31, .c_bytes = 4ull << 30}, caps),
               UnsupportedError);
}

TEST(GemmGrid, CheckedOnceAgainstTheDevice) {
  ComputeCapabilities caps;
  caps.max_workgroup_count = {65535, 65535, 65535};
  const Plan p = plan(resolve({.m = 64, .n = 64ull * 65535, .k = 8}), deterministic(DataType::float32));
  EXPECT_EQ(p.grid.x, 65535u);
  EXPECT_NO_THROW(check_grid(p, caps));
  const Plan q = plan(resolve({.m = 64, .n = 64ull * 65536, .k = 8}), deterministic(DataType::float32));
  try {
    check_grid(q, caps);
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "max_workgroup_count");
  }
}

TEST(GemmPlan, PiecesPlannedForTheWholeProduct) {
  // A band of 256 columns of a 128 x 1536 product: alone its smaller grid splits k into more
  // ranges; planned for the whole product it keeps the whole's kernel and split, with its own grid.
  const GemmProblem whole{.m = 128, .n = 1536, .k = 1024};
  GemmProblem band{.m = 128, .n = 256, .k = 1024};
  band.ldb = 1536, band.ldc = 1536;
  const Config c = deterministic(DataType::float32);
  const Plan w = plan(resolve(whole), c), alone = plan(resolve(band), c);
  band.plan_n = 1536;
  const Plan piece = plan_for(resolve(band), band, c, {});
  EXPECT_NE(alone.splits, w.splits);
  EXPECT_EQ(piece.variant.name(), w.variant.name());
  EXPECT_EQ(piece.splits, w.splits);
  EXPECT_EQ(piece.k_chunk, w.k_chunk);
  EXPECT_EQ(piece.grid.x, 4u);  // 256 / 64
  EXPECT_EQ(piece.reduce_elements, 128u * 256);
  // Batch entries likewise; a plan smaller than the piece is refused.
  GemmProblem entries{.m = 64, .n = 64, .k = 512, .batch = 2};
  entries.plan_batch = 12;
  EXPECT_EQ(plan_for(resolve(entries), entries, c, {}).grid.z, 2u * plan(resolve({.m = 64, .n = 64, .k = 512, .batch = 12}), c).splits);
  entries.plan_batch = 1;
  EXPECT_NE(shape_error_message([&] { plan_for(resolve(entries), entries, c, {}); }).find("plan_batch"), std::string::npos);
}

TEST(GemmPlan, FewRowsSplitKAndTile) {
  Plan p = plan(resolve({.m = 1, .n = 51865, .k = 768, .transpose_b = true}), kF32);
  EXPECT_EQ(variant_name(p), "gemm.rows.nk.f32.vec4");
  EXPECT_EQ(p.grid.x, (51865u + 7) / 8);
  EXPECT_EQ(name_of({.m = 1, .n = 51865, .k = 768}, kF32), "gemm.rows.kn32.f32");
  EXPECT_EQ(name_of({.m = 4, .n = 3072, .k = 768}, kF32), "gemm.rows.kn16.f32");
  EXPECT_EQ(name_of({.m = 4, .n = 3072, .k = 770, .transpose_b = true}, deterministic(DataType::float32)),
            "gemm.rows.nk.f32");
  // 16-bit operands: B stored K x N in 16-byte words (FewRowsInWordsForBStoredKxN); B stored N x K
  // eight at a time where those reads are whole.
  EXPECT_EQ(name_of({.m = 1, .n = 51865, .k = 768}, kF16), "gemm.rows.kn64.f16.vec8.one");  // one row
  EXPECT_EQ(name_of({.m = 2, .n = 51865, .k = 768}, kF16), "gemm.rows.kn64.f16.vec8");
  EXPECT_EQ(name_of({.m = 4, .n = 8191, .k = 768}, kBF16), "gemm.rows.kn64.bf16.vec8.splitk3");
  EXPECT_EQ(name_of({.m = 1, .n = 51865, .k = 768, .transpose_b = true}, kBF16), "gemm.rows.nk.bf16.vec8");
  EXPECT_EQ(name_of({.m = 1, .n = 51865, .k = 768, .transpose_b = true}, kF16), "gemm.rows.nk.f16.vec8");
  EXPECT_EQ(name_of({.m = 1, .n = 51865, .k = 764, .transpose_b = true}, kF16), "gemm.rows.nk.f16");
  GemmProblem nk{.m = 2, .n = 100, .k = 64, .transpose_b = true};
  nk.offset_a = 4;  // reads of A would straddle eight-element words
  EXPECT_EQ(name_of(nk, kF16), "gemm.rows.nk.f16");
  nk.offset_a = 8, nk.batch = 2, nk.stride_b = 6404;
  EXPECT_EQ(name_of(nk, kF16), "gemm.rows.nk.f16");
  nk.stride_b = 0;
  EXPECT_EQ(name_of(nk, kF16), "gemm.rows.nk.f16.vec8");
  // 128 x 768 x 768: 24 tiles, so k = 768 is cut into 16 ranges of 48 -> 64 terms: 12 ranges.
  p = plan(resolve({.m = 128, .n = 768, .k = 768}), kF32);
  EXPECT_EQ(variant_name(p), "gemm.tile64.f32.splitk12");
  EXPECT_EQ(p.splits, 12u);
  EXPECT_EQ(p.k_chunk, 64u);
  EXPECT_EQ(p.grid.z, 12u);
  EXPECT_EQ(p.reduce_elements, 128u * 768);
  EXPECT_EQ(splitk_reduce_variant(768).name(), "gemm.splitk_reduce.vec4");
  EXPECT_EQ(splitk_reduce_workgroups(p, 768), 128u * 768 / 4 / 256);
  EXPECT_EQ(splitk_reduce_variant(766).name(), "gemm.splitk_reduce");
  EXPECT_EQ(splitk_reduce_workgroups(p, 766), 128u * 768 / 256);
  // The same in both modes: the order is part of the shape.
  EXPECT_EQ(plan(resolve({.m = 128, .n = 768, .k = 768}), deterministic(DataType::float32)).splits, 12u);
  // Planes that would not fit the scratch cut fewer ranges.
  // 256 tiles aim at 2 ranges; 1024 x 1024 planes: 4 fit the 16 MiB scratch.
  EXPECT_EQ(plan(resolve({.m = 1024, .n = 1024, .k = 4096}), deterministic(DataType::float16)).splits, 2u);
  // 1024 tiles keep the GPU busy without a split.
  EXPECT_EQ(plan(resolve({.m = 2048, .n = 2048, .k = 4096}), deterministic(DataType::float16)).splits, 1u);
  EXPECT_EQ(plan(resolve({.m = 512, .n = 512, .k = 4096}), deterministic(DataType::float16)).splits, 6u);
  // Fast mode takes the 128 x 128 tile for every input type (16 of its tiles: 16 ranges of 256).
  EXPECT_EQ(name_of({.m = 512, .n = 512, .k = 4096}, kF16), "gemm.tile128.f16.splitk16");
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, kBF16), "gemm.tile128.bf16");
  // Its compact form where the padded one's workgroup memory does not fit.
  const uint64_t padded = variants().at("gemm.tile128.f32").workgroup_memory_bytes();
  if (padded > 0) {  // built
    EXPECT_EQ(name_of({.m = 512, .n = 512, .k = 64}, {.max_workgroup_memory = padded}), "gemm.tile128.f32");
    EXPECT_EQ(name_of({.m = 512, .n = 512, .k = 64}, {.max_workgroup_memory = padded - 1}),
              "gemm.tile128.f32.compact");
  }
  p = plan(resolve({.m = 4096, .n = 4096, .k = 4096}), deterministic(DataType::float32));
  EXPECT_EQ(variant_name(p), "gemm.tile64.f32");
  EXPECT_EQ(p.grid.x, 64u);
  EXPECT_EQ(p.grid.y, 64u);
}

TEST(GemmPlan, FewRowsInWordsForBStoredKxN) {
  // 1 x 51865 x 768: 811 workgroups of 64 columns, enough without a split; the grid's z is the
  // range. Both modes, both 16-bit types; float32 keeps the one-element kernel.
  for (const Config& c : {kF16, kBF16, deterministic(DataType::float16), deterministic(DataType::bfloat16)}) {
    const Plan p = plan(resolve({.m = 1, .n = 51865, .k = 768}), c);
    EXPECT_EQ(p.kernel, Kernel::rows_kn);
    EXPECT_EQ(p.variant.name(),
              c.type == DataType::float16 ? "gemm.rows.kn64.f16.vec8.one" : "gemm.rows.kn64.bf16.vec8.one");
    EXPECT_EQ(p.splits, 1u);
    EXPECT_EQ(p.k_chunk, 768u);
    EXPECT_EQ(p.tile_n, 64u);
    EXPECT_EQ(p.grid.x, (51865u + 63) / 64);
    EXPECT_EQ(p.grid.y, 1u);
    EXPECT_EQ(p.grid.z, 1u);
  }
  EXPECT_EQ(name_of({.m = 1, .n = 51865, .k = 768}, kF32), "gemm.rows.kn32.f32");
  // Few columns keep the one-element kernels; A transposed or more than four rows keep the tiles.
  EXPECT_EQ(name_of({.m = 4, .n = kRowsWordsMinN - 1, .k = 768}, kF16), "gemm.rows.kn16.f16");
  EXPECT_EQ(name_of({.m = 4, .n = kRowsWordsMinN, .k = 768}, kF16), "gemm.rows.kn64.f16.vec8.splitk3");
  EXPECT_EQ(name_of({.m = 2, .n = 4096, .k = 64, .transpose_a = true}, kF16), "gemm.tile64.f16");
  EXPECT_EQ(name_of({.m = 5, .n = 4096, .k = 64}, deterministic(DataType::float16)), "gemm.tile64.f16");
  // A small grid over a long k: 1 x 4096 x 4096 has 64 workgroups, aiming at kRowsSplitGrid: 9
  // ranges of 480 terms (a multiple of 32), the last 256.
  Plan p = plan(resolve({.m = 1, .n = 4096, .k = 4096}), kF16);
  EXPECT_EQ(p.splits, 9u);
  EXPECT_EQ(p.k_chunk, 480u);
  EXPECT_EQ(p.grid.z, 9u);
  EXPECT_EQ(p.reduce_elements, 4096u);
  // Ranges of at least kRowsSplitTerms: k = 511 is not split, 512 in two.
  EXPECT_EQ(plan(resolve({.m = 1, .n = 300, .k = 511}), kF16).splits, 1u);
  EXPECT_EQ(plan(resolve({.m = 1, .n = 300, .k = 512}), kF16).splits, 2u);
  // Pieces keep the whole product's split; a batch goes to y.
  GemmProblem piece{.m = 2, .n = 512, .k = 2048, .batch = 3};
  piece.ldb = 4096, piece.ldc = 4096, piece.plan_n = 4096;
  p = plan_for(resolve(piece), piece, kBF16, {});
  const Plan whole = plan(resolve({.m = 2, .n = 4096, .k = 2048, .batch = 3}), kBF16);
  EXPECT_EQ(variant_name(p), variant_name(whole));
  EXPECT_EQ(p.k_chunk, whole.k_chunk);
  EXPECT_EQ(p.grid.x, 8u);
  EXPECT_EQ(p.grid.y, 3u);
  EXPECT_EQ(p.grid.z, whole.splits);
  EXPECT_EQ(p.reduce_elements, 2u * 512 * 3);

  // Forced for tuning (ONEGPU_GEMM_ROWS_KN, ONEGPU_GEMM_ROWS_KN_SPLITS).
  EXPECT_EQ(parse_rows_kn("old"), RowsKn::one_element);
  EXPECT_EQ(parse_rows_kn("kn64"), RowsKn::words64);
  EXPECT_EQ(parse_rows_kn("kn256"), RowsKn::words256);
  EXPECT_EQ(parse_rows_kn(""), RowsKn::automatic);
  EXPECT_EQ(parse_rows_kn("split"), RowsKn::automatic);
  Config c = kF16;
  c.rows_kn = RowsKn::one_element;
  EXPECT_EQ(name_of({.m = 1, .n = 51865, .k = 768}, c), "gemm.rows.kn32.f16");
  c.rows_kn = RowsKn::words256;
  p = plan(resolve({.m = 1, .n = 51865, .k = 768}), c);
  // 203 workgroups of 256 columns: the policy's ranges, 3 of 256 terms.
  EXPECT_EQ(variant_name(p), "gemm.rows.kn256.f16.vec8.splitk3");
  EXPECT_EQ(p.k_chunk, 256u);
  EXPECT_EQ(p.grid.x, (51865u + 255) / 256);
  c.rows_kn_splits = 4;
  p = plan(resolve({.m = 1, .n = 51865, .k = 768}), c);
  EXPECT_EQ(variant_name(p), "gemm.rows.kn256.f16.vec8.splitk4");
  EXPECT_EQ(p.k_chunk, 192u);
  EXPECT_EQ(p.grid.z, 4u);
  c.rows_kn = RowsKn::words64;  // forced, it takes any product of at least 8 columns
  c.rows_kn_splits = 1;
  EXPECT_EQ(name_of({.m = 3, .n = 8, .k = 2048}, c), "gemm.rows.kn64.f16.vec8");
  EXPECT_EQ(name_of({.m = 3, .n = 7, .k = 2048}, c), "gemm.rows.kn16.f16");
  c.type = DataType::float32;  // no float32 form
  EXPECT_EQ(name_of({.m = 1, .n = 51865, .k = 768}, c), "gemm.rows.kn32.f32");
}

TEST(GemmPlan, LargeFloat32TileInFastModeWhenOperandsAreVec4Aligned) {
  Plan p = plan(resolve({.m = 4096, .n = 4096, .k = 4096}), kF32);
  EXPECT_EQ(variant_name(p), "gemm.tile128.f32");
  EXPECT_EQ(p.grid.x, 32u);
  // 48 tiles of 1024 x 768 aim at 256 workgroups: 6 ranges, cut to 5 by the scratch (5 planes of
  // 768 Ki floats fit 4 Mi), 640 terms each.
  p = plan(resolve({.m = 1024, .n = 768, .k = 3072}), kF32);
  EXPECT_EQ(variant_name(p), "gemm.tile128.f32.splitk5");
  EXPECT_EQ(p.k_chunk, 640u);
  EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3071}, kF32), "gemm.tile64.f32.splitk2");  // K not a multiple of 4
  GemmProblem q{.m = 512, .n = 512, .k = 64, .transpose_a = true};
  q.lda = 514;  // rows of A^T not vec4-aligned
  EXPECT_EQ(name_of(q, kF32), "gemm.tile64.f32");
  EXPECT_EQ(name_of({.m = 512, .n = 512, .k = 64}, kF16), "gemm.tile128.f16");
}

TEST(GemmCoopTiles, ReadFromTheVariantTable) {
  const auto tiles = coop_tiles();
  ASSERT_EQ(tiles.size(), 16u);  // float16, then bfloat16
  EXPECT_EQ(tiles[0].name, "gemm.coopmat.f16.128x256x32");
  EXPECT_EQ(tiles[0].bm, 128u);
  EXPECT_EQ(tiles[0].bn, 256u);
  EXPECT_EQ(tiles[0].bk, 32u);
  EXPECT_EQ(tiles[0].subgroups, 8u);
  EXPECT_EQ(tiles[0].invocations, 256u);
  EXPECT_EQ(tiles[0].buffers, 1u);
  EXPECT_FALSE(tiles[0].workgroup_scope);
  EXPECT_EQ(tiles[1].subgroups, 4u);
  EXPECT_EQ(tiles[3].name, "gemm.coopmat.f16.128x256x16.2buf");
  EXPECT_EQ(tiles[3].buffers, 2u);
  EXPECT_EQ(tiles[3].bk, 16u);
  EXPECT_EQ(tiles[4].name, "gemm.coopmat2.f16.128x256x32");
  EXPECT_TRUE(tiles[4].workgroup_scope);
  EXPECT_EQ(tiles[4].invocations, 256u);
  EXPECT_EQ(tiles[6].bk, 64u);
  EXPECT_EQ(coop_tile("4"), &tiles[4]);
  EXPECT_EQ(coop_tile("gemm.coopmat.f16.256x128x32"), &tiles[2]);
  EXPECT_EQ(coop_tile("16"), nullptr);
  EXPECT_EQ(coop_tile("7"), &tiles[7]);  // gemm.coopmat2.f16.64x128x64
  EXPECT_EQ(tiles[7].bm, 64u);
  EXPECT_EQ(tiles[7].invocations, 128u);
  EXPECT_EQ(coop_tile("gemm.coopmat.f16.64x64x16"), nullptr);
  // bfloat16: the same tiles in the same order after the float16 ones, from the same sources.
  for (size_t i = 0; i < 8; ++i) {
    const CoopTile& f = tiles[i];
    const CoopTile& b = tiles[8 + i];
    EXPECT_EQ(f.type, DataType::float16) << f.name;
    EXPECT_EQ(b.type, DataType::bfloat16) << b.name;
    EXPECT_TRUE(b.name.find(".bf16.") != std::string_view::npos) << b.name;
    EXPECT_EQ(std::tie(f.bm, f.bn, f.bk, f.invocations, f.subgroups, f.buffers, f.workgroup_scope),
              std::tie(b.bm, b.bn, b.bk, b.invocations, b.subgroups, b.buffers, b.workgroup_scope))
        << b.name;
    EXPECT_EQ(coop_tile_of_type(f, DataType::bfloat16), &b);
    EXPECT_EQ(coop_tile_of_type(b, DataType::float16), &f);
    EXPECT_EQ(coop_tile_of_type(b, DataType::bfloat16), &b);
    EXPECT_EQ(coop_tile_of_type(f, DataType::float32), nullptr);
  }
  EXPECT_EQ(tiles[8].name, "gemm.coopmat.bf16.128x256x32");
  EXPECT_EQ(tiles[12].name, "gemm.coopmat2.bf16.128x256x32");
  EXPECT_EQ(tiles[12].kernel(1, true).name(), "gemm.coopmat2.bf16.128x256x32.a_mk.b_nk.act");
  EXPECT_EQ(tiles[12].kernel(1, true).param("ELEM"), 2);
  EXPECT_EQ(tiles[4].kernel(1, true).param("ELEM"), 1);
  EXPECT_EQ(tiles[8].small_grid, &tiles[9]);
  EXPECT_EQ(tiles[12].small_grid, &tiles[13]);
  EXPECT_EQ(tiles[12].transposed_b, &tiles[14]);
  // Companions, by name in the selection policy.
  EXPECT_EQ(tiles[0].small_grid, &tiles[1]);
  EXPECT_EQ(tiles[0].transposed_b, nullptr);
  EXPECT_EQ(tiles[4].small_grid, &tiles[5]);
  EXPECT_EQ(tiles[4].transposed_b, &tiles[6]);
  EXPECT_EQ(tiles[3].small_grid, nullptr);
  // The 128 x 128 x 64 tile hands grids still small to 64 x 128 x 64, which the policy never splits.
  EXPECT_EQ(tiles[5].unsplit_small_grid, &tiles[7]);
  EXPECT_EQ(tiles[13].unsplit_small_grid, &tiles[15]);
  for (size_t i : {0, 1, 2, 3, 4, 6, 7, 8, 12, 14, 15}) EXPECT_EQ(tiles[i].unsplit_small_grid, nullptr) << i;
  for (size_t i = 0; i < tiles.size(); ++i)
    EXPECT_EQ(tiles[i].split_terms, i != 7 && i != 15 ? kCoopSplitTerms : kUnsplitTileSplitTerms) << tiles[i].name;
  for (size_t i : {4, 5, 6}) EXPECT_EQ(unsplit_companion(tiles[i]), &tiles[7]) << i;
  for (size_t i : {12, 13, 14}) EXPECT_EQ(unsplit_companion(tiles[i]), &tiles[15]) << i;
  for (size_t i : {0, 1, 2, 3, 7, 8, 15}) EXPECT_EQ(unsplit_companion(tiles[i]), nullptr) << i;
  // Each orientation has its variant; the workgroup-scope tiles also one with the unary function.
  EXPECT_EQ(tiles[2].kernel(1, false).name(), "gemm.coopmat.f16.256x128x32.a_mk.b_nk");
  EXPECT_EQ(tiles[2].kernel(2, true).name(), "gemm.coopmat.f16.256x128x32.a_km.b_kn");
  EXPECT_EQ(tiles[5].kernel(3, true).name(), "gemm.coopmat2.f16.128x128x64.a_km.b_nk.act");
  // Every subgroup-scope tile fits the 48 KiB of workgroup memory Vulkan drivers commonly offer.
  for (const CoopTile& t : tiles) {
    if (!t.workgroup_scope) {
      EXPECT_LE(coop_workgroup_bytes(t.bm, t.bn, t.bk, t.subgroups, t.buffers), 48u * 1024) << t.name;
    }
  }
  EXPECT_EQ(coop_workgroup_bytes(128, 256, 32, 8, 1), 30720u);  // (640 + 1280) words of 16 bytes
}

TEST(GemmPlan, MatrixHardwareTilesAndTheirCompanions) {
  const std::string_view tile = "gemm.coopmat.f16.256x128x32";
  Plan p = plan(resolve({.m = 4096, .n = 4000, .k = 4096}), on_tile(tile));
  EXPECT_EQ(variant_name(p), "gemm.coopmat.f16.256x128x32.a_mk.b_kn");
  EXPECT_EQ(p.coop, coop_tile(tile));
  EXPECT_EQ(p.grid.x, 32u);  // 4000 / 128, rounded up
  EXPECT_EQ(p.grid.y, 16u);
  EXPECT_EQ(name_of({.m = 4096, .n = 4000, .k = 4096, .transpose_a = true, .transpose_b = true}, on_tile(tile)),
            "gemm.coopmat.f16.256x128x32.a_km.b_nk");
  // The subgroup-scope kernels have the unary function in every variant.
  EXPECT_EQ(name_of({.m = 4096, .n = 4000, .k = 4096}, on_tile(tile), {UnaryOp::silu}),
            "gemm.coopmat.f16.256x128x32.a_mk.b_kn");
  // Fewer than kSmallGrid tiles: the small-grid companion (128 x 128 on four subgroups).
  p = plan(resolve({.m = 1024, .n = 3072, .k = 768}), on_tile(kDefaultSubgroupScopeTile));
  EXPECT_EQ(variant_name(p), "gemm.coopmat.f16.128x128x32.a_mk.b_kn");  // 8 x 12 = 96 tiles of 128 x 256
  EXPECT_EQ(p.grid.x, 24u);
  EXPECT_EQ(p.grid.y, 8u);
  EXPECT_EQ(name_of({.m = 2048, .n = 2048, .k = 768}, on_tile(kDefaultSubgroupScopeTile)),
            "gemm.coopmat.f16.128x256x32.a_mk.b_kn");  // 16 x 8 = 128 tiles
  EXPECT_EQ(name_of({.m = 1024, .n = 3072, .k = 768, .batch = 2}, on_tile(kDefaultSubgroupScopeTile)),
            "gemm.coopmat.f16.128x256x32.a_mk.b_kn");  // the batch counts: 192 tiles
  EXPECT_EQ(name_of({.m = 1024, .n = 3072, .k = 768}, on_tile("gemm.coopmat.f16.128x256x16.2buf")),
            "gemm.coopmat.f16.128x256x16.2buf.a_mk.b_kn");  // no companion
  // Reads of eight halves must be whole; deterministic mode and other types keep the portable kernels.
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4092}, on_tile(tile)), "gemm.tile128.f16");
  Config c = on_tile(tile);
  c.mode = KernelMode::deterministic;
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, c), "gemm.tile64.f16");
  c = on_tile(tile);
  c.type = DataType::bfloat16;  // a float16 tile never serves another type
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, c), "gemm.tile128.bf16");
  // Up to four rows stream B on the few-rows kernels even where the matrix hardware is there.
  EXPECT_EQ(name_of({.m = 4, .n = 3072, .k = 768}, on_tile(tile)), "gemm.rows.kn64.f16.vec8.splitk3");
  // The default workgroup-scope tile: 128 x 256 x 32; with B stored N x K, 128 x 256 x 64; both
  // hand grids of fewer than 128 workgroups to 128 x 128 x 64, which hands its own grids of fewer
  // than 128 to 64 x 128 x 64. A unary function takes the .act variant.
  const Config wg = on_tile(kDefaultWorkgroupScopeTile);
  p = plan(resolve({.m = 4096, .n = 4096, .k = 4096}), wg);
  EXPECT_EQ(variant_name(p), "gemm.coopmat2.f16.128x256x32.a_mk.b_kn");
  EXPECT_EQ(p.grid.x, 16u);
  EXPECT_EQ(p.grid.y, 32u);
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, wg, {UnaryOp::clip, {-1, 1}}),
            "gemm.coopmat2.f16.128x256x32.a_mk.b_kn.act");
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096, .transpose_b = true}, wg), "gemm.coopmat2.f16.128x256x64.a_mk.b_nk");
  for (bool tb : {false, true}) {
    // 8 tiles of 128 x 256, 16 of 128 x 128: 64 x 128.
    EXPECT_EQ(name_of({.m = 512, .n = 512, .k = 256, .transpose_b = tb}, wg),
              std::string("gemm.coopmat2.f16.64x128x64.a_mk.") + (tb ? "b_nk" : "b_kn"));
    // 64 tiles of 128 x 256, 128 of 128 x 128: 128 x 128.
    EXPECT_EQ(name_of({.m = 2048, .n = 1024, .k = 256, .transpose_b = tb}, wg),
              std::string("gemm.coopmat2.f16.128x128x64.a_mk.") + (tb ? "b_nk" : "b_kn"));
  }
}

// Grids of fewer than kCoopSplitGrid matrix tiles over a long k are cut along k into ranges of
// whole steps (the spec's ranges: a multiple of 32 terms, here also of the tile's BK), with an
// ordered second pass; the second pass applies the unary function, so the plain variant serves.
// The workgroup-scope 128 x 128 x 64 tile is split so only on a device without the 64 x 128 x 64
// tile (elsewhere its small grids take that one: SmallGridsTakeTheUnsplit64x128Tile).
TEST(GemmPlan, MatrixKernelsSplitKForSmallGrids) {
  const Config wg = without_unsplit_tile(kDefaultWorkgroupScopeTile), sg = on_tile(kDefaultSubgroupScopeTile);
  // 1024 x 768 x 3072: 48 tiles of 128 x 128 aim at 256 workgroups, 6 ranges, cut to 5 by the
  // scratch (5 planes of 768 Ki floats fit 4 Mi); 640 terms each, whole 64-term steps.
  Plan p = plan(resolve({.m = 1024, .n = 768, .k = 3072}), wg);
  EXPECT_EQ(variant_name(p), "gemm.coopmat2.f16.128x128x64.a_mk.b_kn.splitk5");
  EXPECT_EQ(p.splits, 5u);
  EXPECT_EQ(p.k_chunk, 640u);
  EXPECT_EQ(p.grid.x, 6u);
  EXPECT_EQ(p.grid.y, 8u);
  EXPECT_EQ(p.grid.z, 5u);
  EXPECT_EQ(p.reduce_elements, 1024u * 768);
  // The workgroup-scope kernels' range variant (a k loop of its own, no epilogue).
  EXPECT_EQ(p.variant.name(), "gemm.coopmat2.f16.128x128x64.a_mk.b_kn.splitk");
  EXPECT_EQ(p.variant.param("SPLITK"), 1);
  EXPECT_EQ(coop_tile(kDefaultWorkgroupScopeTile)->kernel(3, false, true).name(),
            "gemm.coopmat2.f16.128x256x32.a_km.b_nk.splitk");
  EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3072}, wg, {UnaryOp::gelu_erf}),
            "gemm.coopmat2.f16.128x128x64.a_mk.b_kn.splitk5");  // not .act: the second pass applies it
  EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3072, .transpose_b = true}, wg),
            "gemm.coopmat2.f16.128x128x64.a_mk.b_nk.splitk5");
  // Too short a k (fewer than two ranges of kCoopSplitTerms = 512) or enough tiles: one pass.
  EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 1016}, wg, {UnaryOp::relu}), "gemm.coopmat2.f16.128x128x64.a_mk.b_kn.act");
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, wg), "gemm.coopmat2.f16.128x256x32.a_mk.b_kn");
  EXPECT_EQ(name_of({.m = 1024, .n = 3072, .k = 768}, wg), "gemm.coopmat2.f16.128x128x64.a_mk.b_kn");  // 192 tiles
  // 128 rows over k = 768 (6 and 24 tiles): too short for two ranges of 512 terms.
  EXPECT_EQ(name_of({.m = 128, .n = 768, .k = 768}, wg), "gemm.coopmat2.f16.128x128x64.a_mk.b_kn");
  EXPECT_EQ(name_of({.m = 128, .n = 3072, .k = 768}, wg), "gemm.coopmat2.f16.128x128x64.a_mk.b_kn");
  // The batch counts in the grid, and z is batch x ranges.
  p = plan(resolve({.m = 128, .n = 256, .k = 1800, .batch = 3}), wg);
  EXPECT_EQ(p.splits, 3u);
  EXPECT_EQ(p.k_chunk, 640u);  // 1800 / 3 = 600, up to whole 64-term steps; the last range 520
  EXPECT_EQ(p.grid.z, 9u);
  // Subgroup scope: steps of 32.
  p = plan(resolve({.m = 1024, .n = 768, .k = 3072}), sg);
  EXPECT_EQ(variant_name(p), "gemm.coopmat.f16.128x128x32.a_mk.b_kn.splitk5");
  EXPECT_EQ(p.variant.name(), "gemm.coopmat.f16.128x128x32.a_mk.b_kn");  // the range from the push constants
  EXPECT_EQ(p.k_chunk, 640u);
  p = plan(resolve({.m = 128, .n = 256, .k = 1800}), sg);
  EXPECT_EQ(p.splits, 3u);
  EXPECT_EQ(p.k_chunk, 608u);
  // Forced for tuning (ONEGPU_GEMM_COOPMAT_SPLITS): whole steps, within the scratch.
  Config forced = wg;
  forced.coop_splits = 1;
  EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3072}, forced), "gemm.coopmat2.f16.128x128x64.a_mk.b_kn");
  forced.coop_splits = 4;
  p = plan(resolve({.m = 1024, .n = 768, .k = 3072}), forced);
  EXPECT_EQ(p.splits, 4u);
  EXPECT_EQ(p.k_chunk, 768u);
  forced.coop_splits = 16;
  EXPECT_EQ(plan(resolve({.m = 1024, .n = 768, .k = 3072}), forced).splits, 5u);  // the scratch
  EXPECT_EQ(plan(resolve({.m = 128, .n = 128, .k = 104}), forced).splits, 2u);     // two steps of 64
  // A column band planned for the whole product keeps its ranges, with its own grid.
  GemmProblem band{.m = 1024, .n = 256, .k = 3072};
  band.ldb = 768, band.ldc = 768, band.plan_n = 768;
  p = plan_for(resolve(band), band, wg, {});
  EXPECT_EQ(variant_name(p), "gemm.coopmat2.f16.128x128x64.a_mk.b_kn.splitk5");
  EXPECT_EQ(p.grid.x, 2u);
  EXPECT_EQ(p.grid.z, 5u);
  EXPECT_EQ(p.reduce_elements, 1024u * 256);
  // Pieces of rows under a submission budget keep them too.
  const Plan whole = plan(resolve({.m = 1024, .n = 768, .k = 3072, .batch = 2}), wg);
  const Plan piece = piece_plan(whole, resolve({.m = 128, .n = 768, .k = 3072}));
  EXPECT_EQ(piece.splits, whole.splits);
  EXPECT_EQ(piece.k_chunk, whole.k_chunk);
  EXPECT_EQ(piece.grid.y, 1u);
  EXPECT_EQ(piece.grid.z, whole.splits);
}

// A grid of fewer than kSmallGrid (128) workgroups of the workgroup-scope 128 x 128 x 64 tile takes
// the 64 x 128 x 64 tile with k unsplit, in every orientation and for both types: on the H200 it was
// the fastest choice for every such grid measured, split or not (float16, ms):
//   1024 x 768 x 3072: 0.0381 against 0.0499 (128 x 128 x 64 in 5 ranges), 0.0517-0.0550 split;
//   128 x 768 x 768:   0.0143 against 0.0197 (128 x 128 x 64 unsplit), 0.0156-0.0177 split;
//   128 x 3072 x 768:  0.0146 against 0.0205, 0.0205-0.0241 split.
// Larger grids keep their tiles (1024 x 3072 x 768: 192 tiles of 128 x 128, 0.0415 against 0.0410).
TEST(GemmPlan, SmallGridsTakeTheUnsplit64x128Tile) {
  for (DataType type : {DataType::float16, DataType::bfloat16}) {
    const std::string t = type == DataType::float16 ? "f16" : "bf16";
    SCOPED_TRACE(t);
    const Config wg = on_tile("gemm.coopmat2." + t + ".128x256x32");
    ASSERT_NE(wg.coop, nullptr);
    const std::string narrow = "gemm.coopmat2." + t + ".64x128x64", square = "gemm.coopmat2." + t + ".128x128x64";
    // 1024 x 768 x 3072: 24 tiles of 128 x 256, 48 of 128 x 128 (before: 5 ranges of 640 terms),
    // 96 of 64 x 128, all 3072 terms in one pass.
    Plan p = plan(resolve({.m = 1024, .n = 768, .k = 3072}), wg);
    EXPECT_EQ(variant_name(p), narrow + ".a_mk.b_kn");
    EXPECT_EQ(p.coop, coop_tile(narrow));
    EXPECT_EQ(p.splits, 1u);
    EXPECT_EQ(p.k_chunk, 3072u);
    EXPECT_EQ(p.reduce_elements, 0u);
    EXPECT_EQ(p.tile_n, 128u);
    EXPECT_EQ(p.grid.x, 6u);
    EXPECT_EQ(p.grid.y, 16u);
    EXPECT_EQ(p.grid.z, 1u);
    // 128 x 768 x 768 (6 tiles of 128 x 128) and 128 x 3072 x 768 (24).
    p = plan(resolve({.m = 128, .n = 768, .k = 768}), wg);
    EXPECT_EQ(variant_name(p), narrow + ".a_mk.b_kn");
    EXPECT_EQ(p.grid.y, 2u);
    EXPECT_EQ(name_of({.m = 128, .n = 3072, .k = 768}, wg), narrow + ".a_mk.b_kn");
    // Every orientation (B stored N x K through 128 x 256 x 64 and 128 x 128 x 64), with the unary
    // function compiled in where one is asked for (unsplit: the kernel applies it).
    const char* orient[] = {".a_mk.b_kn", ".a_mk.b_nk", ".a_km.b_kn", ".a_km.b_nk"};
    for (uint32_t o = 0; o < 4; ++o) {
      const GemmProblem q{.m = 1024, .n = 768, .k = 3072, .transpose_a = (o & 2) != 0, .transpose_b = (o & 1) != 0};
      EXPECT_EQ(name_of(q, wg), narrow + orient[o]);
      EXPECT_EQ(name_of(q, wg, {UnaryOp::gelu_erf}), narrow + orient[o] + ".act");
      EXPECT_EQ(plan(resolve(q), wg, {UnaryOp::gelu_erf}).variant.param("ACTIVATION"), 1);
    }
    // A long k is cut in ranges of at least kUnsplitTileSplitTerms: 256 x 1024 x 8192 (32 tiles of
    // 64 x 128) in 4 ranges of 2048; 4088 terms stay whole, 4096 make 2 ranges.
    p = plan(resolve({.m = 256, .n = 1024, .k = 8192}), wg);
    EXPECT_EQ(variant_name(p), narrow + ".a_mk.b_kn.splitk4");
    EXPECT_EQ(p.k_chunk, 2048u);
    EXPECT_EQ(plan(resolve({.m = 256, .n = 1024, .k = 4088}), wg).splits, 1u);
    EXPECT_EQ(plan(resolve({.m = 256, .n = 1024, .k = 4096}), wg).splits, 2u);
    // The edge: 127 tiles of 128 x 128 take 64 x 128; 128 keep 128 x 128 (k = 768: unsplit).
    EXPECT_EQ(name_of({.m = 128, .n = 127 * 128, .k = 768}, wg), narrow + ".a_mk.b_kn");
    EXPECT_EQ(name_of({.m = 128, .n = 128 * 128, .k = 768}, wg), square + ".a_mk.b_kn");
    // The batch counts: 21 x 6 = 126 tiles, 22 x 6 = 132.
    EXPECT_EQ(name_of({.m = 128, .n = 768, .k = 768, .batch = 21}, wg), narrow + ".a_mk.b_kn");
    EXPECT_EQ(name_of({.m = 128, .n = 768, .k = 768, .batch = 22}, wg), square + ".a_mk.b_kn");
    // Large grids keep today's tiles.
    EXPECT_EQ(name_of({.m = 1024, .n = 3072, .k = 768}, wg), square + ".a_mk.b_kn");  // 192 tiles
    EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, wg), "gemm.coopmat2." + t + ".128x256x32.a_mk.b_kn");
    // 16 tiles of a long k: 8 ranges of 2048 (at most kCoopSplitTarget workgroups); forced ranges
    // (ONEGPU_GEMM_COOPMAT_SPLITS) cut any k, in whole 64-term steps.
    p = plan(resolve({.m = 256, .n = 512, .k = 16384}), wg);
    EXPECT_EQ(variant_name(p), narrow + ".a_mk.b_kn.splitk8");
    EXPECT_EQ(p.k_chunk, 2048u);
    Config forced = wg;
    forced.coop_splits = 2;
    p = plan(resolve({.m = 1024, .n = 768, .k = 3000}), forced);
    EXPECT_EQ(variant_name(p), narrow + ".a_mk.b_kn.splitk2");
    EXPECT_EQ(p.k_chunk, 1536u);
    // The tile chosen directly (ONEGPU_GEMM_COOPMAT_TILE) is not split either.
    EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3072}, on_tile(narrow)), narrow + ".a_mk.b_kn");
    // A device without the 64 x 128 x 64 tile keeps 128 x 128 x 64 and its split.
    EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3072}, without_unsplit_tile("gemm.coopmat2." + t + ".128x256x32")),
              square + ".a_mk.b_kn.splitk5");
    // Deterministic mode keeps the portable tile; unaligned operands the 128 x 128 portable tile.
    Config c = wg;
    c.mode = KernelMode::deterministic;
    EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3072}, c), "gemm.tile64." + t + ".splitk2");
    EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3068}, wg), "gemm.tile128." + t + ".splitk5");
    // A column band planned for the whole product, and bands of rows, keep the tile and one pass.
    GemmProblem band{.m = 1024, .n = 256, .k = 3072};
    band.ldb = 768, band.ldc = 768, band.plan_n = 768;
    p = plan_for(resolve(band), band, wg, {});
    EXPECT_EQ(variant_name(p), narrow + ".a_mk.b_kn");
    EXPECT_EQ(p.grid.x, 2u);
    EXPECT_EQ(p.grid.y, 16u);
    const Plan whole = plan(resolve({.m = 1024, .n = 768, .k = 3072, .batch = 1}), wg);
    const Plan piece = piece_plan(whole, resolve({.m = 128, .n = 768, .k = 3072}));
    EXPECT_EQ(piece.coop, whole.coop);
    EXPECT_EQ(piece.grid.y, 2u);
    EXPECT_EQ(piece.grid.z, 1u);
  }
  // The subgroup-scope tiles have no such companion.
  EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3072}, on_tile(kDefaultSubgroupScopeTile)),
            "gemm.coopmat.f16.128x128x32.a_mk.b_kn.splitk5");
}

// The 64 x 128 x 64 tile runs 128 invocations: the device must list a workgroup shape for that size.
TEST(GemmPlan, TheUnsplitTileNeedsAShapeForItsWorkgroupSize) {
  const CoopTile* narrow = coop_tile("gemm.coopmat2.f16.64x128x64");
  const CoopTile* wide = coop_tile(kDefaultWorkgroupScopeTile);
  ASSERT_NE(narrow, nullptr);
  EXPECT_EQ(narrow->invocations, 128u);
  ComputeCapabilities caps;
  caps.features |= ShaderFeature::cooperative_matrix2;
  caps.cooperative_matrix_workgroup_max_invocations = 256;
  caps.cooperative_matrix_workgroup_shapes.push_back({16, 16, 16, DataType::float16, DataType::float16,
                                                      DataType::float32, DataType::float32, false, 256});
  EXPECT_TRUE(device_has_tile(caps, *wide));
  EXPECT_FALSE(device_has_tile(caps, *narrow));
  caps.cooperative_matrix_workgroup_shapes.push_back({16, 16, 16, DataType::float16, DataType::float16,
                                                      DataType::float32, DataType::float32, false, 128});
  EXPECT_TRUE(device_has_tile(caps, *narrow));
}

TEST(GemmPlan, BfloatSixteenTakesTheMatrixTilesAsFloatSixteenDoes) {
  // Every choice above with the bfloat16 counterparts: the same tiles, companions and orientations.
  const Config wg = on_tile("gemm.coopmat2.bf16.128x256x32"), sg = on_tile("gemm.coopmat.bf16.128x256x32");
  ASSERT_NE(wg.coop, nullptr);
  ASSERT_NE(sg.coop, nullptr);
  EXPECT_EQ(wg.type, DataType::bfloat16);
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, wg), "gemm.coopmat2.bf16.128x256x32.a_mk.b_kn");
  EXPECT_EQ(name_of({.m = 8192, .n = 8192, .k = 8192}, wg, {UnaryOp::gelu_tanh}),
            "gemm.coopmat2.bf16.128x256x32.a_mk.b_kn.act");
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096, .transpose_b = true}, wg),
            "gemm.coopmat2.bf16.128x256x64.a_mk.b_nk");
  EXPECT_EQ(name_of({.m = 2048, .n = 1024, .k = 256, .transpose_a = true}, wg),
            "gemm.coopmat2.bf16.128x128x64.a_km.b_kn");  // 128 tiles of 128 x 128
  EXPECT_EQ(name_of({.m = 512, .n = 512, .k = 256, .transpose_a = true}, wg), "gemm.coopmat2.bf16.64x128x64.a_km.b_kn");
  EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3072, .transpose_a = true}, wg), "gemm.coopmat2.bf16.64x128x64.a_km.b_kn");
  EXPECT_EQ(name_of({.m = 1024, .n = 768, .k = 3072, .transpose_a = true}, without_unsplit_tile(wg.coop->name)),
            "gemm.coopmat2.bf16.128x128x64.a_km.b_kn.splitk5");
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096, .transpose_a = true, .transpose_b = true}, sg),
            "gemm.coopmat.bf16.128x256x32.a_km.b_nk");
  EXPECT_EQ(name_of({.m = 1024, .n = 3072, .k = 768}, sg), "gemm.coopmat.bf16.128x128x32.a_mk.b_kn");
  // The same conditions keep the portable kernels: unaligned reads, deterministic mode, few rows,
  // and a bfloat16 tile offered to a float16 Gemm.
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4092}, wg), "gemm.tile128.bf16");
  Config c = wg;
  c.mode = KernelMode::deterministic;
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, c), "gemm.tile64.bf16");
  EXPECT_EQ(name_of({.m = 4, .n = 3072, .k = 768}, wg), "gemm.rows.kn64.bf16.vec8.splitk3");
  c = wg;
  c.type = DataType::float16;
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, c), "gemm.tile128.f16");
}

TEST(GemmPlan, MatrixHardwareCandidatesFromCapabilities) {
  const CoopTile* wg = coop_tile(kDefaultWorkgroupScopeTile);
  const CoopTile* sg = coop_tile(kDefaultSubgroupScopeTile);
  using List = std::vector<const CoopTile*>;
  ComputeCapabilities caps;
  EXPECT_TRUE(coop_candidates(caps, DataType::float16).empty());  // no shapes listed
  caps.cooperative_matrix_shapes.push_back({16, 16, 16, DataType::float16, DataType::float16, DataType::float32,
                                            DataType::float32, false});
  EXPECT_EQ(coop_candidates(caps, DataType::float16), List{sg});
  // Workgroup scope needs the feature, a large enough workgroup and a shape that divides the tile.
  caps.features |= ShaderFeature::cooperative_matrix2;
  caps.cooperative_matrix_workgroup_max_invocations = 256;
  caps.cooperative_matrix_workgroup_shapes.push_back({16, 16, 16, DataType::float16, DataType::float16,
                                                      DataType::float32, DataType::float32, false, 128});
  EXPECT_EQ(coop_candidates(caps, DataType::float16), List{sg});  // 128 invocations only
  caps.cooperative_matrix_workgroup_shapes.push_back({16, 16, 16, DataType::float16, DataType::float16,
                                                      DataType::float32, DataType::float32, false, 256});
  EXPECT_EQ(coop_candidates(caps, DataType::float16), (List{wg, sg}));
  EXPECT_EQ(coop_candidates(caps, DataType::float16, coop_tile("5")), List{coop_tile("5")});  // forced
  caps.cooperative_matrix_workgroup_shapes.back().k_granularity = 48;  // divides no tile's k
  EXPECT_EQ(coop_candidates(caps, DataType::float16), List{sg});
  EXPECT_TRUE(coop_candidates(caps, DataType::float16, coop_tile("5")).empty());
  caps.cooperative_matrix_shapes.clear();
  EXPECT_TRUE(coop_candidates(caps, DataType::float16).empty());
}

TEST(GemmPlan, BfloatSixteenCandidatesNeedItsShapesAndFeature) {
  const CoopTile* wg = coop_tile("gemm.coopmat2.bf16.128x256x32");
  const CoopTile* sg = coop_tile("gemm.coopmat.bf16.128x256x32");
  using List = std::vector<const CoopTile*>;
  constexpr DataType bf = DataType::bfloat16, f16 = DataType::float16, f32 = DataType::float32;
  ComputeCapabilities caps;
  caps.features |= ShaderFeature::cooperative_matrix2;
  caps.cooperative_matrix_workgroup_max_invocations = 256;
  // float16 shapes only: no bfloat16 tile.
  caps.cooperative_matrix_shapes.push_back({16, 16, 16, f16, f16, f32, f32, false});
  caps.cooperative_matrix_workgroup_shapes.push_back({16, 16, 16, f16, f16, f32, f32, false, 256});
  EXPECT_TRUE(coop_candidates(caps, bf).empty());
  // bfloat16 shapes, but not the feature.
  caps.cooperative_matrix_shapes.push_back({16, 16, 16, bf, bf, f32, f32, false});
  EXPECT_TRUE(coop_candidates(caps, bf).empty());
  caps.features |= ShaderFeature::bfloat16;
  EXPECT_EQ(coop_candidates(caps, bf), List{sg});  // the subgroup-scope shape only
  caps.cooperative_matrix_workgroup_shapes.push_back({16, 16, 16, bf, bf, f32, f32, false, 256});
  EXPECT_EQ(coop_candidates(caps, bf), (List{wg, sg}));
  // A bfloat16 x bfloat16 -> bfloat16 shape is not the float32 accumulation the kernels use.
  caps.cooperative_matrix_shapes = {{16, 16, 16, bf, bf, bf, bf, false}};
  EXPECT_EQ(coop_candidates(caps, bf), List{wg});
  // Forced by a float16 tile's name or number: its bfloat16 counterpart.
  EXPECT_EQ(coop_candidates(caps, bf, coop_tile("5")), List{coop_tile("gemm.coopmat2.bf16.128x128x64")});
  EXPECT_EQ(coop_candidates(caps, bf, coop_tile("gemm.coopmat2.bf16.128x256x64")),
            List{coop_tile("gemm.coopmat2.bf16.128x256x64")});
  EXPECT_EQ(coop_candidates(caps, f16, coop_tile("13")), List{coop_tile("gemm.coopmat2.f16.128x128x64")});
  EXPECT_TRUE(coop_candidates(caps, bf, coop_tile("0")).empty());  // no bfloat16 16x16x16 -> float32
  EXPECT_TRUE(coop_candidates(caps, f32).empty());
}

TEST(GemmPush, FromTheShapeThePlanTheBindingsAndTheEpilogue) {
  GemmProblem prob{.m = 37, .n = 45, .k = 29, .transpose_b = true, .batch = 3, .alpha = 0.75f, .beta = -1.5f};
  prob.offset_a = 70;
  prob.offset_c = 11;
  const Shape s = resolve(prob);
  const Plan p = plan(s, kF32);
  Bindings bound;
  bound.a.base_elements = 64;
  const GemmPush push =
      push_constants(s, p, bound, {.bias = true, .bias_offset = 5, .activation = {UnaryOp::clip, {-2.0f, 3.0f}}});
  EXPECT_EQ(push.m, 37u);
  EXPECT_EQ(push.n, 45u);
  EXPECT_EQ(push.k, 29u);
  EXPECT_EQ(push.batch, 3u);
  EXPECT_EQ(push.ldb, 29u);
  EXPECT_EQ(push.offset_a, 6u);  // from the binding's start
  EXPECT_EQ(push.offset_c, 11u);
  EXPECT_EQ(push.stride_a, 37u * 29);
  EXPECT_EQ(push.offset_bias, 5u);
  EXPECT_EQ(push.alpha, 0.75f);
  EXPECT_EQ(push.beta, -1.5f);
  EXPECT_EQ(push.act_alpha, -2.0f);
  EXPECT_EQ(push.act_beta, 3.0f);
  EXPECT_EQ(push.flags, OG_GEMM_TRANS_B | OG_GEMM_READ_C | OG_GEMM_BIAS | (uint32_t(UnaryOp::clip) << OG_GEMM_ACT_SHIFT));
  const GemmPush single = push_constants(resolve({.m = 8, .n = 8, .k = 8}), p, {}, {});
  EXPECT_EQ(single.stride_a, 0u);  // one product: no strides
  EXPECT_EQ(single.flags, 0u);     // beta 0: C is not read
  EXPECT_EQ(single.splits, p.splits);
}

// ---- Float32 products on float16 hardware ----

TEST(GemmSplitPlan, ChosenOnlyForFloat32InFastModeWhenAsked) {
  using enum Float32Products;
  EXPECT_TRUE(float32_split(DataType::float32, KernelMode::fast, split_float16, false));
  EXPECT_TRUE(float32_split(DataType::float32, KernelMode::fast, split_float16, true));
  EXPECT_FALSE(float32_split(DataType::float32, KernelMode::deterministic, split_float16, true));
  EXPECT_FALSE(float32_split(DataType::float16, KernelMode::fast, split_float16, true));
  EXPECT_FALSE(float32_split(DataType::float32, KernelMode::fast, exact, true));
  EXPECT_EQ(float32_split(DataType::float32, KernelMode::fast, automatic, true), kFloat32SplitByDefault);
  EXPECT_FALSE(float32_split(DataType::float32, KernelMode::fast, automatic, false));
}

TEST(GemmSplitPlan, PartsProductScratchAndName) {
  // Odd sizes pad k and n to 8; the float16 product is M x n_pad x 3 k_pad, dense.
  GemmProblem p{.m = 64, .n = 90, .k = 3001, .transpose_a = true, .batch = 3};
  p.stride_b = 0;  // one B for the batch: split once
  const Shape s = resolve(p);
  SplitPlan sp = split_plan(s, p, kF16);
  EXPECT_EQ(sp.k_pad, 3008u);
  EXPECT_EQ(sp.n_pad, 96u);
  EXPECT_EQ(sp.batch_a, 3u);
  EXPECT_EQ(sp.batch_b, 1u);
  // A_hi B_hi in ranges of 1024 terms (each its own plane of D), then the corrections over 2 k_pad.
  EXPECT_EQ(sp.k_range, 1024u);
  ASSERT_EQ(sp.products.size(), 4u);
  const uint64_t offsets[] = {0, 1024, 2048, 3008}, terms[] = {1024, 1024, 960, 2 * 3008};
  for (size_t i = 0; i < 4; ++i) {
    const Shape& q = sp.products[i].shape;
    EXPECT_EQ(q.k, terms[i]) << i;
    EXPECT_EQ(q.offset_a, offsets[i]) << i;
    EXPECT_EQ(q.offset_b, offsets[i] * 96) << i;
    EXPECT_EQ(q.offset_c, i * 3 * 64 * 96) << i;
    EXPECT_EQ(q.n, 96u);
    EXPECT_FALSE(q.trans_a || q.trans_b);
    EXPECT_EQ(q.lda, 3u * 3008);
    EXPECT_EQ(q.ldb, 96u);
    EXPECT_EQ(q.stride_a, 64u * 3 * 3008);
    EXPECT_EQ(q.stride_b, 0u);
    EXPECT_EQ(q.stride_c, 64u * 96);
  }
  EXPECT_EQ(sp.a_words, 3u * 64 * 3 * 3008 / 2);
  EXPECT_EQ(sp.b_words, 3u * 3008 * 96 / 2);
  EXPECT_EQ(sp.d_plane, 3u * 64 * 96);
  EXPECT_EQ(sp.d_words, 4u * 3 * 64 * 96);
  EXPECT_EQ(sp.exp_b, 3u * 64);
  EXPECT_EQ(sp.exp_words, 3u * 64 + 90);
  EXPECT_EQ(split_variant_name(sp), "gemm.f32split." + name_of({.m = 64, .n = 96, .k = 1024, .batch = 3}, kF16).substr(5));
  EXPECT_TRUE(split_variant_name(sp).starts_with("gemm.f32split.tile64.f16.splitk"));
  // Longer ranges past 8192 terms: at most 8.
  GemmProblem long_k{.m = 8, .n = 8, .k = 20000};
  sp = split_plan(resolve(long_k), long_k, kF16);
  EXPECT_EQ(sp.k_range, 2504u);
  EXPECT_EQ(sp.products.size(), 9u);
  // On the matrix kernels: the float16 tile's variant and its split of k.
  const Config coop = on_tile("gemm.coopmat2.f16.128x256x32");
  GemmProblem q{.m = 1024, .n = 3072, .k = 768};
  sp = split_plan(resolve(q), q, coop);
  EXPECT_EQ(sp.products.front().plan.kernel, Kernel::coop);
  EXPECT_EQ(sp.products.size(), 2u);  // 768 terms: one range, then the corrections
  EXPECT_EQ(split_variant_name(sp), "gemm.f32split." + name_of({.m = 1024, .n = 3072, .k = 768}, coop).substr(5));
  EXPECT_TRUE(split_variant_name(sp).starts_with("gemm.f32split.coopmat2.f16.")) << split_variant_name(sp);
  // plan_n: the whole product's columns, rounded up to 8 as the parts are.
  q.plan_n = 3075;
  EXPECT_EQ(variant_name(split_plan(resolve(q), q, coop).products.back().plan),
            name_of({.m = 1024, .n = 3080, .k = 1536}, coop));
  q.plan_n = 3000;
  EXPECT_THROW(split_plan(resolve(q), q, coop), KernelShapeError);
}

// The float32 split's float16 products take the 64 x 128 x 64 tile, unsplit, where the 128 x 128 x 64
// companion's grid has fewer than kSplitUnsplitGrid (256) workgroups, about two waves of the H200's
// 132 SMs: 1024 x 3072 x 768 has 192 tiles of 128 x 128 (1.45 waves), 384 of 64 x 128.
TEST(GemmSplitPlan, ProductsTakeTheUnsplitTileBelowTwoWaves) {
  const Config coop = on_tile(kDefaultWorkgroupScopeTile);
  const Config products = split_products_config(coop);
  EXPECT_EQ(products.unsplit_grid, kSplitUnsplitGrid);
  EXPECT_EQ(products.coop, coop.coop);
  auto names = [](const SplitPlan& sp) {
    std::vector<std::string> out;
    for (const SplitProduct& x : sp.products) out.push_back(variant_name(x.plan));
    return out;
  };
  using Names = std::vector<std::string>;
  GemmProblem q{.m = 1024, .n = 3072, .k = 768};
  // A_hi B_hi over 768 terms, then the corrections over 1536, both on 64 x 128 in one pass.
  SplitPlan sp = split_plan(resolve(q), q, products);
  EXPECT_EQ(names(sp), (Names{"gemm.coopmat2.f16.64x128x64.a_mk.b_kn", "gemm.coopmat2.f16.64x128x64.a_mk.b_kn"}));
  EXPECT_EQ(split_variant_name(sp), "gemm.f32split.coopmat2.f16.64x128x64.a_mk.b_kn");
  EXPECT_EQ(sp.products.back().plan.grid.y, 16u);
  EXPECT_EQ(sp.products.back().plan.k_chunk, 1536u);
  // The float16 rule alone keeps 128 x 128 x 64 there (192 tiles: no small grid for float16).
  EXPECT_EQ(names(split_plan(resolve(q), q, coop)),
            (Names{"gemm.coopmat2.f16.128x128x64.a_mk.b_kn", "gemm.coopmat2.f16.128x128x64.a_mk.b_kn"}));
  // 256 tiles of 128 x 128 and more keep it; the large tile keeps large grids.
  GemmProblem r{.m = 2048, .n = 2048, .k = 768};  // 128 tiles of 128 x 256, 256 of 128 x 128
  EXPECT_EQ(variant_name(split_plan(resolve(r), r, products).products.front().plan),
            "gemm.coopmat2.f16.128x256x32.a_mk.b_kn");
  r = {.m = 1920, .n = 2048, .k = 768};  // 120 tiles of 128 x 256, 240 of 128 x 128
  EXPECT_EQ(variant_name(split_plan(resolve(r), r, products).products.front().plan),
            "gemm.coopmat2.f16.64x128x64.a_mk.b_kn");
  r = {.m = 4096, .n = 4096, .k = 4096};
  EXPECT_EQ(split_variant_name(split_plan(resolve(r), r, products)), "gemm.f32split.coopmat2.f16.128x256x32.a_mk.b_kn");
  // Forced for measurement (ONEGPU_GEMM_F32SPLIT_TILE): 64x128 wherever 128 x 128 x 64 would serve,
  // 128x128 never; other values are the policy.
  EXPECT_EQ(split_products_tile("64x128"), SplitProductsTile::tile64x128);
  EXPECT_EQ(split_products_tile("128x128"), SplitProductsTile::tile128x128);
  EXPECT_EQ(split_products_tile(""), SplitProductsTile::automatic);
  EXPECT_EQ(split_products_tile("gemm.coopmat2.f16.64x128x64"), SplitProductsTile::automatic);
  const Config narrow = split_products_config(coop, SplitProductsTile::tile64x128);
  const Config square = split_products_config(coop, SplitProductsTile::tile128x128);
  r = {.m = 2048, .n = 3072, .k = 768};  // 192 tiles of 128 x 256: the large tile, whatever is forced
  EXPECT_EQ(split_variant_name(split_plan(resolve(r), r, narrow)), "gemm.f32split.coopmat2.f16.128x256x32.a_mk.b_kn");
  r = {.m = 2048, .n = 1024, .k = 768};  // 64 tiles of 128 x 256, 128 of 128 x 128
  EXPECT_EQ(split_variant_name(split_plan(resolve(r), r, narrow)), "gemm.f32split.coopmat2.f16.64x128x64.a_mk.b_kn");
  EXPECT_EQ(split_variant_name(split_plan(resolve(q), q, square)), "gemm.f32split.coopmat2.f16.128x128x64.a_mk.b_kn");
  // With few tiles, 128x128 splits k as the 128 x 128 x 64 tile does without the 64 x 128 one.
  GemmProblem small{.m = 256, .n = 768, .k = 3072};  // 12 tiles of 128 x 128
  EXPECT_EQ(names(split_plan(resolve(small), small, square)),
            (Names{"gemm.coopmat2.f16.128x128x64.a_mk.b_kn.splitk2", "gemm.coopmat2.f16.128x128x64.a_mk.b_kn.splitk2",
                   "gemm.coopmat2.f16.128x128x64.a_mk.b_kn.splitk2", "gemm.coopmat2.f16.128x128x64.a_mk.b_kn.splitk12"}));
  EXPECT_EQ(split_variant_name(split_plan(resolve(small), small, products)),
            "gemm.f32split.coopmat2.f16.64x128x64.a_mk.b_kn");
  // A device without the 64 x 128 x 64 tile keeps 128 x 128 x 64, whatever is asked.
  for (SplitProductsTile tile : {SplitProductsTile::automatic, SplitProductsTile::tile64x128}) {
    const Config none = split_products_config(without_unsplit_tile(kDefaultWorkgroupScopeTile), tile);
    EXPECT_EQ(none.unsplit_grid, 0u);
    EXPECT_EQ(split_variant_name(split_plan(resolve(q), q, none)), "gemm.f32split.coopmat2.f16.128x128x64.a_mk.b_kn");
  }
}

TEST(GemmSplitPlan, ScratchBeyondOneBindingIsUnsupported) {
  ComputeCapabilities caps;
  caps.max_workgroup_count = {65535, 65535, 65535};
  caps.max_storage_buffer_range = 128ull << 20;
  GemmProblem p{.m = 2048, .n = 2048, .k = 4096};
  EXPECT_NO_THROW(check_split(split_plan(resolve(p), p, kF16), caps));  // 48 MiB of A parts, 80 MiB of D
  p.k = 12000;  // 141 MiB of A parts
  try {
    check_split(split_plan(resolve(p), p, kF16), caps);
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "max_storage_buffer_range");
  }
}

TEST(GemmSplitPlan, ManyRowsFoldTheExponentGrid) {
  // 300,000 rows of A in groups of 4: 75,000 groups in two rows of 65535 per batch entry.
  ComputeCapabilities caps;
  caps.max_workgroup_count = {65535, 65535, 65535};
  caps.max_storage_buffer_range = 4ull << 30;
  GemmProblem p{.m = 300000, .n = 8, .k = 16, .batch = 2};
  const Shape s = resolve(p);
  const SplitPlan sp = split_plan(s, p, kF16);
  EXPECT_NO_THROW(check_split(sp, caps));
  const SplitPasses x = split_passes(s, sp, Bindings{});
  EXPECT_EQ(x.exponents_a_grid.x, 65535u);
  EXPECT_EQ(x.exponents_a.group_rows, 2u);
  EXPECT_EQ(x.exponents_a_grid.z, 4u);
  EXPECT_EQ(x.exponents_a_grid.y, 1u);
}

TEST(GemmSplitPlan, PassesReadTheOperandsThroughTheirStrides) {
  GemmProblem p{.m = 5, .n = 7, .k = 9, .transpose_b = true, .batch = 2, .alpha = 2.0f, .beta = 0.5f};
  p.lda = 11, p.ldb = 13, p.ldc = 8;
  p.offset_a = 20, p.offset_b = 40;
  const Shape s = resolve(p);
  const SplitPlan sp = split_plan(s, p, kF16);
  Bindings bound{};
  bound.a.base_elements = 16, bound.b.base_elements = 32;
  const SplitPasses x = split_passes(s, sp, bound);
  EXPECT_EQ(x.exponents_a.line_step, 11u);
  EXPECT_EQ(x.exponents_a.k_step, 1u);
  EXPECT_EQ(x.exponents_a.offset, 4u);
  EXPECT_EQ(x.exponents_a.stride, s.stride_a);
  EXPECT_EQ(x.exponents_b.line_step, 13u);  // B stored N x K: column j of op(B) is row j
  EXPECT_EQ(x.exponents_b.k_step, 1u);
  EXPECT_EQ(x.exponents_b.offset, 8u);
  EXPECT_EQ(x.exponents_b.exp_offset, 10u);
  EXPECT_EQ(x.exponents_a_grid.x, 2u);  // 4 lines per workgroup where k is adjacent
  EXPECT_EQ(x.exponents_a_grid.z, 2u);
  EXPECT_EQ(x.exponents_a.group_rows, 1u);
  EXPECT_EQ(x.split_a.items, 2u * 5 * 16 / 2);
  EXPECT_EQ(x.split_b.items, 2u * 16 * 8 / 2);
  EXPECT_EQ(x.clear.items, 2u * 5 + 2 * 7);
  const GemmSplitEpiloguePush e = split_epilogue(s, sp, bound, {.bias = true, .bias_offset = 3});
  EXPECT_EQ(e.n_pad, 8u);
  EXPECT_EQ(e.exp_stride_a, 5u);
  EXPECT_EQ(e.exp_b, 10u);
  EXPECT_EQ(e.exp_stride_b, 7u);
  EXPECT_EQ(e.flags, OG_GEMM_READ_C | OG_GEMM_BIAS);
  EXPECT_EQ(e.alpha, 2.0f);
}

}  // namespace
}  // namespace onegpu::kernels::gemm
