// Element-wise benchmark cases (float32 unless stated); the variant column is the variant table's name.
#include "harness.h"
#include "onegpu/kernels/elementwise.h"

namespace onegpu::bench {

std::vector<Case> elementwise_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  auto ew = std::make_shared<Elementwise>(device);
  keep.push_back(ew);
  const int64_t n = options.quick ? (1 << 16) : (1 << 28);
  CaseBuilder builder(device, options, keep);
  const DataType f32 = DataType::float32;
  auto add = [&](Case c) { builder.add(std::move(c)); };
  // Operands shared by the float32 cases, created for the first case the filter keeps.
  std::shared_ptr<Buffer<float>> x, y, out;
  auto floats = [&] {
    if (!x) {
      x = builder.tensor(uint64_t(n), 1);
      y = builder.tensor(uint64_t(n), 2);
      out = builder.tensor(uint64_t(n), 3);
    }
  };
  auto shape = builder.keep(std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{n}));
  if (builder.wants("add", "float32", std::to_string(n))) {
    floats();
    const TensorRef in[] = {{x.get(), 0, *shape, {}, f32}, {y.get(), 0, *shape, {}, f32}};
    const std::string variant(ew->variant(ElementwiseOperation::binary, in, {out.get(), 0, *shape, {}, f32}));
    add({"add", "float32", std::to_string(n), variant, 0, 12.0 * double(n), [=](CommandEncoder& e) {
           ew->binary(e, BinaryOp::add, {x.get(), 0, *shape, {}, f32}, {y.get(), 0, *shape, {}, f32}, {out.get(), 0, *shape, {}, f32});
         }});
  }
  if (builder.wants("add_bias", "float32", std::to_string(n / 4096) + "x4096")) {
    floats();
    auto rows = builder.keep(std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{n / 4096, 4096}));
    auto bias_shape = builder.keep(std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{4096}));
    const TensorRef in[] = {{x.get(), 0, *rows, {}, f32}, {y.get(), 0, *bias_shape, {}, f32}};
    const std::string variant(ew->variant(ElementwiseOperation::binary, in, {out.get(), 0, *rows, {}, f32}));
    add({"add_bias", "float32", std::to_string(n / 4096) + "x4096", variant, 0, 8.0 * double(n), [=](CommandEncoder& e) {
           ew->binary(e, BinaryOp::add, {x.get(), 0, *rows, {}, f32}, {y.get(), 0, *bias_shape, {}, f32}, {out.get(), 0, *rows, {}, f32});
         }});
  }
  if (builder.wants("gelu_erf", "float32", std::to_string(n))) {
    floats();
    const TensorRef in[] = {{x.get(), 0, *shape, {}, f32}};
    const std::string variant(ew->variant(ElementwiseOperation::unary, in, {out.get(), 0, *shape, {}, f32}));
    add({"gelu_erf", "float32", std::to_string(n), variant, 0, 8.0 * double(n), [=](CommandEncoder& e) {
           ew->unary(e, {UnaryOp::gelu_erf}, {x.get(), 0, *shape, {}, f32}, {out.get(), 0, *shape, {}, f32});
         }});
  }
  if (builder.wants("where", "float32", std::to_string(n))) {
    floats();
    auto cond = builder.integers<uint8_t>(uint64_t(n), 4, 0, 1);
    const TensorRef in[] = {{cond.get(), 0, *shape, {}, DataType::boolean}, {x.get(), 0, *shape, {}, f32},
                            {y.get(), 0, *shape, {}, f32}};
    const std::string variant(ew->variant(ElementwiseOperation::where, in, {out.get(), 0, *shape, {}, f32}));
    add({"where", "float32", std::to_string(n), variant, 0, 13.0 * double(n), [=](CommandEncoder& e) {
           ew->where(e, {cond.get(), 0, *shape, {}, DataType::boolean}, {x.get(), 0, *shape, {}, f32}, {y.get(), 0, *shape, {}, f32},
                     {out.get(), 0, *shape, {}, f32});
         }});
  }
  if (builder.wants("add_int64", "int64", std::to_string(n / 2))) {
    auto li = builder.integers<int64_t>(uint64_t(n / 2), 5, INT64_MIN / 2, INT64_MAX / 2);
    auto lj = builder.integers<int64_t>(uint64_t(n / 2), 6, INT64_MIN / 2, INT64_MAX / 2);
    auto lo = builder.integers<int64_t>(uint64_t(n / 2), 7, -1, 1);
    auto half_shape = builder.keep(std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{n / 2}));
    const TensorRef in[] = {{li.get(), 0, *half_shape, {}, DataType::int64}, {lj.get(), 0, *half_shape, {}, DataType::int64}};
    const std::string variant(
        ew->variant(ElementwiseOperation::integer_binary, in, {lo.get(), 0, *half_shape, {}, DataType::int64}));
    add({"add_int64", "int64", std::to_string(n / 2), variant, 0, 24.0 * double(n / 2), [=](CommandEncoder& e) {
           ew->integer_binary(e, IntegerOp::add, {li.get(), 0, *half_shape, {}, DataType::int64},
                              {lj.get(), 0, *half_shape, {}, DataType::int64}, {lo.get(), 0, *half_shape, {}, DataType::int64});
         }});
  }
  return builder.take();
}

const FamilyCases kRegistered("elementwise", &elementwise_cases);

}  // namespace onegpu::bench
