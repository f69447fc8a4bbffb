#include "onegpu/errors.h"

namespace onegpu {

UnsupportedError::UnsupportedError(std::string capability, std::string expected, std::string actual)
    : Error("unsupported: " + capability + ": needs " + expected + ", device has " + actual),
      capability_(std::move(capability)),
      expected_(std::move(expected)),
      actual_(std::move(actual)) {}

KernelShapeError::KernelShapeError(std::string operation, std::string argument, const std::string& detail)
    : Error(operation + ": " + argument + ": " + detail),
      operation_(std::move(operation)),
      argument_(std::move(argument)) {}

IndexError::IndexError(std::string operation, std::string argument, uint64_t position, const std::string& detail)
    : Error(operation + ": " + argument + ": position " + std::to_string(position) + ": " + detail),
      operation_(std::move(operation)),
      argument_(std::move(argument)),
      position_(position) {}

OutOfMemoryError::OutOfMemoryError(std::string operation, uint64_t requested_bytes)
    : Error(operation + ": out of memory allocating " + std::to_string(requested_bytes) + " bytes"),
      operation_(std::move(operation)),
      requested_bytes_(requested_bytes) {}

DeviceLostError::DeviceLostError(std::string operation)
    : Error(operation + ": device lost"), operation_(std::move(operation)) {}

CommandError::CommandError(std::string operation, int32_t result_code, const std::string& result_name)
    : Error(operation + " failed: " + result_name + " (" + std::to_string(result_code) + ")"),
      operation_(std::move(operation)),
      result_code_(result_code) {}

CommandFailedError::CommandFailedError(Failure failure, std::string operation)
    : Error(operation + ": a submission failed: " + failure_name(failure)),
      failure_(failure),
      operation_(std::move(operation)) {}

const char* failure_name(CommandFailedError::Failure failure) {
  switch (failure) {
    case CommandFailedError::Failure::device_lost: return "device_lost";
    case CommandFailedError::Failure::out_of_memory: return "out_of_memory";
    case CommandFailedError::Failure::invalid_resource: return "invalid_resource";
    case CommandFailedError::Failure::other: return "other";
  }
  return "other";
}

UsageError::UsageError(std::string operation, const std::string& detail)
    : Error(operation + ": " + detail), operation_(std::move(operation)) {}

}  // namespace onegpu
