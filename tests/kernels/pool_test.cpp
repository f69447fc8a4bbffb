// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool against float64 references
// (tests/reference/pool_reference.h): the ResNet stem pool, ceil_mode with and without the dropped
// last window, dilation, asymmetric and automatic pads, count_include_pad both ways, NaN taps (some
// and all), windows with no real tap, global pools on odd plane sizes and planes larger than a
// workgroup, float16 at odd offsets. Every output buffer is filled with random words first and every
// word outside y must come back unchanged. Max pools are bit-exact; averages within the
// specification's tolerance. Large shapes run with ONEGPU_CONV_FULL=1.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "kernels/tensor_helpers.h"
#include "onegpu/kernels/pool.h"
#include "reference/pool_reference.h"
#include "reference/reference.h"
#include "support/device_fixture.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using namespace kernels;

bool full_run() {
  const char* v = std::getenv("ONEGPU_CONV_FULL");
  return v != nullptr && std::string(v) == "1";
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// A tensor's elements in a buffer of 16- or 32-bit slots with random bits around them.
struct Slots {
  DataType type;
  std::vector<uint32_t> words;
  uint32_t bits(uint64_t i) const {
    if (type == DataType::float32) return words[i];
    return (words[i / 2] >> (16 * (i % 2))) & 0xffffu;
  }
  void set(uint64_t i, uint32_t b) {
    if (type == DataType::float32) {
      words[i] = b;
    } else {
      const uint32_t shift = 16 * uint32_t(i % 2);
      words[i / 2] = (words[i / 2] & ~(0xffffu << shift)) | (b << shift);
    }
  }
  float value(uint64_t i) const {
    return type == DataType::float32 ? std::bit_cast<float>(bits(i)) : to_float(float16{uint16_t(bits(i))});
  }
  uint64_t slots() const { return type == DataType::float32 ? words.size() : 2 * words.size(); }
};

uint32_t bits_of(DataType t, float v) {
  return t == DataType::float32 ? std::bit_cast<uint32_t>(v) : uint32_t(to_float16(v).bits);
}

Slots make_slots(DataType t, uint64_t offset, uint64_t count, uint32_t seed) {
  const uint64_t per_word = t == DataType::float32 ? 1 : 2;
  return Slots{t, random_words((offset + count + per_word - 1) / per_word + 2, seed)};
}

reference::PoolGeometry geometry(const PoolProblem& pr) {
  const Window w = resolve_auto_pad(pr.window, pr.auto_pad, pr.input);
  const Extent2 out = Pool::output_extent(pr);
  reference::PoolGeometry g;
  g.planes = pr.batch * pr.channels;
  g.in_h = pr.input[0];
  g.in_w = pr.input[1];
  g.out_h = out[0];
  g.out_w = out[1];
  g.kernel_h = w.kernel[0];
  g.kernel_w = w.kernel[1];
  g.stride_h = w.strides[0];
  g.stride_w = w.strides[1];
  g.dilation_h = w.dilations[0];
  g.dilation_w = w.dilations[1];
  g.pad_top = w.pads[0];
  g.pad_left = w.pads[1];
  g.pad_bottom = w.pads[2];
  g.pad_right = w.pads[3];
  return g;
}

// The buffer element of x's dense index i (the problem's strides, or dense NCHW), and the buffer
// elements x reaches from its offset.
uint64_t x_address(const PoolProblem& pr, uint64_t i) {
  if (pr.x_strides == std::array<int64_t, 4>{0, 0, 0, 0}) return pr.x_offset + i;
  const uint64_t w = i % uint64_t(pr.input[1]), h = i / uint64_t(pr.input[1]) % uint64_t(pr.input[0]);
  const uint64_t plane = i / uint64_t(pr.input[0] * pr.input[1]);
  const uint64_t c = plane % uint64_t(pr.channels), n = plane / uint64_t(pr.channels);
  return pr.x_offset + n * uint64_t(pr.x_strides[0]) + c * uint64_t(pr.x_strides[1]) + h * uint64_t(pr.x_strides[2]) +
         w * uint64_t(pr.x_strides[3]);
}

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class PoolFixture : public Base {
 protected:
  // Runs the pool on x (values, rounded to the problem's type) and returns y's buffer.
  Slots run(Pool& pool, const PoolProblem& pr, const std::vector<float>& x, uint32_t seed) {
    uint64_t end = 0;
    for (uint64_t i = 0; i < x.size(); ++i) end = std::max(end, x_address(pr, i) + 1);
    Slots xs = make_slots(pr.type, 0, end, seed);
    for (uint64_t i = 0; i < x.size(); ++i) xs.set(x_address(pr, i), bits_of(pr.type, x[i]));
    const uint64_t m = Pool::output_elements(pr);
    Slots ys = make_slots(pr.type, pr.y_offset, m, seed + 1);
    auto xb = this->device().create_buffer(xs.words);
    auto yb = this->device().create_buffer(ys.words);
    auto enc = this->device().begin_commands();
    pool.encode(enc, pr, xb, yb);
    this->device().submit(enc);
    ys.words = yb.read();
    return ys;
  }

  // Runs and compares with the reference; returns the scaled error (averages) or 0.
  double check(const PoolProblem& pr, std::vector<float> x = {}, uint32_t seed = 1) {
    Pool pool(this->device());
    const uint64_t n = Pool::input_elements(pr);
    if (x.empty()) x = random_floats(n, seed, -4.f, 4.f);
    x = stored(pr.type, x);
    std::vector<double> xd(x.begin(), x.end());
    const Slots before = make_slots(pr.type, pr.y_offset, Pool::output_elements(pr), seed + 1);
    const Slots got = run(pool, pr, x, seed);
    std::vector<double> ref;
    const bool max = pr.operation == PoolOperation::max_pool || pr.operation == PoolOperation::global_max_pool;
    if (pr.operation == PoolOperation::max_pool)
      ref = reference::max_pool(geometry(pr), xd, pr.type == DataType::float32 ? -3.4028234663852886e38 : -65504.0);
    else if (pr.operation == PoolOperation::average_pool)
      ref = reference::average_pool(geometry(pr), xd, pr.count_include_pad);
    else
      ref = reference::global_pool(xd, pr.batch * pr.channels, pr.input[0] * pr.input[1], max);
    EXPECT_EQ(ref.size(), Pool::output_elements(pr));
    uint64_t wrong = 0, outside = 0;
    std::vector<float> gpu;
    std::vector<double> finite_ref;
    for (uint64_t i = 0; i < got.slots(); ++i) {
      if (i < pr.y_offset || i >= pr.y_offset + ref.size()) {
        if (got.bits(i) != before.bits(i)) ++outside;
        continue;
      }
      const double r = ref[i - pr.y_offset];
      const float v = got.value(i);
      if (std::isnan(r) || std::isnan(v)) {
        if (std::isnan(r) != std::isnan(v) && wrong++ < 5)
          ADD_FAILURE() << "output " << i - pr.y_offset << ": got " << v << " expected " << r;
        continue;
      }
      if (max) {
        if (got.bits(i) != bits_of(pr.type, float(r)) && wrong++ < 5)
          ADD_FAILURE() << "output " << i - pr.y_offset << ": got " << v << " expected " << r;
      } else {
        gpu.push_back(v);
        finite_ref.push_back(r);
      }
    }
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(outside, 0u) << "slots outside y changed";
    if (max) return 0;
    const double err = reference::scaled_error(gpu, finite_ref);
    EXPECT_LE(err, tolerance(pr.type)) << Pool::describe(pr);
    return err;
  }
};

using PoolTest = PoolFixture<DeviceTest>;
// On every backend with the same references, tolerances and bit checks.
using PoolOnEveryBackend = PoolFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, PoolOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

PoolProblem windowed(PoolOperation op, DataType t, int64_t n, int64_t c, Extent2 in, Window w) {
  PoolProblem p;
  p.operation = op;
  p.type = t;
  p.batch = n;
  p.channels = c;
  p.input = in;
  p.window = w;
  return p;
}

const DataType kTypes[] = {DataType::float32, DataType::float16};

TEST_P(PoolOnEveryBackend, ResNetStemMaxPool) {
  for (DataType t : kTypes)
    for (uint64_t off : {0u, 3u}) {
      PoolProblem p = windowed(PoolOperation::max_pool, t, 2, 5, {28, 30}, {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}});
      p.x_offset = off;
      p.y_offset = off == 0 ? 0 : 1;
      SCOPED_TRACE(std::string(data_type_name(t)) + " offset " + std::to_string(off));
      EXPECT_EQ(Pool::output_extent(p), (Extent2{14, 15}));
      check(p, {}, 2 + uint32_t(off));
    }
}

TEST_P(PoolOnEveryBackend, CeilModeKeepsAndDropsTheLastWindow) {
  for (DataType t : kTypes)
    for (PoolOperation op : {PoolOperation::max_pool, PoolOperation::average_pool})
      for (bool include : {false, true}) {
        // 6 wide, kernel 3, stride 2: ceil adds a window overhanging the end by one tap.
        PoolProblem kept = windowed(op, t, 1, 3, {6, 7}, {{3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}});
        kept.count_include_pad = include;
        kept.ceil_mode = false;
        EXPECT_EQ(Pool::output_extent(kept), (Extent2{2, 3}));
        check(kept, {}, 5);
        kept.ceil_mode = true;
        EXPECT_EQ(Pool::output_extent(kept), (Extent2{3, 3}));
        kept.y_offset = 1;
        check(kept, {}, 6);
        // 5 wide, kernel 2, stride 2, pad 1 both ends: the fourth window would start in the end pad.
        PoolProblem dropped = windowed(op, t, 2, 2, {5, 5}, {{2, 2}, {2, 2}, {1, 1}, {1, 1, 1, 1}});
        dropped.count_include_pad = include;
        dropped.ceil_mode = true;
        EXPECT_EQ(Pool::output_extent(dropped), (Extent2{3, 3}));
        check(dropped, {}, 7);
      }
}

TEST_P(PoolOnEveryBackend, DilationAsymmetricPadsAndCountIncludePad) {
  for (DataType t : kTypes)
    for (PoolOperation op : {PoolOperation::max_pool, PoolOperation::average_pool})
      for (bool include : {false, true})
        for (bool ceil : {false, true}) {
          PoolProblem p = windowed(op, t, 1, 4, {11, 13}, {{3, 2}, {2, 3}, {2, 3}, {0, 2, 3, 1}});
          p.count_include_pad = include;
          p.ceil_mode = ceil;
          p.x_offset = 1;
          p.y_offset = 3;
          SCOPED_TRACE(Pool::describe(p) + (include ? " count_include_pad" : "") + (ceil ? " ceil" : ""));
          check(p, {}, 11);
        }
}

TEST_P(PoolOnEveryBackend, AutoPadAndOneDimensional) {
  for (DataType t : kTypes)
    for (AutoPad a : {AutoPad::same_upper, AutoPad::same_lower, AutoPad::valid})
      for (PoolOperation op : {PoolOperation::max_pool, PoolOperation::average_pool}) {
        PoolProblem p = windowed(op, t, 2, 3, {9, 10}, {{4, 3}, {2, 3}, {1, 1}, {0, 0, 0, 0}});
        p.auto_pad = a;
        check(p, {}, 13);
        // 1-D: height 1, kernel height 1.
        PoolProblem q = windowed(op, t, 2, 3, {1, 37}, {{1, 5}, {1, 2}, {1, 2}, {0, 2, 0, 2}});
        q.auto_pad = a == AutoPad::valid ? AutoPad::explicit_pads : a;
        check(q, {}, 14);
      }
}

TEST_P(PoolOnEveryBackend, NaNTapsAreSkippedUnlessAllAre) {
  for (DataType t : kTypes) {
    PoolProblem p = windowed(PoolOperation::max_pool, t, 1, 3, {8, 8}, {{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}});
    std::vector<float> x = random_floats(Pool::input_elements(p), 21, -4.f, 4.f);
    for (size_t i = 0; i < 64; i += 3) x[i] = kNaN;              // some taps of plane 0
    for (size_t i = 64; i < 128; ++i) x[i] = kNaN;               // plane 1: all NaN
    for (size_t i = 128 + 18; i < 128 + 30; ++i) x[i] = kNaN;    // plane 2: whole windows NaN
    check(p, x);
    PoolProblem g = p;
    g.operation = PoolOperation::global_max_pool;
    check(g, x);
    // Averages propagate NaN.
    p.operation = PoolOperation::average_pool;
    check(p, x);
  }
}

TEST_P(PoolOnEveryBackend, WindowsWithNoRealTap) {
  // Kernel 2 with dilation 3 on a 2 x 2 input padded by 1: the taps are rows/columns -1 and 2,
  // both padding. With pads as large as the kernel, whole windows lie in the padding.
  for (DataType t : kTypes)
    for (PoolOperation op : {PoolOperation::max_pool, PoolOperation::average_pool})
      for (bool include : {false, true}) {
        PoolProblem p = windowed(op, t, 1, 2, {2, 2}, {{2, 2}, {1, 1}, {3, 3}, {1, 1, 1, 1}});
        p.count_include_pad = include;
        const double e = check(p, {}, 31);
        (void)e;
        PoolProblem q = windowed(op, t, 1, 2, {3, 1}, {{2, 1}, {1, 1}, {1, 1}, {3, 0, 2, 0}});
        q.count_include_pad = include;
        q.y_offset = 1;
        check(q, {}, 32);
      }
  // The lowest finite value, bit for bit.
  Pool pool(device());
  for (DataType t : kTypes) {
    PoolProblem p = windowed(PoolOperation::max_pool, t, 1, 1, {1, 1}, {{1, 1}, {1, 1}, {1, 1}, {1, 0, 0, 0}});
    const Slots y = run(pool, p, {2.5f}, 40);
    EXPECT_EQ(y.value(0), t == DataType::float32 ? -3.4028235e38f : -65504.f);
    EXPECT_EQ(y.value(1), 2.5f);
  }
}

TEST_P(PoolOnEveryBackend, GlobalPoolsOnOddPlanes) {
  const Extent2 planes[] = {{1, 1}, {7, 7}, {13, 17}, {3, 1}, {45, 47}};
  for (DataType t : kTypes)
    for (PoolOperation op : {PoolOperation::global_average_pool, PoolOperation::global_max_pool})
      for (Extent2 hw : planes) {
        PoolProblem p;
        p.operation = op;
        p.type = t;
        p.batch = 3;
        p.channels = 7;
        p.input = hw;
        p.x_offset = 5;
        p.y_offset = 3;
        SCOPED_TRACE(Pool::describe(p) + " " + std::to_string(hw[0]) + "x" + std::to_string(hw[1]));
        // Mostly positive values: a mean that cancels cannot be accurate in relative terms.
        check(p, random_floats(Pool::input_elements(p), 50, -1.f, 4.f));
        p.y_offset = 0;
        p.x_offset = 0;
        check(p, random_floats(Pool::input_elements(p), 51, -1.f, 4.f));
      }
}

// x read through strides: NHWC memory, and every second channel of a wider tensor.
TEST_P(PoolOnEveryBackend, StridedInput) {
  for (DataType t : kTypes)
    for (PoolOperation op : {PoolOperation::max_pool, PoolOperation::average_pool,
                             PoolOperation::global_average_pool, PoolOperation::global_max_pool}) {
      const int64_t n = 2, c = 5, h = 9, w = 11;
      PoolProblem p = windowed(op, t, n, c, {h, w}, {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}});
      p.x_offset = 3;
      p.y_offset = 1;
      p.x_strides = {h * w * c, 1, w * c, c};  // NHWC
      SCOPED_TRACE(Pool::describe(p) + " NHWC");
      check(p, random_floats(Pool::input_elements(p), 80, -1.f, 4.f));
      p.x_strides = {2 * c * h * w, 2 * h * w, w, 1};  // channels 0, 2, 4, ... of 2c
      SCOPED_TRACE(Pool::describe(p) + " every second channel");
      check(p, random_floats(Pool::input_elements(p), 81, -1.f, 4.f));
    }
}

TEST_P(PoolOnEveryBackend, BothModesAndTwoRunsGiveTheSameBits) {
  for (DataType t : kTypes)
    for (PoolOperation op : {PoolOperation::average_pool, PoolOperation::global_average_pool}) {
      PoolProblem p = windowed(op, t, 2, 6, {23, 29}, {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}});
      p.count_include_pad = true;
      const auto x = stored(t, random_floats(Pool::input_elements(p), 60, -1.f, 4.f));
      Pool fast(device(), {.mode = KernelMode::fast});
      Pool det(device(), {.mode = KernelMode::deterministic});
      const Slots a = run(fast, p, x, 61), b = run(det, p, x, 61), c = run(det, p, x, 61);
      EXPECT_EQ(a.words, b.words);
      EXPECT_EQ(b.words, c.words);
    }
}

// x in y's buffer (disjoint): the same bits as from another buffer, or, where a buffer bound
// writable may not be bound again in a dispatch (WebGPU), refused before recording.
TEST_P(PoolOnEveryBackend, InputInTheOutputsBuffer) {
  Pool pool(device());
  for (PoolOperation op : {PoolOperation::average_pool, PoolOperation::global_max_pool}) {
    PoolProblem p = windowed(op, DataType::float32, 2, 3, {5, 6}, {{2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}});
    const uint64_t n = Pool::input_elements(p), m = Pool::output_elements(p);
    const std::vector<float> v = random_floats(n + m, 9, -4.f, 4.f);
    auto shared = device().create_buffer(v);
    auto x = device().create_buffer(std::vector<float>(v.begin(), v.begin() + ptrdiff_t(n)));
    auto y = device().create_buffer(std::vector<float>(m, 0.f));
    PoolProblem q = p;
    q.y_offset = n;
    auto enc = device().begin_commands();
    if (!caps().aliased_writable_bindings) {
      try {
        pool.encode(enc, q, shared, shared);
        ADD_FAILURE() << "no error";
      } catch (const UnsupportedError& e) {
        EXPECT_EQ(e.capability(), "aliased_writable_bindings");
      }
      EXPECT_EQ(enc.dispatch_count(), 0u);
      continue;
    }
    pool.encode(enc, q, shared, shared);
    pool.encode(enc, p, x, y);
    device().submit(enc);
    const std::vector<float> got = shared.read(), want = y.read();
    EXPECT_EQ(0, std::memcmp(got.data() + n, want.data(), m * sizeof(float)));
  }
}

TEST_F(PoolTest, ChecksBeforeRecording) {
  Pool pool(device());
  auto small = device().create_buffer<float>(64);
  auto big = device().create_buffer<float>(4096);
  auto halves = device().create_buffer<uint16_t>(300);  // one half short of x
  auto enc = device().begin_commands();
  PoolProblem p = windowed(PoolOperation::max_pool, DataType::float32, 1, 2, {8, 8}, {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}});
  EXPECT_EQ(shape_error_message([&] { pool.encode(enc, p, big, small); }),
            "no error");
  EXPECT_NE(shape_error_message([&] { pool.encode(enc, p, small, big); }).find("MaxPool: x: "), std::string::npos);
  PoolProblem overlap = p;
  overlap.y_offset = 100;
  EXPECT_NE(shape_error_message([&] { pool.encode(enc, overlap, big, big); }).find("MaxPool: y: overlaps x"),
            std::string::npos);
  overlap.y_offset = 128;
  EXPECT_EQ(shape_error_message([&] { pool.encode(enc, overlap, big, big); }), "no error");
  PoolProblem wide = p;
  wide.window.kernel = {11, 3};
  EXPECT_NE(shape_error_message([&] { Pool::output_extent(wide); }).find("MaxPool: kernel: "), std::string::npos);
  PoolProblem neg = p;
  neg.window.strides = {0, 1};
  neg.operation = PoolOperation::average_pool;
  EXPECT_NE(shape_error_message([&] { Pool::output_extent(neg); }).find("AveragePool: strides: "), std::string::npos);
  PoolProblem empty = p;
  empty.channels = 0;
  empty.operation = PoolOperation::global_average_pool;
  EXPECT_NE(shape_error_message([&] { Pool::output_extent(empty); }).find("GlobalAveragePool: x: "), std::string::npos);
  PoolProblem half = windowed(PoolOperation::average_pool, DataType::float16, 1, 1, {7, 43}, {{1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}});
  const std::string half_message = shape_error_message([&] { pool.encode(enc, half, halves, big); });
  EXPECT_NE(half_message.find("AveragePool: x: "), std::string::npos) << half_message;
  PoolProblem strided = p;
  strided.x_strides = {128, 64, 8, -1};
  EXPECT_NE(shape_error_message([&] { pool.encode(enc, strided, big, small); }).find("MaxPool: x_strides: "),
            std::string::npos);
  strided.batch = 2;
  strided.x_strides = {4096, 64, 8, 1};  // reaches element 4096 + 127 of a 4096-float buffer
  EXPECT_NE(shape_error_message([&] { pool.encode(enc, strided, big, small); }).find("MaxPool: x: "), std::string::npos);
  strided.batch = 1;
  strided.x_strides = {0, 2048, 8, 1};  // the second channel ends at 2048 + 63
  EXPECT_EQ(shape_error_message([&] { pool.encode(enc, strided, big, small); }), "no error");
  PoolProblem ints = p;
  ints.type = DataType::int32;
  EXPECT_THROW(pool.encode(enc, ints, big, small), UnsupportedError);
  PoolProblem huge = p;
  huge.batch = int64_t(1) << 20;
  huge.channels = int64_t(1) << 20;
  EXPECT_NE(shape_error_message([&] { pool.encode(enc, huge, big, small); }).find("MaxPool: x: "), std::string::npos);
  device().submit(enc);
}

TEST_P(PoolOnEveryBackend, LargeShapes) {
  if (!full_run()) GTEST_SKIP() << "set ONEGPU_CONV_FULL=1";
  for (DataType t : kTypes) {
    PoolProblem p = windowed(PoolOperation::max_pool, t, 8, 64, {112, 112}, {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}});
    check(p, {}, 70);
    PoolProblem g;
    g.operation = PoolOperation::global_average_pool;
    g.type = t;
    g.batch = 8;
    g.channels = 2048;
    g.input = {7, 7};
    check(g, random_floats(Pool::input_elements(g), 71, -1.f, 4.f));
  }
}

}  // namespace
}  // namespace onegpu::testing
