// onegpu/kernels/integer_gemm.h - 8-bit matrix products (ONNX MatMulInteger and QLinearMatMul).
//
//   sum[b][i][j] = sum over k of (op(A)[b][i][k] - za[i]) * (op(B)[b][k][j] - zb[j])
//
// for `batch` independent products, in int32 with two's-complement wrap-around: the result is
// exact (the same integer for every variant and summation order, so both kernel modes give the
// same bits). A and B are uint8 or int8 in any mix, packed four to a 32-bit word; op(X) is X or its
// transpose; matrices are row-major with a leading dimension; sizes, leading dimensions, offsets
// and batch strides count elements (bytes for A, B and an 8-bit output), and need not be word
// aligned.
//
// Three outputs, one encode each:
//   int32:        C = sum + int_bias[j]                                      (wraps)
//   float-scaled: C = float(sum + int_bias[j]) * scale[j], then + bias[j]    (two roundings)
//   requantized:  Y = clamp(round_half_even(float(sum + int_bias[j]) * multiplier[j]) + zero_y)
// Elements of an output outside the written region are untouched, including the other bytes of
// the words an 8-bit Y shares with its neighbours. See docs/integer_gemm.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

struct IntegerGemmProblem {
  uint64_t m = 0, n = 0, k = 0;
  DataType a_type = DataType::uint8;  // uint8 or int8
  DataType b_type = DataType::int8;   // uint8 or int8
  bool transpose_a = false;           // A is stored K x M
  bool transpose_b = false;           // B is stored N x K
  uint64_t batch = 1;
  // Leading dimensions; nullopt: the stored matrix's own width.
  std::optional<uint64_t> lda, ldb, ldc;
  // Element offsets of the first matrix in each buffer.
  uint64_t offset_a = 0, offset_b = 0, offset_c = 0;
  // Batch strides; nullopt: one stored matrix after another. 0 shares one A or B.
  std::optional<uint64_t> stride_a, stride_b, stride_c;
};

// A zero point: `value` (in the operand type's range), or elements of the operand's type in
// `buffer` from element `offset`: one (per tensor) or, with `per_channel`, one per row of op(A)
// (M of them) / per column of op(B) (N). The same for every batch entry.
struct ZeroPoint {
  int32_t value = 0;
  const RawBuffer* buffer = nullptr;
  uint64_t offset = 0;
  bool per_channel = false;
};

struct IntegerGemmZeroPoints {
  ZeroPoint a, b;
};

// A float per tensor or per column: `value`, or `buffer[offset]` (per tensor) or
// `buffer[offset + j]` (with `per_column`).
struct ColumnFactor {
  float value = 1.0f;
  const Buffer<float>* buffer = nullptr;
  uint64_t offset = 0;
  bool per_column = false;
};

// int32 output: an optional int32 bias per column, `int_bias[int_bias_offset + j]`.
struct IntegerGemmInt32Output {
  const Buffer<int32_t>* int_bias = nullptr;
  uint64_t int_bias_offset = 0;
};

// Float-scaled output: float(sum + int_bias[j]) * scale, then + bias[bias_offset + j]. The
// multiply and the add round separately (never one fused operation).
struct IntegerGemmScaledOutput {
  ColumnFactor scale;
  const Buffer<int32_t>* int_bias = nullptr;
  uint64_t int_bias_offset = 0;
  const Buffer<float>* bias = nullptr;
  uint64_t bias_offset = 0;
};

// Requantized output (uint8 or int8 Y, with the problem's ldc, offset_c and stride_c):
// clamp(round_half_even(float(sum + int_bias[j]) * multiplier) + zero_point) to the type's range.
// A NaN multiplier gives an unspecified value in range.
struct IntegerGemmRequantizedOutput {
  DataType type = DataType::uint8;
  ColumnFactor multiplier;
  int32_t zero_point = 0;  // in the type's range
  const Buffer<int32_t>* int_bias = nullptr;
  uint64_t int_bias_offset = 0;
};

struct IntegerGemmOptions {
  // false keeps both cooperative-matrix tiles out where the device lists their int8 shapes.
  bool allow_matrix_hardware = true;
  // false keeps the portable tile where the device has an 8-bit dot product.
  bool allow_packed_dot = true;
  // false keeps 64 x 64 tiles for small grids (fewer than 32 of them) too, and the workgroup-scope
  // tile for grids of fewer than 32 of its tiles.
  bool allow_small_tiles = true;
  // false keeps the tiles for M <= 16 (the skinny kernel) and 16 < M <= 64 (the rows kernel) too.
  bool allow_skinny = true;
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

class IntegerGemm : public KernelFamily {
 public:
  // Chooses once here, from the device's capabilities and the options: the workgroup-scope
  // cooperative-matrix tile where the device lists int8 x int8 -> int32 at workgroup scope, the
  // subgroup-scope tile where it lists that shape, the packed-dot kernels (the rows kernel for
  // 16 < M <= 64 among them) where the device has the 8-bit dot product
  // (ShaderFeature::integer_dot_product), else the portable ones. Each is kept only where the
  // device accepts its pipeline.
  explicit IntegerGemm(Device& device, IntegerGemmOptions options = {});
  ~IntegerGemm();
  IntegerGemm(IntegerGemm&&) noexcept;
  IntegerGemm& operator=(IntegerGemm&&) noexcept;

  // Each records the product into `encoder` (one compute pass; two for the requantized form, the
  // sums going through the family's int32 scratch buffer, which grows on demand: a warm call with
  // the same or smaller shape allocates nothing). A product with more operations (2 m n k batch)
  // than the device's submission budget (Device::submission_work_budget) computes its sums in
  // pieces, whole batch entries or bands of 64-row multiples, each reported to the encoder
  // (CommandEncoder::report_work), which starts a new submission between them once the budget is
  // passed; the result is the same integers. `a` and `b` hold elements of the problem's
  // types. Throws, before recording anything:
  //   KernelShapeError naming the operation ("MatMulInteger" for the int32 form, "QLinearMatMul"
  //   for the others) and the argument: a bad shape, leading dimension, stride, offset, buffer
  //   size, zero point, scale, multiplier or bias range, a zero point or Y zero point value
  //   outside its type, or an output whose bytes share a 32-bit word with an input's in the same
  //   buffer (argument "c" / "y": no product runs in place);
  //   UnsupportedError for types other than uint8/int8, an operand beyond one storage binding or
  //   32-bit indices, or a grid beyond the device's limits.
  void encode(CommandEncoder& encoder, const IntegerGemmProblem& problem, const RawBuffer& a, const RawBuffer& b,
              const IntegerGemmZeroPoints& zero_points, const Buffer<int32_t>& c,
              const IntegerGemmInt32Output& output = {});
  void encode_scaled(CommandEncoder& encoder, const IntegerGemmProblem& problem, const RawBuffer& a,
                     const RawBuffer& b, const IntegerGemmZeroPoints& zero_points, const Buffer<float>& c,
                     const IntegerGemmScaledOutput& output);
  // `y` holds elements of output.type, four to a word.
  void encode_requantized(CommandEncoder& encoder, const IntegerGemmProblem& problem, const RawBuffer& a,
                          const RawBuffer& b, const IntegerGemmZeroPoints& zero_points, const RawBuffer& y,
                          const IntegerGemmRequantizedOutput& output);

  // The kernel that computes the sums for this problem, as the family's variant table and
  // docs/integer_gemm.md spell it ("integer_gemm.dot4.64x64x32", "integer_gemm.skinny.16x32"). For
  // the workgroup-scope tile, the form without zero points or bias
  // ("integer_gemm.coopmat2.256x128x64.a_mk.b_kn.ss.direct"; with them the call takes ".ss").
  std::string variant(const IntegerGemmProblem& problem) const;
  // Whether the packed-dot kernels were chosen at construction.
  bool packed_dot() const;
  // Whether the subgroup-scope cooperative-matrix tile was chosen at construction (the device lists
  // int8 x int8 -> int32 at 16 x 16 x 32, the build compiled it and the device accepted its
  // pipeline); it then computes the products with M > 64 (M > 16 without the rows kernel, every one
  // without allow_skinny) that the workgroup-scope tile does not.
  bool matrix_hardware() const;
  // The workgroup-scope tile chosen at construction ("integer_gemm.coopmat2.256x128x64": the device
  // lists int8 x int8 -> int32 at workgroup scope for it, the build compiled it and the device
  // accepted its pipeline), empty when none. It computes the products with M > 64 (M > 16 without
  // the rows kernel) that cover at least 32 of its tiles (every one without allow_small_tiles).
  std::string workgroup_tile() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
