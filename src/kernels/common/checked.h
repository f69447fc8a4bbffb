// Overflow-checked 64-bit arithmetic for shape checks: each throws KernelShapeError(operation,
// argument) instead of wrapping.
#pragma once

#include <cstdint>

#include "onegpu/errors.h"

namespace onegpu::kernels {

inline uint64_t checked_mul(const char* operation, const char* argument, uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw KernelShapeError(operation, argument, "an extent does not fit 64 bits");
  return r;
}
inline uint64_t checked_add(const char* operation, const char* argument, uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw KernelShapeError(operation, argument, "an extent does not fit 64 bits");
  return r;
}
inline int64_t checked_mul(const char* operation, const char* argument, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw KernelShapeError(operation, argument, "an extent does not fit 64 bits");
  return r;
}
inline int64_t checked_add(const char* operation, const char* argument, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw KernelShapeError(operation, argument, "an extent does not fit 64 bits");
  return r;
}
inline int64_t checked_sub(const char* operation, const char* argument, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw KernelShapeError(operation, argument, "an extent does not fit 64 bits");
  return r;
}

}  // namespace onegpu::kernels
