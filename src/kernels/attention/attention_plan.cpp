// Attention: shape checks, kernel choice, key split, cut and push constants (no GPU).
#include "kernels/attention/attention_plan.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <cmath>
#include <limits>

#include "attention_variants.h"
#include "kernels/common/aliasing.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::attention {

static_assert(kVariants.push_constants_are("attention.rows.", sizeof(AttentionPush)));
static_assert(kVariants.push_constants_are("attention.pairs.", sizeof(AttentionPush)));
static_assert(kVariants.push_constants_are("attention.merge.", sizeof(AttentionMergePush)));
static_assert(kVariants.push_constants_are("attention.coopmat2.", sizeof(AttentionPush)));
static_assert(sizeof(AttentionPush) <= 128, "every Vulkan device offers 128 bytes of push constants");

const VariantTable& variants() { return kVariants; }

namespace {

constexpr const char* kOp = "Attention";

uint64_t mul(const char* arg, uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw KernelShapeError(kOp, arg, "an extent does not fit 64 bits");
  return r;
}
uint64_t add(const char* arg, uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw KernelShapeError(kOp, arg, "an extent does not fit 64 bits");
  return r;
}
uint64_t saturating_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

// Strides of size-1 dimensions become 0 (they are never multiplied by more than 0), and the extent
// offset + (batch-1) bs + (heads-1) hs + (rows-1) rs + width.
Layout layout_of(const char* arg, uint64_t offset, uint64_t bs, uint64_t hs, uint64_t rs, uint64_t batch,
                 uint64_t heads, uint64_t rows, uint64_t width) {
  Layout l{offset, batch > 1 ? bs : 0, heads > 1 ? hs : 0, rows > 1 ? rs : 0, offset};
  if (batch == 0 || heads == 0 || rows == 0 || width == 0) return l;
  uint64_t end = add(arg, offset, width);
  end = add(arg, end, mul(arg, batch - 1, l.batch));
  end = add(arg, end, mul(arg, heads - 1, l.head));
  l.end = add(arg, end, mul(arg, rows - 1, l.row));
  return l;
}

Layout resolve_layout(const char* arg, const std::optional<AttentionLayout>& given, uint64_t batch, uint64_t heads,
                      uint64_t rows, uint64_t head_dim) {
  AttentionLayout a = given.value_or(AttentionLayout{0, mul(arg, mul(arg, heads, rows), head_dim),
                                                     mul(arg, rows, head_dim), head_dim});
  return layout_of(arg, a.offset, a.batch_stride, a.head_stride, a.row_stride, batch, heads, rows, head_dim);
}

// The output's rows must not share an element: sorted by stride, each dimension's stride must
// step past everything the smaller ones reach.
void check_rows_disjoint(const Layout& l, uint64_t batch, uint64_t heads, uint64_t rows, uint64_t head_dim) {
  struct Dim {
    uint64_t stride, size;
  };
  Dim dims[3] = {{l.batch, batch}, {l.head, heads}, {l.row, rows}};
  std::sort(std::begin(dims), std::end(dims), [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  uint64_t reach = head_dim;
  for (const Dim& d : dims) {
    if (d.size <= 1) continue;
    if (d.stride < reach)
      throw KernelShapeError(kOp, "o",
                             "rows overlap: a stride of " + std::to_string(d.stride) + " is less than the " +
                                 std::to_string(reach) + " elements the smaller dimensions span");
    reach = mul("o", d.stride, d.size);
  }
}

void check_even(const char* arg, const Layout& l) {
  if (l.offset % 2 || l.batch % 2 || l.head % 2 || l.row % 2)
    throw KernelShapeError(kOp, arg, "16-bit tensors need an even offset and even strides (rows start on a 32-bit word)");
}

}  // namespace

uint64_t padded_head_dim(uint64_t head_dim) {
  for (uint64_t pd : {32u, 64u, 128u, 256u})
    if (head_dim <= pd) return pd;
  return 0;
}

Shape resolve(const AttentionProblem& p, DataType type, bool has_mask) {
  Shape s;
  s.batch = p.batch;
  s.heads = p.heads;
  s.kv_heads = p.kv_heads == 0 ? p.heads : p.kv_heads;
  s.query_length = p.query_length;
  s.key_length = p.key_length;
  s.head_dim = p.head_dim;
  if (p.head_dim < 1 || p.head_dim > kMaxHeadDim)
    throw KernelShapeError(kOp, "head_dim", std::to_string(p.head_dim) + " is outside 1 to 256");
  if (type != DataType::float32 && p.head_dim % 2)
    throw KernelShapeError(kOp, "head_dim", std::to_string(p.head_dim) + " is odd; 16-bit tensors need it even");
  if (p.heads == 0) throw KernelShapeError(kOp, "heads", "must be at least 1");
  if (s.heads % s.kv_heads)
    throw KernelShapeError(kOp, "kv_heads",
                           "heads = " + std::to_string(s.heads) + " is not a multiple of " + std::to_string(s.kv_heads));
  if (p.query_length >= kMaxLength)
    throw KernelShapeError(kOp, "query_length", std::to_string(p.query_length) + " is not below 2^30");
  if (p.key_length >= kMaxLength)
    throw KernelShapeError(kOp, "key_length", std::to_string(p.key_length) + " is not below 2^30");
  if (p.batch >= (1ull << 32)) throw KernelShapeError(kOp, "batch", std::to_string(p.batch) + " is not below 2^32");
  s.padded_dim = padded_head_dim(p.head_dim);
  s.scale = p.scale.value_or(float(1.0 / std::sqrt(double(p.head_dim))));
  s.causal = p.causal;
  if (p.causal) {
    const int64_t ql = int64_t(p.query_length), kl = int64_t(p.key_length);
    s.causal_offset = std::clamp<int64_t>(p.causal_offset.value_or(kl - ql), -ql, kl);
  }
  s.q = resolve_layout("q", p.q, s.batch, s.heads, s.query_length, s.head_dim);
  s.k = resolve_layout("k", p.k, s.batch, s.kv_heads, s.key_length, s.head_dim);
  s.v = resolve_layout("v", p.v, s.batch, s.kv_heads, s.key_length, s.head_dim);
  s.o = resolve_layout("o", p.o, s.batch, s.heads, s.query_length, s.head_dim);
  check_rows_disjoint(s.o, s.batch, s.heads, s.query_length, s.head_dim);
  if (type != DataType::float32) {
    check_even("q", s.q);
    check_even("k", s.k);
    check_even("v", s.v);
    check_even("o", s.o);
  }
  s.has_mask = has_mask;
  if (has_mask) {
    const AttentionMaskLayout m = p.mask.value_or(AttentionMaskLayout::broadcast(
        s.batch, s.heads, s.query_length, s.key_length));
    s.mask = layout_of("mask", m.offset, m.batch_stride, m.head_stride, m.row_stride, s.batch, s.heads,
                       s.query_length, s.key_length);
  }
  return s;
}

const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::rows: return "rows";
    case Kernel::pairs: return "pairs";
    case Kernel::cooperative: return "cooperative";
    case Kernel::keys: return "keys";
    case Kernel::cooperative2: return "cooperative2";
  }
  return "rows";
}

Kernel choose_kernel(const Choice& c) {
  const bool coop_type = c.type == DataType::float16 || c.type == DataType::bfloat16;
  switch (c.preference) {
    case AttentionVariant::rows: return Kernel::rows;
    case AttentionVariant::keys: return Kernel::keys;
    case AttentionVariant::pairs:
      if (!c.allow_subgroups)
        throw UnsupportedError("Attention pairs kernel", "allow_subgroups", "allow_subgroups is false");
      if (!c.has_shuffle) throw UnsupportedError("Attention pairs kernel", "subgroup shuffles", "none");
      return Kernel::pairs;
    case AttentionVariant::cooperative:
      if (!coop_type)
        throw UnsupportedError("Attention cooperative-matrix kernel", "float16 or bfloat16",
                               std::string(data_type_name(c.type)));
      if (!c.allow_matrix_hardware)
        throw UnsupportedError("Attention cooperative-matrix kernel", "allow_matrix_hardware", "false");
      if (!c.cooperative_available)
        throw UnsupportedError("Attention cooperative-matrix kernel", "a matrix kernel the device can run", "none");
      return Kernel::cooperative;
    case AttentionVariant::cooperative2:
      if (c.type != DataType::float16)
        throw UnsupportedError("Attention workgroup-matrix kernel", "float16", std::string(data_type_name(c.type)));
      if (!c.allow_matrix_hardware)
        throw UnsupportedError("Attention workgroup-matrix kernel", "allow_matrix_hardware", "false");
      if (!c.cooperative2_available)
        throw UnsupportedError("Attention workgroup-matrix kernel", "workgroup-scope float16 matrices", "none");
      return Kernel::cooperative2;
    case AttentionVariant::automatic: break;
  }
  if (c.type == DataType::float16 && c.allow_matrix_hardware && c.cooperative2_available) return Kernel::cooperative2;
  if (coop_type && c.allow_matrix_hardware && c.cooperative_available) return Kernel::cooperative;
  return Kernel::rows;
}

bool few_rows(const Shape& s) {
  const uint64_t limit = s.padded_dim == 256 ? kKeysRows / 2 : kKeysRows;  // the widest heads: 8 rows
  return s.kv_heads != 0 && s.heads / s.kv_heads * s.query_length <= limit;
}

bool cooperative_fits(const Shape& s) {
  if (s.head_dim > kCooperativeMaxDim || s.head_dim % 8) return false;
  for (const Layout* l : {&s.q, &s.k, &s.v})
    if (l->offset % 8 || l->batch % 8 || l->head % 8 || l->row % 8) return false;
  return true;
}

Split split_keys(const Shape& s) {
  Split none{1, s.key_length};
  // Workgroups without a split: query blocks, or (few rows) key/value heads of every batch entry.
  const uint64_t blocks = few_rows(s) ? saturating_mul(s.batch, s.kv_heads)
                                      : saturating_mul(saturating_mul(s.batch, s.heads),
                                                       (s.query_length + kSplitRows - 1) / kSplitRows);
  if (blocks == 0 || blocks >= kTargetWorkgroups) return none;
  const uint64_t wanted = std::min(kMaxSplits, (kTargetWorkgroups + blocks - 1) / blocks);
  if (wanted < 2) return none;
  uint64_t chunk = (s.key_length + wanted - 1) / wanted;
  chunk = std::max(kMinSplitKeys, (chunk + kKeyTile - 1) / kKeyTile * kKeyTile);
  const uint64_t splits = (s.key_length + chunk - 1) / chunk;
  if (splits < 2) return none;
  return {splits, chunk};
}

uint64_t scratch_floats(const Shape& s) {
  const Split sp = split_keys(s);
  if (sp.splits < 2) return 0;
  uint64_t n = mul("scratch", s.batch, s.heads);
  n = mul("scratch", n, s.query_length);
  n = mul("scratch", n, sp.splits);
  return mul("scratch", n, s.head_dim + OG_ATTN_PARTIAL_HEADER);
}

Plan plan(const Shape& s, DataType type, Kernel kernel, AttentionVariant preference) {
  Plan p;
  if (preference == AttentionVariant::automatic && few_rows(s)) kernel = Kernel::keys;
  if (kernel == Kernel::keys && !few_rows(s)) kernel = Kernel::rows;
  if ((kernel == Kernel::cooperative || kernel == Kernel::cooperative2) &&
      (type != DataType::float16 || !cooperative_fits(s)))
    kernel = Kernel::rows;
  // cooperative2 addresses the scratch in 16-bit words.
  if (kernel == Kernel::cooperative2 && split_keys(s).splits > 1 && scratch_floats(s) >= (1ull << 31))
    kernel = Kernel::rows;
  p.kernel = kernel;
  p.rows_per_workgroup = kernel == Kernel::pairs ? 32 : 64;
  if (kernel == Kernel::cooperative2) p.rows_per_workgroup = uint64_t(cooperative2_variant(s.padded_dim).param("BR"));
  p.split = split_keys(s);
  const uint64_t walk = p.split.chunk;
  p.blockwise = (kernel == Kernel::rows || kernel == Kernel::pairs) && s.padded_dim <= 64 && walk >= kBlockwiseKeys;
  if (kernel == Kernel::keys) {
    p.rows_per_workgroup = s.heads / s.kv_heads * s.query_length;
    p.workgroups = saturating_mul(saturating_mul(s.batch, s.kv_heads), p.split.splits);
  } else {
    const uint64_t blocks = (s.query_length + p.rows_per_workgroup - 1) / p.rows_per_workgroup;
    p.workgroups = saturating_mul(saturating_mul(saturating_mul(s.batch, s.heads), blocks), p.split.splits);
  }
  // 4 b h q k d operations, times 4 for the scalar kernels and 1.5 for the matrix kernel.
  uint64_t w = saturating_mul(saturating_mul(saturating_mul(s.batch, s.heads), s.query_length),
                              saturating_mul(s.key_length, s.head_dim));
  const bool matrix = kernel == Kernel::cooperative || kernel == Kernel::cooperative2;
  p.work = matrix ? saturating_mul(w, 6) : saturating_mul(w, 16);
  p.variant = kernel == Kernel::cooperative2 ? cooperative2_variant(s.padded_dim)
                                             : scalar_variant(type, kernel, s.padded_dim, p.blockwise);
  return p;
}

namespace {
int64_t elem_code(DataType type) { return type == DataType::float32 ? 0 : type == DataType::float16 ? 1 : 2; }
}  // namespace

Variant scalar_variant(DataType type, Kernel kernel, uint64_t padded_dim, bool blockwise) {
  const std::string_view prefix = kernel == Kernel::pairs         ? "attention.pairs."
                                  : kernel == Kernel::cooperative ? "attention.cooperative."
                                  : kernel == Kernel::keys        ? "attention.keys."
                                                                  : "attention.rows.";
  for (size_t i = 0; i < kVariants.size(); ++i) {
    const Variant v = kVariants[i];
    if (v.name().starts_with(prefix) && v.param("ELEM") == elem_code(type) && v.param("PD") == int64_t(padded_dim) &&
        v.param("BLOCKWISE") == int64_t(blockwise))
      return v;
  }
  throw UnsupportedError("Attention kernel", std::string(prefix) + " for this element type and head dimension",
                         "none declared");
}

Variant cooperative2_variant(uint64_t padded_dim) {
  // 64 x 64 with 128 invocations was the fastest tile on the H200 at head dimensions 64 and 128.
  const std::string name = "attention.coopmat2.f16.d" + std::to_string(padded_dim) + ".64x64.128t";
  for (size_t i = 0; i < kVariants.size(); ++i)
    if (kVariants[i].name() == name) return kVariants[i];
  throw UnsupportedError("Attention kernel", name, "none declared");
}

Variant merge_variant(DataType type) {
  for (size_t i = 0; i < kVariants.size(); ++i) {
    const Variant v = kVariants[i];
    if (v.name().starts_with("attention.merge.") && v.param("ELEM") == elem_code(type)) return v;
  }
  throw std::logic_error("attention: no merge variant");
}

std::string variant_name(const Plan& p) {
  std::string name(p.variant.name());
  return p.split.splits > 1 ? name + ".split" + std::to_string(p.split.splits) : name;
}

Cut cut(const Plan& p, uint64_t budget) {
  if (p.workgroups == 0) return {0, 0};
  const uint64_t per = std::max<uint64_t>(1, p.work / p.workgroups);
  if (budget == 0 || p.work <= budget) return {p.workgroups, per};
  return {std::max<uint64_t>(1, budget / per), per};
}

std::vector<Piece> pieces(const Plan& p, uint64_t budget) {
  if (p.workgroups == 0) return {};
  if (budget == 0 || p.work <= budget) return {{0, p.workgroups, p.work}};
  const Cut c = cut(p, budget);
  std::vector<Piece> out;
  for (uint64_t first = 0; first < p.workgroups; first += c.step) {
    const uint64_t count = std::min(c.step, p.workgroups - first);
    out.push_back({first, count, saturating_mul(count, c.work_per_workgroup)});
  }
  return out;
}

void check_buffers(const Shape& s, DataType type, const Plan& p, const Buffers& b) {
  const uint64_t esize = data_type_size(type);
  struct Operand {
    const char* name;
    const Layout* layout;
    BufferInfo info;
    uint64_t element_bytes;
  };
  std::array<Operand, 5> ops = {Operand{"q", &s.q, b.q, esize}, Operand{"k", &s.k, b.k, esize},
                                Operand{"v", &s.v, b.v, esize}, Operand{"o", &s.o, b.o, esize}};
  size_t n_ops = 4;
  if (s.has_mask && b.mask) ops[n_ops++] = {"mask", &s.mask, *b.mask, 4};
  for (size_t i = 0; i < n_ops; ++i) {
    const Operand& o = ops[i];
    const uint64_t need = mul(o.name, o.layout->end, o.element_bytes);
    if (need > o.info.bytes)
      throw KernelShapeError(kOp, o.name,
                             "needs elements up to " + std::to_string(o.layout->end) + ", the buffer holds " +
                                 std::to_string(o.info.bytes / o.element_bytes));
    if (o.layout->end >= (1ull << 32))
      throw UnsupportedError("32-bit element indices", std::string("Attention ") + o.name + " below 2^32 elements",
                             std::to_string(o.layout->end));
  }
  if (b.key_lengths && b.key_lengths->bytes / 4 < s.batch)
    throw KernelShapeError(kOp, "key_lengths",
                           "holds " + std::to_string(b.key_lengths->bytes / 4) + " entries, batch is " +
                               std::to_string(s.batch));
  const uint64_t scratch = p.split.splits > 1 ? scratch_floats(s) : 0;
  if (scratch >= (1ull << 32))
    throw UnsupportedError("32-bit element indices", "Attention scratch below 2^32 floats", std::to_string(scratch));
  if (scratch > 0 && b.scratch && b.scratch->bytes / 4 < scratch)
    throw KernelShapeError(kOp, "scratch",
                           "holds " + std::to_string(b.scratch->bytes / 4) + " floats, the problem needs " +
                               std::to_string(scratch));
  // Overlaps: the output (and the scratch, when used) against everything else.
  auto range = [&](const Operand& o) {
    return tensor_bytes(kOp, o.name, o.info.id, o.layout->offset, o.layout->end - o.layout->offset, o.element_bytes);
  };
  const ByteRange out = range(ops[3]);
  std::array<std::pair<const char*, ByteRange>, 5> inputs{};
  size_t n_inputs = 0;
  for (size_t i = 0; i < n_ops; ++i)
    if (i != 3) inputs[n_inputs++] = {ops[i].name, range(ops[i])};
  if (b.key_lengths) inputs[n_inputs++] = {"key_lengths", ByteRange{b.key_lengths->id, 0, b.key_lengths->bytes}};
  for (size_t i = 0; i < n_inputs; ++i) check_disjoint(kOp, "o", out, inputs[i].first, inputs[i].second);
  if (scratch > 0 && b.scratch) {
    const ByteRange sr{b.scratch->id, 0, scratch * 4};
    check_disjoint(kOp, "o", out, "scratch", sr);
    for (size_t i = 0; i < n_inputs; ++i) check_disjoint(kOp, "scratch", sr, inputs[i].first, inputs[i].second);
  }
}

AttentionPush push_constants(const Shape& s, const Plan& p, bool key_lengths, MaskedRows masked_rows) {
  AttentionPush q{};
  q.heads = uint32_t(s.heads);
  q.group = uint32_t(s.heads / s.kv_heads);
  q.query_length = uint32_t(s.query_length);
  q.key_length = uint32_t(s.key_length);
  q.head_dim = uint32_t(s.head_dim);
  q.flags = (s.has_mask ? OG_ATTN_MASK : 0u) | (key_lengths ? OG_ATTN_KEY_LENGTHS : 0u) |
            (s.causal ? OG_ATTN_CAUSAL : 0u) | (masked_rows == MaskedRows::zero ? OG_ATTN_ZERO_ROWS : 0u) |
            (p.split.splits > 1 ? OG_ATTN_SPLIT : 0u);
  q.causal_offset = uint32_t(int32_t(s.causal_offset));
  q.splits = uint32_t(p.split.splits);
  q.key_chunk = uint32_t(std::max<uint64_t>(p.split.chunk, 1));
  q.first_workgroup = 0;
  q.workgroup_count = uint32_t(p.workgroups);
  q.scale = s.scale;
  auto put = [](const Layout& l, OG_U32& o, OG_U32& b, OG_U32& h, OG_U32& r) {
    o = uint32_t(l.offset), b = uint32_t(l.batch), h = uint32_t(l.head), r = uint32_t(l.row);
  };
  put(s.q, q.q_offset, q.q_batch, q.q_head, q.q_row);
  put(s.k, q.k_offset, q.k_batch, q.k_head, q.k_row);
  put(s.v, q.v_offset, q.v_batch, q.v_head, q.v_row);
  put(s.o, q.o_offset, q.o_batch, q.o_head, q.o_row);
  if (s.has_mask) put(s.mask, q.mask_offset, q.mask_batch, q.mask_head, q.mask_row);
  return q;
}

AttentionMergePush merge_push_constants(const Shape& s, const Plan& p, DataType type, MaskedRows masked_rows) {
  AttentionMergePush m{};
  const uint64_t per_row = type == DataType::float32 ? s.head_dim : (s.head_dim + 1) / 2;
  m.count = uint32_t(s.batch * s.heads * s.query_length * per_row);
  m.heads = uint32_t(s.heads);
  m.query_length = uint32_t(s.query_length);
  m.head_dim = uint32_t(s.head_dim);
  m.splits = uint32_t(p.split.splits);
  m.flags = masked_rows == MaskedRows::zero ? OG_ATTN_ZERO_ROWS : 0u;
  m.o_offset = uint32_t(s.o.offset), m.o_batch = uint32_t(s.o.batch), m.o_head = uint32_t(s.o.head),
  m.o_row = uint32_t(s.o.row);
  return m;
}

}  // namespace onegpu::kernels::attention
