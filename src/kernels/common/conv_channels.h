// Checks a convolution's channels, groups and batch share (Conv, ConvTranspose, ConvInteger), with
// the window geometry of onegpu/kernels/window.h beside them (src/kernels/common/window.cpp).
#pragma once

#include <cstdint>

namespace onegpu::kernels {

// batch in [0, 2^31), channel counts in [1, 2^31), groups at least 1 and dividing both channel
// counts; throws KernelShapeError(op, "batch" / "in_channels" / "out_channels" / "groups").
void check_conv_channels(const char* op, int64_t batch, int64_t in_channels, int64_t out_channels, int64_t groups);

}  // namespace onegpu::kernels
