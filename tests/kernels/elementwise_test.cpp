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
#include "kernels/tensor_helpers.h"

namespace onegpu::testing {
namespace {

using namespace kernels;
using Shape = std::vector<int64_t>;


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


// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class ElementwiseFixture : public Base {
 protected:
  RawBuffer upload(DataType t, const std::vector<float>& v) {
    if (t == DataType::float32) return this->device().create_buffer(v);
    std::vector<float16> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = to_float16(v[i]);
    return this->device().create_buffer(h);
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
using ElementwiseTest = ElementwiseFixture<DeviceTest>;
// On every backend with the same references, tolerances and bit checks (UnaryOpsAndFusedActivations
// stays on Vulkan: it runs an operation in place, which WebGPU refuses).
using ElementwiseOnEveryBackend = ElementwiseFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, ElementwiseOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

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

TEST_P(ElementwiseOnEveryBackend, BinaryOpsBroadcastEveryTypeAgainstReferences) {
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
        ew.binary(enc, op, tensor(ba, t, sa), tensor(bb, t, sb), tensor(out, t, so, off));
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
      ew.unary(enc, {op, params}, tensor(bx, t, shape), tensor(out, t, shape, pad));
      device().submit(enc);
      const auto all = download(t, out, x.size() + 2 * pad + 1);
      for (size_t i = 0; i < pad; ++i) ASSERT_EQ(all[i], sentinel);
      for (size_t i = pad + x.size(); i < all.size(); ++i) ASSERT_EQ(all[i], sentinel);
      const std::vector<float> y(all.begin() + pad, all.begin() + pad + long(x.size()));
      std::vector<double> ref(x.size());
      for (size_t i = 0; i < x.size(); ++i) ref[i] = reference::unary(op, params, x[i]);
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
      ew.binary(enc, BinaryOp::mul, tensor(a, t, sa), tensor(b, t, sb), tensor(fused, t, sa), {act, {0.05f, 0.0f}});
      ew.binary(enc, BinaryOp::mul, tensor(a, t, sa), tensor(b, t, sb), tensor(plain, t, sa));
      ew.unary(enc, {act, {0.05f, 0.0f}}, tensor(plain, t, sa), tensor(plain, t, sa));  // in place
      device().submit(enc);
      auto x = download(t, fused, 37 * 64), y = download(t, plain, 37 * 64);
      EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * 4), 0) << int(act);
    }
}

TEST_P(ElementwiseOnEveryBackend, SpecialValuesByBitPattern) {
  Elementwise ew(device());
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> a = {nan, 1.0f, -inf, 0.0f, -0.0f, 2.0f}, b = {1.0f, nan, 3.0f, -0.0f, 0.0f, inf};
  auto ba = device().create_buffer(a), bb = device().create_buffer(b);
  const Shape s = {6};
  for (BinaryOp op : {BinaryOp::min, BinaryOp::max}) {
    auto out = device().create_buffer<float>(6);
    auto enc = device().begin_commands();
    ew.binary(enc, op, tensor(ba, DataType::float32, s), tensor(bb, DataType::float32, s), tensor(out, DataType::float32, s));
    device().submit(enc);
    auto y = out.read();
    EXPECT_TRUE(std::isnan(y[0]));
    EXPECT_TRUE(std::isnan(y[1]));
    EXPECT_EQ(y[2], op == BinaryOp::min ? -inf : 3.0f);
    EXPECT_EQ(y[5], op == BinaryOp::min ? 2.0f : inf);
  }
  auto out = device().create_buffer<float>(6);
  auto enc = device().begin_commands();
  ew.unary(enc, {UnaryOp::exp}, tensor(bb, DataType::float32, s), tensor(out, DataType::float32, s));
  device().submit(enc);
  auto y = out.read();
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[5], inf);
  EXPECT_EQ(y[3], 1.0f);
}

TEST_P(ElementwiseOnEveryBackend, CompareWritesBoolBytesKeepingNeighbours) {
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
      ew.compare(enc, op, tensor(ba, t, sa), tensor(bb, t, sb), tensor(out, DataType::boolean, sa, off));
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

TEST_P(ElementwiseOnEveryBackend, WhereOverEveryType) {
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
    ew.where(enc, tensor(bc, DataType::boolean, sc), tensor(bx, DataType::int64, sx), tensor(by, DataType::int64, sy),
             tensor(out, DataType::int64, sx));
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
    ew.where(enc, tensor(bc, DataType::boolean, sc), tensor(bx, t, sx), tensor(by, t, sy), tensor(out, t, sx, 1));
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

TEST_P(ElementwiseOnEveryBackend, CastBetweenEveryTypeBitExact) {
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
    ew.cast(enc, tensor(f32, DataType::float32, s), tensor(h, DataType::float16, s));
    ew.cast(enc, tensor(f32, DataType::float32, s), tensor(b, DataType::boolean, s));
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
    ew.cast(enc2, tensor(f2, DataType::float32, s), tensor(l, DataType::int64, s));
    device().submit(enc2);
    auto lv = l.read();
    for (size_t k = 0; k < 12; ++k) EXPECT_EQ(lv[k], int64_t(in_range[k])) << k;
    std::vector<float> small(in_range.begin(), in_range.end());
    small[10] = 7.0f;
    small[11] = -8.0f;
    small[7] = -1e9f;
    auto f3 = device().create_buffer(small);
    auto enc3 = device().begin_commands();
    ew.cast(enc3, tensor(f3, DataType::float32, s), tensor(i, DataType::int32, s));
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
    ew.cast(enc, tensor(i64, DataType::int64, s), tensor(f, DataType::float32, s));
    ew.cast(enc, tensor(i64, DataType::int64, s), tensor(i, DataType::int32, s));
    ew.cast(enc, tensor(i64, DataType::int64, s), tensor(b, DataType::boolean, s));
    ew.cast(enc, tensor(i64, DataType::int64, s), tensor(h, DataType::float16, s));
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
    ew.cast(enc, tensor(bi, DataType::int32, s), tensor(l, DataType::int64, s));
    ew.cast(enc, tensor(bi, DataType::int32, s), tensor(f, DataType::float32, s));
    ew.cast(enc, tensor(bb, DataType::boolean, s), tensor(lb, DataType::int64, s));
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

// Strided inputs (transposed, every other element, a repeated row through a zero stride) against
// the reference; the output is dense.
TEST_P(ElementwiseOnEveryBackend, StridedInputsAgainstReferences) {
  Elementwise ew(device());
  const int64_t rows = 37, cols = 300;  // rows of 300 words take the two-dimensional walk
  for (DataType t : kFloatTypes) {
    auto av = random_floats(size_t(rows * cols * 2 + 3), 11, -2, 2), bv = random_floats(size_t(cols * rows), 12, -2, 2);
    for (auto& v : av) v = round_to(t, v);
    for (auto& v : bv) v = round_to(t, v);
    auto ba = upload(t, av), bb = upload(t, bv);
    const Shape s = {rows, cols};
    struct Case {
      Shape a_strides, b_strides;
    } cases[] = {
        {{2 * cols, 2}, {}},  // a: every other element of each row
        {{cols, 1}, {1, rows}},  // b: a transposed (column-major) view
        {{0, 1}, {1, rows}},  // a: one row repeated by a zero stride
        {{1, rows}, {0, 1}},
    };
    for (const Case& c : cases) {
      const uint64_t n = uint64_t(rows * cols), off = 1;
      const float nan_bits = std::bit_cast<float>(0x7fc00001u);  // poisoned output
      auto out = upload(t, std::vector<float>(n + off + 2, nan_bits));
      auto enc = device().begin_commands();
      ew.binary(enc, BinaryOp::sub, tensor(ba, t, s, 3, c.a_strides), tensor(bb, t, s, 0, c.b_strides),
                tensor(out, t, s, off));
      device().submit(enc);
      auto y = download(t, out, n + off + 2);
      SCOPED_TRACE(std::string(data_type_name(t)) + " a strides " + std::to_string(c.a_strides.empty() ? -1 : c.a_strides[0]));
      EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[n + off]) && std::isnan(y[n + off + 1]));
      auto at = [](const Shape& st, int64_t i, int64_t j, int64_t cols_) {
        return st.empty() ? i * cols_ + j : i * st[0] + j * st[1];
      };
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          const float x = av[size_t(3 + at(c.a_strides, i, j, cols))], z = bv[size_t(at(c.b_strides, i, j, cols))];
          ASSERT_EQ(y[size_t(off + i * cols + j)], round_to(t, x - z)) << i << " " << j;
        }
    }
  }
}

TEST_F(ElementwiseTest, BadArgumentsThrowBeforeRecording) {
  Elementwise ew(device());
  auto a = device().create_buffer<float>(12), b = device().create_buffer<float>(4), out = device().create_buffer<float>(12);
  auto i = device().create_buffer<int32_t>(12);
  auto enc = device().begin_commands();
  const DataType f32 = DataType::float32;
  const Shape sa = {3, 4}, sb = {3}, sbig = {13}, s4 = {4};
  auto message = [](auto&& f) { return shape_error_message(f); };
  EXPECT_EQ(message([&] { ew.binary(enc, BinaryOp::add, tensor(a, f32, sa), tensor(b, f32, sb), tensor(out, f32, sa)); }),
            "Elementwise: shape: dimension 1: 4 and 3 do not broadcast");
  EXPECT_EQ(message([&] { ew.binary(enc, BinaryOp::add, tensor(a, f32, sa), tensor(b, f32, s4), tensor(out, f32, s4)); }),
            "Elementwise: out: its shape is not the result's shape (rank 2, 12 elements)");
  EXPECT_EQ(message([&] {
              ew.binary(enc, BinaryOp::add, tensor(a, f32, sa), tensor(b, DataType::float16, s4), tensor(out, f32, sa));
            }),
            "Elementwise: b: float16 does not match a's float32");
  EXPECT_EQ(message([&] { ew.unary(enc, {UnaryOp::exp}, tensor(a, f32, sa), tensor(i, DataType::int32, sa)); }),
            "Elementwise: out: int32 does not match x's float32");
  EXPECT_EQ(message([&] { ew.compare(enc, CompareOp::less, tensor(a, f32, sa), tensor(a, f32, sa), tensor(out, f32, sa)); }),
            "Compare: out: float32 is not bool");
  EXPECT_EQ(message([&] {
              ew.where(enc, tensor(i, DataType::int32, sa), tensor(a, f32, sa), tensor(a, f32, sa), tensor(out, f32, sa));
            }),
            "Where: cond: int32 is not bool");
  const Shape transposed = {1, 3};
  EXPECT_EQ(message([&] { ew.unary(enc, {UnaryOp::exp}, tensor(a, f32, sa), tensor(out, f32, sa, 0, transposed)); }),
            "Elementwise: strides: out is not dense row-major (outputs must be)");
  EXPECT_THROW(ew.unary(enc, {UnaryOp::exp}, tensor(a, f32, sbig), tensor(out, f32, sbig)), KernelShapeError);
  EXPECT_THROW(ew.unary(enc, {UnaryOp::exp}, tensor(a, f32, sa), tensor(out, f32, sa, 1)), KernelShapeError);  // out too small
  const Shape wide = {8, 4};  // reaches 1 + 2 x 8 + 3 x 4 = 29 elements of 12
  EXPECT_THROW(ew.unary(enc, {UnaryOp::exp}, tensor(a, f32, sa, 0, wide), tensor(out, f32, sa)), KernelShapeError);
  EXPECT_THROW(ew.unary(enc, {UnaryOp::exp}, tensor(a, f32, Shape{8}, 2), tensor(a, f32, Shape{8})), KernelShapeError);  // overlap
  EXPECT_THROW(ew.unary(enc, {UnaryOp::exp}, tensor(a, f32, sa, 0, transposed), tensor(a, f32, sa)),
               KernelShapeError);  // in place, but read in another order
  EXPECT_THROW(ew.binary(enc, BinaryOp::add, tensor(i, DataType::int32, sa), tensor(i, DataType::int32, sa),
                         tensor(i, DataType::int32, sa)),
               KernelShapeError);
  // 274177 x 67280421310721 = 2^64 + 1 elements: the product wraps to 1.
  const Shape wraps = {274177, 67280421310721};
  EXPECT_THROW(ew.unary(enc, {UnaryOp::exp}, tensor(a, f32, wraps), tensor(out, f32, wraps)), KernelShapeError);
  EXPECT_THROW(ew.fill(enc, {.f = 1}, tensor(out, f32, wraps)), KernelShapeError);
  EXPECT_EQ(enc.dispatch_count(), 0u);
}

// An output sharing a 32-bit word with an input (other than itself, in place) is refused before
// anything is recorded; disjoint ranges of one buffer, and the output as its own input, run.
TEST_F(ElementwiseTest, OverlappingOutputsThrowBeforeRecording) {
  Elementwise ew(device());
  const DataType f32 = DataType::float32, f16 = DataType::float16, b8 = DataType::boolean;
  auto buf = device().create_buffer(random_floats(64, 41, -2, 2));
  const Shape s16 = {16}, s4 = {4}, s3 = {3};
  auto enc = device().begin_commands();
  auto expect_overlap = [&](const char* what, auto call) {
    try {
      call();
      ADD_FAILURE() << what << ": no exception";
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.argument(), "out") << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("overlaps"), std::string::npos) << what << ": " << e.what();
    }
  };
  expect_overlap("unary", [&] { ew.unary(enc, {UnaryOp::neg}, tensor(buf, f32, s16), tensor(buf, f32, s16, 1)); });
  expect_overlap("binary", [&] {  // a is the output itself, b overlaps it
    ew.binary(enc, BinaryOp::add, tensor(buf, f32, s16, 16), tensor(buf, f32, s16, 8), tensor(buf, f32, s16, 16));
  });
  expect_overlap("compare", [&] {  // bool bytes 40..44 inside b's floats 8..12
    ew.compare(enc, CompareOp::less, tensor(buf, f32, s4), tensor(buf, f32, s4, 8), tensor(buf, b8, s4, 40));
  });
  expect_overlap("where", [&] {
    ew.where(enc, tensor(buf, b8, s4, 200), tensor(buf, f32, s4), tensor(buf, f32, s4, 4), tensor(buf, f32, s4, 50));
  });
  expect_overlap("cast", [&] {  // halves 7..10: bytes 14..20, the word 12..16 shared with the floats 0..4
    ew.cast(enc, tensor(buf, f32, s4), tensor(buf, f16, s4, 7));
  });
  expect_overlap("halves sharing a word", [&] {  // halves 0..3 and 3..6 share the word of halves 2 and 3
    ew.unary(enc, {UnaryOp::neg}, tensor(buf, f16, s3), tensor(buf, f16, s3, 3));
  });
  expect_overlap("same range, another type", [&] {
    ew.cast(enc, tensor(buf, DataType::int32, s4, 0), tensor(buf, f32, s4, 0));
  });
  EXPECT_EQ(enc.dispatch_count(), 0u);

  // Allowed: a is the output (dense, same offset, extent and type), b elsewhere in the same buffer;
  // halves in neighbouring words.
  const std::vector<float> x = random_floats(64, 42, -2, 2);
  auto same = device().create_buffer(x);
  std::vector<float16> h(16);
  for (size_t i = 0; i < h.size(); ++i) h[i] = to_float16(x[i]);
  auto halves = device().create_buffer(h);
  ew.binary(enc, BinaryOp::add, tensor(same, f32, s16, 16), tensor(same, f32, s16, 32), tensor(same, f32, s16, 16));
  ew.unary(enc, {UnaryOp::neg}, tensor(halves, f16, s4), tensor(halves, f16, s4, 4));
  EXPECT_EQ(enc.dispatch_count(), 2u);
  device().submit(enc);
  const std::vector<float> got = same.read();
  for (size_t i = 0; i < 64; ++i) {
    const float want = i >= 16 && i < 32 ? x[i] + x[i + 16] : x[i];
    ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want)) << i;
  }
  const std::vector<float16> hg = halves.read();
  for (size_t i = 0; i < 16; ++i) {
    const uint16_t want = i >= 4 && i < 8 ? uint16_t(h[i - 4].bits ^ 0x8000u) : h[i].bits;
    ASSERT_EQ(hg[i].bits, want) << i;
  }
}

TEST_F(ElementwiseTest, VariantNamesAreTableRows) {
  Elementwise ew(device());
  auto a = device().create_buffer<float>(4096);
  const Shape n = {4096}, rows = {16, 256}, bias = {256}, column = {16, 1}, narrow = {16, 100};
  const TensorRef x = tensor(a, DataType::float32, n);
  const TensorRef inputs[] = {x, x};
  EXPECT_EQ(ew.variant(ElementwiseOperation::binary, inputs, x), "elementwise.float.same_shape.f32x8");
  const TensorRef bias_inputs[] = {tensor(a, DataType::float32, rows), tensor(a, DataType::float32, bias)};
  EXPECT_EQ(ew.variant(ElementwiseOperation::binary, bias_inputs, tensor(a, DataType::float32, rows)),
            "elementwise.float.rows.f32");
  // Rows under 256 words take the general walk.
  const TensorRef longs[] = {tensor(a, DataType::int64, narrow), tensor(a, DataType::int64, column)};
  EXPECT_EQ(ew.variant(ElementwiseOperation::integer_binary, longs, tensor(a, DataType::int64, narrow)),
            "elementwise.integer.broadcast.i64");
  EXPECT_EQ(ew.variant(ElementwiseOperation::fill, {}, tensor(a, DataType::float16, n)), "elementwise.fill.same_shape.any");
  const TensorRef bools[] = {tensor(a, DataType::boolean, n), tensor(a, DataType::boolean, n)};
  EXPECT_EQ(ew.variant(ElementwiseOperation::integer_binary, bools, tensor(a, DataType::boolean, n)),
            "elementwise.integer.same_shape.any");
  const TensorRef where[] = {tensor(a, DataType::boolean, rows), tensor(a, DataType::int64, rows),
                             tensor(a, DataType::int64, bias)};
  EXPECT_EQ(ew.variant(ElementwiseOperation::where, where, tensor(a, DataType::int64, rows)),
            "elementwise.where.rows.i64");  // rows of 256 words
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

// Every backend, as ElementwiseOnEveryBackend.
class IntegerTest : public BackendTest {};
INSTANTIATE_TEST_SUITE_P(Backends, IntegerTest, ::testing::ValuesIn(kEveryBackend), backend_name);
using Shape = std::vector<int64_t>;

TEST_P(IntegerTest, Int64AndInt32ArithmeticBitExactAtTheExtremes) {
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
      ew.integer_binary(enc, op, tensor(ba, DataType::int64, shape), tensor(bb, DataType::int64, shape),
                        tensor(out, DataType::int64, shape));
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
      ew.integer_binary(enc, op, tensor(ba, DataType::int32, shape), tensor(bb, DataType::int32, shape),
                        tensor(out, DataType::int32, shape));
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
  ew.integer_unary(enc, IntegerUnaryOp::neg, tensor(ba, DataType::int64, shape), tensor(neg, DataType::int64, shape));
  ew.integer_unary(enc, IntegerUnaryOp::abs, tensor(ba, DataType::int64, shape), tensor(abs, DataType::int64, shape));
  ew.integer_compare(enc, CompareOp::less, tensor(ba, DataType::int64, shape), tensor(bb, DataType::int64, shape),
                     tensor(less, DataType::boolean, shape));
  device().submit(enc);
  auto nv = neg.read(), av = abs.read();
  auto lv = less.read();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(nv[i], int64_t(0 - uint64_t(a[i])));
    EXPECT_EQ(av[i], a[i] < 0 ? int64_t(0 - uint64_t(a[i])) : a[i]);
    EXPECT_EQ(lv[i], a[i] < b[i] ? 1 : 0);
  }
}

TEST_P(IntegerTest, BiasBroadcastOverMoreRowsThanOneGridDimension) {
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
  ew.integer_binary(enc, IntegerOp::add, tensor(ba, DataType::int32, sa), tensor(bb, DataType::int32, sb),
                    tensor(out, DataType::int32, sa));
  device().submit(enc);
  auto r = out.read();
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(r[i], int32_t(uint32_t(a[i]) + uint32_t(b[i % size_t(cols)]))) << i;
  EXPECT_EQ(r[a.size()], -5);  // the sentinel after the output
}

TEST_P(IntegerTest, BoolLogicWithBroadcastAndOddOffsets) {
  Elementwise ew(device());
  std::vector<uint8_t> a = {0, 1, 0, 5, 1, 0, 1, 1, 0, 0, 2, 1};  // 3 x 4, nonzero reads as true
  std::vector<uint8_t> b = {1, 0, 1, 0};
  auto ba = device().create_buffer(a), bb = device().create_buffer(b);
  const std::vector<int64_t> sa = {3, 4}, sb = {4};
  for (IntegerOp op : {IntegerOp::logical_and, IntegerOp::logical_or, IntegerOp::logical_xor}) {
    auto out = device().create_buffer(std::vector<uint8_t>(17, 9));
    auto enc = device().begin_commands();
    ew.integer_binary(enc, op, tensor(ba, DataType::boolean, sa), tensor(bb, DataType::boolean, sb),
                      tensor(out, DataType::boolean, sa, 3));
    device().submit(enc);
    auto r = out.read();
    for (int i = 0; i < 3; ++i) EXPECT_EQ(r[i], 9);
    for (size_t i = 15; i < 17; ++i) EXPECT_EQ(r[i], 9);
    for (size_t e = 0; e < 12; ++e) EXPECT_EQ(r[3 + e], int_ref(op, a[e], b[e % 4])) << e;
  }
  auto out = device().create_buffer<uint8_t>(12);
  auto enc = device().begin_commands();
  ew.integer_unary(enc, IntegerUnaryOp::logical_not, tensor(ba, DataType::boolean, sa), tensor(out, DataType::boolean, sa));
  device().submit(enc);
  auto r = out.read();
  for (size_t e = 0; e < 12; ++e) EXPECT_EQ(r[e], a[e] == 0 ? 1 : 0);
}

TEST_P(IntegerTest, FillAndRange) {
  Elementwise ew(device());
  auto l = device().create_buffer<int64_t>(7);
  auto f = device().create_buffer<float>(1000);
  auto h = device().create_buffer(std::vector<float16>(9, float16{0x1234}));
  auto enc = device().begin_commands();
  const std::vector<int64_t> s = {7};
  ew.fill(enc, {.i = INT64_MIN + 3}, tensor(l, DataType::int64, s));
  ew.range(enc, {.f = -2.5}, {.f = 0.1}, tensor(f, DataType::float32, Shape{1000}));
  ew.fill(enc, {.f = 1.5}, tensor(h, DataType::float16, s, 1));
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
  ew.range(enc2, {.i = 10}, {.i = -3}, tensor(r, DataType::int64, Shape{int64_t(n)}));
  device().submit(enc2);
  EXPECT_EQ(r.read(), (std::vector<int64_t>{10, 7, 4, 1, -2, -5}));
  auto big = device().create_buffer<int64_t>(3);
  auto enc3 = device().begin_commands();
  ew.range(enc3, {.i = INT64_MIN}, {.i = INT64_MAX}, tensor(big, DataType::int64, Shape{3}));
  device().submit(enc3);
  EXPECT_EQ(big.read(), (std::vector<int64_t>{INT64_MIN, -1, INT64_MAX - 1}));
}

}  // namespace
}  // namespace onegpu::testing
