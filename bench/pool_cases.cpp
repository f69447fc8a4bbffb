// Pooling benchmark cases; bytes are what the kernels must read and write once.
#include "harness.h"
#include "onegpu/kernels/pool.h"

namespace onegpu::bench {

std::vector<Case> pool_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  auto pool = std::make_shared<Pool>(device);
  keep.push_back(pool);
  CaseBuilder builder(device, options, keep);
  const bool quick = options.quick;
  // ResNet-50's stem max pool (3x3, stride 2, pad 1) at batch 8.
  {
    PoolProblem p;
    p.batch = quick ? 1 : 8;
    p.channels = quick ? 4 : 64;
    p.input = quick ? Extent2{16, 16} : Extent2{112, 112};
    p.window = {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}};
    const std::string shape = std::to_string(p.batch) + "x" + std::to_string(p.channels) + "x" +
                              std::to_string(p.input[0]) + "x" + std::to_string(p.input[1]) + " k3s2p1";
    if (builder.wants("max_pool", "float32", shape)) {
      const uint64_t n = Pool::input_elements(p), m = Pool::output_elements(p);
      auto x = builder.tensor(n, 1);
      auto y = builder.tensor(m, 2);
      builder.add({"max_pool", "float32", shape, Pool::describe(p), 0, 4.0 * double(n + m),
                   [=](CommandEncoder& e) { pool->encode(e, p, *x, *y); }});
    }
  }
  // ResNet-50's global average pool at batch 8.
  for (DataType t : {DataType::float32, DataType::float16}) {
    PoolProblem p;
    p.operation = PoolOperation::global_average_pool;
    p.type = t;
    p.batch = quick ? 2 : 8;
    p.channels = quick ? 64 : 2048;
    p.input = {7, 7};
    const std::string dtype(data_type_name(t));
    const std::string shape = std::to_string(p.batch) + "x" + std::to_string(p.channels) + "x7x7";
    if (!builder.wants("global_average_pool", dtype, shape)) continue;
    const uint64_t n = Pool::input_elements(p), m = Pool::output_elements(p);
    auto x = builder.tensor(n, 3);  // float16 reads the float32 bits as halves: any values do
    auto y = builder.tensor(m, 4);
    builder.add({"global_average_pool", dtype, shape, Pool::describe(p), 0, double(data_type_size(t)) * double(n + m),
                 [=](CommandEncoder& e) { pool->encode(e, p, *x, *y); }});
  }
  return builder.take();
}

const FamilyCases kRegistered("pool", &pool_cases);

}  // namespace onegpu::bench
