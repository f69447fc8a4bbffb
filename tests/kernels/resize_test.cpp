// Resize against the reference (tests/reference/resize_reference.h): every mode and rounding with
// every coordinate transformation, up and down, integer and non-integer scales, sizes against
// scales, 1 x 1 inputs and outputs, 16-bit elements moved bit for bit at odd offsets. Output buffers
// are filled with random words first; every slot outside y must come back unchanged. Nearest is
// bit-exact (compared as bits, so any 32- or 16-bit pattern, NaN included, must survive); linear
// within the specification's tolerance. Large shapes run with ONEGPU_CONV_FULL=1.
#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <string>

#include "kernels/tensor_helpers.h"
#include "onegpu/kernels/resize.h"
#include "reference/reference.h"
#include "reference/resize_reference.h"
#include "support/device_fixture.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using namespace kernels;

bool full_run() {
  const char* v = std::getenv("ONEGPU_CONV_FULL");
  return v != nullptr && std::string(v) == "1";
}

bool is16(DataType t) { return t == DataType::float16 || t == DataType::bfloat16; }

// Slots of 16 or 32 bits in words.
uint32_t slot(const std::vector<uint32_t>& w, bool b16, uint64_t i) {
  return b16 ? (w[i / 2] >> (16 * (i % 2))) & 0xffffu : w[i];
}
void set_slot(std::vector<uint32_t>& w, bool b16, uint64_t i, uint32_t v) {
  if (!b16) {
    w[i] = v;
    return;
  }
  const uint32_t s = 16 * uint32_t(i % 2);
  w[i / 2] = (w[i / 2] & ~(0xffffu << s)) | (v << s);
}
std::vector<uint32_t> words_for(bool b16, uint64_t offset, uint64_t n, uint32_t seed) {
  return random_words((offset + n + (b16 ? 1 : 0)) / (b16 ? 2 : 1) + 2, seed);
}

const ResizeCoordinates kTransforms[] = {ResizeCoordinates::half_pixel, ResizeCoordinates::half_pixel_symmetric,
                                         ResizeCoordinates::pytorch_half_pixel, ResizeCoordinates::align_corners,
                                         ResizeCoordinates::asymmetric};
const ResizeNearestMode kRoundings[] = {ResizeNearestMode::round_prefer_floor, ResizeNearestMode::round_prefer_ceil,
                                        ResizeNearestMode::floor, ResizeNearestMode::ceil};

reference::ResizeGeometry geometry(const ResizePlan& plan) {
  const ResizeProblem& p = plan.problem();
  reference::ResizeGeometry g;
  g.planes = p.batch * p.channels;
  g.in_h = p.input[0];
  g.in_w = p.input[1];
  g.out_h = plan.output_extent()[0];
  g.out_w = plan.output_extent()[1];
  const bool by_size = p.sizes[0] != 0;
  g.scale_h = by_size ? float(p.sizes[0]) / float(p.input[0]) : p.scales[0];
  g.scale_w = by_size ? float(p.sizes[1]) / float(p.input[1]) : p.scales[1];
  g.transform = reference::ResizeTransform(int(p.coordinates));
  return g;
}

std::string name_of(const ResizeProblem& p) {
  return std::string(data_type_name(p.type)) + " " + std::to_string(p.input[0]) + "x" + std::to_string(p.input[1]) +
         " mode " + std::to_string(int(p.mode)) + " rounding " + std::to_string(int(p.nearest_mode)) + " transform " +
         std::to_string(int(p.coordinates)) + " scales " + std::to_string(p.scales[0]) + "," +
         std::to_string(p.scales[1]) + " sizes " + std::to_string(p.sizes[0]) + "," + std::to_string(p.sizes[1]);
}

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class ResizeFixture : public Base {
 protected:
  // Runs the plan on random bits (nearest) or random values (linear) and checks every slot of y's
  // buffer; returns y's words.
  std::vector<uint32_t> check(Resize& resize, const ResizeProblem& p, uint32_t seed = 1) {
    SCOPED_TRACE(name_of(p));
    ResizePlan plan(this->device(), p);
    const bool b16 = is16(p.type);
    const uint64_t n = plan.input_elements(), m = plan.output_elements();
    std::vector<uint32_t> xw = words_for(b16, p.x_offset, n, seed);
    std::vector<double> xd(n);
    if (p.mode == ResizeMode::linear) {
      const auto v = stored(p.type, random_floats(n, seed + 7, -2.f, 2.f));
      for (uint64_t i = 0; i < n; ++i) {
        set_slot(xw, b16, p.x_offset + i, b16 ? uint32_t(to_float16(v[i]).bits) : std::bit_cast<uint32_t>(v[i]));
        xd[i] = v[i];
      }
    }
    const std::vector<uint32_t> before = words_for(b16, p.y_offset, m, seed + 1);
    auto xb = this->device().create_buffer(xw);
    auto yb = this->device().create_buffer(before);
    auto enc = this->device().begin_commands();
    resize.encode(enc, plan, xb, yb);
    this->device().submit(enc);
    const std::vector<uint32_t> got = yb.read();
    const uint64_t slots = b16 ? 2 * got.size() : got.size();
    uint64_t outside = 0, wrong = 0;
    for (uint64_t i = 0; i < slots; ++i)
      if ((i < p.y_offset || i >= p.y_offset + m) && slot(got, b16, i) != slot(before, b16, i)) ++outside;
    EXPECT_EQ(outside, 0u) << "slots outside y changed";
    if (p.mode == ResizeMode::nearest) {
      const auto src = reference::resize_nearest(geometry(plan), reference::ResizeRounding(int(p.nearest_mode)));
      EXPECT_EQ(src.size(), m);
      for (uint64_t i = 0; i < m; ++i) {
        const uint32_t expected = slot(xw, b16, p.x_offset + uint64_t(src[i]));
        if (slot(got, b16, p.y_offset + i) != expected && wrong++ < 5)
          ADD_FAILURE() << "output " << i << ": got bits " << slot(got, b16, p.y_offset + i) << " expected "
                        << expected << " (input " << src[i] << ")";
      }
      EXPECT_EQ(wrong, 0u);
    } else {
      const auto ref = reference::resize_linear(geometry(plan), xd);
      std::vector<float> gpu(m);
      for (uint64_t i = 0; i < m; ++i) {
        const uint32_t b = slot(got, b16, p.y_offset + i);
        gpu[i] = b16 ? to_float(float16{uint16_t(b)}) : std::bit_cast<float>(b);
      }
      EXPECT_LE(reference::scaled_error(gpu, ref), tolerance(p.type));
    }
    return got;
  }
};

using ResizeTest = ResizeFixture<DeviceTest>;
// On every backend with the same references, tolerances and bit checks.
using ResizeOnEveryBackend = ResizeFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, ResizeOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

ResizeProblem problem(DataType t, Extent2 in, std::array<float, 2> scales, Extent2 sizes = {0, 0}) {
  ResizeProblem p;
  p.type = t;
  p.batch = 2;
  p.channels = 3;
  p.input = in;
  p.scales = scales;
  p.sizes = sizes;
  return p;
}

TEST_P(ResizeOnEveryBackend, NearestEveryRoundingAndTransform) {
  Resize resize(device());
  const std::array<float, 2> scales[] = {{2.f, 3.f}, {0.5f, 0.75f}, {1.7f, 0.6f}, {2.5f, 1.f / 3.f}};
  for (ResizeCoordinates c : kTransforms)
    for (ResizeNearestMode r : kRoundings)
      for (const auto& s : scales) {
        ResizeProblem p = problem(DataType::float32, {7, 9}, s);
        p.coordinates = c;
        p.nearest_mode = r;
        p.y_offset = 1;
        check(resize, p, 3);
      }
}

TEST_P(ResizeOnEveryBackend, LinearEveryTransform) {
  Resize resize(device());
  const std::array<float, 2> scales[] = {{2.f, 2.f}, {0.5f, 0.6f}, {1.7f, 0.35f}, {3.f, 1.25f}};
  for (DataType t : {DataType::float32, DataType::float16})
    for (ResizeCoordinates c : kTransforms)
      for (const auto& s : scales) {
        ResizeProblem p = problem(t, {8, 11}, s);
        p.mode = ResizeMode::linear;
        p.coordinates = c;
        p.x_offset = 3;
        p.y_offset = t == DataType::float16 ? 1 : 0;
        check(resize, p, 5);
      }
}

TEST_P(ResizeOnEveryBackend, SizesAgainstScales) {
  Resize resize(device());
  for (ResizeMode mode : {ResizeMode::nearest, ResizeMode::linear})
    for (ResizeCoordinates c : kTransforms) {
      // Sizes whose ratio float32 cannot hold exactly; the scale used is out / in.
      ResizeProblem p = problem(DataType::float32, {9, 7}, {1.f, 1.f}, {20, 3});
      p.mode = mode;
      p.coordinates = c;
      ResizePlan plan(device(), p);
      EXPECT_EQ(plan.output_extent(), (Extent2{20, 3}));
      check(resize, p, 9);
      // Scales whose product with the input is not whole: floor.
      ResizeProblem q = problem(DataType::float32, {9, 7}, {2.3f, 0.45f});
      q.mode = mode;
      q.coordinates = c;
      EXPECT_EQ(ResizePlan(device(), q).output_extent(), (Extent2{20, 3}));
      check(resize, q, 10);
    }
}

TEST_P(ResizeOnEveryBackend, OneByOneInputsAndOutputs) {
  Resize resize(device());
  for (ResizeMode mode : {ResizeMode::nearest, ResizeMode::linear})
    for (ResizeCoordinates c : kTransforms) {
      ResizeProblem up = problem(DataType::float32, {1, 1}, {4.f, 3.f});
      up.mode = mode;
      up.coordinates = c;
      check(resize, up, 12);
      ResizeProblem down = problem(DataType::float32, {5, 6}, {1.f, 1.f}, {1, 1});
      down.mode = mode;
      down.coordinates = c;
      check(resize, down, 13);
    }
}

TEST_P(ResizeOnEveryBackend, SixteenAndThirtyTwoBitElementsBitForBit) {
  Resize resize(device());
  for (DataType t : {DataType::float16, DataType::bfloat16, DataType::int32, DataType::uint32, DataType::float32})
    for (ResizeNearestMode r : {ResizeNearestMode::round_prefer_floor, ResizeNearestMode::ceil})
      for (uint64_t off : {0u, 1u}) {
        ResizeProblem p = problem(t, {5, 7}, {1.5f, 2.2f});
        p.nearest_mode = r;
        p.coordinates = ResizeCoordinates::asymmetric;
        p.x_offset = off;
        p.y_offset = off ^ 1u;
        check(resize, p, 15);
      }
}

TEST_P(ResizeOnEveryBackend, BothModesAndTwoRunsGiveTheSameBits) {
  Resize fast(device(), {.mode = KernelMode::fast});
  Resize det(device(), {.mode = KernelMode::deterministic});
  for (DataType t : {DataType::float32, DataType::float16}) {
    ResizeProblem p = problem(t, {13, 17}, {1.9f, 2.1f});
    p.mode = ResizeMode::linear;
    const auto a = check(fast, p, 20), b = check(det, p, 20), c = check(det, p, 20);
    EXPECT_EQ(a, b);
    EXPECT_EQ(b, c);
  }
}

// x in y's buffer (disjoint): the same bits as from another buffer, or, where a buffer bound
// writable may not be bound again in a dispatch (WebGPU), refused before recording.
TEST_P(ResizeOnEveryBackend, InputInTheOutputsBuffer) {
  Resize resize(device());
  ResizeProblem p = problem(DataType::float32, {5, 7}, {1.5f, 2.f});
  p.mode = ResizeMode::linear;
  ResizePlan plan(device(), p);
  const uint64_t n = plan.input_elements(), m = plan.output_elements();
  ResizeProblem q = p;
  q.y_offset = n;
  ResizePlan shared_plan(device(), q);
  const std::vector<float> v = random_floats(n + m, 4, -2.f, 2.f);
  auto shared = device().create_buffer(v);
  auto x = device().create_buffer(std::vector<float>(v.begin(), v.begin() + ptrdiff_t(n)));
  auto y = device().create_buffer(std::vector<float>(m, 0.f));
  auto enc = device().begin_commands();
  if (!caps().aliased_writable_bindings) {
    try {
      resize.encode(enc, shared_plan, shared, shared);
      ADD_FAILURE() << "no error";
    } catch (const UnsupportedError& e) {
      EXPECT_EQ(e.capability(), "aliased_writable_bindings");
    }
    EXPECT_EQ(enc.dispatch_count(), 0u);
    return;
  }
  resize.encode(enc, shared_plan, shared, shared);
  resize.encode(enc, plan, x, y);
  device().submit(enc);
  const std::vector<float> got = shared.read(), want = y.read();
  EXPECT_EQ(0, std::memcmp(got.data() + n, want.data(), m * sizeof(float)));
}

TEST_F(ResizeTest, ChecksBeforeRecording) {
  Resize resize(device());
  ResizeProblem p = problem(DataType::float32, {4, 4}, {2.f, 2.f});
  p.batch = 1;
  p.channels = 1;
  ResizePlan plan(device(), p);
  auto small = device().create_buffer<float>(16);
  auto big = device().create_buffer<float>(4096);
  auto enc = device().begin_commands();
  EXPECT_NE(shape_error_message([&] { resize.encode(enc, plan, big, small); }).find("Resize: y: "), std::string::npos);
  EXPECT_NE(shape_error_message([&] { resize.encode(enc, plan, big, big); }).find("Resize: y: overlaps x"),
            std::string::npos);
  EXPECT_EQ(shape_error_message([&] { resize.encode(enc, plan, small, big); }), "no error");
  ResizeProblem cubic = p;
  cubic.mode = ResizeMode::cubic;
  EXPECT_THROW((void)ResizePlan(device(), cubic), UnsupportedError);
  ResizeProblem crop = p;
  crop.coordinates = ResizeCoordinates::tf_crop_and_resize;
  EXPECT_THROW((void)ResizePlan(device(), crop), UnsupportedError);
  ResizeProblem aa = p;
  aa.antialias = true;
  EXPECT_THROW((void)ResizePlan(device(), aa), UnsupportedError);
  ResizeProblem ex = p;
  ex.exclude_outside = true;
  EXPECT_THROW((void)ResizePlan(device(), ex), UnsupportedError);
  ResizeProblem lin16 = p;
  lin16.mode = ResizeMode::linear;
  lin16.type = DataType::bfloat16;
  EXPECT_THROW((void)ResizePlan(device(), lin16), UnsupportedError);
  ResizeProblem zero = p;
  zero.scales = {0.1f, 1.f};
  EXPECT_NE(shape_error_message([&] { (void)ResizePlan(device(), zero); }).find("Resize: scales: "), std::string::npos);
  device().submit(enc);
}

TEST_P(ResizeOnEveryBackend, LargeShapes) {
  if (!full_run()) GTEST_SKIP() << "set ONEGPU_CONV_FULL=1";
  Resize resize(device());
  for (DataType t : {DataType::float32, DataType::float16}) {
    ResizeProblem p = problem(t, {128, 128}, {2.f, 2.f});
    p.batch = 1;
    p.channels = 256;
    p.mode = ResizeMode::linear;
    check(resize, p, 30);
    p.mode = ResizeMode::nearest;
    check(resize, p, 31);
  }
}

}  // namespace
}  // namespace onegpu::testing
