// A tensor reference without its buffer: what the plans (shape checks, variant choice, push
// constants) look at, so they run and are tested without a device.
#pragma once

#include <cstdint>
#include <span>

#include "onegpu/tensor.h"

namespace onegpu::kernels {

struct Operand {
  std::span<const int64_t> shape, strides;
  DataType type = DataType::float32;
  uint64_t offset = 0;
};
inline Operand operand_of(const TensorRef& t) { return {t.shape, t.strides, t.type, t.offset}; }

}  // namespace onegpu::kernels
