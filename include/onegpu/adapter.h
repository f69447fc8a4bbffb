// onegpu/adapter.h - the GPUs (and software drivers) a backend can see, in a stable order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onegpu/capabilities.h"

namespace onegpu {

enum class Backend { vulkan, metal, webgpu };
const char* backend_name(Backend b);

// The order kinds sort in: discrete GPUs first, software drivers late.
enum class AdapterKind { discrete, integrated, virtual_gpu, software, other };
const char* adapter_kind_name(AdapterKind k);  // "discrete", "integrated", "virtual", ...

struct ApiVersion {
  uint32_t major = 0, minor = 0, patch = 0;
  friend auto operator<=>(const ApiVersion&, const ApiVersion&) = default;
  std::string to_string() const;
};

struct AdapterInfo {
  Backend backend = Backend::vulkan;  // the backend that lists it
  std::string name;
  AdapterKind kind = AdapterKind::other;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  ApiVersion api_version;
  std::string driver_name;  // "llvmpipe", "NVIDIA", ... (empty when not reported)
  std::string driver_info;  // the driver's version text
  std::array<uint8_t, 16> pipeline_cache_uuid{};
  ComputeCapabilities compute;
  TextureCapabilities texture;
  // The device can present to windows (onegpu/surface.h): the loader offers VK_KHR_surface and
  // VK_KHR_xcb_surface and the adapter VK_KHR_swapchain. False leaves everything else working.
  bool surface_support = false;
};

// The total order adapters are listed in, whatever order the driver enumerates them: kind, then
// vendor id, device id, name, API version (newest first), pipeline-cache UUID. True if a sorts
// before b.
bool adapter_before(const AdapterInfo& a, const AdapterInfo& b);

// Sorts into that order.
void sort_adapters(std::vector<AdapterInfo>& adapters);

// Index of the first adapter in `sorted` that matches `query`: a kind ("discrete", "integrated",
// "software", any case) or a case-insensitive substring of the name. An empty query takes the
// first adapter. Throws UnsupportedError (capability "adapter") when nothing matches or the list
// is empty.
size_t select_adapter(const std::vector<AdapterInfo>& sorted, std::string_view query);

// The backend chosen by ONEGPU_BACKEND ("vulkan" or "webgpu", any case; Vulkan when unset or
// unrecognised). Metal is not implemented yet: asking for it throws UnsupportedError naming it.
Backend selected_backend();

// Every adapter the selected backend can see, in adapter order. Empty when no driver or loader is
// installed (this never throws for a missing loader).
std::vector<AdapterInfo> enumerate_adapters();
// The same for one backend, whatever ONEGPU_BACKEND says (Metal: UnsupportedError). WebGPU lists
// the default adapter of the Dawn library it finds (see docs/webgpu.md), or nothing.
std::vector<AdapterInfo> enumerate_adapters(Backend backend);

}  // namespace onegpu
