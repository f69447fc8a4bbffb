// onegpu/kernels/common.h - what every kernel family shares.
//
// A family (Gemm, ...) is created once from a Device and keeps the pipelines it builds the first
// time a variant is used. encode(...) records into the caller's CommandEncoder; every shape,
// stride, offset and size is checked in 64-bit arithmetic before anything is recorded, and a bad
// one throws KernelShapeError naming the operation and the argument. Once the bind group for a
// set of buffers is cached a call allocates nothing.
//
// Families are not thread-safe: use one from one thread at a time. A family must not outlive its
// device; destroying it releases its pipelines once the GPU is done with them.
#pragma once

#include <cstdint>

namespace onegpu::kernels {

// fast: any summation order the variant likes (matrix hardware, subgroup arithmetic).
// deterministic: a fixed order, no atomics, no subgroup arithmetic; two runs on one device and
// driver give identical bits.
enum class KernelMode { fast, deterministic };

// The activations a family can apply to its output (codes shared with the shaders).
enum class Activation : uint32_t { none = 0, relu = 1, gelu_erf = 2, gelu_tanh = 3 };

// Bind groups are cached by buffer identity (and bound range); when a family has seen more than
// this many sets it drops them all and starts again (correct, only slower).
inline constexpr uint32_t kDefaultMaxCachedBindGroups = 1024;

}  // namespace onegpu::kernels
