// Pool decisions that need no GPU: the checks on the problem, the resolved window, the output
// extent, the variant (shaders/pool/*.comp), the grid and the push constants. The family adds the
// buffers' checks and records.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "onegpu/kernels/pool.h"
#include "pool/pool_push.h"

namespace onegpu::kernels::pool {

struct Plan {
  bool global = false;
  std::string_view variant;
  Window window{};          // pads resolved (windowed pools)
  Extent2 output{1, 1};
  uint64_t input_count = 0, output_count = 0;  // elements of x and y
  uint64_t input_span = 0;  // x's elements from its offset to its last reachable one, inclusive
  std::array<uint64_t, 4> x_strides{};  // resolved (dense when the problem's are all zero)
  PoolWindowPush window_push{};
  PoolGlobalPush global_push{};
  uint64_t workgroups = 0;
};

// Invocations per plane of a global pool: a power of two in [32, 256] from the plane size alone
// (about four elements each), at most 128 for float16 so that a workgroup holds whole words of y.
uint32_t global_threads(uint64_t plane_size, DataType type);

// Checks the problem and plans it; KernelShapeError(operation, argument) or UnsupportedError on the
// first problem.
Plan plan(const PoolProblem& problem);

}  // namespace onegpu::kernels::pool
