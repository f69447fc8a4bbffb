// onegpu/compare.h - the comparison a depth test (or a comparison sampler) applies.
#pragma once

#include <cstdint>

namespace onegpu {

// Passes when `new value <op> stored value` holds (webgpu.h's WGPUCompareFunction).
enum class CompareFunction : uint8_t { never, less, equal, less_equal, greater, not_equal, greater_equal, always };

}  // namespace onegpu
