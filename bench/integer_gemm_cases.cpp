// 8-bit product benchmark cases (shapes are M x N x K, B stored K x N): int8 x int8 -> int32
// ("MatMulInteger"), uint8 activations with a zero point times int8 weights with one per column (the
// ONNX MatMulInteger of a quantized model, dtype "uint8") and the float-scaled form of a BERT linear
// layer ("QLinearMatMul").
#include "harness.h"
#include "onegpu/kernels/integer_gemm.h"

namespace onegpu::bench {
namespace {

struct Row {
  const char* op;
  uint64_t m, n, k;
  bool zero_points = false;  // uint8 A with a zero point, int8 B with one per column
};

}  // namespace

std::vector<Case> integer_gemm_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  std::vector<Row> rows = {{"matmul_integer", 4096, 4096, 4096}, {"matmul_integer", 8192, 8192, 8192},
                           {"matmul_integer", 1024, 3072, 768},  {"matmul_integer", 32, 4096, 4096},
                           {"matmul_integer", 4096, 4096, 4096, true}, {"qlinear_matmul", 128, 768, 768}};
  if (options.quick) rows = {{"matmul_integer", 64, 64, 64}, {"matmul_integer", 2, 96, 128}, {"qlinear_matmul", 40, 48, 64}};
  CaseBuilder builder(device, options, keep);
  auto gemm = builder.keep(std::make_shared<kernels::IntegerGemm>(device));
  for (const Row& r : rows) {
    const std::string shape = std::to_string(r.m) + "x" + std::to_string(r.n) + "x" + std::to_string(r.k);
    const char* dtype = r.zero_points ? "uint8" : "int8";
    if (!builder.wants(r.op, dtype, shape)) continue;
    auto a = builder.integers<int8_t>((r.m * r.k + 3) / 4 * 4, 1, -128, 127);
    auto b = builder.integers<int8_t>((r.k * r.n + 3) / 4 * 4, 2, -128, 127);
    const kernels::IntegerGemmProblem p{.m = r.m, .n = r.n, .k = r.k,
                                        .a_type = r.zero_points ? DataType::uint8 : DataType::int8,
                                        .b_type = DataType::int8};
    Case cs;
    cs.op = r.op;
    cs.dtype = dtype;
    cs.shape = shape;
    cs.variant = gemm->variant(p);
    cs.flops = 2.0 * double(r.m) * double(r.n) * double(r.k);
    cs.bytes = double(r.m * r.k + r.k * r.n) + 4.0 * double(r.m * r.n);
    if (std::string(r.op) == "matmul_integer" && r.zero_points) {
      auto zb = builder.integers<int8_t>((r.n + 3) / 4 * 4, 5, -128, 127);
      auto c = builder.keep(std::make_shared<Buffer<int32_t>>(device.create_buffer<int32_t>(r.m * r.n)));
      cs.record = [gemm, p, a, b, c, zb](CommandEncoder& enc) {
        gemm->encode(enc, p, *a, *b, {.a = {.value = 131}, .b = {.buffer = zb.get(), .per_channel = true}}, *c);
      };
    } else if (std::string(r.op) == "matmul_integer") {
      auto c = builder.keep(std::make_shared<Buffer<int32_t>>(device.create_buffer<int32_t>(r.m * r.n)));
      cs.record = [gemm, p, a, b, c](CommandEncoder& enc) { gemm->encode(enc, p, *a, *b, {}, *c); };
    } else {
      // Per-column weight scales times the input scale, and a float bias, as a quantized linear layer has.
      auto scales = builder.tensor(r.n, 3);
      auto bias = builder.tensor(r.n, 4);
      auto c = builder.keep(std::make_shared<Buffer<float>>(device.create_buffer<float>(r.m * r.n)));
      cs.record = [gemm, p, a, b, c, scales, bias](CommandEncoder& enc) {
        gemm->encode_scaled(enc, p, *a, *b, {.a = {.value = 3}}, *c,
                            {.scale = {.buffer = scales.get(), .per_column = true}, .bias = bias.get()});
      };
    }
    builder.add(std::move(cs));
  }
  return builder.take();
}

const FamilyCases kRegistered("integer_gemm", &integer_gemm_cases);

}  // namespace onegpu::bench
