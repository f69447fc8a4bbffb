#include "backend/backend.h"
#include "core/checks.h"
#include "onegpu/encoder.h"
#include "onegpu/errors.h"
#include "onegpu/timestamps.h"

namespace onegpu {

Grid linear_grid(uint64_t workgroups, uint32_t max_x) {
  if (max_x == 0) max_x = 1;
  if (workgroups <= max_x) return {static_cast<uint32_t>(workgroups), 1, 1};
  uint64_t rows = (workgroups + max_x - 1) / max_x;
  if (rows > UINT32_MAX) throw UnsupportedError("max_workgroup_count", std::to_string(workgroups), "2^64");
  return {max_x, static_cast<uint32_t>(rows), 1};
}

CommandEncoder::CommandEncoder() = default;
CommandEncoder::CommandEncoder(std::unique_ptr<backend::Encoder> impl) : impl_(std::move(impl)) {}
CommandEncoder::CommandEncoder(CommandEncoder&&) noexcept = default;
CommandEncoder& CommandEncoder::operator=(CommandEncoder&&) noexcept = default;
CommandEncoder::~CommandEncoder() = default;

backend::Encoder& CommandEncoder::impl() const {
  if (!impl_) throw Error("encoder: the encoder is empty (already submitted?)");
  return *impl_;
}

std::unique_ptr<backend::Encoder> CommandEncoder::release() { return std::move(impl_); }

void CommandEncoder::begin_compute_pass() {
  impl().begin_compute_pass();
  ++passes_;
  in_pass_ = true;
}

void CommandEncoder::check_dispatch(const ComputeKernel& kernel, const BindGroup& group,
                                    std::span<const std::byte> push) {
  impl();
  if (!in_pass_) throw Error("dispatch: no compute pass is open (call begin_compute_pass first)");
  if (&group.impl().kernel() != &kernel.impl())
    throw KernelShapeError("dispatch", "group", "the bind group was made for kernel '" +
                                                    group.impl().kernel().label() + "', not '" +
                                                    kernel.label() + "'");
  uint32_t want = kernel.reflection().push_constant_size;
  if (push.size() != want)
    throw KernelShapeError("dispatch", "push_constants",
                           std::to_string(push.size()) + " bytes given, kernel '" + kernel.label() +
                               "' declares " + std::to_string(want));
}

void CommandEncoder::dispatch(const ComputeKernel& kernel, const BindGroup& group,
                              std::span<const std::byte> push, Grid grid) {
  check_dispatch(kernel, group, push);
  core::check_grid(grid, impl().capabilities());
  ++dispatches_;
  if (grid.total() == 0) return;
  impl().dispatch(kernel.impl(), group.impl(), push, grid);
}

void CommandEncoder::dispatch_linear(const ComputeKernel& kernel, const BindGroup& group,
                                     std::span<const std::byte> push, uint64_t workgroups) {
  dispatch(kernel, group, push, linear_grid(workgroups, impl().capabilities().max_workgroup_count[0]));
}

void CommandEncoder::dispatch_indirect(const ComputeKernel& kernel, const BindGroup& group,
                                       std::span<const std::byte> push, const RawBuffer& args,
                                       uint64_t offset) {
  check_dispatch(kernel, group, push);
  if (offset % 4 != 0)
    throw KernelShapeError("dispatch_indirect", "offset", std::to_string(offset) + " is not a multiple of 4");
  core::check_range("dispatch_indirect", "offset", offset, 12, args.size_bytes());
  ++dispatches_;
  impl().dispatch_indirect(kernel.impl(), group.impl(), push, args.impl(), offset);
}

void CommandEncoder::copy_buffer(const RawBuffer& src, uint64_t src_offset, const RawBuffer& dst,
                                 uint64_t dst_offset, uint64_t bytes) {
  impl();
  if (src_offset % 4 || dst_offset % 4 || bytes % 4)
    throw KernelShapeError("copy_buffer", "offset", "offsets and size must be multiples of 4");
  core::check_range("copy_buffer", "src_offset", src_offset, bytes, src.size_bytes());
  core::check_range("copy_buffer", "dst_offset", dst_offset, bytes, dst.size_bytes());
  in_pass_ = false;
  if (bytes == 0) return;
  impl().copy_buffer(src.impl(), src_offset, dst.impl(), dst_offset, bytes);
}

void CommandEncoder::begin_pass_timing(TimestampSet& set) { impl().begin_pass_timing(set.impl()); }

}  // namespace onegpu
