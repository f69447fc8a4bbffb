// Attention decisions that need no GPU: resolving defaults, checking shapes and buffers, choosing
// the kernel, the key split, the cut at the work budget and the push constants. Kernels are named
// by the family's variant table (src/kernels/attention/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attention/attention_push.h"
#include "kernels/common/variant.h"
#include "onegpu/capabilities.h"
#include "onegpu/kernels/attention.h"

namespace onegpu::kernels::attention {

const VariantTable& variants();

inline constexpr uint64_t kMaxHeadDim = 256;
inline constexpr uint64_t kMaxLength = 1ull << 30;  // query and key lengths stay below
inline constexpr uint64_t kKeyTile = 32;             // a key range is a multiple of this
inline constexpr uint64_t kMaxSplits = 16;
inline constexpr uint64_t kMinSplitKeys = 128;
inline constexpr uint64_t kTargetWorkgroups = 256;
inline constexpr uint64_t kSplitRows = 64;           // query rows per block, for the split decision
inline constexpr uint64_t kBlockwiseKeys = 640;      // a walk this long sums tile by tile (d <= 64)
inline constexpr uint64_t kKeysRows = 16;            // query rows per key/value head the keys kernel serves
inline constexpr uint64_t kCooperativeMaxDim = 128;  // head dimensions of the matrix kernel

// A layout with the strides of dimensions of size 1 set to 0 and its element extent.
struct Layout {
  uint64_t offset = 0, batch = 0, head = 0, row = 0;
  uint64_t end = 0;  // one past the highest element reachable (offset when empty)
};

// The problem with every default filled in.
struct Shape {
  uint64_t batch = 0, heads = 0, kv_heads = 0, query_length = 0, key_length = 0, head_dim = 0;
  uint64_t padded_dim = 0;  // 32, 64, 128 or 256
  float scale = 1.0f;
  bool causal = false;
  int64_t causal_offset = 0;  // clamped to [-query_length, key_length]
  Layout q, k, v, o, mask;    // mask: only with has_mask
  bool has_mask = false;
  bool empty() const { return batch == 0 || query_length == 0; }
};

// Fills defaults and checks sizes, layouts and extents in checked 64-bit arithmetic; throws
// KernelShapeError (operation "Attention") naming the argument. `type` is the element type;
// `has_mask` whether a mask buffer comes with the call.
Shape resolve(const AttentionProblem& p, DataType type, bool has_mask);

// The head dimension a kernel is compiled for: 32, 64, 128 or 256.
uint64_t padded_head_dim(uint64_t head_dim);

enum class Kernel { rows, pairs, cooperative, keys, cooperative2 };
const char* kernel_name(Kernel k);

// What the constructor knows when it chooses the kernel.
struct Choice {
  AttentionVariant preference = AttentionVariant::automatic;
  DataType type = DataType::float32;
  bool allow_subgroups = true;
  bool allow_matrix_hardware = true;
  bool has_shuffle = false;            // the device offers subgroup shuffles in compute shaders
  bool cooperative_available = false;  // a matrix kernel for this type can run on the device
  bool cooperative2_available = false;  // the workgroup-scope matrix kernel can run on the device
};
// The family's kernel for problems it serves (plan() adapts it to each problem). Throws
// UnsupportedError when the forced kernel cannot run.
Kernel choose_kernel(const Choice& c);

// Few query rows per key/value head (heads / kv_heads * query_length <= kKeysRows, half that for
// head dimensions above 128): decoder steps,
// which the keys kernel serves (a workgroup per batch entry, key/value head and key range).
bool few_rows(const Shape& s);
// Whether a matrix kernel (cooperative or cooperative2) can take the problem: head_dim <= 128 and a multiple of 8, and the
// offsets and strides of Q, K and V multiples of 8 elements (it reads 16-byte words).
bool cooperative_fits(const Shape& s);

// The cut of the keys into ranges: `splits` ranges of `chunk` keys (the last may be shorter).
struct Split {
  uint64_t splits = 1;
  uint64_t chunk = 0;  // key_length without a split
};
// Depends only on batch, heads, key/value heads, query and key lengths: with fewer than
// kTargetWorkgroups blocks of kSplitRows query rows (for few_rows() problems: fewer batch entries
// times key/value heads), enough ranges (at most kMaxSplits, each a multiple of kKeyTile and at
// least kMinSplitKeys keys) to make about kTargetWorkgroups workgroups.
Split split_keys(const Shape& s);

// Floats of split-key scratch (0 without a split).
uint64_t scratch_floats(const Shape& s);

struct Plan {
  Kernel kernel = Kernel::rows;
  uint64_t rows_per_workgroup = 64;
  bool blockwise = false;
  Split split;
  uint64_t workgroups = 0;  // of the main pass
  uint64_t work = 0;        // estimated operations of the whole call (saturating)
  Variant variant = variants()[0];  // the main kernel (set by plan())
};
// `kernel` is the family's choice and `preference` the option it came from: an automatic choice
// takes the keys kernel for few_rows() problems; a matrix kernel that does not fit the problem,
// and a forced keys kernel on a problem with more rows, give way to rows.
Plan plan(const Shape& s, DataType type, Kernel kernel, AttentionVariant preference = AttentionVariant::automatic);
// The variant name with ".split<N>" when the keys are split.
std::string variant_name(const Plan& p);
// The merge pass's variant for an element type.
Variant merge_variant(DataType type);

// Dispatches of whole workgroups [first, first + count) for a work budget (0: one dispatch).
struct Piece {
  uint64_t first = 0, count = 0;
  uint64_t work = 0;
};
std::vector<Piece> pieces(const Plan& p, uint64_t budget);
// The same without a list (encode allocates nothing): workgroups per piece and the work of one.
struct Cut {
  uint64_t step = 0, work_per_workgroup = 0;
};
Cut cut(const Plan& p, uint64_t budget);
// The main kernel's variant for an element type, kernel, padded head dimension and summation.
Variant scalar_variant(DataType type, Kernel kernel, uint64_t padded_dim, bool blockwise);
// The workgroup-scope matrix kernel's variant for a padded head dimension (32, 64 or 128): the
// tile (query rows x keys, invocations) the family takes for it.
Variant cooperative2_variant(uint64_t padded_dim);

// The caller's buffers as the checks see them (bytes and RawBuffer::id(); nullopt: not given).
struct BufferInfo {
  uint64_t bytes = 0, id = 0;
};
struct Buffers {
  BufferInfo q, k, v, o;
  std::optional<BufferInfo> mask, key_lengths, scratch;
};
// Throws KernelShapeError when a tensor runs outside its buffer, the key lengths hold fewer than
// `batch` entries, the scratch is shorter than scratch_floats(), or the output (or the scratch)
// overlaps another operand; UnsupportedError when an extent passes 32-bit element indices.
void check_buffers(const Shape& s, DataType type, const Plan& p, const Buffers& b);

// The main pass's push constants for the whole call (first_workgroup 0, every workgroup).
AttentionPush push_constants(const Shape& s, const Plan& p, bool key_lengths, MaskedRows masked_rows);
AttentionMergePush merge_push_constants(const Shape& s, const Plan& p, DataType type, MaskedRows masked_rows);

}  // namespace onegpu::kernels::attention
