// 8-bit product decisions without a GPU: defaults, shape and type checks, kernel choice, grids and
// bound ranges.
#include <gtest/gtest.h>

#include "kernels/integer_gemm/integer_gemm_plan.h"
#include "support/shape_error.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::integer_gemm {
namespace {

using onegpu::testing::shape_error_message;

std::string name_of(const IntegerGemmProblem& p, const Config& c) {
  return std::string(plan(resolve(p, kMatMulInteger), c).variant.name());
}

TEST(IntegerGemmResolve, DefaultsFollowTheStoredShapes) {
  Shape s = resolve({.m = 4, .n = 3, .k = 2}, kMatMulInteger);
  EXPECT_EQ(s.lda, 2u);
  EXPECT_EQ(s.ldb, 3u);
  EXPECT_EQ(s.ldc, 3u);
  EXPECT_EQ(s.stride_a, 8u);
  EXPECT_EQ(s.stride_b, 6u);
  EXPECT_EQ(s.stride_c, 12u);
  EXPECT_FALSE(s.a_signed);
  EXPECT_TRUE(s.b_signed);
  s = resolve({.m = 4, .n = 3, .k = 2, .a_type = DataType::int8, .b_type = DataType::uint8, .transpose_a = true,
               .transpose_b = true},
              kQLinearMatMul);
  EXPECT_EQ(s.lda, 4u);
  EXPECT_EQ(s.ldb, 2u);
  EXPECT_TRUE(s.a_signed);
  EXPECT_FALSE(s.b_signed);
}

TEST(IntegerGemmResolve, MessagesNameTheOperationAndArgument) {
  IntegerGemmProblem p{.m = 8, .n = 8, .k = 16};
  p.lda = 12;
  EXPECT_EQ(shape_error_message([&] { resolve(p, kMatMulInteger); }), "MatMulInteger: lda: 12 is less than K = 16");
  EXPECT_EQ(shape_error_message([&] { resolve(p, kQLinearMatMul); }), "QLinearMatMul: lda: 12 is less than K = 16");
  p = {.m = 8, .n = 8, .k = 16, .batch = 2};
  p.stride_c = 63;
  EXPECT_NE(shape_error_message([&] { resolve(p, kMatMulInteger); }).find("stride_c"), std::string::npos);
  p.stride_c = 64;
  EXPECT_NO_THROW(resolve(p, kMatMulInteger));
  p = {.m = 1ull << 31, .n = 1, .k = 1};
  EXPECT_NE(shape_error_message([&] { resolve(p, kMatMulInteger); }).find(": m:"), std::string::npos);
  p = {.m = 2, .n = 2, .k = 2};
  p.offset_b = 1ull << 40;
  EXPECT_NE(shape_error_message([&] { resolve(p, kMatMulInteger); }).find("offset_b"), std::string::npos);
  // Batch times stride past 2^40: caught in 64-bit arithmetic, not wrapped.
  p = {.m = 2, .n = 2, .k = 2, .batch = (1ull << 31) - 1};
  p.stride_a = (1ull << 40) - 1;
  EXPECT_NE(shape_error_message([&] { resolve(p, kMatMulInteger); }).find("stride_a"), std::string::npos);
}

TEST(IntegerGemmResolve, OnlyEightBitTypes) {
  EXPECT_THROW(resolve({.m = 2, .n = 2, .k = 2, .a_type = DataType::float32}, kMatMulInteger), UnsupportedError);
  EXPECT_THROW(resolve({.m = 2, .n = 2, .k = 2, .b_type = DataType::int32}, kMatMulInteger), UnsupportedError);
  for (DataType a : {DataType::uint8, DataType::int8})
    for (DataType b : {DataType::uint8, DataType::int8})
      EXPECT_NO_THROW(resolve({.m = 2, .n = 2, .k = 2, .a_type = a, .b_type = b}, kMatMulInteger));
}

TEST(IntegerGemmExtent, CoversTheLastElementOfTheLastMatrix) {
  IntegerGemmProblem p{.m = 3, .n = 5, .k = 7, .batch = 2};
  p.lda = 10;
  p.offset_a = 3;
  p.stride_a = 101;
  const Shape s = resolve(p, kMatMulInteger);
  EXPECT_EQ(extent_a(s).first, 3u);
  EXPECT_EQ(extent_a(s).end, 3u + 101u + 2u * 10u + 7u);
  EXPECT_EQ(extent_c(s).end, 15u + 15u);
  IntegerGemmProblem empty{.m = 0, .n = 5, .k = 7};
  EXPECT_EQ(extent_a(resolve(empty, kMatMulInteger)).end, 0u);
}

TEST(IntegerGemmPlan, ChoosesTheKernelFromShapeAndConfig) {
  const Config portable{}, dot{.packed_dot = true, .rows = rows_kernel(kDefaultRowsKernel)};
  EXPECT_EQ(name_of({.m = 1, .n = 768, .k = 768}, dot), "integer_gemm.skinny.16x32");
  EXPECT_EQ(name_of({.m = 16, .n = 768, .k = 768}, portable), "integer_gemm.skinny.16x32");
  EXPECT_EQ(name_of({.m = 17, .n = 768, .k = 768}, dot), "integer_gemm.rows.16x64");  // 16 < M <= 64
  EXPECT_EQ(name_of({.m = 64, .n = 4096, .k = 4096}, dot), "integer_gemm.rows.16x64");
  EXPECT_EQ(name_of({.m = 17, .n = 768, .k = 768}, portable), "integer_gemm.portable.32x32x16");
  EXPECT_EQ(name_of({.m = 65, .n = 768, .k = 768}, dot), "integer_gemm.dot4.32x32x32");  // 24 tiles of 64
  EXPECT_EQ(name_of({.m = 128, .n = 768, .k = 768}, dot), "integer_gemm.dot4.32x32x32");  // 24 tiles of 64
  EXPECT_EQ(name_of({.m = 128, .n = 1024, .k = 768}, dot), "integer_gemm.dot4.64x64x32");  // 32 tiles
  EXPECT_EQ(name_of({.m = 128, .n = 768, .k = 768}, portable), "integer_gemm.portable.32x32x16");
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, portable), "integer_gemm.portable.64x64x16");
  EXPECT_EQ(name_of({.m = 64, .n = 64, .k = 64, .batch = 40}, portable), "integer_gemm.portable.64x64x16");
  const Config no_small{.packed_dot = true, .small_tiles = false, .skinny = false};
  EXPECT_EQ(name_of({.m = 1, .n = 768, .k = 768}, no_small), "integer_gemm.dot4.64x64x32");
}

TEST(IntegerGemmPlan, CooperativeMatricesWhereTheDeviceListsTheShape) {
  const Config coop{.packed_dot = true, .rows = rows_kernel("1"), .coopmat = true};
  EXPECT_EQ(name_of({.m = 17, .n = 768, .k = 768}, coop), "integer_gemm.rows.32x32");
  EXPECT_EQ(name_of({.m = 65, .n = 768, .k = 768}, coop), "integer_gemm.coopmat.64x64x32");
  EXPECT_EQ(name_of({.m = 4096, .n = 4096, .k = 4096}, coop), "integer_gemm.coopmat.64x64x32");
  EXPECT_EQ(name_of({.m = 1, .n = 768, .k = 768}, coop), "integer_gemm.skinny.16x32");
  const Plan r = plan(resolve({.m = 40, .n = 130, .k = 9, .batch = 3}, kMatMulInteger), coop);
  EXPECT_EQ(r.variant.name(), "integer_gemm.rows.32x32");
  EXPECT_EQ(r.grid.x, 5u);
  EXPECT_EQ(r.grid.y, 2u);
  EXPECT_EQ(r.grid.z, 3u);
  const Plan r16 = plan(resolve({.m = 40, .n = 130, .k = 9, .batch = 3}, kMatMulInteger),
                        {.packed_dot = true, .rows = rows_kernel("integer_gemm.rows.16x64")});
  EXPECT_EQ(r16.grid.x, 3u);  // k = 9: one slice
  EXPECT_EQ(r16.grid.y, 3u);
  EXPECT_EQ(rows_kernel("2")->name, "integer_gemm.rows.16x32");
  EXPECT_EQ(rows_kernel("4"), nullptr);
  const Plan p = plan(resolve({.m = 100, .n = 130, .k = 9, .batch = 3}, kMatMulInteger), coop);
  EXPECT_EQ(p.grid.x, 3u);
  EXPECT_EQ(p.grid.y, 2u);
  EXPECT_EQ(p.grid.z, 3u);
  ComputeCapabilities caps;
  EXPECT_FALSE(device_has_coopmat_shape(caps));
  caps.cooperative_matrix_shapes.push_back({.m = 16, .n = 16, .k = 16});  // float16 only
  EXPECT_FALSE(device_has_coopmat_shape(caps));
  caps.cooperative_matrix_shapes.push_back({.m = 16, .n = 16, .k = 32, .a = DataType::int8, .b = DataType::int8,
                                            .c = DataType::int32, .result = DataType::int32});
  EXPECT_TRUE(device_has_coopmat_shape(caps));
}

TEST(IntegerGemmPlan, WorkgroupScopeTileWhereTheDeviceListsIt) {
  const Coop2Tile* tile = coop2_tile(kDefaultCoop2Tile);
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ(coop2_tile("0"), tile);
  EXPECT_EQ(coop2_tile("integer_gemm.coopmat2.128x256x64")->bn, 256u);
  EXPECT_EQ(coop2_tile("9"), nullptr);
  EXPECT_EQ(coop2_tile("integer_gemm.coopmat2.64x64x64"), nullptr);
  const Config c{.packed_dot = true, .rows = rows_kernel(kDefaultRowsKernel), .coopmat = true, .coop2 = tile};
  auto plan_of = [&](const IntegerGemmProblem& p, const Extras& e = {}, const Config& config = Config{}) {
    return plan(resolve(p, kMatMulInteger), config.coop2 ? config : c, e);
  };
  // int8 x int8 without zero points or bias: the accumulator stored as it is, no sums pass.
  Plan p = plan_of({.m = 4096, .n = 4096, .k = 4096, .a_type = DataType::int8});
  EXPECT_EQ(p.kernel, Kernel::coopmat2);
  EXPECT_EQ(p.variant.name(), "integer_gemm.coopmat2.256x128x64.a_mk.b_kn.ss.direct");
  EXPECT_FALSE(p.sums);
  EXPECT_EQ(p.grid.x, 32u);
  EXPECT_EQ(p.grid.y, 16u);
  // Zero points or an epilogue: the epilogue form; unsigned operands also need the sums.
  p = plan_of({.m = 1024, .n = 3072, .k = 768, .a_type = DataType::int8, .transpose_b = true}, {.epilogue = true});
  EXPECT_EQ(p.variant.name(), "integer_gemm.coopmat2.256x128x64.a_mk.b_nk.ss");
  EXPECT_FALSE(p.sums);
  p = plan_of({.m = 1024, .n = 3072, .k = 768, .a_type = DataType::int8, .transpose_a = true}, {.zero_points = true});
  EXPECT_EQ(p.variant.name(), "integer_gemm.coopmat2.256x128x64.a_km.b_kn.ss");
  EXPECT_TRUE(p.sums);
  p = plan_of({.m = 1024, .n = 3072, .k = 768, .transpose_a = true, .transpose_b = true});  // uint8 x int8
  EXPECT_EQ(p.variant.name(), "integer_gemm.coopmat2.256x128x64.a_km.b_nk.us");
  EXPECT_TRUE(p.sums);
  p = plan_of({.m = 1024, .n = 3072, .k = 768, .a_type = DataType::uint8, .b_type = DataType::uint8});
  EXPECT_EQ(p.variant.name(), "integer_gemm.coopmat2.256x128x64.a_mk.b_kn.uu");
  // A device that rejects the epilogue forms keeps the tile for the direct store only.
  Config direct_only = c;
  direct_only.coop2_epilogue = false;
  EXPECT_EQ(plan_of({.m = 1024, .n = 3072, .k = 768, .a_type = DataType::int8}, {}, direct_only).kernel, Kernel::coopmat2);
  EXPECT_EQ(plan_of({.m = 1024, .n = 3072, .k = 768}, {}, direct_only).kernel, Kernel::coopmat);
  EXPECT_EQ(plan_of({.m = 1024, .n = 3072, .k = 768, .a_type = DataType::int8}, {.zero_points = true}, direct_only).kernel,
            Kernel::coopmat);
  // Fewer than 32 tiles: the subgroup-scope tile, unless small tiles are not allowed; M <= 16 skinny.
  EXPECT_EQ(plan_of({.m = 32, .n = 4096, .k = 4096}).kernel, Kernel::rows);
  EXPECT_EQ(plan_of({.m = 65, .n = 1024, .k = 4096}).kernel, Kernel::coopmat);
  Config large = c;
  large.small_tiles = false;
  large.skinny = false;
  EXPECT_EQ(plan_of({.m = 32, .n = 4096, .k = 4096}, {}, large).kernel, Kernel::coopmat2);
  large.skinny = true;
  EXPECT_EQ(plan_of({.m = 16, .n = 4096, .k = 4096}, {}, large).kernel, Kernel::skinny);
  // Every workgroup of the sums pass takes 8 lines along k or 32 across: here 1024 / 8 + 3072 / 32.
  const Grid g = sums_grid(resolve({.m = 1024, .n = 3072, .k = 768, .batch = 2}, kMatMulInteger));
  EXPECT_EQ(g.x, 1024u / 8 + 3072u / 32);
  EXPECT_EQ(g.y, 1u);
  EXPECT_EQ(g.z, 2u);
  const Grid h = sums_grid(resolve({.m = 1u << 20, .n = 8, .k = 4}, kMatMulInteger));
  EXPECT_EQ(uint64_t(h.x) * h.y >= (1u << 17) + 1, true);
  EXPECT_LE(h.x, 65535u);
  // Chosen only where the device lists int8 x int8 -> int32 at workgroup scope for the tile.
  ComputeCapabilities caps;
  EXPECT_TRUE(coop2_candidates(caps, nullptr).empty());
  caps.features = FeatureSet{ShaderFeature::cooperative_matrix2};
  caps.cooperative_matrix_workgroup_max_invocations = 256;
  caps.cooperative_matrix_workgroup_shapes.push_back(
      {.m_granularity = 16, .n_granularity = 16, .k_granularity = 16, .workgroup_invocations = 256});  // float16
  EXPECT_TRUE(coop2_candidates(caps, nullptr).empty());
  caps.cooperative_matrix_workgroup_shapes.push_back({.m_granularity = 16, .n_granularity = 16, .k_granularity = 32,
                                                      .a = DataType::int8, .b = DataType::int8, .c = DataType::int32,
                                                      .result = DataType::int32, .workgroup_invocations = 256});
  const auto all = coop2_candidates(caps, nullptr);
  ASSERT_EQ(all.size(), coop2_tiles().size());
  EXPECT_EQ(all[0], tile);
  const Coop2Tile* other = coop2_tile("1");
  EXPECT_EQ(coop2_candidates(caps, other), std::vector<const Coop2Tile*>{other});
  caps.cooperative_matrix_workgroup_max_invocations = 128;
  EXPECT_TRUE(coop2_candidates(caps, nullptr).empty());
}

TEST(IntegerGemmPlan, GridCoversTheOutput) {
  const Plan p = plan(resolve({.m = 100, .n = 130, .k = 9, .batch = 40}, kMatMulInteger), Config{});
  EXPECT_EQ(p.grid.x, 3u);
  EXPECT_EQ(p.grid.y, 2u);
  EXPECT_EQ(p.grid.z, 40u);
  const Plan small = plan(resolve({.m = 40, .n = 33, .k = 9}, kMatMulInteger), Config{});
  EXPECT_EQ(small.kernel, Kernel::portable32);
  EXPECT_EQ(small.grid.x, 2u);
  EXPECT_EQ(small.grid.y, 2u);
  const Plan skinny = plan(resolve({.m = 3, .n = 65, .k = 9, .batch = 2}, kMatMulInteger), Config{});
  EXPECT_EQ(skinny.grid.x, 3u);
  EXPECT_EQ(skinny.grid.y, 2u);
  ComputeCapabilities caps;
  caps.max_workgroup_count = {65535, 65535, 65535};
  EXPECT_NO_THROW(check_grid(p.grid, caps, kMatMulInteger));
  const Plan wide = plan(resolve({.m = 64, .n = 5000000, .k = 1}, kMatMulInteger), Config{});
  EXPECT_THROW(check_grid(wide.grid, caps, kMatMulInteger), UnsupportedError);
}

TEST(IntegerGemmPlan, PiecesUnderTheBudget) {
  IntegerGemmProblem q{.m = 40, .n = 30, .k = 50, .batch = 3};
  q.stride_a = 3000, q.stride_c = 1300;
  const Shape s = resolve(q, kMatMulInteger);
  EXPECT_EQ(work(s), 2u * 40 * 30 * 50 * 3);
  EXPECT_EQ(pieces(s, 0).size(), 1u);
  EXPECT_EQ(pieces(s, work(s)).size(), 1u);
  auto batches = pieces(s, 2 * 40 * 30 * 50 * 2);  // two entries a piece
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].shape.batch, 2u);
  EXPECT_EQ(batches[1].shape.batch, 1u);
  EXPECT_EQ(batches[1].shape.offset_a, 2u * 3000);
  EXPECT_EQ(batches[1].shape.offset_c, 2u * 1300);
  IntegerGemmProblem r{.m = 150, .n = 20, .k = 30, .transpose_a = true, .batch = 2};
  const Shape t = resolve(r, kMatMulInteger);
  auto bands = pieces(t, 2 * 20 * 30 * 64);  // 64 rows a band
  ASSERT_EQ(bands.size(), 6u);
  EXPECT_EQ(bands[1].shape.m, 64u);
  EXPECT_EQ(bands[1].first_row, 64u);
  EXPECT_EQ(bands[1].shape.offset_a, 64u);  // A stored K x M: the band starts 64 columns in
  EXPECT_EQ(bands[2].shape.m, 22u);
  EXPECT_EQ(bands[4].shape.offset_a, t.stride_a + 64);
  EXPECT_EQ(bands[4].shape.offset_c, t.stride_c + 64 * 20);
  EXPECT_EQ(grid_of(Kernel::skinny, bands[2].shape).y, 1u);
}

TEST(IntegerGemmPlan, BoundRangesAreAlignedWholeWords) {
  const BoundRange r = bound_range({.first = 37, .end = 50}, 1, 16, 1000);
  EXPECT_EQ(r.offset_bytes, 32u);
  EXPECT_EQ(r.base_elements, 32u);
  EXPECT_EQ(r.size_bytes, 52u - 32u);
  const BoundRange c = bound_range({.first = 5, .end = 9}, 4, 16, 1000);
  EXPECT_EQ(c.offset_bytes, 16u);
  EXPECT_EQ(c.base_elements, 4u);
  EXPECT_EQ(c.size_bytes, 36u - 16u);
  EXPECT_EQ(words_per_row(1), 2u);
  EXPECT_EQ(words_per_row(8), 3u);
}

// The rows kernel's slices of k: enough workgroups for a large GPU, no slice shorter than the
// minimum, a multiple of 4 values each, the partial buffer within its limit.
TEST(IntegerGemmPlan, RowsKernelSlicesOfK) {
  const RowsKernel& k = *rows_kernel(kDefaultRowsKernel);
  auto split = [&](IntegerGemmProblem p, uint32_t forced = 0) { return rows_split(resolve(p, kMatMulInteger), k, forced); };
  // 32 x 4096 x 4096: 64 column blocks x 2 row blocks, 2 slices of 2048 for 256 workgroups.
  RowsSplit s = split({.m = 32, .n = 4096, .k = 4096});
  EXPECT_EQ(s.splits, 2u);
  EXPECT_EQ(s.split_k, 2048u);
  const Plan p = plan(resolve({.m = 32, .n = 4096, .k = 4096}, kMatMulInteger), {.packed_dot = true, .rows = &k});
  EXPECT_EQ(p.grid.x, 128u);
  EXPECT_EQ(p.grid.y, 2u);
  EXPECT_EQ(p.split.splits, 2u);
  // 32 x 1024 x 4096: 32 workgroups, 8 slices of 512 for 256.
  s = split({.m = 32, .n = 1024, .k = 4096});
  EXPECT_EQ(s.splits, 8u);
  EXPECT_EQ(s.split_k, 512u);
  EXPECT_EQ(split({.m = 64, .n = 8192, .k = 4096}).splits, 1u);  // 128 x 4 workgroups
  // Short k: no slice below the minimum; k below it: one slice of all of k.
  s = split({.m = 17, .n = 70, .k = 600});
  EXPECT_EQ(s.splits, 2u);
  EXPECT_EQ(s.split_k, 300u);
  s = split({.m = 17, .n = 70, .k = 255});
  EXPECT_EQ(s.splits, 1u);
  EXPECT_EQ(s.split_k, 255u);
  s = split({.m = 17, .n = 70, .k = 0});
  EXPECT_EQ(s.splits, 1u);
  // Ragged: ceil(1001 / 3) rounded up to a multiple of 4 = 336, three slices (336, 336, 329).
  s = split({.m = 40, .n = 70, .k = 1001}, 3);
  EXPECT_EQ(s.splits, 3u);
  EXPECT_EQ(s.split_k, 336u);
  // Forced past k / 4: slices of 4.
  s = split({.m = 40, .n = 70, .k = 20}, 100);
  EXPECT_EQ(s.splits, 5u);
  EXPECT_EQ(s.split_k, 4u);
  // A wide product fills the device without slices; a huge one stays within the partial buffer.
  EXPECT_EQ(split({.m = 64, .n = 65536, .k = 4096}).splits, 1u);
  s = split({.m = 64, .n = 1 << 19, .k = 1 << 19}, 64);  // 2^25 outputs: more than 64 MiB of partial sums
  EXPECT_EQ(s.splits, 1u);
  s = split({.m = 64, .n = 1 << 16, .k = 1 << 16}, 64);  // 2^22 outputs: 4 slices fill the 64 MiB
  EXPECT_EQ(s.splits, 4u);
  EXPECT_LE(uint64_t(s.splits) * 64 * (1 << 16) * 4, kRowsMaxPartialBytes);
}

}  // namespace
}  // namespace onegpu::kernels::integer_gemm
