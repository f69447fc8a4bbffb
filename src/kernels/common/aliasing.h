// Which tensors share memory: the byte ranges operands take in their buffers, and the check that
// an output overlaps no input (the forms a family allows, such as an in-place output, are the
// family's decision).
#pragma once

#include <cstdint>

#include "onegpu/capabilities.h"

namespace onegpu::kernels {

// The bytes a tensor may touch in its buffer, [begin, end): from its lowest to its highest
// reachable element, widened to whole 32-bit words, because the kernels read and write whole
// words (two half tensors sharing a word overlap). Empty for a tensor of no elements.
struct ByteRange {
  uint64_t buffer = 0;  // RawBuffer::id(); 0: none
  uint64_t begin = 0, end = 0;
  bool empty() const { return begin == end; }
};

// The range of `elements` elements of `element_bytes` from element `first` (for a strided tensor,
// `elements` is the count from `first` to the highest reachable one, inclusive). Every product
// and sum is checked: throws KernelShapeError(operation, argument) when the range passes 2^64.
ByteRange tensor_bytes(const char* operation, const char* argument, uint64_t buffer, uint64_t first,
                       uint64_t elements, uint64_t element_bytes);

// Whether two ranges share a byte: the same buffer, both non-empty, intersecting.
bool overlaps(const ByteRange& a, const ByteRange& b);

// Throws KernelShapeError(operation, output_name, "overlaps <input_name> in the same buffer
// (bytes a..b and c..d)") when `output` overlaps `input`.
void check_disjoint(const char* operation, const char* output_name, const ByteRange& output,
                    const char* input_name, const ByteRange& input);

// Throws UnsupportedError (capability aliased_writable_bindings) when the device refuses a buffer
// bound writable and bound again in one dispatch and `other` (an input or another output) lies in
// the buffer `written` is written to, both non-empty. Kernels bind whole buffers, so disjoint
// ranges of one buffer are refused too.
void check_separate_buffers(const ComputeCapabilities& caps, const char* operation, const char* written_name,
                            const ByteRange& written, const char* other_name, const ByteRange& other);

}  // namespace onegpu::kernels
