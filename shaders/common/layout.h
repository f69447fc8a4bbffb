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
#endif
#endif
