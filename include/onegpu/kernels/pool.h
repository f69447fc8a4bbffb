// onegpu/kernels/pool.h - ONNX MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool.
//
// Tensors are NCHW: x is [batch, channels, height, width] (dense, or with the strides of the
// problem) and y a dense [batch, channels, out height, out width] (1 x 1 for the global pools). A 1-D pool is a 2-D one with height 1 and
// kernel height 1. Both live in buffers as float32 or float16 (two halves per 32-bit word; the
// arithmetic is float32 and a half result is rounded to nearest even once), from the element
// offsets in the problem. x and y have the same type.
//
// Windowed pools (MaxPool, AveragePool) take the geometry of onegpu/kernels/window.h: kernel,
// strides, dilations, pads {h begin, w begin, h end, w end}, or ONNX auto_pad resolved against the
// input; ceil_mode rounds the output extent up, dropping a last window that would start inside the
// end padding. A tap is a kernel position; it is "real" when it lies inside the input and "padding"
// when it lies inside the explicit pads (ceil_mode can put taps beyond both: they never count).
//   MaxPool: the largest real tap. NaN taps are skipped unless every real tap is NaN (then NaN); a
//     window with no real tap gives the lowest finite value of the type (-3.4028235e38 for float32,
//     -65504 for float16). Ties keep the first tap in row-major window order. Bit-exact.
//     The optional Indices output of ONNX MaxPool is not provided.
//   AveragePool: the float32 sum of the real taps in row-major window order, divided by the number
//     of real taps, or with count_include_pad by the number of real and padding taps. A window whose
//     divisor is zero gives NaN.
// Global pools reduce each plane (height x width) with a fixed order: the threads of a plane fold
// strided slices in index order, then a fixed halving tree combines them (no atomics, no subgroup
// operations). GlobalMaxPool skips NaN unless the plane is all NaN; GlobalAveragePool divides the
// sum by height x width.
//
// Every result depends only on the problem: both KernelMode values record the same kernels and two
// runs give the same bits. An invocation writes whole 32-bit words of y (two float16 outputs), so an
// output that starts or ends inside a word leaves its neighbour's half as it was.
//
// encode() checks everything before it records and throws, naming the ONNX operation:
//   UnsupportedError for an element type other than float32 or float16;
//   KernelShapeError(operation, argument) for a non-positive batch, channel or spatial extent
//   ("x"), a negative stride ("x_strides"), a bad window ("kernel", "strides", "dilations", "pads"; see window.h), a padded extent of
//   2^31 or more ("pads"), an element offset plus element count not below 2^31 ("x", "y"), a tensor
//   outside its buffer or a buffer ending inside the tensor's last word ("x", "y"; allocate
//   padded_length), and y overlapping x in one buffer ("y"). Shape arithmetic is 64-bit and
//   overflow-checked. A warm encode with the same buffers allocates nothing.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/kernels/window.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

enum class PoolOperation { max_pool, average_pool, global_average_pool, global_max_pool };

struct PoolProblem {
  PoolOperation operation = PoolOperation::max_pool;
  int64_t batch = 1, channels = 1;
  Extent2 input{1, 1};  // {height, width}
  // MaxPool and AveragePool only (the global pools ignore them).
  Window window{};
  AutoPad auto_pad = AutoPad::explicit_pads;
  bool ceil_mode = false;
  bool count_include_pad = false;  // AveragePool
  DataType type = DataType::float32;
  uint64_t x_offset = 0, y_offset = 0;  // elements
  // x's strides in elements {batch, channel, row, column}, each >= 0; all zero: dense NCHW. y is
  // always dense. (NHWC memory, for one, is {H * W * C, 1, W * C, C}.)
  std::array<int64_t, 4> x_strides{0, 0, 0, 0};
};

struct PoolOptions {
  KernelMode mode = KernelMode::fast;  // both give the same bits
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

class Pool : public KernelFamily {
 public:
  explicit Pool(Device& device, PoolOptions options = {});
  ~Pool();
  Pool(Pool&&) noexcept;
  Pool& operator=(Pool&&) noexcept;

  // Records the pool of x (in `x`'s buffer) into y (in `y`'s buffer); see the contract above.
  void encode(CommandEncoder& encoder, const PoolProblem& problem, const RawBuffer& x, const RawBuffer& y);

  // y's spatial extent {height, width} (1 x 1 for the global pools); checks the problem.
  static Extent2 output_extent(const PoolProblem& problem);
  // Elements of x (its shape's) and of y.
  static uint64_t input_elements(const PoolProblem& problem);
  static uint64_t output_elements(const PoolProblem& problem);
  // The variant encode() records for the problem ("pool.max.f32", "pool.global.avg.f16 (32 threads
  // a plane)", ...); checks the problem.
  static std::string describe(const PoolProblem& problem);
  // "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool".
  static const char* operation_name(PoolOperation operation);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
