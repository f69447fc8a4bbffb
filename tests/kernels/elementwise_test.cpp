// Element-wise operations against CPU references: bit-exact where the table says so, float64
// within 1e-5 / 2e-3 elsewhere; broadcasting in every position, odd offsets, special values.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "onegpu/kernels/elementwise.h"
#include "reference/reference.h"
#include "support/device_fixture.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using namespace kernels;
using Shape = std::vector<int64_t>;

uint64_t count_of(const Shape& s) {
  uint64_t n = 1;
  for (auto d : s) n *= uint64_t(d);
  return n;
}

// Index into an operand of shape `s` for element e of the broadcast output shape `out`.
uint64_t operand_index(const Shape& out, const Shape& s, uint64_t e) {
  uint64_t idx = 0, stride = 1;
  for (size_t i = out.size(); i-- > 0;) {
    const uint64_t x = e % uint64_t(out[i]);
    e /= uint64_t(out[i]);
    const size_t k = i + s.size() - out.size();
    if (i + s.size() >= out.size()) {
      if (s[k] != 1) idx += x * stride;
      stride *= uint64_t(s[k]);
    }
  }
  return idx;
}

Shape bshape(const Shape& a, const Shape& b) {
  std::span<const int64_t> s[] = {a, b};
  return Elementwise::broadcast_shape(s);
}

float apply(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::add: return a + b;
    case BinaryOp::sub: return a - b;
    case BinaryOp::mul: return a * b;
    case BinaryOp::div: return a / b;
    case BinaryOp::pow: return std::pow(a, b);
    case BinaryOp::min: return (std::isnan(a) || std::isnan(b)) ? NAN : std::min(a, b);
    case BinaryOp::max: return (std::isnan(a) || std::isnan(b)) ? NAN : std::max(a, b);
  }
  return 0;
}

double unary_ref(UnaryOp op, double x, double alpha, double beta) {
  switch (op) {
    case UnaryOp::identity: return x;
    case UnaryOp::relu: return x > 0 ? x : 0;
    case UnaryOp::gelu_erf: return reference::unary(UnaryOp::gelu_erf, {}, x);
    case UnaryOp::gelu_tanh: return reference::unary(UnaryOp::gelu_tanh, {}, x);
    case UnaryOp::neg: return -x;
    case UnaryOp::abs: return std::abs(x);
    case UnaryOp::sqrt: return std::sqrt(x);
    case UnaryOp::reciprocal: return 1 / x;
    case UnaryOp::exp: return std::exp(x);
    case UnaryOp::log: return std::log(x);
    case UnaryOp::tanh: return std::tanh(x);
    case UnaryOp::erf: return std::erf(x);
    case UnaryOp::sigmoid: return 1 / (1 + std::exp(-x));
    case UnaryOp::silu: return x / (1 + std::exp(-x));
    case UnaryOp::hard_sigmoid: return std::clamp(alpha * x + beta, 0.0, 1.0);
    case UnaryOp::hard_swish: return x * std::clamp(x / 6 + 0.5, 0.0, 1.0);
    case UnaryOp::clip: return std::min(std::max(x, alpha), beta);
    case UnaryOp::leaky_relu: return x >= 0 ? x : alpha * x;
  }
  return x;
}

class ElementwiseTest : public DeviceTest {
 protected:
  RawBuffer upload(DataType t, const std::vector<float>& v) {
    if (t == DataType::float32) return device().create_buffer(v);
    std::vector<float16> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = to_float16(v[i]);
    return device().create_buffer(h);
  }
  std::vector<float> download(DataType t, const RawBuffer& b, size_t n) {
    std::vector<float> out(n);
    if (t == DataType::float32) {
      b.read_bytes(0, std::as_writable_bytes(std::span(out)));
    } else {
      std::vector<float16> h(n);
      b.read_bytes(0, std::as_writable_bytes(std::span(h)));
      for (size_t i = 0; i < n; ++i) out[i] = to_float(h[i]);
    }
    return out;
  }
  static float round_to(DataType t, float v) { return t == DataType::float16 ? to_float(to_float16(v)) : v; }
};

const DataType kFloatTypes[] = {DataType::float32, DataType::float16};
const std::pair<Shape, Shape> kShapes[] = {
    {{1000}, {1000}},                       // same shape
    {{37, 64}, {64}},                       // bias
    {{64}, {37, 64}},                       // bias on the left
    {{333}, {1}},                           // scalar
    {{5, 1, 7}, {1, 3, 1}},                 // outer product style
    {{1, 2, 3, 1, 4, 1, 1, 5}, {2, 1, 1, 1, 4, 1, 3, 1}},  // rank 8, size-1 dimensions in many positions
    {{37, 63}, {63}},                       // rows ending inside a half word
    {{3, 2500}, {2500}},                    // rows of several workgroups, the last one partial
};

TEST_F(ElementwiseTest, BinaryOpsBroadcastEveryTypeAgainstReferences) {
  Elementwise ew(device());
  for (DataType t : kFloatTypes)
    for (const auto& [sa, sb] : kShapes)
      for (BinaryOp op : {BinaryOp::add, BinaryOp::sub, BinaryOp::mul, BinaryOp::div, BinaryOp::pow, BinaryOp::min,
                          BinaryOp::max}) {
        const Shape so = bshape(sa, sb);
        const uint64_t n = count_of(so);
        auto a = random_floats(count_of(sa), 1, op == BinaryOp::pow ? 0.5f : -2.0f, 2.0f);
        auto b = random_floats(count_of(sb), 2, op == BinaryOp::pow ? -2.0f : 0.25f, 2.0f);
        for (auto& v : a) v = round_to(t, v);
        for (auto& v : b) v = round_to(t, v);
        auto ba = upload(t, a), bb = upload(t, b);
        const uint64_t off = 3;  // an odd offset: half words shared with neighbours
        auto out = upload(t, std::vector<float>(n + off + 3, -3.5f));
        auto enc = device().begin_commands();
        ew.binary(enc, op, t, {&ba, 0, sa}, {&bb, 0, sb}, out, off);
        device().submit(enc);
        auto y = download(t, out, n + off + 3);
        SCOPED_TRACE(std::string(data_type_name(t)) + " op " + std::to_string(int(op)) + " shape " +
                     std::to_string(sa.size()) + "/" + std::to_string(sb.size()));
        for (uint64_t i = 0; i < off; ++i) ASSERT_EQ(y[i], -3.5f);
        for (uint64_t i = n + off; i < n + off + 3; ++i) ASSERT_EQ(y[i], -3.5f);
        std::vector<float> got(y.begin() + off, y.begin() + off + n);
        std::vector<double> ref(n);
        for (uint64_t e = 0; e < n; ++e) {
          const float x = a[operand_index(so, sa, e)], z = b[operand_index(so, sb, e)];
          ref[e] = (op == BinaryOp::div || op == BinaryOp::pow) ? (op == BinaryOp::div ? double(x) / z : std::pow(double(x), double(z)))
                                                                : round_to(t, apply(op, x, z));
        }
        if (op == BinaryOp::div || op == BinaryOp::pow) {
          EXPECT_LE(reference::scaled_error(got, ref), t == DataType::float32 ? 1e-5 : 2e-3);
        } else {
          for (uint64_t e = 0; e < n; ++e) ASSERT_EQ(std::bit_cast<uint32_t>(got[e]), std::bit_cast<uint32_t>(float(ref[e]))) << e;
        }
      }
}

TEST_F(ElementwiseTest, UnaryOpsAndFusedActivations) {
  Elementwise ew(device());
  const UnaryOp ops[] = {UnaryOp::identity, UnaryOp::relu,     UnaryOp::gelu_erf,   UnaryOp::gelu_tanh,  UnaryOp::neg,
                         UnaryOp::abs,      UnaryOp::sqrt,     UnaryOp::reciprocal, UnaryOp::exp,        UnaryOp::log,
                         UnaryOp::tanh,     UnaryOp::erf,      UnaryOp::sigmoid,    UnaryOp::silu,       UnaryOp::hard_sigmoid,
                         UnaryOp::hard_swish, UnaryOp::clip,   UnaryOp::leaky_relu};
  for (DataType t : kFloatTypes)
    for (UnaryOp op : ops) {
      const bool positive = op == UnaryOp::sqrt || op == UnaryOp::log || op == UnaryOp::reciprocal;
      // Three workgroups of the widest variant and a partial fourth; sentinels on both sides.
      auto x = random_floats(6001, 7, positive ? 0.1f : -4.0f, 4.0f);
      for (auto& v : x) v = round_to(t, v);
      const UnaryParams params = op == UnaryOp::hard_sigmoid ? UnaryParams{0.2f, 0.5f}
                                 : op == UnaryOp::clip        ? UnaryParams{-1.0f, 1.5f}
                                                              : UnaryParams{0.01f, 0.0f};
      constexpr size_t pad = 4;
      constexpr float sentinel = 7.0f;
      auto bx = upload(t, x);
      auto out = upload(t, std::vector<float>(x.size() + 2 * pad + 1, sentinel));
      auto enc = device().begin_commands();
      const Shape shape = {int64_t(x.size())};
      ew.unary(enc, op, t, {&bx, 0, shape}, out, pad, params);
      device().submit(enc);
      const auto all = download(t, out, x.size() + 2 * pad + 1);
      for (size_t i = 0; i < pad; ++i) ASSERT_EQ(all[i], sentinel);
      for (size_t i = pad + x.size(); i < all.size(); ++i) ASSERT_EQ(all[i], sentinel);
      const std::vector<float> y(all.begin() + pad, all.begin() + pad + long(x.size()));
      std::vector<double> ref(x.size());
      for (size_t i = 0; i < x.size(); ++i) ref[i] = unary_ref(op, x[i], params.alpha, params.beta);
      SCOPED_TRACE(std::string(data_type_name(t)) + " unary " + std::to_string(int(op)));
      if (op == UnaryOp::identity || op == UnaryOp::neg || op == UnaryOp::abs || op == UnaryOp::relu) {
        for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(double(y[i]), ref[i]);
      } else {
        EXPECT_LE(reference::scaled_error(y, ref), t == DataType::float32 ? 1e-5 : 2e-3);
      }
    }
  // A fused activation equals the separate operation, bit for bit.
  for (DataType t : kFloatTypes)
    for (UnaryOp act : {UnaryOp::relu, UnaryOp::gelu_erf, UnaryOp::gelu_tanh, UnaryOp::sigmoid, UnaryOp::leaky_relu}) {
      const Shape sa = {37, 64}, sb = {64};
      auto a = upload(t, random_floats(37 * 64, 3, -3, 3)), b = upload(t, random_floats(64, 4, -3, 3));
      auto fused = upload(t, std::vector<float>(37 * 64, 0.0f)), plain = upload(t, std::vector<float>(37 * 64, 0.0f));
      auto enc = device().begin_commands();
      ew.binary(enc, BinaryOp::mul, t, {&a, 0, sa}, {&b, 0, sb}, fused, 0, act, {0.05f, 0.0f});
      ew.binary(enc, BinaryOp::mul, t, {&a, 0, sa}, {&b, 0, sb}, plain, 0);
      ew.unary(enc, act, t, {&plain, 0, sa}, plain, 0, {0.05f, 0.0f});  // in place
      device().submit(enc);
      auto x = download(t, fused, 37 * 64), y = download(t, plain, 37 * 64);
      EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * 4), 0) << int(act);
    }
}

TEST_F(ElementwiseTest, SpecialValuesByBitPattern) {
  Elementwise ew(device());
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> a = {nan, 1.0f, -inf, 0.0f, -0.0f, 2.0f}, b = {1.0f, nan, 3.0f, -0.0f, 0.0f, inf};
  auto ba = device().create_buffer(a), bb = device().create_buffer(b);
  const Shape s = {6};
  for (BinaryOp op : {BinaryOp::min, BinaryOp::max}) {
    auto out = device().create_buffer<float>(6);
    auto enc = device().begin_commands();
    ew.binary(enc, op, DataType::float32, {&ba, 0, s}, {&bb, 0, s}, out, 0);
    device().submit(enc);
    auto y = out.read();
    EXPECT_TRUE(std::isnan(y[0]));
    EXPECT_TRUE(std::isnan(y[1]));
    EXPECT_EQ(y[2], op == BinaryOp::min ? -inf : 3.0f);
    EXPECT_EQ(y[5], op == BinaryOp::min ? 2.0f : inf);
  }
  auto out = device().create_buffer<float>(6);
  auto enc = device().begin_commands();
  ew.unary(enc, UnaryOp::exp, DataType::float32, {&bb, 0, s}, out, 0);
  device().submit(enc);
  auto y = out.read();
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[5], inf);
  EXPECT_EQ(y[3], 1.0f);
}

TEST_F(ElementwiseTest, CompareWritesBoolBytesKeepingNeighbours) {
  Elementwise ew(device());
  for (DataType t : kFloatTypes)
    for (CompareOp op : {CompareOp::equal, CompareOp::less, CompareOp::greater, CompareOp::less_equal,
                         CompareOp::greater_equal}) {
      const Shape sa = {9, 13}, sb = {13};
      auto a = random_floats(9 * 13, 5, -2, 2), b = random_floats(13, 6, -2, 2);
      for (auto& v : a) v = std::round(round_to(t, v) * 2) / 2;  // ties for Equal
      for (auto& v : b) v = std::round(round_to(t, v) * 2) / 2;
      a[4] = std::numeric_limits<float>::quiet_NaN();
      auto ba = upload(t, a), bb = upload(t, b);
      const uint64_t off = 5, n = 9 * 13;
      auto out = device().create_buffer(std::vector<uint8_t>(n + off + 6, 7));
      auto enc = device().begin_commands();
      ew.compare(enc, op, t, {&ba, 0, sa}, {&bb, 0, sb}, out, off);
      device().submit(enc);
      auto y = out.read();
      for (uint64_t i = 0; i < off; ++i) ASSERT_EQ(y[i], 7);
      for (uint64_t i = n + off; i < y.size(); ++i) ASSERT_EQ(y[i], 7);
      for (uint64_t e = 0; e < n; ++e) {
        const float x = a[e], z = b[e % 13];
        const bool r = op == CompareOp::equal ? x == z : op == CompareOp::less ? x < z : op == CompareOp::greater ? x > z
                       : op == CompareOp::less_equal ? x <= z : x >= z;
        ASSERT_EQ(y[off + e], r ? 1 : 0) << e;
      }
    }
}

TEST_F(ElementwiseTest, WhereOverEveryType) {
  Elementwise ew(device());
  const Shape sc = {5, 1}, sx = {5, 6}, sy = {6};
  std::vector<uint8_t> cond = {1, 0, 3, 0, 1};  // any nonzero byte is true
  auto bc = device().create_buffer(cond);
  auto pick = [&](uint64_t e) { return cond[e / 6] != 0; };
  {  // int64 (two words per element)
    std::vector<int64_t> x(30), y(6);
    for (int i = 0; i < 30; ++i) x[i] = (int64_t(i) << 40) - 7;
    for (int i = 0; i < 6; ++i) y[i] = INT64_MIN + i;
    auto bx = device().create_buffer(x), by = device().create_buffer(y);
    auto out = device().create_buffer<int64_t>(30);
    auto enc = device().begin_commands();
    ew.where(enc, DataType::int64, {&bc, 0, sc}, {&bx, 0, sx}, {&by, 0, sy}, out, 0);
    device().submit(enc);
    auto r = out.read();
    for (uint64_t e = 0; e < 30; ++e) ASSERT_EQ(r[e], pick(e) ? x[e] : y[e % 6]) << e;
  }
  for (DataType t : {DataType::float32, DataType::float16, DataType::int32, DataType::uint32}) {
    std::vector<uint32_t> x(30), y(6);
    for (int i = 0; i < 30; ++i) x[i] = 0x10001u * uint32_t(i + 1);
    for (int i = 0; i < 6; ++i) y[i] = 0xABCD0000u + uint32_t(i);
    // float16 data: the same words read as 60 and 12 halves; use the first halves of each.
    auto bx = device().create_buffer(x), by = device().create_buffer(y);
    auto out = device().create_buffer(std::vector<uint32_t>(31, 0xEEEEEEEEu));
    auto enc = device().begin_commands();
    ew.where(enc, t, {&bc, 0, sc}, {&bx, 0, sx}, {&by, 0, sy}, out, 1);
    device().submit(enc);
    auto r = out.read();
    if (t == DataType::float16) {
      auto half_of = [](const std::vector<uint32_t>& w, uint64_t i) { return (w[i / 2] >> ((i % 2) * 16)) & 0xffffu; };
      EXPECT_EQ(r[0] & 0xffffu, 0xEEEEu);  // element 0 of the buffer is kept
      for (uint64_t e = 0; e < 30; ++e)
        ASSERT_EQ(half_of(r, e + 1), pick(e) ? half_of(x, e) : half_of(y, e % 6)) << e;
    } else {
      EXPECT_EQ(r[0], 0xEEEEEEEEu);
      for (uint64_t e = 0; e < 30; ++e) ASSERT_EQ(r[e + 1], pick(e) ? x[e] : y[e % 6]) << e;
    }
  }
}

TEST_F(ElementwiseTest, CastBetweenEveryTypeBitExact) {
  Elementwise ew(device());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> floats = {0.0f, -0.0f, 1.5f, -2.75f, 65504.0f, 1e-7f, 3.999f, -1e9f, 123456.7f, nan, 1e18f, -9.2e18f};
  const std::vector<int64_t> longs = {0, 1, -1, INT64_MAX, INT64_MIN, (1ll << 53) + 1, -(1ll << 40) - 3,
                                      (1ll << 24) + 1, 16777217ll * 1024 + 511, 70000, -70000, 0x7fffffff};
  const Shape s = {12};
  auto f32 = device().create_buffer(floats);
  auto i64 = device().create_buffer(longs);
  // float32 -> float16, int32, int64, bool
  {
    auto h = device().create_buffer<float16>(12);
    auto i = device().create_buffer<int32_t>(12);
    auto l = device().create_buffer<int64_t>(12);
    auto b = device().create_buffer<uint8_t>(12);
    auto enc = device().begin_commands();
    ew.cast(enc, DataType::float32, {&f32, 0, s}, DataType::float16, h, 0);
    ew.cast(enc, DataType::float32, {&f32, 0, s}, DataType::boolean, b, 0);
    device().submit(enc);
    auto hv = h.read();
    auto bv = b.read();
    for (size_t k = 0; k < 12; ++k) {
      if (std::isnan(floats[k])) {
        EXPECT_TRUE(std::isnan(to_float(hv[k])));
      } else {
        EXPECT_EQ(hv[k].bits, to_float16(floats[k]).bits) << k;
      }
      EXPECT_EQ(bv[k], floats[k] != 0.0f || std::isnan(floats[k]) ? 1 : 0) << k;
    }
    // Float to integer truncates (values inside the range only).
    const std::vector<float> in_range = {0.0f, -0.0f, 1.5f, -2.75f, 65504.0f, 1e-7f, 3.999f, -1e9f, 123456.7f, 2.5f, 1e18f, -9.2e18f};
    auto f2 = device().create_buffer(in_range);
    auto enc2 = device().begin_commands();
    ew.cast(enc2, DataType::float32, {&f2, 0, s}, DataType::int64, l, 0);
    device().submit(enc2);
    auto lv = l.read();
    for (size_t k = 0; k < 12; ++k) EXPECT_EQ(lv[k], int64_t(in_range[k])) << k;
    std::vector<float> small(in_range.begin(), in_range.end());
    small[10] = 7.0f;
    small[11] = -8.0f;
    small[7] = -1e9f;
    auto f3 = device().create_buffer(small);
    auto enc3 = device().begin_commands();
    ew.cast(enc3, DataType::float32, {&f3, 0, s}, DataType::int32, i, 0);
    device().submit(enc3);
    auto iv = i.read();
    for (size_t k = 0; k < 12; ++k) EXPECT_EQ(iv[k], int32_t(small[k])) << k;
  }
  // int64 -> float32 (nearest even), int32, bool, float16
  {
    auto f = device().create_buffer<float>(12);
    auto i = device().create_buffer<int32_t>(12);
    auto b = device().create_buffer<uint8_t>(12);
    auto h = device().create_buffer<float16>(12);
    auto enc = device().begin_commands();
    ew.cast(enc, DataType::int64, {&i64, 0, s}, DataType::float32, f, 0);
    ew.cast(enc, DataType::int64, {&i64, 0, s}, DataType::int32, i, 0);
    ew.cast(enc, DataType::int64, {&i64, 0, s}, DataType::boolean, b, 0);
    ew.cast(enc, DataType::int64, {&i64, 0, s}, DataType::float16, h, 0);
    device().submit(enc);
    auto fv = f.read();
    auto iv = i.read();
    auto bv = b.read();
    auto hv = h.read();
    for (size_t k = 0; k < 12; ++k) {
      EXPECT_EQ(fv[k], float(longs[k])) << k;  // the C++ conversion rounds to nearest even
      EXPECT_EQ(iv[k], int32_t(uint32_t(uint64_t(longs[k])))) << k;
      EXPECT_EQ(bv[k], longs[k] != 0 ? 1 : 0) << k;
      EXPECT_EQ(hv[k].bits, to_float16(float(longs[k])).bits) << k;
    }
  }
  // int32 and bool -> int64 and float32
  {
    std::vector<int32_t> ints = {0, 1, -1, INT32_MAX, INT32_MIN, 16777217, -16777219, 5, 6, 7, 8, 9};
    std::vector<uint8_t> bools = {0, 1, 2, 0, 255, 0, 1, 0, 0, 1, 1, 0};
    auto bi = device().create_buffer(ints);
    auto bb = device().create_buffer(bools);
    auto l = device().create_buffer<int64_t>(12);
    auto f = device().create_buffer<float>(12);
    auto lb = device().create_buffer<int64_t>(12);
    auto enc = device().begin_commands();
    ew.cast(enc, DataType::int32, {&bi, 0, s}, DataType::int64, l, 0);
    ew.cast(enc, DataType::int32, {&bi, 0, s}, DataType::float32, f, 0);
    ew.cast(enc, DataType::boolean, {&bb, 0, s}, DataType::int64, lb, 0);
    device().submit(enc);
    auto lv = l.read();
    auto fv = f.read();
    auto lbv = lb.read();
    for (size_t k = 0; k < 12; ++k) {
      EXPECT_EQ(lv[k], int64_t(ints[k]));
      EXPECT_EQ(fv[k], float(ints[k]));
      EXPECT_EQ(lbv[k], bools[k] != 0 ? 1 : 0);
    }
  }
}

TEST_F(ElementwiseTest, BadArgumentsThrowBeforeRecording) {
  Elementwise ew(device());
  auto a = device().create_buffer<float>(12), b = device().create_buffer<float>(4), out = device().create_buffer<float>(12);
  auto enc = device().begin_commands();
  const Shape sa = {3, 4}, sb = {3}, sbig = {13};
  try {
    ew.binary(enc, BinaryOp::add, DataType::float32, {&a, 0, sa}, {&b, 0, sb}, out, 0);
    FAIL();
  } catch (const KernelShapeError& e) {
    EXPECT_STREQ(e.what(), "Elementwise: shape: dimension 1: 4 and 3 do not broadcast");
  }
  EXPECT_THROW(ew.unary(enc, UnaryOp::exp, DataType::float32, {&a, 0, sbig}, out, 0), KernelShapeError);
  EXPECT_THROW(ew.unary(enc, UnaryOp::exp, DataType::float32, {&a, 0, sa}, out, 1), KernelShapeError);  // out too small
  EXPECT_THROW(ew.unary(enc, UnaryOp::exp, DataType::float32, {&a, 2, Shape{8}}, a, 0), KernelShapeError);  // overlap
  EXPECT_THROW(ew.binary(enc, BinaryOp::add, DataType::int32, {&a, 0, sa}, {&a, 0, sa}, out, 0), KernelShapeError);
  EXPECT_EQ(enc.dispatch_count(), 0u);
}

}  // namespace
}  // namespace onegpu::testing

namespace onegpu::testing {
namespace {

using namespace kernels;

// The family's integer semantics on the CPU.
int64_t int_ref(IntegerOp op, int64_t a, int64_t b) {
  auto wrap = [](uint64_t v) { return int64_t(v); };
  switch (op) {
    case IntegerOp::add: return wrap(uint64_t(a) + uint64_t(b));
    case IntegerOp::sub: return wrap(uint64_t(a) - uint64_t(b));
    case IntegerOp::mul: return wrap(uint64_t(a) * uint64_t(b));
    case IntegerOp::div: return b == 0 ? 0 : b == -1 ? wrap(0 - uint64_t(a)) : a / b;
    case IntegerOp::fmod: return (b == 0 || b == -1) ? 0 : a % b;
    case IntegerOp::mod: {
      if (b == 0 || b == -1) return 0;
      int64_t r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
    case IntegerOp::min: return std::min(a, b);
    case IntegerOp::max: return std::max(a, b);
    case IntegerOp::logical_and: return (a != 0) && (b != 0);
    case IntegerOp::logical_or: return (a != 0) || (b != 0);
    case IntegerOp::logical_xor: return (a != 0) != (b != 0);
  }
  return 0;
}

class IntegerTest : public DeviceTest {};

TEST_F(IntegerTest, Int64AndInt32ArithmeticBitExactAtTheExtremes) {
  Elementwise ew(device());
  std::vector<int64_t> a = {0, 1, -1, 7, -7, INT64_MAX, INT64_MIN, INT64_MIN, 1ll << 40, -(1ll << 33) - 5, 123456789012345ll,
                            -98765, 5, INT64_MAX, 42};
  std::vector<int64_t> b = {3, -1, -1, 2, 2, 1, -1, INT64_MAX, 3, 7, -(1ll << 35) - 1, 0, -3, INT64_MIN, 1ll << 50};
  const int64_t n = int64_t(a.size());
  const std::vector<int64_t> shape = {n};
  for (IntegerOp op : {IntegerOp::add, IntegerOp::sub, IntegerOp::mul, IntegerOp::div, IntegerOp::mod, IntegerOp::fmod,
                       IntegerOp::min, IntegerOp::max}) {
    {  // int64
      auto ba = device().create_buffer(a), bb = device().create_buffer(b);
      auto out = device().create_buffer<int64_t>(a.size());
      auto enc = device().begin_commands();
      ew.integer_binary(enc, op, DataType::int64, {&ba, 0, shape}, {&bb, 0, shape}, out, 0);
      device().submit(enc);
      auto r = out.read();
      for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(r[i], int_ref(op, a[i], b[i])) << "op " << int(op) << " i " << i;
    }
    {  // int32: the low words, with int32's own extremes
      std::vector<int32_t> a32(a.size()), b32(b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        a32[i] = int32_t(uint32_t(uint64_t(a[i])));
        b32[i] = int32_t(uint32_t(uint64_t(b[i])));
      }
      a32[6] = INT32_MIN;
      b32[6] = -1;
      auto ba = device().create_buffer(a32), bb = device().create_buffer(b32);
      auto out = device().create_buffer<int32_t>(a.size());
      auto enc = device().begin_commands();
      ew.integer_binary(enc, op, DataType::int32, {&ba, 0, shape}, {&bb, 0, shape}, out, 0);
      device().submit(enc);
      auto r = out.read();
      for (size_t i = 0; i < a.size(); ++i)
        ASSERT_EQ(r[i], int32_t(uint32_t(uint64_t(int_ref(op, a32[i], b32[i]))))) << "int32 op " << int(op) << " i " << i;
    }
  }
  // Neg and Abs (the minimum stays itself), compares.
  auto ba = device().create_buffer(a), bb = device().create_buffer(b);
  auto neg = device().create_buffer<int64_t>(a.size());
  auto abs = device().create_buffer<int64_t>(a.size());
  auto less = device().create_buffer<uint8_t>(a.size());
  auto enc = device().begin_commands();
  ew.integer_unary(enc, IntegerUnaryOp::neg, DataType::int64, {&ba, 0, shape}, neg, 0);
  ew.integer_unary(enc, IntegerUnaryOp::abs, DataType::int64, {&ba, 0, shape}, abs, 0);
  ew.integer_compare(enc, CompareOp::less, DataType::int64, {&ba, 0, shape}, {&bb, 0, shape}, less, 0);
  device().submit(enc);
  auto nv = neg.read(), av = abs.read();
  auto lv = less.read();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(nv[i], int64_t(0 - uint64_t(a[i])));
    EXPECT_EQ(av[i], a[i] < 0 ? int64_t(0 - uint64_t(a[i])) : a[i]);
    EXPECT_EQ(lv[i], a[i] < b[i] ? 1 : 0);
  }
}

TEST_F(IntegerTest, BiasBroadcastOverMoreRowsThanOneGridDimension) {
  // 65600 rows of 256 words: the two-dimensional path spreads the rows over two grid dimensions.
  const int64_t rows = 65600, cols = 256;
  std::vector<int32_t> a(static_cast<size_t>(rows * cols)), b(static_cast<size_t>(cols));
  for (size_t i = 0; i < a.size(); ++i) a[i] = int32_t(i * 2654435761u);
  for (size_t i = 0; i < b.size(); ++i) b[i] = int32_t(i * 40503u) - 7;
  Elementwise ew(device());
  auto ba = device().create_buffer(a), bb = device().create_buffer(b);
  auto out = device().create_buffer(std::vector<int32_t>(a.size() + 1, -5));
  auto enc = device().begin_commands();
  const std::vector<int64_t> sa = {rows, cols}, sb = {cols};
  ew.integer_binary(enc, IntegerOp::add, DataType::int32, {&ba, 0, sa}, {&bb, 0, sb}, out, 0);
  device().submit(enc);
  auto r = out.read();
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(r[i], int32_t(uint32_t(a[i]) + uint32_t(b[i % size_t(cols)]))) << i;
  EXPECT_EQ(r[a.size()], -5);  // the sentinel after the output
}

TEST_F(IntegerTest, BoolLogicWithBroadcastAndOddOffsets) {
  Elementwise ew(device());
  std::vector<uint8_t> a = {0, 1, 0, 5, 1, 0, 1, 1, 0, 0, 2, 1};  // 3 x 4, nonzero reads as true
  std::vector<uint8_t> b = {1, 0, 1, 0};
  auto ba = device().create_buffer(a), bb = device().create_buffer(b);
  const std::vector<int64_t> sa = {3, 4}, sb = {4};
  for (IntegerOp op : {IntegerOp::logical_and, IntegerOp::logical_or, IntegerOp::logical_xor}) {
    auto out = device().create_buffer(std::vector<uint8_t>(17, 9));
    auto enc = device().begin_commands();
    ew.integer_binary(enc, op, DataType::boolean, {&ba, 0, sa}, {&bb, 0, sb}, out, 3);
    device().submit(enc);
    auto r = out.read();
    for (int i = 0; i < 3; ++i) EXPECT_EQ(r[i], 9);
    for (size_t i = 15; i < 17; ++i) EXPECT_EQ(r[i], 9);
    for (size_t e = 0; e < 12; ++e) EXPECT_EQ(r[3 + e], int_ref(op, a[e], b[e % 4])) << e;
  }
  auto out = device().create_buffer<uint8_t>(12);
  auto enc = device().begin_commands();
  ew.integer_unary(enc, IntegerUnaryOp::logical_not, DataType::boolean, {&ba, 0, sa}, out, 0);
  device().submit(enc);
  auto r = out.read();
  for (size_t e = 0; e < 12; ++e) EXPECT_EQ(r[e], a[e] == 0 ? 1 : 0);
}

TEST_F(IntegerTest, FillAndRange) {
  Elementwise ew(device());
  auto l = device().create_buffer<int64_t>(7);
  auto f = device().create_buffer<float>(1000);
  auto h = device().create_buffer(std::vector<float16>(9, float16{0x1234}));
  auto enc = device().begin_commands();
  const std::vector<int64_t> s = {7};
  ew.fill(enc, DataType::int64, s, {.i = INT64_MIN + 3}, l, 0);
  ew.range(enc, DataType::float32, {.f = -2.5}, {.f = 0.1}, 1000, f, 0);
  ew.fill(enc, DataType::float16, std::vector<int64_t>{7}, {.f = 1.5}, h, 1);
  device().submit(enc);
  for (int64_t v : l.read()) EXPECT_EQ(v, INT64_MIN + 3);
  auto fv = f.read();
  for (int i = 0; i < 1000; ++i) {
    const float step = float(i) * 0.1f;
    ASSERT_EQ(fv[size_t(i)], -2.5f + step) << i;  // two separately rounded operations
  }
  auto hv = h.read();
  EXPECT_EQ(hv[0].bits, 0x1234);
  EXPECT_EQ(hv[8].bits, 0x1234);
  for (int i = 1; i < 8; ++i) EXPECT_EQ(to_float(hv[size_t(i)]), 1.5f);
  const uint64_t n = Elementwise::range_length(int64_t(10), int64_t(-7), int64_t(-3));
  EXPECT_EQ(n, 6u);  // 10, 7, 4, 1, -2, -5
  EXPECT_EQ(Elementwise::range_length(INT64_MIN, INT64_MAX, INT64_MAX), 3u);
  EXPECT_EQ(Elementwise::range_length(int64_t(5), int64_t(5), int64_t(1)), 0u);
  EXPECT_THROW(Elementwise::range_length(int64_t(0), int64_t(5), int64_t(0)), KernelShapeError);
  auto r = device().create_buffer<int64_t>(n);
  auto enc2 = device().begin_commands();
  ew.range(enc2, DataType::int64, {.i = 10}, {.i = -3}, n, r, 0);
  device().submit(enc2);
  EXPECT_EQ(r.read(), (std::vector<int64_t>{10, 7, 4, 1, -2, -5}));
  auto big = device().create_buffer<int64_t>(3);
  auto enc3 = device().begin_commands();
  ew.range(enc3, DataType::int64, {.i = INT64_MIN}, {.i = INT64_MAX}, 3, big, 0);
  device().submit(enc3);
  EXPECT_EQ(big.read(), (std::vector<int64_t>{INT64_MIN, -1, INT64_MAX - 1}));
}

}  // namespace
}  // namespace onegpu::testing
