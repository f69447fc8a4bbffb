// GEMM decisions that need no GPU: resolving defaults, checking the operands, choosing the kernel
// variant, the split of k and the grid, the bound range of each operand and the push constants.
// Kernels are named by the family's variant table (src/kernels/gemm/CMakeLists.txt); every row is
// present even where the compiler could not build it, so all of this is tested everywhere.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gemm/gemm_push.h"
#include "kernels/common/variant.h"
#include "onegpu/capabilities.h"
#include "onegpu/encoder.h"
#include "onegpu/kernels/gemm.h"

namespace onegpu::kernels::gemm {

// The family's variant table.
const VariantTable& variants();

// The problem with every default filled in.
struct Shape {
  uint64_t m, n, k, batch;
  bool trans_a, trans_b;
  uint64_t lda, ldb, ldc;
  uint64_t offset_a, offset_b, offset_c;
  uint64_t stride_a, stride_b, stride_c;
  float alpha, beta;
};

// Fills defaults and checks dimensions, leading dimensions, offsets and strides, and that each
// operand's extent (offset + (batch - 1) x stride + one matrix) stays below 2^62 elements in
// checked arithmetic; throws KernelShapeError with operation "Gemm".
Shape resolve(const GemmProblem& p);

// Element range [first, end) of one operand (end == first when the operand is empty).
struct Extent {
  uint64_t first = 0, end = 0;
};
Extent extent_a(const Shape& s);
Extent extent_b(const Shape& s);
Extent extent_c(const Shape& s);

// The caller's buffers as the checks see them.
struct OperandSizes {
  uint64_t a_bytes = 0, b_bytes = 0, c_bytes = 0;
  std::optional<uint64_t> bias_elements;  // nullopt: no bias
  uint64_t bias_offset = 0;
  // RawBuffer::id() of each buffer (0: not known, never overlapping), for the aliasing checks.
  uint64_t a_buffer = 0, b_buffer = 0, c_buffer = 0, bias_buffer = 0;
};

// The epilogue as the kernels see it.
struct Epilogue {
  bool bias = false;
  uint64_t bias_offset = 0;
  UnaryFunction activation{};
};

// Throws KernelShapeError naming the argument when an operand does not lie inside its buffer
// ("Gemm: b: needs elements up to 272, the buffer holds 256"), the bias does not hold N elements
// from its offset, or the unary function is unknown, and KernelShapeError (argument "c") when C's
// range overlaps A's, B's or the bias's in the same buffer (whole 32-bit words: a product cannot
// run in place). `type` is the element type of A and B.
void check_operands(const Shape& s, DataType type, const OperandSizes& sizes, const UnaryFunction& activation);

// The byte range bound for an operand: offset aligned down to `align`, size a whole number of
// words, and the element offset of the operand inside it.
struct BoundRange {
  uint64_t offset_bytes = 0, size_bytes = 0;
  uint64_t base_elements = 0;  // elements between the buffer's start and the binding's start
};
BoundRange bound_range(const Extent& e, uint64_t element_bytes, uint64_t align, uint64_t buffer_bytes);

struct Bindings {
  BoundRange a, b, c;
};
// The ranges of A, B and C (offsets aligned to 16 bytes at least, so four- and eight-element reads
// stay aligned). Throws UnsupportedError when one is larger than the device's
// max_storage_buffer_range or holds more elements than 32-bit indices reach; once these pass,
// every offset, stride and leading dimension of the push constants fits 32 bits.
Bindings bind_ranges(const Shape& s, DataType type, const OperandSizes& sizes, const ComputeCapabilities& caps);

// A cooperative-matrix tile: BM x BN of C per workgroup, k steps of BK, on subgroup-scope matrices
// (VK_KHR_cooperative_matrix, variants "gemm.coopmat.…") or workgroup-scope ones
// (VK_NV_cooperative_matrix2, "gemm.coopmat2.…"), each built once per operand orientation.
// Everything here is read from the variants' declarations.
inline constexpr uint64_t kSmallGrid = 128;  // workgroups
struct CoopTile {
  std::string_view name;  // the variants' names without the orientation: "gemm.coopmat2.f16.128x256x32"
  DataType type = DataType::float16;  // of A and B (ELEM): float16 or bfloat16
  uint32_t bm = 0, bn = 0, bk = 0;
  uint32_t invocations = 0;    // the workgroup
  uint32_t subgroups = 0;      // subgroup scope: WM x WN subgroups of 32
  uint32_t buffers = 1;        // subgroup scope: staging buffers (1: two barriers per step; 2: one)
  bool workgroup_scope = false;
  // The tile taken instead when this one's grid would have fewer than kSmallGrid workgroups (more
  // workgroups for the GPU's cores), or none.
  const CoopTile* small_grid = nullptr;
  // The tile taken instead, with k unsplit, when this one's grid would still have fewer than
  // Config::unsplit_grid workgroups (after the small-grid companion), or none.
  const CoopTile* unsplit_small_grid = nullptr;
  // The fewest terms a range of k holds where the policy cuts k for small grids of this tile
  // (kCoopSplitGrid): kCoopSplitTerms, or kUnsplitTileSplitTerms for the 64 x 128 x 64 tiles, which
  // stay whole below twice that; the tile forced with ONEGPU_GEMM_COOPMAT_SPLITS is cut either way.
  uint64_t split_terms = 512;
  // The tile taken instead when B is stored N x K (its own small-grid rule applies), or none.
  const CoopTile* transposed_b = nullptr;
  // Row of each orientation's variant (bit 1: A stored K x M, bit 0: B stored N x K), with the
  // per-element unary function (workgroup scope; the subgroup-scope kernels always have it), and
  // summing one range of k (workgroup scope ".splitk"; the subgroup-scope kernels read the range
  // from the push constants).
  std::array<uint32_t, 4> kernels{}, kernels_unary{}, kernels_split{};

  Variant kernel(uint32_t orientation, bool unary, bool split = false) const {
    return variants()[(split ? kernels_split : unary ? kernels_unary : kernels)[orientation]];
  }
};

// Every tile the family declares, in declaration order (read from the table once).
std::span<const CoopTile> coop_tiles();
// The tile called `name` (or numbered so in coop_tiles()), or nullptr.
const CoopTile* coop_tile(std::string_view name);
// The unsplit small-grid companion reachable from `tile` (through its companions for B stored
// N x K and for small grids), or nullptr.
const CoopTile* unsplit_companion(const CoopTile& tile);
// The tile of the same kind and shape for A and B of `type` (float16 or bfloat16), or nullptr.
const CoopTile* coop_tile_of_type(const CoopTile& tile, DataType type);

// The preferred tiles (the fastest on the H200: the workgroup-scope kernel measured 261-304
// TFLOP/s against 192-219 for the subgroup-scope one).
inline constexpr std::string_view kDefaultWorkgroupScopeTile = "gemm.coopmat2.f16.128x256x32";
inline constexpr std::string_view kDefaultSubgroupScopeTile = "gemm.coopmat.f16.128x256x32";
// bfloat16 takes the tiles of the same shapes (coop_tile_of_type).

// Workgroup memory of a subgroup-scope tile's kernel as gemm_coopmat_f16.comp lays it out: per
// buffer, A and B staged with rows padded by eight halves (the larger of the two orientations),
// and at least a 16 x 16 float staging tile per subgroup for the epilogue.
constexpr uint64_t coop_workgroup_bytes(uint64_t bm, uint64_t bn, uint64_t bk, uint64_t subgroups, uint64_t buffers) {
  auto padded = [](uint64_t rows, uint64_t width) { return rows * ((width + 8) / 8); };  // 16-byte words
  const uint64_t a = std::max(padded(bm, bk), padded(bk, bm));
  const uint64_t b = std::max(padded(bn, bk), padded(bk, bn));
  return 16 * std::max<uint64_t>(buffers * (a + b), subgroups * 64);
}

// The tiles a float16 or bfloat16 fast-mode Gemm tries at construction, best first, among those the
// device lists matrix shapes for: the default workgroup-scope tile (of `type`) where the device has
// the cooperative_matrix2 feature and a `type` x `type` -> float32 workgroup shape for its
// workgroup size whose granularity divides the tile; then the default subgroup-scope tile where it
// lists a 16x16x16 `type` shape with float32 accumulation. bfloat16 also needs the device's
// bfloat16 feature. `forced` (ONEGPU_GEMM_COOPMAT_TILE) names one tile instead (its counterpart of
// `type`), still only where the device has its kind. Whether the build has a tile's kernels and the
// device accepts their pipelines is found by trying (first_accepted).
std::vector<const CoopTile*> coop_candidates(const ComputeCapabilities& caps, DataType type,
                                             const CoopTile* forced = nullptr);
// Whether the device lists the matrix shape `tile` needs (as coop_candidates asks of each; the
// unsplit small-grid companion has a workgroup size of its own, so it is asked of separately).
bool device_has_tile(const ComputeCapabilities& caps, const CoopTile& tile);

// Which kind of kernel computes the products.
enum class Kernel { tile64, tile128, coop, rows_kn, rows_nk };

// Few rows with B stored K x N and 16-bit operands: which kernel. `automatic` is the policy (the
// 16-byte-word kernel of 64 columns from kRowsWordsMinN columns, else the one-element kernels);
// the others force one, for tuning (ONEGPU_GEMM_ROWS_KN: old, kn64 or kn256).
enum class RowsKn { automatic, one_element, words64, words256 };
// The ONEGPU_GEMM_ROWS_KN value's choice ("old", "kn64", "kn256"; anything else: automatic).
RowsKn parse_rows_kn(std::string_view value);

// What a Gemm fixes at construction.
struct Config {
  DataType type = DataType::float32;
  KernelMode mode = KernelMode::fast;
  const CoopTile* coop = nullptr;  // the matrix-hardware tile found for the device (of `type`), if any
  // The device's workgroup memory: the 128 x 128 tile takes its compact form where the padded one
  // does not fit.
  uint64_t max_workgroup_memory = UINT64_MAX;
  // k ranges for the matrix kernels instead of the policy's (ONEGPU_GEMM_COOPMAT_SPLITS, for tuning;
  // 0: the policy, 1: none). Still cut to whole steps and to what the scratch holds.
  uint32_t coop_splits = 0;
  // Few rows, B stored K x N, 16-bit operands: the kernel (ONEGPU_GEMM_ROWS_KN) and k ranges for
  // the 16-byte-word kernels instead of the policy's (ONEGPU_GEMM_ROWS_KN_SPLITS; 0: the policy,
  // 1: none), for tuning.
  RowsKn rows_kn = RowsKn::automatic;
  uint32_t rows_kn_splits = 0;
  // float32: products on float16 hardware (float32_split(); the Gemm keeps the float16 product's
  // own configuration, its matrix tile included).
  bool float32_split = false;
  // A grid of the small-grid companion with fewer workgroups than this takes the tile's unsplit
  // small-grid companion instead (the 64 x 128 x 64 workgroup-scope tile), k unsplit: kSmallGrid;
  // the float32 split's products their own (split_products_config); 0 where the device lacks that
  // tile (its matrix shape or its pipeline, found at construction).
  uint64_t unsplit_grid = kSmallGrid;
};

inline constexpr uint64_t kSplitScratchFloats = 4ull << 20;  // 16 MiB

// Split k on the matrix kernels: a grid of fewer than kCoopSplitGrid tiles with at least
// 2 x kCoopSplitTerms terms of k is cut into ranges of at least kCoopSplitTerms (a multiple of 32
// and of the tile's BK) aiming at kCoopSplitTarget workgroups. Measured on the H200 (float16):
// 1024 x 768 x 3072 (48 tiles) 0.053 ms unsplit, 0.055 / 0.051 / 0.048 ms in 3 / 4 / 5 ranges;
// 128 x 768 x 768 and 128 x 3072 x 768 gained nothing from 3 ranges of 256 (0.0192 -> 0.0195 and
// 0.0200 -> 0.0215 ms), hence ranges of at least 512 terms.
inline constexpr uint64_t kCoopSplitGrid = 128;
inline constexpr uint64_t kCoopSplitTarget = 256;
inline constexpr uint64_t kCoopSplitTerms = 512;
// The 64 x 128 x 64 tiles' ranges: at least 2048 terms, so k up to 4095 stays whole (1024 x 768 x
// 3072 unsplit 0.0381 ms against 0.0517 in 2 ranges) and a long k is cut (256 x 1024 x 8192, 32
// tiles: 0.0934 ms unsplit, 0.0573 in 2 ranges, 0.0366 in 4; H200, float16, 2026-12-02).
inline constexpr uint64_t kUnsplitTileSplitTerms = 2048;
static_assert(CoopTile{}.split_terms == kCoopSplitTerms);
// Since 2026-12-02 the workgroup-scope 128 x 128 x 64 companion is split so only where the device
// lacks the 64 x 128 x 64 tile: its grids of fewer than kSmallGrid workgroups go to that tile
// unsplit (Config::unsplit_grid), measured the fastest on every such grid on the H200 (float16,
// ms; 64 x 128 x 64 unsplit / 2 / 3 / 4 ranges):
// 1024 x 768 x 3072 0.0381 / 0.0517 / 0.0550 / 0.0522 against 0.0499 for 128 x 128 x 64 in 5
// ranges; 128 x 768 x 768 0.0143 / 0.0177 / 0.0161 / 0.0156 against 0.0197 unsplit on 128 x 128;
// 128 x 3072 x 768 0.0146 / 0.0205 / 0.0241 / 0.0233 against 0.0205.

// Few rows, B stored K x N, 16-bit operands: the 16-byte-word kernel takes products of at least
// kRowsWordsMinN columns; a grid of fewer than kRowsSplitGrid workgroups (four per SM of a GPU of
// 132) with at least 2 x kRowsSplitTerms terms of k is cut into ranges of at least kRowsSplitTerms
// (a multiple of 32) aiming at kRowsSplitGrid workgroups. 1 x 51865 x 768 has 811 workgroups of 64
// columns and is not split.
inline constexpr uint64_t kRowsWordsMinN = 256;
inline constexpr uint64_t kRowsSplitGrid = 528;
inline constexpr uint64_t kRowsSplitTerms = 256;

struct Plan {
  Kernel kernel = Kernel::tile64;
  Variant variant = variants()[0];  // the kernel that computes the products (set by plan())
  const CoopTile* coop = nullptr;   // Kernel::coop: the tile
  uint32_t tile_n = 64;             // columns of C per workgroup (grid.x = ceil(n / tile_n))
  uint32_t splits = 1;              // k ranges
  uint32_t k_chunk = 0;             // terms per range
  Grid grid;                        // the main pass
  uint64_t reduce_elements = 0;     // second pass (split k): elements of C
};

// Chooses from the shape, the Gemm's configuration and whether a unary function is applied (the
// workgroup-scope matrix kernels compile it only into their ".act" variants; with split k the
// second pass applies it, so they keep the plain variant). A matrix tile with a small-grid
// companion hands shapes with few of its tiles to that one; a grid still small goes to the
// unsplit small-grid companion where there is one (Config::unsplit_grid), else is split along k
// (kCoopSplitGrid, ranges of at least the tile's split_terms). Everything depends on the shape and the
// configuration only, so the summation order, and the bits, of a product are fixed by its shape on
// a device.
Plan plan(const Shape& s, const Config& config, const UnaryFunction& activation = {});
// The second pass of split k for a product (or piece) of n columns: four elements of a row per
// invocation where n is a multiple of 4 (the same sums), else one; and its workgroups (256
// invocations each).
Variant splitk_reduce_variant(uint64_t n);
uint32_t splitk_reduce_workgroups(const Plan& p, uint64_t n);
// The plan of the whole product applied to a piece of it (fewer rows or batch entries): the same
// kernel, k split and summation order, with the piece's grid.
Plan piece_plan(const Plan& whole, const Shape& piece);
// The pieces a product is recorded in under a submission budget of `budget` operations (0: none):
// whole batch entries while one fits, else one batch entry at a time in bands of `rows` rows (a
// multiple of 128). Each piece is the shape with its m, batch and offsets moved.
std::vector<Shape> pieces(const Shape& s, uint64_t budget);
// The plan of `s` made for the product GemmProblem::plan_n / plan_batch name (checked: at least
// the product's own), applied to `s` as a piece of it.
Plan plan_for(const Shape& s, const GemmProblem& problem, const Config& config, const UnaryFunction& activation);
// The plan's variant name, with ".splitk<N>" when k is split.
std::string variant_name(const Plan& p);

// ---- Float32 products on float16 hardware (Float32Products::split_float16) ----

// The policy for Float32Products::automatic: whether it takes the split where the device has
// float16 matrix hardware (one line to change once measurements decide).
inline constexpr bool kFloat32SplitByDefault = false;
// Whether a Gemm of `type` in `mode` asked for `requested` forms float32 products on float16
// hardware: float32 in fast mode only (deterministic mode keeps the exact tile kernels), when asked
// for, or under `automatic` where the policy says so and the device has float16 matrix hardware.
bool float32_split(DataType type, KernelMode mode, Float32Products requested, bool float16_matrix_hardware);

// How one float32 product runs on float16 hardware: the exponent, split and epilogue passes and
// float16 products of the parts. A' = [A_hi | A_hi | A_lo] (M x 3 k_pad halves) and
// B' = [B_hi ; B_lo ; B_hi] (3 k_pad x n_pad), dense; A_hi B_hi over each range of k_range terms is
// one product into its own plane of D (M x n_pad floats per batch entry), and the corrections
// A_hi B_lo + A_lo B_hi (2 k_pad terms) one more, alpha 1 and beta 0; the epilogue adds the planes
// in order. Matrix units may truncate their float32 accumulation (NVIDIA's tensor cores round
// toward zero), an error that grows with the chain and with the accumulator's size: short chains
// for the large terms and a chain of its own for the small corrections keep it at the level of a
// float32 chain. An operand with batch stride 0 (shared by a batch) is split once. Scratch sizes
// count 32-bit words.
inline constexpr uint64_t kSplitRangeTerms = 1024;  // at most 8 ranges: longer for K > 8192
struct SplitProduct {
  Shape shape;
  Plan plan;  // on the float16 configuration
};
struct SplitPlan {
  uint64_t k = 0, n = 0;              // the float32 product's
  uint64_t k_pad = 0, n_pad = 0;      // K and N rounded up to 8 (the matrix kernels read eight halves)
  uint64_t batch_a = 1, batch_b = 1;  // matrices of each operand split
  uint64_t k_range = 0;               // terms of A_hi B_hi per product, a multiple of 8
  std::vector<SplitProduct> products;  // the ranges of A_hi B_hi in k order, then the corrections
  uint64_t a_words = 0, b_words = 0, d_words = 0, exp_words = 0;
  uint64_t d_plane = 0;                // words of one plane of D (every batch entry)
  uint64_t exp_b = 0;                  // the first of B's exponent words (A's start at 0)
};
// The float16 products' small-grid rule: a grid of the 128 x 128 x 64 companion with fewer than
// kSplitUnsplitGrid workgroups (about two waves of the H200's 132 SMs; a constant, so the bits
// depend on the shape only) takes the 64 x 128 x 64 tile, unsplit: 1024 x 3072 x 768 has 192
// tiles of 128 x 128 (1.45 waves), 384 of 64 x 128. Measured a tie there (H200, 2026-12-02:
// 0.1884 ms on 64 x 128 against 0.1836 on 128 x 128, cuBLAS 0.1395).
inline constexpr uint64_t kSplitUnsplitGrid = 256;
// Which tile the float32 split's products take where the 128 x 128 x 64 companion would serve
// (ONEGPU_GEMM_F32SPLIT_TILE, for measurement).
enum class SplitProductsTile {
  automatic,   // kSplitUnsplitGrid
  tile64x128,  // "64x128": the 64 x 128 x 64 tile wherever the device has it
  tile128x128  // "128x128": the 128 x 128 x 64 tile (its own split of k for small grids)
};
// `value` of ONEGPU_GEMM_F32SPLIT_TILE ("64x128", "128x128"; anything else: automatic).
SplitProductsTile split_products_tile(std::string_view value);
// The configuration of a float32 Gemm's float16 products: `float16` (the float16 product's own, its
// tile and what the device has of the unsplit companion) with the split's small-grid rule.
Config split_products_config(const Config& float16, SplitProductsTile tile = SplitProductsTile::automatic);
// `float16` is the configuration of the float16 products (split_products_config). plan_n (rounded
// up to 8) and plan_batch of `problem` choose their plans as they do for any product. k must be
// nonzero.
SplitPlan split_plan(const Shape& s, const GemmProblem& problem, const Config& float16);
// "gemm.f32split." and the variant name of the first float16 product (A_hi B_hi over the first
// range) without "gemm.".
std::string split_variant_name(const SplitPlan& p);
// Throws UnsupportedError when a scratch part is larger than the device's
// max_storage_buffer_range or passes 32-bit indices, or a pass's grid exceeds the device's limits.
void check_split(const SplitPlan& p, const ComputeCapabilities& caps);

// The passes before the float16 product: the exponents of op(A)'s rows and op(B)'s columns and the
// split of each, reading the caller's operands through `bound` (float32 elements).
struct SplitPasses {
  GemmSplitPush clear{}, exponents_a{}, exponents_b{}, split_a{}, split_b{};
  Grid exponents_a_grid, exponents_b_grid;
  uint64_t clear_workgroups = 0, split_a_workgroups = 0, split_b_workgroups = 0;
};
SplitPasses split_passes(const Shape& s, const SplitPlan& p, const Bindings& bound);
// The epilogue pass and its workgroups (one invocation per element of C).
GemmSplitEpiloguePush split_epilogue(const Shape& s, const SplitPlan& p, const Bindings& bound,
                                     const Epilogue& epilogue);
uint64_t split_epilogue_workgroups(const Shape& s);

// Throws UnsupportedError("max_workgroup_count") when the plan's grid exceeds the device's.
void check_grid(const Plan& p, const ComputeCapabilities& caps);

// The push constants of every pass (the split-k first pass sets OG_GEMM_SPLIT and drops the
// epilogue itself).
GemmPush push_constants(const Shape& s, const Plan& p, const Bindings& bound, const Epilogue& epilogue);

}  // namespace onegpu::kernels::gemm
