// Reduction, softmax and normalisation benchmark cases (float32), in fast and in deterministic mode
// (the deterministic rows' variant starts with "deterministic"); the variant column is the variant
// table's name (two passes joined by '+').
#include "harness.h"
#include "onegpu/kernels/reduce.h"

namespace onegpu::bench {

namespace {

void add_cases(CaseBuilder& builder, Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep,
               kernels::KernelMode mode) {
  using namespace kernels;
  auto reduce = std::make_shared<Reduce>(device, RowKernelOptions{.mode = mode});
  auto softmax = std::make_shared<Softmax>(device, RowKernelOptions{.mode = mode});
  auto norm = std::make_shared<Norm>(device, RowKernelOptions{.mode = mode});
  keep.push_back(reduce);
  keep.push_back(softmax);
  keep.push_back(norm);
  const DataType f32 = DataType::float32;
  const std::string prefix = mode == KernelMode::deterministic ? "deterministic " : "";
  auto tensor = [&](uint64_t count, uint32_t seed) { return builder.tensor(count, seed); };
  auto add = [&](Case c) {
    c.variant = prefix + c.variant;
    builder.add(std::move(c));
  };
  const uint64_t big = options.quick ? (1u << 16) : (1u << 28);
  if (builder.wants("sum", "float32", std::to_string(big))) {
    auto x = tensor(big, 1), y = tensor(1, 2);
    std::vector<int64_t> shape = {int64_t(big)};
    add({"sum", "float32", std::to_string(big), reduce->variant(ReduceOp::sum, shape, {}), 0, 4.0 * double(big),
         [=](CommandEncoder& e) {
           reduce->encode(e, ReduceOp::sum, {x.get(), 0, shape, {}, f32}, {}, false, {y.get(), 0, {}, {}, f32});
         }});
  }
  if (const int64_t rows = options.quick ? 256 : 4096, cols = options.quick ? 512 : 65536;
      builder.wants("sum_axis0", "float32", std::to_string(rows) + "x" + std::to_string(cols))) {
    auto x = tensor(uint64_t(rows * cols), 3), y = tensor(uint64_t(cols), 4);
    std::vector<int64_t> shape = {rows, cols}, axes = {0}, out_shape = {cols};
    add({"sum_axis0", "float32", std::to_string(rows) + "x" + std::to_string(cols), reduce->variant(ReduceOp::sum, shape, axes), 0,
         4.0 * double(rows * cols) + 4.0 * double(cols),
         [=](CommandEncoder& e) {
           reduce->encode(e, ReduceOp::sum, {x.get(), 0, shape, {}, f32}, axes, false, {y.get(), 0, out_shape, {}, f32});
         }});
  }
  if (const int64_t rows = options.quick ? 512 : 49152, cols = 512;
      builder.wants("softmax", "float32", std::to_string(rows) + "x512")) {
    auto x = tensor(uint64_t(rows * cols), 5), y = tensor(uint64_t(rows * cols), 6);
    std::vector<int64_t> shape = {rows, cols};
    add({"softmax", "float32", std::to_string(rows) + "x512", softmax->variant(shape, 1), 0, 8.0 * double(rows * cols),
         [=](CommandEncoder& e) { softmax->encode(e, {x.get(), 0, shape, {}, f32}, 1, {y.get(), 0, shape, {}, f32}); }});
  }
  if (const int64_t rows = options.quick ? 64 : 4096; builder.wants("layernorm", "float32", std::to_string(rows) + "x768")) {
    auto x = tensor(uint64_t(rows * 768), 7), y = tensor(uint64_t(rows * 768), 8), w = tensor(768, 9), b = tensor(768, 10);
    std::vector<int64_t> shape = {rows, 768}, row = {768};
    add({"layernorm", "float32", std::to_string(rows) + "x768", norm->variant(), 0, 8.0 * double(rows * 768),
         [=](CommandEncoder& e) {
           norm->encode_layer_norm(e, {x.get(), 0, shape, {}, f32}, {y.get(), 0, shape, {}, f32},
                                   {.scale = {w.get(), 0, row, {}, f32}, .bias = {b.get(), 0, row, {}, f32}});
         }});
  }
  if (const int64_t rows = options.quick ? 64 : 4096, cols = options.quick ? 256 : 4096;
      builder.wants("rmsnorm", "float32", std::to_string(rows) + "x" + std::to_string(cols))) {
    auto x = tensor(uint64_t(rows * cols), 11), y = tensor(uint64_t(rows * cols), 12), w = tensor(uint64_t(cols), 13);
    std::vector<int64_t> shape = {rows, cols}, row = {cols};
    add({"rmsnorm", "float32", std::to_string(rows) + "x" + std::to_string(cols), norm->variant(), 0,
         8.0 * double(rows * cols),
         [=](CommandEncoder& e) {
           norm->encode_rms_norm(e, {x.get(), 0, shape, {}, f32}, {y.get(), 0, shape, {}, f32}, {.scale = {w.get(), 0, row, {}, f32}});
         }});
  }
  if (const int64_t rows = options.quick ? 64 : 4096, cols = options.quick ? 1000 : 32000;
      builder.wants("argmax", "float32", std::to_string(rows) + "x" + std::to_string(cols))) {
    auto x = tensor(uint64_t(rows * cols), 14);
    auto y = std::make_shared<Buffer<int64_t>>(device.create_buffer<int64_t>(uint64_t(rows)));
    keep.push_back(y);
    std::vector<int64_t> shape = {rows, cols}, axes = {1}, out_shape = {rows};
    add({"argmax", "float32", std::to_string(rows) + "x" + std::to_string(cols), reduce->variant(ReduceOp::arg_max, shape, axes), 0,
         4.0 * double(rows * cols),
         [=](CommandEncoder& e) {
           reduce->encode(e, ReduceOp::arg_max, {x.get(), 0, shape, {}, f32}, axes, false,
                          {y.get(), 0, out_shape, {}, DataType::int64});
         }});
  }
}

}  // namespace

std::vector<Case> reduce_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  CaseBuilder builder(device, options, keep);
  add_cases(builder, device, options, keep, kernels::KernelMode::fast);
  add_cases(builder, device, options, keep, kernels::KernelMode::deterministic);
  return builder.take();
}

const FamilyCases kRegistered("reduce", &reduce_cases);

}  // namespace onegpu::bench
