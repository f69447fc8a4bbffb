// onegpu/kernels/elementwise.h - element-wise operations with ONNX (numpy) broadcasting.
//
// Tensors are dense row-major views: a buffer, an element offset and a shape (rank 0 to 8).
// Storage: float32, int32 and uint32 one element per 32-bit word; float16 two per word; bool one
// byte per element (0 or 1; any nonzero byte reads as true), four per word; int64 two words (low,
// high). An invocation owns whole output words, so a range that starts or ends inside a word keeps
// the neighbouring elements, without atomics. Broadcasting aligns shapes on the right; after
// neighbouring dimensions that every operand walks contiguously are merged, at most 6 may remain.
// Both kernel modes give the same bits (there is no reduction order).
//
// Accuracy (see docs/elementwise.md): add, sub, mul, min, max, compare, where, cast bit-exact
// (half: exact against (half)((float)a op (float)b)); div and the transcendental functions within
// 1e-5 (float32) and 2e-3 (half) of float64, scaled by the largest output.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/kernels/unary.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {


enum class BinaryOp { add, sub, mul, div, pow, min, max };
enum class CompareOp { equal, less, greater, less_equal, greater_equal };
// int32 / int64 arithmetic (wrapping) and bool logic. Div truncates toward zero and gives 0 for a
// zero divisor; the minimum divided by -1 is itself. Fmod takes the dividend's sign, Mod the
// divisor's; both give 0 for a divisor of 0 or -1.
enum class IntegerOp { add, sub, mul, div, mod, fmod, min, max, logical_and, logical_or, logical_xor };
enum class IntegerUnaryOp { neg, abs, logical_not };

// A host value for Fill and Range: `f` for float types, `i` for integer and bool types.
struct Scalar {
  double f = 0;
  int64_t i = 0;
};


struct TensorView {
  const RawBuffer* buffer = nullptr;
  uint64_t offset = 0;
  std::span<const int64_t> shape;
};

struct ElementwiseOptions {
  KernelMode mode = KernelMode::fast;  // both give the same bits
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

class Elementwise : public KernelFamily {
 public:
  explicit Elementwise(Device& device, ElementwiseOptions options = {});
  ~Elementwise();
  Elementwise(Elementwise&&) noexcept;
  Elementwise& operator=(Elementwise&&) noexcept;

  // out = act(a op b) over the broadcast shape; `type` is float32 or float16 for a, b and out.
  void binary(CommandEncoder& encoder, BinaryOp op, DataType type, const TensorView& a, const TensorView& b,
              const RawBuffer& out, uint64_t out_offset, UnaryOp activation = UnaryOp::identity,
              UnaryParams activation_params = {});
  // out = f(x); float32 or float16.
  void unary(CommandEncoder& encoder, UnaryOp op, DataType type, const TensorView& x, const RawBuffer& out,
             uint64_t out_offset, UnaryParams params = {});
  // bool out = a op b; a and b float32 or float16.
  void compare(CommandEncoder& encoder, CompareOp op, DataType type, const TensorView& a, const TensorView& b,
               const RawBuffer& out, uint64_t out_offset);
  // out = cond ? x : y; cond is bool, x, y and out are `type` (any but bool).
  void where(CommandEncoder& encoder, DataType type, const TensorView& cond, const TensorView& x,
             const TensorView& y, const RawBuffer& out, uint64_t out_offset);
  // out = x converted from `from` to `to` (float32, float16, int32, int64, bool). Float to int
  // truncates toward zero; to bool is "not equal to zero" (NaN is true); int64 to float rounds to
  // nearest even.
  void cast(CommandEncoder& encoder, DataType from, const TensorView& x, DataType to, const RawBuffer& out,
            uint64_t out_offset);

  // Integer family: int32 / int64 (two words, exact over the whole range without 64-bit shader
  // integers) arithmetic, bool logic (`type` bool); compares over int32, int64 and bool.
  void integer_binary(CommandEncoder& encoder, IntegerOp op, DataType type, const TensorView& a, const TensorView& b,
                      const RawBuffer& out, uint64_t out_offset);
  void integer_unary(CommandEncoder& encoder, IntegerUnaryOp op, DataType type, const TensorView& x,
                     const RawBuffer& out, uint64_t out_offset);
  void integer_compare(CommandEncoder& encoder, CompareOp op, DataType type, const TensorView& a, const TensorView& b,
                       const RawBuffer& out, uint64_t out_offset);
  // ConstantOfShape: every element of `shape` set to `value`.
  void fill(CommandEncoder& encoder, DataType type, std::span<const int64_t> shape, const Scalar& value,
            const RawBuffer& out, uint64_t out_offset);
  // out[i] = start + i * delta for `count` elements (float: two separately rounded float32
  // operations; integers: exact int64 arithmetic).
  void range(CommandEncoder& encoder, DataType type, const Scalar& start, const Scalar& delta, uint64_t count,
             const RawBuffer& out, uint64_t out_offset);
  // ONNX's max(ceil((limit - start) / delta), 0), exact for integers.
  static uint64_t range_length(int64_t start, int64_t limit, int64_t delta);
  static uint64_t range_length(double start, double limit, double delta);

  // The broadcast shape of the inputs; KernelShapeError when they do not broadcast.
  static std::vector<int64_t> broadcast_shape(std::span<const std::span<const int64_t>> shapes);


 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
