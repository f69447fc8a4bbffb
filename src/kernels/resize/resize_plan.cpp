#include "kernels/resize/resize_plan.h"

#include <cmath>
#include <string>

#include "kernels/common/checked.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::resize {
namespace {

constexpr const char* kOp = "Resize";
constexpr uint64_t kLimit = uint64_t(1) << 31;

uint32_t u32(uint64_t v) { return static_cast<uint32_t>(v); }

void check_range(const char* name, uint64_t offset, uint64_t count) {
  if (offset >= kLimit || count >= kLimit - offset)
    throw KernelShapeError(kOp, name, "offset " + std::to_string(offset) + " plus " + std::to_string(count) +
                                          " elements is not below 2^31");
}

void unsupported(const char* what, const char* actual) {
  throw UnsupportedError(std::string("Resize ") + what, "not provided", actual);
}

bool bits16(DataType t) { return t == DataType::float16 || t == DataType::bfloat16; }

// The scale of each axis, as the coordinate transformations use it, and the output extent.
void resolve(const ResizeProblem& pr, std::array<float, 2>& scales, Extent2& out) {
  const bool by_size = pr.sizes[0] != 0 || pr.sizes[1] != 0;
  for (int a = 0; a < 2; ++a) {
    if (by_size) {
      if (pr.sizes[a] < 1 || uint64_t(pr.sizes[a]) >= kLimit)
        throw KernelShapeError(kOp, "sizes", "output extents must lie in [1, 2^31) (got " + std::to_string(pr.sizes[a]) + ")");
      out[a] = pr.sizes[a];
      scales[a] = float(pr.sizes[a]) / float(pr.input[a]);
    } else {
      const float s = pr.scales[a];
      if (!(s > 0.f) || !std::isfinite(s))
        throw KernelShapeError(kOp, "scales", "scales must be positive and finite (got " + std::to_string(s) + ")");
      const double n = std::floor(double(pr.input[a]) * double(s));
      if (n < 1 || n >= double(kLimit))
        throw KernelShapeError(kOp, "scales", "the output extent floor(" + std::to_string(pr.input[a]) + " * " +
                                                  std::to_string(s) + ") is not in [1, 2^31)");
      out[a] = int64_t(n);
      scales[a] = s;
    }
  }
}

}  // namespace

float source_coordinate(ResizeCoordinates c, float o, float scale, int64_t in, int64_t out) {
  switch (c) {
    case ResizeCoordinates::half_pixel: return (o + 0.5f) / scale - 0.5f;
    case ResizeCoordinates::half_pixel_symmetric: {
      const float adjustment = float(out) / (scale * float(in));
      const float center = float(in) / 2.f;
      const float offset = center * (1.f - adjustment);
      return offset + (o + 0.5f) / scale - 0.5f;
    }
    case ResizeCoordinates::pytorch_half_pixel: return out > 1 ? (o + 0.5f) / scale - 0.5f : 0.f;
    case ResizeCoordinates::align_corners: return out == 1 ? 0.f : o * float(in - 1) / float(out - 1);
    case ResizeCoordinates::asymmetric: return o / scale;
    case ResizeCoordinates::tf_crop_and_resize: break;
  }
  return 0.f;
}

ResizeTap tap_for(const ResizeProblem& pr, float coordinate, int64_t in) {
  const double x = double(coordinate), last = double(in - 1);
  if (pr.mode == ResizeMode::nearest) {
    double r = 0;
    const double f = std::floor(x);
    switch (pr.nearest_mode) {
      case ResizeNearestMode::round_prefer_floor: r = x - f > 0.5 ? f + 1 : f; break;
      case ResizeNearestMode::round_prefer_ceil: r = x - f >= 0.5 ? f + 1 : f; break;
      case ResizeNearestMode::floor: r = f; break;
      case ResizeNearestMode::ceil: r = std::ceil(x); break;
    }
    const uint32_t i = u32(uint64_t(std::isnan(r) ? 0.0 : std::fmin(std::fmax(r, 0.0), last)));
    return {i, i, 0.f};
  }
  const double c = std::isnan(x) ? 0.0 : std::fmin(std::fmax(x, 0.0), last);
  const double f = std::floor(c);
  const uint32_t i0 = u32(uint64_t(f));
  const uint32_t i1 = i0 + 1 <= u32(uint64_t(last)) ? i0 + 1 : i0;
  return {i0, i1, float(c - f)};
}

Plan plan(const ResizeProblem& pr) {
  if (pr.mode == ResizeMode::cubic) unsupported("mode", "cubic");
  if (pr.coordinates == ResizeCoordinates::tf_crop_and_resize)
    unsupported("coordinate_transformation_mode", "tf_crop_and_resize");
  if (pr.antialias) unsupported("antialias", "antialias = 1");
  if (pr.exclude_outside) unsupported("exclude_outside", "exclude_outside = 1");
  const DataType t = pr.type;
  const bool half = bits16(t);
  if (pr.mode == ResizeMode::nearest) {
    if (t != DataType::float32 && t != DataType::int32 && t != DataType::uint32 && !half)
      throw UnsupportedError("Resize type", "a 32- or 16-bit type (float32, int32, uint32, float16, bfloat16)",
                             std::string(data_type_name(t)));
  } else if (t != DataType::float32 && t != DataType::float16) {
    throw UnsupportedError("Resize linear type", "float32 or float16", std::string(data_type_name(t)));
  }
  if (pr.batch < 1 || pr.channels < 1 || pr.input[0] < 1 || pr.input[1] < 1 || uint64_t(pr.input[0]) >= kLimit ||
      uint64_t(pr.input[1]) >= kLimit)
    throw KernelShapeError(kOp, "x", "batch, channels, height and width must lie in [1, 2^31)");
  Plan p;
  const int64_t planes = checked_mul(kOp, "x", pr.batch, pr.channels);
  p.input_count = uint64_t(checked_mul(kOp, "x", planes, checked_mul(kOp, "x", pr.input[0], pr.input[1])));
  check_range("x", pr.x_offset, p.input_count);
  resolve(pr, p.scales, p.output);
  p.output_count = uint64_t(checked_mul(kOp, "y", planes, checked_mul(kOp, "y", p.output[0], p.output[1])));
  check_range("y", pr.y_offset, p.output_count);
  // The tap buffer's word indices fit 32 bits.
  if ((uint64_t(p.output[0]) + uint64_t(p.output[1])) * OG_RESIZE_TAP_WORDS >= (uint64_t(1) << 32))
    throw KernelShapeError(kOp, "y", "the output extents need more than 2^32 tap words");
  static constexpr std::string_view kNames[2][2] = {{"resize.nearest.b32", "resize.nearest.b16"},
                                                    {"resize.linear.f32", "resize.linear.f16"}};
  p.variant = kNames[pr.mode == ResizeMode::linear][half];
  ResizePush& s = p.push;
  s.x_offset = u32(pr.x_offset);
  s.y_offset = u32(pr.y_offset);
  s.count = u32(p.output_count);
  s.units = half ? u32((pr.y_offset + p.output_count + 1) / 2 - pr.y_offset / 2) : s.count;
  s.in_h = u32(uint64_t(pr.input[0]));
  s.in_w = u32(uint64_t(pr.input[1]));
  s.out_h = u32(uint64_t(p.output[0]));
  s.out_w = u32(uint64_t(p.output[1]));
  s.columns_at = u32(uint64_t(p.output[0]) * OG_RESIZE_TAP_WORDS);
  p.workgroups = (uint64_t(s.units) + OG_RESIZE_WORKGROUP - 1) / OG_RESIZE_WORKGROUP;
  return p;
}

}  // namespace onegpu::kernels::resize

namespace onegpu::kernels {

ResizeTaps ResizeTaps::of(const ResizeProblem& pr) {
  const resize::Plan p = resize::plan(pr);
  ResizeTaps t;
  t.output = p.output;
  for (int a = 0; a < 2; ++a) {
    auto& list = a == 0 ? t.rows : t.columns;
    list.reserve(size_t(p.output[a]));
    for (int64_t o = 0; o < p.output[a]; ++o)
      list.push_back(resize::tap_for(
          pr, resize::source_coordinate(pr.coordinates, float(o), p.scales[a], pr.input[a], p.output[a]), pr.input[a]));
  }
  return t;
}

}  // namespace onegpu::kernels
