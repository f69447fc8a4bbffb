// The part of Dawn's C API (webgpu.h) this backend calls, declared here because the Dawn it loads
// ships no header. Layouts follow the Dawn tools/setup-webgpu.sh installs (a mid-2025 Dawn); what
// changed in Dawn during 2025 is partly checked when a device opens (device.cpp: the limits' size,
// the first bind group layout, a start-up kernel) or not read at all (the work-done callback's
// arguments). Not checked: the feature numbers (later 2025 headers renumbered them), the
// pass-timestamp and adapter-info layouts; a different Dawn given through ONEGPU_WEBGPU_LIBRARY may
// report the wrong features.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onegpu::webgpu::abi {

using Bool = uint32_t;
using Flags = uint64_t;

// Opaque handles.
struct InstanceImpl; using Instance = InstanceImpl*;
struct AdapterImpl; using Adapter = AdapterImpl*;
struct DeviceImpl; using Device = DeviceImpl*;
struct QueueImpl; using Queue = QueueImpl*;
struct BufferImpl; using Buffer = BufferImpl*;
struct ShaderModuleImpl; using ShaderModule = ShaderModuleImpl*;
struct BindGroupLayoutImpl; using BindGroupLayout = BindGroupLayoutImpl*;
struct BindGroupImpl; using BindGroup = BindGroupImpl*;
struct PipelineLayoutImpl; using PipelineLayout = PipelineLayoutImpl*;
struct ComputePipelineImpl; using ComputePipeline = ComputePipelineImpl*;
struct CommandEncoderImpl; using CommandEncoder = CommandEncoderImpl*;
struct ComputePassEncoderImpl; using ComputePassEncoder = ComputePassEncoderImpl*;
struct CommandBufferImpl; using CommandBuffer = CommandBufferImpl*;
struct QuerySetImpl; using QuerySet = QuerySetImpl*;

constexpr size_t kStrlen = SIZE_MAX;
constexpr uint64_t kWholeSize = UINT64_MAX;

enum class SType : uint32_t { shader_source_spirv = 0x1, shader_source_wgsl = 0x2, dawn_toggles = 0x5000A };
enum class CallbackMode : uint32_t { wait_any_only = 1, allow_process_events = 2, allow_spontaneous = 3 };
enum class ErrorType : uint32_t { no_error = 1, validation = 2, out_of_memory = 3, internal = 4, unknown = 5 };
enum class ErrorFilter : uint32_t { validation = 1, out_of_memory = 2, internal = 3 };
enum class MapAsyncStatus : uint32_t { success = 1, callback_cancelled = 2, error = 3, aborted = 4 };
enum class RequestStatus : uint32_t { success = 1 };  // adapter and device requests alike
enum class PopErrorScopeStatus : uint32_t { success = 1 };
enum class QueueWorkDoneStatus : uint32_t { success = 1 };
enum class Status : uint32_t { success = 1, error = 2 };
enum class AdapterType : uint32_t { discrete = 1, integrated = 2, cpu = 3, unknown = 4 };
enum class BackendType : uint32_t { undefined = 0, null = 1, vulkan = 6 };
enum class FeatureLevel : uint32_t { undefined = 0, compatibility = 1, core = 2 };
enum class PowerPreference : uint32_t { undefined = 0, low_power = 1, high_performance = 2 };
enum class BufferBindingType : uint32_t { not_used = 0, undefined = 1, uniform = 2, storage = 3, read_only_storage = 4 };
enum class QueryType : uint32_t { occlusion = 1, timestamp = 2 };
enum class LoggingType : uint32_t { verbose = 1, info = 2, warning = 3, error = 4 };
enum class DeviceLostReason : uint32_t { unknown = 1, destroyed = 2, callback_cancelled = 3, failed_creation = 4 };
enum class FeatureName : uint32_t { timestamp_query = 0x3, shader_f16 = 0xA, subgroups = 0x11 };

namespace buffer_usage {
constexpr Flags map_read = 0x1, map_write = 0x2, copy_src = 0x4, copy_dst = 0x8, uniform = 0x40,
                storage = 0x80, indirect = 0x100, query_resolve = 0x200;
}
constexpr Flags kMapModeRead = 0x1;
constexpr Flags kShaderStageCompute = 0x4;

struct StringView {
  const char* data = nullptr;
  size_t length = kStrlen;
};
struct ChainedStruct {
  const ChainedStruct* next = nullptr;
  SType s_type{};
};
struct Future {
  uint64_t id = 0;
};
struct FutureWaitInfo {
  Future future;
  Bool completed = 0;
};
enum class WaitStatus : uint32_t { success = 1, timed_out = 2, error = 3 };

using RequestAdapterCallback = void (*)(RequestStatus, Adapter, StringView, void*, void*);
using RequestDeviceCallback = void (*)(RequestStatus, Device, StringView, void*, void*);
using DeviceLostCallback = void (*)(const Device*, DeviceLostReason, StringView, void*, void*);
using UncapturedErrorCallback = void (*)(const Device*, ErrorType, StringView, void*, void*);
using BufferMapCallback = void (*)(MapAsyncStatus, StringView, void*, void*);
using PopErrorScopeCallback = void (*)(PopErrorScopeStatus, ErrorType, StringView, void*, void*);
// Dawn added a message after the status during 2025; the backend waits on its future instead of
// reading any argument after the status, which fits either form.
using QueueWorkDoneCallback = void (*)(QueueWorkDoneStatus);
using LoggingCallback = void (*)(LoggingType, StringView, void*, void*);

// Every *CallbackInfo but the uncaptured-error and logging ones has this shape.
template <class Callback>
struct CallbackInfo {
  const ChainedStruct* next = nullptr;
  CallbackMode mode = CallbackMode::allow_process_events;
  Callback callback = nullptr;
  void* userdata1 = nullptr;
  void* userdata2 = nullptr;
};
template <class Callback>
struct ModelessCallbackInfo {  // uncaptured errors, logging
  const ChainedStruct* next = nullptr;
  Callback callback = nullptr;
  void* userdata1 = nullptr;
  void* userdata2 = nullptr;
};

struct RequestAdapterOptions {
  const ChainedStruct* next = nullptr;
  FeatureLevel feature_level = FeatureLevel::core;
  PowerPreference power_preference = PowerPreference::undefined;
  Bool force_fallback_adapter = 0;
  BackendType backend_type = BackendType::undefined;
  void* compatible_surface = nullptr;
};

// The prefix of WGPULimits every Dawn of 2025 shares. The members after it changed during the year
// (this Dawn has one more, maxImmediateSize), so the struct is only ever read from or passed back
// to Dawn inside a LimitsStorage, and the start-up check verifies Dawn writes no further.
struct LimitsPrefix {
  const ChainedStruct* next;
  uint32_t max_texture_dimension_1d, max_texture_dimension_2d, max_texture_dimension_3d, max_texture_array_layers;
  uint32_t max_bind_groups, max_bind_groups_plus_vertex_buffers, max_bindings_per_bind_group;
  uint32_t max_dynamic_uniform_buffers_per_pipeline_layout, max_dynamic_storage_buffers_per_pipeline_layout;
  uint32_t max_sampled_textures_per_shader_stage, max_samplers_per_shader_stage;
  uint32_t max_storage_buffers_per_shader_stage, max_storage_textures_per_shader_stage;
  uint32_t max_uniform_buffers_per_shader_stage;
  uint64_t max_uniform_buffer_binding_size, max_storage_buffer_binding_size;
  uint32_t min_uniform_buffer_offset_alignment, min_storage_buffer_offset_alignment;
  uint32_t max_vertex_buffers;
  uint64_t max_buffer_size;
  uint32_t max_vertex_attributes, max_vertex_buffer_array_stride, max_inter_stage_shader_variables;
  uint32_t max_color_attachments, max_color_attachment_bytes_per_sample;
  uint32_t max_compute_workgroup_storage_size, max_compute_invocations_per_workgroup;
  uint32_t max_compute_workgroup_size_x, max_compute_workgroup_size_y, max_compute_workgroup_size_z;
  uint32_t max_compute_workgroups_per_dimension;
};
static_assert(offsetof(LimitsPrefix, max_uniform_buffer_binding_size) == 64);
static_assert(offsetof(LimitsPrefix, max_buffer_size) == 96);
static_assert(sizeof(LimitsPrefix) == 152);
// Room for any WGPULimits of the period, filled with a marker before Dawn writes it.
union LimitsStorage {
  LimitsPrefix prefix;
  uint32_t words[64];
};

struct DawnTogglesDescriptor {
  ChainedStruct chain{nullptr, SType::dawn_toggles};
  size_t enabled_count = 0;
  const char* const* enabled = nullptr;
  size_t disabled_count = 0;
  const char* const* disabled = nullptr;
};
struct QueueDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
};
struct DeviceDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
  size_t required_feature_count = 0;
  const FeatureName* required_features = nullptr;
  const LimitsStorage* required_limits = nullptr;
  QueueDescriptor default_queue;
  CallbackInfo<DeviceLostCallback> device_lost;
  ModelessCallbackInfo<UncapturedErrorCallback> uncaptured_error;
};
struct AdapterInfo {
  const ChainedStruct* next = nullptr;
  StringView vendor, architecture, device, description;
  BackendType backend_type{};
  AdapterType adapter_type{};
  uint32_t vendor_id = 0, device_id = 0;
  uint32_t subgroup_min_size = 0, subgroup_max_size = 0;
};
struct SupportedFeatures {
  size_t count = 0;
  const FeatureName* features = nullptr;
};

struct BufferDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
  Flags usage = 0;
  uint64_t size = 0;
  Bool mapped_at_creation = 0;
};

struct ShaderSourceWGSL {
  ChainedStruct chain{nullptr, SType::shader_source_wgsl};
  StringView code;
};
struct ShaderSourceSPIRV {
  ChainedStruct chain{nullptr, SType::shader_source_spirv};
  uint32_t code_size = 0;  // words
  const uint32_t* code = nullptr;
};
struct ShaderModuleDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
};

struct BufferBindingLayout {
  const ChainedStruct* next = nullptr;
  BufferBindingType type = BufferBindingType::not_used;
  Bool has_dynamic_offset = 0;
  uint64_t min_binding_size = 0;
};
struct SamplerBindingLayout {
  const ChainedStruct* next = nullptr;
  uint32_t type = 0;  // not used
};
struct TextureBindingLayout {
  const ChainedStruct* next = nullptr;
  uint32_t sample_type = 0, view_dimension = 0;  // not used
  Bool multisampled = 0;
};
struct StorageTextureBindingLayout {
  const ChainedStruct* next = nullptr;
  uint32_t access = 0, format = 0, view_dimension = 0;  // not used
};
// WGPUBindGroupLayoutEntry as this Dawn has it (with bindingArraySize, which binding arrays
// added); the device's first layout fails on a Dawn that reads it otherwise.
struct BindGroupLayoutEntry {
  const ChainedStruct* next = nullptr;
  uint32_t binding = 0;
  Flags visibility = 0;
  uint32_t binding_array_size = 0;  // 0: not an array
  BufferBindingLayout buffer;
  SamplerBindingLayout sampler;
  TextureBindingLayout texture;
  StorageTextureBindingLayout storage_texture;
};
struct BindGroupLayoutDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
  size_t entry_count = 0;
  const BindGroupLayoutEntry* entries = nullptr;
};
struct PipelineLayoutDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
  size_t bind_group_layout_count = 0;
  const BindGroupLayout* bind_group_layouts = nullptr;
  uint32_t immediate_size = 0;
};
struct ConstantEntry {
  const ChainedStruct* next = nullptr;
  StringView key;
  double value = 0;
};
struct ComputeState {
  const ChainedStruct* next = nullptr;
  ShaderModule module = nullptr;
  StringView entry_point;
  size_t constant_count = 0;
  const ConstantEntry* constants = nullptr;
};
struct ComputePipelineDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
  PipelineLayout layout = nullptr;
  ComputeState compute;
};
struct BindGroupEntry {
  const ChainedStruct* next = nullptr;
  uint32_t binding = 0;
  Buffer buffer = nullptr;
  uint64_t offset = 0;
  uint64_t size = kWholeSize;
  void* sampler = nullptr;
  void* texture_view = nullptr;
};
struct BindGroupDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
  BindGroupLayout layout = nullptr;
  size_t entry_count = 0;
  const BindGroupEntry* entries = nullptr;
};
struct CommandEncoderDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
};
struct PassTimestampWrites {
  const ChainedStruct* next = nullptr;
  QuerySet query_set = nullptr;
  uint32_t beginning_of_pass_write_index = 0, end_of_pass_write_index = 0;
};
struct ComputePassDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
  const PassTimestampWrites* timestamp_writes = nullptr;
};
struct CommandBufferDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
};
struct QuerySetDescriptor {
  const ChainedStruct* next = nullptr;
  StringView label;
  QueryType type = QueryType::timestamp;
  uint32_t count = 0;
};

// The entry points, as one table: X(return type, name, parameters).
#define ONEGPU_WGPU_FUNCTIONS(X)                                                                       \
  X(Instance, wgpuCreateInstance, (const void* descriptor))                                             \
  X(void, wgpuInstanceRelease, (Instance))                                                              \
  X(Future, wgpuInstanceRequestAdapter, (Instance, const RequestAdapterOptions*,                       \
                                         CallbackInfo<RequestAdapterCallback>))                        \
  X(void, wgpuInstanceProcessEvents, (Instance))                                                        \
  X(WaitStatus, wgpuInstanceWaitAny, (Instance, size_t count, FutureWaitInfo*, uint64_t timeout_ns))    \
  X(Bool, wgpuInstanceHasWGSLLanguageFeature, (Instance, uint32_t feature))                             \
  X(void, wgpuAdapterRelease, (Adapter))                                                                \
  X(Status, wgpuAdapterGetInfo, (Adapter, AdapterInfo*))                                                \
  X(void, wgpuAdapterInfoFreeMembers, (AdapterInfo))                                                    \
  X(Status, wgpuAdapterGetLimits, (Adapter, LimitsStorage*))                                            \
  X(Bool, wgpuAdapterHasFeature, (Adapter, FeatureName))                                                \
  X(Future, wgpuAdapterRequestDevice, (Adapter, const DeviceDescriptor*, CallbackInfo<RequestDeviceCallback>)) \
  X(void, wgpuDeviceRelease, (Device))                                                                  \
  X(void, wgpuDeviceDestroy, (Device))                                                                  \
  X(Queue, wgpuDeviceGetQueue, (Device))                                                                \
  X(Status, wgpuDeviceGetLimits, (Device, LimitsStorage*))                                              \
  X(Bool, wgpuDeviceHasFeature, (Device, FeatureName))                                                  \
  X(void, wgpuDeviceSetLoggingCallback, (Device, ModelessCallbackInfo<LoggingCallback>))                \
  X(void, wgpuDevicePushErrorScope, (Device, ErrorFilter))                                              \
  X(Future, wgpuDevicePopErrorScope, (Device, CallbackInfo<PopErrorScopeCallback>))                    \
  X(void, wgpuDeviceTick, (Device))                                                                     \
  X(void, wgpuDeviceInjectError, (Device, ErrorType, StringView))                                       \
  X(Buffer, wgpuDeviceCreateBuffer, (Device, const BufferDescriptor*))                                  \
  X(ShaderModule, wgpuDeviceCreateShaderModule, (Device, const ShaderModuleDescriptor*))                \
  X(BindGroupLayout, wgpuDeviceCreateBindGroupLayout, (Device, const BindGroupLayoutDescriptor*))       \
  X(PipelineLayout, wgpuDeviceCreatePipelineLayout, (Device, const PipelineLayoutDescriptor*))          \
  X(ComputePipeline, wgpuDeviceCreateComputePipeline, (Device, const ComputePipelineDescriptor*))       \
  X(BindGroup, wgpuDeviceCreateBindGroup, (Device, const BindGroupDescriptor*))                         \
  X(CommandEncoder, wgpuDeviceCreateCommandEncoder, (Device, const CommandEncoderDescriptor*))          \
  X(QuerySet, wgpuDeviceCreateQuerySet, (Device, const QuerySetDescriptor*))                            \
  X(void, wgpuQueueRelease, (Queue))                                                                    \
  X(void, wgpuQueueWriteBuffer, (Queue, Buffer, uint64_t offset, const void* data, size_t size))        \
  X(void, wgpuQueueSubmit, (Queue, size_t count, const CommandBuffer* commands))                        \
  X(Future, wgpuQueueOnSubmittedWorkDone, (Queue, CallbackInfo<QueueWorkDoneCallback>))                \
  X(void, wgpuBufferRelease, (Buffer))                                                                  \
  X(void, wgpuBufferDestroy, (Buffer))                                                                  \
  X(Future, wgpuBufferMapAsync, (Buffer, Flags mode, size_t offset, size_t size,                        \
                                 CallbackInfo<BufferMapCallback>))                                     \
  X(const void*, wgpuBufferGetConstMappedRange, (Buffer, size_t offset, size_t size))                   \
  X(void, wgpuBufferUnmap, (Buffer))                                                                    \
  X(void, wgpuShaderModuleRelease, (ShaderModule))                                                      \
  X(void, wgpuBindGroupLayoutRelease, (BindGroupLayout))                                                \
  X(void, wgpuBindGroupRelease, (BindGroup))                                                            \
  X(void, wgpuPipelineLayoutRelease, (PipelineLayout))                                                  \
  X(void, wgpuComputePipelineRelease, (ComputePipeline))                                                \
  X(void, wgpuQuerySetRelease, (QuerySet))                                                              \
  X(void, wgpuQuerySetDestroy, (QuerySet))                                                              \
  X(void, wgpuCommandEncoderClearBuffer, (CommandEncoder, Buffer, uint64_t offset, uint64_t size))      \
  X(void, wgpuCommandEncoderRelease, (CommandEncoder))                                                  \
  X(ComputePassEncoder, wgpuCommandEncoderBeginComputePass, (CommandEncoder, const ComputePassDescriptor*)) \
  X(void, wgpuCommandEncoderCopyBufferToBuffer, (CommandEncoder, Buffer, uint64_t, Buffer, uint64_t, uint64_t)) \
  X(void, wgpuCommandEncoderResolveQuerySet, (CommandEncoder, QuerySet, uint32_t first, uint32_t count, \
                                              Buffer, uint64_t offset))                                \
  X(CommandBuffer, wgpuCommandEncoderFinish, (CommandEncoder, const CommandBufferDescriptor*))          \
  X(void, wgpuCommandBufferRelease, (CommandBuffer))                                                    \
  X(void, wgpuComputePassEncoderRelease, (ComputePassEncoder))                                          \
  X(void, wgpuComputePassEncoderSetPipeline, (ComputePassEncoder, ComputePipeline))                     \
  X(void, wgpuComputePassEncoderSetBindGroup, (ComputePassEncoder, uint32_t index, BindGroup,           \
                                               size_t dynamic_offset_count, const uint32_t* offsets))  \
  X(void, wgpuComputePassEncoderDispatchWorkgroups, (ComputePassEncoder, uint32_t, uint32_t, uint32_t)) \
  X(void, wgpuComputePassEncoderDispatchWorkgroupsIndirect, (ComputePassEncoder, Buffer, uint64_t))     \
  X(void, wgpuComputePassEncoderEnd, (ComputePassEncoder))

// One pointer per entry point.
struct Functions {
#define ONEGPU_WGPU_MEMBER(ret, name, params) ret(*name) params = nullptr;
  ONEGPU_WGPU_FUNCTIONS(ONEGPU_WGPU_MEMBER)
#undef ONEGPU_WGPU_MEMBER
};

}  // namespace onegpu::webgpu::abi
