// ConvInteger benchmark cases, uint8 x int8 -> int32: the Whisper encoder's two stem convolutions
// (1-D over 3000 frames, as 2-D with height 1) and a ResNet-50 3 x 3 layer at batch 8. Shapes read
// "n<batch> c<in>><out> <h>x<w> k<kernel> s<stride> p<pad> g<groups>" (a height of 1 means a 1-D
// kernel) so that bench/torch_compare.py rebuilds the same layer.
#include "harness.h"
#include "onegpu/kernels/conv_integer.h"

namespace onegpu::bench {
namespace {

struct Layer {
  int64_t batch, cin, cout, h, w, k, stride;
};

kernels::ConvIntegerProblem problem(const Layer& l) {
  kernels::ConvIntegerProblem p;
  p.batch = l.batch, p.in_channels = l.cin, p.out_channels = l.cout, p.input = {l.h, l.w};
  p.x_type = DataType::uint8, p.w_type = DataType::int8;
  const int64_t pad = (l.k - 1) / 2;
  if (l.h == 1)
    p.window = kernels::Window{{1, l.k}, {1, l.stride}, {1, 1}, {0, pad, 0, pad}};
  else
    p.window = kernels::Window{{l.k, l.k}, {l.stride, l.stride}, {1, 1}, {pad, pad, pad, pad}};
  return p;
}

std::string shape_of(const Layer& l) {
  return "n" + std::to_string(l.batch) + " c" + std::to_string(l.cin) + ">" + std::to_string(l.cout) + " " +
         std::to_string(l.h) + "x" + std::to_string(l.w) + " k" + std::to_string(l.k) + " s" +
         std::to_string(l.stride) + " p" + std::to_string((l.k - 1) / 2) + " g1";
}

std::vector<Case> conv_integer_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  std::vector<Layer> layers = {{1, 80, 768, 1, 3000, 3, 1}, {1, 768, 768, 1, 3000, 3, 2}, {8, 256, 256, 14, 14, 3, 1}};
  if (options.quick) layers = {{1, 80, 64, 1, 300, 3, 1}, {1, 64, 64, 1, 300, 3, 2}, {2, 32, 32, 7, 7, 3, 1}};
  CaseBuilder builder(device, options, keep);
  auto conv = builder.keep(std::make_shared<kernels::ConvInteger>(device));
  const std::string dtype = "uint8xint8";
  for (const Layer& l : layers) {
    const std::string shape = shape_of(l);
    if (!builder.wants("conv_integer", dtype, shape)) continue;
    const kernels::ConvIntegerProblem p = problem(l);
    const kernels::Extent2 o = p.output();
    const uint64_t nx = uint64_t(l.batch * l.cin * l.h * l.w), nw = uint64_t(l.cout * l.cin * p.window.kernel[0] * l.k);
    const uint64_t ny = uint64_t(l.batch * l.cout * o[0] * o[1]);
    auto x = builder.integers<uint8_t>((nx + 3) / 4 * 4, 1, 0, 255);
    auto w = builder.integers<int8_t>((nw + 3) / 4 * 4, 2, -128, 127);
    auto y = builder.keep(std::make_shared<Buffer<int32_t>>(device.create_buffer<int32_t>(ny)));
    const kernels::ConvIntegerZeroPoints zero{.x = {.value = 128}, .w = {.value = 0}};
    Case cs;
    cs.op = "conv_integer";
    cs.dtype = dtype;
    cs.shape = shape;
    cs.variant = conv->variant(p, zero);
    cs.flops = 2.0 * double(ny) * double(l.cin) * double(p.window.kernel[0] * l.k);
    cs.bytes = double(nx + nw) + 4.0 * double(ny);
    cs.record = [conv, p, zero, x, w, y](CommandEncoder& enc) { conv->encode(enc, p, zero, {x.get(), w.get(), y.get()}); };
    builder.add(std::move(cs));
  }
  return builder.take();
}

const FamilyCases kRegistered("conv_integer", &conv_integer_cases);

}  // namespace
}  // namespace onegpu::bench
