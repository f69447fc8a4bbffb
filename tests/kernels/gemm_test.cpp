// Gemm against a float64 reference: every variant, transposes, edges, offsets, leading
// dimensions, batches, alpha and beta, the epilogue, determinism and argument checks.
#include "onegpu/kernels/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <regex>

#include "onegpu/kernels/elementwise.h"
#include "reference/reference.h"
#include "support/device_fixture.h"
#include "kernels/tensor_helpers.h"
#include "support/random.h"
#include "support/scoped_env.h"

namespace onegpu::testing {
namespace {

using kernels::Gemm;
using kernels::GemmEpilogue;
using kernels::GemmProblem;
using kernels::KernelMode;
using kernels::UnaryFunction;
using kernels::UnaryOp;

constexpr uint32_t kPoison = 0x7fc0dead;  // NaN in C where beta = 0
constexpr float kUntouched = -12345.5f;   // around and between the written elements

uint64_t extent(uint64_t offset, uint64_t batch, uint64_t stride, uint64_t rows, uint64_t cols, uint64_t ld) {
  return rows && cols && batch ? offset + (batch - 1) * stride + (rows - 1) * ld + cols : offset;
}

struct Operands {
  std::vector<float> a, b;  // values already rounded to the element type
};

RawBuffer upload(Device& d, DataType t, const std::vector<float>& v) {
  if (t == DataType::float32) return d.create_buffer(v);
  if (t == DataType::float16) {
    std::vector<float16> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = to_float16(v[i]);
    return d.create_buffer(h);
  }
  std::vector<bfloat16> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) h[i] = to_bfloat16(v[i]);
  return d.create_buffer(h);
}

struct Outcome {
  double error = 0;
  bool untouched_ok = true;
  std::string variant;
  std::vector<float> c;
};

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class GemmFixture : public Base {
 protected:
  // Runs one product and compares it with the reference.
  Outcome run(Gemm& gemm, const GemmProblem& p, bool bias = false, UnaryFunction act = {}, uint32_t seed = 1) {
    const DataType t = gemm.element_type();
    const uint64_t a_rows = p.transpose_a ? p.k : p.m, a_cols = p.transpose_a ? p.m : p.k;
    const uint64_t b_rows = p.transpose_b ? p.n : p.k, b_cols = p.transpose_b ? p.k : p.n;
    const uint64_t lda = p.lda.value_or(std::max<uint64_t>(a_cols, 1)),
                   ldb = p.ldb.value_or(std::max<uint64_t>(b_cols, 1));
    const uint64_t ldc = p.ldc.value_or(std::max<uint64_t>(p.n, 1));
    const uint64_t sa = p.stride_a.value_or(a_rows && a_cols ? (a_rows - 1) * lda + a_cols : 0);
    const uint64_t sb = p.stride_b.value_or(b_rows && b_cols ? (b_rows - 1) * ldb + b_cols : 0);
    const uint64_t sc = p.stride_c.value_or(p.m && p.n ? (p.m - 1) * ldc + p.n : 0);
    const size_t na = extent(p.offset_a, p.batch, sa, a_rows, a_cols, lda) + 3;
    const size_t nb = extent(p.offset_b, p.batch, sb, b_rows, b_cols, ldb) + 5;
    const size_t nc = extent(p.offset_c, p.batch, sc, p.m, p.n, ldc) + 7;
    auto a = random_floats(na, seed), b = random_floats(nb, seed + 1), c0 = random_floats(nc, seed + 2);
    for (auto& v : a) v = reference::round_to(t, v);
    for (auto& v : b) v = reference::round_to(t, v);
    const auto written = reference::gemm_written(p, nc);
    for (size_t i = 0; i < nc; ++i) {
      if (!written[i])
        c0[i] = kUntouched;
      else if (p.beta == 0.0f)
        std::memcpy(&c0[i], &kPoison, 4);
    }
    auto bias_values = random_floats(p.n + 2, seed + 3);

    auto ba = upload(this->device(), t, a), bb = upload(this->device(), t, b);
    auto bc = this->device().create_buffer(c0);
    auto bbias = this->device().create_buffer(bias_values);
    GemmEpilogue epi;
    if (bias) {
      epi.bias = &bbias;
      epi.bias_offset = 2;
    }
    epi.activation = act;
    auto enc = this->device().begin_commands();
    gemm.encode(enc, p, ba, bb, bc, epi);
    this->device().submit(enc);
    Outcome o;
    o.variant = gemm.variant(p, epi);
    o.c = bc.read();

    std::vector<double> ra(a.begin(), a.end()), rb(b.begin(), b.end()), rc(c0.begin(), c0.end());
    std::vector<double> rbias;
    if (bias) rbias.assign(bias_values.begin() + 2, bias_values.begin() + 2 + p.n);
    reference::gemm(p, ra, rb, rc, rbias, act);
    o.error = reference::scaled_error(o.c, rc, written);
    for (size_t i = 0; i < nc; ++i)
      if (!written[i] && std::memcmp(&o.c[i], &c0[i], 4) != 0) o.untouched_ok = false;
    return o;
  }

  // `variant`: a regular expression the whole variant name must match (empty: any).
  void expect_accurate(Gemm& gemm, const GemmProblem& p, const std::string& variant = "", bool bias = false,
                       UnaryFunction act = {}) {
    Outcome o = run(gemm, p, bias, act);
    const double tol = reference::Tolerance::of(gemm.element_type());
    SCOPED_TRACE(std::string(data_type_name(gemm.element_type())) + " " + std::to_string(p.m) + "x" +
                 std::to_string(p.n) + "x" + std::to_string(p.k) + " ta=" + std::to_string(p.transpose_a) +
                 " tb=" + std::to_string(p.transpose_b) + " batch=" + std::to_string(p.batch) + " " + o.variant);
    EXPECT_LE(o.error, tol);
    EXPECT_TRUE(o.untouched_ok) << "elements outside the written region changed";
    if (!variant.empty()) {
      EXPECT_TRUE(std::regex_match(o.variant, std::regex(variant))) << o.variant << " does not match " << variant;
    }
  }
};

using GemmTest = GemmFixture<DeviceTest>;
// On every backend with the same references, tolerances and bit checks. A device without
// cooperative matrices (WebGPU) takes the portable kernels the tests name.
using GemmOnEveryBackend = GemmFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, GemmOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

const DataType kTypes[] = {DataType::float32, DataType::float16, DataType::bfloat16};

// Patterns (regular expressions over the whole name) of the variants the tests expect.
std::string elem(DataType t) { return t == DataType::float32 ? "f32" : t == DataType::float16 ? "f16" : "bf16"; }
std::string tile64(DataType t) { return "gemm\\.tile64\\." + elem(t); }
// The 128 x 128 tile, padded or, where 33 KiB of workgroup memory do not fit (lavapipe), compact.
std::string tile128(DataType t) { return "gemm\\.tile128\\." + elem(t) + "(\\.compact)?"; }
std::string rows(const std::string& kind, DataType t) { return "gemm\\.rows\\." + kind + "\\." + elem(t); }
const std::string kSplit = "\\.splitk[0-9]+";

TEST_P(GemmOnEveryBackend, GettingStartedProduct) {
  Gemm gemm(device(), DataType::float32);
  auto a = device().create_buffer(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  auto b = device().create_buffer(std::vector<float>{1, 0, 2, 0, 1, 3});
  auto c = device().create_buffer<float>(12);
  auto enc = device().begin_commands();
  gemm.encode(enc, {.m = 4, .n = 3, .k = 2}, a, b, c);
  device().submit(enc);
  EXPECT_EQ(c.read(), (std::vector<float>{1, 2, 8, 3, 4, 18, 5, 6, 28, 7, 8, 38}));
}

TEST_P(GemmOnEveryBackend, EdgeSizesAndTransposesEveryType) {
  const uint64_t sizes[] = {1, 3, 17, 63, 64, 65, 127};
  for (auto t : kTypes) {
    Gemm gemm(device(), t);
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (size_t i = 0; i < std::size(sizes); ++i) {
          const uint64_t m = sizes[i], n = sizes[(i + 2) % 7], k = sizes[(i + 4) % 7];
          expect_accurate(
              gemm, {.m = std::max<uint64_t>(m, 5), .n = n, .k = k, .transpose_a = bool(ta), .transpose_b = bool(tb)});
        }
  }
}

TEST_P(GemmOnEveryBackend, OffsetsLeadingDimensionsBatchesAlphaBeta) {
  for (auto t : kTypes) {
    Gemm gemm(device(), t);
    GemmProblem p{.m = 37, .n = 45, .k = 29, .batch = 3, .alpha = 0.75f, .beta = -1.5f};
    p.lda = 40;
    p.ldb = 50;
    p.ldc = 47;
    p.offset_a = 5;
    p.offset_b = 9;
    p.offset_c = 11;
    expect_accurate(gemm, p, tile64(t));
    p.transpose_a = p.transpose_b = true;
    p.lda = 41;
    p.ldb = 33;
    expect_accurate(gemm, p);
    // One B shared by the batch; strides wider than a matrix.
    GemmProblem shared{.m = 20, .n = 70, .k = 33, .batch = 4, .alpha = 2.0f, .beta = 0.5f};
    shared.stride_b = 0;
    shared.stride_a = 20 * 33 + 13;
    shared.stride_c = 20 * 70 + 70;
    expect_accurate(gemm, shared);
  }
}

TEST_P(GemmOnEveryBackend, BetaZeroNeverReadsPoisonedC) {
  for (auto t : kTypes) {
    Gemm gemm(device(), t);
    expect_accurate(gemm, {.m = 70, .n = 33, .k = 20, .alpha = 1.25f});  // C is NaN everywhere written
    expect_accurate(gemm, {.m = 2, .n = 33, .k = 20, .alpha = 1.25f});
    expect_accurate(gemm, {.m = 64, .n = 64, .k = 512});  // split k
  }
}

TEST_P(GemmOnEveryBackend, SplitKForSmallGridsOverLongK) {
  for (auto t : kTypes) {
    Gemm gemm(device(), t, {.allow_matrix_hardware = false});  // the portable kernels' split
    expect_accurate(gemm, {.m = 128, .n = 96, .k = 768, .beta = 0.5f}, tile64(t) + kSplit);
    expect_accurate(gemm, {.m = 65, .n = 17, .k = 300, .transpose_a = true, .transpose_b = true}, tile64(t) + kSplit);
    GemmProblem batched{.m = 30, .n = 40, .k = 1000, .batch = 2, .alpha = -1.0f, .beta = 2.0f};
    batched.ldc = 41;
    expect_accurate(gemm, batched, tile64(t) + kSplit);
  }
  Gemm gemm(device(), DataType::float32);
  EXPECT_EQ(gemm.variant({.m = 128, .n = 768, .k = 768}), "gemm.tile64.f32.splitk12");
  EXPECT_EQ(gemm.variant({.m = 64, .n = 64, .k = 100}), "gemm.tile64.f32");  // k too short
  Gemm deterministic(device(), DataType::float32, {.mode = KernelMode::deterministic});
  EXPECT_EQ(deterministic.variant({.m = 2048, .n = 2048, .k = 4096}), "gemm.tile64.f32");  // grid large enough
}

// Pieces of a product (column bands) recorded with the whole product's n in plan_n run its kernel
// and k split, so they give the whole product's bits; planned alone, a piece splits k differently.
TEST_P(GemmOnEveryBackend, ColumnPiecesPlannedForTheWholeProductGiveItsBits) {
  Gemm gemm(device(), DataType::float32, {.mode = KernelMode::deterministic});
  const uint64_t m = 128, n = 1536, k = 1024, band = 256;
  const GemmProblem whole{.m = m, .n = n, .k = k};
  GemmProblem piece{.m = m, .n = band, .k = k};
  piece.ldb = n, piece.ldc = n;
  EXPECT_NE(gemm.variant(piece), gemm.variant(whole));  // alone: a smaller grid, more ranges
  piece.plan_n = n;
  EXPECT_EQ(gemm.variant(piece), gemm.variant(whole));
  auto a = device().create_buffer(random_floats(m * k, 3)), b = device().create_buffer(random_floats(k * n, 4));
  auto c1 = device().create_buffer<float>(m * n), c2 = device().create_buffer<float>(m * n);
  CommandEncoder e = device().begin_commands();
  gemm.encode(e, whole, a, b, c1);
  for (uint64_t j = 0; j < n; j += band) {
    GemmProblem q = piece;
    q.offset_b = j, q.offset_c = j;
    gemm.encode(e, q, a, b, c2);
  }
  device().submit(e);
  EXPECT_TRUE(same_bits(c1.read(), c2.read()));
  piece.plan_n = band - 1;  // smaller than the piece
  EXPECT_THROW(gemm.variant(piece), KernelShapeError);
}

TEST_P(GemmOnEveryBackend, LargeFloat32Tile) {
  Gemm gemm(device(), DataType::float32);
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      expect_accurate(gemm,
                      {.m = 302, .n = 260, .k = 36, .transpose_a = bool(ta), .transpose_b = bool(tb), .beta = 0.5f},
                      ta ? tile64(DataType::float32) : tile128(DataType::float32));  // A^T needs M % 4 == 0
  GemmProblem p{.m = 256, .n = 388, .k = 72, .batch = 2, .alpha = -0.5f, .beta = 1.5f};
  p.stride_b = 0;
  p.lda = 76;
  p.ldc = 390;
  p.offset_a = 8;
  p.offset_b = 4;
  p.offset_c = 3;
  expect_accurate(gemm, p, tile128(DataType::float32));
  p.transpose_a = p.transpose_b = true;
  p.lda = 260;
  p.ldb = 76;
  expect_accurate(gemm, p, tile128(DataType::float32));
  expect_accurate(gemm, {.m = 256, .n = 256, .k = 1024}, tile128(DataType::float32) + "\\.splitk4");
  expect_accurate(gemm, {.m = 260, .n = 256, .k = 52, .transpose_a = true}, tile128(DataType::float32));
  Gemm deterministic(device(), DataType::float32, {.mode = KernelMode::deterministic});
  EXPECT_EQ(deterministic.variant({.m = 256, .n = 256, .k = 64}), "gemm.tile64.f32");
}

TEST_P(GemmOnEveryBackend, LargeTileWithHalfInputs) {
  for (auto t : {DataType::float16, DataType::bfloat16}) {
    Gemm gemm(device(), t, {.allow_matrix_hardware = false});
    const std::string name = tile128(t);
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        expect_accurate(gemm, {.m = 260, .n = 300, .k = 44, .transpose_a = bool(ta), .transpose_b = bool(tb), .beta = 0.5f},
                        name);
    GemmProblem p{.m = 256, .n = 388, .k = 72, .batch = 2, .alpha = -0.5f};
    p.stride_b = 0;
    p.offset_a = 4;
    p.offset_b = 8;
    expect_accurate(gemm, p, name, true, {UnaryOp::gelu_tanh});
    expect_accurate(gemm, {.m = 256, .n = 256, .k = 1024}, name + "\\.splitk4");
    GemmProblem odd{.m = 256, .n = 256, .k = 64};
    odd.offset_a = 2;  // reads would straddle four-element boundaries: the portable tile
    expect_accurate(gemm, odd, tile64(t));
  }
}

TEST_P(GemmOnEveryBackend, FewRowsKernels) {
  Gemm gemm(device(), DataType::float32);
  for (uint64_t m = 1; m <= 4; ++m) {
    expect_accurate(gemm, {.m = m, .n = 300, .k = 257, .beta = 0.5f}, "gemm\\.rows\\.kn16\\.f32");
    expect_accurate(gemm, {.m = m, .n = 77, .k = 256, .transpose_b = true}, "gemm\\.rows\\.nk\\.f32\\.vec4");
    expect_accurate(gemm, {.m = m, .n = 77, .k = 255, .transpose_b = true, .alpha = 3.0f}, "gemm\\.rows\\.nk\\.f32");
  }
  expect_accurate(gemm, {.m = 1, .n = 8200, .k = 40}, "gemm\\.rows\\.kn32\\.f32");
  GemmProblem batched{.m = 3, .n = 100, .k = 64, .transpose_b = true, .batch = 3};
  batched.stride_b = 0;
  batched.offset_a = 4;
  expect_accurate(gemm, batched, "gemm\\.rows\\.nk\\.f32\\.vec4");
  batched.offset_a = 1;  // misaligned: the scalar kernel
  expect_accurate(gemm, batched, "gemm\\.rows\\.nk\\.f32");
  // Transposed A keeps the tile.
  EXPECT_EQ(gemm.variant({.m = 2, .n = 100, .k = 64, .transpose_a = true}), "gemm.tile64.f32");
  // 16-bit operands, also where the matrix-hardware kernel would take the shape. B stored K x N on
  // the one-element kernels (kept for tuning; the 16-byte-word ones in FewRowsInWordsForBStoredKxN).
  for (auto t : {DataType::float16, DataType::bfloat16}) {
    ScopedEnv old_kernel("ONEGPU_GEMM_ROWS_KN", "old");
    Gemm g16(device(), t);
    for (uint64_t m : {1, 4}) {
      expect_accurate(g16, {.m = m, .n = 301, .k = 257, .beta = 0.5f}, rows("kn16", t));
      expect_accurate(g16, {.m = m, .n = 77, .k = 255, .transpose_b = true, .alpha = 3.0f}, rows("nk", t));
    }
    expect_accurate(g16, {.m = 3, .n = 256, .k = 256, .transpose_b = true}, rows("nk", t) + "\\.vec8");
    // B stored N x K, eight elements at a time: every row count, alpha, beta, a shared B, and the
    // one-at-a-time kernel where an offset breaks the eight-element words.
    for (uint64_t m = 1; m <= 4; ++m)
      expect_accurate(g16, {.m = m, .n = 77, .k = 264, .transpose_b = true, .alpha = 3.0f, .beta = 0.5f},
                      rows("nk", t) + "\\.vec8");
    GemmProblem nk{.m = 3, .n = 100, .k = 64, .transpose_b = true, .batch = 3};
    nk.stride_b = 0;
    nk.offset_a = 8;
    expect_accurate(g16, nk, rows("nk", t) + "\\.vec8", true, {UnaryOp::silu});
    nk.offset_a = 4;
    expect_accurate(g16, nk, rows("nk", t));
    // B stored K x N with many columns, one element at a time whatever the alignment of its rows
    // (N odd, offsets odd): every row count, a batch, the epilogue.
    const std::string kn_wide = rows("kn32", t);
    for (uint64_t m = 1; m <= 4; ++m)
      expect_accurate(g16, {.m = m, .n = 8201, .k = 257, .beta = 0.5f}, kn_wide);
    GemmProblem kn{.m = 2, .n = 8195, .k = 130, .batch = 2, .alpha = -0.5f};
    kn.offset_a = 3, kn.offset_b = 5, kn.ldb = 8199, kn.ldc = 8197;
    expect_accurate(g16, kn, kn_wide, true, {UnaryOp::gelu_tanh});
    kn.stride_b = 0;
    kn.k = 7;
    expect_accurate(g16, kn, kn_wide);
    expect_accurate(g16, {.m = 1, .n = 8192, .k = 64}, kn_wide);
    expect_accurate(g16, {.m = 4, .n = 8191, .k = 64}, rows("kn16", t));
  }
}

// Few rows with 16-bit B stored K x N, read in 16-byte words: rows starting at every element
// modulo 8 (odd N, leading dimensions and offsets), N not a multiple of 8, the last row of B read
// element by element where its words would pass the binding, every row count, batches (a shared
// B too), alpha, beta and the epilogue, k split into ranges (K not a multiple of the range), the
// 256-column form and forced splits; two runs give the same bits, and column bands planned for the
// whole product give its bits whatever their alignment.
TEST_P(GemmOnEveryBackend, FewRowsInWordsForBStoredKxN) {
  for (auto t : {DataType::float16, DataType::bfloat16}) {
    SCOPED_TRACE(data_type_name(t));
    const std::string kn64 = rows("kn64", t) + "\\.vec8", one = kn64 + "\\.one";  // one row: its own form
    Gemm gemm(device(), t);
    for (uint64_t m = 1; m <= 4; ++m) {
      expect_accurate(gemm, {.m = m, .n = 301, .k = 257, .beta = 0.5f}, m == 1 ? one : kn64);
      expect_accurate(gemm, {.m = m, .n = 300, .k = 1100, .alpha = 1.5f}, (m == 1 ? one : kn64) + "\\.splitk4");
    }
    expect_accurate(gemm, {.m = 1, .n = 256, .k = 40}, one);
    GemmProblem last{.m = 1, .n = 256, .k = 3};
    last.offset_b = 1;  // the last row's last words lie past the end of B: element by element
    expect_accurate(gemm, last, one);
    GemmProblem kn{.m = 2, .n = 1001, .k = 130, .batch = 2, .alpha = -0.5f, .beta = 0.25f};
    kn.offset_a = 3, kn.offset_b = 5, kn.ldb = 1007, kn.ldc = 1003;
    expect_accurate(gemm, kn, kn64, true, {UnaryOp::gelu_tanh});
    kn.stride_b = 0;
    kn.k = 7;
    expect_accurate(gemm, kn, kn64);
    kn.m = 1;
    expect_accurate(gemm, kn, one, true, {UnaryOp::relu});
    GemmProblem split{.m = 3, .n = 259, .k = 1500, .batch = 2, .beta = -1.0f};
    split.offset_b = 7, split.ldb = 263, split.stride_b = 263 * 1500 + 3;
    expect_accurate(gemm, split, kn64 + kSplit, true, {UnaryOp::relu});
    // Two runs, the same bits (unsplit and split).
    for (const GemmProblem& p : {GemmProblem{.m = 4, .n = 301, .k = 257}, GemmProblem{.m = 2, .n = 300, .k = 1100},
                                 GemmProblem{.m = 1, .n = 300, .k = 1100}}) {
      const Outcome first = run(gemm, p, true, {}, 7), second = run(gemm, p, true, {}, 7);
      EXPECT_TRUE(same_bits(first.c, second.c)) << first.variant << ": two runs differ";
    }
    // Column bands of 250 (B's rows start at 0, 2, 4 and 6 modulo 8), planned for the whole product.
    {
      const uint64_t m = 2, n = 1000, k = 1024, band = 250;
      const GemmProblem whole{.m = m, .n = n, .k = k};
      EXPECT_TRUE(std::regex_match(gemm.variant(whole), std::regex(kn64 + kSplit))) << gemm.variant(whole);
      auto av = random_floats(m * k, 11), bv = random_floats(k * n, 12);
      for (auto& v : av) v = reference::round_to(t, v);
      for (auto& v : bv) v = reference::round_to(t, v);
      auto a = upload(device(), t, av), b = upload(device(), t, bv);
      auto c1 = device().create_buffer<float>(m * n), c2 = device().create_buffer<float>(m * n);
      CommandEncoder e = device().begin_commands();
      gemm.encode(e, whole, a, b, c1);
      for (uint64_t j = 0; j < n; j += band) {
        GemmProblem q{.m = m, .n = band, .k = k};
        q.ldb = n, q.ldc = n, q.plan_n = n, q.offset_b = j, q.offset_c = j;
        gemm.encode(e, q, a, b, c2);
      }
      device().submit(e);
      EXPECT_TRUE(same_bits(c1.read(), c2.read())) << "column bands";
    }
    // The 256-column form and forced ranges (tuning), still within the tolerance.
    {
      ScopedEnv wide("ONEGPU_GEMM_ROWS_KN", "kn256");
      ScopedEnv ranges("ONEGPU_GEMM_ROWS_KN_SPLITS", "3");
      Gemm forced(device(), t);
      expect_accurate(forced, kn, rows("kn256", t) + "\\.vec8");  // k = 7: one range
      expect_accurate(forced, {.m = 4, .n = 700, .k = 200, .beta = 0.5f}, rows("kn256", t) + "\\.vec8\\.splitk3");
      expect_accurate(forced, {.m = 1, .n = 9, .k = 300}, rows("kn256", t) + "\\.vec8\\.splitk3");
    }
  }
}

TEST_P(GemmOnEveryBackend, AccumulationAccuracyAtK3072) {
  Gemm gemm(device(), DataType::float32, {.mode = KernelMode::deterministic});
  for (GemmProblem p : {GemmProblem{.m = 64, .n = 64, .k = 3072}, GemmProblem{.m = 1024, .n = 32, .k = 3072}}) {
    Outcome o = run(gemm, p, false, {}, 42);
    std::printf("[ accuracy ] float32 %llux%llux3072 %s: scaled error %.3g\n", (unsigned long long)p.m,
                (unsigned long long)p.n, o.variant.c_str(), o.error);
    EXPECT_LE(o.error, reference::Tolerance::float32);
    EXPECT_LE(o.error, 2e-6) << "blocked accumulation should stay near 3e-7";
  }
}

TEST_F(GemmTest, AccumulationAccuracyAtK3072WithoutSplit) {
  // 384 tiles: the tile alone sums all 3072 terms. The reference is checked on sampled elements.
  const uint64_t m = 1536, n = 1024, k = 3072;
  for (KernelMode mode : {KernelMode::deterministic, KernelMode::fast}) {
    Gemm gemm(device(), DataType::float32, {.mode = mode});
    if (mode == KernelMode::deterministic) {
      ASSERT_EQ(gemm.variant({.m = m, .n = n, .k = k}), "gemm.tile64.f32");
    }
    auto a = random_floats(m * k, 11), b = random_floats(k * n, 12);
    auto ba = device().create_buffer(a), bb = device().create_buffer(b);
    auto bc = device().create_buffer<float>(m * n);
    auto enc = device().begin_commands();
    gemm.encode(enc, {.m = m, .n = n, .k = k}, ba, bb, bc);
    device().submit(enc);
    auto c = bc.read();
    std::vector<float> got;
    std::vector<double> ref;
    for (uint64_t s = 0; s < 3000; ++s) {
      const uint64_t i = (s * 7919) % m, j = (s * 104729) % n;
      double sum = 0;
      for (uint64_t x = 0; x < k; ++x) sum += double(a[i * k + x]) * double(b[x * n + j]);
      ref.push_back(sum);
      got.push_back(c[i * n + j]);
    }
    const double error = reference::scaled_error(got, ref);
    const std::string variant = gemm.variant({.m = m, .n = n, .k = k});
    std::printf("[ accuracy ] float32 %llux%llux%llu %s (sampled): scaled error %.3g\n", (unsigned long long)m,
                (unsigned long long)n, (unsigned long long)k, variant.c_str(), error);
    // The portable tile's blocked order stays near 3e-7; the fast 128 x 128 tile chains each k range.
    EXPECT_LE(error, mode == KernelMode::deterministic ? 2e-6 : reference::Tolerance::float32) << variant;
  }
}

TEST_P(GemmOnEveryBackend, DeterministicRunsAreBitIdentical) {
  for (auto t : kTypes) {
    Gemm gemm(device(), t, {.mode = KernelMode::deterministic});
    for (GemmProblem p : {GemmProblem{.m = 100, .n = 70, .k = 300}, GemmProblem{.m = 200, .n = 130, .k = 96},
                          GemmProblem{.m = 3, .n = 90, .k = 200, .transpose_b = true}}) {
      Outcome first = run(gemm, p, true, {UnaryOp::gelu_erf}, 7);
      Outcome second = run(gemm, p, true, {UnaryOp::gelu_erf}, 7);
      ASSERT_EQ(first.c.size(), second.c.size());
      EXPECT_EQ(std::memcmp(first.c.data(), second.c.data(), first.c.size() * 4), 0) << first.variant;
      EXPECT_LE(first.error, reference::Tolerance::of(t));
    }
  }
}

// Every unary function; those with parameters away from their defaults.
const UnaryFunction kUnaryFunctions[] = {
    {UnaryOp::identity},  {UnaryOp::relu},    {UnaryOp::gelu_erf},   {UnaryOp::gelu_tanh},
    {UnaryOp::neg},       {UnaryOp::abs},     {UnaryOp::sqrt},       {UnaryOp::reciprocal},
    {UnaryOp::exp},       {UnaryOp::log},     {UnaryOp::tanh},       {UnaryOp::erf},
    {UnaryOp::sigmoid},   {UnaryOp::silu},    {UnaryOp::hard_sigmoid, {0.3f, 0.4f}},
    {UnaryOp::hard_swish}, {UnaryOp::clip, {-0.75f, 1.25f}}, {UnaryOp::leaky_relu, {0.15f}}};
static_assert(std::size(kUnaryFunctions) == 18);

// Equal bits, or NaN in both (a NaN's payload is no part of the contract: sqrt and log of negative
// sums).
bool same_values(const std::vector<float>& x, const std::vector<float>& y) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (std::memcmp(&x[i], &y[i], 4) != 0 && !(std::isnan(x[i]) && std::isnan(y[i]))) return false;
  return true;
}

// The fused epilogue against the product followed by the element-wise family's bias add and unary
// function, for every variant (the shapes pick them), type and function, with and without bias.
TEST_P(GemmOnEveryBackend, FusedEpilogueEqualsSeparateOperations) {
  kernels::Elementwise ew(device());
  for (auto t : kTypes) {
    Gemm gemm(device(), t);
    for (GemmProblem p : {GemmProblem{.m = 70, .n = 90, .k = 40, .alpha = 0.7f, .beta = 0.3f},
                          GemmProblem{.m = 64, .n = 80, .k = 640},                      // split k
                          GemmProblem{.m = 2, .n = 150, .k = 64, .transpose_b = true},  // few rows
                          GemmProblem{.m = 4, .n = 150, .k = 33},
                          GemmProblem{.m = 256, .n = 260, .k = 64, .beta = 0.25f},  // 128 x 128 tile
                          // Split k on the 128 x 128 tile or the subgroup-scope matrix kernels
                          // (4 ranges); the workgroup-scope ones take 64 x 128 x 64 unsplit.
                          GemmProblem{.m = 256, .n = 384, .k = 1024, .alpha = 0.7f, .beta = 0.3f},
                          // 130 tiles of 128 x 256: the matrix kernels' large tile, alpha and beta.
                          GemmProblem{.m = 1280, .n = 3328, .k = 64, .alpha = 0.7f, .beta = 0.3f}}) {
      const uint64_t count = p.m * p.n;
      // The large shape is there for the matrix kernels (the smaller ones cover the others): four
      // functions, where the device has those kernels.
      const bool large = count > 1000000;
      if (large && !gemm.variant(p).starts_with("gemm.coopmat")) continue;
      const std::vector<int64_t> c_shape = {int64_t(p.m), int64_t(p.n)}, bias_shape = {int64_t(p.n)};
      auto a = random_floats(p.m * p.k, 3, -2, 2), b = random_floats(p.k * p.n, 4, -2, 2);
      auto c0 = random_floats(count, 5);
      auto bias_values = random_floats(p.n + 3, 6);
      auto ba = upload(device(), t, a), bb = upload(device(), t, b);
      auto bias = device().create_buffer(bias_values);
      for (const UnaryFunction& f : kUnaryFunctions) {
        if (large && f.op != UnaryOp::identity && f.op != UnaryOp::gelu_tanh && f.op != UnaryOp::clip &&
            f.op != UnaryOp::silu)
          continue;
        for (bool with_bias : {false, true}) {
          auto fused = device().create_buffer(c0), plain = device().create_buffer(c0);
          auto added = device().create_buffer<float>(count), separate = device().create_buffer<float>(count);
          const GemmEpilogue epilogue{.bias = with_bias ? &bias : nullptr, .bias_offset = 3, .activation = f};
          auto enc = device().begin_commands();
          gemm.encode(enc, p, ba, bb, fused, epilogue);
          gemm.encode(enc, p, ba, bb, plain);
          const RawBuffer* x = &plain;
          if (with_bias) {
            ew.binary(enc, kernels::BinaryOp::add, {.buffer = &plain, .shape = c_shape},
                      {.buffer = &bias, .offset = 3, .shape = bias_shape}, {.buffer = &added, .shape = c_shape});
            x = &added;
          }
          ew.unary(enc, f, {.buffer = x, .shape = c_shape}, {.buffer = &separate, .shape = c_shape});
          device().submit(enc);
          EXPECT_TRUE(same_values(fused.read(), separate.read()))
              << data_type_name(t) << " " << gemm.variant(p, epilogue) << " " << kernels::unary_op_name(f.op)
              << " bias " << with_bias;
        }
      }
    }
  }
}

// The fused functions against float64 (those defined for every sum: not sqrt, log, reciprocal).
TEST_P(GemmOnEveryBackend, EpilogueFunctionsAgainstFloat64) {
  for (auto t : kTypes) {
    Gemm gemm(device(), t);
    for (GemmProblem p : {GemmProblem{.m = 70, .n = 90, .k = 40, .alpha = 0.5f, .beta = 0.3f},
                          GemmProblem{.m = 64, .n = 80, .k = 640, .alpha = 0.1f},  // split k
                          GemmProblem{.m = 3, .n = 150, .k = 64, .transpose_b = true, .alpha = 0.5f}})
      for (const UnaryFunction& f : kUnaryFunctions) {
        if (f.op == UnaryOp::sqrt || f.op == UnaryOp::log || f.op == UnaryOp::reciprocal) continue;
        SCOPED_TRACE(kernels::unary_op_name(f.op));
        expect_accurate(gemm, p, "", true, f);
      }
  }
}

TEST(GemmReference, EveryUnaryFunction) {
  using reference::unary;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (uint32_t op = 0; op < 18; ++op)
    EXPECT_TRUE(std::isfinite(unary(UnaryOp(op), {0.2, 0.5}, 0.25))) << kernels::unary_op_name(UnaryOp(op));
  EXPECT_EQ(unary(UnaryOp::relu, {}, -2.0), 0.0);
  EXPECT_TRUE(std::isnan(unary(UnaryOp::relu, {}, nan)));
  EXPECT_NEAR(unary(UnaryOp::gelu_erf, {}, -3.0), -3.0 * 0.5 * std::erfc(3.0 / std::sqrt(2.0)), 1e-15);
  EXPECT_NEAR(unary(UnaryOp::gelu_tanh, {}, 1.0), 0.8411919906082768, 1e-15);
  EXPECT_EQ(unary(UnaryOp::hard_sigmoid, {0.2f, 0.5f}, 1.0), 0.5 + double(0.2f));
  EXPECT_EQ(unary(UnaryOp::hard_sigmoid, {0.2f, 0.5f}, 10.0), 1.0);
  EXPECT_EQ(unary(UnaryOp::hard_swish, {}, -4.0), -0.0);
  EXPECT_EQ(unary(UnaryOp::hard_swish, {}, 1.5), 1.5 * 0.75);
  EXPECT_EQ(unary(UnaryOp::clip, {-1, 2}, 3.0), 2.0);
  EXPECT_EQ(unary(UnaryOp::clip, {-1, 2}, -3.0), -1.0);
  EXPECT_EQ(unary(UnaryOp::leaky_relu, {0.5f}, -3.0), -1.5);
  EXPECT_EQ(unary(UnaryOp::sigmoid, {}, 0.0), 0.5);
  EXPECT_NEAR(unary(UnaryOp::silu, {}, 2.0), 2.0 / (1 + std::exp(-2.0)), 1e-15);
  EXPECT_TRUE(std::isnan(unary(UnaryOp::sqrt, {}, -1.0)));
}

TEST_F(GemmTest, BadShapesThrowBeforeRecording) {
  Gemm gemm(device(), DataType::float32);
  auto a = device().create_buffer<float>(16 * 16), b = device().create_buffer<float>(16 * 16);
  auto c = device().create_buffer<float>(16 * 16);
  auto enc = device().begin_commands();
  auto expect_shape = [&](const GemmProblem& p, const std::string& argument, const std::string& message = "") {
    try {
      gemm.encode(enc, p, a, b, c);
      ADD_FAILURE() << "no exception for " << argument;
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.operation(), "Gemm");
      EXPECT_EQ(e.argument(), argument) << e.what();
      if (!message.empty()) {
        EXPECT_STREQ(e.what(), message.c_str());
      }
    }
  };
  GemmProblem p{.m = 16, .n = 16, .k = 16};
  p.lda = 12;
  expect_shape(p, "lda", "Gemm: lda: 12 is less than K = 16");
  p = {.m = 16, .n = 16, .k = 16, .transpose_b = true};
  p.ldb = 8;
  expect_shape(p, "ldb", "Gemm: ldb: 8 is less than K = 16");
  p = {.m = 16, .n = 16, .k = 16};
  p.ldc = 15;
  expect_shape(p, "ldc");
  expect_shape({.m = 16, .n = 16, .k = 17}, "a");
  expect_shape({.m = 16, .n = 17, .k = 16}, "b");
  p = {.m = 16, .n = 16, .k = 16};
  p.offset_c = 1;
  expect_shape(p, "c");
  p = {.m = 8, .n = 8, .k = 8, .batch = 2};
  p.stride_c = 10;
  expect_shape(p, "stride_c");
  expect_shape({.m = 1ull << 31, .n = 1, .k = 1}, "m");
  p = {.m = 4, .n = 4, .k = 4};
  p.offset_a = UINT64_MAX - 2;
  expect_shape(p, "offset");
  auto bias = device().create_buffer<float>(8);
  EXPECT_THROW(gemm.encode(enc, {.m = 16, .n = 16, .k = 16}, a, b, c, {.bias = &bias}), KernelShapeError);
  try {
    gemm.encode(enc, {.m = 16, .n = 16, .k = 16}, a, b, c, {.activation = {UnaryOp(18)}});
    ADD_FAILURE() << "no exception for an unknown unary function";
  } catch (const KernelShapeError& e) {
    EXPECT_EQ(e.argument(), "activation") << e.what();
  }
  EXPECT_EQ(enc.compute_pass_count(), 0u);
  EXPECT_EQ(enc.dispatch_count(), 0u);
}

// C may share no 32-bit word with A, B or the bias (a product cannot run in place); A, B, C and
// the bias in disjoint ranges of one buffer give the bits of separate buffers.
TEST_F(GemmTest, OverlapsWithTheOutputThrowBeforeRecording) {
  Gemm gemm(device(), DataType::float32, {.mode = KernelMode::deterministic});
  Gemm half(device(), DataType::float16, {.mode = KernelMode::deterministic});
  const std::vector<float> values = random_floats(4 * 256, 71, -1, 1);
  auto one = device().create_buffer(values);  // A at 0, B at 256, C at 512, bias at 768
  auto enc = device().begin_commands();
  auto expect_overlap = [&](const char* what, const std::string& input, auto call) {
    try {
      call();
      ADD_FAILURE() << what << ": no exception";
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.operation(), "Gemm") << what;
      EXPECT_EQ(e.argument(), "c") << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("overlaps " + input), std::string::npos) << what << ": " << e.what();
    }
  };
  GemmProblem p{.m = 16, .n = 16, .k = 16, .offset_a = 0, .offset_b = 256, .offset_c = 255};
  expect_overlap("C over A's last element", "a", [&] { gemm.encode(enc, p, one, one, one); });
  p.offset_c = 400;  // B is 256..512
  expect_overlap("C over B", "b", [&] { gemm.encode(enc, p, one, one, one); });
  p.offset_c = 0;
  p.offset_a = 256, p.offset_b = 600;
  p.beta = 1.0f;  // C read and written: still its own range only
  expect_overlap("C over the bias", "bias", [&] {
    gemm.encode(enc, p, one, one, one, {.bias = &one, .bias_offset = 250});
  });
  // Half A and B: ranges in bytes (B's halves 256..512 are bytes 512..1024, C from float 200).
  GemmProblem h{.m = 16, .n = 16, .k = 16, .offset_a = 0, .offset_b = 256, .offset_c = 200};
  auto mixed = device().create_buffer<float>(1024);
  expect_overlap("C over half B", "b", [&] { half.encode(enc, h, mixed, mixed, mixed); });
  GemmProblem batched{.m = 4, .n = 4, .k = 4, .batch = 3};
  batched.offset_c = 40, batched.stride_a = 0;  // C's three matrices 40..88; A is 0..16, B 48..96
  batched.offset_b = 48;
  expect_overlap("a batch of C over B", "b", [&] { gemm.encode(enc, batched, one, one, one); });
  EXPECT_EQ(enc.dispatch_count(), 0u);

  // Disjoint ranges of one buffer, against separate buffers.
  const GemmProblem q{.m = 16, .n = 16, .k = 16, .beta = 0.5f, .offset_a = 0, .offset_b = 256, .offset_c = 512};
  auto a = device().create_buffer(std::vector<float>(values.begin(), values.begin() + 256));
  auto b = device().create_buffer(std::vector<float>(values.begin() + 256, values.begin() + 512));
  auto c = device().create_buffer(std::vector<float>(values.begin() + 512, values.begin() + 768));
  auto bias = device().create_buffer(std::vector<float>(values.begin() + 768, values.end()));
  gemm.encode(enc, {.m = 16, .n = 16, .k = 16, .beta = 0.5f}, a, b, c, {.bias = &bias});
  gemm.encode(enc, q, one, one, one, {.bias = &one, .bias_offset = 768});
  device().submit(enc);
  const std::vector<float> got = one.read(), want = c.read();
  EXPECT_TRUE(std::memcmp(got.data() + 512, want.data(), 256 * 4) == 0);
  EXPECT_TRUE(std::memcmp(got.data(), values.data(), 512 * 4) == 0);  // A and B as they were
  EXPECT_TRUE(std::memcmp(got.data() + 768, values.data() + 768, 256 * 4) == 0);
}

TEST_F(GemmTest, ElementTypesOtherThanFloatsAreUnsupported) {
  for (DataType t : {DataType::int32, DataType::int8, DataType::boolean, DataType::int64}) {
    try {
      Gemm gemm(device(), t);
      ADD_FAILURE() << "no exception for " << data_type_name(t);
    } catch (const UnsupportedError& e) {
      EXPECT_EQ(e.actual(), data_type_name(t));
      EXPECT_NE(std::string(e.what()).find("Gemm"), std::string::npos) << e.what();
    }
  }
  for (DataType t : kTypes) EXPECT_EQ(Gemm(device(), t).element_type(), t);
}

TEST_F(GemmTest, OperandsBeyondOneBindingAreUnsupported) {
  const uint64_t range = caps().max_storage_buffer_range;
  if (range > (512ull << 20))
    GTEST_SKIP() << "the device binds " << range << " bytes; a test buffer that large is too slow here";
  Gemm gemm(device(), DataType::float32);
  const uint64_t k = 768, n = range / 4 / k + 1;  // B just over one binding
  auto a = device().create_buffer<float>(k), b = device().create_buffer<float>(k * n),
       c = device().create_buffer<float>(n);
  auto enc = device().begin_commands();
  try {
    gemm.encode(enc, {.m = 1, .n = n, .k = k, .transpose_b = true}, a, b, c);
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "max_storage_buffer_range");
  }
}

TEST_F(GemmTest, BindGroupsAreCachedAndReleased) {
  Gemm gemm(device(), DataType::float32, {.max_cached_bind_groups = 2});
  auto a = device().create_buffer(random_floats(64 * 64, 1)), b = device().create_buffer(random_floats(64 * 64, 2));
  auto c1 = device().create_buffer<float>(64 * 64), c2 = device().create_buffer<float>(64 * 64);
  auto c3 = device().create_buffer<float>(64 * 64);
  const GemmProblem p{.m = 64, .n = 64, .k = 64};
  auto enc = device().begin_commands();
  gemm.encode(enc, p, a, b, c1);
  gemm.encode(enc, p, a, b, c1);
  EXPECT_EQ(gemm.bind_groups_created(), 1u);
  gemm.encode(enc, p, a, b, c2);
  EXPECT_EQ(gemm.bind_groups_created(), 2u);
  gemm.encode(enc, p, a, b, c3);  // over the bound: all dropped, then this one built
  gemm.encode(enc, p, a, b, c1);
  EXPECT_EQ(gemm.bind_groups_created(), 4u);
  gemm.release_bindings();
  gemm.encode(enc, p, a, b, c1);
  EXPECT_EQ(gemm.bind_groups_created(), 5u);
  device().submit(enc);  // groups dropped before submission stay valid for it
  auto out = c1.read();
  auto ref = c3.read();
  EXPECT_EQ(out, ref);
}

// Split k binds the product and then the reduction in one encode: with room for one cached group
// the second bind evicts the first, which must stay valid for the dispatch already planned.
TEST_F(GemmTest, CacheEvictionBetweenTwoBindsOfOneEncode) {
  for (KernelMode mode : {KernelMode::fast, KernelMode::deterministic}) {
    Gemm gemm(device(), DataType::float32, {.mode = mode, .max_cached_bind_groups = 1});
    const GemmProblem p{.m = 64, .n = 64, .k = 1024};
    ASSERT_NE(gemm.variant(p).find("splitk"), std::string::npos) << gemm.variant(p);
    for (uint32_t round = 0; round < 3; ++round) expect_accurate(gemm, p);
  }
}

// Each product reports its multiply-adds to the encoder: with a budget smaller than one product,
// every product after the first starts a new submission, and the bits do not change.
TEST(GemmWork, ProductsReportTheirWorkAndSplitSubmissions) {
  std::string why;
  auto whole = open_test_device(&why);
  if (!whole) GTEST_SKIP() << why;
  auto split = open_test_device(&why, {.submission_work_budget = 1000});
  const GemmProblem p{.m = 33, .n = 20, .k = 17};
  const auto a_values = random_floats(33 * 17, 11), b_values = random_floats(17 * 20, 12);
  auto run = [&](Device& device, uint32_t* submissions) {
    Gemm gemm(device, DataType::float32, {.mode = KernelMode::deterministic});
    auto a = device.create_buffer(a_values), b = device.create_buffer(b_values);
    auto c1 = device.create_buffer<float>(33 * 20), c2 = device.create_buffer<float>(33 * 20);
    auto enc = device.begin_commands();
    gemm.encode(enc, p, a, b, c1);
    gemm.encode(enc, p, a, b, c2);
    *submissions = enc.submission_count();
    device.submit(enc);
    auto first = c1.read(), second = c2.read();
    first.insert(first.end(), second.begin(), second.end());
    return first;
  };
  uint32_t one = 0, two = 0;
  const auto expected = run(*whole, &one), got = run(*split, &two);
  EXPECT_EQ(one, 1u);
  EXPECT_EQ(two, 2u) << "2 * 33 * 20 * 17 operations pass the budget of 1000 after the first product";
  EXPECT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)));
  EXPECT_TRUE(close_and_take_messages(*whole).empty());
  EXPECT_TRUE(close_and_take_messages(*split).empty());
}

// Over the submission budget a product is recorded in pieces (batch entries, or bands of rows)
// that keep the whole product's kernel, k split and order: the same bits as one piece, in more
// submissions; allow_splitting = false keeps one piece.
TEST(GemmWork, ProductsOverTheBudgetRunInPiecesWithTheSameBits) {
  std::string why;
  auto whole = open_test_device(&why);
  if (!whole) GTEST_SKIP() << why;
  auto split = open_test_device(&why, {.submission_work_budget = 2'000'000});
  struct Case {
    GemmProblem p;
    uint32_t submissions;
  };
  const Case cases[] = {
      // One batch entry a piece (1.68 M operations each): a new submission once two passed 2 M.
      {{.m = 70, .n = 40, .k = 300, .batch = 3, .beta = 0.5f}, 2},
      // Bands of 128, 128 and 44 rows (3.07 M operations for a whole band): one submission each.
      {{.m = 300, .n = 40, .k = 300, .transpose_a = true}, 3},
      // The same bands for each batch entry, each band split along k (two passes a band).
      {{.m = 300, .n = 64, .k = 1024, .batch = 2}, 6},
  };
  for (KernelMode mode : {KernelMode::fast, KernelMode::deterministic}) {
    for (const Case& c : cases) {
      const GemmProblem& p = c.p;
      const uint64_t na = p.k * p.m * p.batch, nb = p.k * p.n * p.batch, nc = p.m * p.n * p.batch;
      const auto av = random_floats(na, 21), bv = random_floats(nb, 22), cv = random_floats(nc, 23);
      auto run = [&](Device& device, bool allow, uint32_t* submissions) {
        Gemm gemm(device, DataType::float32, {.mode = mode, .allow_splitting = allow});
        auto a = device.create_buffer(av), b = device.create_buffer(bv), out = device.create_buffer(cv);
        auto enc = device.begin_commands();
        gemm.encode(enc, p, a, b, out);
        *submissions = enc.submission_count();
        device.submit(enc);
        return out.read();
      };
      uint32_t one = 0, many = 0, kept = 0;
      const auto expected = run(*whole, true, &one), got = run(*split, true, &many);
      const auto unsplit = run(*split, false, &kept);
      SCOPED_TRACE(std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " batch " +
                   std::to_string(p.batch) + (mode == KernelMode::fast ? " fast" : " deterministic"));
      EXPECT_EQ(one, 1u);
      EXPECT_EQ(many, c.submissions);
      EXPECT_EQ(kept, 1u);
      EXPECT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)));
      EXPECT_EQ(0, std::memcmp(unsplit.data(), expected.data(), got.size() * sizeof(float)));
    }
  }
  EXPECT_TRUE(close_and_take_messages(*whole).empty());
  EXPECT_TRUE(close_and_take_messages(*split).empty());
}

// Small grids on the workgroup-scope matrix kernels: fewer than 128 tiles of 128 x 128 take the
// 64 x 128 x 64 tile with k unsplit. Every orientation, both types, with and without the bias and a
// unary function (the ".act" variants), edges in m, n and k (a partial k step), a batch sharing B,
// alpha and beta, against float64 at the type's tolerance; a k of 3072 (the depth of the measured
// shapes); two runs give the same bits. Skipped where the device (or the build) lacks the tile.
TEST_F(GemmTest, SmallGridsOnTheUnsplit64x128Tile) {
  int ran = 0;
  for (DataType t : {DataType::float16, DataType::bfloat16}) {
    Gemm gemm(device(), t);
    const std::string tile = "gemm\\.coopmat2\\." + elem(t) + "\\.64x128x64";
    const GemmProblem probe{.m = 1024, .n = 768, .k = 3072};
    std::printf("[ variant  ] %s 1024x768x3072: %s\n", data_type_name(t).data(), gemm.variant(probe).c_str());
    if (!std::regex_match(gemm.variant(probe), std::regex(tile + "\\.a_mk\\.b_kn"))) continue;
    ++ran;
    SCOPED_TRACE(data_type_name(t));
    const std::string orient[] = {"\\.a_mk\\.b_kn", "\\.a_mk\\.b_nk", "\\.a_km\\.b_kn", "\\.a_km\\.b_nk"};
    for (int o = 0; o < 4; ++o) {
      const bool ta = (o & 2) != 0, tb = (o & 1) != 0;
      // 4 x 3 tiles of 64 x 128, partial in both directions (6 of 128 x 128); k = 1000: 15 whole
      // steps of 64 and 40 terms.
      const GemmProblem p{.m = 200, .n = 264, .k = 1000, .transpose_a = ta, .transpose_b = tb, .alpha = 0.75f,
                          .beta = 0.5f};
      expect_accurate(gemm, p, tile + orient[o]);
      expect_accurate(gemm, p, tile + orient[o] + "\\.act", true, {UnaryOp::gelu_tanh});
      // A batch sharing B, C with a leading dimension of its own.
      GemmProblem batched{.m = 64, .n = 136, .k = 512, .transpose_a = ta, .transpose_b = tb, .batch = 3};
      batched.stride_b = 0;
      batched.ldc = 140;
      expect_accurate(gemm, batched, tile + orient[o]);
      expect_accurate(gemm, batched, tile + orient[o] + "\\.act", true, {UnaryOp::silu});
    }
    expect_accurate(gemm, {.m = 128, .n = 384, .k = 3072}, tile + orient[0]);
    expect_accurate(gemm, {.m = 128, .n = 384, .k = 3072, .transpose_b = true}, tile + orient[1] + "\\.act", true,
                    {UnaryOp::relu});
    Outcome first = run(gemm, {.m = 192, .n = 256, .k = 776}, true, {UnaryOp::gelu_erf}, 5);
    Outcome second = run(gemm, {.m = 192, .n = 256, .k = 776}, true, {UnaryOp::gelu_erf}, 5);
    EXPECT_TRUE(std::regex_match(first.variant, std::regex(tile + orient[0] + "\\.act"))) << first.variant;
    EXPECT_LE(first.error, reference::Tolerance::of(t));
    EXPECT_EQ(std::memcmp(first.c.data(), second.c.data(), first.c.size() * 4), 0) << "two runs differ";
  }
  if (ran == 0) GTEST_SKIP() << "no workgroup-scope 64 x 128 x 64 matrix tile on this device and build";
  std::printf("[ variant  ] the 64 x 128 x 64 tile tested for %d types\n", ran);
}

TEST_F(GemmTest, MatrixHardwareVariantOrItsFallback) {
  // Where the device (and build) has the cooperative-matrix kernels these shapes take them (float16
  // and bfloat16); elsewhere the same checks run on the tiled kernel that replaces them.
  for (DataType t : {DataType::float16, DataType::bfloat16}) {
    SCOPED_TRACE(data_type_name(t));
    Gemm gemm(device(), t);
    const GemmProblem probe{.m = 256, .n = 256, .k = 64};
    const bool hardware = gemm.variant(probe).starts_with("gemm.coopmat");
    const std::string expected = hardware ? "gemm\\.coopmat2?\\." + elem(t) + "\\..*" : "gemm\\.tile.*";
    std::printf("[ variant  ] %s 256x256x64: %s\n", data_type_name(t).data(), gemm.variant(probe).c_str());
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        expect_accurate(gemm, {.m = 200, .n = 136, .k = 72, .transpose_a = bool(ta), .transpose_b = bool(tb), .beta = 0.5f},
                        expected);
    GemmProblem batched{.m = 128, .n = 256, .k = 512, .batch = 3, .alpha = 0.5f};
    batched.stride_b = 0;
    batched.ldc = 260;
    expect_accurate(gemm, batched, expected, true, {UnaryOp::gelu_erf});
    expect_accurate(gemm, {.m = 1000, .n = 1032, .k = 776}, expected);
    // The shapes above have few 128 x 256 tiles and take the default tile's small-grid companion
    // where it has one; this batch has 3 x 3 x 15 of them (edges in both directions, a partial k
    // step), enough for the large tile itself.
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        const GemmProblem many{.m = 264, .n = 520, .k = 40, .transpose_a = bool(ta), .transpose_b = bool(tb), .batch = 15};
        std::printf("[ variant  ] %s 264x520x40%s%s, batch 15: %s\n", data_type_name(t).data(), ta ? " A^T" : "",
                    tb ? " B^T" : "", gemm.variant(many).c_str());
        // With the bias and an activation too where both operands have one orientation.
        if (ta == tb) expect_accurate(gemm, many, expected, true, {UnaryOp::gelu_tanh});
        else expect_accurate(gemm, many, expected);
        // 9 x 9 = 81 tiles of 128 x 256 but 9 x 15 = 135 of 128 x 128: the small-grid companion
        // itself (fewer would go on to the 64 x 128 tile).
        const GemmProblem middle{.m = 264, .n = 520, .k = 40, .transpose_a = bool(ta), .transpose_b = bool(tb), .batch = 9};
        std::printf("[ variant  ] %s 264x520x40%s%s, batch 9: %s\n", data_type_name(t).data(), ta ? " A^T" : "",
                    tb ? " B^T" : "", gemm.variant(middle).c_str());
        if (ta != tb) expect_accurate(gemm, middle, expected, true, {UnaryOp::silu});
        else expect_accurate(gemm, middle, expected);
      }
    Gemm tiled_only(device(), t, {.allow_matrix_hardware = false});
    EXPECT_TRUE(tiled_only.variant(probe).starts_with("gemm.tile")) << tiled_only.variant(probe);
    Outcome first = run(gemm, {.m = 300, .n = 264, .k = 128}, true, {UnaryOp::relu}, 5);
    Outcome second = run(gemm, {.m = 300, .n = 264, .k = 128}, true, {UnaryOp::relu}, 5);
    EXPECT_EQ(std::memcmp(first.c.data(), second.c.data(), first.c.size() * 4), 0) << "two runs differ";
  }
}

// Each bfloat16 matrix tile forced in turn (ONEGPU_GEMM_COOPMAT_TILE), against float64 with the
// bfloat16 tolerance: every orientation, edges in m, n and k, a batch, alpha, beta, the bias and an
// activation. Skipped where the device (or the build) has no bfloat16 cooperative matrices.
TEST_F(GemmTest, BfloatSixteenMatrixTilesOneByOne) {
  const char* tiles[] = {"gemm.coopmat.bf16.128x256x32",  "gemm.coopmat.bf16.128x128x32",
                         "gemm.coopmat.bf16.256x128x32",  "gemm.coopmat.bf16.128x256x16.2buf",
                         "gemm.coopmat2.bf16.128x256x32", "gemm.coopmat2.bf16.128x128x64",
                         "gemm.coopmat2.bf16.128x256x64", "gemm.coopmat2.bf16.64x128x64"};
  int ran = 0;
  for (const char* tile : tiles) {
    std::optional<Gemm> gemm;
    {
      ScopedEnv forced("ONEGPU_GEMM_COOPMAT_TILE", tile);
      gemm.emplace(device(), DataType::bfloat16);
    }
    const GemmProblem probe{.m = 512, .n = 512, .k = 64};
    if (!gemm->variant(probe).starts_with("gemm.coopmat")) continue;
    ++ran;
    SCOPED_TRACE(tile);
    const std::string expected = "gemm\\.coopmat2?\\.bf16\\..*";
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        GemmProblem p{.m = 264, .n = 520, .k = 40, .transpose_a = bool(ta), .transpose_b = bool(tb), .batch = 15,
                      .alpha = 0.75f, .beta = 0.5f};
        expect_accurate(gemm.value(), p, expected, ta == tb, ta ? UnaryFunction{UnaryOp::silu} : UnaryFunction{});
      }
    expect_accurate(gemm.value(), {.m = 136, .n = 264, .k = 1000}, expected);  // a long k with a partial step
  }
  if (ran == 0) GTEST_SKIP() << "no bfloat16 cooperative-matrix kernel on this device and build";
  std::printf("[ variant  ] %d bfloat16 matrix tiles tested\n", ran);
}

// Split k on the matrix kernels: every tile of both types forced in turn
// (ONEGPU_GEMM_COOPMAT_TILE) with its k cut into two ranges (ONEGPU_GEMM_COOPMAT_SPLITS), the last
// one ending inside a step, against float64 at the type's tolerance: A as stored with B as stored
// and both transposed, edges in m and n, a batch, alpha, beta, the bias and an activation; two runs
// give the same bits. Skipped where the device (or the build) has no cooperative-matrix kernel.
TEST_F(GemmTest, MatrixTilesWithSplitKOneByOne) {
  int ran = 0;
  for (DataType t : {DataType::float16, DataType::bfloat16}) {
    for (const char* shape : {"coopmat.%s.128x256x32", "coopmat.%s.128x128x32", "coopmat.%s.256x128x32",
                              "coopmat.%s.128x256x16.2buf", "coopmat2.%s.128x256x32", "coopmat2.%s.128x128x64",
                              "coopmat2.%s.128x256x64", "coopmat2.%s.64x128x64"}) {
      char name[64];
      std::snprintf(name, sizeof name, shape, elem(t).c_str());
      const std::string tile = std::string("gemm.") + name;
      std::optional<Gemm> gemm;
      {
        ScopedEnv forced_tile("ONEGPU_GEMM_COOPMAT_TILE", tile);
        ScopedEnv forced_splits("ONEGPU_GEMM_COOPMAT_SPLITS", "2");
        gemm.emplace(device(), t);
      }
      const GemmProblem probe{.m = 512, .n = 512, .k = 512};
      if (!gemm->variant(probe).starts_with("gemm.coopmat")) continue;
      ++ran;
      SCOPED_TRACE(tile);
      const std::string expected = "gemm\\.coopmat2?\\." + elem(t) + "\\..*\\.splitk2";
      // 135 tiles of 128 x 256 (150 of 256 x 128): the forced tile itself, not its small-grid
      // companion. k = 104: ranges of 64 and 40 terms.
      for (int tr = 0; tr < 2; ++tr) {
        GemmProblem p{.m = 264, .n = 520, .k = 104, .transpose_a = bool(tr), .transpose_b = bool(tr), .batch = 15,
                      .alpha = 0.75f, .beta = 0.5f};
        expect_accurate(gemm.value(), p, expected, tr == 1, tr ? UnaryFunction{UnaryOp::silu} : UnaryFunction{});
      }
      Outcome first = run(gemm.value(), {.m = 136, .n = 264, .k = 1000}, true, {UnaryOp::relu}, 9);
      Outcome second = run(gemm.value(), {.m = 136, .n = 264, .k = 1000}, true, {UnaryOp::relu}, 9);
      EXPECT_TRUE(std::regex_match(first.variant, std::regex(expected))) << first.variant;
      EXPECT_LE(first.error, reference::Tolerance::of(t));
      EXPECT_EQ(std::memcmp(first.c.data(), second.c.data(), first.c.size() * 4), 0) << "two runs differ";
    }
  }
  if (ran == 0) GTEST_SKIP() << "no cooperative-matrix kernel on this device and build";
  std::printf("[ variant  ] %d matrix tiles tested with split k\n", ran);
}

// The policy on the default tiles for small grids over a long k (the shapes of the benchmark at a
// smaller scale: the workgroup-scope kernels take the 64 x 128 x 64 tile unsplit, the subgroup-scope
// ones split k) against float64, and pieces of the product (column bands planned for the whole
// product, bands of rows under a submission budget) give the whole product's bits; then the same
// with the matrix kernels' k forced into three ranges (ONEGPU_GEMM_COOPMAT_SPLITS), so split pieces
// are checked on every kind of matrix kernel. On devices without matrix kernels the same runs check
// the portable kernels' split.
TEST_F(GemmTest, SplitKOnMatrixKernelsKeepsTheWholeProductsBits) {
  for (DataType t : {DataType::float16, DataType::bfloat16}) {
    SCOPED_TRACE(data_type_name(t));
    const bool hardware = Gemm(device(), t).variant({.m = 256, .n = 256, .k = 64}).starts_with("gemm.coopmat");
    for (bool forced : {false, true}) {
      if (forced && !hardware) continue;  // the portable kernels' split is the policy's already
      std::optional<ScopedEnv> splits;
      if (forced) splits.emplace("ONEGPU_GEMM_COOPMAT_SPLITS", "3");
      Gemm gemm(device(), t);
      const GemmProblem whole{.m = 256, .n = 768, .k = 1024, .beta = 0.5f};
      const std::string variant = gemm.variant(whole);
      std::printf("[ variant  ] %s 256x768x1024%s: %s\n", data_type_name(t).data(), forced ? " (3 ranges forced)" : "",
                  variant.c_str());
      if (forced) {
        EXPECT_TRUE(variant.ends_with(".splitk3")) << variant;
      } else if (variant.starts_with("gemm.coopmat2.")) {
        // 12 tiles of 128 x 128: the 64 x 128 x 64 tile, all 1024 terms in one pass.
        EXPECT_EQ(variant, "gemm.coopmat2." + elem(t) + ".64x128x64.a_mk.b_kn");
      } else if (hardware) {
        EXPECT_TRUE(variant.find(".splitk") != std::string::npos) << variant;
      }
      expect_accurate(gemm, whole);
      expect_accurate(gemm, {.m = 128, .n = 384, .k = 768, .transpose_b = true}, "", true, {UnaryOp::gelu_erf});
      const uint64_t m = whole.m, n = whole.n, k = whole.k, band = 256;
      auto av = random_floats(m * k, 31), bv = random_floats(k * n, 32), cv = random_floats(m * n, 33);
      for (auto& v : av) v = reference::round_to(t, v);
      for (auto& v : bv) v = reference::round_to(t, v);
      auto a = upload(device(), t, av), b = upload(device(), t, bv);
      auto c1 = device().create_buffer(cv), c2 = device().create_buffer(cv);
      GemmProblem piece = whole;
      piece.n = band, piece.ldb = n, piece.ldc = n, piece.plan_n = n;
      EXPECT_EQ(gemm.variant(piece), variant);
      CommandEncoder e = device().begin_commands();
      gemm.encode(e, whole, a, b, c1);
      for (uint64_t j = 0; j < n; j += band) {
        GemmProblem q = piece;
        q.offset_b = j, q.offset_c = j;
        gemm.encode(e, q, a, b, c2);
      }
      device().submit(e);
      const std::vector<float> expected = c1.read();
      EXPECT_TRUE(same_bits(expected, c2.read())) << "column bands";
      // Bands of 128 rows under a submission budget of one band, on a device of its own.
      std::string why;
      auto budgeted = open_test_device(&why, {.submission_work_budget = 2 * 128 * n * k - 1});
      ASSERT_TRUE(budgeted) << why;
      {
        Gemm g2(*budgeted, t);
        EXPECT_EQ(g2.variant(whole), variant);
        auto a2 = upload(*budgeted, t, av), b2 = upload(*budgeted, t, bv);
        auto c3 = budgeted->create_buffer(cv);
        auto enc = budgeted->begin_commands();
        g2.encode(enc, whole, a2, b2, c3);
        EXPECT_EQ(enc.submission_count(), 2u);
        budgeted->submit(enc);
        EXPECT_TRUE(same_bits(expected, c3.read())) << "bands of rows";
      }
      EXPECT_TRUE(close_and_take_messages(*budgeted).empty());
    }
  }
}

TEST_F(GemmTest, LargeShapes) {
  const char* full = std::getenv("ONEGPU_GEMM_FULL");
  if (full == nullptr || std::string(full) != "1") GTEST_SKIP() << "set ONEGPU_GEMM_FULL=1 for the large shape set";
  for (auto t : kTypes) {
    Gemm gemm(device(), t);
    expect_accurate(gemm, {.m = 512, .n = 768, .k = 768});
    expect_accurate(gemm, {.m = 1000, .n = 1030, .k = 515, .transpose_a = true});
    expect_accurate(gemm, {.m = 128, .n = 3072, .k = 768, .transpose_b = true});
    expect_accurate(gemm, {.m = 4, .n = 3072, .k = 768});
    GemmProblem b{.m = 256, .n = 256, .k = 256, .batch = 8};
    b.stride_b = 0;
    expect_accurate(gemm, b);
  }
}

}  // namespace
}  // namespace onegpu::testing
