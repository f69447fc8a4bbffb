// Quantize benchmark cases; bytes are what the kernels read and write (scale and zero point aside).
#include "harness.h"
#include "onegpu/kernels/quantize.h"

namespace onegpu::bench {

std::vector<Case> quantize_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  auto q = std::make_shared<Quantize>(device);
  keep.push_back(q);
  CaseBuilder builder(device, options, keep);
  const DataType f32 = DataType::float32, u8 = DataType::uint8;
  const bool quick = options.quick;
  auto shape = [&](std::vector<int64_t> s) { return builder.keep(std::make_shared<std::vector<int64_t>>(std::move(s))); };
  auto scalar = shape({});
  // Per-tensor QuantizeLinear and DequantizeLinear of 2^28 elements (float32 <-> uint8).
  const int64_t n = quick ? (int64_t(1) << 16) : (int64_t(1) << 28);
  const std::string name = std::to_string(n);
  auto flat = shape({n});
  if (builder.wants("quantize_linear", "float32", name) || builder.wants("dequantize_linear", "uint8", name)) {
    auto x = builder.tensor(uint64_t(n), 1);
    auto scale = builder.keep(std::make_shared<Buffer<float>>(device.create_buffer(std::vector<float>{0.0173f})));
    auto zero = builder.integers<uint32_t>(1, 2, 128, 128);
    auto bytes8 = builder.integers<uint32_t>(uint64_t(n / 4), 3, 0, 0xffffffffll);
    auto out = builder.tensor(uint64_t(n), 4);
    const TensorRef xf{x.get(), 0, *flat, {}, f32}, xb{bytes8.get(), 0, *flat, {}, u8};
    const TensorRef s{scale.get(), 0, *scalar, {}, f32}, z{zero.get(), 0, *scalar, {}, u8};
    const TensorRef of{out.get(), 0, *flat, {}, f32};
    const double moved = 5.0 * double(n);
    builder.add({"quantize_linear", "float32", name, Quantize::variant(QuantizeOperation::quantize_linear, f32, u8), 0,
                 moved, [=](CommandEncoder& e) { q->quantize_linear(e, xf, s, &z, xb); }});
    builder.add({"dequantize_linear", "uint8", name, Quantize::variant(QuantizeOperation::dequantize_linear, u8, f32),
                 0, moved, [=](CommandEncoder& e) { q->dequantize_linear(e, xb, s, &z, of); }});
  }
  // DynamicQuantizeLinear of a BERT-base activation (128 x 768) and of 2^24 elements: x is read
  // twice (minimum and maximum, then quantize).
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{128, 768}, std::vector<int64_t>{int64_t(1) << 24}}) {
    // --quick keeps the BERT activation and shrinks 2^24 to 2^16.
    const int64_t count = dims.size() > 1 ? dims[0] * dims[1] : (quick ? int64_t(1) << 16 : dims[0]);
    auto s = shape(dims.size() > 1 ? dims : std::vector<int64_t>{count});
    std::string text;
    for (size_t i = 0; i < s->size(); ++i) text += (i ? "x" : "") + std::to_string((*s)[i]);
    if (!builder.wants("dynamic_quantize_linear", "float32", text)) continue;
    auto x = builder.tensor(uint64_t(count), 5);
    auto y = builder.integers<uint32_t>(uint64_t(count / 4 + 1), 6, 0, 0);
    auto ys = builder.tensor(1, 7);
    auto yz = builder.integers<uint32_t>(1, 8, 0, 0);
    const TensorRef xt{x.get(), 0, *s, {}, f32}, yt{y.get(), 0, *s, {}, u8};
    const TensorRef st{ys.get(), 0, *scalar, {}, f32}, zt{yz.get(), 0, *scalar, {}, u8};
    builder.add({"dynamic_quantize_linear", "float32", text,
                 Quantize::variant(QuantizeOperation::dynamic_quantize_linear, f32, u8), 0, 9.0 * double(count),
                 [=](CommandEncoder& e) { q->dynamic_quantize_linear(e, xt, yt, st, zt); }});
  }
  return builder.take();
}

const FamilyCases kRegistered("quantize", &quantize_cases);

}  // namespace onegpu::bench
