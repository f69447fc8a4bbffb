#include "kernels/reduce/reduce_plan.h"

#include <algorithm>

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
  uint64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) throw KernelShapeError(operation, "shape", "dimension " + s(int64_t(i)) + " is negative");
    n *= uint64_t(shape[i]);
    if (n >= (1ull << 31)) throw KernelShapeError(operation, "shape", "more than 2^31 - 1 elements");
  }
  return n;
}

Runs merge(std::span<const int64_t> shape, std::span<const int64_t> axes) {
  Runs r;
  r.elements = check_shape("Reduce", shape);
  bool reduced[kMaxRank];
  reduced_axes(shape, axes, reduced);
  // Walk from the innermost dimension out, building runs innermost first.
  struct RunInfo {
    bool reduced;
    uint64_t size, stride;
  } runs[kMaxRank];
  size_t n = 0;
  uint64_t stride = 1;
  int last = -1;  // the kind of the run being extended: 0 kept, 1 reduced
  for (size_t i = shape.size(); i-- > 0;) {
    const uint64_t size = uint64_t(shape[i]);
    if (size != 1) {
      if (last == int(reduced[i])) {
        runs[n - 1].size *= size;
      } else {
        runs[n++] = {reduced[i], size, stride};
        last = int(reduced[i]);
      }
    }
    stride *= size;
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
  if (r.elements == 0) {
    r.outputs = 1;
    r.count = 0;
    for (size_t i = 0; i < shape.size(); ++i)
      if (!reduced[i]) r.outputs *= uint64_t(shape[i]);
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
  uint64_t outer = 1;
  for (size_t i = 0; i < a; ++i) outer *= uint64_t(shape[i]);
  for (size_t i = a + 1; i < shape.size(); ++i) r.inner *= uint64_t(shape[i]);
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
