#include "kernels/gather/gather_plan.h"

#include <algorithm>
#include <bit>
#include <string>

#include "onegpu/errors.h"

namespace onegpu::kernels::gather {
namespace {

constexpr uint64_t kLimit = uint64_t(1) << 31;  // element counts and offsets, and every dimension
constexpr size_t kMaxRank = OG_GATHER_MAX_RANK;

std::string shape_text(std::span<const int64_t> s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

[[noreturn]] void fail(const char* op, const char* argument, const std::string& detail) {
  throw KernelShapeError(op, argument, detail);
}

// Product of s[begin:end] (the caller has checked the whole shape's count).
uint64_t product(std::span<const int64_t> s, size_t begin, size_t end) {
  uint64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= uint64_t(s[i]);
  return p;
}

// Rank, dimensions, density, and the element count with its offset below 2^31.
uint64_t check_operand(const char* op, const char* name, const Operand& t) {
  if (t.shape.size() > kMaxRank)
    fail(op, name, "rank " + std::to_string(t.shape.size()) + " is more than " + std::to_string(kMaxRank));
  const uint64_t count = element_count(t.shape, op, name);
  for (int64_t d : t.shape)
    if (uint64_t(d) >= kLimit) fail(op, name, "dimension " + std::to_string(d) + " is not below 2^31");
  if (!TensorRef{nullptr, 0, t.shape, t.strides, t.type}.dense()) fail(op, "strides", std::string(name) + " is not dense");
  if (t.offset >= kLimit || count >= kLimit - t.offset)
    fail(op, name, "offset " + std::to_string(t.offset) + " plus " + std::to_string(count) +
                       " elements is not below 2^31");
  return count;
}

void check_types(const char* op, const Request& r) {
  if (r.indices.type != DataType::int32 && r.indices.type != DataType::int64)
    fail(op, "indices", "type " + std::string(data_type_name(r.indices.type)) + " is not int32 or int64");
  if (r.out.type != r.data.type)
    fail(op, "output", "type " + std::string(data_type_name(r.out.type)) + " is not data's type " +
                           std::string(data_type_name(r.data.type)));
}

void check_out_shape(const char* op, std::span<const int64_t> expected, std::span<const int64_t> got) {
  if (!std::equal(expected.begin(), expected.end(), got.begin(), got.end()))
    fail(op, "output", "shape " + shape_text(got) + " is not " + shape_text(expected));
}

int64_t normalized_axis(const char* op, int64_t axis, size_t rank) {
  const int64_t r = int64_t(rank);
  if (axis < -r || axis >= r)
    fail(op, "axis", std::to_string(axis) + " is outside [" + std::to_string(-r) + ", " + std::to_string(r) + ")");
  return axis < 0 ? axis + r : axis;
}

// An output shape without the heap (a warm encode allocates nothing): Gather's rank can reach 15.
struct Dims {
  int64_t v[2 * kMaxRank];
  size_t n = 0;
  void push(int64_t d) { v[n++] = d; }
  std::span<const int64_t> span() const { return {v, n}; }
};

void gather_dims(std::span<const int64_t> data, std::span<const int64_t> indices, int64_t axis, Dims& out) {
  const char* op = "Gather";
  if (data.empty()) fail(op, "data", "rank 0 has no axis");
  if (data.size() > kMaxRank || indices.size() > kMaxRank)
    fail(op, data.size() > kMaxRank ? "data" : "indices", "rank is more than 8");
  const size_t ax = size_t(normalized_axis(op, axis, data.size()));
  for (size_t i = 0; i < ax; ++i) out.push(data[i]);
  for (int64_t d : indices) out.push(d);
  for (size_t i = ax + 1; i < data.size(); ++i) out.push(data[i]);
}

void gather_nd_dims(std::span<const int64_t> data, std::span<const int64_t> indices, int64_t batch_dims, Dims& out) {
  const char* op = "GatherND";
  if (data.empty()) fail(op, "data", "rank 0");
  if (indices.empty()) fail(op, "indices", "rank 0 has no index tuples");
  if (data.size() > kMaxRank || indices.size() > kMaxRank)
    fail(op, data.size() > kMaxRank ? "data" : "indices", "rank is more than 8");
  const int64_t r = int64_t(data.size()), q = int64_t(indices.size());
  if (batch_dims < 0 || batch_dims >= std::min(r, q))
    fail(op, "batch_dims", std::to_string(batch_dims) + " is outside [0, " + std::to_string(std::min(r, q)) + ")");
  const size_t b = size_t(batch_dims);
  for (size_t i = 0; i < b; ++i)
    if (data[i] != indices[i])
      fail(op, "indices", "batch dimension " + std::to_string(i) + " is " + std::to_string(indices[i]) +
                              ", data's is " + std::to_string(data[i]));
  const int64_t k = indices.back();
  if (k < 1 || k > r - batch_dims)
    fail(op, "indices", "tuples of " + std::to_string(k) + " components, not 1 to " + std::to_string(r - batch_dims));
  for (size_t i = 0; i + 1 < indices.size(); ++i) out.push(indices[i]);
  for (size_t i = b + size_t(k); i < data.size(); ++i) out.push(data[i]);
}

uint64_t groups_for(uint64_t items) { return (items + OG_GATHER_WORKGROUP - 1) / OG_GATHER_WORKGROUP; }

uint32_t codes(uint32_t rank, DataType indices) {
  return (rank << OG_GATHER_RANK_SHIFT) | (indices == DataType::int64 ? OG_GATHER_WIDE : 0u);
}

// The index path's grid: an invocation per output word (8- and 16-bit) or element.
void size_elementwise_grid(Plan& p, const Operand& out) {
  const uint32_t per_word = elements_per_word(out.type);
  const uint64_t items = per_word == 1 ? p.out_elements
                                       : (out.offset + p.out_elements - 1) / per_word - out.offset / per_word + 1;
  p.workgroups = groups_for(items);
}

// Gather and GatherND as [outer, tuples, inner]: whole rows when the rows and offsets are aligned
// to a word (or 16 bytes), else an invocation per output word.
void plan_index(Plan& p, const Request& r, uint64_t outer, uint64_t tuples, uint64_t inner, uint64_t tuple_stride,
                uint64_t data_stride, std::span<const int64_t> lengths, std::span<const uint64_t> strides) {
  const uint32_t k = uint32_t(lengths.size());
  GatherPush& g = p.push;
  g.codes = codes(k, r.indices.type);
  g.index_offset = uint32_t(r.indices.offset);
  g.tuples = uint32_t(tuples);
  g.tuple_outer_stride = uint32_t(tuple_stride);
  const uint64_t bytes = data_type_size(r.data.type);
  p.width = uint32_t(bytes * 8);
  auto aligned = [&](uint64_t unit) {
    return (inner * bytes) % unit == 0 && (r.data.offset * bytes) % unit == 0 && (r.out.offset * bytes) % unit == 0;
  };
  if (aligned(4)) {
    p.path = Path::rows;
    p.unit = aligned(16) ? 16 : 4;
    const uint64_t per = bytes, unit = p.unit;
    const uint64_t row_units = inner * per / unit, rows = outer * tuples;
    const uint64_t need = (row_units + OG_GATHER_ROW_ITEMS - 1) / OG_GATHER_ROW_ITEMS;
    const uint32_t shift = uint32_t(std::min<uint64_t>(8, std::bit_width(std::max<uint64_t>(need, 1) - 1)));
    const uint64_t rows_per_group = uint64_t(OG_GATHER_WORKGROUP) >> shift;
    const uint64_t chunks = (row_units + (uint64_t(OG_GATHER_ROW_ITEMS) << shift) - 1) / (uint64_t(OG_GATHER_ROW_ITEMS) << shift);
    g.data_offset = uint32_t(r.data.offset * per / unit);
    g.out_offset = uint32_t(r.out.offset * per / unit);
    g.count = uint32_t(rows);
    g.inner = uint32_t(inner);
    g.data_outer_stride = uint32_t(data_stride * per / unit);
    g.row_units = uint32_t(row_units);
    g.row_shift = shift;
    g.row_chunks = uint32_t(chunks);
    for (uint32_t c = 0; c < k; ++c) {
      g.dims[c] = uint32_t(lengths[c]);
      g.strides[c] = uint32_t(strides[c] * per / unit);
    }
    p.workgroups = (rows + rows_per_group - 1) / rows_per_group * chunks;
    return;
  }
  p.path = Path::index;
  g.data_offset = uint32_t(r.data.offset);
  g.out_offset = uint32_t(r.out.offset);
  g.count = uint32_t(p.out_elements);
  g.inner = uint32_t(inner);
  g.data_outer_stride = uint32_t(data_stride);
  for (uint32_t c = 0; c < k; ++c) {
    g.dims[c] = uint32_t(lengths[c]);
    g.strides[c] = uint32_t(strides[c]);
  }
  size_elementwise_grid(p, r.out);
}

Plan plan_gather(const Request& r, uint64_t data_count) {
  const char* op = "Gather";
  const auto& d = r.data.shape;
  Dims dims;
  gather_dims(d, r.indices.shape, r.axis, dims);
  const auto shape = dims.span();
  if (shape.size() > kMaxRank) fail(op, "output", "rank " + std::to_string(shape.size()) + " is more than 8");
  check_out_shape(op, shape, r.out.shape);
  Plan p;
  p.data_elements = data_count;
  p.index_elements = r.indices.shape.empty() ? 1 : product(r.indices.shape, 0, r.indices.shape.size());
  p.out_elements = product(shape, 0, shape.size());
  if (p.empty()) return p;
  const size_t ax = size_t(normalized_axis(op, r.axis, d.size()));
  const uint64_t outer = product(d, 0, ax), inner = product(d, ax + 1, d.size());
  const int64_t lengths[] = {d[ax]};
  const uint64_t strides[] = {inner};
  plan_index(p, r, outer, p.index_elements, inner, 0, uint64_t(d[ax]) * inner, lengths, strides);
  return p;
}

Plan plan_nd(const Request& r, uint64_t data_count) {
  const char* op = "GatherND";
  const auto& d = r.data.shape;
  const auto& s = r.indices.shape;
  Dims dims;
  gather_nd_dims(d, s, r.axis, dims);
  const auto shape = dims.span();
  if (shape.size() > kMaxRank) fail(op, "output", "rank " + std::to_string(shape.size()) + " is more than 8");
  check_out_shape(op, shape, r.out.shape);
  Plan p;
  p.data_elements = data_count;
  p.index_elements = product(s, 0, s.size());
  p.out_elements = product(shape, 0, shape.size());
  if (p.empty()) return p;
  const size_t b = size_t(r.axis), k = size_t(s.back());
  const uint64_t batch = product(d, 0, b), tuples = product(s, b, s.size() - 1);
  const uint64_t inner = product(d, b + k, d.size());
  int64_t lengths[kMaxRank];
  uint64_t strides[kMaxRank];
  // Empty data (a zero among the tuple's dimensions): every tuple is out of range and the strides
  // (products that data's count does not bound) are not needed.
  const bool none = data_count == 0;
  for (size_t c = 0; c < k; ++c) {
    lengths[c] = d[b + c];
    strides[c] = none ? 0 : product(d, b + c + 1, d.size());
  }
  plan_index(p, r, batch, tuples, inner, tuples, none ? 0 : product(d, b, d.size()), std::span(lengths, k),
             std::span(strides, k));
  return p;
}

Plan plan_elements(const Request& r, uint64_t data_count) {
  const char* op = "GatherElements";
  const auto& d = r.data.shape;
  const auto& s = r.indices.shape;
  if (d.empty()) fail(op, "data", "rank 0 has no axis");
  const size_t ax = size_t(normalized_axis(op, r.axis, d.size()));
  if (s.size() != d.size())
    fail(op, "indices", "rank " + std::to_string(s.size()) + " is not data's rank " + std::to_string(d.size()));
  for (size_t i = 0; i < d.size(); ++i)
    if (i != ax && s[i] > d[i])
      fail(op, "indices", "shape " + shape_text(s) + " is larger than data's " + shape_text(d) + " in dimension " +
                              std::to_string(i));
  check_out_shape(op, s, r.out.shape);
  Plan p;
  p.data_elements = data_count;
  p.index_elements = product(s, 0, s.size());
  p.out_elements = p.index_elements;
  if (p.empty()) return p;
  p.path = Path::elements;
  p.width = data_type_size(r.data.type) * 8;
  // Dimensions of indices, merged where both tensors walk them contiguously (size-1 dimensions
  // other than the axis dropped).
  uint32_t dims[kMaxRank], strides[kMaxRank], rank = 0, axis = 0;
  size_t last = SIZE_MAX;
  for (size_t i = 0; i < d.size(); ++i) {
    // Empty data (the axis is 0 long): every index is out of range, the strides are not needed.
    const uint64_t stride = data_count == 0 ? 0 : product(d, i + 1, d.size());
    if (i != ax && s[i] == 1) continue;
    const bool merge = rank > 0 && last + 1 == i && i != ax && last != ax && s[i] == d[i];
    if (merge) {
      dims[rank - 1] *= uint32_t(s[i]);
      strides[rank - 1] = uint32_t(stride);
    } else {
      if (i == ax) axis = rank;
      dims[rank] = uint32_t(s[i]);
      strides[rank] = uint32_t(stride);
      ++rank;
    }
    last = i;
  }
  GatherPush& g = p.push;
  g.codes = codes(rank, r.indices.type);
  g.data_offset = uint32_t(r.data.offset);
  g.index_offset = uint32_t(r.indices.offset);
  g.out_offset = uint32_t(r.out.offset);
  g.count = uint32_t(p.out_elements);
  g.axis = axis;
  g.axis_length = uint32_t(d[ax]);
  for (uint32_t i = 0; i < rank; ++i) {
    g.dims[i] = dims[i];
    g.strides[i] = strides[i];
  }
  size_elementwise_grid(p, r.out);
  return p;
}

}  // namespace

const char* operation_name(GatherOperation op) {
  switch (op) {
    case GatherOperation::gather: return "Gather";
    case GatherOperation::gather_elements: return "GatherElements";
    case GatherOperation::gather_nd: return "GatherND";
  }
  return "Gather";
}

std::vector<int64_t> gather_shape(std::span<const int64_t> data, std::span<const int64_t> indices, int64_t axis) {
  Dims d;
  gather_dims(data, indices, axis, d);
  return {d.v, d.v + d.n};
}

std::vector<int64_t> gather_nd_shape(std::span<const int64_t> data, std::span<const int64_t> indices,
                                     int64_t batch_dims) {
  Dims d;
  gather_nd_dims(data, indices, batch_dims, d);
  return {d.v, d.v + d.n};
}

Plan plan(const Request& r) {
  const char* op = operation_name(r.operation);
  if (r.data.shape.empty()) fail(op, "data", "rank 0");
  const uint64_t data_count = check_operand(op, "data", r.data);
  check_operand(op, "indices", r.indices);
  check_operand(op, "output", r.out);
  check_types(op, r);
  switch (r.operation) {
    case GatherOperation::gather: return plan_gather(r, data_count);
    case GatherOperation::gather_elements: return plan_elements(r, data_count);
    case GatherOperation::gather_nd: return plan_nd(r, data_count);
  }
  return {};
}

std::string_view variant_name(const Plan& p) {
  if (p.path == Path::rows) return p.unit == 16 ? "gather.rows.uvec4" : "gather.rows.word";
  const bool e = p.path == Path::elements;
  switch (p.width) {
    case 8: return e ? "gather.elements.w8" : "gather.index.w8";
    case 16: return e ? "gather.elements.w16" : "gather.index.w16";
    case 64: return e ? "gather.elements.w64" : "gather.index.w64";
    default: return e ? "gather.elements.w32" : "gather.index.w32";
  }
}

}  // namespace onegpu::kernels::gather
