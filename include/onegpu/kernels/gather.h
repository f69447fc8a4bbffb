// onegpu/kernels/gather.h - ONNX Gather, GatherElements and GatherND, and the embedding lookup.
//
// Every tensor is a dense TensorRef (onegpu/tensor.h) of rank 0 to 8 (data at least 1). The
// payload (data and out, one type) may be any DataType: 8-bit (int8, uint8, bool), 16-bit
// (float16, bfloat16, int16, uint16), 32-bit (float32, int32, uint32) or 64-bit (int64, uint64,
// float64). Values are moved bit for bit. Indices are int32 or int64 (two 32-bit words, low then
// high; no 64-bit shader integers are needed). An index i of an axis of n elements is valid in
// [-n, n); a negative one counts from the end.
//
// An invocation owns whole 32-bit output words, so an 8- or 16-bit output that starts or ends
// inside a word leaves the neighbouring elements of that word as they were, without atomics.
// Buffers of sub-word elements must end on a word boundary (allocate padded_length(...) elements).
//
// Invalid indices never read or write outside a tensor: the output element (or row) they select is
// zero. Pass an IndexStatus (onegpu/kernels/index_status.h) to have the smallest offending position
// in the flattened index tensor recorded on the device; IndexStatus::check() then throws IndexError
// naming the operation ("Gather", "GatherElements", "GatherND") and the argument ("indices").
// Without a status the zeros are silent.
//
// Every call checks before it records and throws KernelShapeError naming the operation and the
// argument ("data", "indices", "output", "axis", "batch_dims", "strides"): types (indices int32 or
// int64, output type equal to data's), ranks (up to 8), the output's shape (it must equal the
// computed one), axis and batch_dims ranges, element counts (each tensor's offset plus element
// count below 2^31), buffer ranges, and overlaps: the output may not share a 32-bit word with the
// data or the indices ("output"). Arithmetic on shapes is 64-bit and overflow-checked.
//
// Both kernel modes record the same kernels and give the same bits (nothing is summed; no atomics
// but the status word's integer minimum). An empty output records nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/kernels/index_status.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

struct GatherOptions {
  KernelMode mode = KernelMode::fast;  // both give the same bits
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

// The operations, as variant(...) names them.
enum class GatherOperation { gather, gather_elements, gather_nd };

class Gather : public KernelFamily {
 public:
  explicit Gather(Device& device, GatherOptions options = {});
  ~Gather();
  Gather(Gather&&) noexcept;
  Gather& operator=(Gather&&) noexcept;

  // ONNX Gather: out[a..., i..., b...] = data[a..., indices[i...], b...] along `axis` (negative
  // counts from the end). out's shape is gather_shape(data.shape, indices.shape, axis). A gather
  // whose indices pick whole rows (axis 0 of an embedding table, or any axis with rows after it)
  // copies rows: 16 bytes at a time when the rows and both offsets are 16-byte aligned.
  void gather(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices, int64_t axis,
              const TensorRef& out, IndexStatus* status = nullptr);
  // ONNX GatherElements: out has indices' shape, and out[i] = data[i with i[axis] replaced by
  // indices[i]]. indices has data's rank and no larger a dimension than data's, but on `axis`.
  void gather_elements(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices, int64_t axis,
                       const TensorRef& out, IndexStatus* status = nullptr);
  // ONNX GatherND with `batch_dims` leading dimensions shared by data and indices: the last
  // dimension of indices (k, 1 to rank(data) - batch_dims) holds index tuples into data's
  // dimensions after the batch ones. out's shape is gather_nd_shape(...). A bad tuple's position
  // is that of its first bad component.
  void gather_nd(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices, int64_t batch_dims,
                 const TensorRef& out, IndexStatus* status = nullptr);

  // data.shape[:axis] + indices.shape + data.shape[axis + 1:]; KernelShapeError("Gather", ...) for
  // a bad axis or rank.
  static std::vector<int64_t> gather_shape(std::span<const int64_t> data, std::span<const int64_t> indices,
                                           int64_t axis);
  // indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:]; KernelShapeError("GatherND", ...).
  static std::vector<int64_t> gather_nd_shape(std::span<const int64_t> data, std::span<const int64_t> indices,
                                              int64_t batch_dims);

  // The variant (a row of the family's variant table: "gather.rows.uvec4", "gather.index.w32",
  // "gather.elements.w8", ...) the operation records for these operands; `axis` is batch_dims for
  // gather_nd. Runs the same checks as the operation, without the buffers.
  std::string_view variant(GatherOperation operation, const TensorRef& data, const TensorRef& indices, int64_t axis,
                           const TensorRef& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
