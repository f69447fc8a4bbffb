// Element-wise benchmark cases (float32 unless stated).
#include "harness.h"
#include "onegpu/kernels/elementwise.h"

namespace onegpu::bench {

std::vector<Case> elementwise_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  auto ew = std::make_shared<Elementwise>(device);
  keep.push_back(ew);
  const int64_t n = options.quick ? (1 << 16) : (1 << 28);
  CaseBuilder builder(device, options, keep);
  auto tensor = [&](uint64_t count, uint32_t seed) { return builder.tensor(count, seed); };
  auto add = [&](Case c) { builder.add(std::move(c)); };
  auto x = tensor(uint64_t(n), 1), y = tensor(uint64_t(n), 2), out = tensor(uint64_t(n), 3);
  auto shape = std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{n});
  keep.push_back(shape);
  add({"add", "float32", std::to_string(n), "same-shape", 0, 12.0 * double(n), [=](CommandEncoder& e) {
         ew->binary(e, BinaryOp::add, DataType::float32, {x.get(), 0, *shape}, {y.get(), 0, *shape}, *out, 0);
       }});
  auto rows = std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{n / 4096, 4096});
  auto bias_shape = std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{4096});
  keep.push_back(rows);
  keep.push_back(bias_shape);
  add({"add_bias", "float32", std::to_string(n / 4096) + "x4096", "bias", 0, 8.0 * double(n), [=](CommandEncoder& e) {
         ew->binary(e, BinaryOp::add, DataType::float32, {x.get(), 0, *rows}, {y.get(), 0, *bias_shape}, *out, 0);
       }});
  add({"gelu_erf", "float32", std::to_string(n), "unary", 0, 8.0 * double(n), [=](CommandEncoder& e) {
         ew->unary(e, UnaryOp::gelu_erf, DataType::float32, {x.get(), 0, *shape}, *out, 0);
       }});
  auto cond = std::make_shared<Buffer<uint8_t>>(device.create_buffer<uint8_t>(uint64_t(n)));
  keep.push_back(cond);
  add({"where", "float32", std::to_string(n), "same-shape", 0, 13.0 * double(n), [=](CommandEncoder& e) {
         ew->where(e, DataType::float32, {cond.get(), 0, *shape}, {x.get(), 0, *shape}, {y.get(), 0, *shape}, *out, 0);
       }});
  auto li = std::make_shared<Buffer<int64_t>>(device.create_buffer<int64_t>(uint64_t(n / 2)));
  auto lj = std::make_shared<Buffer<int64_t>>(device.create_buffer<int64_t>(uint64_t(n / 2)));
  auto lo = std::make_shared<Buffer<int64_t>>(device.create_buffer<int64_t>(uint64_t(n / 2)));
  auto half_shape = std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{n / 2});
  keep.insert(keep.end(), {li, lj, lo, half_shape});
  add({"add_int64", "int64", std::to_string(n / 2), "same-shape", 0, 24.0 * double(n / 2), [=](CommandEncoder& e) {
         ew->integer_binary(e, IntegerOp::add, DataType::int64, {li.get(), 0, *half_shape}, {lj.get(), 0, *half_shape},
                            *lo, 0);
       }});
  return builder.take();
}

}  // namespace onegpu::bench
