// onegpu/kernels/unary.h - the unary functions every family applies: element-wise Unary, the
// activation fused into a binary op, and the epilogue of every product (GEMM, convolution, ...).
// A fused function gives the same bits as the separate element-wise operation.
#pragma once

#include <cstdint>

namespace onegpu::kernels {

// Codes are shared with the shaders (shaders/common/activation.h).
enum class UnaryOp : uint32_t {
  identity,
  relu,
  gelu_erf,   // x/2 (1 + erf(x / sqrt 2))
  gelu_tanh,  // x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  neg,
  abs,
  sqrt,
  reciprocal,
  exp,
  log,
  tanh,
  erf,
  sigmoid,
  silu,
  hard_sigmoid,  // max(0, min(1, alpha x + beta)); ONNX defaults alpha 0.2, beta 0.5
  hard_swish,    // x max(0, min(1, x / 6 + 1 / 2))
  clip,          // min(max(x, alpha), beta)
  leaky_relu     // x >= 0 ? x : alpha x; ONNX default alpha 0.01
};

// "identity", "relu", "gelu_erf", ...
const char* unary_op_name(UnaryOp op);

// The parameters of hard_sigmoid, clip and leaky_relu (ignored by the others).
struct UnaryParams {
  float alpha = 0.0f, beta = 0.0f;
};

// A unary function with its parameters, as an epilogue or a fused activation takes it.
struct UnaryFunction {
  UnaryOp op = UnaryOp::identity;
  UnaryParams params{};
};

}  // namespace onegpu::kernels
