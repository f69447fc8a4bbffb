// Uploading and reading float32 / half tensors for the kernel tests.
#pragma once

#include <cmath>
#include <cstring>
#include <vector>

#include "onegpu/kernels/reduce.h"
#include "onegpu/numeric.h"
#include "onegpu/onegpu.h"

namespace onegpu::testing {

// Values as the type stores them (half rounds).
inline std::vector<float> stored(kernels::TensorType t, std::vector<float> v) {
  if (t == kernels::TensorType::float16)
    for (auto& x : v) x = to_float(to_float16(x));
  return v;
}

inline RawBuffer upload_tensor(Device& d, kernels::TensorType t, const std::vector<float>& v) {
  if (t == kernels::TensorType::float32) return d.create_buffer(v);
  std::vector<float16> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) h[i] = to_float16(v[i]);
  return d.create_buffer(h);
}

inline std::vector<float> read_tensor(kernels::TensorType t, const RawBuffer& b, size_t n) {
  std::vector<float> out(n);
  if (t == kernels::TensorType::float32) {
    b.read_bytes(0, std::as_writable_bytes(std::span(out)));
    return out;
  }
  std::vector<float16> h(n);
  b.read_bytes(0, std::as_writable_bytes(std::span(h)));
  for (size_t i = 0; i < n; ++i) out[i] = to_float(h[i]);
  return out;
}

inline double tolerance(kernels::TensorType t) { return t == kernels::TensorType::float32 ? 1e-5 : 2e-3; }

inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

}  // namespace onegpu::testing
