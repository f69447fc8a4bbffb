#include "kernels/gemm/gemm_plan.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "common/activation.h"
#include "gemm_variants.h"
#include "kernels/common/aliasing.h"
#include "kernels/common/matrix_hardware.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::gemm {

// ---- What the host assumes of the declared variants, checked against the table ----

// Every built variant declares the push constants the host sends it: the float32-split passes
// theirs, every other GemmPush.
constexpr bool push_constants_match() {
  for (size_t i = 0; i < kVariants.size(); ++i) {
    const Variant v = kVariants[i];
    if (!v.built()) continue;
    const uint32_t expected = v.name() == "gemm.f32split.epilogue"      ? sizeof(GemmSplitEpiloguePush)
                              : v.name().starts_with("gemm.f32split.") ? sizeof(GemmSplitPush)
                                                                       : sizeof(GemmPush);
    if (v.push_constant_size() != expected) return false;
  }
  return true;
}
static_assert(push_constants_match());
static_assert(sizeof(GemmPush) <= 128 && sizeof(GemmSplitPush) <= 128 && sizeof(GemmSplitEpiloguePush) <= 128,
              "within the push-constant space every Vulkan device has");

namespace {

constexpr bool is_coop(std::string_view name) { return name.starts_with("gemm.coopmat"); }
constexpr bool is_workgroup_scope(std::string_view name) { return name.starts_with("gemm.coopmat2."); }
constexpr std::string_view kBaseOrientation = ".a_mk.b_kn";
constexpr std::string_view kOrientations[4] = {".a_mk.b_kn", ".a_mk.b_nk", ".a_km.b_kn", ".a_km.b_nk"};

// Every matrix variant's name says its ORIENT; the subgroup-scope tiles split into whole 16 x 16
// accumulators; built ones have the workgroup size and memory the plan computes with.
constexpr bool coop_rows_consistent() {
  for (size_t i = 0; i < kVariants.size(); ++i) {
    const Variant v = kVariants[i];
    if (!is_coop(v.name())) continue;
    const int64_t elem = v.param("ELEM");
    if ((elem != 1 || v.name().find(".f16.") == std::string_view::npos) &&
        (elem != 2 || v.name().find(".bf16.") == std::string_view::npos))
      return false;
    const int64_t orient = v.param("ORIENT");
    if (orient < 0 || orient > 3 || v.name().find(kOrientations[orient]) == std::string_view::npos) return false;
    const int64_t bm = v.param("BM"), bn = v.param("BN"), bk = v.param("BK");
    if (bm <= 0 || bn <= 0 || bk <= 0 || bk % 16 != 0) return false;
    if (is_workgroup_scope(v.name())) {
      if (v.param("THREADS") <= 0 || v.param("THREADS") % 32 != 0) return false;
      if (v.built() && v.invocations() != v.param("THREADS")) return false;
    } else {
      const int64_t wm = v.param("WM"), wn = v.param("WN"), buffers = v.param("BUFFERS");
      if (wm <= 0 || wn <= 0 || bm % (16 * wm) != 0 || bn % (16 * wn) != 0 || buffers < 1 || buffers > 2) return false;
      if (v.built() && (v.invocations() != 32 * wm * wn ||
                        v.workgroup_memory_bytes() != coop_workgroup_bytes(bm, bn, bk, wm * wn, buffers)))
        return false;
    }
  }
  return true;
}
static_assert(coop_rows_consistent(), "the matrix variants' names, parameters and reflection agree");

// The tiles the selection names exist (as an a_mk.b_kn variant).
constexpr bool declares_tile(std::string_view tile) {
  for (size_t i = 0; i < kVariants.size(); ++i) {
    const std::string_view n = kVariants[i].name();
    if (n.size() == tile.size() + kBaseOrientation.size() && n.starts_with(tile) && n.ends_with(kBaseOrientation))
      return true;
  }
  return false;
}

// The selection policy: a tile's companions for small grids, for B stored N x K and for grids
// still small after the first (measured on the H200: tile 128 x 256 x 64 suits B stored N x K, 261
// against 238 TFLOP/s; two 128 x 128 workgroups fit an SM, so small grids keep more of it busy; the
// 64 x 128 x 64 tile unsplit beat 128 x 128 x 64, split or not, on every grid of fewer than 128 of
// the latter measured: see kCoopSplitGrid).
struct Companions {
  std::string_view tile, small_grid, transposed_b, unsplit_small_grid;
};
// bfloat16 tiles have the same companions as their float16 counterparts (same shapes; not measured
// apart).
constexpr Companions kCompanions[] = {
    {"gemm.coopmat.f16.128x256x32", "gemm.coopmat.f16.128x128x32", {}, {}},
    {"gemm.coopmat.f16.256x128x32", "gemm.coopmat.f16.128x128x32", {}, {}},
    {"gemm.coopmat2.f16.128x256x32", "gemm.coopmat2.f16.128x128x64", "gemm.coopmat2.f16.128x256x64", {}},
    {"gemm.coopmat2.f16.128x256x64", "gemm.coopmat2.f16.128x128x64", {}, {}},
    {"gemm.coopmat2.f16.128x128x64", {}, {}, "gemm.coopmat2.f16.64x128x64"},
    {"gemm.coopmat.bf16.128x256x32", "gemm.coopmat.bf16.128x128x32", {}, {}},
    {"gemm.coopmat.bf16.256x128x32", "gemm.coopmat.bf16.128x128x32", {}, {}},
    {"gemm.coopmat2.bf16.128x256x32", "gemm.coopmat2.bf16.128x128x64", "gemm.coopmat2.bf16.128x256x64", {}},
    {"gemm.coopmat2.bf16.128x256x64", "gemm.coopmat2.bf16.128x128x64", {}, {}},
    {"gemm.coopmat2.bf16.128x128x64", {}, {}, "gemm.coopmat2.bf16.64x128x64"},
};
// Tiles whose small grids the policy cuts along k only for a long k (kUnsplitTileSplitTerms).
constexpr std::string_view kUnsplitTiles[] = {"gemm.coopmat2.f16.64x128x64", "gemm.coopmat2.bf16.64x128x64"};
constexpr bool policy_names_declared() {
  if (!declares_tile(kDefaultWorkgroupScopeTile) || !declares_tile(kDefaultSubgroupScopeTile) ||
      !declares_tile("gemm.coopmat2.bf16.128x256x32") || !declares_tile("gemm.coopmat.bf16.128x256x32"))
    return false;
  for (const Companions& c : kCompanions)
    if (!declares_tile(c.tile) || (!c.small_grid.empty() && !declares_tile(c.small_grid)) ||
        (!c.transposed_b.empty() && !declares_tile(c.transposed_b)) ||
        (!c.unsplit_small_grid.empty() && !declares_tile(c.unsplit_small_grid)))
      return false;
  for (std::string_view t : kUnsplitTiles)
    if (!declares_tile(t)) return false;
  return true;
}
static_assert(policy_names_declared(), "every tile the selection names is declared");

// The portable kernels by element type (ELEM 0 float32, 1 float16, 2 bfloat16).
constexpr Variant kTile64[] = {kVariants.at("gemm.tile64.f32"), kVariants.at("gemm.tile64.f16"),
                               kVariants.at("gemm.tile64.bf16")};
constexpr Variant kTile128[] = {kVariants.at("gemm.tile128.f32"), kVariants.at("gemm.tile128.f16"),
                                kVariants.at("gemm.tile128.bf16")};
constexpr Variant kTile128Compact[] = {kVariants.at("gemm.tile128.f32.compact"),
                                       kVariants.at("gemm.tile128.f16.compact"),
                                       kVariants.at("gemm.tile128.bf16.compact")};
constexpr Variant kRowsKn16[] = {kVariants.at("gemm.rows.kn16.f32"), kVariants.at("gemm.rows.kn16.f16"),
                                 kVariants.at("gemm.rows.kn16.bf16")};
constexpr Variant kRowsKn32[] = {kVariants.at("gemm.rows.kn32.f32"), kVariants.at("gemm.rows.kn32.f16"),
                                 kVariants.at("gemm.rows.kn32.bf16")};
constexpr Variant kRowsNk[] = {kVariants.at("gemm.rows.nk.f32"), kVariants.at("gemm.rows.nk.f16"),
                               kVariants.at("gemm.rows.nk.bf16")};
constexpr Variant kRowsNkVec4 = kVariants.at("gemm.rows.nk.f32.vec4");
// 16-bit operands: B stored N x K read eight elements at a time (index 0 unused).
constexpr Variant kRowsNkVec8[] = {kVariants.at("gemm.rows.nk.f16.vec8"), kVariants.at("gemm.rows.nk.f16.vec8"),
                                   kVariants.at("gemm.rows.nk.bf16.vec8")};
// 16-bit operands: B stored K x N read in 16-byte words, 64 or 256 columns per workgroup (index 0
// unused).
constexpr Variant kRowsKn64Words[] = {kVariants.at("gemm.rows.kn64.f16.vec8"), kVariants.at("gemm.rows.kn64.f16.vec8"),
                                      kVariants.at("gemm.rows.kn64.bf16.vec8")};
constexpr Variant kRowsKn64WordsOne[] = {kVariants.at("gemm.rows.kn64.f16.vec8.one"),
                                         kVariants.at("gemm.rows.kn64.f16.vec8.one"),
                                         kVariants.at("gemm.rows.kn64.bf16.vec8.one")};
constexpr Variant kRowsKn256Words[] = {kVariants.at("gemm.rows.kn256.f16.vec8"),
                                       kVariants.at("gemm.rows.kn256.f16.vec8"),
                                       kVariants.at("gemm.rows.kn256.bf16.vec8")};
constexpr Variant kSplitkReduce = kVariants.at("gemm.splitk_reduce");
constexpr Variant kSplitkReduceVec4 = kVariants.at("gemm.splitk_reduce.vec4");

template <size_t N>
constexpr bool by_element_type(const Variant (&v)[N], int64_t cols = -1) {
  for (size_t i = 0; i < N; ++i)
    if (v[i].param("ELEM", 0) != int64_t(i) || v[i].param("COLS", -1) != cols || (v[i].built() && v[i].invocations() != 256))
      return false;
  return true;
}
static_assert(by_element_type(kTile64) && by_element_type(kTile128) && by_element_type(kTile128Compact) &&
                  by_element_type(kRowsNk) && by_element_type(kRowsKn16, 16) && by_element_type(kRowsKn32, 32),
              "the portable variants are 256 invocations of the element type their position says");
static_assert(kRowsNkVec4.param("VEC4") == 1 && kRowsNkVec4.param("ELEM") == 0);
constexpr bool sixteen_bit_rows() {
  for (size_t i = 1; i < 3; ++i) {
    if (kRowsNkVec8[i].param("VEC8") != 1 || kRowsNkVec8[i].param("ELEM") != int64_t(i)) return false;
    if (kRowsNkVec8[i].built() && kRowsNkVec8[i].invocations() != 256) return false;
  }
  return true;
}
static_assert(sixteen_bit_rows(), "the 16-bit few-rows variants are 256 invocations of the type their position says");
constexpr bool sixteen_bit_words(const Variant (&v)[3], int64_t cols) {
  for (size_t i = 1; i < 3; ++i) {
    if (v[i].param("COLS") != cols || v[i].param("ELEM") != int64_t(i)) return false;
    if (v[i].built() && v[i].invocations() != 256) return false;
  }
  return true;
}
static_assert(sixteen_bit_words(kRowsKn64Words, 64) && sixteen_bit_words(kRowsKn256Words, 256) &&
                  sixteen_bit_words(kRowsKn64WordsOne, 64),
              "the 16-byte-word few-rows variants have the columns and type their names say");

[[noreturn]] void shape_error(const char* argument, const std::string& detail) {
  throw KernelShapeError("Gemm", argument, detail);
}

std::string s(uint64_t v) { return std::to_string(v); }

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// rows * ld + cols elements of one stored matrix, without overflow (sizes are checked below 2^40).
uint64_t matrix_span(uint64_t rows, uint64_t cols, uint64_t ld) { return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols; }

// Elements an operand may reach: its bytes (4 per element at most) must fit 64 bits.
constexpr uint64_t kMaxExtent = 1ull << 62;

// Throws KernelShapeError unless offset + (batch - 1) * stride + span stays within kMaxExtent.
void check_extent(uint64_t batch, uint64_t offset, uint64_t stride, uint64_t span, const char* offset_name,
                  const char* stride_name) {
  if (span == 0 || batch == 0) return;
  const uint64_t steps = batch - 1;
  if (stride != 0 && steps > (kMaxExtent - offset) / stride)
    shape_error(stride_name, s(batch) + " matrices " + s(stride) + " elements apart from offset " + s(offset) +
                                 " pass 2^62 elements");
  const uint64_t last = offset + steps * stride;
  if (span > kMaxExtent - last)
    shape_error(batch > 1 ? stride_name : offset_name,
                "the last matrix ends at element " + s(last) + " + " + s(span) + ", past 2^62");
}

Extent operand(uint64_t offset, uint64_t batch, uint64_t stride, uint64_t rows, uint64_t cols, uint64_t ld) {
  uint64_t span = matrix_span(rows, cols, ld);
  if (span == 0 || batch == 0) return {offset, offset};
  return {offset, offset + (batch - 1) * stride + span};
}

uint32_t elem_index(DataType t) { return t == DataType::float16 ? 1 : t == DataType::bfloat16 ? 2 : 0; }
uint64_t element_bytes(DataType t) { return t == DataType::float32 ? 4 : 2; }

}  // namespace

const VariantTable& variants() { return kVariants; }

RowsKn parse_rows_kn(std::string_view value) {
  if (value == "old") return RowsKn::one_element;
  if (value == "kn64") return RowsKn::words64;
  if (value == "kn256") return RowsKn::words256;
  return RowsKn::automatic;
}

// ---- Shapes and operands ----

Shape resolve(const GemmProblem& p) {
  constexpr uint64_t kMaxDim = 1ull << 31;  // every index is 32-bit
  if (p.m >= kMaxDim) shape_error("m", s(p.m) + " is not below 2^31");
  if (p.n >= kMaxDim) shape_error("n", s(p.n) + " is not below 2^31");
  if (p.k >= kMaxDim) shape_error("k", s(p.k) + " is not below 2^31");
  if (p.batch >= kMaxDim) shape_error("batch", s(p.batch) + " is not below 2^31");
  Shape r{};
  r.m = p.m; r.n = p.n; r.k = p.k; r.batch = p.batch;
  r.trans_a = p.transpose_a; r.trans_b = p.transpose_b;
  r.alpha = p.alpha; r.beta = p.beta;
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
  // Each operand's last element: offset + (batch - 1) x stride + one matrix, checked, so that
  // every later extent, byte count and piece offset is exact.
  check_extent(p.batch, r.offset_a, r.stride_a, matrix_span(a_rows, a_cols, r.lda), "offset_a", "stride_a");
  check_extent(p.batch, r.offset_b, r.stride_b, matrix_span(b_rows, b_cols, r.ldb), "offset_b", "stride_b");
  check_extent(p.batch, r.offset_c, r.stride_c, matrix_span(p.m, p.n, r.ldc), "offset_c", "stride_c");
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

void check_operands(const Shape& x, DataType type, const OperandSizes& sizes, const UnaryFunction& activation) {
  auto fits = [](const char* name, const Extent& e, uint64_t bytes, uint64_t element_bytes) {
    if (e.end > e.first && e.end > bytes / element_bytes)
      shape_error(name, "needs elements up to " + s(e.end) + ", the buffer holds " + s(bytes / element_bytes));
  };
  fits("a", extent_a(x), sizes.a_bytes, element_bytes(type));
  fits("b", extent_b(x), sizes.b_bytes, element_bytes(type));
  fits("c", extent_c(x), sizes.c_bytes, 4);
  if (sizes.bias_elements) {
    const uint64_t held = *sizes.bias_elements;
    if (sizes.bias_offset > held || x.n > held - sizes.bias_offset)
      shape_error("bias", "needs " + s(x.n) + " elements from offset " + s(sizes.bias_offset) + ", the buffer holds " +
                              s(held));
    if (sizes.bias_offset > UINT32_MAX) shape_error("bias_offset", s(sizes.bias_offset) + " is not below 2^32");
  }
  if (uint32_t(activation.op) >= OG_UN_COUNT)
    shape_error("activation", "unknown unary function " + s(uint32_t(activation.op)));
  // C is written while A, B and the bias are read: no byte of them may share a word with it.
  auto bytes = [](const char* name, uint64_t buffer, const Extent& e, uint64_t element_bytes) {
    return tensor_bytes("Gemm", name, buffer, e.first, e.end - e.first, element_bytes);
  };
  const ByteRange c = bytes("c", sizes.c_buffer, extent_c(x), 4);
  check_disjoint("Gemm", "c", c, "a", bytes("a", sizes.a_buffer, extent_a(x), element_bytes(type)));
  check_disjoint("Gemm", "c", c, "b", bytes("b", sizes.b_buffer, extent_b(x), element_bytes(type)));
  if (sizes.bias_elements && x.m != 0 && x.batch != 0)
    check_disjoint("Gemm", "c", c, "bias",
                   tensor_bytes("Gemm", "bias", sizes.bias_buffer, sizes.bias_offset, x.n, 4));
}

BoundRange bound_range(const Extent& e, uint64_t element_bytes, uint64_t align, uint64_t buffer_bytes) {
  BoundRange r;
  const uint64_t first = e.first * element_bytes;
  const uint64_t end = std::max(e.end, e.first + 1) * element_bytes;  // bind at least one element
  r.offset_bytes = first / align * align;
  r.size_bytes = std::min((end + 3) / 4 * 4, buffer_bytes) - r.offset_bytes;
  r.base_elements = r.offset_bytes / element_bytes;
  return r;
}

Bindings bind_ranges(const Shape& x, DataType type, const OperandSizes& sizes, const ComputeCapabilities& caps) {
  const uint64_t align = std::max<uint64_t>(16, caps.min_storage_buffer_offset_alignment);
  auto range = [&](const char* name, const Extent& e, uint64_t buffer_bytes, uint64_t elem) {
    const BoundRange r = e.end > e.first ? bound_range(e, elem, align, buffer_bytes)
                                         : BoundRange{0, std::min<uint64_t>(buffer_bytes, 16), 0};
    if (r.size_bytes > caps.max_storage_buffer_range)
      throw UnsupportedError("max_storage_buffer_range", std::string("Gemm operand ") + name + " of " + s(r.size_bytes) + " bytes",
                             s(caps.max_storage_buffer_range));
    if (r.size_bytes / elem > UINT32_MAX)
      throw UnsupportedError("Gemm 32-bit indices", std::string("operand ") + name + " below 2^32 elements",
                             s(r.size_bytes / elem));
    return r;
  };
  return {range("a", extent_a(x), sizes.a_bytes, element_bytes(type)),
          range("b", extent_b(x), sizes.b_bytes, element_bytes(type)), range("c", extent_c(x), sizes.c_bytes, 4)};
}

// ---- Matrix-hardware tiles ----

namespace {

struct CoopTable {
  std::vector<CoopTile> tiles;
  CoopTable() {
    const VariantTable& table = kVariants;
    auto row_of = [&](std::string_view name) {
      for (size_t i = 0; i < table.size(); ++i)
        if (table[i].name() == name) return uint32_t(i);
      throw std::logic_error("Gemm: no variant " + std::string(name));
    };
    for (size_t i = 0; i < table.size(); ++i) {
      const Variant v = table[i];
      if (!is_coop(v.name()) || !v.name().ends_with(kBaseOrientation)) continue;
      CoopTile t;
      t.name = v.name().substr(0, v.name().size() - kBaseOrientation.size());
      t.bm = uint32_t(v.param("BM"));
      t.bn = uint32_t(v.param("BN"));
      t.bk = uint32_t(v.param("BK"));
      t.type = v.param("ELEM") == 2 ? DataType::bfloat16 : DataType::float16;
      t.workgroup_scope = is_workgroup_scope(v.name());
      t.subgroups = t.workgroup_scope ? uint32_t(v.param("THREADS") / 32) : uint32_t(v.param("WM") * v.param("WN"));
      t.invocations = 32 * t.subgroups;
      t.buffers = uint32_t(v.param("BUFFERS", 1));
      for (uint32_t o = 0; o < 4; ++o) {
        const std::string name = std::string(t.name) + std::string(kOrientations[o]);
        t.kernels[o] = row_of(name);
        t.kernels_unary[o] = t.workgroup_scope ? row_of(name + ".act") : t.kernels[o];
        t.kernels_split[o] = t.workgroup_scope ? row_of(name + ".splitk") : t.kernels[o];
      }
      tiles.push_back(t);
    }
    auto find = [&](std::string_view name) -> CoopTile* {
      for (CoopTile& t : tiles)
        if (t.name == name) return &t;
      return nullptr;
    };
    for (const Companions& c : kCompanions) {
      CoopTile* t = find(c.tile);
      t->small_grid = find(c.small_grid);
      t->transposed_b = find(c.transposed_b);
      t->unsplit_small_grid = find(c.unsplit_small_grid);
    }
    for (std::string_view name : kUnsplitTiles) find(name)->split_terms = kUnsplitTileSplitTerms;
  }
};

const CoopTable& coop_table() {
  static const CoopTable table;
  return table;
}

}  // namespace

bool device_has_tile(const ComputeCapabilities& caps, const CoopTile& t) {
  if (t.type == DataType::bfloat16 && !caps.features.has(ShaderFeature::bfloat16)) return false;
  const MatrixTypes types{.input = t.type, .accumulator = DataType::float32};
  return t.workgroup_scope ? has_workgroup_matrix_shape(caps, t.invocations, t.bm, t.bn, t.bk, types)
                           : has_subgroup_matrix_shape(caps, 16, 16, 16, types);
}

std::span<const CoopTile> coop_tiles() { return coop_table().tiles; }

const CoopTile* coop_tile(std::string_view name) {
  const auto& tiles = coop_table().tiles;
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string_view::npos) {
    const size_t i = std::strtoul(std::string(name).c_str(), nullptr, 10);
    return i < tiles.size() ? &tiles[i] : nullptr;
  }
  for (const CoopTile& t : tiles)
    if (t.name == name) return &t;
  return nullptr;
}

const CoopTile* unsplit_companion(const CoopTile& tile) {
  for (const CoopTile* t : {&tile, tile.transposed_b})
    for (const CoopTile* u : {t, t ? t->small_grid : nullptr})
      if (u && u->unsplit_small_grid) return u->unsplit_small_grid;
  return nullptr;
}

const CoopTile* coop_tile_of_type(const CoopTile& tile, DataType type) {
  if (tile.type == type) return &tile;
  if (type != DataType::float16 && type != DataType::bfloat16) return nullptr;
  // The element type is the name's third part: "gemm.coopmat2.f16.128x256x32".
  const std::string_view n = tile.name;
  const size_t first = n.find('.', n.find('.') + 1) + 1, end = n.find('.', first);
  return coop_tile(std::string(n.substr(0, first)) + (type == DataType::bfloat16 ? "bf16" : "f16") +
                   std::string(n.substr(end)));
}

std::vector<const CoopTile*> coop_candidates(const ComputeCapabilities& caps, DataType type, const CoopTile* forced) {
  std::vector<const CoopTile*> out;
  if (forced) {
    if (const CoopTile* t = coop_tile_of_type(*forced, type); t && device_has_tile(caps, *t)) out.push_back(t);
    return out;
  }
  for (std::string_view name : {kDefaultWorkgroupScopeTile, kDefaultSubgroupScopeTile})
    if (const CoopTile* t = coop_tile_of_type(*coop_tile(name), type); t && device_has_tile(caps, *t)) out.push_back(t);
  return out;
}

// ---- Variant, split and grid ----

namespace {

// Every four-element read of the 128 x 128 kernel lies wholly inside or outside its operand.
bool vec4_operands(const Shape& x) {
  const uint64_t a_contiguous = x.trans_a ? x.m : x.k, b_contiguous = x.trans_b ? x.k : x.n;
  const bool batch_ok = x.batch == 1 || (x.stride_a % 4 == 0 && x.stride_b % 4 == 0);
  return a_contiguous % 4 == 0 && b_contiguous % 4 == 0 && x.lda % 4 == 0 && x.ldb % 4 == 0 &&
         x.offset_a % 4 == 0 && x.offset_b % 4 == 0 && batch_ok;
}

// Every eight-half read of the cooperative-matrix kernels lies wholly inside or outside its operand.
bool vec8_operands(const Shape& x) {
  const uint64_t a_contiguous = x.trans_a ? x.m : x.k, b_contiguous = x.trans_b ? x.k : x.n;
  const bool batch_ok = x.batch == 1 || (x.stride_a % 8 == 0 && x.stride_b % 8 == 0);
  return a_contiguous % 8 == 0 && b_contiguous % 8 == 0 && x.lda % 8 == 0 && x.ldb % 8 == 0 &&
         x.offset_a % 8 == 0 && x.offset_b % 8 == 0 && batch_ok;
}

// Every eight-element read of the 16-bit few-rows kernel for B stored N x K is whole.
bool vec8_rows_nk(const Shape& x) {
  const bool batch_ok = x.batch == 1 || (x.stride_a % 8 == 0 && x.stride_b % 8 == 0);
  return x.k % 8 == 0 && x.lda % 8 == 0 && x.ldb % 8 == 0 && x.offset_a % 8 == 0 && x.offset_b % 8 == 0 && batch_ok;
}

// Few rows (A not transposed, B stored K x N) of 16-bit operands in 16-byte words: from
// kRowsWordsMinN columns, or where forced (at least 8 columns, so B holds a whole word).
bool rows_words(const Shape& x, const Config& config) {
  if (config.type == DataType::float32 || x.n < 8 || config.rows_kn == RowsKn::one_element) return false;
  return config.rows_kn != RowsKn::automatic || x.n >= kRowsWordsMinN;
}

// Cuts k into ranges (multiples of `align` terms, a multiple of 32, at least `min_terms` each)
// aiming at `target` workgroups, or into `forced` ranges, with fewer ranges when the planes would
// not fit the scratch buffer.
void split_k(Plan& p, const Shape& x, uint64_t tiles, uint64_t target, uint64_t min_terms, uint64_t align = 32,
             uint64_t forced = 0) {
  uint64_t splits = forced ? std::min<uint64_t>({16, forced, ceil_div(x.k, align)})
                           : std::min<uint64_t>({16, ceil_div(target, tiles), x.k / min_terms});
  const uint64_t plane = x.m * x.n * x.batch;
  splits = std::min<uint64_t>(splits, kSplitScratchFloats / std::max<uint64_t>(plane, 1));
  if (splits < 2) return;
  const uint64_t chunk = ceil_div(ceil_div(x.k, splits), align) * align;
  p.k_chunk = uint32_t(chunk);
  p.splits = uint32_t(ceil_div(x.k, chunk));
  p.reduce_elements = plane;
}

}  // namespace

Plan plan(const Shape& x, const Config& config, const UnaryFunction& activation) {
  Plan p;
  const uint32_t e = elem_index(config.type);
  // Few rows: stream B once (A not transposed; B stored N x K four or eight elements at a time
  // where aligned, 16-bit B stored K x N in 16-byte words), for every type and before the
  // matrix-hardware kernel, which would pay for whole 128-row tiles.
  if (x.m <= 4 && !x.trans_a) {
    if (x.trans_b) {
      const bool vec4 = config.type == DataType::float32 && x.k % 4 == 0 && x.lda % 4 == 0 && x.ldb % 4 == 0 &&
                        x.offset_a % 4 == 0 && x.offset_b % 4 == 0 &&
                        (x.batch == 1 || (x.stride_a % 4 == 0 && x.stride_b % 4 == 0));
      p.kernel = Kernel::rows_nk;
      p.variant = vec4 ? kRowsNkVec4 : e != 0 && vec8_rows_nk(x) ? kRowsNkVec8[e] : kRowsNk[e];
      p.tile_n = 8;
      p.grid = {uint32_t(ceil_div(x.n, 8)), uint32_t(x.batch), 1};
    } else if (rows_words(x, config)) {
      // 16-bit B stored K x N in 16-byte words, split along k for small grids.
      const uint64_t cols = config.rows_kn == RowsKn::words256 ? 256 : 64;
      p.kernel = Kernel::rows_kn;
      p.variant = cols == 256 ? kRowsKn256Words[e] : x.m == 1 ? kRowsKn64WordsOne[e] : kRowsKn64Words[e];
      p.tile_n = uint32_t(cols);
      p.k_chunk = uint32_t(std::max<uint64_t>(x.k, 1));
      const uint64_t tiles = ceil_div(x.n, cols) * x.batch;
      if (config.rows_kn_splits > 0)
        split_k(p, x, tiles, 0, 0, 32, config.rows_kn_splits);
      else if (tiles < kRowsSplitGrid && x.k >= 2 * kRowsSplitTerms)
        split_k(p, x, tiles, kRowsSplitGrid, kRowsSplitTerms);
      p.grid = {uint32_t(ceil_div(x.n, cols)), uint32_t(x.batch), p.splits};
    } else {
      const uint64_t cols = x.n >= 8192 ? 32 : 16;
      p.kernel = Kernel::rows_kn;
      p.variant = cols == 32 ? kRowsKn32[e] : kRowsKn16[e];
      p.tile_n = uint32_t(cols);
      p.grid = {uint32_t(ceil_div(x.n, cols)), uint32_t(x.batch), 1};
    }
    return p;
  }
  if (config.coop && config.coop->type == config.type && config.mode == KernelMode::fast && vec8_operands(x)) {
    const CoopTile* t = config.coop;
    auto grid = [&](const CoopTile* u) { return ceil_div(x.m, u->bm) * ceil_div(x.n, u->bn) * x.batch; };
    if (x.trans_b && t->transposed_b) t = t->transposed_b;
    if (t->small_grid && grid(t) < kSmallGrid) t = t->small_grid;
    if (t->unsplit_small_grid && grid(t) < config.unsplit_grid) t = t->unsplit_small_grid;
    p.kernel = Kernel::coop;
    p.coop = t;
    p.k_chunk = uint32_t(std::max<uint64_t>(x.k, 1));
    const uint64_t tiles = grid(t);
    const uint64_t align = std::max<uint64_t>(32, t->bk);
    if (config.coop_splits > 0)
      split_k(p, x, tiles, 0, 0, align, config.coop_splits);
    else if (tiles < kCoopSplitGrid && x.k >= 2 * t->split_terms)
      split_k(p, x, tiles, kCoopSplitTarget, t->split_terms, align);
    // With split k the second pass applies the unary function.
    p.variant = t->kernel((x.trans_a ? 2u : 0u) | (x.trans_b ? 1u : 0u), activation.op != UnaryOp::identity,
                          p.splits > 1);
    p.tile_n = uint32_t(t->bn);
    p.grid = {uint32_t(ceil_div(x.n, t->bn)), uint32_t(ceil_div(x.m, t->bm)), uint32_t(x.batch * p.splits)};
    return p;
  }
  p.k_chunk = uint32_t(std::max<uint64_t>(x.k, 1));
  // Large products in fast mode: the 128 x 128 tile, split along k for small grids.
  if (config.mode == KernelMode::fast && x.m >= 256 && x.n >= 256 && vec4_operands(x)) {
    const uint64_t tiles = ceil_div(x.m, 128) * ceil_div(x.n, 128) * x.batch;
    p.kernel = Kernel::tile128;
    p.variant = config.max_workgroup_memory >= kTile128[e].workgroup_memory_bytes() ? kTile128[e] : kTile128Compact[e];
    if (tiles < 256 && x.k >= 512) split_k(p, x, tiles, 256, 256);
    p.tile_n = 128;
    p.grid = {uint32_t(ceil_div(x.n, 128)), uint32_t(ceil_div(x.m, 128)), uint32_t(x.batch * p.splits)};
    return p;
  }
  const uint64_t tiles = ceil_div(x.m, 64) * ceil_div(x.n, 64) * x.batch;
  p.kernel = Kernel::tile64;
  p.variant = kTile64[e];
  if (tiles < 384 && x.k >= 128) split_k(p, x, tiles, 384, 64);
  p.grid = {uint32_t(ceil_div(x.n, 64)), uint32_t(ceil_div(x.m, 64)), uint32_t(x.batch * p.splits)};
  return p;
}

Variant splitk_reduce_variant(uint64_t n) { return n % 4 == 0 ? kSplitkReduceVec4 : kSplitkReduce; }

uint32_t splitk_reduce_workgroups(const Plan& p, uint64_t n) {
  return uint32_t(ceil_div(n % 4 == 0 ? p.reduce_elements / 4 : p.reduce_elements, 256));
}

Plan piece_plan(const Plan& whole, const Shape& x) {
  Plan p = whole;
  const uint32_t batch = uint32_t(x.batch);
  p.grid.x = uint32_t(ceil_div(x.n, p.tile_n));
  switch (p.kernel) {
    case Kernel::rows_kn:
    case Kernel::rows_nk: p.grid.y = batch; break;
    case Kernel::coop: p.grid.y = uint32_t(ceil_div(x.m, p.coop->bm)), p.grid.z = batch * p.splits; break;
    case Kernel::tile128: p.grid.y = uint32_t(ceil_div(x.m, 128)), p.grid.z = batch * p.splits; break;
    case Kernel::tile64: p.grid.y = uint32_t(ceil_div(x.m, 64)), p.grid.z = batch * p.splits; break;
  }
  if (p.splits > 1) p.reduce_elements = x.m * x.n * x.batch;
  return p;
}

Plan plan_for(const Shape& s, const GemmProblem& problem, const Config& config, const UnaryFunction& activation) {
  if (!problem.plan_n && !problem.plan_batch) return plan(s, config, activation);
  Shape whole = s;
  whole.n = problem.plan_n.value_or(s.n);
  whole.batch = problem.plan_batch.value_or(s.batch);
  if (whole.n < s.n || whole.n >= (1ull << 31)) shape_error("plan_n", "must lie in [n, 2^31)");
  if (whole.batch < s.batch || whole.batch >= (1ull << 31)) shape_error("plan_batch", "must lie in [batch, 2^31)");
  return piece_plan(plan(whole, config, activation), s);
}

std::vector<Shape> pieces(const Shape& s, uint64_t budget) {
  auto times = [](uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; };
  const uint64_t per_row = times(times(2, s.n), std::max<uint64_t>(s.k, 1));
  const uint64_t per_batch = times(per_row, s.m);
  if (budget == 0 || times(per_batch, s.batch) <= budget) return {s};
  std::vector<Shape> out;
  if (s.batch > 1 && per_batch <= budget) {
    const uint64_t step = budget / per_batch;
    for (uint64_t b0 = 0; b0 < s.batch; b0 += step) {
      Shape p = s;
      p.batch = std::min(step, s.batch - b0);
      p.offset_a += b0 * s.stride_a, p.offset_b += b0 * s.stride_b, p.offset_c += b0 * s.stride_c;
      out.push_back(p);
    }
    return out;
  }
  const uint64_t rows = std::max<uint64_t>(128, budget / per_row / 128 * 128);
  for (uint64_t b0 = 0; b0 < s.batch; ++b0)
    for (uint64_t r0 = 0; r0 < s.m; r0 += rows) {
      Shape p = s;
      p.batch = 1;
      p.m = std::min(rows, s.m - r0);
      p.offset_a += b0 * s.stride_a + r0 * (s.trans_a ? 1 : s.lda);
      p.offset_b += b0 * s.stride_b;
      p.offset_c += b0 * s.stride_c + r0 * s.ldc;
      out.push_back(p);
    }
  return out;
}

std::string variant_name(const Plan& p) {
  std::string name(p.variant.name());
  // The workgroup-scope matrix kernels' range variants are named "….splitk" already.
  if (p.splits > 1) name += (name.ends_with(".splitk") ? "" : ".splitk") + std::to_string(p.splits);
  return name;
}

void check_grid(const Plan& p, const ComputeCapabilities& caps) {
  const uint32_t g[3] = {p.grid.x, p.grid.y, p.grid.z};
  for (int i = 0; i < 3; ++i)
    if (g[i] > caps.max_workgroup_count[i])
      throw UnsupportedError("max_workgroup_count",
                             "Gemm grid of " + s(p.grid.x) + " x " + s(p.grid.y) + " x " + s(p.grid.z) + " workgroups",
                             s(caps.max_workgroup_count[0]) + " x " + s(caps.max_workgroup_count[1]) + " x " +
                                 s(caps.max_workgroup_count[2]));
}

// ---- Float32 products on float16 hardware ----

bool float32_split(DataType type, KernelMode mode, Float32Products requested, bool float16_matrix_hardware) {
  if (type != DataType::float32 || mode != KernelMode::fast) return false;
  return requested == Float32Products::split_float16 ||
         (requested == Float32Products::automatic && kFloat32SplitByDefault && float16_matrix_hardware);
}

SplitProductsTile split_products_tile(std::string_view value) {
  return value == "64x128"    ? SplitProductsTile::tile64x128
         : value == "128x128" ? SplitProductsTile::tile128x128
                              : SplitProductsTile::automatic;
}

Config split_products_config(const Config& float16, SplitProductsTile tile) {
  Config c = float16;
  if (c.unsplit_grid == 0) return c;  // the device lacks the 64 x 128 x 64 tile
  c.unsplit_grid = tile == SplitProductsTile::tile64x128    ? UINT64_MAX
                   : tile == SplitProductsTile::tile128x128 ? 0
                                                            : kSplitUnsplitGrid;
  return c;
}

SplitPlan split_plan(const Shape& x, const GemmProblem& problem, const Config& float16) {
  SplitPlan p;
  p.k = x.k, p.n = x.n;
  p.k_pad = ceil_div(x.k, 8) * 8;
  p.n_pad = ceil_div(x.n, 8) * 8;
  p.batch_a = x.batch > 1 && x.stride_a == 0 ? 1 : x.batch;
  p.batch_b = x.batch > 1 && x.stride_b == 0 ? 1 : x.batch;
  const uint64_t k3 = 3 * p.k_pad;
  const Shape base{.m = x.m, .n = p.n_pad, .k = 0, .batch = x.batch, .trans_a = false, .trans_b = false,
                   .lda = k3, .ldb = p.n_pad, .ldc = p.n_pad, .offset_a = 0, .offset_b = 0, .offset_c = 0,
                   .stride_a = p.batch_a == 1 ? 0 : x.m * k3, .stride_b = p.batch_b == 1 ? 0 : k3 * p.n_pad,
                   .stride_c = x.m * p.n_pad, .alpha = 1.0f, .beta = 0.0f};
  GemmProblem whole{};
  if (problem.plan_n) {
    if (*problem.plan_n < x.n || *problem.plan_n >= (1ull << 31)) shape_error("plan_n", "must lie in [n, 2^31)");
    whole.plan_n = ceil_div(*problem.plan_n, 8) * 8;
  }
  whole.plan_batch = problem.plan_batch;
  p.d_plane = x.batch * x.m * p.n_pad;
  p.k_range = std::max(kSplitRangeTerms, ceil_div(ceil_div(p.k_pad, 8), 8) * 8);
  // Plane i of D at i d_plane; the product's parts at their k offset in A' and row offset in B'.
  auto add = [&](uint64_t k_first, uint64_t terms) {
    Shape q = base;
    q.k = terms;
    q.offset_a = k_first;
    q.offset_b = k_first * p.n_pad;
    q.offset_c = p.products.size() * p.d_plane;
    p.products.push_back({q, plan_for(q, whole, float16, {})});
  };
  for (uint64_t k0 = 0; k0 < p.k_pad; k0 += p.k_range) add(k0, std::min(p.k_range, p.k_pad - k0));
  add(p.k_pad, 2 * p.k_pad);
  p.a_words = p.batch_a * x.m * k3 / 2;
  p.b_words = p.batch_b * k3 * p.n_pad / 2;
  p.d_words = p.products.size() * p.d_plane;
  p.exp_b = p.batch_a * x.m;
  p.exp_words = p.exp_b + p.batch_b * x.n;
  return p;
}

std::string split_variant_name(const SplitPlan& p) {
  std::string inner = variant_name(p.products.front().plan);
  if (inner.starts_with("gemm.")) inner = inner.substr(5);
  return "gemm.f32split." + inner;
}

namespace {

// The exponent pass over `lines` lines of k terms: 64 lines x 4 lanes of k per workgroup where
// lines are adjacent in memory, else 4 x 64; about 32 terms per invocation, at most 65535 ranges of
// k, and the groups of lines folded into rows of at most 65535 (z: batch x rows).
Grid exponent_grid(uint64_t lines, uint64_t k, uint64_t line_step, uint64_t batch, GemmSplitPush& push) {
  const uint64_t per_group = line_step == 1 ? 64 : 4, lanes = 256 / per_group;
  const uint64_t chunk = std::max<uint64_t>(lanes * 32, ceil_div(ceil_div(k, 65535), lanes) * lanes);
  const uint64_t groups = ceil_div(lines, per_group), width = std::min<uint64_t>(groups, 65535);
  const uint64_t rows = ceil_div(groups, width);
  push.k_chunk = uint32_t(chunk);
  push.group_rows = uint32_t(rows);
  return {uint32_t(width), uint32_t(ceil_div(k, chunk)), uint32_t(std::min<uint64_t>(batch * rows, UINT32_MAX))};
}

uint64_t workgroups(uint64_t items) { return ceil_div(items, 256); }

}  // namespace

void check_split(const SplitPlan& p, const ComputeCapabilities& caps) {
  const std::pair<const char*, uint64_t> parts[] = {
      {"A parts", p.a_words}, {"B parts", p.b_words}, {"products", p.d_words}, {"exponents", p.exp_words}};
  for (const auto& [name, words] : parts) {
    if (words * 4 > caps.max_storage_buffer_range)
      throw UnsupportedError("max_storage_buffer_range",
                             std::string("Gemm float32-split scratch (") + name + ") of " + s(words * 4) + " bytes",
                             s(caps.max_storage_buffer_range));
    if (words > UINT32_MAX)
      throw UnsupportedError("Gemm 32-bit indices", std::string("float32-split scratch (") + name + ") below 2^32 words",
                             s(words));
  }
  for (const SplitProduct& x : p.products) check_grid(x.plan, caps);
  GemmSplitPush unused{};
  const uint64_t m = p.products.front().shape.m;
  for (const Grid& g : {exponent_grid(m, p.k, 4, p.batch_a, unused), exponent_grid(m, p.k, 1, p.batch_a, unused),
                        exponent_grid(p.n, p.k, 4, p.batch_b, unused), exponent_grid(p.n, p.k, 1, p.batch_b, unused)})
    if (g.x > caps.max_workgroup_count[0] || g.y > caps.max_workgroup_count[1] || g.z > caps.max_workgroup_count[2])
      throw UnsupportedError("max_workgroup_count",
                             "Gemm float32-split exponent grid of " + s(g.x) + " x " + s(g.y) + " x " + s(g.z) +
                                 " workgroups",
                             s(caps.max_workgroup_count[0]) + " x " + s(caps.max_workgroup_count[1]) + " x " +
                                 s(caps.max_workgroup_count[2]));
}

SplitPasses split_passes(const Shape& x, const SplitPlan& p, const Bindings& bound) {
  SplitPasses r;
  r.clear.items = uint32_t(p.exp_words);
  r.clear_workgroups = workgroups(p.exp_words);
  // Rows of op(A): element (i, k) of A stored M x K at i lda + k, stored K x M at k lda + i.
  GemmSplitPush a{};
  a.lines = uint32_t(x.m);
  a.k = uint32_t(x.k);
  a.k_pad = uint32_t(p.k_pad);
  a.lines_pad = uint32_t(x.m);
  a.batch = uint32_t(p.batch_a);
  a.offset = uint32_t(x.offset_a - bound.a.base_elements);
  a.stride = p.batch_a > 1 ? uint32_t(x.stride_a) : 0;
  a.line_step = x.trans_a ? 1 : uint32_t(x.lda);
  a.k_step = x.trans_a ? uint32_t(x.lda) : 1;
  a.exp_offset = 0;
  // Columns of op(B): element (k, j) of B stored K x N at k ldb + j, stored N x K at j ldb + k.
  GemmSplitPush b{};
  b.lines = uint32_t(x.n);
  b.k = uint32_t(x.k);
  b.k_pad = uint32_t(p.k_pad);
  b.lines_pad = uint32_t(p.n_pad);
  b.batch = uint32_t(p.batch_b);
  b.offset = uint32_t(x.offset_b - bound.b.base_elements);
  b.stride = p.batch_b > 1 ? uint32_t(x.stride_b) : 0;
  b.line_step = x.trans_b ? uint32_t(x.ldb) : 1;
  b.k_step = x.trans_b ? 1 : uint32_t(x.ldb);
  b.exp_offset = uint32_t(p.exp_b);
  r.exponents_a = a, r.exponents_b = b;
  r.exponents_a_grid = exponent_grid(x.m, x.k, a.line_step, p.batch_a, r.exponents_a);
  r.exponents_b_grid = exponent_grid(x.n, x.k, b.line_step, p.batch_b, r.exponents_b);
  r.split_a = a, r.split_b = b;
  r.split_a.items = uint32_t(p.batch_a * x.m * p.k_pad / 2);
  r.split_b.items = uint32_t(p.batch_b * p.k_pad * p.n_pad / 2);
  r.split_a_workgroups = workgroups(r.split_a.items);
  r.split_b_workgroups = workgroups(r.split_b.items);
  return r;
}

GemmSplitEpiloguePush split_epilogue(const Shape& x, const SplitPlan& p, const Bindings& bound,
                                     const Epilogue& epilogue) {
  GemmSplitEpiloguePush e{};
  e.m = uint32_t(x.m);
  e.n = uint32_t(x.n);
  e.n_pad = uint32_t(p.n_pad);
  e.planes = uint32_t(p.products.size());
  e.plane_words = uint32_t(p.d_plane);
  e.batch = uint32_t(x.batch);
  e.ldc = uint32_t(x.ldc);
  e.offset_c = uint32_t(x.offset_c - bound.c.base_elements);
  e.stride_c = x.batch > 1 ? uint32_t(x.stride_c) : 0;
  e.offset_bias = epilogue.bias ? uint32_t(epilogue.bias_offset) : 0;
  e.flags = (x.beta != 0.0f ? OG_GEMM_READ_C : 0u) | (epilogue.bias ? OG_GEMM_BIAS : 0u) |
            ((uint32_t(epilogue.activation.op) & OG_GEMM_ACT_MASK) << OG_GEMM_ACT_SHIFT);
  e.exp_a = 0;
  e.exp_stride_a = p.batch_a > 1 ? uint32_t(x.m) : 0;
  e.exp_b = uint32_t(p.exp_b);
  e.exp_stride_b = p.batch_b > 1 ? uint32_t(x.n) : 0;
  e.alpha = x.alpha;
  e.beta = x.beta;
  e.act_alpha = epilogue.activation.params.alpha;
  e.act_beta = epilogue.activation.params.beta;
  return e;
}

uint64_t split_epilogue_workgroups(const Shape& x) { return workgroups(x.m * x.n * x.batch); }

// ---- Push constants ----

GemmPush push_constants(const Shape& x, const Plan& p, const Bindings& bound, const Epilogue& epilogue) {
  // Every value fits 32 bits: dimensions are below 2^31 (resolve), offsets and strides lie inside
  // a bound range of fewer than 2^32 elements (bind_ranges).
  GemmPush push{};
  push.m = uint32_t(x.m);
  push.n = uint32_t(x.n);
  push.k = uint32_t(x.k);
  push.batch = uint32_t(x.batch);
  push.lda = uint32_t(x.lda);
  push.ldb = uint32_t(x.ldb);
  push.ldc = uint32_t(x.ldc);
  push.offset_a = uint32_t(x.offset_a - bound.a.base_elements);
  push.offset_b = uint32_t(x.offset_b - bound.b.base_elements);
  push.offset_c = uint32_t(x.offset_c - bound.c.base_elements);
  push.stride_a = x.batch > 1 ? uint32_t(x.stride_a) : 0;
  push.stride_b = x.batch > 1 ? uint32_t(x.stride_b) : 0;
  push.stride_c = x.batch > 1 ? uint32_t(x.stride_c) : 0;
  push.offset_bias = epilogue.bias ? uint32_t(epilogue.bias_offset) : 0;
  push.splits = p.splits;
  push.k_chunk = p.k_chunk;
  push.alpha = x.alpha;
  push.beta = x.beta;
  push.act_alpha = epilogue.activation.params.alpha;
  push.act_beta = epilogue.activation.params.beta;
  push.flags = (x.trans_a ? OG_GEMM_TRANS_A : 0u) | (x.trans_b ? OG_GEMM_TRANS_B : 0u) |
               (x.beta != 0.0f ? OG_GEMM_READ_C : 0u) | (epilogue.bias ? OG_GEMM_BIAS : 0u) |
               ((uint32_t(epilogue.activation.op) & OG_GEMM_ACT_MASK) << OG_GEMM_ACT_SHIFT);
  return push;
}

static_assert(OG_UN_COUNT - 1 <= OG_GEMM_ACT_MASK, "every unary function code fits the push constants' flags");

}  // namespace onegpu::kernels::gemm
