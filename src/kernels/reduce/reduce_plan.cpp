#include "kernels/reduce/reduce_plan.h"

#include <algorithm>
#include <bit>

#include "onegpu/errors.h"

namespace onegpu::kernels::reduce {
namespace {

std::string s(int64_t v) { return std::to_string(v); }

// Marks the reduced axes in `reduced` (no axes: all). Allocates nothing.
void reduced_axes(std::span<const int64_t> shape, std::span<const int64_t> axes, bool (&reduced)[kMaxRank]) {
  const int64_t rank = int64_t(shape.size());
  for (size_t i = 0; i < kMaxRank; ++i) reduced[i] = axes.empty();
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      throw KernelShapeError("Reduce", "axes", "axis " + s(a) + " is outside [" + s(-rank) + ", " + s(rank) + ")");
    const int64_t k = a < 0 ? a + rank : a;
    if (reduced[k]) throw KernelShapeError("Reduce", "axes", "axis " + s(a) + " is listed twice");
    reduced[k] = true;
  }
}

}  // namespace

uint64_t check_shape(const char* operation, std::span<const int64_t> shape) {
  if (shape.empty() || shape.size() > kMaxRank)
    throw KernelShapeError(operation, "shape", "rank " + s(int64_t(shape.size())) + " is outside [1, 8]");
  const uint64_t n = onegpu::element_count(shape, operation, "shape");
  if (n >= (1ull << 31)) throw KernelShapeError(operation, "shape", "more than 2^31 - 1 elements");
  return n;
}

Runs merge(std::span<const int64_t> shape, std::span<const int64_t> axes, std::span<const int64_t> strides) {
  Runs r;
  r.elements = check_shape("Reduce", shape);
  bool reduced[kMaxRank];
  reduced_axes(shape, axes, reduced);
  if (!strides.empty() && strides.size() != shape.size())
    throw KernelShapeError("Reduce", "strides", s(int64_t(strides.size())) + " strides for rank " + s(int64_t(shape.size())));
  // The elements the input reaches from its offset: 1 + the sum of (size - 1) x stride.
  r.reach = r.elements;
  if (!strides.empty() && r.elements > 0) {
    r.reach = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (strides[i] < 0)
        throw KernelShapeError("Reduce", "strides", "stride " + s(int64_t(i)) + " is negative (" + s(strides[i]) + ")");
      uint64_t term = 0;
      if (__builtin_mul_overflow(uint64_t(shape[i] - 1), uint64_t(strides[i]), &term) ||
          __builtin_add_overflow(r.reach, term, &r.reach))
        throw KernelShapeError("Reduce", "strides", "the input's extent does not fit 64 bits");
    }
  }
  // Walk from the innermost dimension out, building runs innermost first. A dimension extends the
  // run before it when both are kept or both reduced and it steps over that run exactly (always
  // so for dense tensors).
  struct RunInfo {
    bool reduced;
    uint64_t size, stride;
  } runs[kMaxRank];
  size_t n = 0;
  uint64_t dense_stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    const uint64_t size = uint64_t(shape[i]);
    const uint64_t stride = strides.empty() ? dense_stride : uint64_t(strides[i]);
    if (size != 1) {
      if (n > 0 && runs[n - 1].reduced == reduced[i] && runs[n - 1].stride * runs[n - 1].size == stride) {
        runs[n - 1].size *= size;
      } else {
        runs[n++] = {reduced[i], size, stride};
      }
    }
    dense_stride *= size;
  }
  for (size_t j = n; j-- > 0;) {  // outermost first
    const RunInfo& run = runs[j];
    if (run.reduced) {
      if (r.red_runs == kMaxRuns)
        throw KernelShapeError("Reduce", "axes", "more than 4 runs of reduced dimensions remain after merging");
      r.red_size[r.red_runs] = run.size;
      r.red_stride[r.red_runs++] = run.stride;
      r.count *= run.size;
    } else {
      if (r.kept_runs == kMaxRuns)
        throw KernelShapeError("Reduce", "axes", "more than 4 runs of kept dimensions remain after merging");
      r.kept_size[r.kept_runs] = run.size;
      r.kept_stride[r.kept_runs++] = run.stride;
      r.outputs *= run.size;
    }
  }
  if (r.elements == 0) {  // the runs' products may have wrapped: count the outputs again, checked
    int64_t kept[kMaxRank];
    size_t k = 0;
    for (size_t i = 0; i < shape.size(); ++i)
      if (!reduced[i]) kept[k++] = shape[i];
    r.outputs = onegpu::element_count(std::span<const int64_t>(kept, k), "Reduce", "shape");
    if (r.outputs >= (1ull << 31)) throw KernelShapeError("Reduce", "shape", "more than 2^31 - 1 outputs");
    r.count = 0;
  }
  if (r.red_runs == 0) {  // every reduced dimension has size 1
    r.red_runs = 1;
    r.red_size[0] = 1;
    r.red_stride[0] = 0;
  }
  return r;
}

std::vector<int64_t> output_shape(std::span<const int64_t> shape, std::span<const int64_t> axes, bool keep_dims) {
  check_shape("Reduce", shape);
  bool reduced[kMaxRank];
  reduced_axes(shape, axes, reduced);
  std::vector<int64_t> out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!reduced[i]) out.push_back(shape[i]);
    else if (keep_dims) out.push_back(1);
  }
  return out;
}

Plan plan(const Runs& r) {
  Plan p;
  const bool contiguous = r.red_stride[r.red_runs - 1] <= 1;
  if (r.count < 32 || (r.count < 256 && !contiguous && r.outputs >= 2048)) {
    p.path = Path::thread;
  } else if (!contiguous && r.outputs >= 2048) {
    // Columns: neighbouring invocations read neighbouring outputs; k split into chunks for about
    // two million (output, chunk) pairs (half a million invocations where four outputs share one),
    // each chunk at least 64 elements, the partials within 4 Mi floats.
    uint64_t chunks = std::min<uint64_t>({(2097152 + r.outputs - 1) / r.outputs, r.count / 64, 256,
                                          (4ull << 20) / r.outputs});
    if (chunks < 2) {
      p.path = Path::thread;
    } else {
      p.path = Path::columns;
      p.chunk = uint32_t((r.count + chunks - 1) / chunks);
      p.chunks = uint32_t((r.count + p.chunk - 1) / p.chunk);
      p.scratch_floats = r.outputs * p.chunks;
    }
  } else if (r.outputs < 128 && r.count >= 16384) {
    // Up to 4096 chunks of at least 4096 elements: enough workgroups to fill a large GPU.
    const uint64_t chunks = std::min<uint64_t>(kMaxChunks, r.count / 4096);
    p.path = Path::two_pass;
    p.chunk = uint32_t(((r.count + chunks - 1) / chunks + 3) / 4 * 4);  // whole vec4 units
    p.chunks = uint32_t((r.count + p.chunk - 1) / p.chunk);
    p.scratch_floats = r.outputs * kMaxChunks;
  } else {
    p.path = Path::group;
  }
  return p;
}

Rows softmax_rows(std::span<const int64_t> shape, int64_t axis) {
  check_shape("Softmax", shape);
  const int64_t rank = int64_t(shape.size());
  if (axis < -rank || axis >= rank)
    throw KernelShapeError("Softmax", "axis", "axis " + s(axis) + " is outside [" + s(-rank) + ", " + s(rank) + ")");
  const size_t a = size_t(axis < 0 ? axis + rank : axis);
  Rows r;
  // Checked products; rows x len wraps only for an empty tensor, whose rows are never used.
  const uint64_t outer = onegpu::element_count(shape.first(a), "Softmax", "shape");
  r.inner = onegpu::element_count(shape.subspan(a + 1), "Softmax", "shape");
  r.len = uint64_t(shape[a]);
  r.rows = outer * r.inner;
  return r;
}

SoftmaxPlan softmax_plan(uint64_t len, uint64_t units) {
  if (len < 16) return {0, 1, 1};
  if (len > 1024) return {2, 256, 256};
  uint32_t g = 1;
  while (g < (units + 3) / 4) g <<= 1;  // about four units each
  return {1, g, std::min<uint32_t>(g, 32)};
}

}  // namespace onegpu::kernels::reduce

// ---- Whole requests ----

namespace onegpu::kernels::reduce {
namespace {

bool is_arg(ReduceOp op) { return op == ReduceOp::arg_max || op == ReduceOp::arg_min; }

// Floats between the scratch's value slots and its index slots (arg ops): a 256-byte boundary,
// which satisfies every device's offset alignment.
uint64_t index_slot_offset(uint64_t floats) { return (floats + 63) / 64 * 64; }

bool is_dense(const Tensor& t) { return TensorRef{nullptr, 0, t.shape, t.strides, t.type}.dense(); }

void check_dense(const char* op, const char* name, const Tensor& t) {
  if (!is_dense(t)) throw KernelShapeError(op, "strides", std::string(name) + " is not dense row-major");
}

void check_float(const char* op, const char* name, DataType t) {
  if (t != DataType::float32 && t != DataType::float16)
    throw KernelShapeError(op, name, std::string(data_type_name(t)) + " is not float32 or float16");
}

void check_type(const char* op, const char* name, DataType t, DataType expected) {
  if (t != expected)
    throw KernelShapeError(op, name, std::string(data_type_name(t)) + " is not " + std::string(data_type_name(expected)));
}

std::string_view path_name(int path, bool arg, bool subgroups) { return kPathNames[path][arg ? 1 : subgroups ? 2 : 0]; }

}  // namespace

bool is_output_shape(std::span<const int64_t> shape, std::span<const int64_t> axes, bool keep_dims,
                     std::span<const int64_t> out) {
  bool reduced[kMaxRank];
  reduced_axes(shape, axes, reduced);
  size_t j = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (reduced[i] && !keep_dims) continue;
    if (j >= out.size() || out[j] != (reduced[i] ? 1 : shape[i])) return false;
    ++j;
  }
  return j == out.size();
}

ReducePlan plan_reduce(ReduceOp op, const Tensor& input, std::span<const int64_t> axes, bool keep_dims,
                       const Tensor* output, bool subgroups) {
  ReducePlan p;
  p.arg = is_arg(op);
  check_float("Reduce", "input", input.type);
  p.runs = merge(input.shape, axes, input.strides);
  const Runs& runs = p.runs;
  if (output != nullptr) {
    check_type("Reduce", "output", output->type, p.arg ? DataType::int64 : input.type);
    check_dense("Reduce", "output", *output);
    if (!is_output_shape(input.shape, axes, keep_dims, output->shape))
      throw KernelShapeError("Reduce", "output", "its shape is not the result's shape (" + s(int64_t(runs.outputs)) +
                                                     " elements, keep_dims " + (keep_dims ? "true" : "false") + ")");
  }
  if (p.arg && runs.count == 0 && runs.outputs > 0)
    throw KernelShapeError("Reduce", "shape", std::string(reduce_op_name(op)) + " over an empty axis");
  p.plan = plan(runs);
  const bool sg = subgroups && !p.arg;
  const bool half = input.type == DataType::float16;
  ReducePush& push = p.push;
  push.outputs = uint32_t(runs.outputs);
  push.count = uint32_t(runs.count);
  push.op = static_cast<uint32_t>(op);
  push.flags = half ? OG_RED_HALF : 0u;
  push.kept_runs = runs.kept_runs;
  push.red_runs = runs.red_runs;
  push.in_offset = uint32_t(input.offset);
  push.out_offset = output != nullptr ? uint32_t(output->offset) : 0u;
  for (uint32_t i = 0; i < 4; ++i) {
    push.kept_size[i] = uint32_t(runs.kept_size[i]);
    push.kept_stride[i] = uint32_t(runs.kept_stride[i]);
    push.red_size[i] = uint32_t(runs.red_size[i]);
    push.red_stride[i] = uint32_t(runs.red_stride[i]);
  }
  bool vec4 = !half && runs.red_runs == 1 && runs.red_stride[0] == 1 && runs.count % 4 == 0 && input.offset % 4 == 0;
  for (uint32_t i = 0; i < runs.kept_runs; ++i) vec4 = vec4 && runs.kept_stride[i] % 4 == 0;
  if (vec4) push.flags |= OG_RED_VEC4;
  bool cols4 = p.plan.path == Path::columns && !p.arg && !half && runs.kept_runs == 1 && runs.kept_stride[0] == 1 &&
               runs.outputs % 4 == 0 && input.offset % 4 == 0;
  for (uint32_t i = 0; i < runs.red_runs; ++i) cols4 = cols4 && runs.red_stride[i] % 4 == 0;
  if (cols4) push.flags |= OG_RED_COLS4;
  push.chunk = p.plan.chunk;
  push.chunks = p.plan.chunks;
  push.scratch_stride = uint32_t(kMaxChunks);
  if (p.plan.scratch_floats > 0) {
    p.index_slot = p.arg ? index_slot_offset(p.plan.scratch_floats) : 0;
    p.scratch_floats = p.arg ? p.index_slot + p.plan.scratch_floats : p.plan.scratch_floats;
  }
  switch (p.plan.path) {
    case Path::thread:
      p.first = path_name(0, p.arg, sg);
      p.first_groups = (runs.outputs + 255) / 256;
      break;
    case Path::group:
      p.first = path_name(1, p.arg, sg);
      p.first_groups = runs.outputs;
      break;
    case Path::two_pass:
      p.first = path_name(2, p.arg, sg);
      p.first_groups = runs.outputs * p.plan.chunks;
      p.second = path_name(3, p.arg, sg);
      p.second_groups = runs.outputs;
      break;
    case Path::columns:
      p.first = cols4 ? "reduce.columns.first.vec4" : path_name(4, p.arg, false);
      p.first_groups = ((cols4 ? runs.outputs / 4 : runs.outputs) * p.plan.chunks + 255) / 256;
      p.second = path_name(5, p.arg, false);
      p.second_groups = (runs.outputs + 255) / 256;
      break;
  }
  return p;
}

RowsPlan plan_softmax(const Tensor& input, int64_t axis, const Tensor* output, bool log, bool subgroups,
                      uint32_t max_subgroup_size) {
  RowsPlan p;
  check_float("Softmax", "input", input.type);
  const Rows rows = softmax_rows(input.shape, axis);
  check_dense("Softmax", "input", input);
  p.elements = rows.rows * rows.len;
  const bool half = input.type == DataType::float16;
  if (output != nullptr) {
    check_type("Softmax", "output", output->type, input.type);
    check_dense("Softmax", "output", *output);
    if (!std::equal(output->shape.begin(), output->shape.end(), input.shape.begin(), input.shape.end()))
      throw KernelShapeError("Softmax", "output", "its shape is not the input's");
    if (half && (rows.inner != 1 || rows.len % 2 != 0 || input.offset % 2 != 0 || output->offset % 2 != 0))
      throw KernelShapeError("Softmax", "input", "half tensors need the axis last, an even row length and even offsets");
  }
  const SoftmaxPlan plan = softmax_plan(rows.len, half ? rows.len / 2 : rows.len);
  RowsPush& push = p.push;
  push.rows = uint32_t(rows.rows);
  push.len = uint32_t(rows.len);
  push.inner = uint32_t(rows.inner);
  push.flags = (half ? OG_ROWS_HALF : 0u) | (log ? OG_ROWS_LOG : 0u);
  push.in_offset = uint32_t(input.offset);
  push.out_offset = output != nullptr ? uint32_t(output->offset) : 0u;
  push.group = plan.group;
  // Fast mode with subgroups gives each row of 16 to 1024 elements one subgroup.
  const bool per_subgroup = plan.path == 1 && subgroups;
  p.variant = per_subgroup     ? "softmax.subgroup"
              : plan.path == 0 ? "softmax.thread"
              : plan.path == 1 ? kSoftmaxTreeNames[std::countr_zero(plan.lanes_per_thread())]
              : subgroups      ? "softmax.workgroup.subgroups"
                               : "softmax.workgroup";
  const uint64_t rows_per_group =
      per_subgroup ? 256 / std::max<uint32_t>(max_subgroup_size, 1) : plan.rows_per_workgroup();
  p.groups = (rows.rows + rows_per_group - 1) / rows_per_group;
  return p;
}

RowsPlan plan_norm(bool rms, const Tensor& input, const Tensor& output, const Tensor* scale, const Tensor* bias,
                   float epsilon, bool subgroups) {
  const char* op = rms ? "RmsNorm" : "LayerNorm";
  RowsPlan p;
  check_float(op, "input", input.type);
  p.elements = check_shape(op, input.shape);
  check_dense(op, "input", input);
  check_type(op, "output", output.type, input.type);
  check_dense(op, "output", output);
  if (!std::equal(output.shape.begin(), output.shape.end(), input.shape.begin(), input.shape.end()))
    throw KernelShapeError(op, "output", "its shape is not the input's");
  const uint64_t len = uint64_t(input.shape.back());
  const bool half = input.type == DataType::float16;
  if (half && (len % 2 != 0 || input.offset % 2 != 0 || output.offset % 2 != 0))
    throw KernelShapeError(op, "input", "half tensors need an even row length and even offsets");
  const Tensor* params[] = {scale, bias};
  const char* names[] = {"scale", "bias"};
  for (int i = 0; i < 2; ++i) {
    if (params[i] == nullptr) continue;
    check_type(op, names[i], params[i]->type, DataType::float32);
    check_dense(op, names[i], *params[i]);
    if (params[i]->shape.size() != 1 || uint64_t(params[i]->shape[0]) != len)
      throw KernelShapeError(op, names[i], "its shape is not {" + s(int64_t(len)) + "} (the last axis)");
  }
  if (!(epsilon >= 0.0f)) throw KernelShapeError(op, "epsilon", "must be a non-negative number");
  RowsPush& push = p.push;
  push.rows = len == 0 ? 0u : uint32_t(p.elements / len);
  push.len = uint32_t(len);
  push.inner = 1;
  push.flags = (half ? OG_ROWS_HALF : 0u) | (rms ? OG_ROWS_RMS : 0u) | (scale ? OG_ROWS_SCALE : 0u) |
               (bias ? OG_ROWS_BIAS : 0u);
  push.in_offset = uint32_t(input.offset);
  push.out_offset = uint32_t(output.offset);
  push.scale_offset = scale ? uint32_t(scale->offset) : 0u;
  push.bias_offset = bias ? uint32_t(bias->offset) : 0u;
  push.epsilon = epsilon;
  p.variant = subgroups ? "norm.workgroup.subgroups" : "norm.workgroup";
  p.groups = push.rows;
  return p;
}

}  // namespace onegpu::kernels::reduce
