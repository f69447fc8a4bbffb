// Conv and ConvTranspose against a float64 reference: small versions of the model layer sets, edge
// shapes, every variant forced, both modes, the fused epilogue, split k, chunks of images,
// determinism, sentinels around the output and argument checks. ONEGPU_CONV_FULL=1 adds the full
// layer sets (ResNet-50, MobileNetV3-large, DBNet, the Whisper stems) at batch 1 and 8.
#include "onegpu/kernels/conv.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>

#include "kernels/tensor_helpers.h"
#include "reference/conv_reference.h"
#include "reference/reference.h"
#include "support/device_fixture.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using kernels::AutoPad;
using kernels::Conv;
using kernels::ConvOptions;
using kernels::ConvProblem;
using kernels::ConvTensors;
using kernels::ConvTransposeProblem;
using kernels::ConvVariant;
using kernels::KernelMode;
using kernels::UnaryFunction;
using kernels::UnaryOp;
using kernels::Window;

constexpr DataType kTypes[] = {DataType::float32, DataType::float16};
constexpr float kUntouched = -12345.5f;

bool full_sets() {
  const char* v = std::getenv("ONEGPU_CONV_FULL");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

ConvProblem layer(int64_t batch, int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t k, int64_t stride = 1,
                  int64_t pad = -1, int64_t groups = 1, int64_t dilation = 1) {
  ConvProblem p;
  p.batch = batch, p.in_channels = cin, p.out_channels = cout, p.input = {h, w}, p.groups = groups;
  const int64_t pd = pad < 0 ? (k - 1) * dilation / 2 : pad;
  p.window = Window{{k, k}, {stride, stride}, {dilation, dilation}, {pd, pd, pd, pd}};
  return p;
}

// A 1-D convolution (height 1) over `length` frames.
ConvProblem frames(int64_t batch, int64_t cin, int64_t cout, int64_t length, int64_t k, int64_t stride, int64_t pad) {
  ConvProblem p;
  p.batch = batch, p.in_channels = cin, p.out_channels = cout, p.input = {1, length};
  p.window = Window{{1, k}, {1, stride}, {1, 1}, {0, pad, 0, pad}};
  return p;
}

struct Outcome {
  std::vector<float> y;  // the output elements
  double error = 0;
  bool untouched_ok = true;
  std::string variant;
};

// Offsets of every tensor inside its buffer (odd, so float16 tensors start inside words).
struct Offsets {
  uint64_t x = 3, w = 5, bias = 1, residual = 7, y = 9;
};

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class ConvFixture : public Base {
 protected:
  template <class Problem>
  Outcome run(Conv& conv, Problem p, uint32_t seed, const Offsets& off = {}, const Buffer<float>* scratch = nullptr,
              uint64_t scratch_offset = 0) {
    constexpr bool transposed = std::is_same_v<Problem, ConvTransposeProblem>;
    const DataType t = conv.element_type();
    p.x_offset = off.x, p.w_offset = off.w, p.bias_offset = off.bias, p.residual_offset = off.residual;
    p.y_offset = off.y;
    const kernels::Extent2 out = p.output();
    const kernels::Window win = [&] {
      if constexpr (transposed) return p.resolved_window();
      else return kernels::resolve_auto_pad(p.window, p.auto_pad, p.input);
    }();
    const uint64_t nx = uint64_t(p.batch * p.in_channels * p.input[0] * p.input[1]);
    const uint64_t w_rows = uint64_t(transposed ? p.in_channels : p.out_channels);
    const uint64_t w_cols = uint64_t(transposed ? p.out_channels / p.groups : p.in_channels / p.groups);
    const uint64_t nw = w_rows * w_cols * uint64_t(win.kernel[0] * win.kernel[1]);
    const uint64_t ny = uint64_t(p.batch * p.out_channels * out[0] * out[1]);
    auto values = [&](uint64_t n, uint32_t s, float scale) {
      auto v = random_floats(std::max<uint64_t>(n, 1), s, -scale, scale);
      for (auto& x : v) x = reference::round_to(t, x);
      return v;
    };
    const auto x = values(nx, seed, 1.0f), w = values(nw, seed + 1, 1.0f);
    const auto bias = values(uint64_t(p.out_channels), seed + 2, 0.5f), res = values(ny, seed + 3, 0.5f);
    auto padded = [&](const std::vector<float>& v, uint64_t offset) {
      std::vector<float> b(offset + v.size() + 3, 0.25f);
      std::copy(v.begin(), v.end(), b.begin() + int64_t(offset));
      return b;
    };
    Device& d = this->device();
    RawBuffer bx = upload_tensor(d, t, padded(x, off.x)), bw = upload_tensor(d, t, padded(w, off.w));
    RawBuffer bb = upload_tensor(d, t, padded(bias, off.bias)), br = upload_tensor(d, t, padded(res, off.residual));
    RawBuffer by = upload_tensor(d, t, std::vector<float>(off.y + ny + 3, kUntouched));
    ConvTensors tensors{&bx, &bw, p.bias ? &bb : nullptr, p.residual ? &br : nullptr, &by, scratch, scratch_offset};
    CommandEncoder e = d.begin_commands();
    conv.encode(e, p, tensors);
    d.submit(e);
    const std::vector<float> all = read_tensor(t, by, off.y + ny + 3);
    Outcome o;
    o.variant = conv.variant(p);
    o.y.assign(all.begin() + int64_t(off.y), all.begin() + int64_t(off.y + ny));
    const float sentinel = reference::round_to(t, kUntouched);
    for (uint64_t i = 0; i < all.size(); ++i)
      if ((i < off.y || i >= off.y + ny) && all[i] != sentinel) o.untouched_ok = false;
    const std::vector<double> dx(x.begin(), x.begin() + int64_t(nx)), dw(w.begin(), w.begin() + int64_t(nw));
    const std::vector<double> db(bias.begin(), bias.end()), dr(res.begin(), res.begin() + int64_t(ny));
    std::vector<double> ref;
    std::vector<float> got = o.y;
    if constexpr (!transposed) {
      // Large layers: the reference at 4096 sampled outputs (a float64 CPU sum over every output would
      // take minutes).
      if (ny * uint64_t(w_cols) * uint64_t(win.kernel[0] * win.kernel[1]) > (uint64_t(1) << 28)) {
        std::vector<size_t> at(4096);
        std::mt19937_64 pick(seed);
        for (auto& i : at) i = size_t(pick() % ny);
        got.clear();
        for (size_t i : at) got.push_back(o.y[i]);
        ref = reference::conv_at(p, dx, dw, p.bias ? std::span<const double>(db) : std::span<const double>(),
                                 p.residual ? std::span<const double>(dr) : std::span<const double>(), at);
        o.error = reference::scaled_error(got, ref);
        return o;
      }
    }
    if constexpr (transposed)
      ref = reference::conv_transpose(p, dx, dw, p.bias ? std::span<const double>(db) : std::span<const double>(),
                                      p.residual ? std::span<const double>(dr) : std::span<const double>());
    else
      ref = reference::conv(p, dx, dw, p.bias ? std::span<const double>(db) : std::span<const double>(),
                            p.residual ? std::span<const double>(dr) : std::span<const double>());
    o.error = reference::scaled_error(o.y, ref);
    return o;
  }

  template <class Problem>
  void expect_close(Conv& conv, const Problem& p, const std::string& what, uint32_t seed = 7, const Offsets& off = {}) {
    const Outcome o = run(conv, p, seed, off);
    EXPECT_LE(o.error, reference::Tolerance::of(conv.element_type()))
        << what << " " << o.variant << " " << data_type_name(conv.element_type());
    EXPECT_TRUE(o.untouched_ok) << what << " " << o.variant << " " << data_type_name(conv.element_type())
                                << ": an element outside the output changed";
  }

  // Whether a forced unfold runs here: its products read and write the scratch in one dispatch,
  // which a device without aliased_writable_bindings (WebGPU) refuses. Where it does not, the
  // forced variant must throw UnsupportedError naming that capability, before recording.
  bool unfold_runs(Conv& conv, const ConvProblem& p) {
    if (this->device().capabilities().aliased_writable_bindings) return true;
    try {
      (void)conv.variant(p);
      ADD_FAILURE() << "a forced unfold was accepted without aliased_writable_bindings";
    } catch (const UnsupportedError& e) {
      EXPECT_NE(std::string(e.what()).find("aliased_writable_bindings"), std::string::npos) << e.what();
    }
    return false;
  }
};

using ConvTest = ConvFixture<DeviceTest>;
// On every backend with the same references, tolerances, sentinels and bit checks.
using ConvOnEveryBackend = ConvFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, ConvOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);


// Small versions of the layer classes the models use, with the edge shapes.
std::vector<std::pair<std::string, ConvProblem>> small_layers() {
  std::vector<std::pair<std::string, ConvProblem>> l;
  l.push_back({"3x3 s1", layer(2, 16, 24, 9, 9, 3)});
  l.push_back({"3x3 s2", layer(2, 12, 20, 9, 10, 3, 2)});
  l.push_back({"1x1 s1", layer(2, 24, 40, 7, 7, 1, 1, 0)});
  l.push_back({"1x1 s2", layer(1, 16, 32, 9, 9, 1, 2, 0)});
  l.push_back({"stem 7x7 s2", layer(1, 3, 16, 20, 20, 7, 2, 3)});
  l.push_back({"depthwise 3x3", layer(2, 12, 12, 8, 8, 3, 1, -1, 12)});
  l.push_back({"depthwise 5x5 s2 x2", layer(1, 6, 12, 11, 11, 5, 2, -1, 6)});
  l.push_back({"grouped 3x3", layer(1, 12, 8, 6, 6, 3, 1, -1, 4)});
  l.push_back({"dilated 3x3 s2", layer(1, 8, 8, 13, 13, 3, 2, 2, 1, 2)});
  l.push_back({"1x1 image", layer(3, 8, 8, 1, 1, 3, 1, 1)});
  l.push_back({"kernel past the input", layer(1, 4, 6, 3, 2, 5, 1, 2)});
  ConvProblem asym = layer(1, 6, 10, 7, 8, 3);
  asym.window.pads = {0, 2, 1, 0};
  l.push_back({"asymmetric pads", asym});
  ConvProblem same = layer(1, 6, 6, 7, 9, 4, 2, 0);
  same.auto_pad = AutoPad::same_lower;
  l.push_back({"auto_pad same_lower", same});
  l.push_back({"1-D k3", frames(1, 8, 16, 50, 3, 1, 1)});
  l.push_back({"1-D k3 s2", frames(2, 16, 16, 25, 3, 2, 1)});
  return l;
}

std::vector<ConvVariant> variants_for(const ConvProblem& p) {
  std::vector<ConvVariant> v{ConvVariant::automatic, ConvVariant::implicit, ConvVariant::unfold};
  const bool one = p.window.kernel == kernels::Extent2{1, 1} && p.window.strides == kernels::Extent2{1, 1} &&
                   p.window.pads == std::array<int64_t, 4>{0, 0, 0, 0};
  if (one) v.push_back(ConvVariant::pointwise);
  if (p.in_channels == p.groups) v.push_back(ConvVariant::direct);
  return v;
}

TEST_P(ConvOnEveryBackend, LayersEveryVariantBothModes) {
  for (DataType t : kTypes)
    for (KernelMode mode : {KernelMode::fast, KernelMode::deterministic})
      for (ConvVariant v : {ConvVariant::automatic, ConvVariant::implicit, ConvVariant::unfold, ConvVariant::pointwise,
                            ConvVariant::direct}) {
        if (mode == KernelMode::deterministic && v != ConvVariant::automatic && v != ConvVariant::implicit) continue;
        Conv conv(device(), t, {.mode = mode, .variant = v});
        for (auto& [name, p] : small_layers()) {
          const auto list = variants_for(p);
          if (std::find(list.begin(), list.end(), v) == list.end()) continue;
          if (v == ConvVariant::unfold && !unfold_runs(conv, p)) continue;
          expect_close(conv, p, name);
        }
      }
}

TEST_P(ConvOnEveryBackend, FusedEpilogueEveryPath) {
  const UnaryFunction acts[] = {{UnaryOp::relu}, {UnaryOp::silu}, {UnaryOp::clip, {-0.3f, 0.4f}},
                                {UnaryOp::leaky_relu, {0.1f, 0.0f}}, {UnaryOp::hard_swish}};
  for (DataType t : kTypes)
    for (ConvVariant v : {ConvVariant::implicit, ConvVariant::unfold, ConvVariant::pointwise, ConvVariant::direct}) {
      Conv conv(device(), t, {.variant = v});
      ConvProblem p = v == ConvVariant::pointwise ? layer(2, 16, 12, 5, 6, 1, 1, 0)
                      : v == ConvVariant::direct  ? layer(2, 8, 16, 6, 5, 3, 1, -1, 8)
                                                  : layer(2, 8, 12, 6, 5, 3);
      if (v == ConvVariant::unfold && !unfold_runs(conv, p)) continue;
      int i = 0;
      for (const UnaryFunction& f : acts) {
        p.bias = i % 2 == 0;
        p.residual = i % 3 != 1;
        p.activation = f;
        expect_close(conv, p, std::string("epilogue ") + kernels::unary_op_name(f.op), uint32_t(11 + i));
        ++i;
      }
    }
}

TEST_P(ConvOnEveryBackend, SplitKMatchesAndIsDeterministic) {
  // A 7 x 7 image with 64 input channels: one tile of pixels, k = 576, so the implicit kernel splits.
  ConvProblem p = layer(1, 64, 48, 7, 7, 3);
  p.bias = true, p.residual = true, p.activation = {UnaryOp::relu};
  for (DataType t : kTypes) {
    Conv conv(device(), t, {.mode = KernelMode::deterministic, .variant = ConvVariant::implicit});
    EXPECT_NE(conv.variant(p).find("splitk"), std::string::npos) << conv.variant(p);
    const Outcome a = run(conv, p, 21), b = run(conv, p, 21);
    EXPECT_LE(a.error, reference::Tolerance::of(t));
    EXPECT_TRUE(a.untouched_ok);
    EXPECT_TRUE(same_bits(a.y, b.y)) << "two runs differ";
  }
}

TEST_P(ConvOnEveryBackend, ChunkedBatchGivesTheWholeBatchBits) {
  for (DataType t : kTypes)
    for (ConvVariant v : {ConvVariant::implicit, ConvVariant::unfold, ConvVariant::pointwise}) {
      Conv conv(device(), t, {.variant = v});
      ConvProblem p = v == ConvVariant::pointwise ? layer(5, 24, 16, 6, 6, 1, 1, 0) : layer(5, 32, 16, 6, 6, 3);
      if (t == DataType::float32 && v == ConvVariant::implicit) p.activation = {UnaryOp::silu};  // split k scratch
      if (v == ConvVariant::unfold && !unfold_runs(conv, p)) continue;
      const kernels::ConvScratch need = conv.scratch(p);
      if (need.per_image == 0) continue;
      auto whole = device().create_buffer<float>(need.whole_batch + 10);
      auto small = device().create_buffer<float>(2 * need.per_image + 1 + 4);  // two images a chunk (offset 4)
      const Outcome a = run(conv, p, 31, {}, &whole, 10), b = run(conv, p, 31, {}, &small, 4);
      EXPECT_LE(a.error, reference::Tolerance::of(t)) << a.variant;
      EXPECT_TRUE(same_bits(a.y, b.y)) << a.variant << " " << data_type_name(t) << ": chunks changed bits";
      const Outcome c = run(conv, p, 31);  // the family's own scratch
      EXPECT_TRUE(same_bits(a.y, c.y)) << a.variant;
    }
}

std::vector<std::pair<std::string, kernels::ConvTransposeProblem>> phase_shapes();

// The float16 implicit GEMM on cooperative matrices, every tile forced: the small layers (odd
// offsets: the epilogue pass finishes), the fused store (even y offset and pixel count) with
// bias, residual and activation, split k, a 64-channel layer of many tiles, two runs bit for bit.
TEST_F(ConvTest, ImplicitMatrixEveryTile) {
  {
    Conv probe(device(), DataType::float16, {.variant = ConvVariant::implicit_matrix});
    try {
      (void)probe.variant(layer(1, 8, 8, 4, 4, 3));
    } catch (const UnsupportedError&) {
      GTEST_SKIP() << "needs 16 x 16 x 16 float16 cooperative matrices with subgroups of 32 (runs on the H200, "
                      "not on lavapipe)";
    }
  }
  const Offsets even{.x = 3, .w = 5, .bias = 1, .residual = 7, .y = 10};
  for (int tile = 0; tile < 4; ++tile) {
    const std::string tile_text = std::to_string(tile);
    ::setenv("ONEGPU_CONV_COOPMAT_TILE", tile_text.c_str(), 1);
    Conv conv(device(), DataType::float16, {.variant = ConvVariant::implicit_matrix});
    ::unsetenv("ONEGPU_CONV_COOPMAT_TILE");
    for (auto& [name, p] : small_layers()) expect_close(conv, p, name + " tile " + tile_text);
    ConvProblem fused = layer(2, 24, 40, 9, 8, 3);
    fused.bias = true, fused.residual = true, fused.activation = {UnaryOp::silu};
    EXPECT_EQ(conv.variant(fused).find("splitk"), std::string::npos) << conv.variant(fused);
    expect_close(conv, fused, "fused store tile " + tile_text, 61, even);
    ConvProblem split = layer(1, 64, 48, 7, 7, 3);
    split.bias = true, split.residual = true, split.activation = {UnaryOp::relu};
    EXPECT_NE(conv.variant(split).find("splitk"), std::string::npos) << conv.variant(split);
    expect_close(conv, split, "split k tile " + tile_text, 62, even);
    ConvProblem wide = layer(2, 64, 64, 30, 30, 3);  // 14 column tiles or more
    wide.bias = true, wide.activation = {UnaryOp::relu};
    const Outcome a = run(conv, wide, 63, even), b = run(conv, wide, 63, even);
    EXPECT_LE(a.error, reference::Tolerance::of(DataType::float16)) << a.variant;
    EXPECT_TRUE(a.untouched_ok) << a.variant;
    EXPECT_TRUE(same_bits(a.y, b.y)) << a.variant << ": two runs differ";
    ConvProblem stem = layer(2, 3, 16, 30, 30, 7, 2, 3);  // k = 147: weights rows start inside words
    expect_close(conv, stem, "stem tile " + tile_text, 64, even);
    // ConvTranspose phases on this tile (forcing implicit_matrix picks them).
    for (auto& [name, p] : phase_shapes()) {
      p.bias = true, p.activation = {UnaryOp::relu};
      EXPECT_NE(conv.variant(p).find("conv.transpose.phases.implicit_coopmat"), std::string::npos) << conv.variant(p);
      expect_close(conv, p, name + " tile " + tile_text, 65, even);
    }
  }
}

TEST_P(ConvOnEveryBackend, TransposeShapes) {
  std::vector<std::pair<std::string, ConvTransposeProblem>> list;
  ConvTransposeProblem up;  // 4x4 stride 2 pad 1 doubles the image
  up.batch = 2, up.in_channels = 8, up.out_channels = 6, up.input = {5, 6};
  up.window = Window{{4, 4}, {2, 2}, {1, 1}, {1, 1, 1, 1}};
  list.push_back({"4x4 s2", up});
  ConvTransposeProblem g = up;
  g.groups = 2, g.out_channels = 4, g.window = Window{{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}}, g.output_padding = {1, 1};
  list.push_back({"groups, output_padding", g});
  ConvTransposeProblem shape = up;
  shape.window = Window{{3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}}, shape.output_shape = kernels::Extent2{10, 11};
  shape.auto_pad = AutoPad::same_upper;
  list.push_back({"output_shape", shape});
  ConvTransposeProblem dil = up;
  dil.window = Window{{3, 2}, {1, 3}, {2, 1}, {0, 1, 2, 0}};
  list.push_back({"dilation, asymmetric", dil});
  ConvTransposeProblem one = up;
  one.batch = 1, one.input = {1, 1}, one.window = Window{{3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}};
  list.push_back({"1x1 image", one});
  for (DataType t : kTypes)
    for (KernelMode mode : {KernelMode::fast, KernelMode::deterministic}) {
      Conv conv(device(), t, {.mode = mode});
      int i = 0;
      for (auto& [name, p] : list) {
        p.bias = i % 2 == 1, p.residual = i % 2 == 0, p.activation = i == 2 ? UnaryFunction{UnaryOp::tanh} : UnaryFunction{};
        expect_close(conv, p, name, uint32_t(41 + i));
        ++i;
      }
    }
}

// A ConvTranspose: kernel, strides, pads {h begin, w begin, h end, w end}, output_padding, groups.
ConvTransposeProblem transposed(int64_t batch, int64_t cin, int64_t cout, kernels::Extent2 input, kernels::Extent2 kernel,
                                kernels::Extent2 strides, std::array<int64_t, 4> pads,
                                kernels::Extent2 output_padding = {0, 0}, int64_t groups = 1) {
  ConvTransposeProblem p;
  p.batch = batch, p.in_channels = cin, p.out_channels = cout, p.input = input, p.groups = groups;
  p.window = Window{kernel, strides, {1, 1}, pads};
  p.output_padding = output_padding;
  return p;
}

// Shapes for the phase convolutions: strides against kernels (phases without taps), pads that put a
// phase's first output before the input (negative pads of the phase), output_padding, groups, a
// split k, one phase (stride 1), asymmetric windows.
std::vector<std::pair<std::string, ConvTransposeProblem>> phase_shapes() {
  std::vector<std::pair<std::string, ConvTransposeProblem>> l;
  l.push_back({"4x4 s2 p1", transposed(2, 8, 6, {5, 6}, {4, 4}, {2, 2}, {1, 1, 1, 1})});
  l.push_back({"3x3 s2 p1 op1 groups 2", transposed(1, 8, 4, {4, 5}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 2)});
  l.push_back({"5x5 s3 p2 op(2,1)", transposed(1, 4, 5, {4, 5}, {5, 5}, {3, 3}, {2, 2, 2, 2}, {2, 1})});
  l.push_back({"2x2 s3 (a phase without taps) op1", transposed(2, 3, 4, {4, 3}, {2, 2}, {3, 3}, {0, 0, 0, 0}, {1, 1})});
  l.push_back({"4x4 s2 p3 (negative phase pad)", transposed(1, 5, 3, {6, 7}, {4, 4}, {2, 2}, {3, 3, 3, 3})});
  l.push_back({"3x4 s(1,2) asymmetric pads", transposed(1, 6, 7, {5, 4}, {3, 4}, {1, 2}, {0, 1, 2, 0})});
  l.push_back({"3x3 s1 p1 (one phase)", transposed(2, 6, 5, {5, 5}, {3, 3}, {1, 1}, {1, 1, 1, 1})});
  l.push_back({"1x1 s2 (phases of bias only)", transposed(1, 4, 6, {3, 4}, {1, 1}, {2, 2}, {0, 0, 0, 0}, {1, 1})});
  l.push_back({"3x3 s2 p4 (pads past the kernel)", transposed(1, 4, 4, {6, 6}, {3, 3}, {2, 2}, {4, 4, 4, 4})});
  l.push_back({"3x3 s2 groups = in channels", transposed(2, 4, 8, {4, 4}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 4)});
  l.push_back({"8x8 s4 p2", transposed(1, 6, 4, {3, 4}, {8, 8}, {4, 4}, {2, 2, 2, 2})});
  l.push_back({"4x4 s2 p1 k split", transposed(1, 128, 8, {3, 3}, {4, 4}, {2, 2}, {1, 1, 1, 1})});
  l.push_back({"1-D k4 s2", transposed(2, 6, 4, {1, 9}, {1, 4}, {1, 2}, {0, 1, 0, 1})});
  return l;
}

// Every phase shape against the float64 reference through the phases (automatic, forced, and on
// the portable kernel for float16 where automatic takes the matrix one) and col2im, both types and modes, with bias, residual and activations in turn, sentinels around y.
TEST_P(ConvOnEveryBackend, TransposePhasesEveryShape) {
  for (DataType t : kTypes)
    for (KernelMode mode : {KernelMode::fast, KernelMode::deterministic})
      for (ConvVariant v : {ConvVariant::automatic, ConvVariant::phases, ConvVariant::implicit, ConvVariant::col2im}) {
        Conv conv(device(), t, {.mode = mode, .variant = v});
        int i = 0;
        for (auto& [name, p] : phase_shapes()) {
          p.bias = i % 2 == 0, p.residual = i % 3 == 1;
          p.activation = i % 4 == 2 ? UnaryFunction{UnaryOp::tanh} : i % 4 == 3 ? UnaryFunction{UnaryOp::relu}
                                                                                : UnaryFunction{};
          const std::string variant = conv.variant(p);
          EXPECT_EQ(variant.find("conv.transpose.phases") != std::string::npos, v != ConvVariant::col2im)
              << name << ": " << variant;
          if (name.find("k split") != std::string::npos && v != ConvVariant::col2im &&
              variant.find("implicit_coopmat") == std::string::npos) {
            EXPECT_NE(variant.find("splitk"), std::string::npos) << variant;
          }
          expect_close(conv, p, name + " (" + kernels::conv_variant_name(v) + ")", uint32_t(61 + i));
          ++i;
        }
      }
}

// The phases and col2im agree with each other; two runs and a batch in chunks give the same bits.
TEST_P(ConvOnEveryBackend, TransposePhasesAreDeterministic) {
  for (DataType t : kTypes) {
    Conv phases(device(), t, {.variant = ConvVariant::phases});
    Conv col2im(device(), t, {.variant = ConvVariant::col2im});
    for (ConvTransposeProblem p : {transposed(5, 16, 12, {6, 5}, {4, 4}, {2, 2}, {1, 1, 1, 1}),
                                   transposed(4, 128, 8, {3, 3}, {4, 4}, {2, 2}, {1, 1, 1, 1}),
                                   transposed(3, 6, 9, {4, 4}, {3, 3}, {3, 2}, {1, 0, 0, 1}, {1, 1}, 3)}) {
      p.bias = true, p.residual = true, p.activation = {UnaryOp::silu};
      const kernels::ConvScratch need = phases.scratch(p);
      ASSERT_GT(need.per_image, 0u);
      auto whole = device().create_buffer<float>(need.whole_batch + 10);
      // Two chunks where the sums grow with the images (float32 without split k keeps only weights).
      auto small = device().create_buffer<float>(need.whole_batch - (need.whole_batch > need.per_image ? 1 : 0) + 4);
      const Outcome a = run(phases, p, 71, {}, &whole, 10), b = run(phases, p, 71, {}, &small, 4);
      const Outcome c = run(phases, p, 71), d = run(col2im, p, 71);
      EXPECT_LE(a.error, reference::Tolerance::of(t)) << a.variant;
      EXPECT_LE(d.error, reference::Tolerance::of(t)) << d.variant;
      EXPECT_TRUE(a.untouched_ok && b.untouched_ok && c.untouched_ok) << a.variant;
      EXPECT_TRUE(same_bits(a.y, b.y)) << a.variant << " " << data_type_name(t) << ": chunks changed bits";
      EXPECT_TRUE(same_bits(a.y, c.y)) << a.variant << " " << data_type_name(t) << ": two runs differ";
    }
  }
}

// Dilation leaves the phases: automatic takes col2im, a forced phases throws before recording.
TEST_P(ConvOnEveryBackend, TransposePhasesNeedDilationOne) {
  ConvTransposeProblem p = transposed(1, 4, 4, {4, 4}, {3, 3}, {2, 2}, {1, 1, 1, 1});
  p.window.dilations = {2, 1};
  for (DataType t : kTypes) {
    Conv automatic(device(), t);
    EXPECT_EQ(automatic.variant(p).rfind("conv.transpose [", 0), 0u) << automatic.variant(p);
    expect_close(automatic, p, "dilated");
    Conv phases(device(), t, {.variant = ConvVariant::phases});
    auto x = device().create_buffer<float>(64), w = device().create_buffer<float>(256), y = device().create_buffer<float>(512);
    CommandEncoder e = device().begin_commands();
    EXPECT_THROW(phases.encode(e, p, {&x, &w, nullptr, nullptr, &y}), UnsupportedError);
    EXPECT_EQ(e.dispatch_count(), 0u);
  }
  Conv conv(device(), DataType::float32, {.variant = ConvVariant::col2im});
  EXPECT_THROW((void)conv.variant(layer(1, 4, 4, 5, 5, 3)), UnsupportedError);
}

// The float32 implicit kernel's two tiles (64 x 64, 64 x 128) forced in turn on the small layers,
// with the fused epilogue and split k.
TEST_P(ConvOnEveryBackend, ImplicitBothTileWidths) {
  for (const char* wide : {"0", "1"}) {
    ::setenv("ONEGPU_CONV_IMPLICIT_WIDE", wide, 1);
    Conv conv(device(), DataType::float32, {.mode = KernelMode::deterministic, .variant = ConvVariant::implicit});
    ::unsetenv("ONEGPU_CONV_IMPLICIT_WIDE");
    const bool is_wide = std::string(wide) == "1";
    for (auto& [name, p] : small_layers()) {
      if (p.in_channels == p.groups) continue;  // depthwise: direct
      EXPECT_EQ(conv.variant(p).find(".wide") != std::string::npos, is_wide) << conv.variant(p);
      expect_close(conv, p, name + (is_wide ? " wide" : " narrow"));
    }
    ConvProblem split = layer(1, 64, 48, 7, 7, 3);
    split.bias = true, split.residual = true, split.activation = {UnaryOp::silu};
    EXPECT_NE(conv.variant(split).find("splitk"), std::string::npos) << conv.variant(split);
    expect_close(conv, split, std::string("split k ") + wide, 23);
  }
}

// Winograd F(2x2, 3x3), forced: edge shapes (odd and 1 x 1 outputs, no padding, asymmetric pads,
// a window past the input), the fused epilogue, chunks of images bit for bit, two runs bit for bit;
// float16 and other windows refused.
TEST_P(ConvOnEveryBackend, WinogradShapesEpilogueChunksAndRepeats) {
  std::vector<std::pair<std::string, ConvProblem>> shapes = {
      {"3x3 s1", layer(2, 16, 24, 9, 9, 3)},     {"odd extents", layer(2, 40, 36, 13, 11, 3)},
      {"no padding", layer(1, 8, 8, 7, 6, 3, 1, 0)}, {"1x1 image", layer(3, 8, 8, 1, 1, 3, 1, 1)},
      {"pads past the input", layer(1, 5, 7, 2, 3, 3, 1, 2)},
      {"several row and column tiles", layer(2, 20, 70, 30, 18, 3)}};
  ConvProblem asym = layer(1, 6, 10, 7, 8, 3);
  asym.window.pads = {0, 2, 1, 0};
  shapes.push_back({"asymmetric pads", asym});
  for (KernelMode mode : {KernelMode::fast, KernelMode::deterministic}) {
    Conv conv(device(), DataType::float32, {.mode = mode, .variant = ConvVariant::winograd});
    int i = 0;
    for (auto [name, p] : shapes) {
      p.bias = i % 2 == 0, p.residual = i % 3 != 2;
      p.activation = i % 2 == 0 ? UnaryFunction{UnaryOp::silu} : UnaryFunction{UnaryOp::clip, {-0.3f, 0.4f}};
      ++i;
      EXPECT_EQ(conv.variant(p), "conv.winograd");
      const Outcome a = run(conv, p, 61), b = run(conv, p, 61);
      EXPECT_LE(a.error, reference::Tolerance::of(DataType::float32)) << name << " " << a.variant;
      EXPECT_TRUE(a.untouched_ok) << name << ": an element outside the output changed";
      EXPECT_TRUE(same_bits(a.y, b.y)) << name << ": two runs differ";
    }
    ConvProblem p = layer(5, 24, 20, 10, 9, 3);
    p.bias = true, p.activation = {UnaryOp::relu};
    const kernels::ConvScratch need = conv.scratch(p);
    ASSERT_GT(need.per_image, 0u);
    auto whole = device().create_buffer<float>(need.whole_batch + 10);
    auto small = device().create_buffer<float>(2 * need.per_image + 1 + 4);  // two images a chunk (offset 4)
    const Outcome a = run(conv, p, 63, {}, &whole, 10), b = run(conv, p, 63, {}, &small, 4);
    EXPECT_LE(a.error, reference::Tolerance::of(DataType::float32));
    EXPECT_TRUE(same_bits(a.y, b.y)) << "chunks changed bits";
  }
  // The automatic choice on a layer of many tiles.
  Conv automatic(device(), DataType::float32);
  EXPECT_EQ(automatic.variant(layer(8, 16, 16, 24, 24, 3)).rfind("conv.winograd", 0), 0u);
  expect_close(automatic, layer(8, 16, 16, 24, 24, 3), "automatic winograd");
  // Refused: float16, a 5 x 5 window, stride 2, groups.
  Conv half(device(), DataType::float16, {.variant = ConvVariant::winograd});
  EXPECT_THROW((void)half.variant(layer(1, 8, 8, 6, 6, 3)), UnsupportedError);
  Conv forced(device(), DataType::float32, {.variant = ConvVariant::winograd});
  EXPECT_THROW((void)forced.variant(layer(1, 8, 8, 6, 6, 5)), UnsupportedError);
  EXPECT_THROW((void)forced.variant(layer(1, 8, 8, 6, 6, 3, 2)), UnsupportedError);
  EXPECT_THROW((void)forced.variant(layer(1, 8, 8, 6, 6, 3, 1, -1, 2)), UnsupportedError);
}

TEST_P(ConvOnEveryBackend, TwoRunsAreBitIdentical) {
  for (DataType t : kTypes)
    for (KernelMode mode : {KernelMode::fast, KernelMode::deterministic}) {
      Conv conv(device(), t, {.mode = mode});
      for (const ConvProblem& p : {layer(2, 16, 24, 9, 9, 3), layer(2, 24, 40, 7, 7, 1, 1, 0),
                                   layer(2, 12, 12, 8, 8, 3, 1, -1, 12), layer(1, 64, 48, 7, 7, 3)}) {
        const Outcome a = run(conv, p, 51), b = run(conv, p, 51);
        EXPECT_TRUE(same_bits(a.y, b.y)) << a.variant;
      }
    }
}

// Where writable bindings may not alias (WebGPU), an input or the scratch in y's buffer, or an
// input in the scratch's buffer, is refused with UnsupportedError before recording even when the
// ranges are disjoint; automatic never takes unfold there. Elsewhere the same calls run.
TEST_P(ConvOnEveryBackend, SeparateBuffersWhereBindingsMayNotAlias) {
  const bool aliasing = device().capabilities().aliased_writable_bindings;
  Conv conv(device(), DataType::float32, {.variant = ConvVariant::implicit});
  const ConvProblem p = layer(1, 8, 12, 6, 6, 3);
  const uint64_t nx = 8 * 6 * 6, nw = 12 * 8 * 9, ny = 12 * 6 * 6;
  auto x = device().create_buffer<float>(nx), w = device().create_buffer<float>(nw);
  auto y = device().create_buffer<float>(ny);
  auto x_and_y = device().create_buffer<float>(nx + ny);  // x first, y after it
  auto refused = [&](const ConvProblem& q, const ConvTensors& t) {
    CommandEncoder e = device().begin_commands();
    try {
      conv.encode(e, q, t);
    } catch (const UnsupportedError& err) {
      EXPECT_NE(std::string(err.what()).find("aliased_writable_bindings"), std::string::npos) << err.what();
      EXPECT_EQ(e.dispatch_count(), 0u);
      return true;
    }
    device().submit(e);
    return false;
  };
  ConvProblem shared = p;
  shared.y_offset = nx;
  EXPECT_EQ(refused(shared, {&x_and_y, &w, nullptr, nullptr, &x_and_y}), !aliasing);
  ConvProblem split = layer(1, 64, 48, 7, 7, 3);  // split k: the sums in the scratch
  split.y_offset = 0;
  auto xs = device().create_buffer<float>(64 * 49), ws = device().create_buffer<float>(48 * 64 * 9);
  ASSERT_NE(conv.variant(split).find("splitk"), std::string::npos) << conv.variant(split);
  // The split layer's y, then its scratch.
  auto y_and_scratch = device().create_buffer<float>(48 * 49 + conv.scratch(split).whole_batch);
  auto ys = device().create_buffer<float>(48 * 49);
  EXPECT_EQ(refused(split, {&xs, &ws, nullptr, nullptr, &y_and_scratch, &y_and_scratch, 48 * 49}), !aliasing);
  EXPECT_FALSE(refused(split, {&xs, &ws, nullptr, nullptr, &ys}));
  if (!aliasing) {
    Conv automatic(device(), DataType::float32);
    for (auto& [name, q] : small_layers())
      EXPECT_EQ(automatic.variant(q).find("unfold"), std::string::npos) << name << ": " << automatic.variant(q);
  }
}

TEST_F(ConvTest, ErrorsBeforeRecording) {
  Conv conv(device(), DataType::float32);
  auto x = device().create_buffer<float>(2 * 8 * 6 * 6);
  auto w = device().create_buffer<float>(12 * 8 * 9);
  auto y = device().create_buffer<float>(2 * 12 * 6 * 6);
  auto argument = [&](ConvProblem p, ConvTensors t) -> std::string {
    CommandEncoder e = device().begin_commands();
    try {
      conv.encode(e, p, t);
    } catch (const KernelShapeError& err) {
      EXPECT_EQ(std::string(err.operation()), "Conv");
      EXPECT_EQ(e.dispatch_count(), 0u);
      return err.argument();
    }
    return "(nothing thrown)";
  };
  const ConvProblem ok = layer(2, 8, 12, 6, 6, 3);
  const ConvTensors t{&x, &w, nullptr, nullptr, &y};
  EXPECT_EQ(argument(layer(2, 8, 12, 6, 6, 3, 1, -1, 3), t), "groups");  // 3 does not divide 8
  EXPECT_EQ(argument(layer(2, 8, 12, 6, 6, 9, 1, 0), t), "kernel");      // larger than the padded input
  ConvProblem big = ok;
  big.batch = 3;
  EXPECT_EQ(argument(big, t), "x");
  ConvProblem off = ok;
  off.y_offset = 1;
  EXPECT_EQ(argument(off, t), "y");
  EXPECT_EQ(argument(ok, {&x, &w, nullptr, nullptr, &x}), "y");  // overlaps x
  ConvProblem b = ok;
  b.bias = true;
  EXPECT_EQ(argument(b, t), "bias");
  ConvProblem wrap = ok;
  wrap.in_channels = int64_t(1) << 40;
  EXPECT_EQ(argument(wrap, t), "in_channels");
  ConvProblem neg = ok;
  neg.window.strides = {0, 1};
  EXPECT_EQ(argument(neg, t), "strides");
  // A scratch smaller than one image.
  Conv unfold(device(), DataType::float32, {.variant = ConvVariant::unfold});
  auto tiny = device().create_buffer<float>(16);
  {
    CommandEncoder e = device().begin_commands();
    try {
      unfold.encode(e, ok, {&x, &w, nullptr, nullptr, &y, &tiny});
      ADD_FAILURE() << "a tiny scratch was accepted";
    } catch (const KernelShapeError& err) {
      EXPECT_EQ(err.argument(), "scratch");
    }
  }
  // Forced variants that cannot take the problem, and element types.
  Conv direct(device(), DataType::float32, {.variant = ConvVariant::direct});
  {
    CommandEncoder e = device().begin_commands();
    EXPECT_THROW(direct.encode(e, ok, t), UnsupportedError);
  }
  EXPECT_THROW(Conv(device(), DataType::int32), UnsupportedError);
}

// ONEGPU_CONV_FULL=1: the layer sets at their real sizes.
TEST_F(ConvTest, LargeLayerSets) {
  if (!full_sets()) GTEST_SKIP() << "set ONEGPU_CONV_FULL=1 for the full layer sets";
  std::vector<std::pair<std::string, ConvProblem>> l;
  for (int64_t b : {1, 8}) {
    l.push_back({"resnet stem", layer(b, 3, 64, 224, 224, 7, 2, 3)});
    l.push_back({"resnet 3x3 64", layer(b, 64, 64, 56, 56, 3)});
    l.push_back({"resnet 1x1 256->64", layer(b, 256, 64, 56, 56, 1, 1, 0)});
    l.push_back({"resnet 3x3 128 s2", layer(b, 128, 128, 56, 56, 3, 2)});
    l.push_back({"resnet 3x3 256", layer(b, 256, 256, 14, 14, 3)});
    l.push_back({"resnet 1x1 1024->256", layer(b, 1024, 256, 14, 14, 1, 1, 0)});
    l.push_back({"resnet 1x1 1024->2048 s2", layer(b, 1024, 2048, 14, 14, 1, 2, 0)});
    l.push_back({"resnet 3x3 512", layer(b, 512, 512, 7, 7, 3)});
    l.push_back({"mobilenet dw 3x3 240", layer(b, 240, 240, 14, 14, 3, 1, -1, 240)});
    l.push_back({"mobilenet dw 5x5 672 s2", layer(b, 672, 672, 14, 14, 5, 2, -1, 672)});
    l.push_back({"mobilenet 1x1 240->80", layer(b, 240, 80, 14, 14, 1, 1, 0)});
    l.push_back({"dbnet 3x3 256->64", layer(b, 256, 64, 128, 128, 3)});
    l.push_back({"whisper stem 80->384", frames(b, 80, 384, 3000, 3, 1, 1)});
    l.push_back({"whisper stem 384 s2", frames(b, 384, 384, 3000, 3, 2, 1)});
  }
  for (DataType t : kTypes)
    for (KernelMode mode : {KernelMode::fast, KernelMode::deterministic}) {
      Conv conv(device(), t, {.mode = mode});
      for (auto& [name, p] : l) expect_close(conv, p, name + " b" + std::to_string(p.batch));
    }
}

}  // namespace
}  // namespace onegpu::testing
