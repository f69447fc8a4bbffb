// The first program: list the adapters, open the discrete GPU (or the first adapter), multiply a
// 4 x 2 matrix by a 2 x 3 matrix and read the 4 x 3 product back asynchronously.
#include <cstdio>
#include <exception>
#include <vector>

#include "onegpu/kernels/gemm.h"
#include "onegpu/onegpu.h"

int main() {
  try {
    std::printf("Backend: %s\n", onegpu::backend_name(onegpu::selected_backend()));
    const auto adapters = onegpu::enumerate_adapters();
    for (const auto& a : adapters) std::printf("  %-10s %s\n", onegpu::adapter_kind_name(a.kind), a.name.c_str());
    if (adapters.empty()) {
      std::printf("No Vulkan adapter found (install a GPU driver, or mesa-vulkan-drivers for lavapipe).\n");
      return 1;
    }

    // Ask for the discrete GPU by kind ("RTX" or any part of a name works too).
    bool has_discrete = false;
    for (const auto& a : adapters) has_discrete |= a.kind == onegpu::AdapterKind::discrete;
    if (!has_discrete) std::printf("No discrete GPU; using the first adapter.\n");
    onegpu::Device device = onegpu::Device::create({.adapter = has_discrete ? "discrete" : ""});
    const auto& info = device.adapter();
    std::printf("Running on: %s (%s, API %s)\n", info.name.c_str(), onegpu::adapter_kind_name(info.kind),
                info.api_version.to_string().c_str());

    // C = A x B: A is 4 x 2, B is 2 x 3, both row-major.
    const uint64_t m = 4, n = 3, k = 2;
    auto a = device.create_buffer(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    auto b = device.create_buffer(std::vector<float>{1, 0, 2, 0, 1, 3});
    auto c = device.create_buffer<float>(m * n);

    onegpu::kernels::Gemm gemm(device, onegpu::DataType::float32);
    auto encoder = device.begin_commands();
    gemm.encode(encoder, {.m = m, .n = n, .k = k}, a, b, c);
    device.submit(encoder);

    // Completes when the GPU is done; this thread is free meanwhile.
    std::future<std::vector<float>> pending = c.read_async();
    const std::vector<float> result = pending.get();
    for (uint64_t row = 0; row < m; ++row) {
      for (uint64_t col = 0; col < n; ++col) std::printf("%4g", result[row * n + col]);
      std::printf("\n");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "getting-started: %s\n", e.what());
    return 1;
  }
}
