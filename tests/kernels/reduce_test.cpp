// Reductions against float64: every operation and path, half data, keep-dims shapes, special
// values, determinism and argument checks.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "kernels/tensor_helpers.h"
#include "reference/reduce_reference.h"
#include "reference/reference.h"
#include "support/device_fixture.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using kernels::Reduce;
using kernels::ReduceOp;
using kernels::RowKernelOptions;

constexpr float kSentinelValue = -777.5f;  // exact in half too
constexpr ReduceOp kValueOps[] = {ReduceOp::sum, ReduceOp::mean, ReduceOp::max,        ReduceOp::min,    ReduceOp::prod,
                                  ReduceOp::l1,  ReduceOp::l2,   ReduceOp::sum_square, ReduceOp::log_sum};

// Data each operation can be judged on: mostly positive for sums (a sum that cancels cannot be
// accurate in relative terms), near 1 for products, positive for LogSum.
std::vector<float> data_for(ReduceOp op, size_t n, uint32_t seed) {
  if (op == ReduceOp::prod) return random_floats(n, seed, 0.97f, 1.03f);
  if (op == ReduceOp::log_sum) return random_floats(n, seed, 0.1f, 1.0f);
  if (op == ReduceOp::max || op == ReduceOp::min || op == ReduceOp::l1) return random_floats(n, seed, -1.0f, 1.0f);
  return random_floats(n, seed, -0.2f, 1.0f);
}

struct Result {
  std::vector<float> values;     // value ops
  std::vector<int64_t> indices;  // arg ops
  std::string variant;
  bool sentinels_ok = true;
};

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class ReduceFixture : public Base {
 protected:
  Result run(Reduce& reduce, ReduceOp op, DataType t, const std::vector<float>& x, std::vector<int64_t> shape,
             std::vector<int64_t> axes, uint64_t out_offset = 3) {
    const bool arg = op == ReduceOp::arg_max || op == ReduceOp::arg_min;
    auto out_shape = Reduce::output_shape(shape, axes, false);
    uint64_t outputs = 1;
    for (auto d : out_shape) outputs *= uint64_t(d);
    auto in = upload_tensor(this->device(), t, x);
    Result r;
    r.variant = reduce.variant(op, shape, axes);
    const size_t total = out_offset + outputs + 5;
    if (arg) {
      auto out = this->device().create_buffer(std::vector<int64_t>(total, -9));
      auto enc = this->device().begin_commands();
      reduce.encode(enc, op, tensor(in, t, shape), axes, false, tensor(out, DataType::int64, out_shape, out_offset));
      this->device().submit(enc);
      auto all = out.read();
      for (size_t i = 0; i < total; ++i) {
        if (i >= out_offset && i < out_offset + outputs) r.indices.push_back(all[i]);
        else if (all[i] != -9) r.sentinels_ok = false;
      }
    } else {
      auto out = upload_tensor(this->device(), t, std::vector<float>(total, kSentinelValue));
      auto enc = this->device().begin_commands();
      reduce.encode(enc, op, tensor(in, t, shape), axes, false, tensor(out, t, out_shape, out_offset));
      this->device().submit(enc);
      auto all = read_tensor(t, out, total);
      for (size_t i = 0; i < total; ++i) {
        if (i >= out_offset && i < out_offset + outputs) r.values.push_back(all[i]);
        else if (all[i] != kSentinelValue) r.sentinels_ok = false;
      }
    }
    return r;
  }

  void expect_accurate(Reduce& reduce, ReduceOp op, DataType t, std::vector<int64_t> shape, std::vector<int64_t> axes,
                       const std::string& variant_prefix = "", uint32_t seed = 1) {
    uint64_t n = 1;
    for (auto d : shape) n *= uint64_t(d);
    auto x = stored(t, data_for(op, n, seed));
    Result r = run(reduce, op, t, x, shape, axes);
    std::vector<double> xd(x.begin(), x.end());
    auto ref = reference::reduce(op, xd, shape, axes);
    SCOPED_TRACE(std::string(kernels::reduce_op_name(op)) + (t == DataType::float16 ? " half " : " f32 ") + r.variant);
    EXPECT_TRUE(r.sentinels_ok) << "elements around the output changed";
    if (!variant_prefix.empty()) {
      EXPECT_EQ(r.variant.rfind(variant_prefix, 0), 0u) << r.variant;
    }
    if (op == ReduceOp::arg_max || op == ReduceOp::arg_min) {
      ASSERT_EQ(r.indices.size(), ref.size());
      for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(double(r.indices[i]), ref[i]) << i;
    } else if (op == ReduceOp::max || op == ReduceOp::min) {
      ASSERT_EQ(r.values.size(), ref.size());
      for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(double(r.values[i]), ref[i]) << i;  // exact
    } else {
      double tol = tolerance(t);
      uint64_t count = n / std::max<uint64_t>(ref.size(), 1);
      if (op == ReduceOp::prod && t == DataType::float32) tol = std::max(1e-5, 1e-6 * std::sqrt(double(count)));
      EXPECT_LE(reference::scaled_error(r.values, ref), tol);
    }
  }
};

using ReduceTest = ReduceFixture<DeviceTest>;
// On every backend with the same references, tolerances and bit checks (in place and overlapping
// ranges stay on Vulkan: WebGPU refuses a buffer bound writable and read-only in one dispatch).
using ReduceOnEveryBackend = ReduceFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, ReduceOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

const DataType kTypes[] = {DataType::float32, DataType::float16};

TEST_P(ReduceOnEveryBackend, EveryOperationOnEveryPath) {
  Reduce reduce(device());
  struct Shape {
    std::vector<int64_t> shape, axes;
    const char* variant;
  };
  const Shape shapes[] = {
      {{50, 7}, {1}, "reduce.thread"},
      {{100, 3000}, {0}, "reduce.thread"},  // 32..255 along a strided axis, thousands of outputs
      {{37, 1000}, {1}, "reduce.workgroup"},
      {{3, 4, 5, 6, 7}, {0, 2, 4}, "reduce.workgroup"},  // several runs
      {{600, 2100}, {0}, "reduce.columns.first"},
      {{70000}, {}, "reduce.two_pass.first"},
  };
  for (auto t : kTypes)
    for (const auto& s : shapes)
      for (ReduceOp op : kValueOps) expect_accurate(reduce, op, t, s.shape, s.axes, s.variant);
}

TEST_P(ReduceOnEveryBackend, ArgMaxArgMinFirstOccurrence) {
  Reduce reduce(device());
  for (auto t : kTypes)
    for (ReduceOp op : {ReduceOp::arg_max, ReduceOp::arg_min})
      for (auto [shape, axis] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
               {{40, 9}, 1}, {{30, 500}, 1}, {{300, 2500}, 0}, {{20, 3000}, 0}, {{40000}, 0}}) {
        uint64_t n = 1;
        for (auto d : shape) n *= uint64_t(d);
        auto x = random_floats(n, 5, -4, 4);
        for (auto& v : x) v = std::round(v);  // many ties
        x = stored(t, x);
        std::vector<int64_t> axes = {axis};
        Result r = run(reduce, op, t, x, shape, axes);
        auto ref = reference::reduce(op, std::vector<double>(x.begin(), x.end()), shape, axes);
        ASSERT_EQ(r.indices.size(), ref.size());
        for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(double(r.indices[i]), ref[i]) << r.variant << " " << i;
        EXPECT_TRUE(r.sentinels_ok);
      }
}

TEST_P(ReduceOnEveryBackend, ArgMaxOverMoreThan256Chunks) {
  Reduce reduce(device());
  const uint64_t n = 1ull << 21;  // 512 chunks in the first pass
  auto x = random_floats(n, 13, -1, 1);
  x[1900000] = 5.0f;
  x[1950000] = 5.0f;  // a later tie loses
  x[7] = -5.0f;
  std::vector<int64_t> shape = {int64_t(n)};
  Result r = run(reduce, ReduceOp::arg_max, DataType::float32, x, shape, {});
  EXPECT_EQ(r.variant, "reduce.two_pass.first.arg+reduce.two_pass.second.arg");
  EXPECT_EQ(r.indices[0], 1900000);
  EXPECT_EQ(run(reduce, ReduceOp::arg_min, DataType::float32, x, shape, {}).indices[0], 7);
  x[1000000] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(run(reduce, ReduceOp::arg_max, DataType::float32, x, shape, {}).indices[0], 1000000);
}

TEST_P(ReduceOnEveryBackend, WholeTensorSumOf2To24) {
  Reduce reduce(device());
  const uint64_t n = 1ull << 24;
  auto x = random_floats(n, 9, 0.0f, 1.0f);
  std::vector<int64_t> shape = {int64_t(n)};
  Result r = run(reduce, ReduceOp::sum, DataType::float32, x, shape, {});
  double sum = 0;
  for (float v : x) sum += v;
  const double err = std::abs(double(r.values[0]) - sum) / sum;
  std::printf("[ accuracy ] sum of 2^24 float32 (%s): scaled error %.3g\n", r.variant.c_str(), err);
  EXPECT_LE(err, 1e-5);
}

TEST_P(ReduceOnEveryBackend, SpecialValues) {
  Reduce reduce(device());
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(3 * 300);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 17) - 8.0f;
  x[0 * 300 + 100] = nan;  // row 0: NaN
  x[0 * 300 + 200] = nan;
  x[1 * 300 + 50] = inf;   // row 1: +inf
  x[2 * 300 + 7] = -inf;   // row 2: -inf
  std::vector<int64_t> shape = {3, 300}, axes = {1};
  auto mx = run(reduce, ReduceOp::max, DataType::float32, x, shape, axes).values;
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_EQ(mx[1], inf);
  EXPECT_EQ(mx[2], 8.0f);
  auto mn = run(reduce, ReduceOp::min, DataType::float32, x, shape, axes).values;
  EXPECT_TRUE(std::isnan(mn[0]));
  EXPECT_EQ(mn[2], -inf);
  auto am = run(reduce, ReduceOp::arg_max, DataType::float32, x, shape, axes).indices;
  EXPECT_EQ(am[0], 100);  // the first NaN wins
  EXPECT_EQ(am[1], 50);
  auto an = run(reduce, ReduceOp::arg_min, DataType::float32, x, shape, axes).indices;
  EXPECT_EQ(an[0], 100);
  EXPECT_EQ(an[2], 7);
  auto sm = run(reduce, ReduceOp::sum, DataType::float32, x, shape, axes).values;
  EXPECT_TRUE(std::isnan(sm[0]));
  EXPECT_EQ(sm[1], inf);
}

TEST_P(ReduceOnEveryBackend, DeterministicRunsAreBitIdenticalAndEqualFastWithoutSubgroups) {
  Reduce det(device(), {.mode = kernels::KernelMode::deterministic});
  Reduce fast_tree(device(), {.allow_subgroups = false});
  Reduce fast(device());
  for (auto t : kTypes)
    for (auto [shape, axes] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
             {{37, 5000}, {1}}, {{50000}, {}}, {{300, 2100}, {0}}}) {
      uint64_t n = 1;
      for (auto d : shape) n *= uint64_t(d);
      auto x = stored(t, random_floats(n, 21, -0.3f, 1.0f));
      auto a = run(det, ReduceOp::sum, t, x, shape, axes).values;
      auto b = run(det, ReduceOp::sum, t, x, shape, axes).values;
      auto c = run(fast_tree, ReduceOp::sum, t, x, shape, axes).values;
      EXPECT_TRUE(same_bits(a, b));
      EXPECT_TRUE(same_bits(a, c)) << "fast without subgroups must equal deterministic";
      auto f = run(fast, ReduceOp::sum, t, x, shape, axes);
      auto ref = reference::reduce(ReduceOp::sum, std::vector<double>(x.begin(), x.end()), shape, axes);
      EXPECT_LE(reference::scaled_error(f.values, ref), tolerance(t)) << f.variant;
    }
  EXPECT_EQ(det.variant(ReduceOp::sum, std::vector<int64_t>{37, 5000}, std::vector<int64_t>{1}), "reduce.workgroup");
  EXPECT_EQ(det.variant(ReduceOp::sum, std::vector<int64_t>{50000}, {}), "reduce.two_pass.first+reduce.two_pass.second");
}

// Strided inputs (a transposed view, every other element, a dimension repeated by a zero stride)
// against float64 on the values they name; the output is dense, between sentinels.
TEST_P(ReduceOnEveryBackend, StridedInputsAgainstReferences) {
  Reduce reduce(device());
  struct Case {
    std::vector<int64_t> shape, strides, axes;
  } cases[] = {
      {{300, 64}, {1, 300}, {1}},         // transposed 64 x 300, reduced along its columns
      {{300, 64}, {1, 300}, {0}},
      {{40, 500}, {1000, 2}, {1}},        // every other element of each row
      {{8, 30, 50}, {0, 50, 1}, {0, 2}},  // one 30 x 50 matrix seen eight times
      {{20000}, {3}, {}},                 // every third element: two passes
  };
  for (auto t : kTypes)
    for (const Case& c : cases)
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::arg_min, ReduceOp::l2}) {
        uint64_t n = 1, reach = 1;
        for (size_t i = 0; i < c.shape.size(); ++i) {
          n *= uint64_t(c.shape[i]);
          reach += uint64_t(c.shape[i] - 1) * uint64_t(c.strides[i]);
        }
        const uint64_t offset = 2;
        auto storage = stored(t, data_for(op, reach + offset + 1, 31));
        // The values the view names, row-major, for the reference.
        std::vector<double> x(n);
        for (uint64_t e = 0; e < n; ++e) {
          uint64_t idx = offset, rest = e;
          for (size_t i = c.shape.size(); i-- > 0;) {
            idx += (rest % uint64_t(c.shape[i])) * uint64_t(c.strides[i]);
            rest /= uint64_t(c.shape[i]);
          }
          x[e] = storage[idx];
        }
        const auto out_shape = Reduce::output_shape(c.shape, c.axes, false);
        const auto ref = reference::reduce(op, x, c.shape, c.axes);
        const bool arg = op == ReduceOp::arg_min;
        auto in = upload_tensor(device(), t, storage);
        const size_t total = ref.size() + 4;
        SCOPED_TRACE(std::string(kernels::reduce_op_name(op)) + " " + reduce.variant(op, c.shape, c.axes, c.strides) +
                     (t == DataType::float16 ? " half" : ""));
        auto enc = device().begin_commands();
        if (arg) {
          auto out = device().create_buffer(std::vector<int64_t>(total, -9));
          reduce.encode(enc, op, tensor(in, t, c.shape, offset, c.strides), c.axes, false,
                        tensor(out, DataType::int64, out_shape, 2));
          device().submit(enc);
          auto all = out.read();
          EXPECT_EQ(all[0], -9);
          EXPECT_EQ(all[total - 1], -9);
          for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(double(all[i + 2]), ref[i]) << i;
        } else {
          auto out = upload_tensor(device(), t, std::vector<float>(total, kSentinelValue));
          reduce.encode(enc, op, tensor(in, t, c.shape, offset, c.strides), c.axes, false, tensor(out, t, out_shape, 2));
          device().submit(enc);
          auto all = read_tensor(t, out, total);
          EXPECT_EQ(all[0], kSentinelValue);
          EXPECT_EQ(all[total - 1], kSentinelValue);
          std::vector<float> y(all.begin() + 2, all.begin() + 2 + long(ref.size()));
          if (op == ReduceOp::max) {
            for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(double(y[i]), ref[i]) << i;
          } else {
            EXPECT_LE(reference::scaled_error(y, ref), tolerance(t));
          }
        }
      }
}

// The output, and a scratch buffer the caller passes, may share no 32-bit word with the input or
// each other; disjoint ranges of one buffer run, with the bits of separate buffers.
TEST_F(ReduceTest, OverlapsThrowBeforeRecordingAndDisjointRangesRun) {
  Reduce reduce(device(), {.mode = kernels::KernelMode::deterministic});
  const DataType f32 = DataType::float32, f16 = DataType::float16;
  const std::vector<int64_t> big = {16384}, none = {}, all = {0}, seven = {7}, rows = {2, 4}, two = {2}, last = {1};
  ASSERT_GT(Reduce::scratch_length(ReduceOp::sum, big, all), 0u) << "the case must take the two-pass path";
  const uint64_t scratch_floats = Reduce::scratch_length(ReduceOp::sum, big, all);
  const std::vector<float> x = random_floats(16384, 61, 0.0f, 1.0f);
  std::vector<float> padded(scratch_floats, kSentinelValue);
  padded.insert(padded.end(), x.begin(), x.end());
  auto shared = device().create_buffer(padded);  // scratch room, then the input
  auto out = device().create_buffer(std::vector<float>(4, kSentinelValue));
  auto other = device().create_buffer<float>(scratch_floats + 4);
  std::vector<float> quarters(16);
  for (size_t i = 0; i < 16; ++i) quarters[i] = 0.25f * float(i + 1);
  auto halves = upload_tensor(device(), f16, quarters);
  auto enc = device().begin_commands();
  auto expect_overlap = [&](const char* what, const char* argument, auto call) {
    try {
      call();
      ADD_FAILURE() << what << ": no exception";
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.argument(), argument) << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("overlaps"), std::string::npos) << what << ": " << e.what();
    }
  };
  expect_overlap("output in the input", "output", [&] {
    reduce.encode(enc, ReduceOp::sum, tensor(shared, f32, rows, scratch_floats), last, false,
                  tensor(shared, f32, two, scratch_floats + 3));
  });
  expect_overlap("halves sharing a word", "output", [&] {  // input halves 0..6, output half 7
    reduce.encode(enc, ReduceOp::max, tensor(halves, f16, seven), all, false, tensor(halves, f16, none, 7));
  });
  expect_overlap("arg output over the input", "output", [&] {
    reduce.encode(enc, ReduceOp::arg_max, tensor(shared, f32, rows, scratch_floats), last, false,
                  tensor(shared, DataType::int64, two, scratch_floats / 2 + 1));
  });
  expect_overlap("scratch over the input", "scratch", [&] {
    reduce.encode(enc, ReduceOp::sum, tensor(shared, f32, big, scratch_floats - 1), all, false,
                  tensor(out, f32, none), &shared);
  });
  expect_overlap("scratch over the output", "scratch", [&] {
    reduce.encode(enc, ReduceOp::sum, tensor(shared, f32, big, scratch_floats), all, false,
                  tensor(other, f32, none, 2), &other);
  });
  EXPECT_EQ(enc.dispatch_count(), 0u);

  // Disjoint: the scratch ahead of the input in one buffer, the output after it; half output in
  // the next word.
  auto separate_in = device().create_buffer(x);
  auto separate_out = device().create_buffer<float>(1);
  reduce.encode(enc, ReduceOp::sum, tensor(separate_in, f32, big), all, false, tensor(separate_out, f32, none));
  reduce.encode(enc, ReduceOp::sum, tensor(shared, f32, big, scratch_floats), all, false, tensor(out, f32, none, 1),
                &shared);
  reduce.encode(enc, ReduceOp::max, tensor(halves, f16, seven), all, false, tensor(halves, f16, none, 8));
  device().submit(enc);
  const std::vector<float> got = out.read();
  EXPECT_EQ(std::bit_cast<uint32_t>(got[1]), std::bit_cast<uint32_t>(separate_out.read()[0]));
  EXPECT_EQ(got[0], kSentinelValue);
  EXPECT_EQ(got[2], kSentinelValue);
  const std::vector<float> input_after = shared.read();
  EXPECT_TRUE(same_bits(std::vector<float>(input_after.begin() + long(scratch_floats), input_after.end()), x));
  const std::vector<float> h = read_tensor(f16, halves, 16);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(h[i], i == 8 ? quarters[6] : quarters[i]) << i;
}

TEST_F(ReduceTest, OutputShapesAndBadArguments) {
  EXPECT_EQ(Reduce::output_shape(std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{1}, true),
            (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(Reduce::output_shape(std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{-1, 0}, false),
            (std::vector<int64_t>{3}));
  Reduce reduce(device());
  auto in = device().create_buffer<float>(24), out = device().create_buffer<float>(24);
  auto enc = device().begin_commands();
  const DataType f32 = DataType::float32;
  const std::vector<int64_t> shape = {2, 3, 4}, out_shape = {3, 4}, kept = {1, 3, 4}, axis0 = {0}, axis1 = {1};
  auto message = [](auto&& f) { return shape_error_message(f); };
  EXPECT_EQ(message([&] {
              reduce.encode(enc, ReduceOp::sum, tensor(in, f32, shape), std::vector<int64_t>{3}, false, tensor(out, f32, out_shape));
            }),
            "Reduce: axes: axis 3 is outside [-3, 3)");
  EXPECT_EQ(message([&] { reduce.encode(enc, ReduceOp::sum, tensor(in, f32, shape), axis0, false, tensor(out, f32, kept)); }),
            "Reduce: output: its shape is not the result's shape (12 elements, keep_dims false)");
  EXPECT_EQ(message([&] { reduce.encode(enc, ReduceOp::sum, tensor(in, f32, shape), axis0, true, tensor(out, f32, kept)); }),
            "no error");
  EXPECT_EQ(message([&] {
              reduce.encode(enc, ReduceOp::sum, tensor(in, f32, shape), axis0, false, tensor(out, DataType::float16, out_shape));
            }),
            "Reduce: output: float16 is not float32");
  EXPECT_EQ(message([&] {
              reduce.encode(enc, ReduceOp::arg_max, tensor(in, f32, shape), axis0, false, tensor(out, f32, out_shape));
            }),
            "Reduce: output: float32 is not int64");
  EXPECT_EQ(message([&] {
              reduce.encode(enc, ReduceOp::sum, tensor(in, DataType::int32, shape), axis0, false,
                            tensor(out, DataType::int32, out_shape));
            }),
            "Reduce: input: int32 is not float32 or float16");
  const std::vector<int64_t> transposed = {1, 2, 6}, negative = {12, -4, 1};
  EXPECT_EQ(message([&] {
              reduce.encode(enc, ReduceOp::sum, tensor(in, f32, shape), axis0, false, tensor(out, f32, out_shape, 0, axis1));
            }),
            "Reduce: strides: output is not dense row-major");
  EXPECT_EQ(message([&] {
              reduce.encode(enc, ReduceOp::sum, tensor(in, f32, shape, 0, negative), axis0, false, tensor(out, f32, out_shape));
            }),
            "Reduce: strides: stride 1 is negative (-4)");
  EXPECT_EQ(message([&] {  // reaches 1 + 1 + 2 x 2 + 3 x 6 = 24 elements from offset 1
              reduce.encode(enc, ReduceOp::sum, tensor(in, f32, shape, 1, transposed), axis0, false, tensor(out, f32, out_shape));
            }),
            "Reduce: input: needs 24 elements from offset 1, the buffer holds 24");
  const std::vector<int64_t> wraps = {274177, 67280421310721};  // 2^64 + 1 elements
  EXPECT_THROW(reduce.encode(enc, ReduceOp::sum, tensor(in, f32, wraps), axis0, false, tensor(out, f32, std::vector<int64_t>{67280421310721})),
               KernelShapeError);
  EXPECT_THROW(reduce.encode(enc, ReduceOp::sum, tensor(in, f32, shape, 1), axis0, false, tensor(out, f32, out_shape)),
               KernelShapeError);  // input past the end
  EXPECT_THROW(reduce.encode(enc, ReduceOp::sum, tensor(in, f32, shape), axis0, false, tensor(in, f32, out_shape)),
               KernelShapeError);  // output overlaps input
  auto small = device().create_buffer<int64_t>(3);
  const std::vector<int64_t> eight = {2, 4};
  EXPECT_THROW(reduce.encode(enc, ReduceOp::arg_max, tensor(in, f32, shape), axis1, false, tensor(small, DataType::int64, eight)),
               KernelShapeError);  // 8 outputs of int64
  const uint64_t dispatches_after_the_good_call = 1;
  EXPECT_EQ(enc.dispatch_count(), dispatches_after_the_good_call);
}

}  // namespace
}  // namespace onegpu::testing
