// Activation codes, shared by C++ (onegpu::kernels::Activation) and GLSL.
#ifndef ONEGPU_ACTIVATION_H
#define ONEGPU_ACTIVATION_H
#define OG_ACT_NONE 0u
#define OG_ACT_RELU 1u
#define OG_ACT_GELU_ERF 2u
#define OG_ACT_GELU_TANH 3u
#endif
