// Tensor references, uploading and reading float32 / half tensors for the kernel tests.
#pragma once

#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "onegpu/numeric.h"
#include "onegpu/onegpu.h"
#include "onegpu/tensor.h"

namespace onegpu::testing {

// A reference to `shape` elements of type `t` from element `offset` of `b` (dense unless `strides`).
// The shape and strides must outlive the call that takes the reference.
inline TensorRef tensor(const RawBuffer& b, DataType t, std::span<const int64_t> shape, uint64_t offset = 0,
                        std::span<const int64_t> strides = {}) {
  return TensorRef{&b, offset, shape, strides, t};
}

// Values as the type stores them (half rounds).
inline std::vector<float> stored(DataType t, std::vector<float> v) {
  if (t == DataType::float16)
    for (auto& x : v) x = to_float(to_float16(x));
  return v;
}

// float32 or half (the buffer padded to a whole last word, padded_length).
inline RawBuffer upload_tensor(Device& d, DataType t, const std::vector<float>& v) {
  if (t == DataType::float32) return d.create_buffer(v);
  std::vector<float16> h(padded_length(t, v.size()));
  for (size_t i = 0; i < v.size(); ++i) h[i] = to_float16(v[i]);
  return d.create_buffer(h);
}

inline std::vector<float> read_tensor(DataType t, const RawBuffer& b, size_t n) {
  std::vector<float> out(n);
  if (t == DataType::float32) {
    b.read_bytes(0, std::as_writable_bytes(std::span(out)));
    return out;
  }
  std::vector<float16> h(n);
  b.read_bytes(0, std::as_writable_bytes(std::span(h)));
  for (size_t i = 0; i < n; ++i) out[i] = to_float(h[i]);
  return out;
}

// The specification's tolerances for float64 references (scaled error).
// Elements of a shape (the tests' shapes are small: no overflow check).
inline uint64_t count_of(const std::vector<int64_t>& s) {
  uint64_t n = 1;
  for (auto d : s) n *= uint64_t(d);
  return n;
}

inline double tolerance(DataType t) { return t == DataType::float32 ? 1e-5 : 2e-3; }

inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  // memcmp must not see the null data of an empty vector.
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
}

}  // namespace onegpu::testing
