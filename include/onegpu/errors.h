// onegpu/errors.h - the exceptions the library throws.
//
// Every error derives from onegpu::Error (a std::runtime_error). Each carries the values that
// explain it, and its what() names the operation first: "Gemm: lda: 12 is less than K = 16".
// Anything wrong with the caller's input is raised before any command reaches the driver.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace onegpu {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A capability the work needs is missing, or a device limit is exceeded.
// capability(): what was checked ("max_workgroup_invocations", "float16", "Adapter", ...);
// expected(): what the work needs; actual(): what the device (or environment) offers.
class UnsupportedError : public Error {
 public:
  UnsupportedError(std::string capability, std::string expected, std::string actual);
  const std::string& capability() const noexcept { return capability_; }
  const std::string& expected() const noexcept { return expected_; }
  const std::string& actual() const noexcept { return actual_; }

 private:
  std::string capability_, expected_, actual_;
};

// A shape, stride, offset or size given to an operation is invalid.
// operation(): "Gemm", "dispatch", ...; argument(): "lda", "push_constants", ...
class KernelShapeError : public Error {
 public:
  KernelShapeError(std::string operation, std::string argument, const std::string& detail);
  const std::string& operation() const noexcept { return operation_; }
  const std::string& argument() const noexcept { return argument_; }

 private:
  std::string operation_, argument_;
};

// An index tensor held a value outside its axis (an index i is valid in [-n, n) for an axis of n
// elements, negative ones counting from the end). operation(): "Gather", "ScatterND", ...;
// argument(): "indices"; position(): the smallest offending position in the flattened index
// tensor (for GatherND and ScatterND, the offending component's position). Raised by
// validate_indices() on the host, and by IndexStatus::check() for what a kernel found on the device.
class IndexError : public Error {
 public:
  IndexError(std::string operation, std::string argument, uint64_t position, const std::string& detail);
  const std::string& operation() const noexcept { return operation_; }
  const std::string& argument() const noexcept { return argument_; }
  uint64_t position() const noexcept { return position_; }

 private:
  std::string operation_, argument_;
  uint64_t position_;
};

// The device or the host ran out of memory. requested_bytes() is the size of the allocation that
// failed (0 when the driver failed inside a call that allocates internally).
class OutOfMemoryError : public Error {
 public:
  OutOfMemoryError(std::string operation, uint64_t requested_bytes);
  const std::string& operation() const noexcept { return operation_; }
  uint64_t requested_bytes() const noexcept { return requested_bytes_; }

 private:
  std::string operation_;
  uint64_t requested_bytes_;
};

// The driver reset or the GPU went away. operation() is the API call that saw it. The device is
// unusable afterwards; destroy it and create a new one.
class DeviceLostError : public Error {
 public:
  explicit DeviceLostError(std::string operation);
  const std::string& operation() const noexcept { return operation_; }

 private:
  std::string operation_;
};

// Any other failure of a driver call. operation() is the call, result_code() the backend's code
// (a VkResult on Vulkan).
class CommandError : public Error {
 public:
  CommandError(std::string operation, int32_t result_code, const std::string& result_name);
  const std::string& operation() const noexcept { return operation_; }
  int32_t result_code() const noexcept { return result_code_; }

 private:
  std::string operation_;
  int32_t result_code_;
};

// A submission failed on the GPU, or the device was lost while work was in flight. Raised by the
// next submit, wait_idle or readback after the failure (and by every later one: the device's state
// is unknown afterwards, so close it and create a new one). Never a silent wrong result.
// failure(): what went wrong; operation(): the call that saw it ("vkQueueSubmit", ...).
class CommandFailedError : public Error {
 public:
  enum class Failure : uint8_t { device_lost, out_of_memory, invalid_resource, other };
  CommandFailedError(Failure failure, std::string operation);
  Failure failure() const noexcept { return failure_; }
  const std::string& operation() const noexcept { return operation_; }

 private:
  Failure failure_;
  std::string operation_;
};

// "device_lost", "out_of_memory", "invalid_resource", "other".
const char* failure_name(CommandFailedError::Failure failure);

// The API was used in a way its contract forbids: a pass used after it ended, an encoder used after
// it was submitted, a bind group whose buffer was destroyed, work on a closed device.
// operation(): the call that was refused ("dispatch", "submit", ...).
class UsageError : public Error {
 public:
  UsageError(std::string operation, const std::string& detail);
  const std::string& operation() const noexcept { return operation_; }

 private:
  std::string operation_;
};

}  // namespace onegpu
