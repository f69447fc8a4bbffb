// GEMM benchmark cases (shapes are M x N x K; "nk" marks B stored N x K).
#include "harness.h"
#include "onegpu/kernels/gemm.h"
#include "onegpu/numeric.h"

namespace onegpu::bench {
namespace {

struct Shape {
  uint64_t m, n, k;
  bool b_nk;
};

std::shared_ptr<RawBuffer> operand(Device& d, DataType t, size_t n, uint32_t seed) {
  auto v = random_values(n, seed);
  if (t == DataType::float32) return std::make_shared<Buffer<float>>(d.create_buffer(v));
  if (t == DataType::float16) {
    std::vector<float16> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = to_float16(v[i]);
    return std::make_shared<Buffer<float16>>(d.create_buffer(h));
  }
  std::vector<bfloat16> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = to_bfloat16(v[i]);
  return std::make_shared<Buffer<bfloat16>>(d.create_buffer(h));
}

}  // namespace

std::vector<Case> gemm_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  std::vector<Shape> shapes = {{4096, 4096, 4096, false}, {8192, 8192, 8192, false}, {4096, 4096, 4096, true},
                               {8192, 8192, 8192, true},  {1024, 3072, 768, false},  {1024, 768, 3072, false},
                               {128, 768, 768, false},    {128, 3072, 768, false},   {1, 768, 768, false},
                               {1, 51865, 768, false},    {1, 51865, 768, true},     {4, 3072, 768, false},
                               // A small grid over a long k (16 tiles of 128 x 128, 32 of 64 x 128, unsplit
                               // by the policy; ONEGPU_GEMM_COOPMAT_SPLITS compares ranges).
                               {256, 1024, 8192, false},
                               {4, 51865, 768, false}};
  if (options.quick) shapes = {{64, 64, 64, false}, {2, 300, 128, true}, {128, 96, 512, false}};
  // Float32 products on float16 hardware (Float32Products::split_float16): rows of their own with the
  // same op, dtype and shape (bench/torch_compare.py times PyTorch's float32, TF32 off, for both).
  std::vector<Shape> split_shapes = {{4096, 4096, 4096, false}, {1024, 3072, 768, false}};
  if (options.quick) split_shapes = {{128, 96, 512, false}};
  struct Family {
    DataType type;
    kernels::GemmOptions options;
    const std::vector<Shape>* shapes;
  };
  const kernels::GemmOptions split{.float32_products = kernels::Float32Products::split_float16};
  const Family families[] = {{DataType::float32, {}, &shapes},
                             {DataType::float32, split, &split_shapes},
                             {DataType::float16, {}, &shapes},
                             {DataType::bfloat16, {}, &shapes}};
  std::vector<Case> cases;
  for (const Family& f : families) {
    const DataType t = f.type;
    auto gemm = std::make_shared<kernels::Gemm>(device, t, f.options);
    keep.push_back(gemm);
    for (const Shape& s : *f.shapes) {
      const std::string dtype(data_type_name(t));
      const std::string shape = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                                (s.b_nk ? "-nk" : "");
      if (!options.filter.empty() && ("gemm " + dtype + " " + shape).find(options.filter) == std::string::npos)
        continue;
      const uint64_t es = t == DataType::float32 ? 4 : 2;
      auto a = operand(device, t, s.m * s.k, 1), b = operand(device, t, s.k * s.n, 2);
      auto c = std::make_shared<Buffer<float>>(device.create_buffer<float>(s.m * s.n));
      keep.push_back(a);
      keep.push_back(b);
      keep.push_back(c);
      kernels::GemmProblem p{.m = s.m, .n = s.n, .k = s.k, .transpose_b = s.b_nk};
      Case cs;
      cs.op = "gemm";
      cs.dtype = dtype;
      cs.shape = shape;
      cs.variant = gemm->variant(p);
      cs.flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
      cs.bytes = double(es) * double(s.m * s.k + s.k * s.n) + 4.0 * double(s.m * s.n);
      cs.record = [gemm, p, a, b, c](CommandEncoder& enc) { gemm->encode(enc, p, *a, *b, *c); };
      cases.push_back(std::move(cs));
    }
  }
  return cases;
}

const FamilyCases kRegistered("gemm", &gemm_cases);

}  // namespace onegpu::bench
