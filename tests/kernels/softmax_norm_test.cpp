// Softmax, LogSoftmax, layer and RMS normalisation against float64.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/tensor_helpers.h"
#include "reference/reduce_reference.h"
#include "reference/reference.h"
#include "support/device_fixture.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using kernels::Norm;
using kernels::NormParams;
using kernels::RowKernelOptions;
using kernels::Softmax;

constexpr float kSentinelValue = -555.5f;
const DataType kTypes[] = {DataType::float32, DataType::float16};

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class SoftmaxNormFixture : public Base {
 protected:
  bool subgroup_reductions_available() {
    const auto& o = this->caps().subgroup_operations;
    return o.basic && o.vote && o.arithmetic && this->caps().min_subgroup_size >= 4;
  }
  // Runs softmax with the output at offset 2 between sentinels; returns the output and checks them.
  std::vector<float> softmax(Softmax& s, DataType t, const std::vector<float>& x, std::vector<int64_t> shape,
                             int64_t axis, bool log) {
    auto in = upload_tensor(this->device(), t, x);
    const size_t total = x.size() + 6;
    auto out = upload_tensor(this->device(), t, std::vector<float>(total, kSentinelValue));
    auto enc = this->device().begin_commands();
    s.encode(enc, tensor(in, t, shape), axis, tensor(out, t, shape, 2), log);
    this->device().submit(enc);
    auto all = read_tensor(t, out, total);
    for (size_t i = 0; i < total; ++i) {
      if (i < 2 || i >= 2 + x.size()) {
        EXPECT_EQ(all[i], kSentinelValue) << "sentinel " << i;
      }
    }
    return std::vector<float>(all.begin() + 2, all.begin() + 2 + x.size());
  }
};

using SoftmaxNormTest = SoftmaxNormFixture<DeviceTest>;
// On every backend with the same references, tolerances and bit checks (in place and overlapping
// ranges stay on Vulkan: WebGPU refuses a buffer bound writable and read-only in one dispatch).
using SoftmaxNormOnEveryBackend = SoftmaxNormFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, SoftmaxNormOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

TEST_P(SoftmaxNormOnEveryBackend, SoftmaxEveryPathAndAxis) {
  Softmax deterministic(device(), {.mode = kernels::KernelMode::deterministic});
  Softmax fast(device());  // rows of 16..1024 take one subgroup each where the device has them
  for (Softmax* which : {&deterministic, &fast}) {
    Softmax& softmax = *which;
    const bool check_variant = which == &deterministic;
    struct Case {
      std::vector<int64_t> shape;
      int64_t axis;
      const char* variant;
    };
    // The float32 variants (the halving tree's lanes per invocation: group / min(group, 32)).
    const Case cases[] = {{{64, 10}, -1, "softmax.thread"},          {{33, 16}, 1, "softmax.tree.lanes1"},
                          {{40, 512}, 1, "softmax.tree.lanes4"},     {{5, 1024}, 1, "softmax.tree.lanes8"},
                          {{6, 3000}, -1, "softmax.workgroup"},      {{4, 37, 9}, 1, "softmax.tree.lanes1"},
                          {{3, 20, 2, 5}, 1, "softmax.tree.lanes1"}, {{7, 200}, -1, "softmax.tree.lanes2"},
                          {{2, 9000}, 1, "softmax.workgroup"}};  // too long for registers
    for (auto t : kTypes)
      for (const auto& c : cases) {
        const int64_t len = c.shape[size_t(c.axis < 0 ? c.axis + int64_t(c.shape.size()) : c.axis)];
        const bool axis_last = c.axis == -1 || c.axis == int64_t(c.shape.size()) - 1;
        if (t == DataType::float16 && (!axis_last || len % 2 != 0)) continue;
        uint64_t n = 1;
        for (auto d : c.shape) n *= uint64_t(d);
        auto x = stored(t, random_floats(n, 3, -6.0f, 6.0f));
        for (bool log : {false, true}) {
          auto y = this->softmax(softmax, t, x, c.shape, c.axis, log);
          auto ref = reference::softmax(std::vector<double>(x.begin(), x.end()), c.shape, c.axis, log);
          SCOPED_TRACE(softmax.variant(c.shape, c.axis, t) + (log ? " log" : "") +
                       (t == DataType::float16 ? " half" : ""));
          if (check_variant && t == DataType::float32) {
            EXPECT_EQ(softmax.variant(c.shape, c.axis), c.variant);
          }
          EXPECT_LE(reference::scaled_error(y, ref), tolerance(t));
        }
      }
  }
  if (subgroup_reductions_available()) {
    EXPECT_EQ(fast.variant(std::vector<int64_t>{40, 512}, 1), "softmax.subgroup");
  }
}

TEST_P(SoftmaxNormOnEveryBackend, SoftmaxSpecialValues) {
  Softmax softmax(device());
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (int64_t len : {8, 100, 2000}) {  // one path each
    std::vector<float> x(4 * size_t(len));
    for (int64_t i = 0; i < 4 * len; ++i) x[size_t(i)] = float(i % 7) * 0.5f;
    x[size_t(0 * len + 3)] = nan;                                     // row 0: NaN
    x[size_t(1 * len + 1)] = inf;                                     // row 1: +inf
    for (int64_t j = 0; j < len; ++j) x[size_t(2 * len + j)] = -inf;  // row 2: only -inf
    x[size_t(3 * len + 2)] = -inf;                                    // row 3: -inf beside finite values
    auto y = this->softmax(softmax, DataType::float32, x, {4, len}, 1, false);
    for (int64_t j = 0; j < len; ++j) {
      ASSERT_TRUE(std::isnan(y[size_t(j)])) << len;
      ASSERT_TRUE(std::isnan(y[size_t(len + j)])) << len;
      ASSERT_TRUE(std::isnan(y[size_t(2 * len + j)])) << len;
    }
    EXPECT_EQ(y[size_t(3 * len + 2)], 0.0f) << len;
    double sum = 0;
    for (int64_t j = 0; j < len; ++j) sum += y[size_t(3 * len + j)];
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

TEST_F(SoftmaxNormTest, SoftmaxInPlaceDeterministicAndBadArguments) {
  Softmax det(device(), {.mode = kernels::KernelMode::deterministic});
  Softmax fast_tree(device(), {.allow_subgroups = false});
  auto x = random_floats(7 * 3000, 8, -5, 5);
  auto a = this->softmax(det, DataType::float32, x, {7, 3000}, 1, false);
  auto b = this->softmax(det, DataType::float32, x, {7, 3000}, 1, false);
  auto c = this->softmax(fast_tree, DataType::float32, x, {7, 3000}, 1, false);
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_TRUE(same_bits(a, c));
  for (int64_t len : {200, 512, 1000}) {  // the group path, two to eight lanes per invocation
    auto xg = random_floats(37 * size_t(len), 9, -8, 8);
    auto ga = this->softmax(det, DataType::float32, xg, {37, len}, 1, false);
    auto gb = this->softmax(det, DataType::float32, xg, {37, len}, 1, false);
    auto gc = this->softmax(fast_tree, DataType::float32, xg, {37, len}, 1, false);
    EXPECT_TRUE(same_bits(ga, gb)) << len;
    EXPECT_TRUE(same_bits(ga, gc)) << len;
  }
  auto buf = device().create_buffer(x);  // in place
  auto enc = device().begin_commands();
  const std::vector<int64_t> rows = {7, 3000};
  det.encode(enc, tensor(buf, DataType::float32, rows), 1, tensor(buf, DataType::float32, rows));
  device().submit(enc);
  EXPECT_TRUE(same_bits(buf.read(), a));
  auto h = upload_tensor(device(), DataType::float16, std::vector<float>(60, 1.0f));
  auto enc2 = device().begin_commands();
  const std::vector<int64_t> s6 = {6, 10}, s5 = {5, 10};
  const DataType f16 = DataType::float16, f32 = DataType::float32;
  EXPECT_THROW(det.encode(enc2, tensor(h, f16, s6), 0, tensor(h, f16, s6)), KernelShapeError);  // axis not last
  EXPECT_THROW(det.encode(enc2, tensor(h, f16, s5, 1), 1, tensor(h, f16, s5, 1)), KernelShapeError);  // odd offset
  EXPECT_THROW(det.encode(enc2, tensor(buf, f32, rows), 2, tensor(buf, f32, rows)), KernelShapeError);  // axis
  EXPECT_THROW(det.encode(enc2, tensor(buf, f32, rows), 1, tensor(buf, f32, rows, 5)), KernelShapeError);  // overlap
  const std::vector<int64_t> three = {7, 3000, 1}, transposed = {1, 7};
  try {
    det.encode(enc2, tensor(buf, f32, rows), 1, tensor(buf, f32, three));
    ADD_FAILURE();
  } catch (const KernelShapeError& e) {
    EXPECT_STREQ(e.what(), "Softmax: output: its shape is not the input's");
  }
  try {
    det.encode(enc2, tensor(buf, f32, rows), 1, tensor(h, f16, rows));
    ADD_FAILURE();
  } catch (const KernelShapeError& e) {
    EXPECT_STREQ(e.what(), "Softmax: output: float16 is not float32");
  }
  try {
    det.encode(enc2, tensor(buf, f32, rows, 0, transposed), 1, tensor(buf, f32, rows));
    ADD_FAILURE();
  } catch (const KernelShapeError& e) {
    EXPECT_STREQ(e.what(), "Softmax: strides: input is not dense row-major");
  }
  // 2^33 x (2^31 + 1) elements: the product wraps 64 bits.
  const std::vector<int64_t> wraps = {int64_t(1) << 33, (int64_t(1) << 31) + 1};
  EXPECT_THROW(det.encode(enc2, tensor(buf, f32, wraps), 1, tensor(buf, f32, wraps)), KernelShapeError);
  EXPECT_EQ(enc2.dispatch_count(), 0u);
}

// Softmax and the norms: an output sharing a word with its input at another offset, or with the
// scale or bias, throws (argument "output") before recording; in place (same offset and extent)
// gives the bits of the separate output.
TEST_F(SoftmaxNormTest, OverlapsThrowBeforeRecordingAndInPlaceRuns) {
  Softmax softmax(device(), {.mode = kernels::KernelMode::deterministic});
  Norm norm(device(), {.mode = kernels::KernelMode::deterministic});
  const DataType f32 = DataType::float32, f16 = DataType::float16;
  const std::vector<int64_t> shape = {4, 64}, row = {64};
  const std::vector<float> x = random_floats(4 * 64 + 64, 51, -2, 2);
  auto shared = device().create_buffer(x);
  auto halves = upload_tensor(device(), f16, std::vector<float>(600, 1.0f));
  auto enc = device().begin_commands();
  auto expect_overlap = [&](const char* what, auto call) {
    try {
      call();
      ADD_FAILURE() << what << ": no exception";
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.argument(), "output") << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("overlaps"), std::string::npos) << what << ": " << e.what();
    }
  };
  expect_overlap("softmax", [&] { softmax.encode(enc, tensor(shared, f32, shape), 1, tensor(shared, f32, shape, 64)); });
  expect_overlap("softmax, halves", [&] {  // rows of 2: halves 0..8 and 6..14
    const std::vector<int64_t> pairs = {4, 2};
    softmax.encode(enc, tensor(halves, f16, pairs), 1, tensor(halves, f16, pairs, 6));
  });
  expect_overlap("layer norm over its input", [&] {
    norm.encode_layer_norm(enc, tensor(shared, f32, shape), tensor(shared, f32, shape, 4));
  });
  expect_overlap("rms norm over its scale", [&] {
    norm.encode_rms_norm(enc, tensor(shared, f32, shape), tensor(shared, f32, shape, 0),
                         {.scale = tensor(shared, f32, row, 250)});
  });
  expect_overlap("layer norm over its bias", [&] {
    norm.encode_layer_norm(enc, tensor(shared, f32, shape, 64), tensor(shared, f32, shape, 64),
                           {.bias = tensor(shared, f32, row, 100)});
  });
  EXPECT_EQ(enc.dispatch_count(), 0u);

  // In place, with the scale in the same buffer after the rows, against separate outputs.
  auto separate_in = device().create_buffer(x);
  auto softmax_out = device().create_buffer<float>(4 * 64), norm_out = device().create_buffer<float>(4 * 64);
  auto in_place = device().create_buffer(x), in_place_norm = device().create_buffer(x);
  const NormParams own{.scale = tensor(in_place_norm, f32, row, 256)}, other{.scale = tensor(separate_in, f32, row, 256)};
  softmax.encode(enc, tensor(separate_in, f32, shape), 1, tensor(softmax_out, f32, shape));
  softmax.encode(enc, tensor(in_place, f32, shape), 1, tensor(in_place, f32, shape));
  norm.encode_layer_norm(enc, tensor(separate_in, f32, shape), tensor(norm_out, f32, shape), other);
  norm.encode_layer_norm(enc, tensor(in_place_norm, f32, shape), tensor(in_place_norm, f32, shape), own);
  device().submit(enc);
  const std::vector<float> a = in_place.read(), b = in_place_norm.read();
  EXPECT_TRUE(same_bits(std::vector<float>(a.begin(), a.begin() + 256), softmax_out.read()));
  EXPECT_TRUE(same_bits(std::vector<float>(b.begin(), b.begin() + 256), norm_out.read()));
  EXPECT_TRUE(same_bits(std::vector<float>(a.begin() + 256, a.end()), std::vector<float>(x.begin() + 256, x.end())));
  EXPECT_TRUE(same_bits(std::vector<float>(b.begin() + 256, b.end()), std::vector<float>(x.begin() + 256, x.end())));
}

TEST_P(SoftmaxNormOnEveryBackend, LayerAndRmsNorm) {
  Norm norm(device());
  Norm det(device(), {.mode = kernels::KernelMode::deterministic});
  for (auto t : kTypes)
    for (int64_t len : {768, 64, 4096, 6, 9000})  // 9000: read again per statistic
      for (bool rms : {false, true})
        for (int with : {0, 1, 2}) {  // none, scale, scale and bias
          const int64_t rows = 33;
          auto x = stored(t, random_floats(size_t(rows * len), 4, -2.0f, 3.0f));
          auto scale_v = random_floats(size_t(len) + 1, 5, 0.5f, 1.5f), bias_v = random_floats(size_t(len) + 1, 6);
          auto scale = device().create_buffer(scale_v), bias = device().create_buffer(bias_v);
          NormParams params{.epsilon = 1e-5f};
          const std::vector<int64_t> row = {len};
          if (with >= 1) params.scale = tensor(scale, DataType::float32, row, 1);
          if (with >= 2) params.bias = tensor(bias, DataType::float32, row, 1);
          auto in = upload_tensor(device(), t, x);
          auto out = upload_tensor(device(), t, std::vector<float>(x.size() + 4, kSentinelValue));
          auto out2 = upload_tensor(device(), t, std::vector<float>(x.size() + 4, kSentinelValue));
          auto enc = device().begin_commands();
          const std::vector<int64_t> shape = {rows, len};
          if (rms) {
            norm.encode_rms_norm(enc, tensor(in, t, shape), tensor(out, t, shape, 2), params);
            det.encode_rms_norm(enc, tensor(in, t, shape), tensor(out2, t, shape, 2), params);
          } else {
            norm.encode_layer_norm(enc, tensor(in, t, shape), tensor(out, t, shape, 2), params);
            det.encode_layer_norm(enc, tensor(in, t, shape), tensor(out2, t, shape, 2), params);
          }
          device().submit(enc);
          auto all = read_tensor(t, out, x.size() + 4);
          std::vector<double> s, b;
          if (with >= 1) s.assign(scale_v.begin() + 1, scale_v.end());
          if (with >= 2) b.assign(bias_v.begin() + 1, bias_v.end());
          auto ref = reference::layer_norm(std::vector<double>(x.begin(), x.end()), uint64_t(len), s, b, 1e-5, rms);
          std::vector<float> y(all.begin() + 2, all.begin() + 2 + long(x.size()));
          SCOPED_TRACE(std::string(rms ? "rms" : "layer") + " len " + std::to_string(len) + " with " +
                       std::to_string(with) + (t == DataType::float16 ? " half" : ""));
          EXPECT_LE(reference::scaled_error(y, ref), tolerance(t));
          EXPECT_EQ(all[0], kSentinelValue);
          EXPECT_EQ(all[1], kSentinelValue);
          EXPECT_EQ(all[x.size() + 2], kSentinelValue);
          auto other = read_tensor(t, out2, x.size() + 4);
          EXPECT_LE(
              reference::scaled_error(std::vector<float>(other.begin() + 2, other.begin() + 2 + long(x.size())), ref),
              tolerance(t));
        }
}

TEST_P(SoftmaxNormOnEveryBackend, NormDeterministicRunsAreBitIdentical) {
  Norm det(device(), {.mode = kernels::KernelMode::deterministic});
  Norm fast_tree(device(), {.allow_subgroups = false});
  auto x = random_floats(16 * 4096, 12, -1, 1);
  auto in = device().create_buffer(x);
  auto a = device().create_buffer<float>(x.size()), b = device().create_buffer<float>(x.size()),
       c = device().create_buffer<float>(x.size());
  auto enc = device().begin_commands();
  const std::vector<int64_t> shape = {16, 4096};
  const DataType f32 = DataType::float32;
  det.encode_layer_norm(enc, tensor(in, f32, shape), tensor(a, f32, shape));
  det.encode_layer_norm(enc, tensor(in, f32, shape), tensor(b, f32, shape));
  fast_tree.encode_layer_norm(enc, tensor(in, f32, shape), tensor(c, f32, shape));
  device().submit(enc);
  EXPECT_TRUE(same_bits(a.read(), b.read()));
  EXPECT_TRUE(same_bits(a.read(), c.read()));
  auto enc2 = device().begin_commands();
  auto small = device().create_buffer<float>(100);
  const std::vector<int64_t> hundred = {100}, row = {4096};
  EXPECT_THROW(det.encode_layer_norm(enc2, tensor(in, f32, shape), tensor(in, f32, shape),
                                     {.scale = tensor(small, f32, hundred)}),
               KernelShapeError);  // scale shorter than a row
  EXPECT_THROW(det.encode_layer_norm(enc2, tensor(in, f32, shape), tensor(in, f32, shape),
                                     {.scale = tensor(small, f32, row)}),
               KernelShapeError);  // the buffer is shorter than the scale
  EXPECT_THROW(det.encode_layer_norm(enc2, tensor(in, f32, shape), tensor(in, DataType::float16, shape)),
               KernelShapeError);  // output type
  EXPECT_EQ(enc2.dispatch_count(), 0u);
}

}  // namespace
}  // namespace onegpu::testing
