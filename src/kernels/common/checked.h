// Overflow-checked 64-bit arithmetic for shape checks: each throws KernelShapeError(operation,
// argument) instead of wrapping. T is int64_t or uint64_t.
#pragma once

#include <cstdint>

#include "onegpu/errors.h"

namespace onegpu::kernels {

namespace detail {
[[noreturn]] inline void overflow(const char* operation, const char* argument) {
  throw KernelShapeError(operation, argument, "an extent does not fit 64 bits");
}
}  // namespace detail

template <class T>
T checked_mul(const char* operation, const char* argument, T a, T b) {
  T r;
  if (__builtin_mul_overflow(a, b, &r)) detail::overflow(operation, argument);
  return r;
}
template <class T>
T checked_add(const char* operation, const char* argument, T a, T b) {
  T r;
  if (__builtin_add_overflow(a, b, &r)) detail::overflow(operation, argument);
  return r;
}
template <class T>
T checked_sub(const char* operation, const char* argument, T a, T b) {
  T r;
  if (__builtin_sub_overflow(a, b, &r)) detail::overflow(operation, argument);
  return r;
}

}  // namespace onegpu::kernels
