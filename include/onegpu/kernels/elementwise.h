// onegpu/kernels/elementwise.h - element-wise operations with ONNX (numpy) broadcasting.
//
// Every tensor is a TensorRef (onegpu/tensor.h): buffer, element offset, shape (rank 0 to 8),
// strides and element type. Inputs may be strided (non-negative strides, in elements; 0 repeats a
// dimension); outputs are dense row-major and their shape must be the result's shape. Types come
// from the references and are checked: a mismatch throws KernelShapeError naming the argument.
// Storage: float32, int32 and uint32 one element per 32-bit word; float16 two per word; bool one
// byte per element (0 or 1; any nonzero byte reads as true), four per word; int64 two words (low,
// high). An invocation owns whole output words, so a range that starts or ends inside a word keeps
// the neighbouring elements, without atomics. Broadcasting aligns shapes on the right; after
// neighbouring dimensions that every operand walks contiguously are merged, at most 6 may remain,
// and the output holds fewer than 2^31 elements. An input may be the output itself only when it
// is dense with the output's shape, offset and element size. Both kernel modes give the same bits
// (there is no reduction order).
//
// Accuracy (see docs/elementwise.md): add, sub, mul, min, max, compare, where, cast bit-exact
// (half: exact against (half)((float)a op (float)b)); div and the transcendental functions within
// 1e-5 (float32) and 2e-3 (half) of float64, scaled by the largest output.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/kernels/unary.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {


// Codes are shared with the shader (shaders/elementwise/elementwise_push.h, checked at compile
// time).
enum class BinaryOp : uint32_t { add = 0, sub = 1, mul = 2, div = 3, pow = 4, min = 5, max = 6 };
enum class CompareOp : uint32_t { equal = 0, less = 1, greater = 2, less_equal = 3, greater_equal = 4 };
// int32 / int64 arithmetic (wrapping) and bool logic. Div truncates toward zero and gives 0 for a
// zero divisor; the minimum divided by -1 is itself. Fmod takes the dividend's sign, Mod the
// divisor's; both give 0 for a divisor of 0 or -1.
enum class IntegerOp : uint32_t {
  add = 0,
  sub = 1,
  mul = 2,
  div = 3,
  mod = 4,
  fmod = 5,
  min = 6,
  max = 7,
  logical_and = 8,
  logical_or = 9,
  logical_xor = 10
};
enum class IntegerUnaryOp : uint32_t { neg = 0, abs = 1, logical_not = 2 };

// The operations, as variant(...) names them.
enum class ElementwiseOperation {
  binary, unary, compare, where, cast, integer_binary, integer_unary, integer_compare, fill, range
};

// A host value for Fill and Range: `f` for float types, `i` for integer and bool types.
struct Scalar {
  double f = 0;
  int64_t i = 0;
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

  // Every call checks before it records: types (KernelShapeError naming the argument whose type
  // is wrong), shapes (the output's must be the broadcast shape), strides (argument "strides"),
  // the element counts (checked 64-bit products), buffer ranges and overlaps. The variant it
  // records is the one variant(...) names for the same arguments.

  // out = activation(a op b) over the broadcast shape; a, b and out float32, or all float16.
  void binary(CommandEncoder& encoder, BinaryOp op, const TensorRef& a, const TensorRef& b, const TensorRef& out,
              UnaryFunction activation = {});
  // out = f(x); x and out float32, or both float16.
  void unary(CommandEncoder& encoder, UnaryFunction f, const TensorRef& x, const TensorRef& out);
  // bool out = a op b; a and b float32, or both float16.
  void compare(CommandEncoder& encoder, CompareOp op, const TensorRef& a, const TensorRef& b, const TensorRef& out);
  // out = cond ? x : y; cond bool; x, y and out one type (float32, float16, int32, uint32, int64).
  void where(CommandEncoder& encoder, const TensorRef& cond, const TensorRef& x, const TensorRef& y,
             const TensorRef& out);
  // out = x converted to out's type (float32, float16, int32, int64, bool, either way). Float to
  // int truncates toward zero; to bool is "not equal to zero" (NaN is true); int64 to float rounds
  // to nearest even.
  void cast(CommandEncoder& encoder, const TensorRef& x, const TensorRef& out);

  // Integer family: int32 / int64 (two words, exact over the whole range without 64-bit shader
  // integers) arithmetic; logical_* and logical_not on bool; a, b and out one type.
  void integer_binary(CommandEncoder& encoder, IntegerOp op, const TensorRef& a, const TensorRef& b,
                      const TensorRef& out);
  void integer_unary(CommandEncoder& encoder, IntegerUnaryOp op, const TensorRef& x, const TensorRef& out);
  // bool out = a op b; a and b one type: int32, int64 or bool.
  void integer_compare(CommandEncoder& encoder, CompareOp op, const TensorRef& a, const TensorRef& b,
                       const TensorRef& out);
  // ConstantOfShape: every element of out set to `value` (float32, float16, int32, uint32, int64,
  // bool).
  void fill(CommandEncoder& encoder, const Scalar& value, const TensorRef& out);
  // out[i] = start + i * delta over out's elements (float: two separately rounded float32
  // operations; int32 / int64: exact int64 arithmetic). Size out with range_length(...).
  void range(CommandEncoder& encoder, const Scalar& start, const Scalar& delta, const TensorRef& out);
  // ONNX's max(ceil((limit - start) / delta), 0), exact for integers.
  static uint64_t range_length(int64_t start, int64_t limit, int64_t delta);
  static uint64_t range_length(double start, double limit, double delta);

  // The broadcast shape of the inputs; KernelShapeError when they do not broadcast.
  static std::vector<int64_t> broadcast_shape(std::span<const std::span<const int64_t>> shapes);

  // The variant (a row of the family's variant table: "elementwise.float.same_shape.f32x8",
  // "elementwise.integer.broadcast.i64", ...) an operation with these operands records. `inputs`
  // in the order the operation takes them (Where: cond, x, y; none for Fill and Range). Runs the
  // same checks as the operation, without the buffers.
  std::string_view variant(ElementwiseOperation operation, std::span<const TensorRef> inputs,
                           const TensorRef& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
