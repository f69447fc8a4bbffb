// 8-bit product decisions that need no GPU: resolving defaults, checking shapes and operands,
// choosing the kernel and its grid, the bound ranges and the push constants. Kernels are named by
// the family's variant table (src/kernels/integer_gemm/CMakeLists.txt); every row is present even
// where the compiler could not build it, so all of this is tested everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "integer_gemm/igemm_push.h"
#include "kernels/common/variant.h"
#include "onegpu/capabilities.h"
#include "onegpu/encoder.h"
#include "onegpu/kernels/integer_gemm.h"

namespace onegpu::kernels::integer_gemm {

const VariantTable& variants();

inline constexpr const char* kMatMulInteger = "MatMulInteger";
inline constexpr const char* kQLinearMatMul = "QLinearMatMul";

// The problem with every default filled in.
struct Shape {
  uint64_t m, n, k, batch;
  bool a_signed, b_signed, trans_a, trans_b;
  uint64_t lda, ldb, ldc;
  uint64_t offset_a, offset_b, offset_c;
  uint64_t stride_a, stride_b, stride_c;
};

// Checks the types (UnsupportedError, capability "<op> element type"), dimensions, leading
// dimensions, offsets and strides, and that each operand's extent stays below 2^40 elements in
// checked 64-bit arithmetic; throws KernelShapeError naming `operation` and the argument.
Shape resolve(const IntegerGemmProblem& p, const char* operation);

// Element range [first, end) of one operand (end == first when empty).
struct Extent {
  uint64_t first = 0, end = 0;
};
Extent extent_a(const Shape& s);
Extent extent_b(const Shape& s);
Extent extent_c(const Shape& s);

// Which kernel computes the sums.
enum class Kernel { portable64, portable32, dot64, dot32, skinny, rows, coopmat, coopmat2 };

// A workgroup-scope tile (VK_NV_cooperative_matrix2), built once per operand orientation and type
// mix: "integer_gemm.coopmat2.128x256x64" + ".a_mk.b_kn" + ".ss.direct" (or ".ss", ".us", ".su",
// ".uu").
struct Coop2Tile {
  std::string_view name;
  uint32_t bm, bn, bk, invocations;
};
std::span<const Coop2Tile> coop2_tiles();
// The tile of that name, or of that number in declaration order; nullptr when none.
const Coop2Tile* coop2_tile(std::string_view name);
// The default tile first, then the others the device lists (int8 x int8 -> int32 at workgroup scope
// for the tile's workgroup size and dimensions); `forced`: that one only, if listed.
std::vector<const Coop2Tile*> coop2_candidates(const ComputeCapabilities& caps, const Coop2Tile* forced);
inline constexpr std::string_view kDefaultCoop2Tile = "integer_gemm.coopmat2.256x128x64";  // fastest on the H200

// The packed-dot kernels for 16 < M <= 64: "integer_gemm.rows.<rows>x<columns>", each workgroup one
// block of rows and columns and one slice of k.
struct RowsKernel {
  std::string_view name;
  uint32_t rows, cols;
};
// How the rows kernel splits k: `splits` slices of `split_k` values (a multiple of 4; the last one
// may be shorter). With more than one slice the slices' sums go to a partial buffer of
// splits x batch x m x n int32 values and a second pass adds them.
struct RowsSplit {
  uint32_t splits = 1, split_k = 0;
};
// Workgroups below which the rows kernel splits k (on the H200, 2026-12-01, 32 x 4096 x 4096 on
// rows.16x64: 0.051 ms in 128 workgroups, 0.041 ms in 2 slices of 128; rows.16x32 0.042 ms in 256
// workgroups, 0.051 ms in 2 slices), the shortest slice and the largest partial buffer it makes.
inline constexpr uint64_t kRowsTargetGroups = 256;
inline constexpr uint64_t kRowsMinSliceK = 256;
inline constexpr uint64_t kRowsMaxPartialBytes = uint64_t(64) << 20;
// Enough slices for kRowsTargetGroups workgroups, none shorter than kRowsMinSliceK, within the
// partial buffer's limit; `forced` (nonzero) asks for that many instead (still within the limits
// of k and the partial buffer).
RowsSplit rows_split(const Shape& s, const RowsKernel& k, uint32_t forced = 0);
std::span<const RowsKernel> rows_kernels();
// The kernel of that name, or of that number in declaration order; nullptr when none.
const RowsKernel* rows_kernel(std::string_view name);
inline constexpr std::string_view kDefaultRowsKernel = "integer_gemm.rows.16x64";

// What an IntegerGemm fixes at construction.
struct Config {
  bool packed_dot = false;  // the device runs the packed-dot kernels and the options allow them
  const RowsKernel* rows = nullptr;  // the packed-dot rows kernel (16 < M <= 64) the device runs
  bool coopmat = false;     // the device runs the cooperative-matrix kernel and the options allow it
  const Coop2Tile* coop2 = nullptr;  // the workgroup-scope tile, where the device runs one
  bool coop2_epilogue = true;        // its epilogue forms too (else only the direct int8 x int8 store)
  bool small_tiles = true;
  bool skinny = true;
  uint32_t rows_splits = 0;          // the rows kernel's slices of k (0: rows_split decides)
};

// Tiles of 64 x 64 below which the 32 x 32 tiles serve (more workgroups for the device's cores).
inline constexpr uint64_t kSmallGridTiles = 32;
inline constexpr uint64_t kSkinnyRows = 16;
// Up to this many rows the packed-dot rows kernel reads the weights once (two row blocks of 32).
inline constexpr uint64_t kFewRows = 64;
// Workgroup-scope tiles below which the subgroup-scope or packed-dot tiles serve (too few
// workgroups for the device's cores).
inline constexpr uint64_t kCoop2MinTiles = 32;

struct Plan {
  Kernel kernel = Kernel::portable64;
  Variant variant = variants()[0];
  Grid grid;
  const Coop2Tile* tile = nullptr;  // Kernel::coopmat2
  const RowsKernel* rows = nullptr;  // Kernel::rows
  RowsSplit split;                   // Kernel::rows
  bool sums = false;                // the sums pass runs first (Kernel::coopmat2 with an epilogue)
};

// What the product needs besides its shape: the workgroup-scope tile stores its accumulator as it
// is only without any of these.
struct Extras {
  bool zero_points = false;  // a zero point not known to be 0 (a buffer or a nonzero value)
  bool epilogue = false;     // an int32 bias or the float-scaled form
};

// M <= 16: the skinny kernel; M <= 64 with the rows kernel configured: that; else the workgroup-scope tile where configured and the product covers
// at least kCoop2MinTiles of its tiles (or small tiles are not allowed); else the cooperative-matrix tile where configured, else the packed-dot or portable 64 x 64 tile, or its 32 x 32 form
// when fewer than 32 tiles of 64 x 64 cover the product.
Plan plan(const Shape& s, const Config& config, const Extras& extras = {});
// The grid of `kernel` over a shape (a piece of a product keeps the whole product's kernel).
Grid grid_of(Kernel kernel, const Shape& s, const Coop2Tile* tile = nullptr, const RowsKernel* rows = nullptr,
             RowsSplit split = {});
// The sums pass: its variant and grid (x * y workgroups cover the lines of both operands).
Variant sums_variant();
Grid sums_grid(const Shape& s);
Variant requantize_variant();
Variant coopmat_variant();
Variant variant_of(const RowsKernel& k);
// The rows kernel's second pass when it splits k.
Variant rows_finish_variant();
// Whether the device lists the cooperative-matrix kernel's shape: int8 x int8 -> int32, 16 x 16 x 32
// at subgroup scope.
bool device_has_coopmat_shape(const ComputeCapabilities& caps);

// Throws UnsupportedError("max_workgroup_count") when a grid exceeds the device's.
void check_grid(const Grid& g, const ComputeCapabilities& caps, const char* operation);

// The byte range bound for an operand (offset aligned down to `align`, a whole number of words) and
// the element offset of the binding's start.
struct BoundRange {
  uint64_t offset_bytes = 0, size_bytes = 0;
  uint64_t base_elements = 0;
};
BoundRange bound_range(const Extent& e, uint64_t element_bytes, uint64_t align, uint64_t buffer_bytes);

// Operations of a product (2 m n k batch), saturating.
uint64_t work(const Shape& s);

// A piece of a product over the submission budget: whole batch entries while one fits, else one
// batch entry at a time in bands of a multiple of 64 rows. `first_row` is the band's first row in
// op(A) (per-row zero points move with it).
struct Piece {
  Shape shape;
  uint64_t first_row = 0;
};
std::vector<Piece> pieces(const Shape& s, uint64_t budget);

// Requantize pass: words a row of n bytes can touch, and the pass's invocations.
inline uint64_t words_per_row(uint64_t n) { return (n + 3) / 4 + 1; }

}  // namespace onegpu::kernels::integer_gemm
