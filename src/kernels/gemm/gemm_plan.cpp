#include "kernels/gemm/gemm_plan.h"

#include <algorithm>

#include "onegpu/errors.h"

namespace onegpu::kernels::gemm {
namespace {

[[noreturn]] void shape_error(const char* argument, const std::string& detail) {
  throw KernelShapeError("Gemm", argument, detail);
}

std::string s(uint64_t v) { return std::to_string(v); }

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// rows * ld + cols elements of one stored matrix, without overflow (sizes are checked below 2^40).
uint64_t matrix_span(uint64_t rows, uint64_t cols, uint64_t ld) { return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols; }

Extent operand(uint64_t offset, uint64_t batch, uint64_t stride, uint64_t rows, uint64_t cols, uint64_t ld) {
  uint64_t span = matrix_span(rows, cols, ld);
  if (span == 0 || batch == 0) return {offset, offset};
  return {offset, offset + (batch - 1) * stride + span};
}

}  // namespace

Shape resolve(const GemmProblem& p) {
  constexpr uint64_t kMaxDim = 1ull << 31;  // every index is 32-bit
  if (p.m >= kMaxDim) shape_error("m", s(p.m) + " is not below 2^31");
  if (p.n >= kMaxDim) shape_error("n", s(p.n) + " is not below 2^31");
  if (p.k >= kMaxDim) shape_error("k", s(p.k) + " is not below 2^31");
  if (p.batch >= kMaxDim) shape_error("batch", s(p.batch) + " is not below 2^31");
  Shape r{};
  r.m = p.m; r.n = p.n; r.k = p.k; r.batch = p.batch;
  r.trans_a = p.transpose_a; r.trans_b = p.transpose_b;
  // Stored shapes: A is M x K (K x M transposed), B is K x N (N x K transposed), C is M x N.
  const uint64_t a_cols = p.transpose_a ? p.m : p.k, a_rows = p.transpose_a ? p.k : p.m;
  const uint64_t b_cols = p.transpose_b ? p.k : p.n, b_rows = p.transpose_b ? p.n : p.k;
  r.lda = p.lda.value_or(std::max<uint64_t>(a_cols, 1));
  r.ldb = p.ldb.value_or(std::max<uint64_t>(b_cols, 1));
  r.ldc = p.ldc.value_or(std::max<uint64_t>(p.n, 1));
  const char* a_name = p.transpose_a ? "M" : "K";
  const char* b_name = p.transpose_b ? "K" : "N";
  if (r.lda < a_cols || r.lda == 0) shape_error("lda", s(r.lda) + " is less than " + a_name + " = " + s(a_cols));
  if (r.ldb < b_cols || r.ldb == 0) shape_error("ldb", s(r.ldb) + " is less than " + b_name + " = " + s(b_cols));
  if (r.ldc < p.n || r.ldc == 0) shape_error("ldc", s(r.ldc) + " is less than N = " + s(p.n));
  if (r.lda >= kMaxDim || r.ldb >= kMaxDim || r.ldc >= kMaxDim)
    shape_error("lda", "leading dimensions must be below 2^31");
  r.offset_a = p.offset_a; r.offset_b = p.offset_b; r.offset_c = p.offset_c;
  r.stride_a = p.stride_a.value_or(matrix_span(a_rows, a_cols, r.lda));
  r.stride_b = p.stride_b.value_or(matrix_span(b_rows, b_cols, r.ldb));
  r.stride_c = p.stride_c.value_or(matrix_span(p.m, p.n, r.ldc));
  if (r.stride_a >= (1ull << 40) || r.stride_b >= (1ull << 40) || r.stride_c >= (1ull << 40) ||
      r.offset_a >= (1ull << 40) || r.offset_b >= (1ull << 40) || r.offset_c >= (1ull << 40))
    shape_error("offset", "offsets and strides must be below 2^40 elements");
  if (p.batch > 1 && r.stride_c < matrix_span(p.m, p.n, r.ldc))
    shape_error("stride_c", s(r.stride_c) + " is less than one output matrix (" + s(matrix_span(p.m, p.n, r.ldc)) +
                                " elements): the outputs would overlap");
  return r;
}

Extent extent_a(const Shape& x) {
  return operand(x.offset_a, x.batch, x.stride_a, x.trans_a ? x.k : x.m, x.trans_a ? x.m : x.k, x.lda);
}
Extent extent_b(const Shape& x) {
  return operand(x.offset_b, x.batch, x.stride_b, x.trans_b ? x.n : x.k, x.trans_b ? x.k : x.n, x.ldb);
}
Extent extent_c(const Shape& x) { return operand(x.offset_c, x.batch, x.stride_c, x.m, x.n, x.ldc); }

BoundRange bound_range(const Extent& e, uint64_t element_bytes, uint64_t align, uint64_t buffer_bytes) {
  BoundRange r;
  const uint64_t first = e.first * element_bytes;
  const uint64_t end = std::max(e.end, e.first + 1) * element_bytes;  // bind at least one element
  r.offset_bytes = first / align * align;
  r.size_bytes = std::min((end + 3) / 4 * 4, buffer_bytes) - r.offset_bytes;
  r.base_elements = r.offset_bytes / element_bytes;
  return r;
}

namespace {

// Every four-element read of the 128 x 128 kernel lies wholly inside or outside its operand.
bool vec4_operands(const Shape& x) {
  const uint64_t a_contiguous = x.trans_a ? x.m : x.k, b_contiguous = x.trans_b ? x.k : x.n;
  const bool batch_ok = x.batch == 1 || (x.stride_a % 4 == 0 && x.stride_b % 4 == 0);
  return a_contiguous % 4 == 0 && b_contiguous % 4 == 0 && x.lda % 4 == 0 && x.ldb % 4 == 0 &&
         x.offset_a % 4 == 0 && x.offset_b % 4 == 0 && batch_ok;
}

// Cuts k into ranges (multiples of 32 terms, at least `min_terms` each) aiming at `target`
// workgroups, with fewer ranges when the planes would not fit the scratch buffer.
void split_k(Plan& p, const Shape& x, uint64_t tiles, uint64_t target, uint64_t min_terms) {
  uint64_t splits = std::min<uint64_t>({16, ceil_div(target, tiles), x.k / min_terms});
  const uint64_t plane = x.m * x.n * x.batch;
  splits = std::min<uint64_t>(splits, kSplitScratchFloats / std::max<uint64_t>(plane, 1));
  if (splits < 2) return;
  const uint64_t chunk = ceil_div(ceil_div(x.k, splits), 32) * 32;
  p.k_chunk = uint32_t(chunk);
  p.splits = uint32_t(ceil_div(x.k, chunk));
  p.reduce_elements = plane;
}

}  // namespace

// Every eight-half read of the cooperative-matrix kernel lies wholly inside or outside its operand.
bool vec8_operands(const Shape& x) {
  const uint64_t a_contiguous = x.trans_a ? x.m : x.k, b_contiguous = x.trans_b ? x.k : x.n;
  const bool batch_ok = x.batch == 1 || (x.stride_a % 8 == 0 && x.stride_b % 8 == 0);
  return a_contiguous % 8 == 0 && b_contiguous % 8 == 0 && x.lda % 8 == 0 && x.ldb % 8 == 0 &&
         x.offset_a % 8 == 0 && x.offset_b % 8 == 0 && batch_ok;
}

Plan plan(const Shape& x, GemmElementType type, KernelMode mode, std::optional<uint32_t> coop) {
  Plan p;
  p.type = type;
  // Few rows: stream B once (A not transposed; float32 B four at a time where aligned), for every
  // type and before the matrix-hardware kernel, which would pay for whole 128-row tiles.
  if (x.m <= 4 && !x.trans_a) {
    if (x.trans_b) {
      const bool vec4 = type == GemmElementType::float32 && x.k % 4 == 0 && x.lda % 4 == 0 && x.ldb % 4 == 0 &&
                        x.offset_a % 4 == 0 && x.offset_b % 4 == 0 &&
                        (x.batch == 1 || (x.stride_a % 4 == 0 && x.stride_b % 4 == 0));
      p.kernel = vec4 ? Kernel::rows_nk_vec4 : Kernel::rows_nk;
      p.grid = {uint32_t(ceil_div(x.n, 8)), uint32_t(x.batch), 1};
    } else {
      const uint32_t cols = x.n >= 8192 ? 32 : 16;
      p.kernel = cols == 32 ? Kernel::rows_kn32 : Kernel::rows_kn16;
      p.grid = {uint32_t(ceil_div(x.n, cols)), uint32_t(x.batch), 1};
    }
    return p;
  }
  if (coop && *coop < kCoopTileCount && type == GemmElementType::float16 && mode == KernelMode::fast &&
      vec8_operands(x)) {
    uint32_t index = *coop;
    if (x.trans_b && kCoopTiles[index].transposed_b != kNoTile) index = kCoopTiles[index].transposed_b;
    const CoopTile& t = kCoopTiles[index];
    if (t.small_grid != kNoTile && ceil_div(x.m, t.bm) * ceil_div(x.n, t.bn) * x.batch < kSmallGrid) index = t.small_grid;
    p.kernel = Kernel::coop_f16;
    p.coop_index = index;
    p.coop = kCoopTiles[index];
    p.k_chunk = uint32_t(std::max<uint64_t>(x.k, 1));
    p.grid = {uint32_t(ceil_div(x.n, p.coop.bn)), uint32_t(ceil_div(x.m, p.coop.bm)), uint32_t(x.batch)};
    return p;
  }
  p.k_chunk = uint32_t(std::max<uint64_t>(x.k, 1));
  // Large products in fast mode: the 128 x 128 tile, split along k for small grids.
  if (mode == KernelMode::fast && x.m >= 256 && x.n >= 256 && vec4_operands(x)) {
    const uint64_t tiles = ceil_div(x.m, 128) * ceil_div(x.n, 128) * x.batch;
    p.kernel = Kernel::tile128;
    if (tiles < 256 && x.k >= 512) split_k(p, x, tiles, 256, 256);
    p.grid = {uint32_t(ceil_div(x.n, 128)), uint32_t(ceil_div(x.m, 128)), uint32_t(x.batch * p.splits)};
    return p;
  }
  const uint64_t tiles = ceil_div(x.m, 64) * ceil_div(x.n, 64) * x.batch;
  p.kernel = Kernel::tile;
  if (tiles < 384 && x.k >= 128) split_k(p, x, tiles, 384, 64);
  p.grid = {uint32_t(ceil_div(x.n, 64)), uint32_t(ceil_div(x.m, 64)), uint32_t(x.batch * p.splits)};
  return p;
}

namespace {

bool subgroup_scope_ok(const ComputeCapabilities& caps) {
  for (const auto& s : caps.cooperative_matrix_shapes)
    if (s.m == 16 && s.n == 16 && s.k == 16 && s.a == ScalarType::float16 && s.b == ScalarType::float16 &&
        s.c == ScalarType::float32 && s.result == ScalarType::float32)
      return true;
  return false;
}

bool workgroup_scope_ok(const ComputeCapabilities& caps, const CoopTile& t) {
  const uint32_t invocations = 32 * t.subgroups;
  if (!caps.features.has(ShaderFeature::cooperative_matrix2) || caps.cooperative_matrix_workgroup_max_invocations < invocations)
    return false;
  for (const auto& s : caps.cooperative_matrix_workgroup_shapes)
    if (s.a == ScalarType::float16 && s.b == ScalarType::float16 && s.c == ScalarType::float32 &&
        s.result == ScalarType::float32 && s.workgroup_invocations == invocations && s.m_granularity > 0 &&
        s.n_granularity > 0 && s.k_granularity > 0 && t.bm % s.m_granularity == 0 && t.bn % s.n_granularity == 0 &&
        t.bk % s.k_granularity == 0)
      return true;
  return false;
}

}  // namespace

std::vector<uint32_t> coop_candidates(const ComputeCapabilities& caps, bool subgroup_scope_built,
                                      bool workgroup_scope_built, std::optional<uint32_t> forced) {
  auto usable = [&](uint32_t i) {
    if (i >= kCoopTileCount) return false;
    return kCoopTiles[i].workgroup_scope ? workgroup_scope_built && workgroup_scope_ok(caps, kCoopTiles[i])
                                         : subgroup_scope_built && subgroup_scope_ok(caps);
  };
  std::vector<uint32_t> out;
  if (forced) {
    if (usable(*forced)) out.push_back(*forced);
    return out;
  }
  if (usable(kDefaultWorkgroupScopeTile)) out.push_back(kDefaultWorkgroupScopeTile);
  if (usable(kDefaultSubgroupScopeTile)) out.push_back(kDefaultSubgroupScopeTile);
  return out;
}

std::string variant_name(const Plan& p) {
  switch (p.kernel) {
    case Kernel::tile:
      return p.splits > 1 ? "tiled-64x64x16-splitk" + std::to_string(p.splits) : "tiled-64x64x16";
    case Kernel::coop_f16:
      return std::string(p.coop.workgroup_scope ? "coopmat2-f16-" : "coopmat-f16-") + std::to_string(p.coop.bm) + "x" +
             std::to_string(p.coop.bn) + "x" + std::to_string(p.coop.bk) +
             (p.coop.workgroup_scope ? "" : "-" + std::to_string(p.coop.subgroups) + "sg") +
             (p.coop.buffers > 1 ? "-" + std::to_string(p.coop.buffers) + "buf" : "");
    case Kernel::tile128: {
      const std::string name = std::string("tiled-") +
                               (p.type == GemmElementType::float32   ? "f32"
                                : p.type == GemmElementType::float16 ? "f16"
                                                                     : "bf16") +
                               "-128x128x16";
      return p.splits > 1 ? name + "-splitk" + std::to_string(p.splits) : name;
    }
    case Kernel::rows_kn16: return "rows-kn-16";
    case Kernel::rows_kn32: return "rows-kn-32";
    case Kernel::rows_nk: return "rows-nk";
    case Kernel::rows_nk_vec4: return "rows-nk-vec4";
  }
  return "?";
}

}  // namespace onegpu::kernels::gemm
