#include "kernels/integer_gemm/integer_gemm_plan.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "integer_gemm_variants.h"
#include "kernels/common/matrix_hardware.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::integer_gemm {

static_assert(kVariants.push_constants_are("integer_gemm.portable", sizeof(IntegerGemmPush)));
static_assert(kVariants.push_constants_are("integer_gemm.dot4", sizeof(IntegerGemmPush)));
static_assert(kVariants.push_constants_are("integer_gemm.skinny", sizeof(IntegerGemmPush)));
static_assert(kVariants.push_constants_are("integer_gemm.requantize", sizeof(RequantizePush)));
static_assert(sizeof(IntegerGemmPush) <= 128 && sizeof(RequantizePush) <= 128);

namespace {

constexpr Variant kPortable64 = kVariants.at("integer_gemm.portable.64x64x16");
constexpr Variant kPortable32 = kVariants.at("integer_gemm.portable.32x32x16");
constexpr Variant kDot64 = kVariants.at("integer_gemm.dot4.64x64x32");
constexpr Variant kDot32 = kVariants.at("integer_gemm.dot4.32x32x32");
constexpr Variant kSkinny = kVariants.at("integer_gemm.skinny.16x32");
constexpr RowsKernel kRowsKernels[] = {{"integer_gemm.rows.16x64", 16, 64},
                                       {"integer_gemm.rows.32x32", 32, 32},
                                       {"integer_gemm.rows.16x32", 16, 32},
                                       {"integer_gemm.rows.16x16", 16, 16}};
constexpr Variant kRowsFinish = kVariants.at("integer_gemm.rows.finish");
constexpr bool rows_declared(const RowsKernel& k) {
  const Variant v = kVariants.at(k.name);
  return v.param("ROWS") == k.rows && v.param("CWORDS") * 4 == k.cols && (!v.built() || v.invocations() == 256);
}
static_assert(std::all_of(std::begin(kRowsKernels), std::end(kRowsKernels), rows_declared));
static_assert(kVariants.push_constants_are("integer_gemm.rows", sizeof(IntegerGemmPush)));
static_assert(!kRowsFinish.built() || kRowsFinish.invocations() == 256);
constexpr Variant kCoopmat = kVariants.at("integer_gemm.coopmat.64x64x32");
static_assert(!kCoopmat.built() || kCoopmat.invocations() == 128, "four subgroups of 32");
constexpr Variant kRequantize = kVariants.at("integer_gemm.requantize");
constexpr Variant kSums = kVariants.at("integer_gemm.sums");
static_assert(kVariants.push_constants_are("integer_gemm.sums", sizeof(IntegerGemmPush)));

constexpr Coop2Tile kCoop2Tiles[] = {{"integer_gemm.coopmat2.256x128x64", 256, 128, 64, 256},
                                     {"integer_gemm.coopmat2.128x256x64", 128, 256, 64, 256}};
constexpr std::string_view kOrients[] = {".a_mk.b_kn", ".a_mk.b_nk", ".a_km.b_kn", ".a_km.b_nk"};

// Every tile is declared with the parameters its name says.
constexpr bool coop2_declared(const Coop2Tile& t) {
  const char* mixes[] = {".ss.direct", ".ss", ".us", ".su", ".uu"};
  for (std::string_view o : kOrients)
    for (const char* mix : mixes) {
      char name[96] = {};
      size_t n = 0;
      for (char ch : t.name) name[n++] = ch;
      for (char ch : o) name[n++] = ch;
      for (const char* c = mix; *c; ++c) name[n++] = *c;
      const std::string_view full(name, n);
      if (!kVariants.has(full)) return false;
      const Variant v = kVariants.at(full);
      if (v.param("BM") != t.bm || v.param("BN") != t.bn || v.param("BK") != t.bk ||
          v.param("THREADS") != t.invocations || (v.built() && v.invocations() != t.invocations))
        return false;
    }
  return true;
}
static_assert(coop2_declared(kCoop2Tiles[0]) && coop2_declared(kCoop2Tiles[1]));

// The tile a variant's name says is the tile its parameters make.
constexpr bool tile_is(Variant v, int64_t bm, int64_t bn, int64_t bk, int64_t dot) {
  return v.param("TY") * v.param("TM") == bm && v.param("TX") * v.param("TN") == bn && v.param("BK") == bk &&
         v.param("DOT") == dot && v.param("TX") * v.param("TY") == 256 && (!v.built() || v.invocations() == 256);
}
static_assert(tile_is(kPortable64, 64, 64, 16, 0) && tile_is(kPortable32, 32, 32, 16, 0) &&
              tile_is(kDot64, 64, 64, 32, 1) && tile_is(kDot32, 32, 32, 32, 1));
static_assert(kSkinny.param("COLS") == 32);

[[noreturn]] void shape_error(const char* op, const char* argument, const std::string& detail) {
  throw KernelShapeError(op, argument, detail);
}
std::string s(uint64_t v) { return std::to_string(v); }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t matrix_span(uint64_t rows, uint64_t cols, uint64_t ld) { return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols; }

// Offsets, strides and leading dimensions stay below 2^40 and extents below 2^41: every later sum
// is exact in 64 bits.
constexpr uint64_t kMaxOffset = 1ull << 40;

void check_extent(const char* op, uint64_t batch, uint64_t stride, uint64_t span,
                  const char* stride_name) {
  if (span == 0 || batch == 0 || stride == 0) return;
  if (batch - 1 > (kMaxOffset - 1) / stride)
    shape_error(op, stride_name, s(batch) + " matrices " + s(stride) + " elements apart pass 2^40 elements");
}

Extent operand(uint64_t offset, uint64_t batch, uint64_t stride, uint64_t rows, uint64_t cols, uint64_t ld) {
  const uint64_t span = matrix_span(rows, cols, ld);
  if (span == 0 || batch == 0) return {offset, offset};
  return {offset, offset + (batch - 1) * stride + span};
}

bool eight_bit(DataType t) { return t == DataType::uint8 || t == DataType::int8; }

}  // namespace

const VariantTable& variants() { return kVariants; }

Shape resolve(const IntegerGemmProblem& p, const char* op) {
  for (DataType t : {p.a_type, p.b_type})
    if (!eight_bit(t))
      throw UnsupportedError(std::string(op) + " element type", "uint8 or int8", std::string(data_type_name(t)));
  constexpr uint64_t kMaxDim = 1ull << 31;
  if (p.m >= kMaxDim) shape_error(op, "m", s(p.m) + " is not below 2^31");
  if (p.n >= kMaxDim) shape_error(op, "n", s(p.n) + " is not below 2^31");
  if (p.k >= kMaxDim) shape_error(op, "k", s(p.k) + " is not below 2^31");
  if (p.batch >= kMaxDim) shape_error(op, "batch", s(p.batch) + " is not below 2^31");
  Shape r{};
  r.m = p.m, r.n = p.n, r.k = p.k, r.batch = p.batch;
  r.a_signed = p.a_type == DataType::int8, r.b_signed = p.b_type == DataType::int8;
  r.trans_a = p.transpose_a, r.trans_b = p.transpose_b;
  const uint64_t a_cols = p.transpose_a ? p.m : p.k, a_rows = p.transpose_a ? p.k : p.m;
  const uint64_t b_cols = p.transpose_b ? p.k : p.n, b_rows = p.transpose_b ? p.n : p.k;
  r.lda = p.lda.value_or(std::max<uint64_t>(a_cols, 1));
  r.ldb = p.ldb.value_or(std::max<uint64_t>(b_cols, 1));
  r.ldc = p.ldc.value_or(std::max<uint64_t>(p.n, 1));
  if (r.lda < a_cols || r.lda == 0)
    shape_error(op, "lda", s(r.lda) + " is less than " + (p.transpose_a ? "M" : "K") + " = " + s(a_cols));
  if (r.ldb < b_cols || r.ldb == 0)
    shape_error(op, "ldb", s(r.ldb) + " is less than " + (p.transpose_b ? "K" : "N") + " = " + s(b_cols));
  if (r.ldc < p.n || r.ldc == 0) shape_error(op, "ldc", s(r.ldc) + " is less than N = " + s(p.n));
  if (r.lda >= kMaxDim) shape_error(op, "lda", s(r.lda) + " is not below 2^31");
  if (r.ldb >= kMaxDim) shape_error(op, "ldb", s(r.ldb) + " is not below 2^31");
  if (r.ldc >= kMaxDim) shape_error(op, "ldc", s(r.ldc) + " is not below 2^31");
  r.offset_a = p.offset_a, r.offset_b = p.offset_b, r.offset_c = p.offset_c;
  const uint64_t span_a = matrix_span(a_rows, a_cols, r.lda), span_b = matrix_span(b_rows, b_cols, r.ldb);
  const uint64_t span_c = matrix_span(p.m, p.n, r.ldc);
  r.stride_a = p.stride_a.value_or(span_a);
  r.stride_b = p.stride_b.value_or(span_b);
  r.stride_c = p.stride_c.value_or(span_c);
  const std::pair<const char*, uint64_t> limited[] = {{"offset_a", r.offset_a}, {"offset_b", r.offset_b},
                                                      {"offset_c", r.offset_c}, {"stride_a", r.stride_a},
                                                      {"stride_b", r.stride_b}, {"stride_c", r.stride_c}};
  for (const auto& [name, v] : limited)
    if (v >= kMaxOffset) shape_error(op, name, s(v) + " is not below 2^40");
  check_extent(op, p.batch, r.stride_a, span_a, "stride_a");
  check_extent(op, p.batch, r.stride_b, span_b, "stride_b");
  check_extent(op, p.batch, r.stride_c, span_c, "stride_c");
  if (p.batch > 1 && r.stride_c < span_c)
    shape_error(op, "stride_c", s(r.stride_c) + " is less than one output matrix (" + s(span_c) +
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

Grid grid_of(Kernel kernel, const Shape& x, const Coop2Tile* coop2, const RowsKernel* rows, RowsSplit split) {
  auto dim = [](uint64_t v) { return uint32_t(std::min<uint64_t>(v, UINT32_MAX)); };
  if (kernel == Kernel::skinny) return {dim(ceil_div(x.n, 32)), dim(x.batch), 1};
  if (kernel == Kernel::rows)
    return {dim(ceil_div(x.n, rows->cols) * std::max<uint32_t>(split.splits, 1)), dim(ceil_div(x.m, rows->rows)), dim(x.batch)};
  if (kernel == Kernel::coopmat2) return {dim(ceil_div(x.n, coop2->bn)), dim(ceil_div(x.m, coop2->bm)), dim(x.batch)};
  const uint64_t tile = kernel == Kernel::dot32 || kernel == Kernel::portable32 ? 32 : 64;
  return {dim(ceil_div(x.n, tile)), dim(ceil_div(x.m, tile)), dim(x.batch)};
}

Plan plan(const Shape& x, const Config& config, const Extras& extras) {
  Plan p;
  const Coop2Tile* t = config.coop2;
  if (config.skinny && x.m <= kSkinnyRows) {
    p.kernel = Kernel::skinny;
    p.variant = kSkinny;
  } else if (config.skinny && config.rows && x.m <= kFewRows) {
    p.kernel = Kernel::rows;
    p.rows = config.rows;
    p.variant = kVariants.at(config.rows->name);
    p.split = rows_split(x, *config.rows, config.rows_splits);
  } else if (t && (!config.small_tiles || ceil_div(x.m, t->bm) * ceil_div(x.n, t->bn) * x.batch >= kCoop2MinTiles) &&
             (config.coop2_epilogue || (x.a_signed && x.b_signed && !extras.zero_points && !extras.epilogue))) {
    p.kernel = Kernel::coopmat2;
    p.tile = t;
    p.sums = !x.a_signed || !x.b_signed || extras.zero_points;
    const bool direct = !p.sums && !extras.epilogue;
    std::string name(t->name);
    name += kOrients[(x.trans_a ? 2 : 0) + (x.trans_b ? 1 : 0)];
    name += direct ? ".ss.direct" : std::string(".") + (x.a_signed ? "s" : "u") + (x.b_signed ? "s" : "u");
    p.variant = kVariants.at(name);
  } else if (config.coopmat) {
    p.kernel = Kernel::coopmat;
    p.variant = kCoopmat;
  } else {
    const bool small = config.small_tiles && ceil_div(x.m, 64) * ceil_div(x.n, 64) * x.batch < kSmallGridTiles;
    p.kernel = config.packed_dot ? (small ? Kernel::dot32 : Kernel::dot64) : (small ? Kernel::portable32 : Kernel::portable64);
    p.variant = config.packed_dot ? (small ? kDot32 : kDot64) : (small ? kPortable32 : kPortable64);
  }
  p.grid = grid_of(p.kernel, x, p.tile, p.rows, p.split);
  return p;
}

RowsSplit rows_split(const Shape& x, const RowsKernel& k, uint32_t forced) {
  const uint64_t groups = std::max<uint64_t>(ceil_div(x.n, k.cols) * ceil_div(x.m, k.rows) * x.batch, 1);
  uint64_t splits = forced != 0 ? forced : ceil_div(kRowsTargetGroups, groups);
  splits = std::min(splits, std::max<uint64_t>(x.k / (forced != 0 ? 4 : kRowsMinSliceK), 1));
  // The partial buffer: within its limit and indexed in 32 bits.
  const uint64_t outputs = std::max<uint64_t>(x.batch * x.m * x.n, 1);  // each factor below 2^31, m <= 64
  splits = std::min(splits, std::max<uint64_t>(std::min(kRowsMaxPartialBytes / 4, (uint64_t(1) << 31) - 1) / outputs, 1));
  if (splits <= 1 || x.k == 0) return {1, uint32_t(x.k)};
  const uint64_t split_k = ceil_div(ceil_div(x.k, splits), 4) * 4;
  return {uint32_t(ceil_div(x.k, split_k)), uint32_t(split_k)};
}

Variant requantize_variant() { return kRequantize; }
Variant sums_variant() { return kSums; }

Grid sums_grid(const Shape& x) {
  // Lines of 8 where k runs along memory, of 32 where it runs across lines (igemm_sums.comp).
  const uint64_t a_lines = x.trans_a ? 32 : 8, b_lines = x.trans_b ? 8 : 32;
  const uint64_t groups = ceil_div(x.m, a_lines) + ceil_div(x.n, b_lines);
  const uint64_t gx = std::min<uint64_t>(groups, 65535);
  return {uint32_t(gx), uint32_t(std::min<uint64_t>(ceil_div(groups, gx), UINT32_MAX)),
          uint32_t(std::min<uint64_t>(x.batch, UINT32_MAX))};
}

std::span<const Coop2Tile> coop2_tiles() { return kCoop2Tiles; }

const Coop2Tile* coop2_tile(std::string_view name) {
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string_view::npos) {
    const size_t i = std::strtoul(std::string(name).c_str(), nullptr, 10);
    return i < std::size(kCoop2Tiles) ? &kCoop2Tiles[i] : nullptr;
  }
  for (const Coop2Tile& t : kCoop2Tiles)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<const Coop2Tile*> coop2_candidates(const ComputeCapabilities& caps, const Coop2Tile* forced) {
  auto listed = [&](const Coop2Tile& t) {
    return has_workgroup_matrix_shape(caps, t.invocations, t.bm, t.bn, t.bk,
                                      {.input = DataType::int8, .accumulator = DataType::int32});
  };
  std::vector<const Coop2Tile*> out;
  if (forced) {
    if (listed(*forced)) out.push_back(forced);
    return out;
  }
  const Coop2Tile* first = coop2_tile(kDefaultCoop2Tile);
  if (listed(*first)) out.push_back(first);
  for (const Coop2Tile& t : kCoop2Tiles)
    if (&t != first && listed(t)) out.push_back(&t);
  return out;
}

uint64_t work(const Shape& s) {
  uint64_t w = 2;
  for (uint64_t f : {s.m, s.n, s.k, s.batch}) w = f != 0 && w > UINT64_MAX / f ? UINT64_MAX : w * f;
  return w;
}

std::vector<Piece> pieces(const Shape& s, uint64_t budget) {
  auto times = [](uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; };
  const uint64_t per_row = times(times(2, s.n), std::max<uint64_t>(s.k, 1));
  const uint64_t per_batch = times(per_row, s.m);
  if (budget == 0 || times(per_batch, s.batch) <= budget) return {{s, 0}};
  std::vector<Piece> out;
  if (s.batch > 1 && per_batch <= budget) {
    const uint64_t step = budget / per_batch;
    for (uint64_t b0 = 0; b0 < s.batch; b0 += step) {
      Shape p = s;
      p.batch = std::min(step, s.batch - b0);
      p.offset_a += b0 * s.stride_a, p.offset_b += b0 * s.stride_b, p.offset_c += b0 * s.stride_c;
      out.push_back({p, 0});
    }
    return out;
  }
  const uint64_t rows = std::max<uint64_t>(64, budget / per_row / 64 * 64);
  for (uint64_t b0 = 0; b0 < s.batch; ++b0)
    for (uint64_t r0 = 0; r0 < s.m; r0 += rows) {
      Shape p = s;
      p.batch = 1;
      p.m = std::min(rows, s.m - r0);
      p.offset_a += b0 * s.stride_a + r0 * (s.trans_a ? 1 : s.lda);
      p.offset_b += b0 * s.stride_b;
      p.offset_c += b0 * s.stride_c + r0 * s.ldc;
      out.push_back({p, r0});
    }
  return out;
}
Variant coopmat_variant() { return kCoopmat; }
Variant variant_of(const RowsKernel& k) { return kVariants.at(k.name); }
Variant rows_finish_variant() { return kRowsFinish; }
std::span<const RowsKernel> rows_kernels() { return kRowsKernels; }
const RowsKernel* rows_kernel(std::string_view name) {
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string_view::npos) {
    const size_t i = std::strtoul(std::string(name).c_str(), nullptr, 10);
    return i < std::size(kRowsKernels) ? &kRowsKernels[i] : nullptr;
  }
  for (const RowsKernel& k : kRowsKernels)
    if (k.name == name) return &k;
  return nullptr;
}

bool device_has_coopmat_shape(const ComputeCapabilities& caps) {
  return has_subgroup_matrix_shape(caps, 16, 16, 32, {.input = DataType::int8, .accumulator = DataType::int32});
}

void check_grid(const Grid& g, const ComputeCapabilities& caps, const char* op) {
  const uint32_t d[3] = {g.x, g.y, g.z};
  for (int i = 0; i < 3; ++i)
    if (d[i] > caps.max_workgroup_count[i])
      throw UnsupportedError("max_workgroup_count",
                             std::string(op) + " grid of " + s(g.x) + " x " + s(g.y) + " x " + s(g.z) + " workgroups",
                             s(caps.max_workgroup_count[0]) + " x " + s(caps.max_workgroup_count[1]) + " x " +
                                 s(caps.max_workgroup_count[2]));
}

BoundRange bound_range(const Extent& e, uint64_t element_bytes, uint64_t align, uint64_t buffer_bytes) {
  BoundRange r;
  const uint64_t first = e.first * element_bytes;
  const uint64_t end = std::max(e.end, e.first + 1) * element_bytes;
  r.offset_bytes = first / align * align;
  r.size_bytes = std::min((end + 3) / 4 * 4, buffer_bytes) - r.offset_bytes;
  r.base_elements = r.offset_bytes / element_bytes;
  return r;
}

}  // namespace onegpu::kernels::integer_gemm
