// GEMM decisions without a GPU: defaults, checks, kernel choice, split k, bound ranges.
#include <gtest/gtest.h>

#include "kernels/gemm/gemm_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::gemm {
namespace {

TEST(GemmResolve, DefaultsFollowTheStoredShapes) {
  Shape s = resolve({.m = 4, .n = 3, .k = 2});
  EXPECT_EQ(s.lda, 2u);
  EXPECT_EQ(s.ldb, 3u);
  EXPECT_EQ(s.ldc, 3u);
  EXPECT_EQ(s.stride_a, 8u);
  EXPECT_EQ(s.stride_b, 6u);
  EXPECT_EQ(s.stride_c, 12u);
  s = resolve({.m = 4, .n = 3, .k = 2, .transpose_a = true, .transpose_b = true});
  EXPECT_EQ(s.lda, 4u);  // A stored K x M
  EXPECT_EQ(s.ldb, 2u);  // B stored N x K
}

TEST(GemmResolve, MessagesNameTheArgument) {
  GemmProblem p{.m = 8, .n = 8, .k = 16};
  p.lda = 12;
  try {
    resolve(p);
    FAIL();
  } catch (const KernelShapeError& e) {
    EXPECT_STREQ(e.what(), "Gemm: lda: 12 is less than K = 16");
  }
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

TEST(GemmBoundRange, AlignedDownWholeWordsInsideTheBuffer) {
  BoundRange r = bound_range({37, 101}, 2, 64, 1000);
  EXPECT_EQ(r.offset_bytes, 64u);
  EXPECT_EQ(r.size_bytes, 204u - 64u);
  EXPECT_EQ(r.base_elements, 32u);
  r = bound_range({0, 3}, 2, 16, 8);  // ends in the padding word
  EXPECT_EQ(r.size_bytes, 8u);
}

TEST(GemmPlan, FewRowsSplitKAndTile) {
  Plan p = plan(resolve({.m = 1, .n = 51865, .k = 768, .transpose_b = true}), GemmElementType::float32, KernelMode::fast);
  EXPECT_EQ(variant_name(p), "rows-nk-vec4");
  EXPECT_EQ(p.grid.x, (51865u + 7) / 8);
  EXPECT_EQ(variant_name(plan(resolve({.m = 1, .n = 51865, .k = 768}), GemmElementType::float32, KernelMode::fast)),
            "rows-kn-32");
  EXPECT_EQ(variant_name(plan(resolve({.m = 4, .n = 3072, .k = 768}), GemmElementType::float32, KernelMode::fast)),
            "rows-kn-16");
  EXPECT_EQ(variant_name(plan(resolve({.m = 4, .n = 3072, .k = 770, .transpose_b = true}), GemmElementType::float32,
                              KernelMode::deterministic)),
            "rows-nk");
  // 16-bit operands: the same kernels, B read one element at a time.
  EXPECT_EQ(variant_name(plan(resolve({.m = 1, .n = 51865, .k = 768}), GemmElementType::float16, KernelMode::fast)),
            "rows-kn-32");
  EXPECT_EQ(variant_name(plan(resolve({.m = 1, .n = 51865, .k = 768, .transpose_b = true}), GemmElementType::bfloat16,
                              KernelMode::fast)),
            "rows-nk");
  // 128 x 768 x 768: 24 tiles, so k = 768 is cut into 16 ranges of 48 -> 64 terms: 12 ranges.
  p = plan(resolve({.m = 128, .n = 768, .k = 768}), GemmElementType::float32, KernelMode::fast);
  EXPECT_EQ(p.splits, 12u);
  EXPECT_EQ(p.k_chunk, 64u);
  EXPECT_EQ(p.grid.z, 12u);
  EXPECT_EQ(p.reduce_elements, 128u * 768);
  // The same in both modes: the order is part of the shape.
  EXPECT_EQ(plan(resolve({.m = 128, .n = 768, .k = 768}), GemmElementType::float32, KernelMode::deterministic).splits, 12u);
  // Planes that would not fit the scratch cut fewer ranges.
  // 256 tiles aim at 2 ranges; 1024 x 1024 planes: 4 fit the 16 MiB scratch.
  p = plan(resolve({.m = 1024, .n = 1024, .k = 4096}), GemmElementType::float16, KernelMode::deterministic);
  EXPECT_EQ(p.splits, 2u);
  // 1024 tiles keep the GPU busy without a split.
  p = plan(resolve({.m = 2048, .n = 2048, .k = 4096}), GemmElementType::float16, KernelMode::deterministic);
  EXPECT_EQ(p.splits, 1u);
  p = plan(resolve({.m = 512, .n = 512, .k = 4096}), GemmElementType::float16, KernelMode::deterministic);
  EXPECT_EQ(p.splits, 6u);
  // Fast mode takes the 128 x 128 tile for every input type (16 of its tiles: 16 ranges of 256).
  p = plan(resolve({.m = 512, .n = 512, .k = 4096}), GemmElementType::float16, KernelMode::fast);
  EXPECT_EQ(variant_name(p), "tiled-f16-128x128x16-splitk16");
  p = plan(resolve({.m = 4096, .n = 4096, .k = 4096}), GemmElementType::bfloat16, KernelMode::fast);
  EXPECT_EQ(variant_name(p), "tiled-bf16-128x128x16");
  // The matrix-hardware kernel, where the Gemm found one, for float16 with eight-element reads.
  // Every subgroup-scope tile fits the 48 KiB of workgroup memory Vulkan drivers commonly offer.
  for (uint32_t i = 0; i < kFirstWorkgroupScopeTile; ++i) EXPECT_LE(coop_workgroup_bytes(kCoopTiles[i]), 48u * 1024) << i;
  EXPECT_EQ(coop_workgroup_bytes(kCoopTiles[0]), 30720u);  // 128 x 256 x 32: (640 + 1280) words of 16 bytes
  const uint32_t tile = 2;
  p = plan(resolve({.m = 4096, .n = 4000, .k = 4096}), GemmElementType::float16, KernelMode::fast, tile);
  EXPECT_EQ(variant_name(p), "coopmat-f16-256x128x32-8sg");
  EXPECT_EQ(p.coop_index, 2u);
  EXPECT_EQ(p.grid.x, 32u);  // 4000 / 128, rounded up
  EXPECT_EQ(p.grid.y, 16u);
  // Fewer than kSmallGrid tiles: the small-grid companion (128 x 128 on four subgroups).
  p = plan(resolve({.m = 1024, .n = 3072, .k = 768}), GemmElementType::float16, KernelMode::fast, 0u);
  EXPECT_EQ(variant_name(p), "coopmat-f16-128x128x32-4sg");  // 8 x 12 = 96 tiles of 128 x 256
  EXPECT_EQ(p.coop_index, kCoopTiles[0].small_grid);
  EXPECT_EQ(p.grid.x, 24u);
  EXPECT_EQ(p.grid.y, 8u);
  p = plan(resolve({.m = 2048, .n = 2048, .k = 768}), GemmElementType::float16, KernelMode::fast, 0u);
  EXPECT_EQ(variant_name(p), "coopmat-f16-128x256x32-8sg");  // 16 x 8 = 128 tiles
  p = plan(resolve({.m = 1024, .n = 3072, .k = 768, .batch = 2}), GemmElementType::float16, KernelMode::fast, 0u);
  EXPECT_EQ(variant_name(p), "coopmat-f16-128x256x32-8sg");  // the batch counts: 192 tiles
  EXPECT_EQ(variant_name(plan(resolve({.m = 1024, .n = 3072, .k = 768}), GemmElementType::float16, KernelMode::fast, 3u)),
            "coopmat-f16-128x256x16-8sg-2buf");  // no companion
  EXPECT_EQ(variant_name(plan(resolve({.m = 4096, .n = 4096, .k = 4092}), GemmElementType::float16, KernelMode::fast, tile)),
            "tiled-f16-128x128x16");
  EXPECT_EQ(variant_name(plan(resolve({.m = 4096, .n = 4096, .k = 4096}), GemmElementType::float16,
                              KernelMode::deterministic, tile)),
            "tiled-64x64x16");
  // Up to four rows stream B on the few-rows kernels even where the matrix hardware is there.
  EXPECT_EQ(variant_name(plan(resolve({.m = 4, .n = 3072, .k = 768}), GemmElementType::float16, KernelMode::fast, tile)),
            "rows-kn-16");
  p = plan(resolve({.m = 4096, .n = 4096, .k = 4096}), GemmElementType::float32, KernelMode::deterministic);
  EXPECT_EQ(variant_name(p), "tiled-64x64x16");
  EXPECT_EQ(p.grid.x, 64u);
  EXPECT_EQ(p.grid.y, 64u);
}

TEST(GemmPlan, LargeFloat32TileInFastModeWhenOperandsAreVec4Aligned) {
  Plan p = plan(resolve({.m = 4096, .n = 4096, .k = 4096}), GemmElementType::float32, KernelMode::fast);
  EXPECT_EQ(variant_name(p), "tiled-f32-128x128x16");
  EXPECT_EQ(p.grid.x, 32u);
  // 48 tiles of 1024 x 768 aim at 256 workgroups: 6 ranges, cut to 5 by the scratch (5 planes of
  // 768 Ki floats fit 4 Mi), 640 terms each.
  p = plan(resolve({.m = 1024, .n = 768, .k = 3072}), GemmElementType::float32, KernelMode::fast);
  EXPECT_EQ(variant_name(p), "tiled-f32-128x128x16-splitk5");
  EXPECT_EQ(p.k_chunk, 640u);
  EXPECT_EQ(variant_name(plan(resolve({.m = 1024, .n = 768, .k = 3071}), GemmElementType::float32, KernelMode::fast)),
            "tiled-64x64x16-splitk2");  // K not a multiple of 4
  GemmProblem q{.m = 512, .n = 512, .k = 64, .transpose_a = true};
  q.lda = 514;  // rows of A^T not vec4-aligned
  EXPECT_EQ(variant_name(plan(resolve(q), GemmElementType::float32, KernelMode::fast)), "tiled-64x64x16");
  EXPECT_EQ(variant_name(plan(resolve({.m = 512, .n = 512, .k = 64}), GemmElementType::float16, KernelMode::fast)),
            "tiled-f16-128x128x16");
}

}  // namespace
TEST(GemmPlan, MatrixHardwareCandidatesFromCapabilities) {
  ComputeCapabilities caps;
  EXPECT_TRUE(coop_candidates(caps, true, true).empty());  // no shapes listed
  caps.cooperative_matrix_shapes.push_back({16, 16, 16, ScalarType::float16, ScalarType::float16, ScalarType::float32,
                                            ScalarType::float32, false});
  EXPECT_EQ(coop_candidates(caps, true, true), std::vector<uint32_t>{kDefaultSubgroupScopeTile});
  EXPECT_TRUE(coop_candidates(caps, false, true).empty());  // not built
  // Workgroup scope needs the feature, a large enough workgroup and a shape that divides the tile.
  caps.features |= ShaderFeature::cooperative_matrix2;
  caps.cooperative_matrix_workgroup_max_invocations = 256;
  caps.cooperative_matrix_workgroup_shapes.push_back({16, 16, 16, ScalarType::float16, ScalarType::float16,
                                                      ScalarType::float32, ScalarType::float32, false, 128});
  EXPECT_EQ(coop_candidates(caps, true, true), std::vector<uint32_t>{kDefaultSubgroupScopeTile});  // 128 invocations only
  caps.cooperative_matrix_workgroup_shapes.push_back({16, 16, 16, ScalarType::float16, ScalarType::float16,
                                                      ScalarType::float32, ScalarType::float32, false, 256});
  EXPECT_EQ(coop_candidates(caps, true, true),
            (std::vector<uint32_t>{kDefaultWorkgroupScopeTile, kDefaultSubgroupScopeTile}));
  EXPECT_EQ(coop_candidates(caps, false, true), std::vector<uint32_t>{kDefaultWorkgroupScopeTile});
  EXPECT_EQ(coop_candidates(caps, true, false), std::vector<uint32_t>{kDefaultSubgroupScopeTile});
  EXPECT_EQ(coop_candidates(caps, true, true, 5u), std::vector<uint32_t>{5u});  // forced
  EXPECT_TRUE(coop_candidates(caps, true, true, 99u).empty());
  caps.cooperative_matrix_workgroup_shapes.back().k_granularity = 48;  // divides no tile's k
  caps.cooperative_matrix_workgroup_shapes.front().workgroup_invocations = 64;
  EXPECT_EQ(coop_candidates(caps, true, true), std::vector<uint32_t>{kDefaultSubgroupScopeTile});
  // The default workgroup-scope tile: 128 x 256 x 32; with B stored N x K, 128 x 256 x 64; both
  // hand grids of fewer than 128 workgroups to 128 x 128 x 64.
  Plan p = plan(resolve({.m = 4096, .n = 4096, .k = 4096}), GemmElementType::float16, KernelMode::fast,
                kDefaultWorkgroupScopeTile);
  EXPECT_EQ(variant_name(p), "coopmat2-f16-128x256x32");
  EXPECT_EQ(p.grid.x, 16u);
  EXPECT_EQ(p.grid.y, 32u);
  EXPECT_EQ(variant_name(plan(resolve({.m = 4096, .n = 4096, .k = 4096, .transpose_b = true}), GemmElementType::float16,
                              KernelMode::fast, kDefaultWorkgroupScopeTile)),
            "coopmat2-f16-128x256x64");
  for (bool tb : {false, true})
    EXPECT_EQ(variant_name(plan(resolve({.m = 512, .n = 512, .k = 512, .transpose_b = tb}), GemmElementType::float16,
                                KernelMode::fast, kDefaultWorkgroupScopeTile)),
              "coopmat2-f16-128x128x64");
}

}  // namespace onegpu::kernels::gemm
