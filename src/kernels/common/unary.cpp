#include "onegpu/kernels/unary.h"

#include "common/activation.h"

namespace onegpu::kernels {

static_assert(uint32_t(UnaryOp::identity) == OG_ACT_NONE && uint32_t(UnaryOp::relu) == OG_ACT_RELU &&
              uint32_t(UnaryOp::gelu_erf) == OG_ACT_GELU_ERF && uint32_t(UnaryOp::gelu_tanh) == OG_ACT_GELU_TANH &&
              uint32_t(UnaryOp::neg) == OG_UN_NEG && uint32_t(UnaryOp::abs) == OG_UN_ABS &&
              uint32_t(UnaryOp::sqrt) == OG_UN_SQRT && uint32_t(UnaryOp::reciprocal) == OG_UN_RECIPROCAL &&
              uint32_t(UnaryOp::exp) == OG_UN_EXP && uint32_t(UnaryOp::log) == OG_UN_LOG &&
              uint32_t(UnaryOp::tanh) == OG_UN_TANH && uint32_t(UnaryOp::erf) == OG_UN_ERF &&
              uint32_t(UnaryOp::sigmoid) == OG_UN_SIGMOID && uint32_t(UnaryOp::silu) == OG_UN_SILU &&
              uint32_t(UnaryOp::hard_sigmoid) == OG_UN_HARD_SIGMOID &&
              uint32_t(UnaryOp::hard_swish) == OG_UN_HARD_SWISH && uint32_t(UnaryOp::clip) == OG_UN_CLIP &&
              uint32_t(UnaryOp::leaky_relu) == OG_UN_LEAKY_RELU && uint32_t(UnaryOp::leaky_relu) + 1 == OG_UN_COUNT,
              "UnaryOp's codes are the shaders'");

const char* unary_op_name(UnaryOp op) {
  static const char* const kNames[] = {"identity", "relu",  "gelu_erf", "gelu_tanh",    "neg",        "abs",
                                       "sqrt",     "reciprocal", "exp",  "log",          "tanh",       "erf",
                                       "sigmoid",  "silu",  "hard_sigmoid", "hard_swish", "clip", "leaky_relu"};
  const uint32_t i = uint32_t(op);
  return i < OG_UN_COUNT ? kNames[i] : "unknown";
}

}  // namespace onegpu::kernels
