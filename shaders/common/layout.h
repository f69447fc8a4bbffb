// Types for structs shared by C++ and GLSL (push-constant blocks). Include first.
#ifndef ONEGPU_LAYOUT_H
#define ONEGPU_LAYOUT_H
#ifdef __cplusplus
#include <cstdint>
#define OG_U32 uint32_t
#define OG_F32 float
#else
#define OG_U32 uint
#define OG_F32 float
// How a shader declares its push constants and tests special values. OG_WEBGPU selects the WebGPU
// dialect the build translates to WGSL (cmake/OnegpuShaders.cmake): the push constants become a
// read-only storage buffer at binding 0 of set OG_PUSH_SET (the set after the highest one the
// shader binds; WGSL's uniform buffers would need 16-byte array strides), and NaN and infinity
// are exponent-bit tests (WGSL has no isnan / isinf).
#ifdef OG_WEBGPU
#ifndef OG_PUSH_SET
#define OG_PUSH_SET 1
#endif
#define OG_PUSH_BLOCK(Type, name) \
  layout(std430, set = OG_PUSH_SET, binding = 0) readonly buffer OgPushBlock { Type name; }
#define og_isnan(x) ((floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u)
#define og_isinf(x) ((floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u)
// Nonzero or NaN (WGSL may take NaN comparisons as ordered).
#define og_nonzero(x) ((floatBitsToUint(x) & 0x7fffffffu) != 0u)
// A float from its bits. WGSL refuses infinity and NaN in constant expressions, so the bits pass
// through a variable, which no translator folds.
uint og_runtime_zero = 0u;
#define OG_FLOAT_BITS(bits) uintBitsToFloat((bits) | og_runtime_zero)
// WGSL has no subgroup index nor count: subgroups are taken as consecutive runs of the local
// invocation index (as on every driver the backend runs on), in a one-dimensional workgroup.
#define og_subgroup_id (gl_LocalInvocationIndex / gl_SubgroupSize)
#define og_num_subgroups ((gl_WorkGroupSize.x + gl_SubgroupSize - 1u) / gl_SubgroupSize)
#else
#define og_subgroup_id gl_SubgroupID
#define og_num_subgroups gl_NumSubgroups
#define og_nonzero(x) ((x) != 0.0)
#define OG_FLOAT_BITS(bits) uintBitsToFloat(bits)
#define OG_PUSH_BLOCK(Type, name) layout(push_constant) uniform OgPushBlock { Type name; }
#define og_isnan(x) isnan(x)
#define og_isinf(x) isinf(x)
#endif
#endif
#endif
