// onegpu/encoder.h - recording GPU work.
//
// A CommandEncoder records compute passes and copies; Device::submit sends them to the GPU.
// Ordering: passes and copies run in the order they were recorded, and each sees every write of
// the passes and copies before it (the encoder places the barriers). Dispatches inside one pass
// are not ordered against each other: put a dispatch that reads another's output in a new pass.
// An encoder that is never submitted releases what it recorded when destroyed. An encoder is used
// by one thread at a time; it must not outlive its device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

#include "onegpu/buffer.h"
#include "onegpu/kernel.h"

namespace onegpu {

namespace backend { class Encoder; }
class TimestampSet;

// A dispatch grid in workgroups.
struct Grid {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t total() const { return uint64_t(x) * y * z; }
};

// Folds `workgroups` into a grid no wider than `max_x` per row: (n, 1) when it fits, else
// (max_x, ceil(n / max_x)). A kernel dispatched this way computes its linear workgroup index as
// gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x and ignores indices >= workgroups
// (shaders/common/grid.glsl has og_workgroup_index()).
Grid linear_grid(uint64_t workgroups, uint32_t max_x);

class CommandEncoder {
 public:
  CommandEncoder();
  explicit CommandEncoder(std::unique_ptr<backend::Encoder> impl);
  CommandEncoder(CommandEncoder&&) noexcept;
  CommandEncoder& operator=(CommandEncoder&&) noexcept;
  ~CommandEncoder();

  // Starts a compute pass. Every dispatch belongs to the pass begun last.
  void begin_compute_pass();

  // Records one dispatch of `grid` workgroups into the current pass. `push_constants` must be
  // exactly the kernel's push-constant block. A grid with a zero dimension is counted and runs
  // nothing. Throws KernelShapeError for a push-constant size mismatch and UnsupportedError for a
  // grid beyond the device's workgroup-count limits.
  void dispatch(const ComputeKernel& kernel, const BindGroup& group,
                std::span<const std::byte> push_constants, Grid grid);
  template <class P>
  void dispatch(const ComputeKernel& kernel, const BindGroup& group, const P& push, Grid grid) {
    static_assert(std::is_trivially_copyable_v<P>);
    dispatch(kernel, group, std::as_bytes(std::span<const P>(&push, 1)), grid);
  }
  // Dispatches `workgroups` workgroups as a linear_grid(), so more than 65535 work.
  void dispatch_linear(const ComputeKernel& kernel, const BindGroup& group,
                       std::span<const std::byte> push_constants, uint64_t workgroups);

  // The grid is three uint32 values read from `args` at `offset_bytes` when the GPU runs it.
  void dispatch_indirect(const ComputeKernel& kernel, const BindGroup& group,
                         std::span<const std::byte> push_constants, const RawBuffer& args,
                         uint64_t offset_bytes);

  // Copies bytes between buffers; ends the current pass. Offsets and size must be multiples of 4
  // and inside both buffers.
  void copy_buffer(const RawBuffer& src, uint64_t src_offset, const RawBuffer& dst,
                   uint64_t dst_offset, uint64_t bytes);

  // The next passes write their start and end times into consecutive slots of `set`
  // (pass i: slots 2i and 2i+1) until the set is full.
  void begin_pass_timing(TimestampSet& set);

  // What was recorded since the device handed the encoder out.
  uint32_t compute_pass_count() const { return passes_; }
  uint32_t dispatch_count() const { return dispatches_; }

  explicit operator bool() const { return impl_ != nullptr; }
  backend::Encoder& impl() const;
  std::unique_ptr<backend::Encoder> release();

 private:
  void check_dispatch(const ComputeKernel& kernel, const BindGroup& group,
                      std::span<const std::byte> push_constants);

  std::unique_ptr<backend::Encoder> impl_;
  uint32_t passes_ = 0;
  uint32_t dispatches_ = 0;
  bool in_pass_ = false;
};

}  // namespace onegpu
