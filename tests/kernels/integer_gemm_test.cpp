// IntegerGemm bit for bit against a host reference (int64 sums wrapped to int32, then the output
// formulas): every type mix, zero-point form and output, each variant forced, odd sizes and
// offsets with live neighbours, extremes, wrap-around, batches, and the argument checks.
#include "onegpu/kernels/integer_gemm.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>

#include "kernels/integer_gemm/integer_gemm_plan.h"
#include "support/device_fixture.h"
#include "support/random.h"
#include "support/scoped_env.h"

namespace onegpu::testing {
namespace {

using kernels::ColumnFactor;
using kernels::IntegerGemm;
using kernels::IntegerGemmOptions;
using kernels::IntegerGemmProblem;
using kernels::IntegerGemmZeroPoints;
using kernels::ZeroPoint;

enum class Zp { value, scalar, per_channel };
enum class Out { int32, scaled, requantized };
enum class Fill { random, high, low };  // high: every element at its type's maximum; low: minimum

struct Spec {
  IntegerGemmProblem p;
  Zp za = Zp::value, zb = Zp::value;
  Out out = Out::int32;
  bool int_bias = false, float_bias = false;
  bool per_column = false;             // scale / multiplier per column, from a buffer
  bool factor_buffer = false;          // per-tensor scale / multiplier from a buffer
  DataType y_type = DataType::uint8;
  Fill fill_a = Fill::random, fill_b = Fill::random;
  std::optional<int32_t> za_value, zb_value, zy_value;  // forced zero points
  std::optional<float> factor;                          // forced scale / multiplier
  uint32_t seed = 1;
};

struct Layout {
  uint64_t lda, ldb, ldc, sa, sb, sc;
};

Layout layout_of(const IntegerGemmProblem& p) {
  const uint64_t a_rows = p.transpose_a ? p.k : p.m, a_cols = p.transpose_a ? p.m : p.k;
  const uint64_t b_rows = p.transpose_b ? p.n : p.k, b_cols = p.transpose_b ? p.k : p.n;
  Layout l;
  l.lda = p.lda.value_or(std::max<uint64_t>(a_cols, 1));
  l.ldb = p.ldb.value_or(std::max<uint64_t>(b_cols, 1));
  l.ldc = p.ldc.value_or(std::max<uint64_t>(p.n, 1));
  l.sa = p.stride_a.value_or(a_rows && a_cols ? (a_rows - 1) * l.lda + a_cols : 0);
  l.sb = p.stride_b.value_or(b_rows && b_cols ? (b_rows - 1) * l.ldb + b_cols : 0);
  l.sc = p.stride_c.value_or(p.m && p.n ? (p.m - 1) * l.ldc + p.n : 0);
  return l;
}

uint64_t extent(uint64_t offset, uint64_t batch, uint64_t stride, uint64_t rows, uint64_t cols, uint64_t ld) {
  return rows && cols && batch ? offset + (batch - 1) * stride + (rows - 1) * ld + cols : offset;
}
uint64_t words(uint64_t bytes) { return (bytes + 3) / 4 * 4; }

int32_t value_of(uint8_t byte, bool is_signed) { return is_signed ? int32_t(int8_t(byte)) : int32_t(byte); }
uint8_t byte_of(int32_t v) { return uint8_t(v & 0xff); }
int32_t lo_of(bool s) { return s ? -128 : 0; }
int32_t hi_of(bool s) { return s ? 127 : 255; }

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = uint8_t(rng());
  return v;
}

std::vector<uint8_t> operand_bytes(size_t n, uint32_t seed, Fill f, bool is_signed) {
  if (f == Fill::random) return random_bytes(n, seed);
  return std::vector<uint8_t>(n, byte_of(f == Fill::high ? hi_of(is_signed) : lo_of(is_signed)));
}

// float(v) * s, then + b: two roundings, as the kernels keep them.
float scaled(int32_t v, float s, std::optional<float> b) {
  volatile float f = float(v) * s;
  if (!b) return f;
  volatile float g = f + *b;
  return g;
}

uint8_t requantized(int32_t v, float mul, int32_t zp, bool is_signed) {
  volatile float f = float(v) * mul;
  const double r = std::nearbyint(double(f)) + zp;  // float's own round-half-even value, exact in double
  return byte_of(int32_t(std::clamp<double>(r, lo_of(is_signed), hi_of(is_signed))));
}

struct Result {
  uint64_t mismatches = 0, checked = 0;
  bool untouched_ok = true;
  std::string variant;
};

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class IntegerGemmFixture : public Base {
 protected:
  Result run(IntegerGemm& gemm, const Spec& sp) {
    const IntegerGemmProblem& p = sp.p;
    const Layout l = layout_of(p);
    const bool as = p.a_type == DataType::int8, bs = p.b_type == DataType::int8;
    const uint64_t a_rows = p.transpose_a ? p.k : p.m, a_cols = p.transpose_a ? p.m : p.k;
    const uint64_t b_rows = p.transpose_b ? p.n : p.k, b_cols = p.transpose_b ? p.k : p.n;
    const uint64_t na = words(extent(p.offset_a, p.batch, l.sa, a_rows, a_cols, l.lda) + 5);
    const uint64_t nb = words(extent(p.offset_b, p.batch, l.sb, b_rows, b_cols, l.ldb) + 6);
    const uint64_t nc = words(extent(p.offset_c, p.batch, l.sc, p.m, p.n, l.ldc) + 7);
    const auto a = operand_bytes(na, sp.seed, sp.fill_a, as), b = operand_bytes(nb, sp.seed + 1, sp.fill_b, bs);
    std::mt19937 rng(sp.seed + 2);
    auto in_range = [&](bool s) { return std::uniform_int_distribution<int32_t>(lo_of(s), hi_of(s))(rng); };

    // Zero points: values, or bytes at an odd offset of their own buffers.
    auto zero_point = [&](Zp form, bool s, uint64_t channels, std::optional<int32_t> forced,
                          std::vector<int32_t>& per, std::optional<Buffer<uint8_t>>& buffer) {
      ZeroPoint z;
      per.assign(channels, 0);
      if (form == Zp::value) {
        z.value = forced.value_or(in_range(s));
        std::fill(per.begin(), per.end(), z.value);
        return z;
      }
      const uint64_t count = form == Zp::per_channel ? channels : 1;
      std::vector<uint8_t> bytes = random_bytes(words(count + 3), sp.seed + 3);
      for (uint64_t i = 0; i < count; ++i) bytes[1 + i] = byte_of(forced.value_or(in_range(s)));
      for (uint64_t i = 0; i < channels; ++i) per[i] = value_of(bytes[1 + (count == 1 ? 0 : i)], s);
      buffer = this->device().create_buffer(bytes);
      z.buffer = &*buffer;
      z.offset = 1;
      z.per_channel = form == Zp::per_channel;
      return z;
    };
    std::vector<int32_t> za, zb;
    std::optional<Buffer<uint8_t>> za_buf, zb_buf;
    IntegerGemmZeroPoints zp{zero_point(sp.za, as, p.m, sp.za_value, za, za_buf),
                             zero_point(sp.zb, bs, p.n, sp.zb_value, zb, zb_buf)};

    // Reference sums, int64 then wrapped to int32, bias included.
    std::vector<int32_t> int_bias(p.n + 2);
    for (auto& v : int_bias) v = int32_t(rng() % 200001) - 100000;
    std::vector<int32_t> sums(p.batch * p.m * p.n);
    for (uint64_t z = 0; z < p.batch; ++z)
      for (uint64_t i = 0; i < p.m; ++i)
        for (uint64_t j = 0; j < p.n; ++j) {
          int64_t acc = 0;
          for (uint64_t kk = 0; kk < p.k; ++kk) {
            const uint64_t ia = p.offset_a + z * l.sa + (p.transpose_a ? kk * l.lda + i : i * l.lda + kk);
            const uint64_t ib = p.offset_b + z * l.sb + (p.transpose_b ? j * l.ldb + kk : kk * l.ldb + j);
            acc += int64_t(value_of(a[ia], as) - za[i]) * int64_t(value_of(b[ib], bs) - zb[j]);
          }
          if (sp.int_bias) acc += int_bias[2 + j];
          sums[(z * p.m + i) * p.n + j] = int32_t(uint32_t(uint64_t(acc)));
        }
    std::vector<bool> written(nc, false);
    for (uint64_t z = 0; z < p.batch; ++z)
      for (uint64_t i = 0; i < p.m; ++i)
        for (uint64_t j = 0; j < p.n; ++j) written[p.offset_c + z * l.sc + i * l.ldc + j] = true;
    auto out_index = [&](uint64_t z, uint64_t i, uint64_t j) { return p.offset_c + z * l.sc + i * l.ldc + j; };

    auto ba = this->device().create_buffer(a), bb = this->device().create_buffer(b);
    auto bias_i = this->device().create_buffer(int_bias);
    auto bias_f_values = random_floats(p.n + 3, sp.seed + 4, -4.0f, 4.0f);
    auto bias_f = this->device().create_buffer(bias_f_values);
    auto factors = random_floats(p.n + 1, sp.seed + 5, 0.5e-3f, 4e-3f);
    if (sp.factor) std::fill(factors.begin(), factors.end(), *sp.factor);
    auto factor_buf = this->device().create_buffer(factors);
    ColumnFactor factor;
    if (sp.per_column || sp.factor_buffer) {
      factor.buffer = &factor_buf;
      factor.offset = 1;
      factor.per_column = sp.per_column;
    } else {
      factor.value = factors[1];
    }
    auto factor_of = [&](uint64_t j) { return factors[1 + (sp.per_column ? j : 0)]; };

    Result r;
    r.variant = gemm.variant(p);
    auto enc = this->device().begin_commands();
    if (sp.out == Out::requantized) {
      const bool ys = sp.y_type == DataType::int8;
      const int32_t zy = sp.zy_value.value_or(in_range(ys));
      const auto before = random_bytes(nc, sp.seed + 6);
      auto y = this->device().create_buffer(before);
      gemm.encode_requantized(enc, p, ba, bb, zp, y,
                              {.type = sp.y_type, .multiplier = factor, .zero_point = zy,
                               .int_bias = sp.int_bias ? &bias_i : nullptr, .int_bias_offset = 2});
      this->device().submit(enc);
      const auto got = y.read();
      for (uint64_t z = 0; z < p.batch; ++z)
        for (uint64_t i = 0; i < p.m; ++i)
          for (uint64_t j = 0; j < p.n; ++j) {
            ++r.checked;
            const uint8_t want = requantized(sums[(z * p.m + i) * p.n + j], factor_of(j), zy, ys);
            if (got[out_index(z, i, j)] != want) ++r.mismatches;
          }
      for (uint64_t e = 0; e < nc; ++e)
        if (!written[e] && got[e] != before[e]) r.untouched_ok = false;
      return r;
    }
    // int32 and float outputs: 32-bit words, sentinels outside, poison inside.
    std::vector<uint32_t> before(nc);
    for (uint64_t e = 0; e < nc; ++e) before[e] = written[e] ? 0x7fc0deadu : kSentinel;
    Buffer<int32_t> c_int = this->device().template create_buffer<int32_t>(nc);
    Buffer<float> c_float = this->device().template create_buffer<float>(nc);
    c_int.write(std::span(reinterpret_cast<const int32_t*>(before.data()), nc));
    c_float.write(std::span(reinterpret_cast<const float*>(before.data()), nc));
    std::vector<uint32_t> got(nc);
    if (sp.out == Out::int32) {
      gemm.encode(enc, p, ba, bb, zp, c_int, {.int_bias = sp.int_bias ? &bias_i : nullptr, .int_bias_offset = 2});
      this->device().submit(enc);
      c_int.read(std::span(reinterpret_cast<int32_t*>(got.data()), nc));
    } else {
      gemm.encode_scaled(enc, p, ba, bb, zp, c_float,
                         {.scale = factor, .int_bias = sp.int_bias ? &bias_i : nullptr, .int_bias_offset = 2,
                          .bias = sp.float_bias ? &bias_f : nullptr, .bias_offset = 3});
      this->device().submit(enc);
      c_float.read(std::span(reinterpret_cast<float*>(got.data()), nc));
    }
    for (uint64_t z = 0; z < p.batch; ++z)
      for (uint64_t i = 0; i < p.m; ++i)
        for (uint64_t j = 0; j < p.n; ++j) {
          ++r.checked;
          const int32_t s = sums[(z * p.m + i) * p.n + j];
          uint32_t want = uint32_t(s);
          if (sp.out == Out::scaled) {
            const float f = scaled(s, factor_of(j), sp.float_bias ? std::optional(bias_f_values[3 + j]) : std::nullopt);
            std::memcpy(&want, &f, 4);
          }
          if (got[out_index(z, i, j)] != want) ++r.mismatches;
        }
    for (uint64_t e = 0; e < nc; ++e)
      if (!written[e] && got[e] != before[e]) r.untouched_ok = false;
    return r;
  }

  void expect_exact(IntegerGemm& gemm, const Spec& sp, const std::string& variant = "") {
    const Result r = run(gemm, sp);
    const auto& p = sp.p;
    SCOPED_TRACE(std::string(data_type_name(p.a_type)) + "x" + std::string(data_type_name(p.b_type)) + " " +
                 std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) +
                 " ta=" + std::to_string(p.transpose_a) + " tb=" + std::to_string(p.transpose_b) +
                 " batch=" + std::to_string(p.batch) + " za=" + std::to_string(int(sp.za)) +
                 " zb=" + std::to_string(int(sp.zb)) + " out=" + std::to_string(int(sp.out)) + " " + r.variant);
    EXPECT_GT(r.checked, 0u);
    EXPECT_EQ(r.mismatches, 0u) << "of " << r.checked;
    EXPECT_TRUE(r.untouched_ok) << "elements outside the written region changed";
    if (!variant.empty()) {
      // The workgroup-scope tile's name goes on with the orientation and type mix.
      EXPECT_TRUE(r.variant.starts_with(variant)) << r.variant << " is not " << variant;
    }
  }

  void check_workgroup_tile(int orientation, const std::string& forced);
  void check_type_mix(int mix);

  // One family per variant to force: (options, the variant a 37 x 45 product gets, the one a
  // 100 x 130 product gets).
  struct Forced {
    IntegerGemmOptions options;
    std::string name;
  };
  std::vector<Forced> forced_variants() {
    std::vector<Forced> v = {
        {{.allow_matrix_hardware = false, .allow_packed_dot = false, .allow_small_tiles = false, .allow_skinny = false}, "integer_gemm.portable.64x64x16"},
        {{.allow_matrix_hardware = false, .allow_packed_dot = false, .allow_small_tiles = true, .allow_skinny = false}, "integer_gemm.portable.32x32x16"},
    };
    IntegerGemm probe(this->device());
    if (probe.matrix_hardware()) v.push_back({{.allow_skinny = false}, "integer_gemm.coopmat.64x64x32"});
    if (!probe.workgroup_tile().empty())
      v.push_back({{.allow_small_tiles = false, .allow_skinny = false}, probe.workgroup_tile()});
    if (probe.packed_dot()) {
      v.push_back({{.allow_matrix_hardware = false, .allow_small_tiles = false, .allow_skinny = false}, "integer_gemm.dot4.64x64x32"});
      v.push_back({{.allow_matrix_hardware = false, .allow_small_tiles = true, .allow_skinny = false}, "integer_gemm.dot4.32x32x32"});
    }
    return v;
  }
};

using IntegerGemmTest = IntegerGemmFixture<DeviceTest>;
// On every backend with the same references and bit checks. A device without cooperative
// matrices (WebGPU) runs the packed-dot kernels where it has the packed dot product, else the
// portable ones.
using IntegerGemmOnEveryBackend = IntegerGemmFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, IntegerGemmOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);


const std::pair<DataType, DataType> kMixes[] = {{DataType::uint8, DataType::uint8},
                                                {DataType::uint8, DataType::int8},
                                                {DataType::int8, DataType::uint8},
                                                {DataType::int8, DataType::int8}};

TEST_P(IntegerGemmOnEveryBackend, PackedDotIsChosenWhereTheDeviceHasIt) {
  IntegerGemm gemm(device());
  const bool has = caps().features.has(ShaderFeature::integer_dot_product);
  if (!has) {
    EXPECT_FALSE(gemm.packed_dot());
  }
  std::printf("packed dot: %s\n", gemm.packed_dot() ? "chosen" : "not chosen");
  IntegerGemm portable(device(), {.allow_matrix_hardware = false, .allow_packed_dot = false});
  EXPECT_FALSE(portable.packed_dot());
  EXPECT_EQ(portable.variant({.m = 100, .n = 130, .k = 64}), "integer_gemm.portable.32x32x16");
  EXPECT_EQ(portable.variant({.m = 3, .n = 130, .k = 64}), "integer_gemm.skinny.16x32");
  if (!has) std::printf("the device has no 8-bit dot product: packed-dot variants not run\n");
  std::printf("cooperative matrices: %s\n", gemm.matrix_hardware() ? "chosen" : "not chosen");
  bool listed = false;
  for (const CooperativeMatrixShape& s : caps().cooperative_matrix_shapes)
    listed |= s.m == 16 && s.n == 16 && s.k == 32 && s.a == DataType::int8 && s.b == DataType::int8 &&
              s.c == DataType::int32 && s.result == DataType::int32;
  if (!listed) {
    EXPECT_FALSE(gemm.matrix_hardware());
  }
}

// Every variant with WGSL that the device's features and limits allow is accepted by the device
// (on WebGPU: WGSL's uniformity analysis of the generated kernels, before any test picks them).
TEST_P(IntegerGemmOnEveryBackend, EveryVariantWithWgslIsAccepted) {
  const kernels::VariantTable& table = kernels::integer_gemm::variants();
  bool any = false;
  for (size_t i = 0; i < table.size(); ++i) any |= table[i].has_wgsl();
  if (!any) GTEST_SKIP() << "this build has no WGSL kernels (no naga, or ONEGPU_WGSL=OFF)";
  int built = 0;
  for (size_t i = 0; i < table.size(); ++i) {
    const kernels::Variant v = table[i];
    if (!v.built() || !v.has_wgsl()) continue;
    if (!caps().features.contains(v.shader_features()) || v.workgroup_memory_bytes() > caps().max_workgroup_memory_bytes)
      continue;
    SCOPED_TRACE(std::string(v.name()));
    EXPECT_NO_THROW(device().create_compute_kernel(v.source(), std::string(v.name())));
    ++built;
  }
  EXPECT_GE(built, 3);
}

// Every type mix and zero-point form on every forced tile variant (K = 53: not a multiple of 4,
// 16 or 32), alternating the transposes; one test per type mix.
template <class Base>
void IntegerGemmFixture<Base>::check_type_mix(int mix) {
  const auto [ta, tb] = kMixes[mix];
  uint32_t seed = 10 + 9 * mix;
  for (const Forced& f : this->forced_variants()) {
    IntegerGemm gemm(this->device(), f.options);
    int n = 9 * mix;
    for (Zp za : {Zp::value, Zp::scalar, Zp::per_channel})
      for (Zp zb : {Zp::value, Zp::scalar, Zp::per_channel}) {
        Spec sp{.p = {.m = 37, .n = 45, .k = 53, .a_type = ta, .b_type = tb, .transpose_a = (n & 1) != 0,
                      .transpose_b = (n & 2) != 0},
                .za = za, .zb = zb, .int_bias = (n % 3) == 0, .seed = seed++};
        ++n;
        this->expect_exact(gemm, sp, f.name);
      }
  }
}

TEST_P(IntegerGemmOnEveryBackend, ZeroPointsOnEveryTileUint8Uint8) { check_type_mix(0); }
TEST_P(IntegerGemmOnEveryBackend, ZeroPointsOnEveryTileUint8Int8) { check_type_mix(1); }
TEST_P(IntegerGemmOnEveryBackend, ZeroPointsOnEveryTileInt8Uint8) { check_type_mix(2); }
TEST_P(IntegerGemmOnEveryBackend, ZeroPointsOnEveryTileInt8Int8) { check_type_mix(3); }

TEST_P(IntegerGemmOnEveryBackend, SkinnyRows) {
  IntegerGemm gemm(device());
  uint32_t seed = 200;
  for (uint64_t m : {1, 2, 7, 16})
    for (auto [ta, tb] : kMixes)
      for (int t = 0; t < 4; ++t) {
        Spec sp{.p = {.m = m, .n = 70, .k = 300, .a_type = ta, .b_type = tb, .transpose_a = (t & 1) != 0,
                      .transpose_b = (t & 2) != 0},
                .za = t == 0 ? Zp::per_channel : Zp::value, .zb = t == 1 ? Zp::per_channel : Zp::scalar,
                .seed = seed++};
        expect_exact(gemm, sp, "integer_gemm.skinny.16x32");
      }
}

// 16 < M <= 64 with the packed dot product, each rows kernel forced: every type mix and orientation, zero points of every
// form, K across several staged chunks with a ragged end, N not a multiple of 32, two row blocks.
TEST_P(IntegerGemmOnEveryBackend, FewRows) {
  struct Case {
    const char* kernel;
    const char* splits;  // slices of k: "" automatic (two for k = 600), else forced
    bool every_row_count;  // else M = 45 only (two row blocks of 16 or 32, a ragged one)
  };
  for (const Case f : {Case{"integer_gemm.rows.16x64", "", true}, Case{"integer_gemm.rows.32x32", "", true},
                       Case{"integer_gemm.rows.16x32", "", false}, Case{"integer_gemm.rows.16x16", "", false},
                       Case{"integer_gemm.rows.16x64", "7", false}, Case{"integer_gemm.rows.32x32", "1", false}}) {
    const char* forced = f.kernel;
    SCOPED_TRACE(std::string(forced) + " splits " + f.splits);
    std::optional<IntegerGemm> made;
    {
      ScopedEnv env("ONEGPU_INT8_ROWS_KERNEL", forced);
      ScopedEnv splits("ONEGPU_INT8_ROWS_SPLITS", f.splits);
      made.emplace(device());
    }
    IntegerGemm& gemm = *made;
    const std::string rows = gemm.variant({.m = 17, .n = 8, .k = 8});
    if (!rows.starts_with("integer_gemm.rows."))
      GTEST_SKIP() << "no 8-bit dot product (or too little workgroup memory): the rows kernels are not used";
    EXPECT_EQ(rows, forced);
    uint32_t seed = 600;
    for (uint64_t m : f.every_row_count ? std::vector<uint64_t>{17, 32, 45, 64} : std::vector<uint64_t>{45})
      for (auto [ta, tb] : kMixes)
        for (int t = 0; t < 4; ++t) {
          Spec sp{.p = {.m = m, .n = 70, .k = 600, .a_type = ta, .b_type = tb, .transpose_a = (t & 1) != 0,
                        .transpose_b = (t & 2) != 0},
                  .za = t == 0 ? Zp::per_channel : Zp::value, .zb = t == 1 ? Zp::per_channel : Zp::scalar,
                  .int_bias = t == 2, .seed = seed++};
          expect_exact(gemm, sp, rows);
        }
    // Word-aligned A and B (whole words of four k or four columns), a batch sharing B.
    for (int t = 0; t < 2; ++t) {
      IntegerGemmProblem p{.m = 40, .n = 96, .k = 1100, .a_type = DataType::int8, .b_type = DataType::uint8,
                           .transpose_b = t == 1, .batch = 2};
      p.stride_b = 0;
      expect_exact(gemm, {.p = p, .za = Zp::scalar, .zb = Zp::per_channel, .seed = seed++}, rows);
    }
  }
}

TEST_P(IntegerGemmOnEveryBackend, LargerTilesAndEdges) {
  for (const Forced& f : forced_variants()) {
    IntegerGemm gemm(device(), f.options);
    expect_exact(gemm, {.p = {.m = 130, .n = 129, .k = 97, .a_type = DataType::uint8, .b_type = DataType::int8},
                        .za = Zp::per_channel, .zb = Zp::per_channel, .seed = 3});
    expect_exact(gemm, {.p = {.m = 65, .n = 64, .k = 128, .a_type = DataType::int8, .b_type = DataType::uint8,
                              .transpose_b = true},
                        .za = Zp::scalar, .zb = Zp::value, .seed = 4});
    expect_exact(gemm, {.p = {.m = 33, .n = 31, .k = 1}, .seed = 5});
    expect_exact(gemm, {.p = {.m = 17, .n = 18, .k = 0}, .int_bias = true, .seed = 6});  // sums of nothing
  }
}

// Offsets that are not word aligned, leading dimensions past the width (live neighbours between
// rows), batches with strides and a shared B.
TEST_P(IntegerGemmOnEveryBackend, OffsetsLeadingDimensionsAndBatches) {
  for (const Forced& f : forced_variants()) {
    IntegerGemm gemm(device(), f.options);
    IntegerGemmProblem p{.m = 21, .n = 19, .k = 37, .a_type = DataType::uint8, .b_type = DataType::uint8, .batch = 3};
    p.offset_a = 3, p.offset_b = 1, p.offset_c = 5;
    p.lda = 41, p.ldb = 23, p.ldc = 22;
    p.stride_a = 21 * 41 + 7, p.stride_b = 0, p.stride_c = 21 * 22 + 3;
    expect_exact(gemm, {.p = p, .za = Zp::per_channel, .zb = Zp::scalar, .seed = 7});
    p.transpose_a = true, p.lda = 25, p.stride_a = 37 * 25 + 1;
    p.transpose_b = true, p.ldb = 39, p.stride_b = 19 * 39 + 2;
    expect_exact(gemm, {.p = p, .za = Zp::value, .zb = Zp::per_channel, .seed = 8});
    // Word-aligned k runs (the packed kernels read whole words), with odd C.
    IntegerGemmProblem q{.m = 40, .n = 36, .k = 64, .a_type = DataType::int8, .b_type = DataType::int8, .batch = 2};
    q.offset_a = 8, q.lda = 68, q.transpose_b = true, q.ldb = 72, q.offset_b = 4, q.offset_c = 1;
    expect_exact(gemm, {.p = q, .za = Zp::scalar, .zb = Zp::per_channel, .seed = 9});
    // k across rows (A stored K x M, B stored K x N) with word-aligned lines: staged four lines of
    // four k at a time, edges (M, N and K not multiples of four) byte by byte.
    IntegerGemmProblem r{.m = 70, .n = 67, .k = 70, .a_type = DataType::uint8, .b_type = DataType::int8,
                         .transpose_a = true, .batch = 2};
    r.offset_a = 4, r.lda = 72, r.stride_a = 72 * 70 + 8, r.offset_b = 12, r.ldb = 68, r.stride_b = 68 * 70 + 4;
    expect_exact(gemm, {.p = r, .za = Zp::per_channel, .zb = Zp::per_channel, .seed = 10});
    r.a_type = DataType::int8, r.b_type = DataType::uint8, r.m = 64, r.n = 64, r.k = 64;
    expect_exact(gemm, {.p = r, .za = Zp::value, .zb = Zp::scalar, .out = Out::requantized, .seed = 13});
  }
}

// Every element at its type's end, zero points at the other end: the largest products.
TEST_P(IntegerGemmOnEveryBackend, Extremes) {
  for (const Forced& f : forced_variants()) {
    IntegerGemm gemm(device(), f.options);
    for (auto [ta, tb] : kMixes)
      for (Fill fa : {Fill::high, Fill::low})
        for (Fill fb : {Fill::high, Fill::low}) {
          const bool as = ta == DataType::int8, bs = tb == DataType::int8;
          Spec sp{.p = {.m = 35, .n = 33, .k = 70, .a_type = ta, .b_type = tb}, .za = Zp::scalar, .zb = Zp::per_channel,
                  .fill_a = fa, .fill_b = fb,
                  .za_value = fa == Fill::high ? lo_of(as) : hi_of(as), .zb_value = fb == Fill::low ? hi_of(bs) : lo_of(bs),
                  .seed = 11};
          expect_exact(gemm, sp);
        }
  }
}

// Sums past 2^31 wrap as in two's complement: K = 34000 products of 255 x 255.
TEST_P(IntegerGemmOnEveryBackend, WrapAround) {
  std::vector<Forced> all = forced_variants();
  all.push_back({{}, "integer_gemm.skinny.16x32"});
  if (const std::string r = IntegerGemm(device()).variant({.m = 17, .n = 8, .k = 8}); r.starts_with("integer_gemm.rows."))
    all.push_back({{}, r});
  for (const Forced& f : all) {
    IntegerGemm gemm(device(), f.options);
    const uint64_t m = f.name.find("skinny") != std::string::npos ? 2 : 17;
    Spec sp{.p = {.m = m, .n = 3, .k = 34000, .a_type = DataType::uint8, .b_type = DataType::int8},
            .za = Zp::value, .zb = Zp::value, .int_bias = true, .fill_a = Fill::high, .fill_b = Fill::low,
            .za_value = 0, .zb_value = 127, .seed = 12};
    expect_exact(gemm, sp);
    sp.fill_b = Fill::high;
    sp.zb_value = -128;
    expect_exact(gemm, sp);
  }
}

TEST_P(IntegerGemmOnEveryBackend, FloatScaledOutput) {
  std::vector<Forced> all = forced_variants();
  all.push_back({{}, "integer_gemm.skinny.16x32"});
  if (const std::string r = IntegerGemm(device()).variant({.m = 17, .n = 8, .k = 8}); r.starts_with("integer_gemm.rows."))
    all.push_back({{}, r});
  uint32_t seed = 300;
  for (const Forced& f : all) {
    IntegerGemm gemm(device(), f.options);
    const uint64_t m = f.name.find("skinny") != std::string::npos ? 5 : 37;
    for (int form = 0; form < 4; ++form)
      for (auto [ta, tb] : {kMixes[0], kMixes[1], kMixes[3]}) {
        Spec sp{.p = {.m = m, .n = 41, .k = 77, .a_type = ta, .b_type = tb, .transpose_b = form == 2},
                .za = Zp::per_channel, .zb = form == 1 ? Zp::scalar : Zp::per_channel, .out = Out::scaled,
                .int_bias = form != 0, .float_bias = form >= 2, .per_column = form == 1 || form == 3,
                .factor_buffer = form == 2, .seed = seed++};
        expect_exact(gemm, sp);
      }
  }
}

TEST_P(IntegerGemmOnEveryBackend, RequantizedOutputKeepsNeighbouringBytes) {
  std::vector<Forced> all = forced_variants();
  all.push_back({{}, "integer_gemm.skinny.16x32"});
  if (const std::string r = IntegerGemm(device()).variant({.m = 17, .n = 8, .k = 8}); r.starts_with("integer_gemm.rows."))
    all.push_back({{}, r});
  uint32_t seed = 400;
  for (const Forced& f : all) {
    IntegerGemm gemm(device(), f.options);
    const uint64_t m = f.name.find("skinny") != std::string::npos ? 6 : 35;
    for (DataType y : {DataType::uint8, DataType::int8})
      for (int form = 0; form < 3; ++form)
        for (auto [ta, tb] : {kMixes[0], kMixes[2], kMixes[3]}) {
          IntegerGemmProblem p{.m = m, .n = 29, .k = 66, .a_type = ta, .b_type = tb, .batch = form == 2 ? 2u : 1u};
          p.offset_c = 3 + form, p.ldc = 29 + form;  // odd offsets, rows sharing words with their neighbours
          Spec sp{.p = p, .za = Zp::scalar, .zb = Zp::per_channel, .out = Out::requantized, .int_bias = form != 1,
                  .per_column = form == 1, .factor_buffer = form == 2, .y_type = y, .seed = seed++};
          expect_exact(gemm, sp);
        }
    // Ties: multiplier 0.5 on small sums lands on halves, which round to even.
    Spec tie{.p = {.m = m, .n = 13, .k = 1, .a_type = DataType::int8, .b_type = DataType::int8},
             .out = Out::requantized, .y_type = DataType::int8, .za_value = 0, .zb_value = 0, .zy_value = 3,
             .factor = 0.5f, .seed = 41};
    expect_exact(gemm, tie);
    // Saturation at both ends and zero points at the ends.
    Spec sat{.p = {.m = m, .n = 9, .k = 50, .a_type = DataType::uint8, .b_type = DataType::uint8},
             .out = Out::requantized, .y_type = DataType::uint8, .zy_value = 255, .factor = 1.0f, .seed = 42};
    expect_exact(gemm, sat);
    sat.y_type = DataType::int8, sat.zy_value = -128, sat.factor = -1.0f;
    expect_exact(gemm, sat);
  }
}

// A workgroup-scope tile (the chosen one, or `forced`) on one operand orientation and every type
// mix: whole tiles (no bounds checks, the unrolled k loop and its remainder), tiles cut by M, N and
// K, the direct store (int8 x int8 without zero points or bias) and the epilogue with zero points
// of every form, the int32 bias and the float-scaled form. Skipped where the device has no such tile.
template <class Base>
void IntegerGemmFixture<Base>::check_workgroup_tile(int orientation, const std::string& forced) {
  std::optional<IntegerGemm> made;
  {
    std::optional<ScopedEnv> env;
    if (!forced.empty()) env.emplace("ONEGPU_INT8_COOPMAT2_TILE", forced);
    made.emplace(this->device(), IntegerGemmOptions{.allow_small_tiles = false, .allow_skinny = false});
  }
  IntegerGemm& gemm = *made;
  if (gemm.workgroup_tile().empty()) GTEST_SKIP() << "no workgroup-scope int8 tile on this device";
  const std::string tile = gemm.workgroup_tile();
  if (!forced.empty()) {
    EXPECT_EQ(tile, forced);
  }
  uint32_t seed = 500 + 100 * orientation;
  const bool ta = (orientation & 2) != 0, tb = (orientation & 1) != 0;
  const std::string orient = std::string(ta ? ".a_km" : ".a_mk") + (tb ? ".b_nk" : ".b_kn");
  // Direct: whole tiles (ten steps of 64 in k) and cut ones.
  for (auto [m, n, k] : {std::array<uint64_t, 3>{512, 256, 640}, std::array<uint64_t, 3>{300, 130, 100}}) {
    Spec sp{.p = {.m = m, .n = n, .k = k, .a_type = DataType::int8, .b_type = DataType::int8, .transpose_a = ta,
                  .transpose_b = tb},
            .za = Zp::value, .zb = Zp::value, .za_value = 0, .zb_value = 0, .seed = seed++};
    this->expect_exact(gemm, sp, tile + orient + ".ss.direct");
    // The epilogue without zero points (no sums pass): the int32 bias, then the float form.
    sp.int_bias = true, sp.seed = seed++;
    this->expect_exact(gemm, sp);
    sp.out = Out::scaled, sp.float_bias = true, sp.seed = seed++;
    this->expect_exact(gemm, sp);
  }
  for (auto [at, bt] : kMixes) {
    const std::string mix = std::string(at == DataType::int8 ? "s" : "u") + (bt == DataType::int8 ? "s" : "u");
    Spec whole{.p = {.m = 256, .n = 256, .k = 256, .a_type = at, .b_type = bt, .transpose_a = ta, .transpose_b = tb},
               .za = Zp::per_channel, .zb = Zp::scalar, .int_bias = true, .seed = seed++};
    const Result r = this->run(gemm, whole);
    EXPECT_EQ(r.mismatches, 0u) << "of " << r.checked << " " << r.variant;
    Spec cut{.p = {.m = 270, .n = 150, .k = 77, .a_type = at, .b_type = bt, .transpose_a = ta, .transpose_b = tb},
             .za = Zp::value, .zb = Zp::per_channel, .seed = seed++};
    this->expect_exact(gemm, cut, tile + orient + (mix == "ss" ? "" : "." + mix));
    cut.out = Out::scaled, cut.za = Zp::scalar, cut.per_column = true, cut.float_bias = true, cut.seed = seed++;
    this->expect_exact(gemm, cut);
  }
}

TEST_F(IntegerGemmTest, WorkgroupTileAmkBkn) { check_workgroup_tile(0, ""); }
TEST_F(IntegerGemmTest, WorkgroupTileAmkBnk) { check_workgroup_tile(1, ""); }
TEST_F(IntegerGemmTest, WorkgroupTileAkmBkn) { check_workgroup_tile(2, ""); }
TEST_F(IntegerGemmTest, WorkgroupTileAkmBnk) { check_workgroup_tile(3, ""); }
// The other tile (kept for tuning on other GPUs: ONEGPU_INT8_COOPMAT2_TILE) on one orientation.
TEST_F(IntegerGemmTest, WorkgroupTileOther) { check_workgroup_tile(0, "integer_gemm.coopmat2.128x256x64"); }

// Two runs give the same bits (exact integer sums: both modes and every variant agree).
TEST_P(IntegerGemmOnEveryBackend, VariantsAgreeBitForBit) {
  std::vector<std::vector<int32_t>> results;
  const IntegerGemmProblem p{.m = 70, .n = 66, .k = 129, .a_type = DataType::uint8, .b_type = DataType::int8};
  const auto a = random_bytes(words(70 * 129), 1), b = random_bytes(words(129 * 66), 2);
  auto ba = device().create_buffer(a), bb = device().create_buffer(b);
  for (const Forced& f : forced_variants()) {
    IntegerGemm gemm(device(), f.options);
    for (int rep = 0; rep < 2; ++rep) {
      auto c = device().create_buffer<int32_t>(70 * 66);
      auto enc = device().begin_commands();
      gemm.encode(enc, p, ba, bb, {.a = {.value = 131}, .b = {.value = -3}}, c);
      device().submit(enc);
      results.push_back(c.read());
    }
  }
  for (size_t i = 1; i < results.size(); ++i) EXPECT_EQ(results[i], results[0]) << "run " << i;
}

TEST_F(IntegerGemmTest, ArgumentsAreCheckedBeforeRecording) {
  IntegerGemm gemm(device());
  auto a = device().create_buffer<uint8_t>(64), b = device().create_buffer<uint8_t>(64);
  auto c = device().create_buffer<int32_t>(64);
  auto cf = device().create_buffer<float>(64);
  auto y = device().create_buffer<uint8_t>(64);
  auto zp = device().create_buffer<uint8_t>(4);
  const IntegerGemmProblem p{.m = 4, .n = 4, .k = 8};
  auto enc = device().begin_commands();
  auto msg = [&](auto&& f) { return shape_error_message(f); };
  EXPECT_EQ(msg([&] { gemm.encode(enc, {.m = 4, .n = 4, .k = 8, .lda = 7}, a, b, {}, c); }),
            "MatMulInteger: lda: 7 is less than K = 8");
  EXPECT_NE(msg([&] { gemm.encode(enc, {.m = 8, .n = 4, .k = 9}, a, b, {}, c); }).find("MatMulInteger: a:"),
            std::string::npos);
  EXPECT_NE(msg([&] { gemm.encode_scaled(enc, {.m = 4, .n = 17, .k = 3}, a, b, {}, cf, {}); }).find("QLinearMatMul: c:"),
            std::string::npos);
  // Zero points: a value outside the type, a buffer too small for one per row.
  EXPECT_NE(msg([&] { gemm.encode(enc, p, a, b, {.a = {.value = 256}}, c); }).find("zero_point_a"), std::string::npos);
  EXPECT_NE(msg([&] { gemm.encode(enc, p, a, b, {.b = {.value = 128}}, c); }).find("zero_point_b"), std::string::npos);
  EXPECT_NE(msg([&] { gemm.encode(enc, {.m = 8, .n = 4, .k = 2}, a, b, {.a = {.buffer = &zp, .offset = 1, .per_channel = true}}, c); })
                .find("MatMulInteger: zero_point_a: needs 8 elements"),
            std::string::npos);
  // Scales and biases.
  auto scales = device().create_buffer<float>(3);
  EXPECT_NE(msg([&] { gemm.encode_scaled(enc, p, a, b, {}, cf, {.scale = {.buffer = &scales, .per_column = true}}); })
                .find("QLinearMatMul: scale:"),
            std::string::npos);
  auto bias = device().create_buffer<int32_t>(4);
  EXPECT_NE(msg([&] { gemm.encode(enc, p, a, b, {}, c, {.int_bias = &bias, .int_bias_offset = 1}); }).find("int_bias"),
            std::string::npos);
  EXPECT_NE(msg([&] { gemm.encode_requantized(enc, p, a, b, {}, y, {.zero_point = -1}); }).find("zero_point_y"),
            std::string::npos);
  // Overlap: an output sharing words with an input.
  EXPECT_NE(msg([&] { gemm.encode_requantized(enc, {.m = 2, .n = 2, .k = 2}, a, b, {}, a, {}); }).find("QLinearMatMul: y:"),
            std::string::npos);
  EXPECT_NE(msg([&] { gemm.encode(enc, {.m = 2, .n = 2, .k = 2}, a, b, {.a = {.buffer = &c, .offset = 0}}, c); })
                .find("overlaps"),
            std::string::npos);
  // Types.
  EXPECT_THROW(gemm.encode(enc, {.m = 2, .n = 2, .k = 2, .a_type = DataType::float32}, a, b, {}, c), UnsupportedError);
  EXPECT_THROW(gemm.encode_requantized(enc, p, a, b, {}, y, {.type = DataType::int32}), UnsupportedError);
  EXPECT_EQ(enc.dispatch_count(), 0u);
}

TEST_P(IntegerGemmOnEveryBackend, WarmEncodeAllocatesNoNewBindGroups) {
  IntegerGemm gemm(device());
  auto a = device().create_buffer(random_bytes(64 * 64, 1)), b = device().create_buffer(random_bytes(64 * 64, 2));
  auto y = device().create_buffer<uint8_t>(64 * 64);
  const IntegerGemmProblem p{.m = 64, .n = 64, .k = 64};
  for (int i = 0; i < 2; ++i) {
    const uint64_t before = gemm.bind_groups_created();
    auto enc = device().begin_commands();
    gemm.encode_requantized(enc, p, a, b, {}, y, {.multiplier = {.value = 0.01f}});
    device().submit(enc);
    if (i == 1) {
      EXPECT_EQ(gemm.bind_groups_created(), before);
    }
  }
}

// Over the submission budget a product runs in pieces (batch entries or bands of rows, per-row zero
// points moving with their band), each reported to the encoder: more submissions, the same bits.
TEST(IntegerGemmWork, ProductsOverTheBudgetRunInPieces) {
  std::string why;
  auto whole = open_test_device(&why);
  if (!whole) GTEST_SKIP() << why;
  auto split = open_test_device(&why, {.submission_work_budget = 2 * 20 * 30 * 64});
  struct Case {
    IntegerGemmProblem p;
    uint32_t submissions;
  };
  const Case cases[] = {{{.m = 40, .n = 20, .k = 30, .batch = 3}, 2},   // batch entries
                        {{.m = 150, .n = 20, .k = 30, .transpose_a = true, .batch = 2}, 3}};  // bands of 64 rows
  for (const Case& c : cases) {
    const IntegerGemmProblem& p = c.p;
    const auto av = random_bytes(words(p.m * p.k * p.batch), 1), bv = random_bytes(words(p.k * p.n * p.batch), 2);
    const auto zv = random_bytes(words(p.m + 1), 3);
    auto run = [&](Device& device, int form, uint32_t* submissions) {
      IntegerGemm gemm(device);
      auto a = device.create_buffer(av), b = device.create_buffer(bv), z = device.create_buffer(zv);
      auto c32 = device.create_buffer<int32_t>(p.m * p.n * p.batch);
      auto y = device.create_buffer(std::vector<uint8_t>(words(p.m * p.n * p.batch), 0x5a));
      const IntegerGemmZeroPoints zp{.a = {.buffer = &z, .offset = 1, .per_channel = true}, .b = {.value = -7}};
      auto enc = device.begin_commands();
      if (form == 0) gemm.encode(enc, p, a, b, zp, c32);
      else gemm.encode_requantized(enc, p, a, b, zp, y, {.multiplier = {.value = 0.002f}, .zero_point = 100});
      *submissions = enc.submission_count();
      device.submit(enc);
      if (form == 0) {
        auto v = c32.read();
        return std::vector<uint8_t>(reinterpret_cast<uint8_t*>(v.data()), reinterpret_cast<uint8_t*>(v.data() + v.size()));
      }
      return y.read();
    };
    for (int form = 0; form < 2; ++form) {
      uint32_t one = 0, many = 0;
      const auto expected = run(*whole, form, &one), got = run(*split, form, &many);
      EXPECT_EQ(one, 1u);
      EXPECT_GE(many, c.submissions) << "m = " << p.m;
      EXPECT_EQ(got, expected) << "m = " << p.m << " form " << form;
    }
  }
  EXPECT_TRUE(close_and_take_messages(*whole).empty());
  EXPECT_TRUE(close_and_take_messages(*split).empty());
}

TEST_F(IntegerGemmTest, LargeShapes) {
  const char* full = std::getenv("ONEGPU_INT8_FULL");
  if (full == nullptr || std::string(full) != "1") GTEST_SKIP() << "set ONEGPU_INT8_FULL=1 for the large shape set";
  for (const Forced& f : forced_variants()) {
    IntegerGemm gemm(device(), f.options);
    expect_exact(gemm, {.p = {.m = 128, .n = 768, .k = 768, .a_type = DataType::uint8, .b_type = DataType::int8},
                        .za = Zp::scalar, .zb = Zp::per_channel, .out = Out::scaled, .float_bias = true,
                        .per_column = true, .seed = 90});
    expect_exact(gemm, {.p = {.m = 257, .n = 300, .k = 1025, .a_type = DataType::int8, .b_type = DataType::int8,
                              .transpose_b = true}, .seed = 91});
    expect_exact(gemm, {.p = {.m = 200, .n = 190, .k = 4096, .a_type = DataType::uint8, .b_type = DataType::uint8},
                        .out = Out::requantized, .factor = 1e-5f, .seed = 92});
  }
  IntegerGemm gemm(device());
  expect_exact(gemm, {.p = {.m = 1, .n = 3072, .k = 768}, .zb = Zp::per_channel, .seed = 93});
}

}  // namespace
}  // namespace onegpu::testing
