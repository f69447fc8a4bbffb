// onegpu/encoder.h - recording GPU work.
//
// A CommandEncoder records compute passes and copies; Device::submit sends them to the GPU.
// begin_compute_pass() returns a ComputePass, the handle dispatches are recorded through.
// Ordering: passes and copies run in the order they were recorded, and each sees every write of
// the passes and copies before it, and of every earlier submission. The encoder places the
// barriers from what each pass reads and writes (the kernels' reflection says which bindings are
// read-only): a memory barrier where a pass or copy touches a buffer that earlier work wrote, an
// execution dependency where it overwrites a buffer earlier work read, nothing otherwise.
// Dispatches inside one pass are not ordered against each other: put a dispatch that reads
// another's output in a new pass.
// Lifetimes: the encoder keeps alive everything it records (kernels, bind groups, the buffers,
// textures and samplers they bind, indirect-argument buffers, copy sources and destinations,
// textures of copies and mip generation, timestamp sets) until the
// submission that carries it has finished, so they may be destroyed right after recording.
// An encoder that is never submitted releases what it recorded when destroyed. An encoder and its
// passes are used by one thread at a time; they must not outlive their device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "onegpu/buffer.h"
#include "onegpu/kernel.h"
#include "onegpu/render.h"
#include "onegpu/texture.h"

namespace onegpu {

namespace backend { class Encoder; }
namespace detail { struct EncoderState; }
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

// A compute pass being recorded (webgpu.h's WGPUComputePassEncoder). Move-only. A pass ends when
// the encoder begins the next pass or a copy, on end(), or when the encoder is submitted;
// recording into an ended pass throws UsageError. Destroying the handle does not end the pass.
class ComputePass {
 public:
  ComputePass();
  ComputePass(ComputePass&&) noexcept;
  ComputePass& operator=(ComputePass&&) noexcept;
  ComputePass(const ComputePass&) = delete;
  ComputePass& operator=(const ComputePass&) = delete;
  ~ComputePass();

  // Records one dispatch of `grid` workgroups. `push_constants` must be exactly the kernel's
  // push-constant block. A grid with a zero dimension is counted and runs nothing. Throws
  // KernelShapeError for a push-constant size mismatch or a group made for another kernel,
  // UnsupportedError for a grid beyond the device's workgroup-count limits, and UsageError when a
  // buffer the group binds was already destroyed.
  void dispatch(const ComputeKernel& kernel, const BindGroup& group,
                std::span<const std::byte> push_constants, Grid grid);
  template <class P>
  void dispatch(const ComputeKernel& kernel, const BindGroup& group, const P& push, Grid grid) {
    static_assert(std::is_trivially_copyable_v<P>);
    dispatch(kernel, group, std::as_bytes(std::span<const P>(&push, 1)), grid);
  }
  // Dispatches `workgroups` workgroups as a linear_grid() at the device's limit (or at
  // ONEGPU_GRID_FOLD_WIDTH, docs/environment.md), so more than 65535 work.
  void dispatch_linear(const ComputeKernel& kernel, const BindGroup& group,
                       std::span<const std::byte> push_constants, uint64_t workgroups);
  // The grid is three uint32 values (x, y, z) read from `args` at `offset_bytes` when the GPU runs
  // the dispatch, so an earlier pass of the same encoder may compute them (the read is ordered
  // after earlier writes like any other).
  // Checked here, before recording: the kernel, group and push constants as for dispatch(); that
  // `args` is a buffer (KernelShapeError, argument "args") of this device (UsageError); that
  // `offset_bytes` is a multiple of 4 and the 12 bytes lie inside `args` (KernelShapeError,
  // argument "offset"); operation "dispatch_indirect". Not checked, because the host never sees them: the three values. Keeping each at
  // or below capabilities().max_workgroup_count[i] is the caller's responsibility (write them
  // clamped, or with the same bound as dispatch_linear's folding); a zero dimension runs nothing.
  // A value beyond the limit breaks a rule of the Vulkan specification whose outcome is undefined:
  // a driver may run the grid, cut it, skip the dispatch or lose the device (then the next submit
  // or wait raises CommandFailedError). The validation layer's GPU-assisted mode reports it; the
  // default CPU-side layer cannot.
  void dispatch_indirect(const ComputeKernel& kernel, const BindGroup& group,
                         std::span<const std::byte> push_constants, const RawBuffer& args,
                         uint64_t offset_bytes);

  // Ends the pass. Ending an ended pass does nothing.
  void end();
  // True once the pass has ended (or for an empty handle).
  bool ended() const;

 private:
  friend class CommandEncoder;
  ComputePass(std::shared_ptr<detail::EncoderState> state, uint32_t index);
  detail::EncoderState& open(const char* operation) const;

  std::shared_ptr<detail::EncoderState> state_;
  uint32_t index_ = 0;  // the pass's number in its encoder, from 1
};

// What a render pass draws into (webgpu.h's WGPURenderPassDescriptor). Each attachment is one
// mip level of one layer of a texture with usage render_target (a d2, d2_array or cube texture).
enum class LoadOp : uint8_t { clear, load, dont_care };
enum class StoreOp : uint8_t { store, discard };
// A clear colour; for r32_uint targets the values are rounded to integers.
struct Color {
  double r = 0, g = 0, b = 0, a = 0;
};
struct RenderPassColorAttachment {
  const Texture* texture = nullptr;
  uint32_t mip = 0, layer = 0;
  LoadOp load_op = LoadOp::clear;
  StoreOp store_op = StoreOp::store;
  Color clear_value;
  // A 4-sample attachment may resolve into a 1-sample texture of the same format and size at the
  // end of the pass (averaging the samples; not for r32_uint).
  const Texture* resolve_target = nullptr;
  uint32_t resolve_mip = 0, resolve_layer = 0;
};
struct RenderPassDepthAttachment {
  const Texture* texture = nullptr;
  uint32_t mip = 0, layer = 0;
  LoadOp depth_load_op = LoadOp::clear;
  StoreOp depth_store_op = StoreOp::store;
  float depth_clear_value = 1.0f;  // in [0, 1]
};
// Attachments must all have the same size and sample count. A pass without attachments draws over
// a render area of width x height pixels (its fragment shaders write buffers); with attachments,
// width and height are left 0 and the area is the attachments' size.
struct RenderPassDescriptor {
  std::vector<RenderPassColorAttachment> color_attachments;
  std::optional<RenderPassDepthAttachment> depth_attachment;
  uint32_t width = 0, height = 0;  // without attachments: the render area, each 1 .. 4096
  std::string label;
};

enum class IndexFormat : uint8_t { uint16, uint32 };

// Clip space maps to the viewport as Vulkan does it: x = -1 is the viewport's left edge, y = -1
// its top row (no flip).
struct Viewport {
  float x = 0, y = 0, width = 0, height = 0;
  float min_depth = 0, max_depth = 1;
};
struct ScissorRect {
  uint32_t x = 0, y = 0, width = 0, height = 0;
};

// A render pass being recorded (webgpu.h's WGPURenderPassEncoder). Move-only; ends like a
// ComputePass (end(), the encoder's next pass or copy, or submission). Viewport and scissor start
// as the whole render area.
// State: set_pipeline, set_bind_group, set_vertex_buffer, set_index_buffer and set_push_constants
// hold until changed, for every later draw. Push constants are state rather than an argument of
// each draw (as ComputePass::dispatch takes them) because draws come many to a pipeline: a mesh
// drawn in pieces sets them once. They must be set, with exactly the pipeline's push-constant
// size, after the pipeline and before a draw that needs them.
// set_pipeline checks the pipeline against the pass: the same colour formats in the same order,
// the same depth format (or none on both sides) and the same sample count (KernelShapeError
// "set_pipeline", argument "pipeline").
// Checks, each before anything is recorded: a draw needs a pipeline (UsageError "draw"), the bind
// group made for that pipeline when it has bindings, a vertex buffer in every slot the pipeline
// reads and the push constants (KernelShapeError); the vertices and instances a direct draw reads
// must lie inside the vertex buffers, and the indices of an indexed draw inside the index buffer
// (indices themselves are read by the GPU and not checked); indirect arguments must lie inside
// their buffer at an offset that is a multiple of 4.
// Ordering: the pass is one scope (hazards as for a compute pass): it sees every write before
// it, and later passes see its writes; draws inside one pass are not ordered against each other's
// buffer writes.
class RenderPass {
 public:
  RenderPass();
  RenderPass(RenderPass&&) noexcept;
  RenderPass& operator=(RenderPass&&) noexcept;
  RenderPass(const RenderPass&) = delete;
  RenderPass& operator=(const RenderPass&) = delete;
  ~RenderPass();

  void set_pipeline(const RenderPipeline& pipeline);
  // A group made by Device::create_bind_group(pipeline, ...) for the pipeline of the next draws.
  void set_bind_group(const BindGroup& group);
  // Slot `slot` of the pipeline's `buffers` reads `buffer` from `offset_bytes` (a multiple of 4).
  void set_vertex_buffer(uint32_t slot, const RawBuffer& buffer, uint64_t offset_bytes = 0);
  // offset_bytes a multiple of the index size.
  void set_index_buffer(const RawBuffer& buffer, IndexFormat format, uint64_t offset_bytes = 0);
  // Inside the render area, width and height above 0, depths in [0, 1].
  void set_viewport(const Viewport& viewport);
  // Inside the render area.
  void set_scissor(const ScissorRect& rect);
  void set_push_constants(std::span<const std::byte> bytes);
  template <class P>
  void set_push_constants(const P& push) {
    static_assert(std::is_trivially_copyable_v<P>);
    set_push_constants(std::as_bytes(std::span<const P>(&push, 1)));
  }

  void draw(uint32_t vertex_count, uint32_t instance_count = 1, uint32_t first_vertex = 0,
            uint32_t first_instance = 0);
  void draw_indexed(uint32_t index_count, uint32_t instance_count = 1, uint32_t first_index = 0,
                    int32_t base_vertex = 0, uint32_t first_instance = 0);
  // Arguments read by the GPU from `args` at `offset_bytes`: four uint32 (vertex count, instance
  // count, first vertex, first instance), five for draw_indexed_indirect (index count, instance
  // count, first index, base vertex as int32, first instance). They may be written by an earlier
  // pass of the same encoder. The host never sees them: the vertex and index ranges they name are
  // not checked. A first instance other than 0 needs a device that offers it (Vulkan's
  // drawIndirectFirstInstance, enabled whenever offered: lavapipe and the desktop drivers do).
  void draw_indirect(const RawBuffer& args, uint64_t offset_bytes);
  void draw_indexed_indirect(const RawBuffer& args, uint64_t offset_bytes);

  void end();
  bool ended() const;

 private:
  friend class CommandEncoder;
  struct State;
  RenderPass(std::shared_ptr<detail::EncoderState> state, uint32_t index);
  detail::EncoderState& open(const char* operation) const;
  void check_draw(const char* operation, detail::EncoderState& s) const;
  void check_vertices(const char* operation, VertexStepMode mode, uint64_t first, uint64_t count) const;

  std::shared_ptr<detail::EncoderState> state_;
  uint32_t index_ = 0;
  std::unique_ptr<State> st_;
};

class CommandEncoder {
 public:
  CommandEncoder();
  explicit CommandEncoder(std::unique_ptr<backend::Encoder> impl);
  CommandEncoder(CommandEncoder&&) noexcept;
  CommandEncoder& operator=(CommandEncoder&&) noexcept;
  CommandEncoder(const CommandEncoder&) = delete;
  CommandEncoder& operator=(const CommandEncoder&) = delete;
  ~CommandEncoder();

  // Ends the pass in progress, if any, and starts a compute pass.
  ComputePass begin_compute_pass();

  // Ends the pass in progress, if any, and starts a render pass. Throws KernelShapeError
  // (operation "begin_render_pass", argument naming the field) for an empty or foreign texture, a
  // texture without usage render_target, a mip or layer past the texture's, a colour attachment of
  // a depth format (or a depth attachment of a colour one), attachments of different sizes or
  // sample counts, a resolve target that is not a 1-sample texture of the attachment's format and
  // size (or a resolve of a 1-sample or r32_uint attachment), a depth clear value outside [0, 1],
  // a render area given with attachments or outside 1 .. 4096 without them.
  RenderPass begin_render_pass(const RenderPassDescriptor& descriptor);

  // Copies bytes between buffers; ends the pass in progress. Offsets and size must be multiples
  // of 4 and inside both buffers.
  void copy_buffer(const RawBuffer& src, uint64_t src_offset, const RawBuffer& dst,
                   uint64_t dst_offset, uint64_t bytes);

  // Texture copies (docs/textures.md); each ends the pass in progress and is ordered like any
  // other copy. The buffer side follows `layout`; the texture side is `region` (zero extents run
  // to the mip's edge). Checked before recording: the texture's usage (copy_dst / copy_src), a
  // copyable single-sample format, the region inside the texture, the layout's alignment and that
  // its bytes lie inside the buffer (KernelShapeError, operation named, argument "layout",
  // "region", "src", "dst"); the device (UsageError).
  void copy_buffer_to_texture(const RawBuffer& src, const BufferTextureLayout& layout, const Texture& dst,
                              const TextureRegion& region);
  void copy_texture_to_buffer(const Texture& src, const TextureRegion& region, const RawBuffer& dst,
                              const BufferTextureLayout& layout);
  // Copies `region` of `src` to `dst` at `origin` (same format and sample count; a d3 region's
  // depth slices may land on layers and back). Within one texture the regions must not overlap.
  void copy_texture(const Texture& src, const TextureRegion& region, const Texture& dst, const TextureOrigin& origin);
  // Fills mips 1.. of every layer from mip 0, each from the one before with a linear 2x2 (2x2x2
  // for d3) box filter (a blit). Needs usage copy_src|copy_dst and a format the device blits with
  // a linear filter (TextureCapabilities::formats[f].blit and filterable). A one-mip texture
  // records nothing.
  void generate_mipmaps(const Texture& texture);

  // The next passes write their start and end times into consecutive slots of `set`
  // (pass i: slots 2i and 2i+1) until the set is full.
  void begin_pass_timing(TimestampSet& set);

  // Long submissions. report_work() adds an estimate of the operations the work recorded since
  // the last split performs (any consistent unit; the library's families count arithmetic
  // operations). Once the total passes the device's submission work budget
  // (DeviceOptions::submission_work_budget), the encoder starts a new command buffer at the next
  // pass or copy, and submit() sends the command buffers as consecutive submissions, in order,
  // with the same ordering guarantees as one. split_submission() asks for such a split at the
  // next pass or copy whatever the budget. Without a budget report_work() only counts.
  void report_work(uint64_t operations);
  void split_submission();
  // The submissions submit() will make for what was recorded so far (1 for an empty encoder).
  uint32_t submission_count() const;

  // What was recorded since the device handed the encoder out.
  uint32_t compute_pass_count() const;
  uint32_t dispatch_count() const;
  uint32_t render_pass_count() const;
  uint32_t draw_count() const;  // direct and indirect draws

  explicit operator bool() const;
  backend::Encoder& impl() const;
  // Ends the pass in progress and hands the recording over (Device::submit); the encoder and its
  // passes refuse further work with UsageError.
  std::unique_ptr<backend::Encoder> release();

 private:
  detail::EncoderState& state(const char* operation) const;
  std::shared_ptr<detail::EncoderState> state_;
};

}  // namespace onegpu
