// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear against the CPU formulas, byte for
// byte: ties of both parities, saturation at both ends, NaN, infinities, subnormal inputs and
// scales, five scale sets (including reciprocals that float32 cannot represent, where multiplying
// by 1/scale would differ from dividing), per-axis scales on every axis, float16 input, odd offsets
// next to live neighbours (sentinels around every output), and the checks made before recording.
// The integer float32 arithmetic behind them is checked on its own against the host over random
// bit patterns. Large shapes run with ONEGPU_QUANT_FULL=1.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "kernels/tensor_helpers.h"
#include "onegpu/kernels/quantize.h"
#include "support/device_fixture.h"
#include "support/random.h"
#include "test_quantize_float.h"

namespace onegpu::testing {
namespace {

using namespace kernels;
using Shape = std::vector<int64_t>;

float bits_float(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t float_bits(float f) { return std::bit_cast<uint32_t>(f); }
bool full_run() {
  const char* v = std::getenv("ONEGPU_QUANT_FULL");
  return v != nullptr && std::string(v) == "1";
}

// The CPU formula: float32 division, round half to even, the zero point added in float32, clamped;
// NaN gives the lowest value.
uint8_t quantize_ref(float x, float scale, int zero, bool is_signed) {
  const float lo = is_signed ? -128.f : 0.f, hi = is_signed ? 127.f : 255.f;
  volatile float q = x / scale;
  if (std::isnan(q)) return uint8_t(int(lo));
  const float v = std::nearbyint(q) + float(zero);
  return uint8_t(int(std::clamp(v, lo, hi)));
}

// (float)(x - zero) * scale with the subtraction wrapping in 32 bits.
float dequantize_ref(int32_t x, int32_t zero, float scale) {
  const int32_t d = int32_t(uint32_t(x) - uint32_t(zero));
  volatile float f = float(d);
  return f * scale;
}

struct DynamicRef {
  float scale;
  uint8_t zero;
};
// As ONNX runtimes compute it (NaN elements left out).
DynamicRef dynamic_ref(const std::vector<float>& x) {
  float lo = 0.f, hi = 0.f;
  for (float v : x) {
    if (std::isnan(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  volatile float range = hi - lo;
  const float scale = hi == lo ? 1.0f : range / 255.f;
  volatile float q = lo / scale;
  const float initial = 0.f - q;
  const float clamped = std::max(0.f, std::min(255.f, initial));
  return {scale, uint8_t(int(std::nearbyint(clamped)))};
}

// Values around every difficulty for scale s: random values across the saturating range, exact
// ties (k + 0.5) * s of both parities and their float neighbours, NaN, infinities, zeros, subnormal
// and huge values.
std::vector<float> values_for(float s, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-300.f, 300.f);
  std::uniform_int_distribution<int> k(-140, 300);
  std::vector<float> v;
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            0.f, -0.f, 1e-45f, -1e-45f, 1e-40f, -3e-39f, 1.17549435e-38f, 3e38f, -3e38f,
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
  for (float x : specials) v.push_back(x);
  while (v.size() < n) {
    switch (rng() % 4) {
      case 0: v.push_back(u(rng) * s); break;
      case 1: {  // exactly (k + 0.5) * s where it is representable, else the nearest float
        const float t = (float(k(rng)) + 0.5f) * s;
        v.push_back(t);
        break;
      }
      case 2: {  // a neighbour of a tie
        float t = (float(k(rng)) + 0.5f) * s;
        const int steps = int(rng() % 5) - 2;
        for (int i = 0; i < std::abs(steps); ++i) t = std::nextafter(t, steps > 0 ? INFINITY : -INFINITY);
        v.push_back(t);
        break;
      }
      default: v.push_back(std::bit_cast<float>(uint32_t(rng())));  // any bits: subnormals, NaN, huge
    }
  }
  v.resize(n);
  return v;
}

// The five scale sets.
const std::vector<std::vector<float>> kScaleSets = {
    {0.0173f, 0.05f, 0.0039215687f, 0.1f},                      // typical activation scales
    {1e-30f, 1e-40f, 1.4e-45f, 1.17549435e-38f},               // tiny, subnormal
    {1e30f, 3e38f, 7.5e37f, 1e20f},                             // huge
    {3.f, 7.f, 1.f / 3.f, 0.3f, 11.f, 6.0f, 0.7f, 1.f / 7.f},  // reciprocals float32 cannot hold
    {0.5f, 0.25f, 1.f / 1024.f, 2.f},                           // powers of two: exact ties
};

struct QuantizeCase {
  Shape shape;
  DataType x_type = DataType::float32, y_type = DataType::uint8;
  std::vector<float> scales;  // one: per tensor
  std::vector<int32_t> zeros;  // empty: no zero point
  int64_t axis = 1;
  uint64_t x_offset = 0, y_offset = 0, s_offset = 0, z_offset = 0;
  std::vector<float> x;  // shape's elements (rounded to half for float16)
};

// Bytes of a packed 8-bit vector from element `offset`, with random bytes around it.
std::vector<uint32_t> pack_bytes(const std::vector<int32_t>& v, uint64_t offset, uint32_t seed) {
  std::vector<uint32_t> w = random_words((offset + v.size() + 3) / 4 + 1, seed);
  auto* b = reinterpret_cast<uint8_t*>(w.data());
  for (size_t i = 0; i < v.size(); ++i) b[offset + i] = uint8_t(v[i]);
  return w;
}

template <class Base>
class QuantizeFixture : public Base {
 protected:
  // Runs QuantizeLinear and compares every byte of y's buffer (sentinels included).
  void check_quantize(QuantizeCase c, Quantize* family = nullptr) {
    Device& dev = this->device();
    std::optional<Quantize> own;
    if (family == nullptr) family = &own.emplace(dev);
    const uint64_t n = count_of(c.shape);
    const bool half = c.x_type == DataType::float16;
    const bool is_signed = c.y_type == DataType::int8;
    std::optional<RawBuffer> xb;
    if (half) {
      std::vector<float16> h(c.x_offset + n + 3);
      for (size_t i = 0; i < h.size(); ++i) h[i] = float16{uint16_t(0x3c00u + i)};
      for (uint64_t i = 0; i < n; ++i) {
        h[c.x_offset + i] = to_float16(c.x[i]);
        c.x[i] = to_float(h[c.x_offset + i]);
      }
      xb.emplace(dev.create_buffer(h));
    } else {
      std::vector<float> f(c.x_offset + n + 3, 1234.5f);
      std::copy(c.x.begin(), c.x.end(), f.begin() + ptrdiff_t(c.x_offset));
      xb.emplace(dev.create_buffer(f));
    }
    std::vector<float> sv(c.s_offset + c.scales.size() + 1, 99.f);
    std::copy(c.scales.begin(), c.scales.end(), sv.begin() + ptrdiff_t(c.s_offset));
    auto sb = dev.create_buffer(sv);
    auto zb = dev.create_buffer(pack_bytes(c.zeros, c.z_offset, 7));
    const uint64_t y_words = (c.y_offset + n + 3) / 4 + 2;
    const auto sentinel = random_words(y_words, 11);
    auto yb = dev.create_buffer(sentinel);

    const Shape per_tensor{}, per_axis{int64_t(c.scales.size())};
    const Shape& sshape = c.scales.size() == 1 ? per_tensor : per_axis;
    const TensorRef x{&*xb, c.x_offset, c.shape, {}, c.x_type}, s{&sb, c.s_offset, sshape, {}, DataType::float32};
    const TensorRef z{&zb, c.z_offset, sshape, {}, c.y_type}, y{&yb, c.y_offset, c.shape, {}, c.y_type};
    auto enc = dev.begin_commands();
    family->quantize_linear(enc, x, s, c.zeros.empty() ? nullptr : &z, y, c.axis);
    dev.submit(enc);
    std::vector<uint8_t> got(y_words * 4);
    yb.read_bytes(0, std::as_writable_bytes(std::span(got)));

    std::vector<uint8_t> expected(y_words * 4);
    std::memcpy(expected.data(), sentinel.data(), expected.size());
    const int64_t rank = int64_t(c.shape.size());
    const uint64_t axis = uint64_t(c.axis < 0 ? c.axis + rank : c.axis);
    uint64_t inner = 1;
    for (uint64_t i = axis + 1; i < uint64_t(rank); ++i) inner *= uint64_t(c.shape[i]);
    for (uint64_t e = 0; e < n; ++e) {
      const uint64_t ch = c.scales.size() == 1 ? 0 : (e / inner) % c.scales.size();
      const int zero = c.zeros.empty() ? 0 : c.zeros[ch];
      expected[c.y_offset + e] = quantize_ref(c.x[e], c.scales[ch], zero, is_signed);
    }
    uint64_t mismatches = 0, first = 0;
    for (uint64_t k = 0; k < expected.size(); ++k)
      if (expected[k] != got[k] && mismatches++ == 0) first = k;
    std::string where;
    if (mismatches > 0 && first >= c.y_offset && first < c.y_offset + n) {
      const uint64_t e = first - c.y_offset;
      const uint64_t ch = c.scales.size() == 1 ? 0 : (e / inner) % c.scales.size();
      char text[160];
      std::snprintf(text, sizeof text, " x %a (0x%08x) scale %a zero %d: got %d expected %d", c.x[e],
                    float_bits(c.x[e]), c.scales[ch], c.zeros.empty() ? 0 : c.zeros[ch], int(got[first]),
                    int(expected[first]));
      where = text;
    }
    EXPECT_EQ(mismatches, 0u) << "first differing byte " << first << " (y bytes " << c.y_offset << " to "
                              << c.y_offset + n << ")" << where;
  }
};

using QuantizeTest = QuantizeFixture<DeviceTest>;
using QuantizeOnEveryBackend = QuantizeFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, QuantizeOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

TEST_P(QuantizeOnEveryBackend, FiveScaleSetsPerTensorBitExact) {
  Quantize q(device());
  uint32_t seed = 1;
  for (const auto& set : kScaleSets)
    for (float s : set)
      for (DataType yt : {DataType::uint8, DataType::int8}) {
        QuantizeCase c;
        c.shape = {1031};
        c.y_type = yt;
        c.scales = {s};
        c.zeros = {yt == DataType::uint8 ? int32_t(seed * 37 % 256) : int32_t(seed * 37 % 256) - 128};
        c.x = values_for(s, 1031, seed++);
        SCOPED_TRACE("scale " + std::to_string(s) + " " + std::string(data_type_name(yt)));
        check_quantize(c, &q);
      }
}

// The data must tell division from multiplication by the reciprocal, or the tests above could
// not catch a kernel that multiplies.
TEST(QuantizeData, ReciprocalsWouldDiffer) {
  uint64_t differ = 0;
  uint32_t seed = 1;
  for (const auto& set : kScaleSets)
    for (float s : set)
      for (int k = 0; k < 2; ++k, ++seed) {
        const float inv = 1.f / s;
        for (float x : values_for(s, 1031, seed))
          if (quantize_ref(x, s, 0, false) != quantize_ref(x * inv, 1.f, 0, false)) ++differ;
      }
  EXPECT_GT(differ, 100u);
}

// The integer float32 arithmetic the kernels divide, multiply and add with, against the host's
// IEEE operations over random bit patterns (subnormals, infinities and NaN included): bit for bit,
// any NaN matching any NaN.
template <class Base>
class ExactFloatFixture : public Base {
 protected:
  std::vector<uint32_t> run(uint32_t op, const std::vector<uint32_t>& pairs) {
    Device& dev = this->device();
    const uint32_t n = uint32_t(pairs.size() / 2);
    auto in = dev.create_buffer(pairs);
    auto out = dev.create_buffer<uint32_t>(n);
    auto kernel = dev.create_compute_kernel(shaders::test_quantize_float::source());
    auto group = dev.create_bind_group(kernel, {in, out});
    const uint32_t push[2] = {op, n};
    auto enc = dev.begin_commands();
    enc.begin_compute_pass().dispatch(kernel, group, std::span<const std::byte>(std::as_bytes(std::span(push))),
                                      {(n + 63) / 64, 1, 1});
    dev.submit(enc);
    return out.read();
  }
  static bool same(uint32_t got, float expected) {
    if (std::isnan(expected)) return (got & 0x7fffffffu) > 0x7f800000u;
    return got == float_bits(expected);
  }
};

using ExactFloatTest = ExactFloatFixture<DeviceTest>;
using ExactFloatOnEveryBackend = ExactFloatFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, ExactFloatOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

// Random bit patterns, a share of them subnormal, and pairs whose quotients land near 1.
std::vector<uint32_t> random_pairs(size_t n, uint32_t seed, bool magnitudes) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(2 * n);
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t b = rng();
    if (rng() % 4 == 0) b &= 0x807fffffu;  // subnormal (or zero)
    if (i % 2 == 1 && rng() % 3 == 0) b = (v[i - 1] & 0xff800000u) | (rng() & 0x7fffffu);  // same exponent
    if (magnitudes) {
      b &= 0x7fffffffu;
      if (b > 0x7f800000u) b = 0x7f800000u;
    }
    v[i] = b;
  }
  return v;
}

TEST_P(ExactFloatOnEveryBackend, DivideMultiplyAddMatchTheHost) {
  const size_t n = full_run() ? size_t(1) << 21 : size_t(1) << 16;  // one row of workgroups
  for (uint32_t op : {0u, 1u, 2u}) {
    const auto pairs = random_pairs(n, 17 + op, op == 2);
    const auto got = run(op, pairs);
    uint64_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      const float a = bits_float(pairs[2 * i]), b = bits_float(pairs[2 * i + 1]);
      volatile float r = op == 0 ? a / b : op == 1 ? a * b : a + b;
      if (!same(got[i], r) && bad++ < 5)
        ADD_FAILURE() << "op " << op << ": " << std::hexfloat << a << ", " << b << " gives " << bits_float(got[i])
                      << " expected " << float(r);
    }
    EXPECT_EQ(bad, 0u) << "op " << op;
  }
}

TEST_P(ExactFloatOnEveryBackend, ConversionsMatchTheHost) {
  std::vector<uint32_t> pairs;
  std::mt19937 rng(5);
  for (uint32_t i = 0; i < 65536; ++i) pairs.insert(pairs.end(), {i, 0u});  // every half
  const auto halves = run(4, pairs);
  for (uint32_t i = 0; i < 65536; ++i) ASSERT_TRUE(same(halves[i], to_float(float16{uint16_t(i)}))) << i;
  pairs.clear();
  const uint32_t edges[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 16777217u, 0x7fffffc0u, 0x7fffffbfu};
  for (uint32_t e : edges) pairs.insert(pairs.end(), {e, 0u});
  for (int i = 0; i < 65536; ++i) pairs.insert(pairs.end(), {uint32_t(rng()) >> (rng() % 32), 0u});
  const auto ints = run(3, pairs);
  for (size_t i = 0; i < ints.size(); ++i)
    ASSERT_EQ(ints[i], float_bits(float(int32_t(pairs[2 * i])))) << int32_t(pairs[2 * i]);
}

TEST_P(ExactFloatOnEveryBackend, QuantizedQuotientMatchesTheHost) {
  // round_half_even(x / s) clamped to [-1023, 1023] (NaN: -1023), x / s near every integer and
  // half-integer below 1100 in magnitude, for many scales: the estimate's shortcut and the exact path.
  std::mt19937 rng(9);
  std::vector<uint32_t> pairs;
  const size_t n = size_t(1) << 16;
  for (size_t i = 0; i < n; ++i) {
    const float s = std::ldexp(1.f + float(rng() % 8388608) / 8388608.f, int(rng() % 250) - 140);
    float x = (float(int(rng() % 2200) - 1100) + (rng() % 2 ? 0.5f : 0.f)) * s;
    for (int k = int(rng() % 7) - 3; k != 0; k += k > 0 ? -1 : 1) x = std::nextafter(x, k > 0 ? INFINITY : -INFINITY);
    pairs.insert(pairs.end(), {float_bits(x), float_bits(s)});
  }
  const auto got = run(5, pairs);
  uint64_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    volatile float q = bits_float(pairs[2 * i]) / bits_float(pairs[2 * i + 1]);
    int32_t expected;
    if (std::isnan(q)) expected = -1023;
    else expected = int32_t(std::clamp(std::nearbyint(q), -1023.f, 1023.f));
    if (int32_t(got[i]) != expected && bad++ < 5)
      ADD_FAILURE() << std::hexfloat << bits_float(pairs[2 * i]) << " / " << bits_float(pairs[2 * i + 1]) << ": got "
                    << int32_t(got[i]) << " expected " << expected;
  }
  EXPECT_EQ(bad, 0u);
}

TEST_P(QuantizeOnEveryBackend, NoZeroPointAndZeroPointsAtTheLimits) {
  Quantize q(device());
  for (int32_t zero : {-1, 0, 127, 255, -128}) {
    QuantizeCase c;
    c.shape = {4, 129};
    c.y_type = zero < 0 ? DataType::int8 : DataType::uint8;
    c.scales = {0.3f};
    if (zero != -1) c.zeros = {zero};
    if (zero == -1) c.y_type = DataType::int8;
    c.x = values_for(0.3f, count_of(c.shape), uint32_t(100 + zero));
    check_quantize(c, &q);
  }
}

TEST_P(QuantizeOnEveryBackend, PerAxisOnEveryAxis) {
  Quantize q(device());
  const Shape shape{3, 5, 7, 4};
  uint32_t seed = 40;
  for (int64_t axis = -4; axis < 4; ++axis)
    for (DataType yt : {DataType::uint8, DataType::int8}) {
      QuantizeCase c;
      c.shape = shape;
      c.axis = axis;
      c.y_type = yt;
      const int64_t len = shape[size_t(axis < 0 ? axis + 4 : axis)];
      std::mt19937 rng(seed);
      for (int64_t i = 0; i < len; ++i) {
        const auto& set = kScaleSets[size_t(rng() % kScaleSets.size())];
        c.scales.push_back(set[rng() % set.size()]);
        c.zeros.push_back(int32_t(rng() % 256) - (yt == DataType::int8 ? 128 : 0));
      }
      // Values sized for the first scale set's magnitudes and every special.
      c.x = values_for(0.05f, count_of(shape), seed++);
      std::mt19937 r2(seed);
      for (auto& v : c.x)
        if (r2() % 3 == 0) v = (float(int(r2() % 400) - 200) + 0.5f) * c.scales[r2() % c.scales.size()];
      c.x_offset = uint64_t(axis + 4);
      c.y_offset = uint64_t(axis + 5) % 4;
      c.s_offset = 1;
      c.z_offset = 3;
      SCOPED_TRACE("axis " + std::to_string(axis));
      check_quantize(c, &q);
    }
}

TEST_P(QuantizeOnEveryBackend, OddOffsetsKeepLiveNeighbours) {
  Quantize q(device());
  uint32_t seed = 70;
  for (uint64_t yo : {0, 1, 2, 3, 5})
    for (uint64_t xo : {0, 1, 2, 3})
      for (int64_t n : {1, 2, 3, 4, 5, 7, 9, 33}) {
        QuantizeCase c;
        c.shape = {n};
        c.scales = {0.7f};
        c.zeros = {17};
        c.x_offset = xo;
        c.y_offset = yo;
        c.x = values_for(0.7f, size_t(n), seed++);
        check_quantize(c, &q);
      }
}

TEST_P(QuantizeOnEveryBackend, Float16Input) {
  Quantize q(device());
  uint32_t seed = 200;
  for (float s : {0.0173f, 0.3f, 1.f / 3.f, 0.25f, 1e-40f, 6e-8f})
    for (DataType yt : {DataType::uint8, DataType::int8})
      for (uint64_t off : {0, 1, 3}) {
        QuantizeCase c;
        c.shape = {515};
        c.x_type = DataType::float16;
        c.y_type = yt;
        c.scales = {s};
        c.zeros = {yt == DataType::int8 ? -3 : 130};
        c.x_offset = off;
        c.y_offset = (off * 3) % 4;
        c.x = values_for(s, 515, seed++);
        check_quantize(c, &q);
      }
  // Every half bit pattern once, per axis over 4 scales.
  QuantizeCase c;
  c.shape = {4, 16384};
  c.axis = 0;
  c.x_type = DataType::float16;
  c.scales = {0.5f, 1.f / 3.f, 1e-3f, 6e-8f};
  c.zeros = {0, 100, 200, 255};
  for (uint32_t i = 0; i < 65536; ++i) c.x.push_back(to_float(float16{uint16_t(i)}));
  check_quantize(c, &q);
}

TEST_P(QuantizeOnEveryBackend, ManyWorkgroups) {
  QuantizeCase c;
  const int64_t n = full_run() ? (int64_t(1) << 24) + 7 : 3 * 256 * 4 * 17 + 5;
  c.shape = {n};
  c.scales = {1.f / 3.f};
  c.zeros = {128};
  c.y_offset = 1;
  c.x_offset = 5;
  c.x = values_for(1.f / 3.f, size_t(n), 300);
  check_quantize(c);
}

// DequantizeLinear against the CPU formula, word for word.
template <class Base>
class DequantizeFixture : public Base {
 protected:
  struct Case {
    Shape shape;
    DataType x_type = DataType::uint8, y_type = DataType::float32;
    std::vector<int32_t> x;  // values of x's type
    std::vector<float> scales;
    std::vector<int32_t> zeros;  // empty: none
    int64_t axis = 1;
    uint64_t x_offset = 0, y_offset = 0;
  };

  void check(const Case& c, Quantize& q) {
    Device& dev = this->device();
    const uint64_t n = count_of(c.shape);
    const bool wide = c.x_type == DataType::int32, half = c.y_type == DataType::float16;
    std::optional<RawBuffer> xb, zb;
    if (wide) {
      std::vector<int32_t> w(c.x_offset + n + 1, 0x5a5a5a5a);
      std::copy(c.x.begin(), c.x.end(), w.begin() + ptrdiff_t(c.x_offset));
      xb.emplace(dev.create_buffer(w));
      std::vector<int32_t> z(c.zeros.size() + 1, 77);
      std::copy(c.zeros.begin(), c.zeros.end(), z.begin());
      zb.emplace(dev.create_buffer(z));
    } else {
      xb.emplace(dev.create_buffer(pack_bytes(c.x, c.x_offset, 3)));
      zb.emplace(dev.create_buffer(pack_bytes(c.zeros, 0, 5)));
    }
    std::vector<float> sv(c.scales);
    sv.push_back(5.f);
    auto sb = dev.create_buffer(sv);
    const uint64_t esize = half ? 2 : 4;
    const uint64_t y_words = ((c.y_offset + n) * esize + 3) / 4 + 2;
    const auto sentinel = random_words(y_words, 13);
    auto yb = dev.create_buffer(sentinel);
    const Shape per_tensor{}, per_axis{int64_t(c.scales.size())};
    const Shape& sshape = c.scales.size() == 1 ? per_tensor : per_axis;
    const TensorRef x{&*xb, c.x_offset, c.shape, {}, c.x_type}, s{&sb, 0, sshape, {}, DataType::float32};
    const TensorRef z{&*zb, 0, sshape, {}, c.x_type}, y{&yb, c.y_offset, c.shape, {}, c.y_type};
    auto enc = dev.begin_commands();
    q.dequantize_linear(enc, x, s, c.zeros.empty() ? nullptr : &z, y, c.axis);
    dev.submit(enc);
    std::vector<uint8_t> got(y_words * 4), expected(y_words * 4);
    yb.read_bytes(0, std::as_writable_bytes(std::span(got)));
    std::memcpy(expected.data(), sentinel.data(), expected.size());
    const int64_t rank = int64_t(c.shape.size());
    const uint64_t axis = uint64_t(c.axis < 0 ? c.axis + rank : c.axis);
    uint64_t inner = 1;
    for (uint64_t i = axis + 1; i < uint64_t(rank); ++i) inner *= uint64_t(c.shape[i]);
    for (uint64_t e = 0; e < n; ++e) {
      const uint64_t ch = c.scales.size() == 1 ? 0 : (e / inner) % c.scales.size();
      const float v = dequantize_ref(c.x[e], c.zeros.empty() ? 0 : c.zeros[ch], c.scales[ch]);
      uint8_t* dst = expected.data() + (c.y_offset + e) * esize;
      if (half) {
        const float16 h = to_float16(v);
        std::memcpy(dst, &h.bits, 2);
      } else {
        std::memcpy(dst, &v, 4);
      }
    }
    uint64_t mismatches = 0, first = 0;
    for (uint64_t k = 0; k < expected.size(); ++k)
      if (expected[k] != got[k] && mismatches++ == 0) first = k;
    EXPECT_EQ(mismatches, 0u) << "first differing byte " << first << " (y bytes " << c.y_offset * esize << " to "
                              << (c.y_offset + n) * esize << ")";
  }
};

using DequantizeTest = DequantizeFixture<DeviceTest>;
using DequantizeOnEveryBackend = DequantizeFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, DequantizeOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

std::vector<int32_t> random_ints(DataType t, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> v(n);
  const int32_t edges[] = {INT32_MIN, INT32_MAX, 0, -1, 16777217, -16777217, 2147483520, -2147483520};
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = rng();
    if (t == DataType::uint8) v[i] = int32_t(r & 0xff);
    else if (t == DataType::int8) v[i] = int32_t(int8_t(r & 0xff));
    else v[i] = (i % 5 == 0) ? edges[(r >> 8) % 8] : int32_t(r);
  }
  return v;
}

TEST_P(DequantizeOnEveryBackend, EveryTypePerTensorAndPerAxis) {
  Quantize q(device());
  uint32_t seed = 1;
  const float scales[] = {0.0173f, 1.f / 3.f, 1e-40f, 1.4e-45f, 1e-30f, 3e38f, 1e30f, 0.f, -0.5f};
  for (DataType xt : {DataType::uint8, DataType::int8, DataType::int32})
    for (DataType yt : {DataType::float32, DataType::float16}) {
      for (float s : scales)
        for (bool zero : {false, true}) {
          Case c;
          c.shape = {2, 263};
          c.x_type = xt;
          c.y_type = yt;
          c.x = random_ints(xt, 526, seed++);
          c.scales = {s};
          if (zero) c.zeros = random_ints(xt, 1, seed++);
          c.x_offset = seed % 4;
          c.y_offset = (seed / 4) % 4;
          SCOPED_TRACE(std::string(data_type_name(xt)) + " to " + std::string(data_type_name(yt)) + " scale " +
                       std::to_string(s));
          check(c, q);
        }
      for (int64_t axis = -3; axis < 3; ++axis) {
        Case c;
        c.shape = {3, 6, 5};
        c.axis = axis;
        c.x_type = xt;
        c.y_type = yt;
        c.x = random_ints(xt, 90, seed++);
        const int64_t len = c.shape[size_t(axis < 0 ? axis + 3 : axis)];
        for (int64_t i = 0; i < len; ++i) c.scales.push_back(scales[size_t(i) % 9]);
        c.zeros = random_ints(xt, size_t(len), seed++);
        c.x_offset = uint64_t(axis + 3);
        c.y_offset = uint64_t(axis + 4) % 3;
        SCOPED_TRACE("axis " + std::to_string(axis));
        check(c, q);
      }
    }
}

TEST_P(DequantizeOnEveryBackend, ManyWorkgroups) {
  Quantize q(device());
  const int64_t n = full_run() ? (int64_t(1) << 24) : 4 * 256 * 4 * 5 + 3;
  for (DataType xt : {DataType::uint8, DataType::int32}) {
    Case c;
    c.shape = {n};
    c.x_type = xt;
    c.x = random_ints(xt, size_t(n), 9);
    c.scales = {0.0039215687f};
    c.zeros = {xt == DataType::uint8 ? 128 : -5};
    check(c, q);
  }
}

template <class Base>
class DynamicQuantizeFixture : public Base {
 protected:
  struct Outcome {
    std::vector<uint8_t> y;
    uint32_t scale_bits;
    uint8_t zero;
  };

  Outcome check(const std::vector<float>& xv, uint64_t x_offset, uint64_t y_offset, uint64_t z_offset,
                KernelMode mode = KernelMode::fast) {
    Device& dev = this->device();
    Quantize q(dev, {.mode = mode});
    const uint64_t n = xv.size();
    std::vector<float> f(x_offset + n + 2, 1e30f);  // a live neighbour larger than every value
    std::copy(xv.begin(), xv.end(), f.begin() + ptrdiff_t(x_offset));
    auto xb = dev.create_buffer(f);
    const uint64_t y_words = (y_offset + n + 3) / 4 + 2;
    const auto sentinel = random_words(y_words, 21);
    auto yb = dev.create_buffer(sentinel);
    auto sb = dev.create_buffer(std::vector<uint32_t>{0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu});
    const auto zsentinel = random_words(2, 23);
    auto zb = dev.create_buffer(zsentinel);
    const Shape shape{int64_t(n)}, one{};
    const TensorRef x{&xb, x_offset, shape, {}, DataType::float32}, y{&yb, y_offset, shape, {}, DataType::uint8};
    const TensorRef s{&sb, 1, one, {}, DataType::float32}, z{&zb, z_offset, one, {}, DataType::uint8};
    auto enc = dev.begin_commands();
    q.dynamic_quantize_linear(enc, x, y, s, z);
    dev.submit(enc);
    Outcome o;
    o.y.resize(y_words * 4);
    yb.read_bytes(0, std::as_writable_bytes(std::span(o.y)));
    std::vector<uint32_t> sv(3), zv(2);
    sb.read_bytes(0, std::as_writable_bytes(std::span(sv)));
    zb.read_bytes(0, std::as_writable_bytes(std::span(zv)));
    o.scale_bits = sv[1];
    o.zero = reinterpret_cast<const uint8_t*>(zv.data())[z_offset];

    const DynamicRef ref = dynamic_ref(xv);
    EXPECT_EQ(o.scale_bits, float_bits(ref.scale)) << "scale " << bits_float(o.scale_bits) << " expected " << ref.scale;
    EXPECT_EQ(int(o.zero), int(ref.zero));
    EXPECT_EQ(sv[0], 0xdeadbeefu);
    EXPECT_EQ(sv[2], 0xdeadbeefu);
    std::vector<uint32_t> zexp = zsentinel;
    reinterpret_cast<uint8_t*>(zexp.data())[z_offset] = ref.zero;
    EXPECT_EQ(zv, zexp) << "the zero point's neighbours";
    std::vector<uint8_t> expected(y_words * 4);
    std::memcpy(expected.data(), sentinel.data(), expected.size());
    for (uint64_t e = 0; e < n; ++e) expected[y_offset + e] = quantize_ref(xv[e], ref.scale, ref.zero, false);
    uint64_t mismatches = 0, first = 0;
    for (uint64_t k = 0; k < expected.size(); ++k)
      if (expected[k] != o.y[k] && mismatches++ == 0) first = k;
    EXPECT_EQ(mismatches, 0u) << "first differing byte " << first;
    return o;
  }
};

using DynamicQuantizeTest = DynamicQuantizeFixture<DeviceTest>;
using DynamicQuantizeOnEveryBackend = DynamicQuantizeFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, DynamicQuantizeOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

TEST_P(DynamicQuantizeOnEveryBackend, ScaleAndZeroPointEqualTheCpu) {
  const std::vector<float> mixed = random_floats(5000, 1, -3.f, 7.f);
  check(mixed, 0, 0, 0);
  check(mixed, 3, 1, 2);
  check(random_floats(3001, 2, 0.25f, 4.f), 1, 2, 1);     // all positive
  check(random_floats(2999, 3, -9.f, -0.001f), 2, 3, 3);  // all negative
  check(std::vector<float>(1027, 3.7f), 0, 1, 0);         // constant
  check(std::vector<float>(1027, -2.5f), 1, 0, 0);        // constant, negative
  check(std::vector<float>(777, 0.f), 0, 0, 1);           // all zero: scale 1
  check(std::vector<float>{-0.f, 0.f, -0.f}, 0, 3, 3);
  check(std::vector<float>{1e-45f, 3e-42f, -1e-44f}, 1, 1, 1);  // a subnormal range
  check(std::vector<float>{5.f}, 0, 2, 0);
  std::vector<float> with_nan = random_floats(999, 4, -1.f, 2.f);
  with_nan[10] = std::numeric_limits<float>::quiet_NaN();
  with_nan[500] = -std::numeric_limits<float>::quiet_NaN();
  check(with_nan, 0, 0, 0);
  // Ties: values that land on (k + 0.5) * scale for a power-of-two range.
  std::vector<float> ties;
  for (int i = -128; i < 127; ++i) ties.push_back(float(i) + 0.5f);
  ties.push_back(-127.5f);
  ties.push_back(127.5f);
  check(ties, 0, 0, 0);
}

TEST_P(DynamicQuantizeOnEveryBackend, ManyWorkgroupsBothModesSameBits) {
  const size_t n = full_run() ? (size_t(1) << 24) + 3 : 600001;
  std::vector<float> x = random_floats(n, 5, -2.f, 1.f);
  x[n / 3] = -11.f;  // the extremes far from the first workgroup
  x[n - 2] = 13.f;
  const auto fast = check(x, 1, 3, 1);
  const auto again = check(x, 1, 3, 1);
  const auto det = check(x, 1, 3, 1, KernelMode::deterministic);
  EXPECT_EQ(fast.y, again.y);
  EXPECT_EQ(fast.y, det.y);
  EXPECT_EQ(fast.scale_bits, det.scale_bits);
}

TEST_P(DynamicQuantizeOnEveryBackend, EmptyInputWritesScaleOneAndZero) {
  check({}, 0, 0, 0);
}

// y_scale and y_zero_point in one buffer: refused before recording where the device refuses one
// buffer in two writable bindings of a dispatch (WebGPU), computed as in two buffers elsewhere.
TEST_P(DynamicQuantizeOnEveryBackend, ScaleAndZeroPointInOneBuffer) {
  Quantize q(device());
  const std::vector<float> xv = random_floats(999, 6, -1.f, 3.f);
  auto xb = device().create_buffer(xv);
  auto yb = device().create_buffer(random_words(256, 7));
  auto pb = device().create_buffer(std::vector<uint32_t>{0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu});
  const Shape shape{999}, one{};
  const TensorRef x{&xb, 0, shape, {}, DataType::float32}, y{&yb, 0, shape, {}, DataType::uint8};
  const TensorRef s{&pb, 0, one, {}, DataType::float32}, z{&pb, 9, one, {}, DataType::uint8};
  auto enc = device().begin_commands();
  if (!caps().aliased_writable_bindings) {
    try {
      q.dynamic_quantize_linear(enc, x, y, s, z);
      ADD_FAILURE() << "no error";
    } catch (const UnsupportedError& e) {
      EXPECT_EQ(e.capability(), "aliased_writable_bindings");
    }
    EXPECT_EQ(enc.dispatch_count(), 0u);
    return;
  }
  q.dynamic_quantize_linear(enc, x, y, s, z);
  device().submit(enc);
  const DynamicRef ref = dynamic_ref(xv);
  const std::vector<uint32_t> words = pb.read();
  EXPECT_EQ(words[0], float_bits(ref.scale));
  EXPECT_EQ(words[1], 0xdeadbeefu);
  EXPECT_EQ(words[2], (0xdeadbeefu & ~0xff00u) | (uint32_t(ref.zero) << 8));
}

// x in y's buffer (disjoint words): the same bytes as from another buffer, or, where a buffer bound
// writable may not be bound again in a dispatch (WebGPU), refused before recording.
TEST_P(QuantizeOnEveryBackend, InputInTheOutputsBuffer) {
  Quantize q(device());
  const std::vector<float> v = random_floats(64, 8, -20.f, 20.f);
  auto shared = device().create_buffer(v);  // x: floats 0..31; y: the bytes of floats 40..47
  auto x = device().create_buffer(std::vector<float>(v.begin(), v.begin() + 32));
  auto y = device().create_buffer(std::vector<uint32_t>(8, 0u));
  auto s = device().create_buffer(std::vector<float>{0.17f});
  const Shape shape{32}, one{};
  const TensorRef scale{&s, 0, one, {}, DataType::float32};
  auto enc = device().begin_commands();
  if (!caps().aliased_writable_bindings) {
    try {
      q.quantize_linear(enc, {&shared, 0, shape, {}, DataType::float32}, scale, nullptr,
                        {&shared, 160, shape, {}, DataType::int8}, 0);
      ADD_FAILURE() << "no error";
    } catch (const UnsupportedError& e) {
      EXPECT_EQ(e.capability(), "aliased_writable_bindings");
    }
    EXPECT_EQ(enc.dispatch_count(), 0u);
    return;
  }
  q.quantize_linear(enc, {&shared, 0, shape, {}, DataType::float32}, scale, nullptr,
                    {&shared, 160, shape, {}, DataType::int8}, 0);
  q.quantize_linear(enc, {&x, 0, shape, {}, DataType::float32}, scale, nullptr, {&y, 0, shape, {}, DataType::int8}, 0);
  device().submit(enc);
  const std::vector<float> got = shared.read();
  const std::vector<uint32_t> want = y.read();
  EXPECT_EQ(0, std::memcmp(got.data() + 40, want.data(), 32));
}

TEST_F(QuantizeTest, ChecksBeforeRecording) {
  Quantize q(device());
  auto fb = device().create_buffer<float>(64);
  auto bb = device().create_buffer<uint32_t>(16);
  auto ib = device().create_buffer<int32_t>(16);
  const Shape s16{16}, one{}, three{3}, s4x4{4, 4};
  const TensorRef x{&fb, 0, s16, {}, DataType::float32}, scale{&fb, 40, one, {}, DataType::float32};
  const TensorRef y{&bb, 0, s16, {}, DataType::uint8}, zero{&bb, 40, one, {}, DataType::uint8};
  auto enc = device().begin_commands();
  auto err = [&](auto f) {
    try {
      f();
    } catch (const KernelShapeError& e) {
      return e.operation() + "/" + e.argument();
    } catch (const UnsupportedError& e) {
      return "unsupported/" + e.capability();
    }
    return std::string("none");
  };
  // y overlapping x in one buffer.
  const TensorRef y_in_x{&fb, 10, s16, {}, DataType::uint8};
  EXPECT_EQ(err([&] { q.quantize_linear(enc, x, scale, nullptr, y_in_x, 1); }), "QuantizeLinear/y");
  // y overlapping the scale.
  const TensorRef scale_in_y{&bb, 1, one, {}, DataType::float32};
  EXPECT_EQ(err([&] { q.quantize_linear(enc, x, scale_in_y, nullptr, y, 1); }), "QuantizeLinear/y");
  // y beyond its buffer.
  const TensorRef y_far{&bb, 60, s16, {}, DataType::uint8};
  EXPECT_EQ(err([&] { q.quantize_linear(enc, x, scale, nullptr, y_far, 1); }), "QuantizeLinear/y");
  // Types.
  const TensorRef x_int{&ib, 0, s16, {}, DataType::int32};
  EXPECT_EQ(err([&] { q.quantize_linear(enc, x_int, scale, nullptr, y, 1); }), "unsupported/QuantizeLinear x type");
  EXPECT_EQ(err([&] { q.dequantize_linear(enc, x, scale, nullptr, x_int, 1); }),
            "unsupported/DequantizeLinear x type");
  // Scale lengths and axes.
  const TensorRef x4{&fb, 0, s4x4, {}, DataType::float32}, y4{&bb, 0, s4x4, {}, DataType::uint8};
  const TensorRef scale3{&fb, 40, three, {}, DataType::float32};
  EXPECT_EQ(err([&] { q.quantize_linear(enc, x4, scale3, nullptr, y4, 1); }), "QuantizeLinear/scale");
  EXPECT_EQ(err([&] { q.quantize_linear(enc, x4, scale3, nullptr, y4, 2); }), "QuantizeLinear/axis");
  const TensorRef no_buffer{nullptr, 0, s16, {}, DataType::float32};
  EXPECT_EQ(err([&] { q.quantize_linear(enc, no_buffer, scale, nullptr, y, 1); }), "QuantizeLinear/x");
  // Dynamic: the zero point sharing a word with y, y_scale overlapping x.
  const TensorRef zero_in_y{&bb, 14, one, {}, DataType::uint8};
  EXPECT_EQ(err([&] { q.dynamic_quantize_linear(enc, x, y, scale, zero_in_y); }), "DynamicQuantizeLinear/y_zero_point");
  const TensorRef scale_in_x{&fb, 3, one, {}, DataType::float32};
  EXPECT_EQ(err([&] { q.dynamic_quantize_linear(enc, x, y, scale_in_x, zero); }), "DynamicQuantizeLinear/y_scale");
  EXPECT_EQ(err([&] { q.dynamic_quantize_linear(enc, x, y, scale, zero); }), "none");
  device().submit(enc);
}

}  // namespace
}  // namespace onegpu::testing
