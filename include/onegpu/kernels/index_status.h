// onegpu/kernels/index_status.h - what the gather and scatter kernels found wrong with their
// indices, and a host-side check of indices before encoding.
//
// An index i of an axis of n elements is valid in [-n, n); a negative index counts from the end,
// as ONNX defines. On the device an out-of-range index never reads or writes outside a tensor:
// gather writes zero for it and scatter skips the update. Passed to an operation, an IndexStatus
// records on the device the smallest position (in the flattened index tensor) that held a bad
// index; check() reads it back and throws IndexError naming the operation, the argument and the
// position. Without a status the zeros are silent.
#pragma once

#include <cstdint>
#include <future>
#include <optional>
#include <span>

#include "onegpu/buffer.h"

namespace onegpu {
class Device;
}

namespace onegpu::kernels {

class IndexStatus {
 public:
  // A cleared status (one word of device memory).
  explicit IndexStatus(Device& device);
  IndexStatus(IndexStatus&&) noexcept = default;
  IndexStatus& operator=(IndexStatus&&) noexcept = default;

  // Clears the recorded position and forgets the operations that used it. The position is cleared
  // by an upload that runs before the next submission; the names at once. So call it between
  // checking a status and recording the next work that uses it: work recorded before the reset
  // but submitted after it records into the cleared word, and its error would not name it.
  void reset();

  // Waits for everything submitted so far, then returns the smallest bad position recorded, if
  // any. The readback throws CommandFailedError when a submission failed.
  std::optional<uint64_t> first_bad_position() const;
  // The same, throwing IndexError (operation and argument of the call that recorded into this
  // status; when several different calls did, both names joined with " or ") when a position is
  // recorded.
  void check() const;
  // check() without waiting: the future throws what check() would. The status must stay alive
  // until the future is ready (it may be moved).
  std::future<void> check_async() const;

  // The word the kernels record into (0xFFFFFFFF: nothing recorded).
  const RawBuffer& buffer() const { return buffer_; }

 private:
  friend struct IndexStatusAccess;  // lets an operation name itself as a user of the status
  static constexpr uint32_t kMaxUses = 4;
  struct Use {
    const char* operation = nullptr;
    const char* argument = nullptr;
  };
  struct Uses {
    Use use[kMaxUses] = {};
    uint32_t count = 0;  // distinct uses noted; kMaxUses + 1 when there were more
  };
  [[noreturn]] static void raise(const Uses& uses, uint32_t position);

  Buffer<uint32_t> buffer_;
  Uses uses_;
};

// Throws IndexError(operation, argument, position) for the first index outside [-n, n) where n is
// `axis_length`; does nothing when every index is valid.
void validate_indices(std::span<const int32_t> indices, int64_t axis_length, const char* operation = "validate_indices",
                      const char* argument = "indices");
void validate_indices(std::span<const int64_t> indices, int64_t axis_length, const char* operation = "validate_indices",
                      const char* argument = "indices");
// Index tuples (GatherND, ScatterND): `indices` holds tuples of axis_lengths.size() components,
// component k valid in [-axis_lengths[k], axis_lengths[k]). The position is the offending
// component's.
void validate_index_tuples(std::span<const int32_t> indices, std::span<const int64_t> axis_lengths,
                           const char* operation = "validate_indices", const char* argument = "indices");
void validate_index_tuples(std::span<const int64_t> indices, std::span<const int64_t> axis_lengths,
                           const char* operation = "validate_indices", const char* argument = "indices");

}  // namespace onegpu::kernels
