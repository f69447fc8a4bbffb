// Gather benchmark cases; bytes are what the kernel reads (data and indices) and writes.
#include "harness.h"
#include "onegpu/kernels/gather.h"

namespace onegpu::bench {

std::vector<Case> gather_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  auto g = std::make_shared<Gather>(device);
  keep.push_back(g);
  CaseBuilder builder(device, options, keep);
  const DataType f32 = DataType::float32, i64 = DataType::int64;
  const bool quick = options.quick;
  auto shape = [&](std::vector<int64_t> s) { return builder.keep(std::make_shared<std::vector<int64_t>>(std::move(s))); };
  auto text = [](const std::vector<int64_t>& s) {
    std::string t;
    for (size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
    return t;
  };
  // Embedding lookup: 8192 rows of a 32000 x 4096 float32 table (index_select in PyTorch).
  {
    const int64_t vocab = quick ? 1000 : 32000, width = quick ? 256 : 4096, rows = quick ? 256 : 8192;
    auto ds = shape({vocab, width}), is = shape({rows}), os = shape({rows, width});
    const std::string name = text(*ds) + "_" + std::to_string(rows);
    if (builder.wants("embedding", "float32", name)) {
      auto data = builder.tensor(uint64_t(vocab * width), 1);
      auto idx = builder.integers<int64_t>(uint64_t(rows), 2, 0, vocab - 1);
      auto out = builder.tensor(uint64_t(rows * width), 3);
      const TensorRef d{data.get(), 0, *ds, {}, f32}, i{idx.get(), 0, *is, {}, i64}, o{out.get(), 0, *os, {}, f32};
      const double bytes = 2.0 * 4 * double(rows * width) + 8.0 * double(rows);
      builder.add({"embedding", "float32", name, std::string(g->variant(GatherOperation::gather, d, i, 0, o)), 0, bytes,
                   [=](CommandEncoder& e) { g->gather(e, d, i, 0, o); }});
    }
  }
  // Gather on a middle axis: [64, 512, 256] along axis 1 with 128 indices.
  {
    const int64_t a = quick ? 8 : 64, n = quick ? 64 : 512, b = quick ? 32 : 256, k = quick ? 16 : 128;
    auto ds = shape({a, n, b}), is = shape({k}), os = shape({a, k, b});
    const std::string name = text(*ds) + "_axis1_" + std::to_string(k);
    if (builder.wants("gather_axis1", "float32", name)) {
      auto data = builder.tensor(uint64_t(a * n * b), 4);
      auto idx = builder.integers<int64_t>(uint64_t(k), 5, -n, n - 1);
      auto out = builder.tensor(uint64_t(a * k * b), 6);
      const TensorRef d{data.get(), 0, *ds, {}, f32}, i{idx.get(), 0, *is, {}, i64}, o{out.get(), 0, *os, {}, f32};
      const double bytes = 2.0 * 4 * double(a * k * b) + 8.0 * double(k);
      builder.add({"gather_axis1", "float32", name, std::string(g->variant(GatherOperation::gather, d, i, 1, o)), 0,
                   bytes, [=](CommandEncoder& e) { g->gather(e, d, i, 1, o); }});
    }
  }
  // GatherElements (torch.gather): [4096, 4096] along axis 1, indices [4096, 1024].
  {
    const int64_t rows = quick ? 64 : 4096, n = quick ? 256 : 4096, k = quick ? 64 : 1024;
    auto ds = shape({rows, n}), is = shape({rows, k});
    const std::string name = text(*ds) + "_" + text(*is);
    if (builder.wants("gather_elements", "float32", name)) {
      auto data = builder.tensor(uint64_t(rows * n), 7);
      auto idx = builder.integers<int64_t>(uint64_t(rows * k), 8, 0, n - 1);
      auto out = builder.tensor(uint64_t(rows * k), 9);
      const TensorRef d{data.get(), 0, *ds, {}, f32}, i{idx.get(), 0, *is, {}, i64}, o{out.get(), 0, *is, {}, f32};
      const double bytes = (4.0 + 8.0 + 4.0) * double(rows * k);
      builder.add({"gather_elements", "float32", name,
                   std::string(g->variant(GatherOperation::gather_elements, d, i, 1, o)), 0, bytes,
                   [=](CommandEncoder& e) { g->gather_elements(e, d, i, 1, o); }});
    }
  }
  // GatherND: tuples of 2 into [256, 256, 512] (rows of 512 float32), 65536 tuples.
  {
    const int64_t a = quick ? 16 : 256, w = quick ? 64 : 512, t = quick ? 256 : 65536;
    auto ds = shape({a, a, w}), is = shape({t, 2}), os = shape({t, w});
    const std::string name = text(*ds) + "_" + text(*is);
    if (builder.wants("gather_nd", "float32", name)) {
      auto data = builder.tensor(uint64_t(a * a * w), 10);
      auto idx = builder.integers<int64_t>(uint64_t(t * 2), 11, 0, a - 1);
      auto out = builder.tensor(uint64_t(t * w), 12);
      const TensorRef d{data.get(), 0, *ds, {}, f32}, i{idx.get(), 0, *is, {}, i64}, o{out.get(), 0, *os, {}, f32};
      const double bytes = 2.0 * 4 * double(t * w) + 16.0 * double(t);
      builder.add({"gather_nd", "float32", name, std::string(g->variant(GatherOperation::gather_nd, d, i, 0, o)), 0,
                   bytes, [=](CommandEncoder& e) { g->gather_nd(e, d, i, 0, o); }});
    }
  }
  return builder.take();
}

const FamilyCases kRegistered("gather", &gather_cases);

}  // namespace onegpu::bench
