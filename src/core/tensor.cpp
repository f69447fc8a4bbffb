#include "onegpu/tensor.h"

#include <string>

#include "common/data_type.h"
#include "onegpu/errors.h"

namespace onegpu {

static_assert(uint32_t(DataType::float32) == OG_T_F32 && uint32_t(DataType::float16) == OG_T_F16 &&
              uint32_t(DataType::int32) == OG_T_I32 && uint32_t(DataType::uint32) == OG_T_U32 &&
              uint32_t(DataType::int64) == OG_T_I64 && uint32_t(DataType::boolean) == OG_T_BOOL &&
              uint32_t(DataType::bfloat16) == OG_T_BF16 && uint32_t(DataType::int8) == OG_T_I8 &&
              uint32_t(DataType::uint8) == OG_T_U8 && uint32_t(DataType::float64) == OG_T_F64 &&
              uint32_t(DataType::int16) == OG_T_I16 && uint32_t(DataType::uint16) == OG_T_U16 &&
              uint32_t(DataType::uint64) == OG_T_U64);

std::string_view data_type_name(DataType type) {
  switch (type) {
    case DataType::float32: return "float32";
    case DataType::float16: return "float16";
    case DataType::bfloat16: return "bfloat16";
    case DataType::int8: return "int8";
    case DataType::uint8: return "uint8";
    case DataType::int32: return "int32";
    case DataType::uint32: return "uint32";
    case DataType::int64: return "int64";
    case DataType::boolean: return "bool";
    case DataType::float64: return "float64";
    case DataType::int16: return "int16";
    case DataType::uint16: return "uint16";
    case DataType::uint64: return "uint64";
  }
  return "unknown";
}

uint32_t data_type_size(DataType type) {
  switch (type) {
    case DataType::float16:
    case DataType::bfloat16:
    case DataType::int16:
    case DataType::uint16: return 2;
    case DataType::int8:
    case DataType::uint8:
    case DataType::boolean: return 1;
    case DataType::int64:
    case DataType::uint64:
    case DataType::float64: return 8;
    default: return 4;
  }
}

uint32_t elements_per_word(DataType type) {
  const uint32_t size = data_type_size(type);
  return size >= 4 ? 1 : 4 / size;
}

bool is_float(DataType type) {
  return type == DataType::float32 || type == DataType::float16 || type == DataType::bfloat16 ||
         type == DataType::float64;
}

uint64_t padded_length(DataType type, uint64_t count) {
  const uint64_t per = elements_per_word(type);
  if (count > UINT64_MAX - (per - 1))
    throw KernelShapeError("padded_length", "count", std::to_string(count) + " elements do not fit 64 bits padded");
  return (count + per - 1) / per * per;
}

uint64_t element_count(std::span<const int64_t> shape, const char* operation, const char* argument) {
  bool empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      throw KernelShapeError(operation, argument,
                             "dimension " + std::to_string(i) + " is negative (" + std::to_string(shape[i]) + ")");
    empty = empty || shape[i] == 0;
  }
  if (empty) return 0;
  uint64_t n = 1;
  for (int64_t dim : shape) {
    const uint64_t d = uint64_t(dim);
    if (n > uint64_t(INT64_MAX) / d)
      throw KernelShapeError(operation, argument, "the element count does not fit 63 bits");
    n *= d;
  }
  return n;
}

bool TensorRef::dense() const {
  onegpu::element_count(shape);  // throws for a negative dimension
  if (strides.empty()) return true;
  if (strides.size() != shape.size()) return false;
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    // A zero dimension beside huge ones can take the running product past 2^63 (no element is
    // reached then): such a tensor counts as strided.
    if (__builtin_mul_overflow(expected, shape[i], &expected)) return false;
  }
  return true;
}

}  // namespace onegpu
