#include <algorithm>
#include <tuple>

#include "backend/backend.h"
#include "core/env.h"
#include "onegpu/adapter.h"
#include "onegpu/errors.h"

namespace onegpu {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::vulkan: return "vulkan";
    case Backend::metal: return "metal";
    case Backend::webgpu: return "webgpu";
  }
  return "unknown";
}

const char* adapter_kind_name(AdapterKind k) {
  switch (k) {
    case AdapterKind::discrete: return "discrete";
    case AdapterKind::integrated: return "integrated";
    case AdapterKind::virtual_gpu: return "virtual";
    case AdapterKind::software: return "software";
    case AdapterKind::other: return "other";
  }
  return "other";
}

std::string ApiVersion::to_string() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

bool adapter_before(const AdapterInfo& a, const AdapterInfo& b) {
  // API version sorts newest first, hence b's before a's.
  return std::tie(a.kind, a.vendor_id, a.device_id, a.name, b.api_version, a.pipeline_cache_uuid) <
         std::tie(b.kind, b.vendor_id, b.device_id, b.name, a.api_version, b.pipeline_cache_uuid);
}

void sort_adapters(std::vector<AdapterInfo>& adapters) {
  std::stable_sort(adapters.begin(), adapters.end(), adapter_before);
}

size_t select_adapter(const std::vector<AdapterInfo>& sorted, std::string_view query) {
  std::string q = core::lower(std::string(query));
  std::string names;
  for (const auto& a : sorted) names += (names.empty() ? "" : ", ") + a.name;
  if (sorted.empty()) throw UnsupportedError("adapter", q.empty() ? "any adapter" : q, "no adapters");
  if (q.empty()) return 0;
  for (size_t i = 0; i < sorted.size(); ++i)
    if (q == adapter_kind_name(sorted[i].kind)) return i;
  for (size_t i = 0; i < sorted.size(); ++i)
    if (core::lower(sorted[i].name).find(q) != std::string::npos) return i;
  throw UnsupportedError("adapter", std::string(query), names);
}

Backend selected_backend() {
  auto v = core::env("ONEGPU_BACKEND");
  if (!v) return Backend::vulkan;
  std::string b = core::lower(*v);
  if (b == "metal") throw UnsupportedError("backend", b, "this build implements vulkan and webgpu");
  if (b == "webgpu") return Backend::webgpu;
  return Backend::vulkan;
}

std::vector<AdapterInfo> enumerate_adapters() { return enumerate_adapters(selected_backend()); }

std::vector<AdapterInfo> enumerate_adapters(Backend b) {
  switch (b) {
    case Backend::vulkan: return backend::enumerate_vulkan_adapters();
    case Backend::webgpu: return backend::enumerate_webgpu_adapters();
    case Backend::metal: break;
  }
  throw UnsupportedError("backend", "metal", "this build implements vulkan and webgpu");
}

}  // namespace onegpu
