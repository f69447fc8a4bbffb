// onegpu/kernels/conv.h - ONNX Conv and ConvTranspose on NCHW tensors.
//
//   y[b, o, i, j] = act(sum_{c, u, v} x[b, g C + c, i s - p + u d, j s - p + v d] w[o, c, u, v]
//                       + bias[o] + residual[b, o, i, j])
//
// for output channel o of group g (C input channels per group), with the window's strides s,
// dilations d and pads p per axis; taps in the padding read zero. Weights are OIHW
// ([out_channels, in_channels / groups, KH, KW]); ConvTranspose weights are
// [in_channels, out_channels / groups, KH, KW]. A 1-D operator is a 2-D one with height 1.
//
// Element types: x, w, bias, residual and y are one type, float32 or float16 (16-bit values are
// read and written in pairs within 32-bit words; an output that starts or ends inside a word keeps
// the neighbouring half). Products and sums are float32; the sum, the bias, the residual and the
// activation are applied in that order, each rounded to float32, then the result to the type.
// Accuracy against a float64 reference of the inputs rounded to their type, as
// max|gpu - ref| / max|ref|: float32 <= 1e-5, float16 <= 2e-3.
//
// Determinism: no kernel uses an atomic or subgroup arithmetic; every sum has an order fixed by
// the shape (the matrix product's block order, the window order of the direct kernels, split-k
// ranges added in range order). Two runs on one device and driver give identical bits in both
// modes, and a batch run in chunks of images (a small scratch) gives the bits of the whole batch.
// See docs/conv.md for the variants, the scratch and the measured speed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/kernels/unary.h"
#include "onegpu/kernels/window.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

// How a convolution is computed (chosen once per problem by `automatic`; variant() names it).
enum class ConvVariant {
  automatic,
  // one invocation per output element (pair of halves), the window summed in order; depthwise
  // convolutions only (one input channel per group, any channel multiplier)
  direct,
  // a 64 x 64 x 16 tile product that gathers the input windows while it loads the tile, k split
  // into ranges for small grids; float32 fuses bias, residual and activation into the store
  implicit,
  // the windows unfolded into a column matrix in the scratch (im2col), then Gemm (the matrix
  // hardware for float16 where the device has it), then the epilogue pass
  unfold,
  // 1 x 1, stride 1, no padding: Gemm on the input as it lies, then the epilogue pass
  pointwise,
  // float16 in fast mode on a device with 16 x 16 x 16 float16 cooperative matrices: the implicit
  // tile product on matrix hardware (the windows gathered while staging, no column matrix), bias,
  // residual and activation fused into the store where the output's halves pair into whole words;
  // at most 256 taps
  implicit_matrix,
  // ConvTranspose only: Gemm of the transposed weights into columns, then a pass gathering each
  // output's taps from them (col2im) with the epilogue; any window
  col2im,
  // ConvTranspose only, dilation 1 and at most 256 phases (the strides' product): one ordinary
  // convolution per phase (outputs whose (o + pad) % stride agree), of the input with that phase's
  // taps, on the implicit kernel (implicit_matrix for float16 where automatic would take it), its
  // outputs stored at their strided positions; the weights are rearranged into the scratch first.
  // For a ConvTranspose, forcing implicit or implicit_matrix picks this with that kernel.
  phases,
  // float32 3 x 3 convolutions of stride 1, dilation 1 and one group: Winograd F(2x2, 3x3). The
  // weights and every 4 x 4 input window are transformed into the scratch, 16 batched Gemm
  // products over the input channels form the transformed outputs, and a last pass transforms each
  // 2 x 2 output tile back and applies the epilogue: 2.25 times fewer multiplications than a direct
  // product, the transforms only adding and halving
  winograd,
};

const char* conv_variant_name(ConvVariant v);  // "automatic", "direct", ...

struct ConvOptions {
  KernelMode mode = KernelMode::fast;
  // automatic: direct for depthwise; in fast mode winograd for float32 3 x 3 convolutions that
  // take it with at least 256 output tiles and 16 channels in and out; else in fast mode (float32, or float16
  // on matrix hardware) pointwise, implicit_matrix (float16 where the device runs it, for up to 256
  // output channels per group or 4096 output columns) or unfold; else implicit. A forced variant that cannot take
  // a problem throws UnsupportedError from encode(). ConvTranspose: phases where they apply
  // (dilation 1, at most 256 phases), else col2im; direct, unfold and pointwise choose as automatic.
  ConvVariant variant = ConvVariant::automatic;
  // false keeps the portable products even where the device has matrix hardware.
  bool allow_matrix_hardware = true;
  // Column matrices and float32 accumulators the family keeps for itself (grown on first need up
  // to this many bytes; a batch needing more runs in chunks of whole images).
  uint64_t max_scratch_bytes = uint64_t(64) << 20;
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

// The fields of ONNX Conv: shapes, the window (window.h) and groups, plus the fused epilogue and
// where each tensor starts in its buffer (element offsets; tensors are dense NCHW / OIHW).
struct ConvProblem {
  int64_t batch = 1;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  Extent2 input{1, 1};  // {height, width}
  Window window{};
  AutoPad auto_pad = AutoPad::explicit_pads;
  int64_t groups = 1;
  bool bias = false;      // add bias[o] (a tensor of out_channels)
  bool residual = false;  // add a tensor of the output's shape
  UnaryFunction activation{};
  uint64_t x_offset = 0, w_offset = 0, bias_offset = 0, residual_offset = 0, y_offset = 0;

  // {height, width} of y (auto_pad resolved). Throws KernelShapeError("Conv", ...).
  Extent2 output() const;
};

// ONNX ConvTranspose. The output extent is transpose_output_extent() of the window with
// `output_padding`, or `output_shape` when given (the pads then follow from it and auto_pad as
// ONNX says); auto_pad same_upper / same_lower without output_shape make the output input * stride.
struct ConvTransposeProblem {
  int64_t batch = 1;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  Extent2 input{1, 1};
  Window window{};
  AutoPad auto_pad = AutoPad::explicit_pads;
  Extent2 output_padding{0, 0};
  std::optional<Extent2> output_shape;
  int64_t groups = 1;
  bool bias = false;
  bool residual = false;
  UnaryFunction activation{};
  uint64_t x_offset = 0, w_offset = 0, bias_offset = 0, residual_offset = 0, y_offset = 0;

  Extent2 output() const;  // throws KernelShapeError("ConvTranspose", ...)
  Window resolved_window() const;  // the window with its pads resolved
};

// The buffers of a call: x, w, y (and bias, residual when the problem asks for them) hold elements
// of the family's type; scratch is float32 words at an element offset (nullptr: the family's own).
struct ConvTensors {
  const RawBuffer* x = nullptr;
  const RawBuffer* w = nullptr;
  const RawBuffer* bias = nullptr;
  const RawBuffer* residual = nullptr;
  const RawBuffer* y = nullptr;
  const Buffer<float>* scratch = nullptr;
  uint64_t scratch_offset = 0;
};

// Scratch a call needs, in 32-bit words: for the whole batch at once and for one image (a smaller
// scratch runs the batch in chunks of whole images; less than one image throws). 0 for variants
// that need none.
struct ConvScratch {
  uint64_t whole_batch = 0;
  uint64_t per_image = 0;
};

class Conv : public KernelFamily {
 public:
  // `type`: float32 or float16 (another throws UnsupportedError, capability "Conv element type").
  Conv(Device& device, DataType type, ConvOptions options = {});
  ~Conv();
  Conv(Conv&&) noexcept;
  Conv& operator=(Conv&&) noexcept;

  // Records the convolution into `encoder` (one to four compute passes per chunk of images). Every
  // check runs before anything is recorded: KernelShapeError with operation "Conv" or
  // "ConvTranspose" and the argument ("in_channels", "groups", "kernel", "pads", "x", "w", "y",
  // "bias", "residual", "scratch", ...) for a bad shape, a tensor outside its buffer, a 16-bit
  // tensor range that cannot be bound, an output overlapping an input or the scratch, or a scratch
  // overlapping an input; UnsupportedError for a forced variant that cannot take the problem, an
  // operand beyond one storage binding or 32-bit indices, or a tile grid beyond the device's limits.
  void encode(CommandEncoder& encoder, const ConvProblem& problem, const ConvTensors& tensors);
  void encode(CommandEncoder& encoder, const ConvTransposeProblem& problem, const ConvTensors& tensors);

  // The variant a problem runs: "conv.direct", "conv.implicit" (".wide" for float32's 64 x 128
  // tile, ".splitk<N>" when k is split),
  // "conv.unfold", "conv.pointwise" (the latter two followed by the product's Gemm variant in
  // brackets), "conv.transpose" (col2im, with its Gemm), "conv.transpose.phases.implicit",
  // "conv.transpose.phases.implicit_coopmat.64x64.4sg", "conv.winograd" (with its Gemm).
  std::string variant(const ConvProblem& problem) const;
  std::string variant(const ConvTransposeProblem& problem) const;

  ConvScratch scratch(const ConvProblem& problem) const;
  ConvScratch scratch(const ConvTransposeProblem& problem) const;

  DataType element_type() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
