// onegpu/kernels/gemm.h - batched matrix products.
//
//   C = alpha * op(A) * op(B) + beta * C      for `batch` independent products
//
// op(X) is X or its transpose. A and B are float32, float16 or bfloat16 (one type per Gemm);
// products and sums are float32 and C is float32. Matrices are dense and row-major with a leading
// dimension; sizes, leading dimensions, offsets and batch strides count elements. With beta = 0
// C is never read (it may hold NaN); elements of C outside the written region are untouched.
//
// Accuracy against a float64 reference of the inputs rounded to their type, as
// max|gpu - ref| / max|ref|: float32 <= 1e-5, float16 <= 2e-3, bfloat16 <= 8e-3. See docs/gemm.md
// for the variants, the summation order and the measured speed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/kernels/unary.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

struct GemmProblem {
  uint64_t m = 0, n = 0, k = 0;
  bool transpose_a = false;  // A is stored K x M
  bool transpose_b = false;  // B is stored N x K
  uint64_t batch = 1;
  float alpha = 1.0f;
  float beta = 0.0f;
  // Leading dimensions; nullopt: the stored matrix's own width.
  std::optional<uint64_t> lda, ldb, ldc;
  // Element offsets of the first matrix in each buffer.
  uint64_t offset_a = 0, offset_b = 0, offset_c = 0;
  // Batch strides; nullopt: one stored matrix after another. stride_b = 0 shares one B.
  std::optional<uint64_t> stride_a, stride_b, stride_c;
  // The product the kernel and the k split are chosen for, when this one is a piece of a larger
  // one with the same m and k (fewer columns or batch entries): pieces recorded with the whole
  // product's n and batch here give the bits the whole product gives. Each must be at least this
  // product's own; nullopt: this product's.
  std::optional<uint64_t> plan_n, plan_batch;
};

// Optional epilogue in the same dispatch: `bias[bias_offset + j]` added to column j of every row of
// every product, then `activation` (any unary function of kernels/unary.h with its parameters, as
// the element-wise family applies it). The result is bit-identical to the product followed by the
// separate bias add (Elementwise::binary) and unary function (Elementwise::unary).
struct GemmEpilogue {
  const Buffer<float>* bias = nullptr;
  uint64_t bias_offset = 0;
  UnaryFunction activation{};  // identity: none
};

// How a float32 Gemm forms its products (docs/gemm.md, "Float32 on float16 matrix hardware").
//   exact          the float32 tile kernels (float32 products, float32 sums).
//   split_float16  each operand scaled by a power of two per row of op(A) and per column of op(B)
//                  and split into two float16 parts (hi + lo); float16 products of the parts
//                  (hi hi + hi lo + lo hi, float32 sums) on the family's float16 kernels (matrix
//                  hardware where the device has it), added and scaled back in an epilogue pass.
//                  Within the float32 tolerance; elements smaller than about 2^-17 of their row's
//                  (column's) largest lose low bits, the error staying relative to that largest
//                  value. Uses scratch the Gemm owns: three float16 copies of each operand and up
//                  to nine M x N float32 planes (docs/gemm.md gives the sizes).
//   automatic      the family's policy: exact today (docs/gemm.md says where that may change).
// Deterministic mode always runs the exact kernels. Ignored for float16 and bfloat16 Gemms.
enum class Float32Products { automatic, exact, split_float16 };

struct GemmOptions {
  KernelMode mode = KernelMode::fast;
  Float32Products float32_products = Float32Products::automatic;
  // false keeps the portable kernels even where the device has matrix hardware.
  bool allow_matrix_hardware = true;
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
  // A product with more operations (2 m n k batch) than the device's submission budget
  // (Device::submission_work_budget) is recorded in pieces, whole batch entries or bands of 128-row
  // multiples, each reported to the encoder, which starts a new submission at the next piece once
  // the budget is passed (CommandEncoder::report_work). Every piece
  // runs the kernel, k split and summation order of the whole product: the bits do not change.
  // false keeps one piece.
  bool allow_splitting = true;
};

class Gemm : public KernelFamily {
 public:
  // `type` is the element type of A and B: float32, float16 or bfloat16; any other throws
  // UnsupportedError (capability "Gemm element type") naming it. Chooses the matrix-hardware
  // kernel (float16 and bfloat16 in fast mode), if any, once here, from the device's capabilities.
  Gemm(Device& device, DataType type, GemmOptions options = {});
  ~Gemm();
  Gemm(Gemm&&) noexcept;
  Gemm& operator=(Gemm&&) noexcept;

  // Records the product into `encoder` (one compute pass, two with split k; a float32 product on
  // float16 hardware records its exponent, split, product and epilogue passes). `a` and `b` hold
  // elements of the Gemm's type (Buffer<float>, Buffer<float16> or Buffer<bfloat16>). Throws
  // KernelShapeError for a bad shape, stride, offset, buffer size, bias range or unary function
  // ("Gemm: lda: 12 is less than K = 16"), or a C whose range overlaps A's, B's or the bias's in
  // one buffer (argument "c"; whole 32-bit words; no product runs in place), UnsupportedError when an operand does not fit one
  // storage binding or 32-bit indices, or the grid exceeds the device's limits. Nothing is
  // recorded when it throws.
  void encode(CommandEncoder& encoder, const GemmProblem& problem, const RawBuffer& a, const RawBuffer& b,
              const Buffer<float>& c, const GemmEpilogue& epilogue = {});

  // The variant encode() runs for this problem and epilogue: the name of the kernel that computes
  // the products, as the family's variant table and docs/gemm.md spell it ("gemm.tile64.f32",
  // "gemm.rows.nk.f32.vec4", "gemm.coopmat2.f16.128x256x32.a_mk.b_kn.act"), followed by
  // ".splitk<N>" when k is cut into N ranges ("gemm.tile64.f32.splitk12"). A float32 product on
  // float16 hardware (Float32Products::split_float16) is "gemm.f32split." followed by its float16
  // product's name without "gemm." ("gemm.f32split.coopmat2.f16.128x256x32.a_mk.b_kn").
  std::string variant(const GemmProblem& problem, const GemmEpilogue& epilogue = {}) const;

  DataType element_type() const;
  KernelMode mode() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
