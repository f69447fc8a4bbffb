// onegpu/buffer.h - device buffers: untyped RawBuffer and typed Buffer<T>.
//
// Ownership: a buffer is a move-only handle; destroying it releases the memory once the GPU has
// finished the work submitted before (it counts in memory_stats() until then). A buffer must not
// outlive its device: one still alive when the device is closed is a leak, which the validation
// layer reports, and the handle becomes inert.
//
// Ordering: write() copies the data at once into staging memory and the upload runs on the GPU
// before the next submission. read() submits a copy behind all work submitted so far and waits.
// read_async() does the same without waiting: its future becomes ready, in submission order, once
// the bytes are in the destination. The destination of read_async must stay valid until then.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace onegpu {

namespace backend { class Buffer; }

class RawBuffer {
 public:
  RawBuffer() = default;
  explicit RawBuffer(std::shared_ptr<backend::Buffer> impl);
  RawBuffer(RawBuffer&&) noexcept = default;
  RawBuffer& operator=(RawBuffer&&) noexcept = default;
  RawBuffer(const RawBuffer&) = delete;
  RawBuffer& operator=(const RawBuffer&) = delete;
  ~RawBuffer();

  explicit operator bool() const { return impl_ != nullptr; }
  // Size in bytes, a whole number of 32-bit words.
  uint64_t size_bytes() const;
  // Identifies the buffer for caches; never reused within a process (0 for an empty handle).
  uint64_t id() const;

  // Byte-level transfers. Throw KernelShapeError (operation "write"/"read") when the range
  // [offset, offset + bytes) does not lie inside the buffer.
  void write_bytes(uint64_t offset, std::span<const std::byte> data);
  void read_bytes(uint64_t offset, std::span<std::byte> out) const;
  std::future<void> read_bytes_async(uint64_t offset, std::span<std::byte> out) const;
  // The same, calling `done` on the device's readback thread (with nullptr on success, or the
  // error). Keep `done` short: completions are delivered one after another. Inside `done`, a
  // blocking read throws UsageError; closing the device, or dropping its last handle, is allowed:
  // the readbacks queued behind `done` still complete, then the thread releases the device.
  void read_bytes_async(uint64_t offset, std::span<std::byte> out,
                        std::function<void(std::exception_ptr)> done) const;

  backend::Buffer& impl() const;

 private:
  std::shared_ptr<backend::Buffer> impl_;
};

// A buffer of `size()` elements of a trivially copyable T whose layout matches the shader's.
template <class T>
class Buffer : public RawBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "Buffer<T> needs a trivially copyable T");

 public:
  Buffer() = default;
  Buffer(std::shared_ptr<backend::Buffer> impl, size_t count) : RawBuffer(std::move(impl)), count_(count) {}

  size_t size() const { return count_; }

  // Elements [offset, offset + data.size()).
  void write(std::span<const T> data, size_t offset = 0) {
    write_bytes(uint64_t(offset) * sizeof(T), std::as_bytes(data));
  }
  void read(std::span<T> out, size_t offset = 0) const {
    read_bytes(uint64_t(offset) * sizeof(T), std::as_writable_bytes(out));
  }
  std::vector<T> read() const {
    std::vector<T> out(count_);
    read(std::span<T>(out));
    return out;
  }
  std::future<void> read_async(std::span<T> out, size_t offset = 0) const {
    return read_bytes_async(uint64_t(offset) * sizeof(T), std::as_writable_bytes(out));
  }
  // The whole buffer, into a vector the future owns.
  std::future<std::vector<T>> read_async() const {
    auto out = std::make_shared<std::vector<T>>(count_);
    auto promise = std::make_shared<std::promise<std::vector<T>>>();
    auto future = promise->get_future();
    read_bytes_async(0, std::as_writable_bytes(std::span<T>(*out)),
                     [out, promise](std::exception_ptr error) {
                       if (error) promise->set_exception(error);
                       else promise->set_value(std::move(*out));
                     });
    return future;
  }

 private:
  size_t count_ = 0;
};

// A range of a buffer bound to a shader binding. size_bytes 0 means "to the end".
struct BufferBinding {
  BufferBinding(const RawBuffer& b, uint64_t offset = 0, uint64_t size = 0)  // NOLINT(implicit)
      : buffer(&b), offset_bytes(offset), size_bytes(size) {}
  const RawBuffer* buffer;
  uint64_t offset_bytes;
  uint64_t size_bytes;
};

}  // namespace onegpu
