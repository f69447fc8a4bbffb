#include "kernels/layout/layout_plan.h"

#include <algorithm>
#include <string>

#include "kernels/common/merge.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::layout {

static_assert(sizeof(LayoutCopyPush) == 128, "every Vulkan device offers 128 bytes of push constants");
static_assert(kMaxMergedRank <= kMergeMaxRank && kMaxSources <= kMergeMaxOperands);
static_assert(sources_per_pass(3) == 4 && sources_per_pass(6) == 2, "dense concats take four inputs a pass");
static_assert(kMaxMergedRank - 2 <= OG_LAYOUT_MAX_BATCH_RANK, "a tiled transpose has at most 4 batch dimensions");

namespace {

constexpr uint64_t kMaxElements = (uint64_t(1) << 31) - 1;

std::string str(uint64_t v) { return std::to_string(v); }
std::string sstr(int64_t v) { return std::to_string(v); }

int64_t checked_mul(const char* op, const char* arg, int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw KernelShapeError(op, arg, "an extent does not fit 64 bits");
  return r;
}
int64_t checked_add(const char* op, const char* arg, int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw KernelShapeError(op, arg, "an offset does not fit 64 bits");
  return r;
}

void check_rank(const char* op, const char* arg, std::span<const int64_t> shape) {
  if (shape.size() > kMaxRank) throw KernelShapeError(op, arg, "rank " + str(shape.size()) + " is above 8");
}

// Element count below 2^31 (negative dimensions and 64-bit overflow refused by element_count).
uint64_t count_of(const char* op, const char* arg, std::span<const int64_t> shape) {
  const uint64_t n = element_count(shape, op, arg);
  if (n > kMaxElements) throw KernelShapeError(op, arg, str(n) + " elements, at most 2^31 - 1");
  return n;
}

void same_type(const char* op, const char* arg, DataType t, DataType expected) {
  if (t != expected)
    throw KernelShapeError(op, arg, std::string(data_type_name(t)) + " does not match the input's " +
                                        std::string(data_type_name(expected)));
}

void check_output(const char* op, const Operand& out) {
  check_rank(op, "output", out.shape);
  count_of(op, "output", out.shape);
  if (!TensorRef{nullptr, 0, out.shape, out.strides, out.type}.dense())
    throw KernelShapeError(op, "output", "is not dense row-major (outputs must be)");
}

// The operand's element strides (dense when it gives none), after reach() checked them.
void strides_of(const Operand& x, int64_t* st) {
  int64_t s = 1;
  for (size_t i = x.shape.size(); i-- > 0;) {
    st[i] = x.strides.empty() ? s : x.strides[i];
    // Past 2^63 (a tensor with a zero dimension beside huge ones) the stride saturates: no element
    // is ever reached through it.
    if (__builtin_mul_overflow(s, std::max<int64_t>(x.shape[i], 1), &s)) s = INT64_MAX;
  }
}

void check_shape_is(const char* op, std::span<const int64_t> got, const int64_t* want, size_t rank) {
  if (got.size() != rank || !std::equal(got.begin(), got.end(), want)) {
    std::string w;
    for (size_t i = 0; i < rank; ++i) w += (i ? ", " : "") + sstr(want[i]);
    throw KernelShapeError(op, "output", "its shape is not the result's shape [" + w + "]");
  }
}

// ONNX's clamp of a start or end for one axis.
int64_t clamp_index(int64_t v, int64_t dim, int64_t lo, int64_t hi) {
  if (v < 0) v += dim;  // v >= INT64_MIN and dim >= 0: no overflow
  return std::clamp(v, lo, hi);
}

}  // namespace

uint64_t reach(const char* op, const char* arg, const Operand& x) {
  check_rank(op, arg, x.shape);
  const uint64_t n = count_of(op, arg, x.shape);
  if (!x.strides.empty() && x.strides.size() != x.shape.size())
    throw KernelShapeError(op, "strides", str(x.strides.size()) + " strides for rank " + str(x.shape.size()));
  if (n == 0) return 0;
  int64_t last = 0;
  for (size_t i = 0; i < x.shape.size(); ++i) {
    const int64_t st = x.strides.empty() ? 0 : x.strides[i];
    if (st < 0) throw KernelShapeError(op, "strides", "stride " + str(i) + " is negative (" + sstr(st) + ")");
    if (!x.strides.empty()) last = checked_add(op, "strides", last, checked_mul(op, "strides", x.shape[i] - 1, st));
  }
  return x.strides.empty() ? n : uint64_t(last) + 1;
}

uint32_t transpose_shape(std::span<const int64_t> x_shape, std::span<const int64_t> perm, int64_t* shape,
                         int64_t* order) {
  const char* op = "Transpose";
  check_rank(op, "x", x_shape);
  const size_t r = x_shape.size();
  if (!perm.empty() && perm.size() != r)
    throw KernelShapeError(op, "perm", str(perm.size()) + " entries for rank " + str(r));
  bool seen[kMaxRank] = {};
  for (size_t j = 0; j < r; ++j) {
    const int64_t p = perm.empty() ? int64_t(r - 1 - j) : perm[j];
    if (p < 0 || p >= int64_t(r) || seen[p])
      throw KernelShapeError(op, "perm", "entry " + str(j) + " (" + sstr(p) + ") is not a permutation of [0, " + str(r) + ")");
    seen[p] = true;
    shape[j] = x_shape[size_t(p)];
    if (order) order[j] = p;
  }
  return uint32_t(r);
}

Copy transpose_copy(const Operand& x, std::span<const int64_t> perm, const Operand& out) {
  const char* op = "Transpose";
  reach(op, "x", x);
  check_output(op, out);
  same_type(op, "output", out.type, x.type);
  int64_t shape[kMaxRank] = {}, p[kMaxRank] = {}, xs[kMaxRank] = {};
  const uint32_t r = transpose_shape(x.shape, perm, shape, p);
  check_shape_is(op, out.shape, shape, r);
  strides_of(x, xs);
  Copy c;
  c.rank = r;
  c.offset[0] = int64_t(x.offset);
  for (size_t j = 0; j < r; ++j) {
    c.shape[j] = uint64_t(shape[j]);
    c.stride[0][j] = shape[j] == 1 ? 0 : xs[size_t(p[j])];
  }
  return c;
}

uint32_t slice_shape(std::span<const int64_t> x_shape, std::span<const int64_t> starts, std::span<const int64_t> ends,
                     std::span<const int64_t> axes, std::span<const int64_t> steps, int64_t* shape, int64_t* first,
                     int64_t* step) {
  const char* op = "Slice";
  check_rank(op, "x", x_shape);
  element_count(x_shape, op, "x");
  const size_t r = x_shape.size();
  if (starts.size() != ends.size())
    throw KernelShapeError(op, "ends", str(ends.size()) + " ends for " + str(starts.size()) + " starts");
  if (!axes.empty() && axes.size() != starts.size())
    throw KernelShapeError(op, "axes", str(axes.size()) + " axes for " + str(starts.size()) + " starts");
  if (!steps.empty() && steps.size() != starts.size())
    throw KernelShapeError(op, "steps", str(steps.size()) + " steps for " + str(starts.size()) + " starts");
  if (starts.size() > r) throw KernelShapeError(op, "starts", str(starts.size()) + " entries for rank " + str(r));
  bool seen[kMaxRank] = {};
  for (size_t i = 0; i < r; ++i) {
    shape[i] = x_shape[i];
    if (first) first[i] = 0;
    if (step) step[i] = 1;
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes.empty() ? int64_t(i) : axes[i];
    if (a < -int64_t(r) || a >= int64_t(r))
      throw KernelShapeError(op, "axes", "axis " + sstr(a) + " is outside [-" + str(r) + ", " + str(r) + ")");
    if (a < 0) a += int64_t(r);
    if (seen[a]) throw KernelShapeError(op, "axes", "axis " + sstr(a) + " appears twice");
    seen[a] = true;
    const int64_t s = steps.empty() ? 1 : steps[i];
    if (s == 0) throw KernelShapeError(op, "steps", "step " + str(i) + " is 0");
    const int64_t dim = x_shape[size_t(a)];
    int64_t b = 0, n = 0;
    if (s > 0) {
      b = clamp_index(starts[i], dim, 0, dim);
      const int64_t e = clamp_index(ends[i], dim, 0, dim);
      n = e > b ? (e - b - 1) / s + 1 : 0;
    } else if (dim > 0) {
      b = clamp_index(starts[i], dim, 0, dim - 1);
      const int64_t e = clamp_index(ends[i], dim, -1, dim - 1);
      n = b > e ? (b - e - 1) / (s == INT64_MIN ? INT64_MAX : -s) + 1 : 0;
    }
    shape[a] = n;
    if (first) first[a] = b;
    if (step) step[a] = s;
  }
  return uint32_t(r);
}

Copy slice_copy(const Operand& x, std::span<const int64_t> starts, std::span<const int64_t> ends,
                std::span<const int64_t> axes, std::span<const int64_t> steps, const Operand& out) {
  const char* op = "Slice";
  reach(op, "x", x);
  check_output(op, out);
  same_type(op, "output", out.type, x.type);
  int64_t shape[kMaxRank] = {}, first[kMaxRank] = {}, step[kMaxRank] = {}, xs[kMaxRank] = {};
  const uint32_t r = slice_shape(x.shape, starts, ends, axes, steps, shape, first, step);
  check_shape_is(op, out.shape, shape, r);
  strides_of(x, xs);
  Copy c;
  c.rank = r;
  c.offset[0] = int64_t(x.offset);
  bool empty = false;
  for (uint32_t d = 0; d < r; ++d) empty = empty || shape[d] == 0;
  for (uint32_t d = 0; d < r; ++d) {
    c.shape[d] = uint64_t(shape[d]);
    // A dimension of one element needs no stride (and its step may be any value).
    c.stride[0][d] = shape[d] <= 1 ? 0 : checked_mul(op, "steps", xs[d], step[d]);
    if (!empty) c.offset[0] = checked_add(op, "starts", c.offset[0], checked_mul(op, "starts", first[d], xs[d]));
  }
  return c;
}

uint32_t expand_shape(std::span<const int64_t> x_shape, std::span<const int64_t> shape, int64_t* out) {
  const char* op = "Expand";
  check_rank(op, "x", x_shape);
  check_rank(op, "shape", shape);
  const size_t r = std::max(x_shape.size(), shape.size());
  for (size_t i = 0; i < r; ++i) {
    const int64_t a = i + x_shape.size() >= r ? x_shape[i + x_shape.size() - r] : 1;
    const int64_t b = i + shape.size() >= r ? shape[i + shape.size() - r] : 1;
    if (a < 0 || b < 0) throw KernelShapeError(op, "shape", "dimension " + str(i) + " is negative");
    if (a != b && a != 1 && b != 1)
      throw KernelShapeError(op, "shape", "dimension " + str(i) + ": " + sstr(a) + " and " + sstr(b) + " do not broadcast");
    out[i] = a == 1 ? b : a;
  }
  return uint32_t(r);
}

Copy expand_copy(const Operand& x, const Operand& out) {
  const char* op = "Expand";
  reach(op, "x", x);
  check_output(op, out);
  same_type(op, "output", out.type, x.type);
  int64_t shape[kMaxRank] = {}, xs[kMaxRank] = {};
  const uint32_t r = expand_shape(x.shape, out.shape, shape);
  check_shape_is(op, out.shape, shape, r);
  strides_of(x, xs);
  Copy c;
  c.rank = r;
  c.offset[0] = int64_t(x.offset);
  const size_t lead = r - x.shape.size();
  for (size_t j = 0; j < r; ++j) {
    c.shape[j] = uint64_t(shape[j]);
    c.stride[0][j] = j < lead || x.shape[j - lead] == 1 ? 0 : xs[j - lead];
  }
  return c;
}

uint32_t concat_check(std::span<const TensorRef> inputs, int64_t axis, const Operand& out) {
  const char* op = "Concat";
  check_output(op, out);
  if (inputs.empty()) throw KernelShapeError(op, "inputs", "no input");
  const int64_t r = int64_t(out.shape.size());
  if (r == 0) throw KernelShapeError(op, "output", "a scalar has no axis to concatenate along");
  if (axis < -r || axis >= r) throw KernelShapeError(op, "axis", "axis " + sstr(axis) + " is outside [-" + sstr(r) + ", " + sstr(r) + ")");
  const uint32_t a = uint32_t(axis < 0 ? axis + r : axis);
  uint64_t total = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const TensorRef& x = inputs[k];
    reach(op, "inputs", operand_of(x));
    if (x.type != out.type)
      throw KernelShapeError(op, "inputs", "input " + str(k) + " is " + std::string(data_type_name(x.type)) +
                                               ", the output " + std::string(data_type_name(out.type)));
    if (int64_t(x.shape.size()) != r) throw KernelShapeError(op, "inputs", "input " + str(k) + " has rank " + str(x.shape.size()) + ", the output " + sstr(r));
    for (int64_t d = 0; d < r; ++d)
      if (uint32_t(d) != a && x.shape[size_t(d)] != out.shape[size_t(d)])
        throw KernelShapeError(op, "inputs", "input " + str(k) + " dimension " + sstr(d) + " is " + sstr(x.shape[size_t(d)]) +
                                                 ", the output's " + sstr(out.shape[size_t(d)]));
    // total never passes the output's length, so the sum cannot wrap however long the inputs are
    if (uint64_t(x.shape[a]) > uint64_t(out.shape[a]) - total)
      throw KernelShapeError(op, "output", "dimension " + str(a) + " is " + sstr(out.shape[a]) +
                                               ", shorter than the inputs' lengths along it");
    total += uint64_t(x.shape[a]);
  }
  if (total != uint64_t(out.shape[a]))
    throw KernelShapeError(op, "output", "dimension " + str(a) + " is " + sstr(out.shape[a]) + ", the inputs add up to " + str(total));
  return a;
}

Copy concat_copy(std::span<const TensorRef> inputs, uint32_t axis, const Operand& out, size_t first, size_t& next,
                 uint32_t max_sources) {
  Copy c;
  c.rank = uint32_t(out.shape.size());
  for (uint32_t d = 0; d < c.rank; ++d) c.shape[d] = uint64_t(out.shape[d]);
  c.sel = int32_t(axis);
  c.sources = 0;
  uint64_t pos = 0;
  for (size_t k = 0; k < first; ++k) pos += uint64_t(inputs[k].shape[axis]);
  size_t k = first;
  for (; k < inputs.size() && c.sources < max_sources; ++k) {
    const Operand x = operand_of(inputs[k]);
    if (x.shape[axis] == 0) continue;
    const uint32_t s = c.sources++;
    int64_t xs[kMaxRank] = {};
    strides_of(x, xs);
    c.offset[s] = int64_t(x.offset);
    c.input[s] = uint32_t(k);
    for (uint32_t d = 0; d < c.rank; ++d) c.stride[s][d] = x.shape[d] == 1 && d != axis ? 0 : xs[d];
    c.lo[s] = pos;
    pos += uint64_t(x.shape[axis]);
  }
  while (k < inputs.size() && inputs[k].shape[axis] == 0) ++k;
  c.sel_end = pos;
  next = k;
  return c;
}

Pass concat_pass(std::span<const TensorRef> inputs, uint32_t axis, const Operand& out, size_t first, size_t& next) {
  uint32_t most = kMaxSources;
  for (;;) {
    const Copy c = concat_copy(inputs, axis, out, first, next, most);
    if (c.sources == 0) return Pass{};
    Pass p = plan("Concat", c, out.type, out.offset);
    if (p.empty() || c.sources <= sources_per_pass(p.rank)) return p;
    most = sources_per_pass(p.rank);  // fewer sources merge no worse
  }
}

Pass concat_block(std::span<const TensorRef> inputs, uint32_t axis, const Operand& out, size_t k) {
  const Operand x = operand_of(inputs[k]);
  if (element_count(x.shape) == 0) return Pass{};
  Copy c;
  c.rank = uint32_t(out.shape.size());
  c.strided_out = true;
  int64_t xs[kMaxRank] = {};
  strides_of(x, xs);
  c.offset[0] = int64_t(x.offset);
  uint64_t before = 0, inner = 1;
  for (size_t j = 0; j < k; ++j) before += uint64_t(inputs[j].shape[axis]);
  int64_t dense = 1;
  for (uint32_t d = c.rank; d-- > 0;) {
    c.shape[d] = uint64_t(x.shape[d]);
    c.stride[0][d] = x.shape[d] == 1 ? 0 : xs[d];
    c.out_stride[d] = dense;
    dense *= out.shape[d];
    if (d > axis) inner *= uint64_t(out.shape[d]);
  }
  // Inside the output, which is below 2^31 elements: no overflow.
  return plan("Concat", c, out.type, out.offset + before * inner);
}

bool concat_by_blocks(std::span<const TensorRef> inputs, uint32_t axis, const Operand& out) {
  bool any = false;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Pass p = concat_block(inputs, axis, out, k);
    if (p.empty()) continue;
    if (p.algorithm != Algorithm::rows) return false;
    any = true;
  }
  return any;
}

Pass plan(const char* op, const Copy& c, DataType type, uint64_t out_offset) {
  Pass p;
  p.width = data_type_size(type) * 8;
  p.out_offset = out_offset;
  p.count = 1;
  for (uint32_t d = 0; d < c.rank; ++d) p.count *= c.shape[d];  // checked below 2^31 by the caller
  if (p.count == 0) return p;
  if (out_offset + p.count > 0xffffffffull)
    throw KernelShapeError(op, "output", "ends past element 2^32 - 1, beyond the kernels' 32-bit indices");
  // The output's strides merge with the sources' when it is not dense (a dense output always
  // merges: its strides follow the shape).
  const uint32_t operands = c.sources + (c.strided_out ? 1 : 0);
  std::span<const int64_t> strides[kMaxSources + 1];
  for (uint32_t s = 0; s < c.sources; ++s) strides[s] = std::span<const int64_t>(c.stride[s], c.rank);
  if (c.strided_out) strides[c.sources] = std::span<const int64_t>(c.out_stride, c.rank);
  const MergedDims m = merge_dims(std::span<const uint64_t>(c.shape, c.rank), std::span(strides, operands), c.sel);
  if (m.rank > kMaxMergedRank)
    throw KernelShapeError(op, "shape", str(m.rank) + " dimensions remain after merging, at most 6");
  p.sources = c.sources;
  for (uint32_t s = 0; s < c.sources; ++s) p.input[s] = c.input[s];
  p.rank = m.rank == 0 ? 1 : m.rank;
  if (m.rank == 0) {
    p.shape[0] = 1;
    p.out_stride[0] = 1;
  } else {
    for (uint32_t d = 0; d < m.rank; ++d) {
      p.shape[d] = m.shape[d];
      for (uint32_t s = 0; s < c.sources; ++s) p.stride[s][d] = m.stride[s][d];
    }
    int64_t dense = 1;
    for (uint32_t d = m.rank; d-- > 0;) {
      p.out_stride[d] = c.strided_out ? m.stride[c.sources][d] : dense;
      dense *= int64_t(m.shape[d]);
    }
  }
  if (c.sel < 0) {
    p.sel = 0;
    p.lo[0] = 0;
    p.sel_end = p.shape[0];
  } else {
    p.sel = uint32_t(m.kept);
    for (uint32_t s = 0; s < c.sources; ++s) p.lo[s] = c.lo[s];
    p.sel_end = c.sel_end;
  }
  for (uint32_t s = 0; s < c.sources; ++s)
    p.offset[s] = c.offset[s] - int64_t(p.lo[s]) * p.stride[s][p.sel];  // below 2^63: extents were checked

  const uint64_t bytes = p.width / 8, per = p.width >= 32 ? 1 : 32 / p.width;
  const uint32_t r = p.rank;
  // The row copy and the tiled transpose read one source over the whole output.
  const bool whole = p.sources == 1 && p.lo[0] == 0 && p.sel_end == p.shape[p.sel];
  bool rows = whole && p.stride[0][r - 1] == 1 && (p.shape[r - 1] * bytes) % 16 == 0 &&
              (out_offset * bytes) % 16 == 0 && (uint64_t(p.offset[0]) * bytes) % 16 == 0;
  rows = rows && p.out_stride[r - 1] == 1;
  for (uint32_t d = 0; rows && d + 1 < r; ++d)
    rows = (p.stride[0][d] * int64_t(bytes)) % 16 == 0 && (p.out_stride[d] * int64_t(bytes)) % 16 == 0;
  // Tiled: a 2-D transpose between the output's last dimension q and the dimension p along which
  // the source is contiguous; the others (at most 4) are batch dimensions.
  bool tiled = whole && !c.strided_out && r >= 2 && p.shape[r - 1] >= 16 && p.shape[r - 1] % per == 0 &&
               out_offset % per == 0;
  uint32_t tile_p = r;
  for (uint32_t d = 0; tiled && d + 1 < r; ++d)
    if (p.stride[0][d] == 1 && p.shape[d] >= 16) tile_p = d;
  tiled = tiled && tile_p < r;
  if (rows) {
    p.algorithm = Algorithm::rows;
    const uint64_t vectors = p.count / (16 / bytes);
    p.workgroups = (vectors + 256 * OG_LAYOUT_ROW_VECTORS - 1) / (256 * OG_LAYOUT_ROW_VECTORS);
  } else if (tiled) {
    p.algorithm = Algorithm::tiled;
    p.tile_p = tile_p;
    uint64_t batches = 1;
    for (uint32_t d = 0; d + 1 < r; ++d)
      if (d != tile_p) batches *= p.shape[d];
    const uint64_t tiles_p = (p.shape[tile_p] + OG_LAYOUT_TILE - 1) / OG_LAYOUT_TILE;
    const uint64_t tiles_q = (p.shape[r - 1] + OG_LAYOUT_TILE * per - 1) / (OG_LAYOUT_TILE * per);
    p.workgroups = batches * tiles_p * tiles_q;
  } else {
    p.algorithm = Algorithm::copy;
    const uint64_t words = (out_offset + p.count - 1) / per - out_offset / per + 1;
    p.workgroups = (words + 256 * OG_LAYOUT_WORDS - 1) / (256 * OG_LAYOUT_WORDS);
  }
  return p;
}

LayoutCopyPush copy_push(const Pass& p) {
  LayoutCopyPush push{};
  push.codes = (p.rank << OG_LAYOUT_RANK_SHIFT) | (p.sel << OG_LAYOUT_SEL_SHIFT) | (p.sources << OG_LAYOUT_SOURCES_SHIFT);
  push.count = uint32_t(p.count);
  push.out_offset = uint32_t(p.out_offset);
  push.sel_end = uint32_t(p.sel_end);
  for (uint32_t d = 0; d < p.rank; ++d) push.shape[d] = uint32_t(p.shape[d]);
  for (uint32_t s = 0; s < p.sources; ++s) {
    push.offset[s] = uint32_t(uint64_t(p.offset[s]));  // two's complement: the shader's sums wrap back
    push.lo[s] = uint32_t(p.lo[s]);
    for (uint32_t d = 0; d < p.rank; ++d) push.strides[s * p.rank + d] = uint32_t(uint64_t(p.stride[s][d]));
  }
  return push;
}

LayoutRowsPush rows_push(const Pass& p) {
  LayoutRowsPush push{};
  push.rank = p.rank;
  push.count = uint32_t(p.count);
  push.in_offset = uint32_t(uint64_t(p.offset[0]));
  push.out_offset = uint32_t(p.out_offset);
  for (uint32_t d = 0; d < p.rank; ++d) {
    push.shape[d] = uint32_t(p.shape[d]);
    push.in_strides[d] = uint32_t(uint64_t(p.stride[0][d]));
    push.out_strides[d] = uint32_t(uint64_t(p.out_stride[d]));
  }
  return push;
}

LayoutTilePush tile_push(const Pass& p) {
  LayoutTilePush push{};
  const uint32_t r = p.rank, tp = p.tile_p;
  const uint64_t per = p.width >= 32 ? 1 : 32 / p.width;
  push.rows = uint32_t(p.shape[tp]);
  push.columns = uint32_t(p.shape[r - 1]);
  push.out_offset = uint32_t(p.out_offset);
  push.in_offset = uint32_t(uint64_t(p.offset[0]));
  push.stride_q = uint32_t(uint64_t(p.stride[0][r - 1]));
  push.out_stride_p = uint32_t(uint64_t(p.out_stride[tp]));
  push.tiles_p = uint32_t((p.shape[tp] + OG_LAYOUT_TILE - 1) / OG_LAYOUT_TILE);
  push.tiles_q = uint32_t((p.shape[r - 1] + OG_LAYOUT_TILE * per - 1) / (OG_LAYOUT_TILE * per));
  push.batches = 1;
  for (uint32_t d = 0; d + 1 < r; ++d) {
    if (d == tp) continue;
    const uint32_t k = push.batch_rank++;
    push.batch_shape[k] = uint32_t(p.shape[d]);
    push.batch_in[k] = uint32_t(uint64_t(p.stride[0][d]));
    push.batch_out[k] = uint32_t(uint64_t(p.out_stride[d]));
    push.batches *= push.batch_shape[k];
  }
  return push;
}

}  // namespace onegpu::kernels::layout
