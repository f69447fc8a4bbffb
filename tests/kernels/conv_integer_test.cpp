// ConvInteger bit for bit against a host reference (int64 sums of the zero-point-shifted bytes,
// wrapped to int32): every type mix, zero-point form, padding (asymmetric, auto_pad), strides,
// dilations, groups (depthwise too), 1-D layers, batches, offsets, both product kernels, chunked
// and whole-batch calls, with sentinels around y; and the argument checks before recording.
#include "onegpu/kernels/conv_integer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/device_fixture.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using kernels::AutoPad;
using kernels::ConvInteger;
using kernels::ConvIntegerOptions;
using kernels::ConvIntegerProblem;
using kernels::ConvIntegerZeroPoints;
using kernels::Extent2;
using kernels::Window;
using kernels::ZeroPoint;

bool full_sets() {
  const char* v = std::getenv("ONEGPU_CONV_FULL");
  return v != nullptr && std::string(v) == "1";
}

ConvIntegerProblem layer(int64_t batch, int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t k,
                         int64_t stride = 1, int64_t pad = -1, int64_t groups = 1) {
  ConvIntegerProblem p;
  p.batch = batch, p.in_channels = cin, p.out_channels = cout, p.input = {h, w}, p.groups = groups;
  if (pad < 0) pad = k / 2;
  p.window = Window{{k, k}, {stride, stride}, {1, 1}, {pad, pad, pad, pad}};
  return p;
}

// A 1-D layer (height 1) over `width` frames.
ConvIntegerProblem frames(int64_t batch, int64_t cin, int64_t cout, int64_t width, int64_t k, int64_t stride,
                          int64_t pad) {
  ConvIntegerProblem p;
  p.batch = batch, p.in_channels = cin, p.out_channels = cout, p.input = {1, width};
  p.window = Window{{1, k}, {1, stride}, {1, 1}, {0, pad, 0, pad}};
  return p;
}

enum class Zp { value, scalar, per_channel };

struct Spec {
  ConvIntegerProblem p;
  Zp zx = Zp::value, zw = Zp::value;  // x: value or scalar only
  std::optional<int32_t> zx_value, zw_value;
  bool caller_scratch = false;  // a buffer of exactly the whole batch's scratch, at a byte offset
  uint64_t scratch_images = 0;  // caller scratch holding this many images (0: the whole batch)
  uint32_t seed = 1;
  std::optional<uint8_t> x_fill, w_fill;  // every byte of x / w (random otherwise)
};

uint64_t words(uint64_t bytes) { return (bytes + 3) / 4 * 4; }
int32_t value_of(uint8_t byte, bool is_signed) { return is_signed ? int32_t(int8_t(byte)) : int32_t(byte); }
int32_t lo_of(bool s) { return s ? -128 : 0; }
int32_t hi_of(bool s) { return s ? 127 : 255; }

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = uint8_t(rng());
  return v;
}

struct Outcome {
  std::vector<int32_t> y;  // the output region only
  uint64_t mismatches = 0, checked = 0;
  bool sentinels_ok = true;
  std::string variant;
};

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class ConvIntegerFixture : public Base {
 protected:
  Outcome run(ConvInteger& conv, const Spec& sp) {
    const ConvIntegerProblem& p = sp.p;
    const Extent2 out = p.output();
    const uint64_t B = uint64_t(p.batch), C = uint64_t(p.in_channels), M = uint64_t(p.out_channels);
    const uint64_t G = uint64_t(p.groups), Cg = C / G, Mg = M / G;
    const uint64_t IH = uint64_t(p.input[0]), IW = uint64_t(p.input[1]), OH = uint64_t(out[0]), OW = uint64_t(out[1]);
    const uint64_t KH = uint64_t(p.window.kernel[0]), KW = uint64_t(p.window.kernel[1]);
    const bool xs = p.x_type == DataType::int8, ws = p.w_type == DataType::int8;
    const uint64_t nx = B * C * IH * IW, nw = M * Cg * KH * KW, ny = B * M * OH * OW;
    auto x = random_bytes(words(p.x_offset + nx + 5), sp.seed);
    auto w = random_bytes(words(p.w_offset + nw + 3), sp.seed + 1);
    if (sp.x_fill) std::fill(x.begin() + int64_t(p.x_offset), x.begin() + int64_t(p.x_offset + nx), *sp.x_fill);
    if (sp.w_fill) std::fill(w.begin() + int64_t(p.w_offset), w.begin() + int64_t(p.w_offset + nw), *sp.w_fill);
    std::mt19937 rng(sp.seed + 2);
    auto in_range = [&](bool s) { return std::uniform_int_distribution<int32_t>(lo_of(s), hi_of(s))(rng); };

    // Zero points: values, or bytes at an odd offset of their own buffers.
    auto zero_point = [&](Zp form, bool s, uint64_t channels, std::optional<int32_t> forced, std::vector<int32_t>& per,
                          std::optional<Buffer<uint8_t>>& buffer) {
      ZeroPoint z;
      per.assign(channels, 0);
      if (form == Zp::value) {
        z.value = forced.value_or(in_range(s));
        std::fill(per.begin(), per.end(), z.value);
        return z;
      }
      const uint64_t count = form == Zp::per_channel ? channels : 1;
      std::vector<uint8_t> bytes = random_bytes(words(count + 3), sp.seed + 3);
      for (uint64_t i = 0; i < count; ++i) bytes[1 + i] = uint8_t(forced.value_or(in_range(s)) & 0xff);
      for (uint64_t i = 0; i < channels; ++i) per[i] = value_of(bytes[1 + (count == 1 ? 0 : i)], s);
      buffer = this->device().create_buffer(bytes);
      z.buffer = &*buffer, z.offset = 1, z.per_channel = form == Zp::per_channel;
      return z;
    };
    std::vector<int32_t> zx, zw;
    std::optional<Buffer<uint8_t>> zx_buf, zw_buf;
    const ConvIntegerZeroPoints zp{zero_point(sp.zx, xs, 1, sp.zx_value, zx, zx_buf),
                                   zero_point(sp.zw, ws, M, sp.zw_value, zw, zw_buf)};

    // The reference: int64 sums wrapped to int32; padded taps read x_zero (they add nothing).
    const Window win = kernels::resolve_auto_pad(p.window, p.auto_pad, p.input, "ConvInteger");
    std::vector<int32_t> want(ny);
    for (uint64_t b = 0; b < B; ++b)
      for (uint64_t m = 0; m < M; ++m) {
        const uint64_t g = m / Mg;
        for (uint64_t oy = 0; oy < OH; ++oy)
          for (uint64_t ox = 0; ox < OW; ++ox) {
            int64_t acc = 0;
            for (uint64_t c = 0; c < Cg; ++c)
              for (uint64_t u = 0; u < KH; ++u)
                for (uint64_t v = 0; v < KW; ++v) {
                  const int64_t iy = int64_t(oy) * win.strides[0] + int64_t(u) * win.dilations[0] - win.pads[0];
                  const int64_t ix = int64_t(ox) * win.strides[1] + int64_t(v) * win.dilations[1] - win.pads[1];
                  if (iy < 0 || iy >= int64_t(IH) || ix < 0 || ix >= int64_t(IW)) continue;
                  const uint8_t xb = x[p.x_offset + ((b * C + g * Cg + c) * IH + uint64_t(iy)) * IW + uint64_t(ix)];
                  const uint8_t wb = w[p.w_offset + ((m * Cg + c) * KH + u) * KW + v];
                  acc += int64_t(value_of(xb, xs) - zx[0]) * int64_t(value_of(wb, ws) - zw[m]);
                }
            want[((b * M + m) * OH + oy) * OW + ox] = int32_t(uint32_t(uint64_t(acc)));
          }
      }

    // y with sentinels around it and poison inside.
    const uint64_t total = p.y_offset + ny + 7;
    std::vector<int32_t> before(total, int32_t(kSentinel));
    for (uint64_t e = 0; e < ny; ++e) before[p.y_offset + e] = 0x7fc0dead;
    auto bx = this->device().create_buffer(x), bw = this->device().create_buffer(w);
    auto y = this->device().create_buffer(before);
    kernels::ConvIntegerTensors t{&bx, &bw, &y};
    std::optional<Buffer<uint8_t>> scratch;
    const uint64_t scratch_offset = 12;
    uint64_t scratch_used = 0;
    if (sp.caller_scratch) {
      const kernels::ConvIntegerScratch need = conv.scratch_bytes(p);
      scratch_used = sp.scratch_images ? sp.scratch_images * need.per_image : need.whole_batch;
      // Sentinel bytes before the offset and after the range the call may use.
      scratch = this->device().create_buffer(std::vector<uint8_t>(scratch_offset + scratch_used + 4, 0xa5));
      t.scratch = &*scratch, t.scratch_offset = scratch_offset;
    }
    Outcome r;
    r.variant = conv.variant(p, zp);
    auto enc = this->device().begin_commands();
    conv.encode(enc, p, zp, t);
    this->device().submit(enc);
    const auto got = y.read();
    r.y.assign(got.begin() + int64_t(p.y_offset), got.begin() + int64_t(p.y_offset + ny));
    for (uint64_t e = 0; e < ny; ++e, ++r.checked)
      if (r.y[e] != want[e]) ++r.mismatches;
    for (uint64_t e = 0; e < total; ++e)
      if ((e < p.y_offset || e >= p.y_offset + ny) && got[e] != int32_t(kSentinel)) r.sentinels_ok = false;
    if (scratch) {
      const auto bytes = scratch->read();
      for (uint64_t e = 0; e < bytes.size(); ++e)
        if ((e < scratch_offset || e >= scratch_offset + scratch_used) && bytes[e] != 0xa5) r.sentinels_ok = false;
    }
    return r;
  }

  Outcome expect_exact(ConvInteger& conv, const Spec& sp, const std::string& what) {
    const Outcome r = run(conv, sp);
    SCOPED_TRACE(what + " " + std::string(data_type_name(sp.p.x_type)) + "x" +
                 std::string(data_type_name(sp.p.w_type)) + " zx=" + std::to_string(int(sp.zx)) +
                 " zw=" + std::to_string(int(sp.zw)) + " " + r.variant);
    EXPECT_GT(r.checked, 0u);
    EXPECT_EQ(r.mismatches, 0u) << "of " << r.checked;
    EXPECT_TRUE(r.sentinels_ok) << "elements around y changed";
    return r;
  }
};

using ConvIntegerTest = ConvIntegerFixture<DeviceTest>;
// On every backend with the same references and bit checks (the products on the integer GEMM
// family's portable or packed-dot kernels).
using ConvIntegerOnEveryBackend = ConvIntegerFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, ConvIntegerOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

constexpr DataType kU8 = DataType::uint8, kI8 = DataType::int8;

TEST_P(ConvIntegerOnEveryBackend, TypeMixesAndZeroPoints) {
  ConvInteger conv(device());
  uint32_t seed = 10;
  for (DataType xt : {kU8, kI8})
    for (DataType wt : {kU8, kI8})
      for (Zp zx : {Zp::value, Zp::scalar})
        for (Zp zw : {Zp::value, Zp::scalar, Zp::per_channel}) {
          Spec sp{layer(2, 5, 7, 6, 7, 3)};
          sp.p.x_type = xt, sp.p.w_type = wt, sp.zx = zx, sp.zw = zw, sp.seed = ++seed;
          expect_exact(conv, sp, "mix");
        }
}

TEST_P(ConvIntegerOnEveryBackend, ExtremeZeroPointsAndWrap) {
  ConvInteger conv(device());
  uint32_t seed = 40;
  for (DataType xt : {kU8, kI8})
    for (DataType wt : {kU8, kI8})
      for (bool high : {false, true}) {
        Spec sp{layer(1, 64, 9, 5, 5, 3)};  // depth 576: sums reach 2^25
        sp.p.x_type = xt, sp.p.w_type = wt, sp.seed = ++seed;
        sp.zx_value = high ? hi_of(xt == kI8) : lo_of(xt == kI8);
        sp.zw_value = high ? lo_of(wt == kI8) : hi_of(wt == kI8);
        sp.zw = Zp::per_channel;
        expect_exact(conv, sp, "extreme");
      }
  // Sums past 2^31 wrap: 40000 taps of (255 - 0) * (-128 - 127) = -65025 each (about -2.6e9).
  for (bool per_image_chunks : {false, true}) {
    Spec sp{layer(2, 40000, 2, 1, 2, 1, 1, 0)};
    sp.p.x_type = kU8, sp.p.w_type = kI8, sp.x_fill = 255, sp.w_fill = 0x80, sp.zx_value = 0, sp.zw_value = 127;
    sp.caller_scratch = per_image_chunks, sp.scratch_images = 1, sp.seed = 60;
    expect_exact(conv, sp, "wrap");
  }
}

TEST_P(ConvIntegerOnEveryBackend, GroupsBatchedOverImagesInChunks) {
  // More groups than images, a scalar w_zero: one product per image over the groups, in chunks of
  // one image through a caller's scratch and the family's own.
  Spec sp{layer(3, 8, 4, 5, 6, 3, 1, 1, 4)};
  sp.caller_scratch = true, sp.scratch_images = 1, sp.seed = 70;
  ConvInteger conv(device());
  expect_exact(conv, sp, "per image, caller's chunks");
  ConvInteger small(device(), ConvIntegerOptions{.max_scratch_bytes = conv.scratch_bytes(sp.p).per_image});
  sp.caller_scratch = false;
  expect_exact(small, sp, "per image, own chunks");
}

TEST_P(ConvIntegerOnEveryBackend, PaddingStridesDilations) {
  ConvInteger conv(device());
  uint32_t seed = 60;
  std::vector<std::pair<std::string, ConvIntegerProblem>> l;
  ConvIntegerProblem a = layer(2, 3, 5, 9, 8, 3);
  a.window.pads = {0, 2, 1, 0};  // asymmetric
  l.push_back({"asymmetric pads", a});
  ConvIntegerProblem b = layer(1, 4, 6, 10, 11, 3, 2);
  b.window.pads = {0, 0, 0, 0};
  b.auto_pad = AutoPad::same_upper;
  l.push_back({"same_upper s2", b});
  b.auto_pad = AutoPad::same_lower;
  l.push_back({"same_lower s2", b});
  b.auto_pad = AutoPad::valid;
  l.push_back({"valid s2", b});
  ConvIntegerProblem d = layer(2, 3, 4, 12, 13, 3, 1, 2);
  d.window.dilations = {2, 3};
  l.push_back({"dilated", d});
  ConvIntegerProblem s = layer(1, 5, 6, 11, 9, 5, 3, 2);
  s.window.strides = {3, 2};
  l.push_back({"5x5 strides 3,2", s});
  l.push_back({"1x1", layer(2, 17, 19, 5, 6, 1, 1, 0)});
  l.push_back({"large pad", layer(1, 2, 3, 3, 4, 3, 1, 3)});
  for (auto& [name, p] : l) {
    Spec sp{p};
    sp.p.x_type = kU8, sp.p.w_type = kI8, sp.zw = Zp::per_channel, sp.seed = ++seed;
    expect_exact(conv, sp, name);
  }
}

TEST_P(ConvIntegerOnEveryBackend, GroupsAndDepthwise) {
  ConvInteger conv(device());
  uint32_t seed = 80;
  for (Zp zw : {Zp::value, Zp::scalar, Zp::per_channel}) {
    for (int64_t batch : {1, 3}) {
      Spec g{layer(batch, 8, 12, 6, 5, 3, 1, -1, 4)};
      g.zw = zw, g.seed = ++seed;
      expect_exact(conv, g, "groups 4");
      Spec dw{layer(batch, 6, 12, 7, 7, 3, 2, 1, 6)};  // depthwise, channel multiplier 2
      dw.p.x_type = kI8, dw.p.w_type = kU8, dw.zw = zw, dw.zx = Zp::scalar, dw.seed = ++seed;
      expect_exact(conv, dw, "depthwise");
    }
  }
}

TEST_P(ConvIntegerOnEveryBackend, OneDimensionalBatchesAndOffsets) {
  ConvInteger conv(device());
  Spec a{frames(3, 7, 9, 41, 3, 2, 1)};
  a.p.x_offset = 3, a.p.w_offset = 5, a.p.y_offset = 7, a.seed = 101;
  expect_exact(conv, a, "1-D offsets");
  Spec b{layer(4, 6, 10, 5, 7, 3)};
  b.p.x_offset = 1, b.p.w_offset = 2, b.p.y_offset = 3, b.zw = Zp::per_channel, b.seed = 102;
  b.caller_scratch = true;
  expect_exact(conv, b, "2-D offsets, caller scratch");
}

TEST_P(ConvIntegerOnEveryBackend, PortableAndPackedDotProducts) {
  ConvInteger packed(device());
  ConvInteger portable(device(), {.product = {.allow_packed_dot = false}});
  ConvInteger big_tiles(device(), {.product = {.allow_matrix_hardware = false, .allow_packed_dot = false,
                                               .allow_small_tiles = false, .allow_skinny = false}});
  uint32_t seed = 120;
  for (const ConvIntegerProblem& p : {layer(2, 16, 40, 9, 9, 3), layer(1, 8, 8, 6, 6, 3, 1, -1, 2),
                                      layer(2, 12, 70, 10, 10, 3, 2)}) {
    Spec sp{p};
    sp.zw = Zp::per_channel, sp.seed = ++seed;
    const Outcome a = expect_exact(packed, sp, "packed"), b = expect_exact(portable, sp, "portable");
    const Outcome c = expect_exact(big_tiles, sp, "64x64 portable");
    EXPECT_EQ(a.y, b.y);
    EXPECT_EQ(a.y, c.y);
    EXPECT_EQ(b.variant.find("dot4"), std::string::npos) << b.variant;
    EXPECT_EQ(b.variant.rfind("conv_integer.unfold+integer_gemm.", 0), 0u) << b.variant;
  }
}

TEST_P(ConvIntegerOnEveryBackend, ChunkedCallsMatchTheWholeBatch) {
  ConvInteger whole(device());
  for (const ConvIntegerProblem& p : {layer(5, 6, 8, 7, 6, 3), layer(5, 8, 8, 6, 6, 3, 1, -1, 4)}) {
    const uint64_t per_image = whole.scratch_bytes(p).per_image;
    ConvInteger chunked(device(), {.max_scratch_bytes = 2 * per_image + 3});
    Spec sp{p};
    sp.zw = Zp::per_channel, sp.seed = 140;
    const Outcome a = expect_exact(whole, sp, "whole");
    const Outcome b = expect_exact(chunked, sp, "chunks of 2");
    EXPECT_EQ(a.y, b.y);
    Spec caller = sp;
    caller.caller_scratch = true, caller.scratch_images = 1;
    const Outcome c = expect_exact(whole, caller, "caller scratch of one image");
    EXPECT_EQ(a.y, c.y);
    sp.zw = Zp::scalar;
    const Outcome d = expect_exact(whole, sp, "whole, scalar w_zero");
    const Outcome e = expect_exact(chunked, sp, "chunks, scalar w_zero");
    EXPECT_EQ(d.y, e.y);
  }
}

TEST_P(ConvIntegerOnEveryBackend, WhisperAndResNetLikeLayers) {
  ConvInteger conv(device());
  Spec whisper{frames(1, 80, 64, 300, 3, 1, 1)};
  whisper.zw = Zp::per_channel, whisper.seed = 160;
  expect_exact(conv, whisper, "whisper stem 80->64 w300");
  Spec resnet{layer(2, 32, 32, 8, 8, 3)};
  resnet.zw = Zp::per_channel, resnet.seed = 161;
  expect_exact(conv, resnet, "resnet 3x3 32 8x8");
}

TEST_F(ConvIntegerTest, ErrorsBeforeRecording) {
  ConvInteger conv(device());
  auto x = device().create_buffer<uint8_t>(2 * 8 * 6 * 6);
  auto w = device().create_buffer<uint8_t>(12 * 8 * 9);
  auto y = device().create_buffer<int32_t>(2 * 12 * 6 * 6);
  auto zps = device().create_buffer<uint8_t>(8);
  auto scratch = device().create_buffer<uint8_t>(1024);
  const ConvIntegerProblem ok = layer(2, 8, 12, 6, 6, 3);
  const kernels::ConvIntegerTensors t{&x, &w, &y};
  auto argument = [&](const ConvIntegerProblem& p, const kernels::ConvIntegerTensors& ts,
                      const ConvIntegerZeroPoints& zp = {}) -> std::string {
    CommandEncoder e = device().begin_commands();
    try {
      conv.encode(e, p, zp, ts);
    } catch (const KernelShapeError& err) {
      EXPECT_EQ(std::string(err.operation()), "ConvInteger");
      EXPECT_EQ(e.dispatch_count(), 0u);
      return err.argument();
    }
    return "(nothing thrown)";
  };
  EXPECT_EQ(argument(layer(2, 8, 12, 6, 6, 3, 1, -1, 3), t), "groups");  // 3 does not divide 8
  EXPECT_EQ(argument(layer(2, 8, 12, 6, 6, 9, 1, 0), t), "kernel");       // larger than the padded input
  ConvIntegerProblem big = ok;
  big.batch = 3;
  EXPECT_EQ(argument(big, t), "x");
  ConvIntegerProblem off = ok;
  off.y_offset = 1;
  EXPECT_EQ(argument(off, t), "y");
  off = ok;
  off.w_offset = 1;
  EXPECT_EQ(argument(off, t), "w");
  auto shared = device().create_buffer<int32_t>(2 * 12 * 6 * 6 + 2 * 8 * 6 * 6);
  ConvIntegerProblem alias = ok;
  alias.y_offset = 100;
  EXPECT_EQ(argument(alias, {&shared, &w, &shared}), "y");  // overlaps x
  EXPECT_EQ(argument(ok, t, {.x = {.value = 256}}), "x_zero_point");
  ConvIntegerProblem signed_x = ok;
  signed_x.x_type = DataType::int8;
  EXPECT_EQ(argument(signed_x, t, {.x = {.value = 128}}), "x_zero_point");
  EXPECT_EQ(argument(ok, t, {.w = {.value = -129}}), "w_zero_point");
  EXPECT_EQ(argument(ok, t, {.x = {.buffer = &zps, .per_channel = true}}), "x_zero_point");
  EXPECT_EQ(argument(ok, t, {.w = {.buffer = &zps, .per_channel = true}}), "w_zero_point");  // 8 < 12
  EXPECT_EQ(argument(ok, t, {.x = {.buffer = &zps, .offset = 8}}), "x_zero_point");
  EXPECT_EQ(argument(ok, {&x, &w, &y, &scratch, 2}), "scratch");  // offset not a multiple of 4
  EXPECT_EQ(argument(ok, {&x, &w, &y, &scratch, 0}), "scratch");  // 1024 bytes < one image (72 x 36)
  EXPECT_EQ(argument(ok, {&x, &w, &y, &y, 0}), "scratch");        // overlaps y
  ConvIntegerProblem wrap = ok;
  wrap.in_channels = int64_t(1) << 40;
  EXPECT_EQ(argument(wrap, t), "in_channels");
  ConvIntegerProblem neg = ok;
  neg.window.strides = {0, 1};
  EXPECT_EQ(argument(neg, t), "strides");
  ConvIntegerProblem f = ok;
  f.x_type = DataType::float32;
  {
    CommandEncoder e = device().begin_commands();
    EXPECT_THROW(conv.encode(e, f, {}, t), UnsupportedError);
    EXPECT_EQ(e.dispatch_count(), 0u);
  }
  EXPECT_EQ(argument(ok, t), "(nothing thrown)");
}

TEST_P(ConvIntegerOnEveryBackend, EmptyBatchRecordsNothing) {
  ConvInteger conv(device());
  auto x = device().create_buffer<uint8_t>(4);
  auto w = device().create_buffer<uint8_t>(4 * 2 * 9 + 4);
  auto y = device().create_buffer<int32_t>(4);
  CommandEncoder e = device().begin_commands();
  conv.encode(e, layer(0, 2, 4, 5, 5, 3), {}, {&x, &w, &y});
  EXPECT_EQ(e.dispatch_count(), 0u);
}

// ONEGPU_CONV_FULL=1: the layers at their real sizes.
TEST_F(ConvIntegerTest, LargeLayerSets) {
  if (!full_sets()) GTEST_SKIP() << "set ONEGPU_CONV_FULL=1 for the full layer sets";
  std::vector<std::pair<std::string, ConvIntegerProblem>> l;
  l.push_back({"whisper stem 80->768", frames(1, 80, 768, 3000, 3, 1, 1)});
  l.push_back({"whisper 768 s2", frames(1, 768, 768, 3000, 3, 2, 1)});
  l.push_back({"resnet 3x3 64", layer(8, 64, 64, 56, 56, 3)});
  l.push_back({"resnet 3x3 128", layer(8, 128, 128, 28, 28, 3)});
  l.push_back({"resnet 3x3 256", layer(8, 256, 256, 14, 14, 3)});
  l.push_back({"resnet 3x3 512", layer(8, 512, 512, 7, 7, 3)});
  ConvInteger conv(device());
  uint32_t seed = 200;
  for (auto& [name, p] : l) {
    Spec sp{p};
    sp.zw = Zp::per_channel, sp.seed = ++seed;
    expect_exact(conv, sp, name);
  }
}

}  // namespace
}  // namespace onegpu::testing
