#include "kernels/common/index_status.h"

#include <cstring>
#include <string>

#include "onegpu/device.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {
namespace {

constexpr uint32_t kNothing = 0xFFFFFFFFu;

template <class I>
void check_one(I value, int64_t n, uint64_t position, const char* operation, const char* argument) {
  const int64_t v = int64_t(value);
  if (v < -n || v >= n) {
    throw IndexError(operation, argument, position,
                     std::to_string(v) + " is outside [" + std::to_string(-n) + ", " + std::to_string(n) + ")");
  }
}

void check_axis_length(int64_t n, const char* operation) {
  if (n < 0) throw KernelShapeError(operation, "axis_length", std::to_string(n) + " is negative");
}

template <class I>
void validate(std::span<const I> indices, int64_t n, const char* operation, const char* argument) {
  check_axis_length(n, operation);
  for (size_t i = 0; i < indices.size(); ++i) check_one(indices[i], n, i, operation, argument);
}

template <class I>
void validate_tuples(std::span<const I> indices, std::span<const int64_t> lengths, const char* operation,
                     const char* argument) {
  if (lengths.empty()) {
    if (!indices.empty()) throw KernelShapeError(operation, "axis_lengths", "empty, but there are indices");
    return;
  }
  for (int64_t n : lengths) check_axis_length(n, operation);
  if (indices.size() % lengths.size() != 0) {
    throw KernelShapeError(operation, argument,
                           std::to_string(indices.size()) + " indices are not whole tuples of " +
                               std::to_string(lengths.size()));
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    check_one(indices[i], lengths[i % lengths.size()], i, operation, argument);
  }
}

}  // namespace

IndexStatus::IndexStatus(Device& device) : buffer_(device.create_buffer<uint32_t>(1)) { reset(); }

void IndexStatus::reset() {
  const uint32_t nothing = kNothing;
  buffer_.write(std::span<const uint32_t>(&nothing, 1));
  uses_.count = 0;
}

std::optional<uint64_t> IndexStatus::first_bad_position() const {
  uint32_t word = 0;
  buffer_.read(std::span<uint32_t>(&word, 1));
  if (word == kNothing) return std::nullopt;
  return word;
}

void IndexStatus::raise(const Uses& uses, uint32_t position) {
  // Each distinct name once, in the order of first use (compared whole: "Gather" is not "GatherND").
  auto join = [&](const char* Use::*field) {
    std::string text;
    const uint32_t n = uses.count < kMaxUses ? uses.count : kMaxUses;
    for (uint32_t i = 0; i < n; ++i) {
      bool seen = false;
      for (uint32_t j = 0; j < i; ++j) seen = seen || std::strcmp(uses.use[j].*field, uses.use[i].*field) == 0;
      if (!seen) text += (text.empty() ? "" : " or ") + std::string(uses.use[i].*field);
    }
    return text;
  };
  std::string operation = join(&Use::operation), argument = join(&Use::argument);
  if (uses.count > kMaxUses) operation += " or others";
  if (operation.empty()) operation = "IndexStatus";
  if (argument.empty()) argument = "indices";
  throw IndexError(operation, argument, position, "index out of range");
}

void IndexStatus::check() const {
  if (auto position = first_bad_position()) raise(uses_, uint32_t(*position));
}

std::future<void> IndexStatus::check_async() const {
  auto word = std::make_shared<uint32_t>(kNothing);
  auto promise = std::make_shared<std::promise<void>>();
  auto future = promise->get_future();
  buffer_.read_bytes_async(0, std::as_writable_bytes(std::span<uint32_t>(word.get(), 1)),
                           [uses = uses_, word, promise](std::exception_ptr error) {
                             if (error) return promise->set_exception(error);
                             if (*word == kNothing) return promise->set_value();
                             try {
                               raise(uses, *word);
                             } catch (...) {
                               promise->set_exception(std::current_exception());
                             }
                           });
  return future;
}

void IndexStatusAccess::note_use(IndexStatus& status, const char* operation, const char* argument) {
  auto& uses = status.uses_;
  for (uint32_t i = 0; i < uses.count && i < IndexStatus::kMaxUses; ++i) {
    const auto& use = uses.use[i];
    if (std::strcmp(use.operation, operation) == 0 && std::strcmp(use.argument, argument) == 0) return;
  }
  if (uses.count < IndexStatus::kMaxUses) uses.use[uses.count] = {operation, argument};
  if (uses.count <= IndexStatus::kMaxUses) ++uses.count;
}

void validate_indices(std::span<const int32_t> indices, int64_t axis_length, const char* operation,
                      const char* argument) {
  validate(indices, axis_length, operation, argument);
}
void validate_indices(std::span<const int64_t> indices, int64_t axis_length, const char* operation,
                      const char* argument) {
  validate(indices, axis_length, operation, argument);
}
void validate_index_tuples(std::span<const int32_t> indices, std::span<const int64_t> axis_lengths,
                           const char* operation, const char* argument) {
  validate_tuples(indices, axis_lengths, operation, argument);
}
void validate_index_tuples(std::span<const int64_t> indices, std::span<const int64_t> axis_lengths,
                           const char* operation, const char* argument) {
  validate_tuples(indices, axis_lengths, operation, argument);
}

}  // namespace onegpu::kernels
