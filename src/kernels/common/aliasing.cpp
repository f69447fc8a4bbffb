#include "kernels/common/aliasing.h"

#include <limits>
#include <string>

#include "onegpu/errors.h"

namespace onegpu::kernels {

ByteRange tensor_bytes(const char* operation, const char* argument, uint64_t buffer, uint64_t first,
                       uint64_t elements, uint64_t element_bytes) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  if (elements == 0) return {buffer, 0, 0};
  auto too_far = [&] {
    throw KernelShapeError(operation, argument,
                           std::to_string(elements) + " elements of " + std::to_string(element_bytes) +
                               " bytes from element " + std::to_string(first) + " pass 2^64 bytes");
  };
  if (element_bytes == 0 || first > kMax / element_bytes) too_far();
  const uint64_t begin = first * element_bytes;
  if (elements > kMax / element_bytes) too_far();
  const uint64_t size = elements * element_bytes;
  if (size > kMax - begin || begin + size > kMax - 3) too_far();
  return {buffer, begin / 4 * 4, (begin + size + 3) / 4 * 4};
}

bool overlaps(const ByteRange& a, const ByteRange& b) {
  return a.buffer != 0 && a.buffer == b.buffer && !a.empty() && !b.empty() && a.begin < b.end && b.begin < a.end;
}

void check_disjoint(const char* operation, const char* output_name, const ByteRange& output,
                    const char* input_name, const ByteRange& input) {
  if (!overlaps(output, input)) return;
  throw KernelShapeError(operation, output_name,
                         "overlaps " + std::string(input_name) + " in the same buffer (bytes " +
                             std::to_string(output.begin) + ".." + std::to_string(output.end) + " and " +
                             std::to_string(input.begin) + ".." + std::to_string(input.end) + ")");
}

void check_separate_buffers(const ComputeCapabilities& caps, const char* operation, const char* written_name,
                            const ByteRange& written, const char* other_name, const ByteRange& other) {
  if (caps.aliased_writable_bindings || written.empty() || other.empty() || written.buffer != other.buffer) return;
  throw UnsupportedError("aliased_writable_bindings",
                         std::string(operation) + ": " + other_name + " in another buffer than " + written_name,
                         std::string(other_name) + " in " + written_name +
                             "'s buffer (this device refuses a buffer bound writable and bound again in a dispatch)");
}

}  // namespace onegpu::kernels
