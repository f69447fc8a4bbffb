// Layout operations against host references, bit for bit: every payload width, odd offsets next
// to live neighbours, ranks 1 to 8, each variant, in-place concat and expand, and the errors.
// Each output buffer is compared whole against the reference, so the words around the output
// (sentinels) and the neighbours inside its first and last word are checked too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>

#include "onegpu/kernels/layout.h"
#include "support/device_fixture.h"
#include "support/random.h"
#include "kernels/tensor_helpers.h"

namespace onegpu::testing {
namespace {

using namespace kernels;
using Shape = std::vector<int64_t>;
using Bytes = std::vector<uint8_t>;

// One type per payload width, and the others of each width for the type checks.
const DataType kWidths[] = {DataType::uint8, DataType::float16, DataType::float32, DataType::int64};
const DataType kAllTypes[] = {DataType::int8,    DataType::uint8,  DataType::boolean, DataType::float16,
                              DataType::bfloat16, DataType::int16, DataType::uint16,  DataType::float32,
                              DataType::int32,   DataType::uint32, DataType::int64,   DataType::uint64,
                              DataType::float64};


Shape dense_strides(const Shape& s) {
  Shape st(s.size());
  int64_t v = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = v;
    v *= s[i];
  }
  return st;
}

// Coordinates of element e of shape s (row-major).
Shape coords(const Shape& s, uint64_t e) {
  Shape c(s.size());
  for (size_t i = s.size(); i-- > 0;) {
    c[i] = int64_t(e % uint64_t(s[i]));
    e /= uint64_t(s[i]);
  }
  return c;
}

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class LayoutFixture : public Base {
 protected:
  // A buffer of `words` random words.
  RawBuffer random_buffer(size_t words, uint32_t seed) { return this->device().create_buffer(random_words(words, seed)); }
  static Bytes bytes_of(const RawBuffer& b) {
    Bytes out(b.size_bytes());
    b.read_bytes(0, std::as_writable_bytes(std::span(out)));
    return out;
  }
  template <class F>
  void submit(F&& record) {
    auto enc = this->device().begin_commands();
    record(enc);
    this->device().submit(enc);
  }
  // out (dense from out_offset) element e <- in element src(e); everything else as before.
  template <class F>
  static Bytes reference(const Bytes& in, Bytes out, uint64_t out_offset, uint64_t count, uint32_t size, F&& src) {
    for (uint64_t e = 0; e < count; ++e) {
      const int64_t s = src(e);
      if (s < 0) continue;
      std::memcpy(&out[(out_offset + e) * size], &in[uint64_t(s) * size], size);
    }
    return out;
  }
};

using LayoutTest = LayoutFixture<DeviceTest>;
// On every backend with the same references and bit checks. An input in the output's buffer stays
// on Vulkan: WebGPU refuses a buffer bound writable and read-only in one dispatch.
using LayoutOnEveryBackend = LayoutFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, LayoutOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

std::string describe(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// ---- transpose ----

struct TransposeCase {
  Shape x, perm;
  const char* algorithm;  // the variant's prefix, or nullptr for any
};

class LayoutTransposeOnEveryBackend : public LayoutOnEveryBackend {
 protected:
  // x (strided when `strides` is given) transposed into an output at out_offset; compared whole.
  void check(Layout& layout, DataType t, const Shape& xs, const Shape& perm, uint64_t x_offset, uint64_t out_offset,
             const Shape& strides = {}, const char* algorithm = nullptr) {
    const uint32_t size = data_type_size(t);
    const Shape ys = Layout::transpose_shape(xs, perm);
    const Shape st = strides.empty() ? dense_strides(xs) : strides;
    uint64_t reach = 1;
    for (size_t i = 0; i < xs.size(); ++i) reach += uint64_t(xs[i] - 1) * uint64_t(st[i]);
    const uint64_t n = count_of(ys);
    auto x = random_buffer(((x_offset + reach) * size + 3) / 4 + 1, 11);
    auto y = random_buffer(((out_offset + n) * size + 3) / 4 + 2, 12);  // random words: live neighbours
    const Bytes xin = bytes_of(x), yin = bytes_of(y);
    const TensorRef xr = tensor(x, t, xs, x_offset, strides), yr = tensor(y, t, ys, out_offset);
    const std::string variant(layout.transpose_variant(xr, perm, yr));
    if (algorithm) {
      EXPECT_TRUE(variant.starts_with(algorithm)) << variant << " " << describe(xs);
    }
    submit([&](CommandEncoder& e) { layout.transpose(e, xr, perm, yr); });
    Shape p = perm;
    if (p.empty())
      for (size_t j = 0; j < xs.size(); ++j) p.push_back(int64_t(xs.size() - 1 - j));
    const Bytes want = reference(xin, yin, out_offset, n, size, [&](uint64_t e) {
      const Shape c = coords(ys, e);
      int64_t s = int64_t(x_offset);
      for (size_t j = 0; j < c.size(); ++j) s += c[j] * st[size_t(p[j])];
      return s;
    });
    EXPECT_TRUE(bytes_of(y) == want) << data_type_name(t) << " " << describe(xs) << " perm " << describe(perm)
                                     << " offsets " << x_offset << "/" << out_offset << " " << variant;
  }
};
INSTANTIATE_TEST_SUITE_P(Backends, LayoutTransposeOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

TEST_P(LayoutTransposeOnEveryBackend, EveryWidthRankAndPermutation) {
  Layout layout(device());
  std::mt19937 rng(5);
  for (DataType t : kWidths)
    for (size_t rank = 1; rank <= 8; ++rank)
      for (int trial = 0; trial < 3; ++trial) {
        Shape xs(rank), perm(rank);
        for (auto& d : xs) d = int64_t(1 + rng() % (rank <= 3 ? 9 : rank <= 5 ? 4 : 3));
        if (trial == 2 && rank >= 2 && rank <= 5) {  // two long dimensions: tiled when they swap
          xs[rng() % rank] = int64_t(16 + rng() % 24);
          xs[rank - 1] = int64_t(16 + rng() % 24);
        }
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        // Dimensions after merging, counted here independently: runs of x's dimensions (size-1
        // ones left out) that stay neighbours in order.
        std::vector<int64_t> kept;
        for (int64_t d : perm)
          if (xs[size_t(d)] != 1) kept.push_back(d);
        size_t runs = 0;
        for (size_t j = 0; j < kept.size(); ++j) {
          int64_t next = j == 0 ? -1 : kept[j - 1] + 1;
          while (j > 0 && next < int64_t(rank) && xs[size_t(next)] == 1) ++next;
          runs += j == 0 || kept[j] != next ? 1 : 0;
        }
        if (runs > 6) {
          auto x = random_buffer(4096, 1), y = random_buffer(4096, 2);
          const Shape ys = Layout::transpose_shape(xs, perm);
          auto enc = device().begin_commands();
          EXPECT_THROW(layout.transpose(enc, tensor(x, t, xs), perm, tensor(y, t, ys)), KernelShapeError);
          continue;
        }
        // Odd offsets put 8- and 16-bit outputs inside words shared with live neighbours.
        check(layout, t, xs, perm, trial, 1 + 2 * uint64_t(trial));
      }
}

TEST_P(LayoutTransposeOnEveryBackend, MergingPermutationsAndEmptyPerm) {
  Layout layout(device());
  for (DataType t : kWidths) {
    check(layout, t, {2, 3, 4, 5}, {2, 3, 0, 1}, 0, 3);             // two merged blocks
    check(layout, t, {1, 5, 1, 7, 1}, {4, 2, 0, 1, 3}, 1, 1);       // size-1 dimensions dropped
    check(layout, t, {3, 4, 5}, {}, 0, 0);                          // reversed
    check(layout, t, {2, 2, 2, 2, 2, 3, 4, 1}, {4, 3, 2, 1, 0, 5, 6, 7}, 0, 1);  // rank 8, 6 after merging
  }
}

TEST_P(LayoutTransposeOnEveryBackend, TiledSizesNotMultiplesOfTheTile) {
  Layout layout(device());
  for (DataType t : kWidths) {
    // Output rows of whole words (72, 36 and 132 elements), partial tiles at both ends.
    check(layout, t, {72, 45}, {1, 0}, 1, 0, {}, "layout.tiled.");
    check(layout, t, {3, 36, 68}, {0, 2, 1}, 0, 4, {}, "layout.tiled.");   // batched
    check(layout, t, {132, 260}, {1, 0}, 0, 0, {}, "layout.tiled.");
  }
  // Batch dimensions around the transposed pair: [20, 3, 40] reversed, and four of them.
  for (DataType t : kWidths) {
    check(layout, t, {20, 3, 40}, {2, 1, 0}, 1, 0, {}, "layout.tiled.");
    check(layout, t, {20, 2, 3, 2, 3, 17}, {5, 3, 1, 4, 2, 0}, 0, 4, {}, "layout.tiled.");
  }
  // Rows that do not start on a word boundary take the general copy.
  check(layout, DataType::float16, {71, 45}, {1, 0}, 0, 0, {}, "layout.copy.");
  check(layout, DataType::uint8, {64, 64}, {1, 0}, 0, 1, {}, "layout.copy.");
}

TEST_P(LayoutTransposeOnEveryBackend, NchwAndNhwc) {
  Layout layout(device());
  for (DataType t : {DataType::float32, DataType::float16}) {
    check(layout, t, {2, 24, 6, 6}, {0, 2, 3, 1}, 0, 0, {}, "layout.tiled.");  // NCHW -> NHWC
    check(layout, t, {2, 6, 6, 24}, {0, 3, 1, 2}, 0, 0, {}, "layout.tiled.");  // NHWC -> NCHW
    check(layout, t, {2, 24, 5, 7}, {0, 2, 3, 1}, 1, 0);
    check(layout, t, {2, 3, 5, 7}, {0, 2, 3, 1}, 0, 0);                         // 3 channels
  }
}

TEST_P(LayoutTransposeOnEveryBackend, HeadSplitAndMerge) {
  Layout layout(device());
  for (DataType t : kWidths) {
    check(layout, t, {2, 16, 3, 64}, {0, 2, 1, 3}, 0, 0, {}, "layout.rows.");  // [b, s, h, d] -> [b, h, s, d]
    check(layout, t, {2, 3, 16, 64}, {0, 2, 1, 3}, 0, 0, {}, "layout.rows.");  // merge back
    check(layout, t, {2, 16, 3, 6}, {0, 2, 1, 3}, 0, 1);                       // rows not whole vectors
  }
}

TEST_P(LayoutTransposeOnEveryBackend, StridedInputs) {
  Layout layout(device());
  for (DataType t : kWidths) {
    check(layout, t, {4, 6, 5}, {2, 0, 1}, 3, 1, {1, 40, 4});        // a permuted view
    check(layout, t, {40, 20}, {1, 0}, 0, 0, {21, 1}, "layout.tiled.");  // padded rows
    check(layout, t, {40, 20}, {1, 0}, 0, 0, {1, 41});                   // a transposed view
    check(layout, t, {3, 4}, {1, 0}, 2, 0, {0, 1});                  // a broadcast dimension
  }
}

TEST_P(LayoutTransposeOnEveryBackend, EveryTypeNameOfEachWidth) {
  Layout layout(device());
  for (DataType t : kAllTypes) check(layout, t, {5, 9, 3}, {1, 2, 0}, 1, 1);
}

TEST_P(LayoutTransposeOnEveryBackend, BothModesGiveTheSameBits) {
  Layout fast(device()), exact(device(), {.mode = KernelMode::deterministic});
  const Shape xs = {33, 47}, ys = {47, 33}, perm = {1, 0};
  auto x = random_buffer(33 * 47, 3);
  auto a = random_buffer(33 * 47, 4), b = random_buffer(33 * 47, 4);
  submit([&](CommandEncoder& e) {
    fast.transpose(e, tensor(x, DataType::float32, xs), perm, tensor(a, DataType::float32, ys));
    exact.transpose(e, tensor(x, DataType::float32, xs), perm, tensor(b, DataType::float32, ys));
  });
  EXPECT_TRUE(bytes_of(a) == bytes_of(b));
}

TEST_P(LayoutTransposeOnEveryBackend, LargeShapes) {
  const char* full = std::getenv("ONEGPU_LAYOUT_FULL");
  if (full == nullptr || std::string(full) != "1") GTEST_SKIP() << "set ONEGPU_LAYOUT_FULL=1 for the large shapes";
  Layout layout(device());
  check(layout, DataType::float32, {4096, 4096}, {1, 0}, 0, 0, {}, "layout.tiled.");
  check(layout, DataType::float32, {65600, 16, 16}, {0, 2, 1}, 0, 0, {}, "layout.tiled.");  // a folded grid of tiles
  check(layout, DataType::float16, {8, 512, 12, 64}, {0, 2, 1, 3}, 0, 0, {}, "layout.rows.");
  check(layout, DataType::float32, {4, 256, 56, 56}, {0, 2, 3, 1}, 0, 0, {}, "layout.tiled.");
  check(layout, DataType::uint8, {1000, 3000}, {1, 0}, 0, 0, {}, "layout.tiled.");
}

TEST_P(LayoutTransposeOnEveryBackend, ScalarsAndEmptyTensors) {
  Layout layout(device());
  for (DataType t : kWidths) check(layout, t, {}, {}, 1, 1);  // rank 0: one element
  // Empty tensors record nothing and touch nothing.
  auto x = random_buffer(16, 1), y = random_buffer(16, 2);
  const Bytes before = bytes_of(y);
  const Shape xs = {3, 0, 4}, ys = {4, 3, 0}, perm = {2, 0, 1}, none = {0, 2};
  const TensorRef parts[] = {tensor(x, DataType::float32, none), tensor(x, DataType::float32, none)};
  auto enc = device().begin_commands();
  layout.transpose(enc, tensor(x, DataType::float32, xs), perm, tensor(y, DataType::float32, ys));
  layout.concat(enc, parts, 0, tensor(y, DataType::float32, none));
  EXPECT_EQ(enc.dispatch_count(), 0u);
  device().submit(enc);
  EXPECT_TRUE(bytes_of(y) == before);
}

// ---- slice ----

TEST_P(LayoutOnEveryBackend, SliceWithNegativeStepsAndClamping) {
  Layout layout(device());
  struct SliceCase {
    Shape x, starts, ends, axes, steps;
  };
  const SliceCase cases[] = {
      {{10, 8}, {2}, {7}, {}, {}},
      {{10, 8}, {-1}, {INT64_MIN}, {}, {-1}},                // whole axis, reversed
      {{10, 8}, {100, 0}, {-100, 8}, {1, 0}, {-3, 2}},       // clamped, negative step, two axes
      {{6, 7, 9}, {-2, 1}, {0, 100}, {-1, 1}, {-2, 3}},      // negative axis
      {{4, 5, 6, 7}, {1, 0, 6}, {3, 5, 0}, {0, 1, 3}, {1, 1, -1}},
      {{3, 4, 64}, {1}, {3}, {0}, {}},                       // whole rows: the row copy
      {{10, 8}, {5}, {2}, {}, {}},                           // empty
  };
  for (DataType t : kWidths)
    for (const SliceCase& sc : cases)
      for (uint64_t out_offset : {0, 1}) {
        const uint32_t size = data_type_size(t);
        const Shape ys = Layout::slice_shape(sc.x, sc.starts, sc.ends, sc.axes, sc.steps);
        const uint64_t nx = count_of(sc.x), n = count_of(ys);
        auto x = random_buffer((nx * size + 3) / 4 + 1, 21);
        auto y = random_buffer(((out_offset + n) * size + 3) / 4 + 2, 22);
        const Bytes xin = bytes_of(x), yin = bytes_of(y);
        const TensorRef xr = tensor(x, t, sc.x), yr = tensor(y, t, ys, out_offset);
        submit([&](CommandEncoder& e) { layout.slice(e, xr, sc.starts, sc.ends, sc.axes, sc.steps, yr); });
        // Reference: ONNX's clamping written out again.
        const size_t r = sc.x.size();
        Shape first(r, 0), step(r, 1);
        for (size_t i = 0; i < sc.starts.size(); ++i) {
          int64_t a = sc.axes.empty() ? int64_t(i) : sc.axes[i];
          if (a < 0) a += int64_t(r);
          const int64_t dim = sc.x[size_t(a)], s = sc.steps.empty() ? 1 : sc.steps[i];
          int64_t b = sc.starts[i] < 0 ? sc.starts[i] + dim : sc.starts[i];
          b = s > 0 ? std::clamp<int64_t>(b, 0, dim) : std::clamp<int64_t>(b, 0, dim - 1);
          first[size_t(a)] = b;
          step[size_t(a)] = s;
        }
        const Shape st = dense_strides(sc.x);
        const Bytes want = reference(xin, yin, out_offset, n, size, [&](uint64_t e) {
          const Shape c = coords(ys, e);
          int64_t s = 0;
          for (size_t d = 0; d < r; ++d) s += (first[d] + c[d] * step[d]) * st[d];
          return s;
        });
        EXPECT_TRUE(bytes_of(y) == want) << data_type_name(t) << " " << describe(sc.x) << " -> " << describe(ys)
                                         << " offset " << out_offset;
      }
  const Shape xs = {3, 4, 64}, ys = {2, 4, 64}, starts = {1}, ends = {3}, axes = {0};
  auto x = random_buffer(3 * 4 * 64, 1);
  auto y = random_buffer(2 * 4 * 64, 1);
  EXPECT_TRUE(layout.slice_variant(tensor(x, DataType::float32, xs), starts, ends, axes, {},
                                   tensor(y, DataType::float32, ys))
                  .starts_with("layout.rows."));
}

// ---- concat ----

TEST_P(LayoutOnEveryBackend, ConcatOfOneToSixInputsChained) {
  Layout layout(device());
  std::mt19937 rng(7);
  for (DataType t : kWidths)
    for (size_t inputs = 1; inputs <= 6; ++inputs)
      for (int64_t axis : {0, 1, -1}) {
        const uint32_t size = data_type_size(t);
        const Shape base = {3, 5, 7};
        const size_t a = size_t(axis < 0 ? axis + 3 : axis);
        std::vector<Shape> shapes(inputs, base);
        for (auto& s : shapes) s[a] = int64_t(rng() % 4);  // 0 to 3: empty inputs too
        shapes[0][a] = 2;
        Shape ys = base;
        ys[a] = 0;
        for (auto& s : shapes) ys[a] += s[a];
        const uint64_t n = count_of(ys), out_offset = inputs % 2;
        std::vector<RawBuffer> xs;
        std::vector<Bytes> xin;
        std::vector<TensorRef> refs;
        for (size_t k = 0; k < inputs; ++k) {
          xs.push_back(random_buffer((count_of(shapes[k]) * size + 3) / 4 + 1, uint32_t(30 + k)));
          xin.push_back(bytes_of(xs.back()));
        }
        for (size_t k = 0; k < inputs; ++k) refs.push_back(tensor(xs[k], t, shapes[k], 0));
        auto y = random_buffer(((out_offset + n) * size + 3) / 4 + 2, 40);
        const Bytes yin = bytes_of(y);
        submit([&](CommandEncoder& e) { layout.concat(e, refs, axis, tensor(y, t, ys, out_offset)); });
        Bytes want = yin;
        for (uint64_t e = 0; e < n; ++e) {
          Shape c = coords(ys, e);
          size_t k = 0;
          while (c[a] >= shapes[k][a]) c[a] -= shapes[k++][a];
          const Shape st = dense_strides(shapes[k]);
          int64_t s = 0;
          for (size_t d = 0; d < 3; ++d) s += c[d] * st[d];
          std::memcpy(&want[(out_offset + e) * size], &xin[k][uint64_t(s) * size], size);
        }
        EXPECT_TRUE(bytes_of(y) == want) << data_type_name(t) << " " << inputs << " inputs, axis " << axis;
      }
}

TEST_P(LayoutOnEveryBackend, ConcatOfAlignedBlocksAsRowCopies) {
  Layout layout(device());
  for (DataType t : kWidths)
    for (int64_t axis : {0, 1}) {
      const uint32_t size = data_type_size(t);
      // Blocks of rows of 16 elements: whole 16-byte vectors for every width.
      const std::vector<Shape> shapes = axis == 1 ? std::vector<Shape>{{3, 2, 16}, {3, 1, 16}, {3, 0, 16}, {3, 3, 16}, {3, 1, 16}}
                                                  : std::vector<Shape>{{2, 4, 16}, {1, 4, 16}, {3, 4, 16}};
      Shape ys = shapes[0];
      ys[size_t(axis)] = 0;
      for (auto& s : shapes) ys[size_t(axis)] += s[size_t(axis)];
      const uint64_t n = count_of(ys), out_offset = 32;  // 16-byte aligned for every width
      std::vector<RawBuffer> xs;
      std::vector<Bytes> xin;
      std::vector<TensorRef> refs;
      for (size_t k = 0; k < shapes.size(); ++k) {
        xs.push_back(random_buffer((count_of(shapes[k]) * size + 3) / 4 + 4, uint32_t(70 + k)));
        xin.push_back(bytes_of(xs.back()));
      }
      for (size_t k = 0; k < shapes.size(); ++k) refs.push_back(tensor(xs[k], t, shapes[k], 0));
      auto y = random_buffer(((out_offset + n) * size + 3) / 4 + 4, 80);
      const Bytes yin = bytes_of(y);
      const TensorRef yr = tensor(y, t, ys, out_offset);
      EXPECT_TRUE(layout.concat_variant(refs, axis, yr).starts_with("layout.rows.")) << layout.concat_variant(refs, axis, yr);
      auto enc = device().begin_commands();
      layout.concat(enc, refs, axis, yr);
      EXPECT_EQ(enc.compute_pass_count(), 1u);
      device().submit(enc);
      Bytes want = yin;
      const size_t a = size_t(axis);
      for (uint64_t e = 0; e < n; ++e) {
        Shape c = coords(ys, e);
        size_t k = 0;
        while (c[a] >= shapes[k][a]) c[a] -= shapes[k++][a];
        const Shape st = dense_strides(shapes[k]);
        int64_t s = 0;
        for (size_t d = 0; d < 3; ++d) s += c[d] * st[d];
        std::memcpy(&want[(out_offset + e) * size], &xin[k][uint64_t(s) * size], size);
      }
      EXPECT_TRUE(bytes_of(y) == want) << data_type_name(t) << " axis " << axis;
    }
}

TEST_F(LayoutTest, ConcatInputsInsideTheOutputsBuffer) {
  Layout layout(device());
  for (DataType t : kWidths) {
    const uint32_t size = data_type_size(t);
    // Five inputs [4, k + 1, 3] one after another (a word apart), then the output.
    const Shape base = {4, 0, 3};
    std::vector<Shape> shapes;
    std::vector<uint64_t> offsets;
    uint64_t at = 1;
    const uint64_t per = 4 / std::min<uint32_t>(size, 4);
    for (int k = 0; k < 5; ++k) {
      shapes.push_back({4, k + 1, 3});
      offsets.push_back(at);
      at += uint64_t(count_of(shapes.back())) + per;
    }
    const Shape ys = {4, 15, 3};
    const uint64_t out_offset = at + 1, n = count_of(ys);
    auto buf = random_buffer(((out_offset + n) * size + 3) / 4 + 2, 50);
    const Bytes before = bytes_of(buf);
    std::vector<TensorRef> refs;
    for (int k = 0; k < 5; ++k) refs.push_back(tensor(buf, t, shapes[size_t(k)], offsets[size_t(k)]));
    submit([&](CommandEncoder& e) { layout.concat(e, refs, 1, tensor(buf, t, ys, out_offset)); });
    Bytes want = before;
    for (uint64_t e = 0; e < n; ++e) {
      Shape c = coords(ys, e);
      size_t k = 0;
      while (c[1] >= shapes[k][1]) c[1] -= shapes[k++][1];
      const uint64_t s = offsets[k] + uint64_t((c[0] * shapes[k][1] + c[1]) * 3 + c[2]);
      std::memcpy(&want[(out_offset + e) * size], &before[s * size], size);
    }
    EXPECT_TRUE(bytes_of(buf) == want) << data_type_name(t);
    // An input overlapping the output is refused before recording.
    refs[4] = tensor(buf, t, shapes[4], out_offset + 2);
    auto enc = device().begin_commands();
    try {
      layout.concat(enc, refs, 1, tensor(buf, t, ys, out_offset));
      ADD_FAILURE() << "no error";
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.operation(), "Concat");
      EXPECT_EQ(e.argument(), "output");
    }
    EXPECT_EQ(enc.dispatch_count(), 0u);
  }
}

// ---- expand ----

TEST_P(LayoutOnEveryBackend, ExpandInPlaceWhenDisjoint) {
  Layout layout(device());
  struct ExpandCase {
    Shape x, shape;
  };
  const ExpandCase cases[] = {{{3, 1}, {2, 3, 6}}, {{1}, {37}}, {{}, {5}}, {{1, 16}, {3, 16}}, {{5, 1, 4}, {5, 3, 4}}, {{7}, {2, 1, 7}}};
  for (DataType t : kWidths)
    for (const ExpandCase& ec : cases)
      for (bool in_place : {false, true}) {
        const uint32_t size = data_type_size(t);
        const Shape ys = Layout::expand_shape(ec.x, ec.shape);
        const uint64_t nx = count_of(ec.x), n = count_of(ys);
        const uint64_t x_offset = 1, out_offset = in_place ? x_offset + nx + 4 + 1 : 3;
        auto buf = random_buffer(((std::max(x_offset + nx + 8, out_offset + n)) * size + 3) / 4 + 1, 60);
        auto out = random_buffer(((out_offset + n) * size + 3) / 4 + 2, 61);
        const RawBuffer& y = in_place ? buf : out;
        const Bytes xin = bytes_of(buf), yin = bytes_of(y);
        const TensorRef xr = tensor(buf, t, ec.x, x_offset), yr = tensor(y, t, ys, out_offset);
        if (in_place && !caps().aliased_writable_bindings) {
          // A buffer bound writable and read-only in one dispatch (WebGPU refuses it): refused
          // before recording.
          auto enc = device().begin_commands();
          try {
            layout.expand(enc, xr, yr);
            ADD_FAILURE() << "no error";
          } catch (const UnsupportedError& e) {
            EXPECT_EQ(e.capability(), "aliased_writable_bindings");
          }
          EXPECT_EQ(enc.dispatch_count(), 0u);
          continue;
        }
        submit([&](CommandEncoder& e) { layout.expand(e, xr, yr); });
        const size_t lead = ys.size() - ec.x.size();
        const Shape st = dense_strides(ec.x);
        const Bytes want = reference(xin, yin, out_offset, n, size, [&](uint64_t e) {
          const Shape c = coords(ys, e);
          int64_t s = int64_t(x_offset);
          for (size_t d = 0; d < ec.x.size(); ++d) s += ec.x[d] == 1 ? 0 : c[d + lead] * st[d];
          return s;
        });
        EXPECT_TRUE(bytes_of(y) == want) << data_type_name(t) << " " << describe(ec.x) << " -> " << describe(ys)
                                         << (in_place ? " in place" : "");
      }
}

TEST_F(LayoutTest, ExpandOverlapIsRefusedBeforeRecording) {
  Layout layout(device());
  auto buf = random_buffer(64, 1);
  const Shape xs = {3, 1}, ys = {3, 4};
  for (auto [t, out_offset] : {std::pair{DataType::float32, uint64_t(2)}, {DataType::float16, uint64_t(3)},
                               {DataType::uint8, uint64_t(3)}, {DataType::int64, uint64_t(1)}}) {
    // float16 and uint8 at 3 share the input's last word without sharing an element.
    auto enc = device().begin_commands();
    try {
      layout.expand(enc, tensor(buf, t, xs, 0), tensor(buf, t, ys, out_offset));
      ADD_FAILURE() << "no error for " << data_type_name(t);
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.operation(), "Expand");
      EXPECT_EQ(e.argument(), "output");
    }
    EXPECT_EQ(enc.dispatch_count(), 0u);
  }
}

// ---- errors ----

TEST_F(LayoutTest, BadArgumentsThrowBeforeRecording) {
  Layout layout(device());
  auto x = random_buffer(4096, 1), y = random_buffer(4096, 2);
  const DataType f32 = DataType::float32;
  auto enc = device().begin_commands();
  auto expect = [&](const char* op, const char* argument, auto&& call) {
    try {
      call();
      ADD_FAILURE() << "no error for " << op << " " << argument;
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.operation(), op) << e.what();
      EXPECT_EQ(e.argument(), argument) << e.what();
    }
  };
  const Shape s7 = {2, 2, 2, 2, 2, 2, 2}, p7 = {6, 5, 4, 3, 2, 1, 0};
  expect("Transpose", "shape", [&] { layout.transpose(enc, tensor(x, f32, s7), p7, tensor(y, f32, s7)); });
  const Shape s = {4, 8}, st = {8, 4}, bad_perm = {0, 0};
  expect("Transpose", "perm", [&] { layout.transpose(enc, tensor(x, f32, s), bad_perm, tensor(y, f32, st)); });
  expect("Transpose", "output", [&] { layout.transpose(enc, tensor(x, f32, s), {}, tensor(y, f32, s)); });
  expect("Transpose", "output", [&] { layout.transpose(enc, tensor(x, f32, s), {}, tensor(y, DataType::int32, st)); });
  expect("Transpose", "output", [&] { layout.transpose(enc, tensor(x, f32, s), {}, tensor(y, f32, st, 4090)); });
  expect("Transpose", "x", [&] { layout.transpose(enc, tensor(x, f32, s, 4090), {}, tensor(y, f32, st)); });
  expect("Transpose", "output", [&] { layout.transpose(enc, tensor(x, f32, s), {}, tensor(x, f32, st, 16)); });
  const Shape one = {1}, two = {2}, zero = {0}, s2 = {2, 8};
  const Shape s1 = {1, 8};
  expect("Slice", "output", [&] { layout.slice(enc, tensor(x, f32, s), one, two, {}, {}, tensor(x, f32, s1, 100)); });
  expect("Slice", "steps", [&] { layout.slice(enc, tensor(x, f32, s), one, two, {}, zero, tensor(y, f32, s2)); });
  expect("Slice", "output", [&] { layout.slice(enc, tensor(x, f32, s), zero, two, {}, {}, tensor(y, f32, s)); });
  expect("Slice", "ends", [&] { layout.slice(enc, tensor(x, f32, s), zero, {}, {}, {}, tensor(y, f32, s)); });
  const Shape e_shape = {3, 8};
  expect("Expand", "shape", [&] { layout.expand(enc, tensor(x, f32, s), tensor(y, f32, e_shape)); });
  expect("Expand", "output", [&] { layout.expand(enc, tensor(x, f32, two), tensor(y, DataType::uint32, s2)); });
  const TensorRef ins[] = {tensor(x, f32, s), tensor(x, DataType::int32, s)};
  const Shape cs = {8, 8};
  expect("Concat", "inputs", [&] { layout.concat(enc, ins, 0, tensor(y, f32, cs)); });
  const TensorRef ins2[] = {tensor(x, f32, s), tensor(x, f32, s)};
  expect("Concat", "axis", [&] { layout.concat(enc, ins2, 2, tensor(y, f32, cs)); });
  const Shape cs9 = {9, 8};
  expect("Concat", "output", [&] { layout.concat(enc, ins2, 0, tensor(y, f32, cs9)); });
  expect("Concat", "inputs", [&] { layout.concat(enc, ins2, 1, tensor(y, f32, cs)); });
  const Shape strided = {-1, 1};
  expect("Transpose", "strides", [&] { layout.transpose(enc, tensor(x, f32, s, 40, strided), {}, tensor(y, f32, st)); });
  EXPECT_EQ(enc.dispatch_count(), 0u);
  EXPECT_EQ(enc.compute_pass_count(), 0u);
}

// A concat whose second input lives on another device records nothing: every pass is bound
// (which checks each buffer's device) before the first is recorded.
TEST_F(LayoutTest, ConcatWithABufferOfAnotherDeviceRecordsNothing) {
  std::string why;
  std::optional<Device> other = open_test_device(&why);
  ASSERT_TRUE(other.has_value()) << why;
  {
    Layout layout(device());
    RawBuffer x = random_buffer(64, 1), y = random_buffer(128, 2);
    RawBuffer foreign = other->create_buffer(random_words(64, 3));
    const Shape s = {4, 16}, cs = {8, 16}, cs_rows = {4, 32};
    const TensorRef ins[] = {{&x, 0, s, {}, DataType::float32}, {&foreign, 0, s, {}, DataType::float32}};
    for (int64_t axis : {0, 1}) {
      auto enc = device().begin_commands();
      const Shape& out_shape = axis == 0 ? cs : cs_rows;
      EXPECT_THROW(layout.concat(enc, ins, axis, {&y, 0, out_shape, {}, DataType::float32}), UsageError);
      EXPECT_EQ(enc.dispatch_count(), 0u);
      EXPECT_EQ(enc.compute_pass_count(), 0u);
    }
  }
  const std::vector<std::string> messages = close_and_take_messages(*other);
  EXPECT_TRUE(messages.empty()) << join(messages);
}

}  // namespace
}  // namespace onegpu::testing
