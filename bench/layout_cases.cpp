// Layout benchmark cases; bytes are what each operation must read and write, so the GB/s column
// compares with the copy bandwidth. The variant column is the variant table's name.
#include <string>

#include "harness.h"
#include "onegpu/kernels/layout.h"

namespace onegpu::bench {

namespace {

std::string joined(const std::vector<int64_t>& s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "x" : "") + std::to_string(s[i]);
  return r;
}

uint64_t count_of(const std::vector<int64_t>& s) {
  uint64_t n = 1;
  for (auto d : s) n *= uint64_t(d);
  return n;
}

}  // namespace

std::vector<Case> layout_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  using Shape = std::vector<int64_t>;
  auto layout = std::make_shared<Layout>(device);
  keep.push_back(layout);
  CaseBuilder builder(device, options, keep);
  const bool q = options.quick;
  // A buffer of `n` elements of `t` (random bits), kept alive for the run.
  auto buffer = [&](uint64_t n, DataType t, uint32_t seed) {
    return builder.tensor((n * data_type_size(t) + 3) / 4, seed);
  };
  auto shape = [&](Shape s) { return builder.keep(std::make_shared<Shape>(std::move(s))); };

  // Transposes: 2-D, attention heads split and merged, NCHW -> NHWC.
  struct TransposeRow {
    const char* op;
    DataType type;
    Shape x, perm;
  };
  const TransposeRow transposes[] = {
      {"transpose", DataType::float32, q ? Shape{256, 256} : Shape{8192, 8192}, {1, 0}},
      {"head_split", DataType::float16, q ? Shape{2, 64, 4, 64} : Shape{8, 512, 12, 64}, {0, 2, 1, 3}},
      {"head_merge", DataType::float16, q ? Shape{2, 4, 64, 64} : Shape{8, 12, 512, 64}, {0, 2, 1, 3}},
      {"nchw_to_nhwc", DataType::float32, q ? Shape{2, 32, 14, 14} : Shape{32, 256, 56, 56}, {0, 2, 3, 1}},
  };
  for (const TransposeRow& row : transposes) {
    const std::string dtype(data_type_name(row.type));
    if (!builder.wants(row.op, dtype, joined(row.x))) continue;
    auto xs = shape(row.x), perm = shape(row.perm), ys = shape(Layout::transpose_shape(row.x, row.perm));
    const uint64_t n = count_of(row.x);
    auto x = buffer(n, row.type, 1), y = buffer(n, row.type, 2);
    const DataType t = row.type;
    const std::string variant(layout->transpose_variant({x.get(), 0, *xs, {}, t}, *perm, {y.get(), 0, *ys, {}, t}));
    builder.add({row.op, dtype, joined(row.x), variant, 0, 2.0 * double(n * data_type_size(t)),
                 [=](CommandEncoder& e) { layout->transpose(e, {x.get(), 0, *xs, {}, t}, *perm, {y.get(), 0, *ys, {}, t}); }});
  }

  const DataType f32 = DataType::float32;
  // Concat of four [r, c] along axis 1.
  {
    const int64_t r = q ? 256 : 4096, c = q ? 64 : 1024;
    const std::string s = "4x" + std::to_string(r) + "x" + std::to_string(c);
    if (builder.wants("concat", "float32", s)) {
      auto part = shape({r, c}), ys = shape({r, 4 * c});
      auto ins = builder.keep(std::make_shared<std::vector<std::shared_ptr<Buffer<float>>>>());
      for (uint32_t k = 0; k < 4; ++k) ins->push_back(builder.tensor(uint64_t(r * c), 10 + k));
      auto y = builder.tensor(uint64_t(4 * r * c), 20);
      auto refs = builder.keep(std::make_shared<std::vector<TensorRef>>());
      for (auto& b : *ins) refs->push_back({b.get(), 0, *part, {}, f32});
      const std::string variant(layout->concat_variant(*refs, 1, {y.get(), 0, *ys, {}, f32}));
      builder.add({"concat", "float32", s, variant, 0, 2.0 * 4 * double(r * c) * 4,
                   [=](CommandEncoder& e) { layout->concat(e, *refs, 1, {y.get(), 0, *ys, {}, f32}); }});
    }
  }
  // Slice x[:, ::2] of a square matrix.
  {
    const int64_t n = q ? 256 : 8192;
    const std::string s = std::to_string(n) + "x" + std::to_string(n);
    if (builder.wants("slice_step2", "float32", s)) {
      auto xs = shape({n, n}), ys = shape({n, n / 2}), starts = shape({0}), ends = shape({n}), axes = shape({1}),
           steps = shape({2});
      auto x = builder.tensor(uint64_t(n * n), 30), y = builder.tensor(uint64_t(n * n / 2), 31);
      const std::string variant(
          layout->slice_variant({x.get(), 0, *xs, {}, f32}, *starts, *ends, *axes, *steps, {y.get(), 0, *ys, {}, f32}));
      builder.add({"slice_step2", "float32", s, variant, 0, 2.0 * double(n * n / 2) * 4, [=](CommandEncoder& e) {
                     layout->slice(e, {x.get(), 0, *xs, {}, f32}, *starts, *ends, *axes, *steps, {y.get(), 0, *ys, {}, f32});
                   }});
    }
  }
  // Expand a row [1, n] to [n, n].
  {
    const int64_t n = q ? 256 : 4096;
    const std::string s = std::to_string(n) + "x" + std::to_string(n);
    if (builder.wants("expand_rows", "float32", s)) {
      auto xs = shape({1, n}), ys = shape({n, n});
      auto x = builder.tensor(uint64_t(n), 40), y = builder.tensor(uint64_t(n * n), 41);
      const std::string variant(layout->expand_variant({x.get(), 0, *xs, {}, f32}, {y.get(), 0, *ys, {}, f32}));
      builder.add({"expand_rows", "float32", s, variant, 0, double(n * n + n) * 4,
                   [=](CommandEncoder& e) { layout->expand(e, {x.get(), 0, *xs, {}, f32}, {y.get(), 0, *ys, {}, f32}); }});
    }
  }
  return builder.take();
}

const FamilyCases kRegistered("layout", &layout_cases);

}  // namespace onegpu::bench
