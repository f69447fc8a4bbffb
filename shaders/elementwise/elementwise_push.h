// Push constants of the element-wise kernels, shared by the host (src/kernels/elementwise) and GLSL.
#ifndef ONEGPU_ELEMENTWISE_PUSH_H
#define ONEGPU_ELEMENTWISE_PUSH_H
#include "common/layout.h"

// A variant's defines (src/kernels/elementwise/CMakeLists.txt; the host's Group, Walk and Fixed
// enums are checked against them). GROUP: the operations it compiles.
#define OG_ELT_GROUP_FLOAT 0    // binary, unary, compare on float32 / float16
#define OG_ELT_GROUP_WHERE 1
#define OG_ELT_GROUP_CAST 2
#define OG_ELT_GROUP_INTEGER 3  // int32 / int64 arithmetic, bool logic, integer compares
#define OG_ELT_GROUP_FILL 4     // Fill and Range
// BCAST: how operands are walked.
#define OG_ELT_WALK_SAME_SHAPE 0  // every operand in output order, no index arithmetic
#define OG_ELT_WALK_ROWS 1        // two dimensions from the grid, no division
#define OG_ELT_WALK_BROADCAST 2   // up to OG_ELT_MAX_RANK dimensions, strided operands
// FIXED: operand and output types read from the push constants, or fixed at compile time.
#define OG_ELT_FIXED_ANY 0
#define OG_ELT_FIXED_WORD32 1  // float32 (GROUP float), int32 (integer), any 32-bit word (where)
#define OG_ELT_FIXED_I64 2

// Output words per invocation of a variant (GROUP, BCAST, FIXED): eight for float32 operands
// walked in order, four elsewhere. A workgroup of 256 invocations owns 256 times as many.
#define OG_ELT_WORDS(g, b, f) ((g) == OG_ELT_GROUP_FLOAT && (b) == OG_ELT_WALK_SAME_SHAPE && (f) == OG_ELT_FIXED_WORD32 ? 8u : 4u)

// Kinds of operation.
#define OG_ELT_BINARY 0u   // float a op float b -> float
#define OG_ELT_UNARY 1u    // f(float a) -> float
#define OG_ELT_COMPARE 2u  // float a op float b -> bool
#define OG_ELT_WHERE 3u    // cond c ? a : b, any type
#define OG_ELT_CAST 4u     // a converted to the output type
#define OG_ELT_INT_BINARY 5u   // int32 / int64 arithmetic, bool logic
#define OG_ELT_INT_UNARY 6u    // int32 / int64 Neg, Abs; bool Not
#define OG_ELT_INT_COMPARE 7u  // int32 / int64 / bool -> bool
#define OG_ELT_FILL 8u         // the value in stride_a[0..1]
#define OG_ELT_RANGE 9u        // start + i * delta: float in alpha, beta; integers in stride_a[0..3]

#define OG_INT_ADD 0u
#define OG_INT_SUB 1u
#define OG_INT_MUL 2u
#define OG_INT_DIV 3u
#define OG_INT_MOD 4u
#define OG_INT_FMOD 5u
#define OG_INT_MIN 6u
#define OG_INT_MAX 7u
#define OG_INT_AND 8u
#define OG_INT_OR 9u
#define OG_INT_XOR 10u
#define OG_INT_NEG 0u
#define OG_INT_ABS 1u
#define OG_INT_NOT 2u

// Binary and compare operations.
#define OG_BIN_ADD 0u
#define OG_BIN_SUB 1u
#define OG_BIN_MUL 2u
#define OG_BIN_DIV 3u
#define OG_BIN_POW 4u
#define OG_BIN_MIN 5u
#define OG_BIN_MAX 6u
#define OG_CMP_EQUAL 0u
#define OG_CMP_LESS 1u
#define OG_CMP_GREATER 2u
#define OG_CMP_LESS_EQUAL 3u
#define OG_CMP_GREATER_EQUAL 4u

// Element types: the codes of onegpu::DataType (float32 .. bool fit the 3 bits the codes word has).
#include "common/data_type.h"

#define OG_ELT_MAX_RANK 6

// The codes word: one field per macro pair (shift, width), read by the shader with OG_ELT_FIELD
// and packed by the host with OG_ELT_PACK; src/kernels/elementwise/elementwise_plan.cpp checks at
// compile time that the fields do not overlap and that every code fits its field.
#define OG_ELT_OP_SHIFT 0          // BinaryOp, CompareOp, IntegerOp, IntegerUnaryOp or UnaryOp
#define OG_ELT_OP_WIDTH 8
#define OG_ELT_KIND_SHIFT 8        // OG_ELT_BINARY .. OG_ELT_RANGE
#define OG_ELT_KIND_WIDTH 4
#define OG_ELT_IN_TYPE_SHIFT 12    // OG_T_F32 .. OG_T_BOOL
#define OG_ELT_IN_TYPE_WIDTH 3
#define OG_ELT_OUT_TYPE_SHIFT 15
#define OG_ELT_OUT_TYPE_WIDTH 3
#define OG_ELT_ACT_SHIFT 18        // the fused activation (a UnaryOp code)
#define OG_ELT_ACT_WIDTH 5
#define OG_ELT_RANK_SHIFT 23       // merged dimensions, 1 .. OG_ELT_MAX_RANK
#define OG_ELT_RANK_WIDTH 3
#define OG_ELT_FIELD(codes, shift, width) (((codes) >> (shift)) & ((1u << (width)) - 1u))
#define OG_ELT_PACK(value, shift) ((value) << (shift))

struct EltPush {
  OG_U32 codes;
  OG_U32 count;       // output elements
  OG_U32 out_offset;  // elements
  OG_U32 offset_a;
  OG_U32 offset_b;
  OG_U32 offset_c;
  OG_U32 shape[OG_ELT_MAX_RANK];     // merged output shape, the last dimension fastest
  OG_U32 stride_a[OG_ELT_MAX_RANK];  // element strides, 0 where broadcast
  OG_U32 stride_b[OG_ELT_MAX_RANK];
  OG_U32 stride_c[OG_ELT_MAX_RANK];
  OG_F32 alpha;  // parameters of the unary function (or of the fused activation)
  OG_F32 beta;
};
#endif
