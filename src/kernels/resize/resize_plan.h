// Resize decisions that need no GPU: the checks on the problem, the output extent, the tap tables
// (the float32 coordinate arithmetic), the variant and the push constants. The family adds the
// buffers' checks and records.
#pragma once

#include <cstdint>
#include <string_view>

#include "onegpu/kernels/resize.h"
#include "resize/resize_push.h"

namespace onegpu::kernels::resize {

// The input coordinate of output index `o` along an axis of `in` -> `out` with `scale`, in float32
// as ONNX runtimes compute it.
float source_coordinate(ResizeCoordinates c, float o, float scale, int64_t in, int64_t out);

// The tap of one output index (nearest: rounded and clamped; linear: floor, floor + 1 clamped, and
// the weight of the second).
ResizeTap tap_for(const ResizeProblem& problem, float coordinate, int64_t in);

struct Plan {
  std::string_view variant;
  Extent2 output{1, 1};
  std::array<float, 2> scales{};  // as the coordinate transformations use them
  uint64_t input_count = 0, output_count = 0;
  ResizePush push{};
  uint64_t workgroups = 0;
};

// Checks the problem (UnsupportedError or KernelShapeError("Resize", argument)) and plans it.
Plan plan(const ResizeProblem& problem);

}  // namespace onegpu::kernels::resize
