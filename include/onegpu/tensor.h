// onegpu/tensor.h - the element types and the tensor reference every kernel family takes.
//
// A TensorRef names elements in a buffer: the buffer, the element offset of the first element, the
// shape and (optionally) the strides, all in elements, and the element type. It does not own the
// buffer or the shape: both must outlive the call that takes the reference (an encode records
// what it needs before it returns).
//
// Storage in 32-bit words: float32, int32 and uint32 take one word per element; float16 and
// bfloat16 two elements per word; int8, uint8 and bool four per word; int64 two words (low, high).
// A kernel owns whole words of its outputs, so a tensor whose range starts or ends inside a word
// leaves the neighbouring elements as they were. Allocate padded_length() elements for a tensor of
// sub-word elements so that the last word is whole.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace onegpu {

class RawBuffer;

// Codes are shared with the shaders (shaders/common/data_type.h).
enum class DataType : uint32_t {
  float32 = 0,
  float16 = 1,
  int32 = 2,
  uint32 = 3,
  int64 = 4,
  boolean = 5,  // one byte, 0 or 1 (any nonzero byte reads as true)
  bfloat16 = 6,
  int8 = 7,
  uint8 = 8,
  // Types a device may list for its matrix hardware (capabilities.h); no kernel takes them yet.
  float64 = 9,
  int16 = 10,
  uint16 = 11,
  uint64 = 12,
};

// "float32", "float16", "bfloat16", "int8", "uint8", "int32", "uint32", "int64", "bool", "float64",
// "int16", "uint16", "uint64".
std::string_view data_type_name(DataType type);
// Bytes per element (4 for float32, 2 for float16, 1 for bool, 8 for int64, ...).
uint32_t data_type_size(DataType type);
// Elements per 32-bit word (4 for 8-bit types, 2 for 16-bit ones, 1 otherwise).
uint32_t elements_per_word(DataType type);
bool is_float(DataType type);  // float32, float16, bfloat16, float64

// `count` rounded up to a whole number of 32-bit words' worth of elements, so a buffer of 16- or
// 8-bit elements can be written word by word. Throws KernelShapeError("padded_length", "count")
// when the result does not fit 64 bits.
uint64_t padded_length(DataType type, uint64_t count);

// Elements of a shape (the product of its dimensions; 1 for rank 0). Throws KernelShapeError
// naming `operation` and `argument` for a negative dimension or a product beyond 2^63 - 1.
uint64_t element_count(std::span<const int64_t> shape, const char* operation = "tensor",
                       const char* argument = "shape");

struct TensorRef {
  const RawBuffer* buffer = nullptr;
  uint64_t offset = 0;                 // elements before the first one
  std::span<const int64_t> shape;      // rank 0 (a scalar) and up
  std::span<const int64_t> strides;    // elements; empty: dense row-major
  DataType type = DataType::float32;

  bool dense() const;                  // no strides, or the row-major strides of the shape
  uint64_t element_count() const { return onegpu::element_count(shape); }
};

}  // namespace onegpu
