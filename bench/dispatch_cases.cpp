// Device-layer cases: chains of small dispatches, one per pass, to time what ordering passes costs.
// "dependent": each pass reads the previous pass's output (every pass must wait for the one before);
// "independent": each pass writes its own buffer from the same inputs (nothing to wait for).
#include "harness.h"
#include "onegpu/kernels/elementwise.h"

namespace onegpu::bench {

std::vector<Case> dispatch_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  auto ew = std::make_shared<Elementwise>(device);
  keep.push_back(ew);
  CaseBuilder builder(device, options, keep);
  const int64_t n = 4096;  // elements per dispatch: launch-bound
  const int chain = options.quick ? 4 : 64;
  const std::string shape_name = std::to_string(chain) + "x" + std::to_string(n);
  auto shape = builder.keep(std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{n}));
  if (builder.wants("dispatch_chain_dependent", "float32", shape_name)) {
    auto x = builder.tensor(uint64_t(n), 1), y = builder.tensor(uint64_t(n), 2);
    builder.add({"dispatch_chain_dependent", "float32", shape_name, "add", 0, 12.0 * double(n) * chain,
                 [=](CommandEncoder& e) {
                   for (int i = 0; i < chain; ++i)
                     ew->binary(e, BinaryOp::add, {.buffer = x.get(), .shape = *shape},
                                {.buffer = y.get(), .shape = *shape}, {.buffer = x.get(), .shape = *shape});
                 }});
  }
  if (builder.wants("dispatch_chain_independent", "float32", shape_name)) {
    auto x = builder.tensor(uint64_t(n), 1), y = builder.tensor(uint64_t(n), 2);
    std::vector<std::shared_ptr<Buffer<float>>> outs;
    for (int i = 0; i < chain; ++i) outs.push_back(builder.tensor(uint64_t(n), 3 + i));
    builder.add({"dispatch_chain_independent", "float32", shape_name, "add", 0, 12.0 * double(n) * chain,
                 [=](CommandEncoder& e) {
                   for (int i = 0; i < chain; ++i)
                     ew->binary(e, BinaryOp::add, {.buffer = x.get(), .shape = *shape},
                                {.buffer = y.get(), .shape = *shape}, {.buffer = outs[size_t(i)].get(), .shape = *shape});
                 }});
  }
  return builder.take();
}

const FamilyCases kRegistered("dispatch", &dispatch_cases);

}  // namespace onegpu::bench
