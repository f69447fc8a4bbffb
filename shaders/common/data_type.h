// Element type codes, shared by C++ (onegpu::DataType) and GLSL; src/core/tensor.cpp checks that
// the two agree. The first six are the element-wise kernels' operand types (3 bits).
#ifndef ONEGPU_DATA_TYPE_H
#define ONEGPU_DATA_TYPE_H
#define OG_T_F32 0u
#define OG_T_F16 1u
#define OG_T_I32 2u
#define OG_T_U32 3u
#define OG_T_I64 4u
#define OG_T_BOOL 5u
#define OG_T_BF16 6u
#define OG_T_I8 7u
#define OG_T_U8 8u
#define OG_T_F64 9u
#define OG_T_I16 10u
#define OG_T_U16 11u
#define OG_T_U64 12u
#endif
