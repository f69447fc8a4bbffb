// A warm encode allocates nothing: once a family has built its pipelines and bind groups, recording
// the same call again makes no heap allocation. Counted with a replacement global operator new
// (this binary only), on the calling thread. The device runs without the validation layer here:
// the layer's own bookkeeping inside vkCmd* calls would be counted too.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "onegpu/kernels/attention.h"
#include "onegpu/kernels/conv_integer.h"
#include "onegpu/kernels/elementwise.h"
#include "onegpu/kernels/gather.h"
#include "onegpu/kernels/gemm.h"
#include "onegpu/kernels/integer_gemm.h"
#include "onegpu/kernels/layout.h"
#include "onegpu/kernels/pool.h"
#include "onegpu/kernels/quantize.h"
#include "onegpu/kernels/recurrent.h"
#include "onegpu/kernels/reduce.h"
#include "onegpu/kernels/resize.h"
#include "onegpu/kernels/scatter.h"
#include "support/device_fixture.h"

// GCC pairs the replaced operators below with malloc and free once it inlines them and then warns
// that a pointer from "new" reaches free: that is the replacement's intent.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
thread_local bool t_counting = false;
thread_local uint64_t t_allocations = 0;
}  // namespace

void* operator new(std::size_t n) {
  if (t_counting) ++t_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
// The no-throw forms too: every allocation of this binary then pairs malloc with free (std's
// temporary buffers use them, and the sanitizers check that allocation and release match).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (t_counting) ++t_allocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace onegpu::testing {
namespace {

using namespace kernels;

template <class F>
uint64_t allocations_of(F&& f) {
  t_allocations = 0;
  t_counting = true;
  f();
  t_counting = false;
  return t_allocations;
}

TEST(Allocations, WarmEncodesAllocateNothing) {
  if (enumerate_adapters().empty()) {
    if (const char* r = std::getenv("ONEGPU_REQUIRE_DEVICE"); r && std::string(r) == "1") FAIL() << "no adapter";
    GTEST_SKIP() << "no Vulkan adapter on this machine";
  }
  Device device = Device::create({.validation = false});  // whatever ONEGPU_VALIDATION says
  auto a = device.create_buffer(std::vector<float>(256 * 256, 1.0f));
  auto b = device.create_buffer(std::vector<float>(256 * 256, 2.0f));
  auto c = device.create_buffer<float>(256 * 256);
  auto i64 = device.create_buffer<int64_t>(256);
  Gemm gemm(device, DataType::float32);
  Reduce reduce(device);
  Softmax softmax(device);
  Norm norm(device);
  Elementwise ew(device);
  Gather gather(device);
  IndexStatus status(device);
  Layout layout(device);
  Attention attention(device, DataType::float32, {.submission_work_budget = 0});
  AttentionProblem heads{.batch = 1, .heads = 4, .query_length = 64, .key_length = 64, .head_dim = 64};
  const std::vector<int64_t> shape = {256, 256}, row = {256}, axes = {1}, column = {256}, whole = {65536};
  const std::vector<int64_t> transposed = {1, 256}, pairs = {128, 2}, tuples = {128};
  const DataType f32 = DataType::float32;
  const std::vector<int64_t> perm = {1, 0}, starts = {-1}, ends = {INT64_MIN}, steps = {-2}, sliced = {256, 128};
  const std::vector<int64_t> half = {32, 256};
  const TensorRef parts[] = {{&a, 0, half, {}, f32}, {&b, 0, half, {}, f32}, {&a, 1, half, {}, f32},
                             {&b, 7, half, {}, f32}, {&a, 9, half, {}, f32}};  // two passes
  const std::vector<int64_t> five = {160, 256};
  const GemmProblem small{.m = 128, .n = 96, .k = 512};  // split k: two passes
  auto record = [&](CommandEncoder& enc) {
    gemm.encode(enc, {.m = 256, .n = 256, .k = 256}, a, b, c);
    gemm.encode(enc, small, a, b, c);
    reduce.encode(enc, ReduceOp::sum, {&a, 0, shape, {}, f32}, axes, false, {&c, 0, column, {}, f32});
    reduce.encode(enc, ReduceOp::sum, {&a, 0, whole, {}, f32}, {}, false, {&c, 0, {}, {}, f32});  // two passes
    reduce.encode(enc, ReduceOp::arg_max, {&a, 0, shape, {}, f32}, axes, false, {&i64, 0, column, {}, DataType::int64});
    softmax.encode(enc, {&a, 0, shape, {}, f32}, 1, {&c, 0, shape, {}, f32});
    norm.encode_layer_norm(enc, {&a, 0, shape, {}, f32}, {&c, 0, shape, {}, f32}, {.scale = {&b, 0, row, {}, f32}});
    ew.binary(enc, BinaryOp::add, {&a, 0, shape, {}, f32}, {&b, 0, row, {}, f32}, {&c, 0, shape, {}, f32},
              {UnaryOp::relu});
    ew.binary(enc, BinaryOp::mul, {&a, 0, shape, transposed, f32}, {&b, 0, shape, {}, f32}, {&c, 0, shape, {}, f32});
    ew.unary(enc, {UnaryOp::gelu_erf}, {&a, 0, shape, {}, f32}, {&c, 0, shape, {}, f32});
    ew.where(enc, {&i64, 0, row, {}, DataType::boolean}, {&a, 0, shape, {}, f32}, {&b, 0, shape, {}, f32},
             {&c, 0, shape, {}, f32});
    ew.fill(enc, {.f = 2}, {&c, 0, shape, {}, f32});
    gather.gather(enc, {&a, 0, shape, {}, f32}, {&i64, 0, row, {}, DataType::int64}, 0, {&c, 0, shape, {}, f32}, &status);
    gather.gather_nd(enc, {&a, 0, shape, {}, f32}, {&i64, 0, pairs, {}, DataType::int64}, 0, {&c, 0, tuples, {}, f32});
    layout.transpose(enc, {&a, 0, shape, {}, f32}, perm, {&c, 0, shape, {}, f32});
    layout.slice(enc, {&a, 0, shape, {}, f32}, starts, ends, axes, steps, {&c, 0, sliced, {}, f32});
    layout.expand(enc, {&a, 0, row, {}, f32}, {&c, 0, shape, {}, f32});
    layout.concat(enc, parts, 0, {&c, 0, five, {}, f32});
    attention.encode(enc, heads, a, a, b, c);
  };
  // The counter sees allocations (a result vector is one).
  EXPECT_GT(allocations_of([&] { (void)Reduce::output_shape(shape, axes, true); }), 0u);
  auto enc = device.begin_commands();
  record(enc);  // builds pipelines and bind groups
  const uint64_t n = allocations_of([&] { record(enc); });
  EXPECT_EQ(n, 0u) << "heap allocations in a warm encode";
  device.submit(enc);
  device.wait_idle();
}

// Scatter records a dozen dispatches per sorted call: on its own, so that the encoder's own list of
// what it keeps alive stays within what a fresh encoder reserves.
TEST(Allocations, WarmScatterEncodesAllocateNothing) {
  if (enumerate_adapters().empty()) GTEST_SKIP() << "no Vulkan adapter on this machine";
  Device device = Device::create({.validation = false});
  auto a = device.create_buffer(std::vector<float>(256 * 256, 1.0f));
  auto b = device.create_buffer(std::vector<float>(256 * 256, 2.0f));
  auto c = device.create_buffer<float>(256 * 256);
  std::vector<int32_t> positions(256);
  for (int32_t i = 0; i < 256; ++i) positions[size_t(i)] = (i * 7) % 256;
  auto idx = device.create_buffer(positions);
  Scatter scatter(device);
  IndexStatus status(device);
  const std::vector<int64_t> shape = {256, 256}, row = {256}, tuples = {256, 1};
  const DataType f32 = DataType::float32;
  auto record = [&](CommandEncoder& enc) {
    scatter.scatter_elements(enc, {&a, 0, row, {}, f32}, {&idx, 0, row, {}, DataType::int32}, {&b, 0, row, {}, f32}, 0,
                             {&c, 0, row, {}, f32}, ScatterReduction::add, false, &status);
    scatter.scatter_nd(enc, {&c, 0, shape, {}, f32}, {&idx, 0, tuples, {}, DataType::int32}, {&b, 0, shape, {}, f32},
                       {&c, 0, shape, {}, f32}, ScatterReduction::none, true);
  };
  auto enc = device.begin_commands();
  record(enc);
  const uint64_t n = allocations_of([&] { record(enc); });
  EXPECT_EQ(n, 0u) << "heap allocations in a warm encode";
  device.submit(enc);
  device.wait_idle();
}

// The 8-bit products: every form, with zero points, scales and biases from buffers.
TEST(Allocations, WarmIntegerGemmEncodesAllocateNothing) {
  if (enumerate_adapters().empty()) GTEST_SKIP() << "no Vulkan adapter on this machine";
  Device device = Device::create({.validation = false});
  auto a = device.create_buffer(std::vector<uint8_t>(64 * 64, 3));
  auto b = device.create_buffer(std::vector<uint8_t>(64 * 64, 250));
  auto zp = device.create_buffer(std::vector<uint8_t>(64, 7));
  auto scales = device.create_buffer(std::vector<float>(64, 0.5f));
  auto int_bias = device.create_buffer(std::vector<int32_t>(64, 9));
  auto c = device.create_buffer<int32_t>(64 * 64);
  auto cf = device.create_buffer<float>(64 * 64);
  auto y = device.create_buffer<uint8_t>(64 * 64);
  kernels::IntegerGemm gemm(device);
  const kernels::IntegerGemmProblem p{.m = 64, .n = 64, .k = 64};
  const kernels::IntegerGemmZeroPoints zero{.a = {.value = 3}, .b = {.buffer = &zp, .per_channel = true}};
  auto record = [&](CommandEncoder& enc) {
    gemm.encode(enc, p, a, b, zero, c, {.int_bias = &int_bias});
    gemm.encode_scaled(enc, p, a, b, zero, cf, {.scale = {.buffer = &scales, .per_column = true}, .int_bias = &int_bias});
    gemm.encode_requantized(enc, p, a, b, zero, y, {.multiplier = {.value = 0.01f}, .zero_point = 5});
  };
  auto enc = device.begin_commands();
  record(enc);
  const uint64_t n = allocations_of([&] { record(enc); });
  EXPECT_EQ(n, 0u) << "heap allocations in a warm encode";
  device.submit(enc);
  device.wait_idle();
}

// ConvInteger's unfold pass and its products, the own scratch grown by the first call; groups with
// per-channel zero points record a product per group.
TEST(Allocations, WarmConvIntegerEncodesAllocateNothing) {
  if (enumerate_adapters().empty()) GTEST_SKIP() << "no Vulkan adapter on this machine";
  Device device = Device::create({.validation = false});
  auto x = device.create_buffer(std::vector<uint8_t>(2 * 8 * 10 * 10, 3));
  auto w = device.create_buffer(std::vector<uint8_t>(16 * 8 * 9, 250));
  auto zp = device.create_buffer(std::vector<uint8_t>(16, 7));
  auto y = device.create_buffer<int32_t>(2 * 16 * 10 * 10);
  kernels::ConvInteger conv(device);
  kernels::ConvIntegerProblem p;
  p.batch = 2, p.in_channels = 8, p.out_channels = 16, p.input = {10, 10};
  p.window = kernels::Window{{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  kernels::ConvIntegerProblem grouped = p;
  grouped.groups = 4;
  const kernels::ConvIntegerZeroPoints zero{.x = {.value = 5}, .w = {.buffer = &zp, .per_channel = true}};
  auto record = [&](CommandEncoder& enc) {
    conv.encode(enc, p, zero, {&x, &w, &y});
    conv.encode(enc, grouped, zero, {&x, &w, &y});
  };
  auto enc = device.begin_commands();
  record(enc);
  record(enc);
  const uint64_t n = allocations_of([&] { record(enc); });
  EXPECT_EQ(n, 0u) << "heap allocations in a warm encode";
  device.submit(enc);
  device.wait_idle();
}

// The quantize family's three operations (the dynamic one in two passes), on their own so the
// encoder's lists stay within what it reserves. Recorded twice first: the encoder's barrier
// bookkeeping grows to the pattern of two consecutive recordings.
TEST(Allocations, WarmQuantizeEncodesAllocateNothing) {
  if (enumerate_adapters().empty()) GTEST_SKIP() << "no Vulkan adapter on this machine";
  Device device = Device::create({.validation = false});
  auto a = device.create_buffer(std::vector<float>(256 * 256, 1.0f));
  auto b = device.create_buffer(std::vector<float>(256, 0.5f));
  auto c = device.create_buffer<float>(256 * 256);
  auto bytes = device.create_buffer<uint32_t>(256 * 64);
  auto zeros = device.create_buffer<uint32_t>(256);
  Quantize quantize(device);
  const std::vector<int64_t> shape = {256, 256}, row = {256};
  const DataType f32 = DataType::float32, u8 = DataType::uint8;
  const TensorRef zero{&zeros, 0, {}, {}, u8}, zeros_per_row{&zeros, 0, row, {}, u8};
  auto record = [&](CommandEncoder& enc) {
    quantize.quantize_linear(enc, {&a, 0, shape, {}, f32}, {&b, 0, {}, {}, f32}, &zero, {&bytes, 0, shape, {}, u8});
    quantize.dequantize_linear(enc, {&bytes, 0, shape, {}, u8}, {&b, 0, row, {}, f32}, &zeros_per_row,
                               {&c, 0, shape, {}, f32}, 0);
    quantize.dynamic_quantize_linear(enc, {&a, 0, shape, {}, f32}, {&bytes, 0, shape, {}, u8}, {&c, 0, {}, {}, f32},
                                     {&zeros, 1000, {}, {}, u8});
  };
  auto enc = device.begin_commands();
  record(enc);
  record(enc);
  const uint64_t n = allocations_of([&] { record(enc); });
  EXPECT_EQ(n, 0u) << "heap allocations in a warm encode";
  device.submit(enc);
  device.wait_idle();
}

// Attention with split keys (a merge pass, the family's scratch) and a call cut at the work budget
// into several passes: on its own, like scatter, for the encoder's reserve.
TEST(Allocations, WarmAttentionEncodesAllocateNothing) {
  if (enumerate_adapters().empty()) GTEST_SKIP() << "no Vulkan adapter on this machine";
  Device device = Device::create({.validation = false});
  auto a = device.create_buffer(std::vector<float>(65536, 1.0f));
  auto b = device.create_buffer(std::vector<float>(65536, 2.0f));
  auto c = device.create_buffer<float>(65536);
  Attention attention(device, DataType::float32, {.submission_work_budget = 1u << 22});
  const AttentionProblem step{.batch = 1, .heads = 1, .query_length = 1, .key_length = 2048, .head_dim = 32};
  const AttentionProblem heads{.batch = 1, .heads = 4, .query_length = 64, .key_length = 64, .head_dim = 64};
  auto record = [&](CommandEncoder& enc) {
    attention.encode(enc, step, a, a, b, c);   // split keys
    attention.encode(enc, heads, a, a, b, c);  // four pieces
  };
  auto enc = device.begin_commands();
  record(enc);
  record(enc);  // the encoder's lists grow to their size for this pattern
  const uint64_t n = allocations_of([&] { record(enc); });
  EXPECT_EQ(n, 0u) << "heap allocations in a warm encode";
  device.submit(enc);
  device.wait_idle();
}

// Pooling (windowed and global) and a resize with its plan made beforehand.
TEST(Allocations, WarmPoolAndResizeEncodesAllocateNothing) {
  if (enumerate_adapters().empty()) GTEST_SKIP() << "no Vulkan adapter on this machine";
  Device device = Device::create({.validation = false});
  auto a = device.create_buffer(std::vector<float>(4 * 16 * 16, 1.0f));
  auto c = device.create_buffer<float>(4 * 32 * 32);
  Pool pool(device);
  Resize resize(device);
  PoolProblem max{.channels = 4, .input = {16, 16}, .window = {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}}};
  PoolProblem mean{.operation = PoolOperation::global_average_pool, .channels = 4, .input = {16, 16},
                   .type = DataType::float16};
  const ResizePlan plan(device, {.channels = 4, .input = {16, 16}, .scales = {2.f, 2.f}, .mode = ResizeMode::linear});
  auto record = [&](CommandEncoder& enc) {
    pool.encode(enc, max, a, c);
    pool.encode(enc, mean, a, c);
    resize.encode(enc, plan, a, c);
  };
  auto enc = device.begin_commands();
  record(enc);
  record(enc);
  const uint64_t n = allocations_of([&] { record(enc); });
  EXPECT_EQ(n, 0u) << "heap allocations in a warm encode";
}

// A bidirectional LSTM and a two-pass GRU: the projection's Gemm, the set-up pass, a pass per step
// and the outputs, with the family's scratch already grown.
TEST(Allocations, WarmRecurrentEncodesAllocateNothing) {
  if (enumerate_adapters().empty()) GTEST_SKIP() << "no Vulkan adapter on this machine";
  Device device = Device::create({.validation = false});
  auto a = device.create_buffer(std::vector<float>(4096, 0.1f));
  auto y = device.create_buffer<float>(4096);
  auto yh = device.create_buffer<float>(256);
  Recurrent rnn(device, DataType::float32);
  const DataType f32 = DataType::float32;
  const std::vector<int64_t> xs = {4, 2, 8}, ws = {2, 64, 8}, rs = {2, 64, 16}, ys = {4, 2, 2, 16}, hs = {2, 2, 16};
  const std::vector<int64_t> gw = {1, 48, 8}, gr = {1, 48, 16}, gy = {4, 1, 2, 16}, gh = {1, 2, 16};
  const RecurrentProblem lstm{.cell = RecurrentCell::lstm, .seq = 4, .batch = 2, .input = 8, .hidden = 16,
                              .direction = RecurrentDirection::bidirectional};
  const RecurrentProblem gru{.cell = RecurrentCell::gru, .seq = 4, .batch = 2, .input = 8, .hidden = 16};
  RecurrentTensors lt, gt;
  lt.x = {&a, 0, xs, {}, f32}, lt.w = {&a, 0, ws, {}, f32}, lt.r = {&a, 0, rs, {}, f32};
  lt.y = {&y, 0, ys, {}, f32}, lt.y_h = {&yh, 0, hs, {}, f32};
  gt.x = lt.x, gt.w = {&a, 0, gw, {}, f32}, gt.r = {&a, 0, gr, {}, f32};
  gt.y = {&y, 0, gy, {}, f32}, gt.y_h = {&yh, 0, gh, {}, f32};
  auto enc = device.begin_commands();
  // Warm: pipelines, bind groups and scratch exist, and the encoder's own lists (which grow with
  // every dispatch it records: a pass per step makes many per call) are not at a growth point.
  for (int i = 0; i < 12; ++i) {
    rnn.encode(enc, lstm, lt);
    rnn.encode(enc, gru, gt);
  }
  EXPECT_EQ(allocations_of([&] { rnn.encode(enc, lstm, lt); }), 0u) << "heap allocations in a warm LSTM encode";
  EXPECT_EQ(allocations_of([&] { rnn.encode(enc, gru, gt); }), 0u) << "heap allocations in a warm GRU encode";
  device.submit(enc);
  device.wait_idle();
}

}  // namespace
}  // namespace onegpu::testing
