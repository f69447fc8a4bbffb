#include "vulkan/physical.h"
#include "vulkan/texture.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

namespace onegpu::vulkan {
namespace {

// bfloat16 (VK_KHR_shader_bfloat16) is enabled, and so reported, only when a kernel variant of this
// build uses it (a variant declared with REQUIRES BFLOAT16 that the shader compiler could build):
// a device never turns on an extension no kernel needs. Validation layers before 1.4.311 do not know
// the extension; validation.cpp drops exactly the messages that say so (docs/gpu-machine.md).
#ifdef ONEGPU_KERNELS_USE_BFLOAT16
constexpr bool kUseBfloat16 = true;
#else
constexpr bool kUseBfloat16 = false;
#endif

AdapterKind kind_of(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return AdapterKind::discrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return AdapterKind::integrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return AdapterKind::virtual_gpu;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return AdapterKind::software;
    default: return AdapterKind::other;
  }
}

std::optional<DataType> scalar_of(VkComponentTypeKHR t) {
  switch (static_cast<int>(t)) {
    case VK_COMPONENT_TYPE_FLOAT16_KHR: return DataType::float16;
    case VK_COMPONENT_TYPE_FLOAT32_KHR: return DataType::float32;
    case VK_COMPONENT_TYPE_FLOAT64_KHR: return DataType::float64;
    case VK_COMPONENT_TYPE_SINT8_KHR: return DataType::int8;
    case VK_COMPONENT_TYPE_SINT16_KHR: return DataType::int16;
    case VK_COMPONENT_TYPE_SINT32_KHR: return DataType::int32;
    case VK_COMPONENT_TYPE_SINT64_KHR: return DataType::int64;
    case VK_COMPONENT_TYPE_UINT8_KHR: return DataType::uint8;
    case VK_COMPONENT_TYPE_UINT16_KHR: return DataType::uint16;
    case VK_COMPONENT_TYPE_UINT32_KHR: return DataType::uint32;
    case VK_COMPONENT_TYPE_UINT64_KHR: return DataType::uint64;
    case 1000141000: return DataType::bfloat16;
    default: return std::nullopt;
  }
}

// A, B, C and result types of a listed cooperative-matrix shape.
template <class Props>
std::optional<std::array<DataType, 4>> shape_types(const Props& s) {
  const auto a = scalar_of(s.AType), b = scalar_of(s.BType), c = scalar_of(s.CType), r = scalar_of(s.ResultType);
  if (!a || !b || !c || !r) return std::nullopt;  // a component type DataType does not name: no kernel can use it
  return std::array<DataType, 4>{*a, *b, *c, *r};
}

// Shapes with bfloat16 are left out unless bfloat16 is enabled (see kUseBfloat16) together with
// its cooperative matrices (shaderBFloat16CooperativeMatrix).
bool hides_bfloat16(const ComputeCapabilities& c, bool bfloat16_matrices, const std::array<DataType, 4>& types) {
  return (!c.features.has(ShaderFeature::bfloat16) || !bfloat16_matrices) &&
         std::find(types.begin(), types.end(), DataType::bfloat16) != types.end();
}

PhysicalAdapter read_adapter(const Instance& inst, VkPhysicalDevice pd) {
  const InstanceFunctions& f = inst.fn;
  PhysicalAdapter a;
  a.handle = pd;
  VkPhysicalDeviceProperties base{};
  f.vkGetPhysicalDeviceProperties(pd, &base);
  const bool v13 = base.apiVersion >= VK_API_VERSION_1_3;

  uint32_t n = 0;
  f.vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  f.vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data());
  for (auto& e : exts) {
    if (std::strcmp(e.extensionName, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) a.has_cooperative_matrix_ext = true;
    if (std::strcmp(e.extensionName, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME) == 0) a.has_cooperative_matrix2_ext = true;
    if (std::strcmp(e.extensionName, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0)
      a.has_pipeline_executable_properties_ext = true;
    if (kUseBfloat16 && std::strcmp(e.extensionName, VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME) == 0)
      a.has_bfloat16_ext = true;
    if (std::strcmp(e.extensionName, VK_KHR_SWAPCHAIN_EXTENSION_NAME) == 0) a.has_swapchain_ext = true;
  }
  a.info.surface_support = inst.surfaces && a.has_swapchain_ext;

  VkPhysicalDeviceVulkan11Properties p11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  VkPhysicalDeviceVulkan12Properties p12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
  VkPhysicalDeviceVulkan13Properties p13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceFeatures2 feats{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR fcm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  VkPhysicalDeviceShaderBfloat16FeaturesKHR fbf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR};
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV fcm2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fpe{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  VkPhysicalDeviceCooperativeMatrix2PropertiesNV pcm2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV};
  const bool cm2 = a.has_cooperative_matrix_ext && a.has_cooperative_matrix2_ext;
  if (v13) {
    props.pNext = &p11;
    p11.pNext = &p12;
    p12.pNext = &p13;
    feats.pNext = &f11;
    f11.pNext = &f12;
    f12.pNext = &f13;
    void** tail = &f13.pNext;
    if (a.has_cooperative_matrix_ext) { *tail = &fcm; tail = &fcm.pNext; }
    if (a.has_bfloat16_ext) { *tail = &fbf; tail = &fbf.pNext; }
    if (a.has_pipeline_executable_properties_ext) { *tail = &fpe; tail = &fpe.pNext; }
    if (cm2) {
      *tail = &fcm2;
      tail = &fcm2.pNext;
      p13.pNext = &pcm2;
    }
  }
  f.vkGetPhysicalDeviceProperties2(pd, &props);
  f.vkGetPhysicalDeviceFeatures2(pd, &feats);
  const VkPhysicalDeviceLimits& lim = props.properties.limits;

  AdapterInfo& info = a.info;
  info.name = props.properties.deviceName;
  info.kind = kind_of(props.properties.deviceType);
  info.vendor_id = props.properties.vendorID;
  info.device_id = props.properties.deviceID;
  info.api_version = {VK_API_VERSION_MAJOR(base.apiVersion), VK_API_VERSION_MINOR(base.apiVersion),
                      VK_API_VERSION_PATCH(base.apiVersion)};
  std::memcpy(info.pipeline_cache_uuid.data(), props.properties.pipelineCacheUUID, 16);
  if (v13) {
    info.driver_name = p12.driverName;
    info.driver_info = p12.driverInfo;
  }

  ComputeCapabilities& c = info.compute;
  if (v13) {
    c.subgroup_size = p11.subgroupSize;
    c.min_subgroup_size = p13.minSubgroupSize;
    c.max_subgroup_size = p13.maxSubgroupSize;
    c.max_workgroup_subgroups = p13.maxComputeWorkgroupSubgroups;
    c.max_buffer_size = p13.maxBufferSize;
    c.subgroup_size_control = f13.subgroupSizeControl && (p13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
    c.full_subgroups = f13.computeFullSubgroups;
    c.kernel_statistics = a.has_pipeline_executable_properties_ext && fpe.pipelineExecutableInfo;
    if (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) {
      VkSubgroupFeatureFlags o = p11.subgroupSupportedOperations;
      SubgroupOperations& s = c.subgroup_operations;
      s.basic = o & VK_SUBGROUP_FEATURE_BASIC_BIT;
      s.vote = o & VK_SUBGROUP_FEATURE_VOTE_BIT;
      s.arithmetic = o & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
      s.ballot = o & VK_SUBGROUP_FEATURE_BALLOT_BIT;
      s.shuffle = o & VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
      s.shuffle_relative = o & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
      s.clustered = o & VK_SUBGROUP_FEATURE_CLUSTERED_BIT;
      s.quad = o & VK_SUBGROUP_FEATURE_QUAD_BIT;
    }
    using F = ShaderFeature;
    const std::pair<bool, F> table[] = {
        {f12.shaderFloat16 != 0, F::float16}, {feats.features.shaderFloat64 != 0, F::float64},
        {f12.shaderInt8 != 0, F::int8}, {feats.features.shaderInt16 != 0, F::int16},
        {feats.features.shaderInt64 != 0, F::int64},
        {f12.storageBuffer8BitAccess != 0, F::storage_buffer_8bit},
        {f11.storageBuffer16BitAccess != 0, F::storage_buffer_16bit},
        {f13.shaderIntegerDotProduct != 0, F::integer_dot_product},
        {fbf.shaderBFloat16Type != 0, F::bfloat16},
        {fcm.cooperativeMatrix != 0, F::cooperative_matrix},
        {c.full_subgroups, F::full_subgroups},
        {c.subgroup_operations.basic, F::subgroup_basic}, {c.subgroup_operations.vote, F::subgroup_vote},
        {c.subgroup_operations.arithmetic, F::subgroup_arithmetic},
        {c.subgroup_operations.ballot, F::subgroup_ballot},
        {c.subgroup_operations.shuffle, F::subgroup_shuffle},
        {c.subgroup_operations.shuffle_relative, F::subgroup_shuffle_relative},
        {c.subgroup_operations.clustered, F::subgroup_clustered},
        {c.subgroup_operations.quad, F::subgroup_quad}};
    for (auto& [on, feature] : table)
      if (on) c.features |= feature;
    a.bfloat16_cooperative_matrix = fbf.shaderBFloat16CooperativeMatrix;
    if (cm2 && fcm.cooperativeMatrix) {
      a.cooperative_matrix2 = fcm2;
      a.cooperative_matrix2.pNext = nullptr;
      // The feature the library's kernels rely on: workgroup scope with flexible dimensions,
      // tensor addressing, per-element operations and reductions.
      if (fcm2.cooperativeMatrixWorkgroupScope && fcm2.cooperativeMatrixFlexibleDimensions &&
          fcm2.cooperativeMatrixTensorAddressing && fcm2.cooperativeMatrixPerElementOperations &&
          fcm2.cooperativeMatrixReductions)
        c.features |= F::cooperative_matrix2;
      c.cooperative_matrix_workgroup_max_invocations = pcm2.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize;
      c.cooperative_matrix_workgroup_reserved_memory_bytes = pcm2.cooperativeMatrixWorkgroupScopeReservedSharedMemory;
    }
    a.vulkan_memory_model = f12.vulkanMemoryModel;
    a.vulkan_memory_model_device_scope = f12.vulkanMemoryModelDeviceScope;
    a.subgroup_extended_types = f12.shaderSubgroupExtendedTypes;
    a.maintenance4 = f13.maintenance4;
    a.timeline_semaphore = f12.timelineSemaphore;
    a.synchronization2 = f13.synchronization2;
  }
  for (int i = 0; i < 3; ++i) {
    c.max_workgroup_size[i] = lim.maxComputeWorkGroupSize[i];
    c.max_workgroup_count[i] = lim.maxComputeWorkGroupCount[i];
  }
  c.max_workgroup_invocations = lim.maxComputeWorkGroupInvocations;
  c.max_workgroup_memory_bytes = lim.maxComputeSharedMemorySize;
  c.max_push_constants_bytes = lim.maxPushConstantsSize;
  info.texture = read_texture_capabilities(f, pd, lim, feats.features.samplerAnisotropy != 0);
  c.max_storage_buffer_range = lim.maxStorageBufferRange;
  c.max_uniform_buffer_range = lim.maxUniformBufferRange;
  c.min_storage_buffer_offset_alignment = lim.minStorageBufferOffsetAlignment;
  c.max_memory_allocation_size = v13 ? p11.maxMemoryAllocationSize : 0;

  f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
  for (uint32_t i = 0; i < n; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      a.queue_family = i;
      a.timestamp_valid_bits = families[i].timestampValidBits;
      break;
    }
  }
  c.timestamps = a.timestamp_valid_bits > 0 && lim.timestampPeriod > 0;
  c.timestamp_period_ns = lim.timestampPeriod;

  if (fcm.cooperativeMatrix && f.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR) {
    uint32_t count = 0;
    f.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(pd, &count, nullptr);
    std::vector<VkCooperativeMatrixPropertiesKHR> shapes(count, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR});
    f.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(pd, &count, shapes.data());
    for (auto& s : shapes) {
      if (s.scope != VK_SCOPE_SUBGROUP_KHR) continue;
      const auto listed = shape_types(s);
      if (!listed || hides_bfloat16(c, a.bfloat16_cooperative_matrix, *listed)) continue;
      const std::array<DataType, 4>& types = *listed;
      c.cooperative_matrix_shapes.push_back({s.MSize, s.NSize, s.KSize, types[0], types[1], types[2], types[3],
                                             s.saturatingAccumulation != 0});
    }
  }
  if (c.features.has(ShaderFeature::cooperative_matrix2) &&
      f.vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV) {
    uint32_t count = 0;
    f.vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV(pd, &count, nullptr);
    std::vector<VkCooperativeMatrixFlexibleDimensionsPropertiesNV> shapes(
        count, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV});
    f.vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV(pd, &count, shapes.data());
    for (auto& s : shapes) {
      if (s.scope != VK_SCOPE_WORKGROUP_KHR) continue;
      const auto listed = shape_types(s);
      if (!listed || hides_bfloat16(c, a.bfloat16_cooperative_matrix, *listed)) continue;
      const std::array<DataType, 4>& types = *listed;
      c.cooperative_matrix_workgroup_shapes.push_back({s.MGranularity, s.NGranularity, s.KGranularity, types[0], types[1],
                                                       types[2], types[3], s.saturatingAccumulation != 0,
                                                       s.workgroupInvocations});
    }
  }
  return a;
}

}  // namespace

std::vector<PhysicalAdapter> physical_adapters(const Instance& inst) {
  uint32_t n = 0;
  inst.fn.vkEnumeratePhysicalDevices(inst.handle, &n, nullptr);
  std::vector<VkPhysicalDevice> pds(n);
  inst.fn.vkEnumeratePhysicalDevices(inst.handle, &n, pds.data());
  std::vector<PhysicalAdapter> out;
  for (auto pd : pds) out.push_back(read_adapter(inst, pd));
  std::stable_sort(out.begin(), out.end(),
                   [](const PhysicalAdapter& x, const PhysicalAdapter& y) { return adapter_before(x.info, y.info); });
  return out;
}

}  // namespace onegpu::vulkan
