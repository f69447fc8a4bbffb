// Reduction, softmax and normalisation decisions that need no GPU: shape checks, merging of
// dimensions into runs, and the choice of path.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onegpu/kernels/reduce.h"
#include "onegpu/tensor.h"
#include "reduce/reduce_push.h"
#include "reduce/rows_push.h"

namespace onegpu::kernels::reduce {

inline constexpr uint32_t kMaxRank = 8;
inline constexpr uint32_t kMaxRuns = 4;

// Checks rank (1..8), dimensions (>= 0) and the element count (a checked 64-bit product, < 2^31);
// returns the count.
uint64_t check_shape(const char* operation, std::span<const int64_t> shape);

// The reduction as runs of merged dimensions (size-1 dimensions dropped); the last run varies
// fastest. Throws KernelShapeError (operation "Reduce") for bad axes or too many runs.
struct Runs {
  uint32_t kept_runs = 0, red_runs = 0;
  uint64_t kept_size[kMaxRuns] = {}, kept_stride[kMaxRuns] = {};
  uint64_t red_size[kMaxRuns] = {}, red_stride[kMaxRuns] = {};
  uint64_t outputs = 1, count = 1, elements = 0;
  uint64_t reach = 0;  // input elements from the offset to the last one read (dense: elements)
};
// `strides`: the input's (non-negative; empty: dense row-major). Throws KernelShapeError ("Reduce",
// "strides") for a wrong count, a negative stride or an extent beyond 64 bits.
Runs merge(std::span<const int64_t> shape, std::span<const int64_t> axes, std::span<const int64_t> strides = {});

std::vector<int64_t> output_shape(std::span<const int64_t> shape, std::span<const int64_t> axes, bool keep_dims);

enum class Path { thread, group, two_pass, columns };
struct Plan {
  Path path = Path::group;
  uint32_t chunks = 1, chunk = 0;  // two_pass and columns
  uint64_t scratch_floats = 0;     // values (arg ops need as many indices again)
};
Plan plan(const Runs& r);
inline constexpr uint64_t kMaxChunks = 4096;
inline constexpr uint64_t kTwoPassScratchFloats = 128 * kMaxChunks;

// Softmax: rows along `axis`. Throws KernelShapeError (operation "Softmax").
struct Rows {
  uint64_t rows = 0, len = 0, inner = 1;
};
Rows softmax_rows(std::span<const int64_t> shape, int64_t axis);
// 0: one invocation per row; 1: the halving tree over a group of `group` lanes per row, run by
// `threads` = min(group, 32) invocations that hold `group / threads` lanes each; 2: a workgroup per
// row.
struct SoftmaxPlan {
  uint32_t path = 1, group = 0, threads = 1;
  uint32_t lanes_per_thread() const { return threads ? group / threads : 1; }
  uint32_t rows_per_workgroup() const { return path == 0 ? 256 : path == 1 ? 256 / threads : 1; }
};
// `len` elements per row, read as `units` (pairs for half).
SoftmaxPlan softmax_plan(uint64_t len, uint64_t units);

// ---- Whole requests: checks once, variant, grid, push constants (no buffers, no GPU) ----

// The variant names the plans choose from (rows of the family's table; reduce.cpp checks at
// compile time that each is declared). reduce.comp's paths 0-5 as the shader numbers them, each
// plain, for arg-reductions, and with subgroup arithmetic (the workgroup paths 1-3 only).
inline constexpr std::string_view kPathNames[6][3] = {
    {"reduce.thread", "reduce.thread.arg", "reduce.thread"},
    {"reduce.workgroup", "reduce.workgroup.arg", "reduce.workgroup.subgroups"},
    {"reduce.two_pass.first", "reduce.two_pass.first.arg", "reduce.two_pass.first.subgroups"},
    {"reduce.two_pass.second", "reduce.two_pass.second.arg", "reduce.two_pass.second.subgroups"},
    {"reduce.columns.first", "reduce.columns.first.arg", "reduce.columns.first"},
    {"reduce.columns.second", "reduce.columns.second.arg", "reduce.columns.second"},
};
// softmax.comp's halving tree by lanes per invocation (1, 2, 4, 8).
inline constexpr std::string_view kSoftmaxTreeNames[4] = {"softmax.tree.lanes1", "softmax.tree.lanes2",
                                                          "softmax.tree.lanes4", "softmax.tree.lanes8"};
inline constexpr std::string_view kOtherNames[] = {"reduce.columns.first.vec4", "softmax.thread",
                                                   "softmax.workgroup", "softmax.workgroup.subgroups",
                                                   "softmax.subgroup", "norm.workgroup", "norm.workgroup.subgroups"};

// A TensorRef without its buffer.
struct Tensor {
  std::span<const int64_t> shape, strides;
  DataType type = DataType::float32;
  uint64_t offset = 0;
};
inline Tensor tensor_of(const TensorRef& t) { return {t.shape, t.strides, t.type, t.offset}; }

// Whether `out` is output_shape(shape, axes, keep_dims) (allocates nothing).
bool is_output_shape(std::span<const int64_t> shape, std::span<const int64_t> axes, bool keep_dims,
                     std::span<const int64_t> out);

struct ReducePlan {
  Runs runs;
  Plan plan;
  bool arg = false;
  std::string_view first, second;  // variant names; `second` empty for one pass
  uint64_t first_groups = 0, second_groups = 0;  // linear workgroup counts
  uint64_t scratch_floats = 0;                  // what the scratch must hold (values, then indices)
  uint64_t index_slot = 0;                      // arg: floats before the scratch's index slots
  ReducePush push{};
};
// `output` null: plan the variant only. Throws KernelShapeError("Reduce", ...).
ReducePlan plan_reduce(ReduceOp op, const Tensor& input, std::span<const int64_t> axes, bool keep_dims,
                       const Tensor* output, bool subgroups);

struct RowsPlan {
  uint64_t elements = 0;  // of the input (and output)
  std::string_view variant;
  uint64_t groups = 0;    // linear workgroup count
  RowsPush push{};
};
// `output` null: plan the variant only. Throws KernelShapeError("Softmax", ...).
RowsPlan plan_softmax(const Tensor& input, int64_t axis, const Tensor* output, bool log, bool subgroups,
                      uint32_t max_subgroup_size);
// Layer (rms false) or RMS normalisation over the last axis. Throws KernelShapeError("LayerNorm" /
// "RmsNorm", ...).
RowsPlan plan_norm(bool rms, const Tensor& input, const Tensor& output, const Tensor* scale, const Tensor* bias,
                   float epsilon, bool subgroups);

}  // namespace onegpu::kernels::reduce
