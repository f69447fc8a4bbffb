#include "webgpu/library.h"

#include <dlfcn.h>

#include <vector>

#include "core/env.h"

namespace onegpu::webgpu {

namespace {

using namespace abi;

Library open_library() {
  Library l;
  std::vector<std::string> names;
  if (auto v = core::env("ONEGPU_WEBGPU_LIBRARY")) names.push_back(*v);
#ifdef ONEGPU_WEBGPU_DEFAULT_LIBRARY
  names.push_back(ONEGPU_WEBGPU_DEFAULT_LIBRARY);
#endif
  names.insert(names.end(), {"libwebgpu_dawn.so", "libwebgpu_wrapper.so", "libwebgpu.so"});
  for (const auto& n : names) {
    l.tried += (l.tried.empty() ? "" : ", ") + n;
    void* h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) continue;
    bool complete = true;
#define ONEGPU_WGPU_LOAD(ret, name, params)                                  \
  l.name = reinterpret_cast<ret(*) params>(dlsym(h, #name));                 \
  if (l.name == nullptr) {                                                   \
    complete = false;                                                        \
    l.reason = n + " lacks " #name;                                          \
  }
    ONEGPU_WGPU_FUNCTIONS(ONEGPU_WGPU_LOAD)
#undef ONEGPU_WGPU_LOAD
    if (complete) {
      l.available = true;
      l.path = n;
      l.reason.clear();
      return l;
    }
    dlclose(h);
  }
  if (l.reason.empty()) l.reason = "no WebGPU library found (tried " + l.tried + ")";
  return l;
}

}  // namespace

const Library& library() {
  static const Library l = open_library();
  return l;
}

}  // namespace onegpu::webgpu
