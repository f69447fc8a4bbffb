// onegpu/kernels/attention.h - fused scaled dot-product attention.
//
//   O = softmax(scale * Q K^T + mask) V      for every batch entry and query head
//
// The score matrix is never stored: a workgroup holds a block of query rows and walks the keys in
// increasing order, tile by tile, keeping per row a running maximum, a running sum of
// exp(score - maximum) and the weighted sum of value rows (the online normaliser).
//
// Element types: Q, K, V and O are one type, float32, float16 or bfloat16 (16-bit values are read
// and written in pairs within 32-bit words); scores, sums and accumulators are float32. The mask is
// always float32. Accuracy against a float64 reference of the inputs rounded to their type, as
// max|gpu - ref| / max|ref|: float32 <= 1e-5, float16 <= 2e-3, bfloat16 <= 8e-3.
//
// Special values: a key hidden by a -inf mask value, by its batch entry's key length or by the
// causal rule has weight 0 (its V row is never read into the sum). A query row with no visible
// key (key_length 0 included) gives NaN in every element, or zeros with MaskedRows::zero. A row
// with a NaN or +inf score among its visible keys gives NaN.
//
// Determinism: both modes run the same kernels; every sum has an order fixed by the code, there
// are no atomics and no subgroup arithmetic (the `pairs` kernel exchanges one number between two
// invocations and each adds the two halves), so two runs on one device and driver give identical
// bits. A call cut at the submission work budget gives the same bits as the whole call. A call
// whose keys are split into ranges (see scratch_length) sums in another order than an unsplit one;
// the split depends only on the problem's shape. See docs/attention.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

// Which kernel computes the partial softmax sums. A kernel that cannot take a particular problem
// gives way to `rows` for it (see docs/attention.md); variant() names the kernel a problem runs.
enum class AttentionVariant {
  // keys for few query rows per key/value head (decoder steps), else the matrix-hardware kernel
  // where the device and element type allow it (cooperative2 before cooperative), else rows
  automatic,
  rows,         // one invocation per query row, 64 rows per workgroup (needs nothing of the device)
  pairs,        // two invocations per row, each half the head dimension (needs subgroup shuffles)
  // cooperative matrices: float16 with head_dim <= 128 and a multiple of 8, Q, K and V offsets and
  // strides multiples of 8 elements (needs 16 x 16 x 16 float16 matrices and subgroups of 32)
  cooperative,
  // workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2): float16 on the problems
  // `cooperative` takes (needs workgroup-scope float16 matrices with float32 accumulation)
  cooperative2,
  // a workgroup per batch entry, key/value head and key range serving up to 16 query rows of that
  // key/value head (8 above head_dim 128): heads / kv_heads * query_length must not exceed that
  keys,
};

// What a query row with no visible key gives.
enum class MaskedRows { nan, zero };

struct AttentionOptions {
  KernelMode mode = KernelMode::fast;  // both run the same kernels
  AttentionVariant variant = AttentionVariant::automatic;
  // false rules out `pairs` (forcing it then throws UnsupportedError).
  bool allow_subgroups = true;
  // false keeps the scalar kernels even where the device has matrix hardware.
  bool allow_matrix_hardware = true;
  MaskedRows masked_rows = MaskedRows::nan;
  // A call whose estimated work (docs/attention.md) exceeds this budget is recorded as several
  // dispatches of whole workgroups, each reported to the encoder (CommandEncoder::report_work) so
  // that it can end a submission between them; the bits do not change. nullopt: the device's
  // budget (Device::submission_work_budget); 0: never cut.
  std::optional<uint64_t> submission_work_budget;
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

// Where one tensor's rows are: element (b, h, r, d) is at
//   offset + b * batch_stride + h * head_stride + r * row_stride + d
// (elements of a row are contiguous). Counts are elements of the tensor's type.
struct AttentionLayout {
  uint64_t offset = 0;
  uint64_t batch_stride = 0, head_stride = 0, row_stride = 0;

  // [batch, heads, length, head_dim], dense.
  static AttentionLayout head_first(uint64_t heads, uint64_t length, uint64_t head_dim, uint64_t offset = 0);
  // [batch, length, heads, head_dim], dense: how a projection leaves it.
  static AttentionLayout position_first(uint64_t heads, uint64_t length, uint64_t head_dim, uint64_t offset = 0);
  // One part of a packed projection [batch, length, (heads + 2 * kv_heads) * head_dim] holding the
  // query heads, then the key heads, then the value heads of each position.
  enum class Part { query, key, value };
  static AttentionLayout packed_qkv(Part part, uint64_t heads, uint64_t kv_heads, uint64_t length,
                                    uint64_t head_dim);
};

// Where the float32 additive mask is: value (b, h, r, k) at
//   offset + b * batch_stride + h * head_stride + r * row_stride + k
// Strides may be 0 (broadcast over batch entries, heads or rows); keys are contiguous.
struct AttentionMaskLayout {
  uint64_t offset = 0;
  uint64_t batch_stride = 0, head_stride = 0, row_stride = 0;

  // A dense mask of shape [mask_batch, mask_heads, mask_rows, key_length], each of the first three
  // either the problem's size or 1 (broadcast): [batch, 1, 1, key_length] is a padding mask,
  // [1, 1, query_length, key_length] one shared by every batch entry and head.
  static AttentionMaskLayout broadcast(uint64_t mask_batch, uint64_t mask_heads, uint64_t mask_rows,
                                       uint64_t key_length, uint64_t offset = 0);
};

struct AttentionProblem {
  uint64_t batch = 1;
  uint64_t heads = 1;
  uint64_t kv_heads = 0;  // 0: heads. Query head h reads key/value head h / (heads / kv_heads).
  uint64_t query_length = 0;
  uint64_t key_length = 0;  // of K and V (and of each mask row)
  uint64_t head_dim = 0;    // 1 to 256; float16 and bfloat16 need it even
  std::optional<float> scale;  // nullopt: 1 / sqrt(head_dim)
  // Causal: key j is visible to query row r only when j <= r + causal_offset (nullopt:
  // key_length - query_length, the last query row seeing every key, as with a key/value cache).
  bool causal = false;
  std::optional<int64_t> causal_offset;
  // nullopt: head-first and dense ([batch, heads, length, head_dim]; kv_heads for K and V).
  std::optional<AttentionLayout> q, k, v, o;
  // nullopt with a mask buffer: [batch, heads, query_length, key_length], dense.
  std::optional<AttentionMaskLayout> mask;
};

// The optional buffers of a call.
struct AttentionInputs {
  const Buffer<float>* mask = nullptr;  // additive, float32 (-inf hides a key)
  // One int32 per batch entry: keys at or after it are hidden (clamped to [0, key_length]).
  const Buffer<int32_t>* key_lengths = nullptr;
  // Split-key partials: at least scratch_length(problem) floats, from its start. nullptr: the
  // family's own buffer (allocated on first need, kept until the family is destroyed).
  const Buffer<float>* scratch = nullptr;
};

class Attention : public KernelFamily {
 public:
  // `type` is the element type of Q, K, V and O: float32, float16 or bfloat16 (any other throws
  // UnsupportedError, capability "Attention element type"). Forcing `pairs` without subgroup
  // shuffles (or with allow_subgroups false), or `cooperative` / `cooperative2` where that matrix
  // kernel cannot run,
  // throws UnsupportedError here.
  Attention(Device& device, DataType type, AttentionOptions options = {});
  ~Attention();
  Attention(Attention&&) noexcept;
  Attention& operator=(Attention&&) noexcept;

  // Records the attention into `encoder`: one compute pass (several when the call is cut at the
  // work budget), plus a merge pass when the keys are split. q, k, v and o hold elements of the
  // family's type. Every check runs before anything is recorded, and throws KernelShapeError with
  // operation "Attention" and the argument ("head_dim", "kv_heads", "q", "o", "mask",
  // "key_lengths", "scratch", "causal_offset", ...) for a bad size, a layout whose rows overlap
  // (output) or run outside its buffer, a 16-bit tensor with an odd offset or stride, an output
  // overlapping an input or the scratch, a key_lengths buffer with fewer than `batch` entries or a
  // scratch shorter than scratch_length(problem); UnsupportedError when a buffer exceeds one
  // storage binding or 32-bit element indices, and, where the device's aliased_writable_bindings
  // is false (WebGPU), for o in the buffer of q, k, v, the mask or key_lengths, or the caller's
  // scratch in one of theirs or o's (even at disjoint bytes).
  void encode(CommandEncoder& encoder, const AttentionProblem& problem, const RawBuffer& q, const RawBuffer& k,
              const RawBuffer& v, const RawBuffer& o, const AttentionInputs& inputs = {});

  // Floats of scratch the problem needs: 0 when its keys are not split, else
  // batch * heads * query_length * ranges * (head_dim + 2). Depends only on the shape.
  static uint64_t scratch_length(const AttentionProblem& problem);

  // The kernel encode() runs for this problem, as the family's variant table spells it
  // ("attention.rows.f32.d64", "attention.pairs.f16.d128", "attention.rows.f32.d64.blockwise"),
  // followed by ".split<N>" when the keys are cut into N ranges.
  std::string variant(const AttentionProblem& problem) const;

  DataType element_type() const;
  KernelMode mode() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
