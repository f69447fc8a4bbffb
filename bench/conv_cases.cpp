// Convolution benchmark cases: single layers of ResNet-50, MobileNetV3 and a ConvTranspose, and
// every convolution layer of ResNet-50 recorded in sequence (each shape as often as the model uses
// it). Shapes read "n<batch> c<in>><out> <h>x<w> k<kernel> s<stride> p<pad> g<groups>" so that
// bench/torch_compare.py rebuilds the same layer.
#include <random>

#include "harness.h"
#include "onegpu/errors.h"
#include "onegpu/kernels/conv.h"
#include "onegpu/numeric.h"

namespace onegpu::bench {
namespace {

using kernels::Conv;
using kernels::ConvProblem;
using kernels::ConvTensors;
using kernels::ConvTransposeProblem;

struct Layer {
  int64_t cin, cout, hw, k, stride, groups = 1, count = 1;
};

ConvProblem problem(int64_t batch, const Layer& l) {
  ConvProblem p;
  p.batch = batch, p.in_channels = l.cin, p.out_channels = l.cout, p.input = {l.hw, l.hw}, p.groups = l.groups;
  const int64_t pad = (l.k - 1) / 2;
  p.window = kernels::Window{{l.k, l.k}, {l.stride, l.stride}, {1, 1}, {pad, pad, pad, pad}};
  return p;
}

std::string shape_of(int64_t batch, const Layer& l) {
  return "n" + std::to_string(batch) + " c" + std::to_string(l.cin) + ">" + std::to_string(l.cout) + " " +
         std::to_string(l.hw) + "x" + std::to_string(l.hw) + " k" + std::to_string(l.k) + " s" +
         std::to_string(l.stride) + " p" + std::to_string((l.k - 1) / 2) + " g" + std::to_string(l.groups);
}

double flops_of(const ConvProblem& p) {
  const kernels::Extent2 o = p.output();
  return 2.0 * double(p.batch) * double(p.out_channels) * double(o[0] * o[1]) * double(p.in_channels / p.groups) *
         double(p.window.kernel[0] * p.window.kernel[1]);
}

// ResNet-50's convolutions (torchvision, stride on the 3 x 3 layer), input 224 x 224.
const std::vector<Layer> kResNet50 = {
    {3, 64, 224, 7, 2, 1, 1},
    {64, 64, 56, 1, 1, 1, 1},    {256, 64, 56, 1, 1, 1, 2},   {64, 64, 56, 3, 1, 1, 3},
    {64, 256, 56, 1, 1, 1, 4},   // three expansions and the projection
    {256, 128, 56, 1, 1, 1, 1},  {128, 128, 56, 3, 2, 1, 1},  {256, 512, 56, 1, 2, 1, 1},
    {512, 128, 28, 1, 1, 1, 3},  {128, 128, 28, 3, 1, 1, 3},  {128, 512, 28, 1, 1, 1, 4},
    {512, 256, 28, 1, 1, 1, 1},  {256, 256, 28, 3, 2, 1, 1},  {512, 1024, 28, 1, 2, 1, 1},
    {1024, 256, 14, 1, 1, 1, 5}, {256, 256, 14, 3, 1, 1, 5},  {256, 1024, 14, 1, 1, 1, 6},
    {1024, 512, 14, 1, 1, 1, 1}, {512, 512, 14, 3, 2, 1, 1},  {1024, 2048, 14, 1, 2, 1, 1},
    {2048, 512, 7, 1, 1, 1, 2},  {512, 512, 7, 3, 1, 1, 2},   {512, 2048, 7, 1, 1, 1, 3},
};

std::vector<Case> conv_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  CaseBuilder builder(device, options, keep);
  const bool quick = options.quick;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // A buffer of `n` random elements of `t`, kept alive for the run.
  auto buffer = [&](DataType t, uint64_t n) -> std::shared_ptr<RawBuffer> {
    if (t == DataType::float32) {
      std::vector<float> v(n);
      for (auto& x : v) x = dist(rng);
      return builder.keep(std::make_shared<Buffer<float>>(device.create_buffer(v)));
    }
    std::vector<float16> v(padded_length(t, n));
    for (auto& x : v) x = to_float16(dist(rng));
    return builder.keep(std::make_shared<Buffer<float16>>(device.create_buffer(v)));
  };
  struct Single {
    const char* op;
    int64_t batch;
    Layer layer;
  };
  const int64_t b8 = quick ? 1 : 8;
  const std::vector<Single> singles = {
      {"conv", b8, {256, 256, quick ? 7 : 14, 3, 1}},
      {"conv", 1, {quick ? 64 : 512, quick ? 64 : 512, 7, 3, 1}},
      {"conv", b8, {quick ? 128 : 1024, quick ? 64 : 256, quick ? 7 : 14, 1, 1}},
      {"conv", b8, {3, 64, quick ? 32 : 224, 7, 2}},
      {"conv", b8, {64, 64, quick ? 14 : 56, 3, 1}},
      {"conv", b8, {240, 240, 14, 3, 1, 240}},
      {"conv_transpose", b8, {64, 64, quick ? 8 : 32, 4, 2}},
  };
  for (DataType t : {DataType::float32, DataType::float16}) {
    const std::string dtype(data_type_name(t));
    // The automatic choice, deterministic mode, and each product path forced.
    struct Config {
      kernels::KernelMode mode;
      kernels::ConvVariant variant;
      const char* suffix;
    };
    for (const Config& cfg : {Config{kernels::KernelMode::fast, kernels::ConvVariant::automatic, ""},
                              Config{kernels::KernelMode::deterministic, kernels::ConvVariant::automatic, " deterministic"},
                              Config{kernels::KernelMode::fast, kernels::ConvVariant::implicit, " implicit"},
                              Config{kernels::KernelMode::fast, kernels::ConvVariant::unfold, " unfold"},
                              Config{kernels::KernelMode::fast, kernels::ConvVariant::implicit_matrix,
                                     " implicit_matrix"},
                              Config{kernels::KernelMode::fast, kernels::ConvVariant::col2im, " col2im"},
                              Config{kernels::KernelMode::fast, kernels::ConvVariant::winograd, " winograd"}}) {
      const kernels::KernelMode mode = cfg.mode;
      if (t == DataType::float16 && mode == kernels::KernelMode::deterministic) continue;
      if (t != DataType::float16 && cfg.variant == kernels::ConvVariant::implicit_matrix) continue;
      auto conv = builder.keep(
          std::make_shared<Conv>(device, t, kernels::ConvOptions{.mode = mode, .variant = cfg.variant}));
      const std::string suffix = cfg.suffix;
      const bool forced = cfg.variant != kernels::ConvVariant::automatic;
      for (const Single& s : singles) {
        const std::string shape = shape_of(s.batch, s.layer);
        if (!builder.wants(s.op, dtype, shape + suffix)) continue;
        const bool transposed = std::string(s.op) == "conv_transpose";
        // ConvTranspose: automatic (the phases) and col2im forced; convolutions: the product paths.
        const bool col2im = cfg.variant == kernels::ConvVariant::col2im;
        if (transposed ? forced && !col2im : col2im || (forced && s.layer.groups == s.layer.cin)) continue;
        if (transposed) {
          ConvTransposeProblem p;
          p.batch = s.batch, p.in_channels = s.layer.cin, p.out_channels = s.layer.cout;
          p.input = {s.layer.hw, s.layer.hw};
          p.window = kernels::Window{{4, 4}, {2, 2}, {1, 1}, {1, 1, 1, 1}};
          const kernels::Extent2 o = p.output();
          auto x = buffer(t, uint64_t(p.batch * p.in_channels * p.input[0] * p.input[1]));
          auto w = buffer(t, uint64_t(p.in_channels * p.out_channels * 16));
          auto y = buffer(t, uint64_t(p.batch * p.out_channels * o[0] * o[1]));
          const double flops = 2.0 * double(p.batch * p.in_channels * p.input[0] * p.input[1]) * double(p.out_channels) * 16;
          builder.add({s.op, dtype, shape + suffix, conv->variant(p), flops, 0, [=](CommandEncoder& e) {
                         conv->encode(e, p, ConvTensors{x.get(), w.get(), nullptr, nullptr, y.get()});
                       }});
          continue;
        }
        const ConvProblem p = problem(s.batch, s.layer);
        const kernels::Extent2 o = p.output();
        auto x = buffer(t, uint64_t(p.batch * p.in_channels * p.input[0] * p.input[1]));
        auto w = buffer(t, uint64_t(p.out_channels * (p.in_channels / p.groups) * s.layer.k * s.layer.k));
        auto y = buffer(t, uint64_t(p.batch * p.out_channels * o[0] * o[1]));
        std::string variant;
        try {
          variant = conv->variant(p);
        } catch (const UnsupportedError&) {
          continue;  // a forced variant the device or the shape does not take
        }
        builder.add({s.op, dtype, shape + suffix, variant, flops_of(p), 0, [=](CommandEncoder& e) {
                       conv->encode(e, p, ConvTensors{x.get(), w.get(), nullptr, nullptr, y.get()});
                     }});
      }
      // ResNet-50's distinct float16 layers one by one at batch 8 (the paths' speeds per layer),
      // only when the filter names them ("--filter resnet50-layer").
      if (t == DataType::float16 && options.filter.find("resnet50-layer") != std::string::npos) {
        for (const Layer& l : kResNet50) {
          const std::string shape = shape_of(b8, l) + " resnet50-layer" + suffix;
          if (!builder.wants("conv", dtype, shape)) continue;
          const ConvProblem p = problem(b8, l);
          std::string variant;
          try {
            variant = conv->variant(p);
          } catch (const UnsupportedError&) {
            continue;
          }
          const kernels::Extent2 o = p.output();
          auto x = buffer(t, uint64_t(p.batch * p.in_channels * p.input[0] * p.input[1]));
          auto w = buffer(t, uint64_t(p.out_channels * p.in_channels * l.k * l.k));
          auto y = buffer(t, uint64_t(p.batch * p.out_channels * o[0] * o[1]));
          builder.add({"conv", dtype, shape, variant, flops_of(p), 0, [=](CommandEncoder& e) {
                         conv->encode(e, p, ConvTensors{x.get(), w.get(), nullptr, nullptr, y.get()});
                       }});
        }
      }
      // Every convolution of ResNet-50 in sequence, at batch 1 and 8.
      for (int64_t batch : {int64_t(1), b8}) {
        const std::string shape = "resnet50 n" + std::to_string(batch);
        if (quick || forced || !builder.wants("conv_model", dtype, shape + suffix)) continue;
        uint64_t most_x = 0, most_w = 0, most_y = 0;
        double flops = 0;
        std::vector<ConvProblem> list;
        for (const Layer& l : kResNet50) {
          const ConvProblem p = problem(batch, l);
          const kernels::Extent2 o = p.output();
          most_x = std::max<uint64_t>(most_x, uint64_t(batch * l.cin * l.hw * l.hw));
          most_w = std::max<uint64_t>(most_w, uint64_t(l.cout * l.cin * l.k * l.k));
          most_y = std::max<uint64_t>(most_y, uint64_t(batch * l.cout * o[0] * o[1]));
          for (int64_t i = 0; i < l.count; ++i) list.push_back(p), flops += flops_of(p);
        }
        auto x = buffer(t, most_x), w = buffer(t, most_w), y = buffer(t, most_y);
        builder.add({"conv_model", dtype, shape + suffix, "layers", flops, 0, [=](CommandEncoder& e) {
                       for (const ConvProblem& p : list)
                         conv->encode(e, p, ConvTensors{x.get(), w.get(), nullptr, nullptr, y.get()});
                     }});
      }
    }
  }
  return builder.take();
}

const FamilyCases kRegistered("conv", &conv_cases);

}  // namespace
}  // namespace onegpu::bench
