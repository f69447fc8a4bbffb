// onegpu/timestamps.h - GPU timing of compute passes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace onegpu {

namespace backend { class TimestampSet; }

// Slots for the start and end of `pass_capacity` passes (see CommandEncoder::begin_pass_timing).
class TimestampSet {
 public:
  TimestampSet() = default;
  explicit TimestampSet(std::shared_ptr<backend::TimestampSet> impl);
  uint32_t pass_capacity() const;
  // Nanoseconds on the GPU clock, one value per slot written by the last submission that used the
  // set, once that submission has finished; std::nullopt before then or when nothing was written.
  std::optional<std::vector<uint64_t>> try_read();
  // Durations of the timed passes in nanoseconds (end - start), waiting for the work to finish.
  std::vector<uint64_t> wait_pass_durations();
  backend::TimestampSet& impl() const;

 private:
  std::shared_ptr<backend::TimestampSet> impl_;
};

}  // namespace onegpu
