// onegpu/kernels/scatter.h - ONNX ScatterND and ScatterElements.
//
// out = a copy of data, then every update combined into the element (ScatterElements) or slice
// (ScatterND) its index names. Tensors are dense TensorRefs (onegpu/tensor.h); data, updates and
// out share one element type and data's shape is out's.
//
// Order: updates that meet at one output are combined strictly in index order (update 0 first),
// whatever the kernel mode: every output element has one owner that applies its updates in turn
// after a stable sort of the updates by target (up to 64 index units are compared directly
// instead). The result is the one a sequential loop over the updates gives, bit for bit, on every
// run. There are no floating-point atomics.
//
// Reductions: none (the last update in index order wins), add, mul, min, max. Float operations
// round once per update (float16 computed in float32 and rounded to nearest even); min and max keep
// the existing value on ties and give NaN when either side is NaN (the existing NaN when both
// are); int32 and int64 add and mul wrap (int64 as two 32-bit words, exact over the whole range).
//
// Types: the reductions take float32, float16, int32 and int64. Reduction none moves any 16-, 32-
// or 64-bit element bit for bit (bfloat16, uint32, ...). 8-bit and bool payloads are not taken
// (UnsupportedError), nor uint32 with an arithmetic reduction. float16 and bfloat16 tensors are
// two per 32-bit word and are written with integer atomics on whole words, so the neighbouring
// elements of a word stay as they were; their buffers must end on a word (padded_length()).
//
// Indices: int32 or int64 (two words), valid in [-n, n) for an axis of n elements, negative ones
// counting from the end. An out-of-range index never writes: its update (ScatterND: its whole
// slice) is skipped. With an IndexStatus the smallest offending position in the flattened index
// tensor is recorded (ScatterND: the offending component of the tuple), and status.check() throws
// IndexError naming "ScatterND" or "ScatterElements" and "indices". validate_indices() and
// validate_index_tuples() (index_status.h) check on the host instead.
//
// In place: out may be data itself (the same buffer, offset and shape), which skips the copy: the
// form a key-value cache append takes. Any other overlap of out with data, indices or updates
// (float16: any shared 32-bit word) throws KernelShapeError with argument "output".
//
// Checks before anything is recorded (KernelShapeError naming the operation and the argument):
// types, ranks 0 to 8 (indices at least 1), the shapes ONNX requires, the axis, buffer ranges, and
// element counts below 2^31. An empty scatter records only the copy.
//
// The sort: on a device with subgroup ballots and arithmetic and full subgroups of 8, 16 or 32
// invocations, each radix pass is one dispatch that ranks keys with ballots (up to 2^26 index
// units); elsewhere, or with allow_subgroups false, each pass counts, scans and reorders in three.
// Both give the same order (a stable sort has one result), so the same bits. Where the passes are
// one dispatch and the updates single elements of at most 32 bits, the sort stops at target / 256
// and one workgroup per 256 outputs sorts and folds their updates in workgroup memory
// (allow_group_fold): the same bits again. With
// allow_placement, one-element updates are first placed by target through integer atomics and
// each owner sorts its run by index (the radix sort runs instead when a run is longer than 64):
// the same bits again.
//
// Scratch: the sort keeps its keys in a buffer the family owns, grown on demand (about 17.5 bytes
// per index unit: an index tuple of ScatterND, an index of ScatterElements; the placement adds
// 8 bytes a unit and 4 an output); scratch_bytes_nd()
// and scratch_bytes_elements() say how much a call needs. An encode
// keeps what it records alive until its submission finishes, so the family may grow or go away
// before that.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/kernels/index_status.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

// Codes are shared with the shader (shaders/scatter/scatter_push.h, checked at compile time).
enum class ScatterReduction : uint32_t { none = 0, add = 1, mul = 2, min = 3, max = 4 };

struct ScatterOptions {
  KernelMode mode = KernelMode::fast;  // both give the same bits (the order is always fixed)
  // false keeps the three-dispatch radix passes where the device could rank with subgroups.
  bool allow_subgroups = true;
  // true sorts one-element rows with 4 to 16 updates an output on average by placement instead
  // of the radix sort (docs/scatter.md): the same bits, but slower on the GPUs measured so far,
  // so off by default.
  bool allow_placement = false;
  // true (with the one-dispatch passes) sorts one-element updates of at most 32 bits by
  // target / 256 only and folds each group of 256 outputs in workgroup memory, one radix pass and
  // two dispatches fewer; false keeps the full sort and the per-output combine. The same bits.
  bool allow_group_fold = true;
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

class Scatter : public KernelFamily {
 public:
  explicit Scatter(Device& device, ScatterOptions options = {});
  ~Scatter();
  Scatter(Scatter&&) noexcept;
  Scatter& operator=(Scatter&&) noexcept;

  // ScatterND: indices has shape [..., k] (k <= data's rank); tuple i names the slice
  // data[idx_i, :] of shape data.shape[k:], and updates has shape indices.shape[:-1] +
  // data.shape[k:].
  //
  // `indices_are_distinct`: the caller promises that no two index tuples name the same slice
  // (after normalising negative indices). The kernel then skips the sort and runs one invocation
  // per update element; when the promise is broken the result for the shared slices is undefined.
  void scatter_nd(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices, const TensorRef& updates,
                  const TensorRef& out, ScatterReduction reduction = ScatterReduction::none,
                  bool indices_are_distinct = false, IndexStatus* status = nullptr);

  // ScatterElements: indices and updates have one shape, of data's rank, no longer than data's
  // along every axis but `axis` (negative counts from the end); update at position (i, j, ...)
  // goes to out at the same position with the axis coordinate replaced by its index.
  void scatter_elements(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices,
                        const TensorRef& updates, int64_t axis, const TensorRef& out,
                        ScatterReduction reduction = ScatterReduction::none, bool indices_are_distinct = false,
                        IndexStatus* status = nullptr);

  // Whether the sort's radix passes rank with subgroup ballots on this device (one dispatch per
  // pass), chosen at construction.
  bool sorts_with_subgroups() const;
  // Whether sorted one-element updates of at most 32 bits, at least 8 an output on average, are
  // folded in groups of 256 outputs (allow_group_fold, the one-dispatch passes and 25 KiB of
  // workgroup memory, 33 KiB for subgroups of 16 or more), chosen at construction.
  bool folds_in_groups() const;
  // The most outputs one group of the fold holds (0 without the group fold): 256, or up to 4096
  // where the device's workgroup memory holds their accumulators (the big group fold), so that one
  // radix pass sorts up to 256 times that many outputs.
  uint32_t max_group_outputs() const;

  // The scratch the sorted path needs for these shapes (a call with indices_are_distinct sorts
  // nothing and needs none). Runs the shape checks of the operation.
  static uint64_t scratch_bytes_nd(std::span<const int64_t> data_shape, std::span<const int64_t> indices_shape);
  static uint64_t scratch_bytes_elements(std::span<const int64_t> data_shape, std::span<const int64_t> indices_shape,
                                         int64_t axis);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
