// Scatter benchmark cases: scatter-add (ScatterElements on a 1-D tensor, reduction add) of many
// updates into fewer outputs (the deterministic path: the default, which folds groups of 256
// outputs after sorting by target / 256; the full radix sort with its per-output combine; the
// placement), the same over a permutation (those, and with indices_are_distinct), and a ScatterND
// key-value-cache row update in place. Shapes read "updates->outputs" (scatter-add) or
// "rows x row_length + new rows" (the cache). Indices are int32 unless the variant says i64.
#include <algorithm>
#include <numeric>
#include <string_view>

#include "harness.h"
#include "onegpu/kernels/scatter.h"

namespace onegpu::bench {

namespace {

std::vector<Case> scatter_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  CaseBuilder builder(device, options, keep);
  // Sorting by placement where the shapes allow (rows "placed"), the default family (rows
  // "grouped": the group fold where the device sorts with subgroups), and the full radix sort with
  // the per-output combine (rows "radix").
  auto scatter = std::make_shared<Scatter>(
      device, ScatterOptions{.mode = KernelMode::deterministic, .allow_placement = true});
  keep.push_back(scatter);
  auto grouped = std::make_shared<Scatter>(device, ScatterOptions{.mode = KernelMode::deterministic});
  keep.push_back(grouped);
  auto radix = std::make_shared<Scatter>(
      device, ScatterOptions{.mode = KernelMode::deterministic, .allow_group_fold = false});
  keep.push_back(radix);
  auto family_of = [&](std::string_view variant) {
    return variant == "radix" ? radix : variant.starts_with("grouped") ? grouped : scatter;
  };
  const DataType f32 = DataType::float32, i32 = DataType::int32, i64 = DataType::int64;
  auto shape_of = [&](std::vector<int64_t> s) { return builder.keep(std::make_shared<std::vector<int64_t>>(std::move(s))); };

  // updates -> outputs, random indices (duplicates), in place as out.scatter_add_(0, idx, upd); the
  // second shape's runs (256 updates an output on average) are longer than the placement sorts, so
  // the radix sort runs behind it.
  for (const int64_t outputs : {int64_t(1) << 20, int64_t(1) << 16}) {
    const int64_t n = options.quick ? (1 << 16) : (1 << 24), m = options.quick ? outputs >> 8 : outputs;
    const std::string shape = std::to_string(n) + "->" + std::to_string(m);
    for (const char* variant : {"placed", "radix", "grouped", "grouped i64"}) {
      if (!builder.wants("scatter_add", "float32", shape)) break;
      const bool wide = std::string_view(variant).ends_with("i64");
      if (wide && outputs != (int64_t(1) << 20)) continue;
      auto out = builder.tensor(uint64_t(m), 1), upd = builder.tensor(uint64_t(n), 2);
      // The builder keeps the indices alive for the run.
      RawBuffer* indices = wide ? static_cast<RawBuffer*>(builder.integers<int64_t>(uint64_t(n), 3, 0, m - 1).get())
                                : builder.integers<int32_t>(uint64_t(n), 3, 0, m - 1).get();
      auto os = shape_of({m}), is = shape_of({n});
      auto family = family_of(variant);
      builder.add({"scatter_add", "float32", shape, variant, 0, 4.0 * double((wide ? 4 : 3) * n + 2 * m),
                   [=](CommandEncoder& e) {
                     const TensorRef o{out.get(), 0, *os, {}, f32};
                     family->scatter_elements(e, o, {indices, 0, *is, {}, wide ? i64 : i32},
                                              {upd.get(), 0, *is, {}, f32}, 0, o, ScatterReduction::add);
                   }});
    }
  }
  // A permutation: every output updated once, sorted and with indices_are_distinct.
  {
    const int64_t n = options.quick ? (1 << 16) : (1 << 24);
    const std::string shape = std::to_string(n) + "->" + std::to_string(n);
    for (const char* variant : {"placed", "radix", "grouped", "distinct"}) {
      if (!builder.wants("scatter_add_permutation", "float32", shape)) break;
      const bool distinct = std::string_view(variant) == "distinct";
      auto family = family_of(variant);
      auto out = builder.tensor(uint64_t(n), 4), upd = builder.tensor(uint64_t(n), 5);
      std::vector<int32_t> perm(static_cast<size_t>(n));
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), std::mt19937(6));
      auto idx = builder.keep(std::make_shared<Buffer<int32_t>>(device.create_buffer(perm)));
      auto s = shape_of({n});
      builder.add({"scatter_add_permutation", "float32", shape, variant, 0, 4.0 * double(4 * n),
                   [=](CommandEncoder& e) {
                     const TensorRef o{out.get(), 0, *s, {}, f32};
                     family->scatter_elements(e, o, {idx.get(), 0, *s, {}, i32}, {upd.get(), 0, *s, {}, f32}, 0, o,
                                               ScatterReduction::add, distinct);
                   }});
    }
  }
  // Key-value cache append: `fresh` new rows written in place into a [rows, width] float16 cache.
  {
    const int64_t rows = options.quick ? 256 : 4096, width = options.quick ? 256 : 4096, fresh = 16;
    const std::string shape = std::to_string(rows) + "x" + std::to_string(width) + "+" + std::to_string(fresh);
    for (bool distinct : {false, true}) {
      if (!builder.wants("scatter_nd_rows", "float16", shape)) break;
      auto cache = builder.keep(std::make_shared<Buffer<uint16_t>>(device.create_buffer<uint16_t>(uint64_t(rows * width))));
      auto upd = builder.keep(std::make_shared<Buffer<uint16_t>>(device.create_buffer<uint16_t>(uint64_t(fresh * width))));
      std::vector<int64_t> pos(static_cast<size_t>(fresh));
      std::iota(pos.begin(), pos.end(), rows / 2);
      auto idx = builder.keep(std::make_shared<Buffer<int64_t>>(device.create_buffer(pos)));
      auto cs = shape_of({rows, width}), is = shape_of({fresh, 1}), us = shape_of({fresh, width});
      builder.add({"scatter_nd_rows", "float16", shape, distinct ? "distinct" : "sorted", 0, 4.0 * double(fresh * width),
                   [=](CommandEncoder& e) {
                     const TensorRef c{cache.get(), 0, *cs, {}, DataType::float16};
                     scatter->scatter_nd(e, c, {idx.get(), 0, *is, {}, DataType::int64},
                                         {upd.get(), 0, *us, {}, DataType::float16}, c, ScatterReduction::none, distinct);
                   }});
    }
  }
  return builder.take();
}

const FamilyCases kRegistered("scatter", &scatter_cases);

}  // namespace

}  // namespace onegpu::bench
