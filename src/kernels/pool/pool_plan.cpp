#include "kernels/pool/pool_plan.h"

#include <algorithm>
#include <string>

#include "kernels/common/checked.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::pool {
namespace {

constexpr uint64_t kLimit = uint64_t(1) << 31;  // offsets plus counts, padded extents

uint32_t u32(uint64_t v) { return static_cast<uint32_t>(v); }

void check_range(const char* op, const char* name, uint64_t offset, uint64_t count) {
  if (offset >= kLimit || count >= kLimit - offset)
    throw KernelShapeError(op, name, "offset " + std::to_string(offset) + " plus " + std::to_string(count) +
                                         " elements is not below 2^31");
}

}  // namespace

uint32_t global_threads(uint64_t plane_size, DataType type) {
  const uint64_t cap = type == DataType::float16 ? 128 : 256;
  uint64_t t = 32;
  while (t < cap && t * 4 < plane_size) t *= 2;
  return u32(t);
}

Plan plan(const PoolProblem& pr) {
  const char* op = Pool::operation_name(pr.operation);
  if (pr.type != DataType::float32 && pr.type != DataType::float16)
    throw UnsupportedError(std::string(op) + " type", "float32 or float16", std::string(data_type_name(pr.type)));
  if (pr.batch < 1 || pr.channels < 1 || pr.input[0] < 1 || pr.input[1] < 1)
    throw KernelShapeError(op, "x", "batch, channels, height and width must be at least 1 (got " +
                                        std::to_string(pr.batch) + ", " + std::to_string(pr.channels) + ", " +
                                        std::to_string(pr.input[0]) + ", " + std::to_string(pr.input[1]) + ")");
  Plan p;
  const int64_t planes = checked_mul(op, "x", pr.batch, pr.channels);
  const int64_t plane_size = checked_mul(op, "x", pr.input[0], pr.input[1]);
  p.input_count = uint64_t(checked_mul(op, "x", planes, plane_size));
  const std::array<int64_t, 4> dims{pr.batch, pr.channels, pr.input[0], pr.input[1]};
  const bool dense = pr.x_strides == std::array<int64_t, 4>{0, 0, 0, 0};
  int64_t span = 1;
  for (int i = 3; i >= 0; --i) {
    const int64_t stride = dense ? (i == 3 ? 1 : dims[size_t(i) + 1] * int64_t(p.x_strides[size_t(i) + 1])) : pr.x_strides[size_t(i)];
    if (stride < 0) throw KernelShapeError(op, "x_strides", "strides must not be negative (got " + std::to_string(stride) + ")");
    p.x_strides[size_t(i)] = uint64_t(stride);
    span = checked_add(op, "x", span, checked_mul(op, "x", dims[size_t(i)] - 1, stride));
  }
  p.input_span = uint64_t(span);
  check_range(op, "x", pr.x_offset, p.input_span);
  for (uint64_t v : p.x_strides)
    if (v >= kLimit) throw KernelShapeError(op, "x_strides", "a stride is not below 2^31");
  const bool half = pr.type == DataType::float16;
  p.global = pr.operation == PoolOperation::global_average_pool || pr.operation == PoolOperation::global_max_pool;
  if (p.global) {
    p.output_count = uint64_t(planes);
    check_range(op, "y", pr.y_offset, p.output_count);
    const bool max = pr.operation == PoolOperation::global_max_pool;
    static constexpr std::string_view kNames[2][2] = {{"pool.global.avg.f32", "pool.global.avg.f16"},
                                                      {"pool.global.max.f32", "pool.global.max.f16"}};
    p.variant = kNames[max][half];
    PoolGlobalPush& g = p.global_push;
    g.x_offset = u32(pr.x_offset);
    g.y_offset = u32(pr.y_offset);
    g.planes = u32(uint64_t(planes));
    g.plane_size = u32(uint64_t(plane_size));
    g.threads = global_threads(uint64_t(plane_size), pr.type);
    g.group_planes = OG_POOL_WORKGROUP / g.threads;
    g.y_base = half ? g.y_offset & ~1u : g.y_offset;
    const uint64_t positions = pr.y_offset - g.y_base + p.output_count;
    p.workgroups = (positions + g.group_planes - 1) / g.group_planes;
    g.workgroups = u32(p.workgroups);
    g.channels = u32(uint64_t(pr.channels));
    g.width = u32(uint64_t(pr.input[1]));
    g.x_stride_n = u32(p.x_strides[0]);
    g.x_stride_c = u32(p.x_strides[1]);
    g.x_stride_h = u32(p.x_strides[2]);
    g.x_stride_w = u32(p.x_strides[3]);
    return p;
  }

  p.window = resolve_auto_pad(pr.window, pr.auto_pad, pr.input, op);
  for (int a = 0; a < 2; ++a) {
    const int64_t padded = checked_add(op, "pads", checked_add(op, "pads", pr.input[a], p.window.pad_begin(a)),
                                       p.window.pad_end(a));
    if (uint64_t(padded) >= kLimit) throw KernelShapeError(op, "pads", "a padded extent is not below 2^31");
  }
  p.output = window_output_extent(p.window, pr.input, pr.ceil_mode, op);
  p.output_count = uint64_t(checked_mul(op, "y", planes, checked_mul(op, "y", p.output[0], p.output[1])));
  check_range(op, "y", pr.y_offset, p.output_count);
  const bool max = pr.operation == PoolOperation::max_pool;
  static constexpr std::string_view kNames[2][2] = {{"pool.avg.f32", "pool.avg.f16"}, {"pool.max.f32", "pool.max.f16"}};
  p.variant = kNames[max][half];
  PoolWindowPush& w = p.window_push;
  w.x_offset = u32(pr.x_offset);
  w.y_offset = u32(pr.y_offset);
  w.count = u32(p.output_count);
  w.units = half ? u32((pr.y_offset + p.output_count + 1) / 2 - pr.y_offset / 2) : w.count;
  w.in_h = u32(uint64_t(pr.input[0]));
  w.in_w = u32(uint64_t(pr.input[1]));
  w.out_h = u32(uint64_t(p.output[0]));
  w.out_w = u32(uint64_t(p.output[1]));
  w.kernel_h = u32(uint64_t(p.window.kernel[0]));
  w.kernel_w = u32(uint64_t(p.window.kernel[1]));
  w.stride_h = u32(uint64_t(p.window.strides[0]));
  w.stride_w = u32(uint64_t(p.window.strides[1]));
  w.dilation_h = u32(uint64_t(p.window.dilations[0]));
  w.dilation_w = u32(uint64_t(p.window.dilations[1]));
  w.pad_top = u32(uint64_t(p.window.pad_begin(0)));
  w.pad_left = u32(uint64_t(p.window.pad_begin(1)));
  w.padded_h = u32(uint64_t(pr.input[0] + p.window.pad_begin(0) + p.window.pad_end(0)));
  w.padded_w = u32(uint64_t(pr.input[1] + p.window.pad_begin(1) + p.window.pad_end(1)));
  w.flags = pr.count_include_pad && pr.operation == PoolOperation::average_pool ? OG_POOL_COUNT_PAD : 0u;
  w.channels = u32(uint64_t(pr.channels));
  w.x_stride_n = u32(p.x_strides[0]);
  w.x_stride_c = u32(p.x_strides[1]);
  w.x_stride_h = u32(p.x_strides[2]);
  w.x_stride_w = u32(p.x_strides[3]);
  p.workgroups = (uint64_t(w.units) + OG_POOL_WORKGROUP - 1) / OG_POOL_WORKGROUP;
  return p;
}

}  // namespace onegpu::kernels::pool
