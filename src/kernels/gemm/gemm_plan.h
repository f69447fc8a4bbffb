// GEMM decisions that need no GPU: resolving defaults, checking shapes, choosing the kernel, the
// split of k and the grid, and the bound range of each operand.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onegpu/capabilities.h"
#include "onegpu/encoder.h"
#include "onegpu/kernels/gemm.h"

namespace onegpu::kernels::gemm {

// The problem with every default filled in.
struct Shape {
  uint64_t m, n, k, batch;
  bool trans_a, trans_b;
  uint64_t lda, ldb, ldc;
  uint64_t offset_a, offset_b, offset_c;
  uint64_t stride_a, stride_b, stride_c;
};

// Fills defaults and checks dimensions, leading dimensions and strides; throws KernelShapeError
// with operation "Gemm".
Shape resolve(const GemmProblem& p);

// Element range [first, last] of one operand (last < first when the operand is empty).
struct Extent {
  uint64_t first = 0, end = 0;  // [first, end) in elements
};
Extent extent_a(const Shape& s);
Extent extent_b(const Shape& s);
Extent extent_c(const Shape& s);

// The byte range bound for an operand: offset aligned down to `align`, size a whole number of
// words, and the element offset of the operand inside it.
struct BoundRange {
  uint64_t offset_bytes = 0, size_bytes = 0;
  uint64_t base_elements = 0;  // elements between the binding's start and the buffer's start
};
BoundRange bound_range(const Extent& e, uint64_t element_bytes, uint64_t align, uint64_t buffer_bytes);

enum class Kernel { tile, tile128, coop_f16, rows_kn16, rows_kn32, rows_nk, rows_nk_vec4 };

// A cooperative-matrix tile: BM x BN of C per workgroup of `subgroups` subgroups of 32, k steps of
// BK, on subgroup-scope matrices (VK_KHR_cooperative_matrix, shaders gemm_coopmat_f16_t<index>) or
// workgroup-scope ones (VK_NV_cooperative_matrix2, gemm_coopmat2_f16_t<index - 4>), each built once
// per operand orientation (_o0.._o3); the order is the shaders' (CMakeLists.txt).
inline constexpr uint32_t kNoTile = UINT32_MAX;
inline constexpr uint64_t kSmallGrid = 128;  // workgroups
struct CoopTile {
  uint32_t bm, bn, bk, subgroups;
  bool workgroup_scope = false;
  uint32_t buffers = 1;  // subgroup scope: staging buffers (1: two barriers per step; 2: one)
  // The tile taken instead when this one's grid would have fewer than kSmallGrid workgroups
  // (more workgroups for the GPU's cores), or kNoTile.
  uint32_t small_grid = kNoTile;
  // The tile taken instead when B is stored N x K, or kNoTile (its own small-grid rule applies).
  uint32_t transposed_b = kNoTile;
};
// Subgroup scope 0-3; workgroup scope 4-6 (k steps per unrolled iteration and workgroup grouping
// are in the CMake list: 4 unrolls 32 steps in groups of 8 tile rows, 5 unrolls 8, 6 unrolls 16 in
// groups of 16).
inline constexpr CoopTile kCoopTiles[] = {
    {128, 256, 32, 8, false, 1, 1}, {128, 128, 32, 4, false, 1}, {256, 128, 32, 8, false, 1, 1},
    {128, 256, 16, 8, false, 2},    {128, 256, 32, 8, true, 1, 5, 6}, {128, 128, 64, 8, true},
    {128, 256, 64, 8, true, 1, 5}};
inline constexpr uint32_t kFirstWorkgroupScopeTile = 4;

// Workgroup memory of a subgroup-scope tile's kernel as gemm_coopmat_f16.comp lays it out: per
// buffer, A and B staged with rows padded by eight halves (the larger of the two orientations),
// and at least a 16 x 16 float staging tile per subgroup for the epilogue. gemm.cpp checks it
// against each compiled shader's reflection.
constexpr uint64_t coop_workgroup_bytes(const CoopTile& t) {
  auto padded = [](uint64_t rows, uint64_t width) { return rows * ((width + 8) / 8); };  // 16-byte words
  const uint64_t a = std::max(padded(t.bm, t.bk), padded(t.bk, t.bm));
  const uint64_t b = std::max(padded(t.bn, t.bk), padded(t.bk, t.bn));
  return 16 * std::max<uint64_t>(t.buffers * (a + b), t.subgroups * 64);
}
inline constexpr uint32_t kDefaultSubgroupScopeTile = 0;   // the fastest on the H200
inline constexpr uint32_t kDefaultWorkgroupScopeTile = 4;  // the fastest on the H200

// The tiles a float16 fast-mode Gemm tries at construction, best first: the default
// workgroup-scope tile where those kernels are built and the device has cooperative_matrix2 with a
// float16 x float16 -> float32 workgroup shape that divides the tile, for its workgroup size; then
// the default subgroup-scope tile where those are built and the device lists a 16x16x16 float16
// shape with float32 accumulation (on the H200 the workgroup-scope kernel measured 261-304 TFLOP/s
// against 192-219 for the subgroup-scope one). `forced` (ONEGPU_GEMM_COOPMAT_TILE) names one tile
// instead, still only where its kind is built and supported.
std::vector<uint32_t> coop_candidates(const ComputeCapabilities& caps, bool subgroup_scope_built,
                                      bool workgroup_scope_built, std::optional<uint32_t> forced = std::nullopt);
inline constexpr uint32_t kCoopTileCount = sizeof(kCoopTiles) / sizeof(kCoopTiles[0]);

struct Plan {
  Kernel kernel = Kernel::tile;
  uint32_t coop_index = 0;  // coop_f16 only: the tile, index into kCoopTiles,
  CoopTile coop{};          // and its entry
  GemmElementType type = GemmElementType::float32;
  uint32_t splits = 1;   // k ranges (tile only)
  uint32_t k_chunk = 0;  // terms per range
  Grid grid;             // the main pass
  uint64_t reduce_elements = 0;  // second pass (split k): elements of C
};

inline constexpr uint64_t kSplitScratchFloats = 4ull << 20;  // 16 MiB

// Chooses from the shape, the element type and the mode, and from the matrix-hardware tile the Gemm
// found for its device at construction (index into kCoopTiles; none: nullopt). A tile with a
// small-grid companion hands shapes with few of its tiles to that one.
Plan plan(const Shape& s, GemmElementType type, KernelMode mode, std::optional<uint32_t> coop = std::nullopt);
std::string variant_name(const Plan& p);

}  // namespace onegpu::kernels::gemm
