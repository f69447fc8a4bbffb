// Attention against a float64 reference: model-like shapes, tile edges, odd head dimensions,
// masks, key lengths, causal offsets, grouped heads, layouts, split keys, special values, both
// scalar kernels, the cut at the work budget, determinism, the unfused chain and argument checks.
#include "onegpu/kernels/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "onegpu/kernels/elementwise.h"
#include "onegpu/kernels/gemm.h"
#include "onegpu/kernels/reduce.h"
#include "kernels/tensor_helpers.h"
#include "reference/attention_reference.h"
#include "reference/reference.h"
#include "support/device_fixture.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using kernels::Attention;
using kernels::AttentionInputs;
using kernels::AttentionLayout;
using kernels::AttentionMaskLayout;
using kernels::AttentionOptions;
using kernels::AttentionProblem;
using kernels::AttentionVariant;
using kernels::KernelMode;
using kernels::MaskedRows;

constexpr DataType kTypes[] = {DataType::float32, DataType::float16, DataType::bfloat16};
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr float kUntouched = -12345.5f;  // around and between the written elements

RawBuffer upload(Device& d, DataType t, const std::vector<float>& v) {
  if (t == DataType::float32) return d.create_buffer(v);
  if (t == DataType::float16) {
    std::vector<float16> h(padded_length(t, v.size()));
    for (size_t i = 0; i < v.size(); ++i) h[i] = to_float16(v[i]);
    return d.create_buffer(h);
  }
  std::vector<bfloat16> h(padded_length(t, v.size()));
  for (size_t i = 0; i < v.size(); ++i) h[i] = to_bfloat16(v[i]);
  return d.create_buffer(h);
}

std::vector<float> download(DataType t, const RawBuffer& b, size_t n) {
  std::vector<float> out(n);
  if (t == DataType::float32) {
    b.read_bytes(0, std::as_writable_bytes(std::span(out)));
    return out;
  }
  std::vector<uint16_t> bits(padded_length(t, n));
  b.read_bytes(0, std::as_writable_bytes(std::span(bits)));
  for (size_t i = 0; i < n; ++i) {
    out[i] = t == DataType::float16 ? to_float(float16{bits[i]}) : to_float(bfloat16{bits[i]});
  }
  return out;
}

// One call's inputs: the problem and its optional parts.
struct Case {
  AttentionProblem p;
  bool mask = false;           // random mask with a few -inf (or `mask_values`)
  std::vector<float> mask_values;
  std::vector<int32_t> key_lengths;
  bool packed = false;         // q, k and v in one buffer
  float spread = 1.0f;         // inputs uniform in [-spread, spread]
  uint32_t seed = 1;
  bool zero_rows = false;      // the family was made with MaskedRows::zero
  // Values written over the random inputs before upload (element index, value) for q, k, v.
  std::vector<std::pair<size_t, float>> q_set, k_set, v_set;
};

struct Outcome {
  std::vector<float> o;     // the whole output buffer
  std::vector<double> ref;  // the reference at the written elements
  std::vector<uint8_t> written;
  double error = 0;
  bool untouched_ok = true;
  bool nan_ok = true;        // NaN exactly where the reference has NaN
  size_t nan_rows = 0;       // reference NaN elements
  std::string variant;
};

AttentionProblem shape(uint64_t b, uint64_t h, uint64_t q, uint64_t k, uint64_t d);

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class AttentionFixture : public Base {
 protected:
  using Base::caps;
  using Base::device;
  bool has_shuffle() { return caps().subgroup_operations.shuffle && caps().min_subgroup_size >= 2; }
  // Whether float16 problems that fit it run the matrix kernel on this device.
  bool matrix_kernel() { return runs(AttentionVariant::cooperative); }
  // Whether forcing a kernel on float16 succeeds on this device.
  bool runs(AttentionVariant v) {
    try {
      Attention(device(), DataType::float16, {.variant = v});
      return true;
    } catch (const UnsupportedError&) {
      return false;
    }
  }
  void check_matrix_kernel(AttentionVariant kind, const std::string& name);

  Outcome run(Attention& att, const Case& c, const Buffer<float>* scratch = nullptr) {
    const DataType t = att.element_type();
    const AttentionProblem& p = c.p;
    const uint64_t kvh = p.kv_heads ? p.kv_heads : p.heads;
    using reference::attention_extent;
    using reference::layout_or_default;
    const uint64_t nq = attention_extent(layout_or_default(p.q, p.heads, p.query_length, p.head_dim), p.batch, p.heads,
                                         p.query_length, p.head_dim);
    const uint64_t nk = attention_extent(layout_or_default(p.k, kvh, p.key_length, p.head_dim), p.batch, kvh,
                                         p.key_length, p.head_dim);
    const uint64_t nv = attention_extent(layout_or_default(p.v, kvh, p.key_length, p.head_dim), p.batch, kvh,
                                         p.key_length, p.head_dim);
    const uint64_t no = attention_extent(layout_or_default(p.o, p.heads, p.query_length, p.head_dim), p.batch,
                                         p.heads, p.query_length, p.head_dim) + 6;
    const uint64_t shared = std::max({nq, nk, nv});
    auto make = [&](uint64_t n, uint32_t seed, const std::vector<std::pair<size_t, float>>& set) {
      auto x = random_floats(std::max<uint64_t>(n, 2), seed, -c.spread, c.spread);
      for (auto& v : x) v = reference::round_to(t, v);
      for (auto [i, v] : set) x[i] = v;
      return x;
    };
    std::vector<float> q, k, v;
    if (c.packed) {
      q = make(shared, c.seed, {});
      for (auto [i, x] : c.q_set) q[i] = x;
      k = v = q;
    } else {
      q = make(nq, c.seed, c.q_set), k = make(nk, c.seed + 1, c.k_set), v = make(nv, c.seed + 2, c.v_set);
    }
    std::vector<float> mask = c.mask_values;
    if (c.mask && mask.empty()) {
      const auto ml = reference::mask_layout_or_default(p);
      const uint64_t nm = attention_extent(AttentionLayout{ml.offset, ml.batch_stride, ml.head_stride, ml.row_stride},
                                           p.batch, p.heads, p.query_length, p.key_length);
      mask = random_floats(std::max<uint64_t>(nm, 1), c.seed + 3, -2.f, 2.f);
      for (size_t i = 0; i < mask.size(); i += 7) mask[i] = kNegInf;
    }
    // The output: sentinels everywhere, NaN where the kernel must write.
    Outcome out;
    out.written = reference::attention_written(p, no);
    std::vector<float> o0(no, kUntouched);
    for (size_t i = 0; i < no; ++i)
      if (out.written[i]) o0[i] = std::numeric_limits<float>::quiet_NaN();
    RawBuffer bq = upload(device(), t, q);
    RawBuffer bk, bv;
    if (!c.packed) bk = upload(device(), t, k), bv = upload(device(), t, v);
    RawBuffer bo = upload(device(), t, o0);
    const std::vector<float> o_initial = download(t, bo, no);
    Buffer<float> bmask;
    Buffer<int32_t> blengths;
    AttentionInputs in;
    if (!mask.empty()) {
      bmask = device().create_buffer(mask);
      in.mask = &bmask;
    }
    if (!c.key_lengths.empty()) {
      blengths = device().create_buffer(c.key_lengths);
      in.key_lengths = &blengths;
    }
    in.scratch = scratch;
    auto enc = device().begin_commands();
    att.encode(enc, p, bq, c.packed ? bq : bk, c.packed ? bq : bv, bo, in);
    device().submit(enc);
    out.variant = att.variant(p);
    out.o = download(t, bo, no);

    std::vector<double> rq(q.begin(), q.end()), rk(k.begin(), k.end()), rv(v.begin(), v.end());
    std::vector<double> rm(mask.begin(), mask.end());
    out.ref.assign(no, 0.0);
    reference::attention(p, rq, rk, rv, rm, c.key_lengths, c.zero_rows, out.ref);
    std::vector<uint8_t> finite = out.written;
    for (size_t i = 0; i < no; ++i) {
      if (!out.written[i]) {
        if (std::memcmp(&out.o[i], &o_initial[i], 4) != 0) out.untouched_ok = false;
        continue;
      }
      if (std::isnan(out.ref[i])) {
        ++out.nan_rows;
        finite[i] = 0;
        if (!std::isnan(out.o[i])) out.nan_ok = false;
      }
    }
    out.error = reference::scaled_error(out.o, out.ref, finite);
    return out;
  }

  void expect_accurate(Attention& att, const Case& c, const std::string& variant_prefix = "") {
    const Outcome o = run(att, c);
    const AttentionProblem& p = c.p;
    SCOPED_TRACE(std::string(data_type_name(att.element_type())) + " b" + std::to_string(p.batch) + " h" +
                 std::to_string(p.heads) + "/" + std::to_string(p.kv_heads) + " q" + std::to_string(p.query_length) +
                 " k" + std::to_string(p.key_length) + " d" + std::to_string(p.head_dim) + " " + o.variant);
    EXPECT_LE(o.error, reference::Tolerance::of(att.element_type()));
    EXPECT_TRUE(o.untouched_ok) << "an element outside the output changed";
    EXPECT_TRUE(o.nan_ok) << "NaN rows differ from the reference";
    if (!variant_prefix.empty()) {
      EXPECT_EQ(o.variant.rfind(variant_prefix, 0), 0u) << o.variant;
    }
  }
};

using AttentionTest = AttentionFixture<DeviceTest>;
// On every backend with the same references, tolerances and bit checks.
using AttentionOnEveryBackend = AttentionFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, AttentionOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

AttentionProblem shape(uint64_t b, uint64_t h, uint64_t q, uint64_t k, uint64_t d) {
  AttentionProblem p;
  p.batch = b, p.heads = h, p.query_length = q, p.key_length = k, p.head_dim = d;
  return p;
}

bool large_shapes() {
  const char* v = std::getenv("ONEGPU_ATTN_LARGE");
  return v != nullptr && std::string(v) == "1";
}

TEST_P(AttentionOnEveryBackend, ModelShapes) {
  for (DataType t : kTypes) {
    Attention att(device(), t);
    // MiniLM-like (head 32), BERT-like (head 64) with a padding mask, Whisper-like position-first.
    Case minilm{shape(2, 3, 40, 40, 32)};
    expect_accurate(att, minilm);
    Case bert{shape(2, 2, 70, 70, 64)};
    bert.mask = true;
    bert.p.mask = AttentionMaskLayout::broadcast(2, 1, 1, 70);
    expect_accurate(att, bert);
    Case whisper{shape(1, 2, 90, 90, 64)};
    whisper.p.q = whisper.p.k = whisper.p.v = whisper.p.o = AttentionLayout::position_first(2, 90, 64);
    expect_accurate(att, whisper);
    // Decoder self-attention over a cache, and cross-attention.
    Case dec{shape(1, 2, 1, 77, 64)};
    dec.p.causal = true;
    expect_accurate(att, dec);
    Case cross{shape(1, 2, 5, 150, 64)};
    expect_accurate(att, cross);
  }
}

TEST_P(AttentionOnEveryBackend, ModelShapesLarge) {
  if (!large_shapes()) GTEST_SKIP() << "set ONEGPU_ATTN_LARGE=1 for the model-sized shapes";
  for (DataType t : kTypes) {
    Attention att(device(), t);
    expect_accurate(att, Case{shape(1, 12, 128, 128, 32)});
    Case bert{shape(1, 12, 512, 512, 64)};
    bert.mask = true;
    bert.p.mask = AttentionMaskLayout::broadcast(1, 1, 1, 512);
    expect_accurate(att, bert);
    expect_accurate(att, Case{shape(1, 12, 1500, 1500, 64)});
    Case dec{shape(1, 12, 1, 448, 64)};
    dec.p.causal = true;
    expect_accurate(att, dec);
    expect_accurate(att, Case{shape(1, 12, 1, 1500, 64)});
    Case gqa{shape(1, 8, 1, 4096, 128)};
    gqa.p.kv_heads = 2;
    expect_accurate(att, gqa);
  }
}

TEST_P(AttentionOnEveryBackend, TileEdgesAndRemainders) {
  Attention f32(device(), DataType::float32);
  Attention f16(device(), DataType::float16);
  for (uint64_t q : {1, 31, 64, 65})
    for (uint64_t k : {1, 31, 32, 33, 95}) {
      Case c{shape(1, 1, q, k, 16)};
      c.seed = uint32_t(q * 100 + k);
      expect_accurate(f32, c);
      expect_accurate(f16, c);
    }
}

TEST_P(AttentionOnEveryBackend, OddHeadDims) {
  // 20 query rows: more than the keys kernel takes, so these run rows (or the matrix kernel).
  Attention f32(device(), DataType::float32);
  for (uint64_t d : {1, 3, 31, 33, 40, 80, 96, 129, 160, 256}) {
    Case c{shape(1, 2, 20, 37, d)};
    c.seed = uint32_t(d);
    expect_accurate(f32, c);
  }
  for (DataType t : {DataType::float16, DataType::bfloat16}) {
    Attention att(device(), t);
    for (uint64_t d : t == DataType::float16 ? std::vector<uint64_t>{2, 80, 160} : std::vector<uint64_t>{40, 96}) {
      Case c{shape(1, 2, 20, 37, d)};
      c.seed = uint32_t(d);
      expect_accurate(att, c);
    }
  }
}

TEST_P(AttentionOnEveryBackend, MasksAndFullyMaskedRows) {
  for (MaskedRows rows : {MaskedRows::nan, MaskedRows::zero}) {
    Attention att(device(), DataType::float32, {.masked_rows = rows});
    Case c{shape(2, 2, 6, 20, 8)};
    c.mask = true;  // every 7th value -inf
    expect_accurate(att, c);
    // Rows 1 and 4 of each head see no key.
    Case full{shape(1, 2, 6, 20, 8)};
    full.mask_values = random_floats(6 * 20, 5);
    for (uint64_t r : {1, 4})
      for (uint64_t j = 0; j < 20; ++j) full.mask_values[r * 20 + j] = kNegInf;
    full.p.mask = AttentionMaskLayout::broadcast(1, 1, 6, 20);
    const Outcome o = run(att, full);
    EXPECT_LE(o.error, 1e-5);
    EXPECT_TRUE(o.untouched_ok);
    for (uint64_t h = 0; h < 2; ++h)
      for (uint64_t r = 0; r < 6; ++r)
        for (uint64_t e = 0; e < 8; ++e) {
          const float x = o.o[(h * 6 + r) * 8 + e];
          if (r == 1 || r == 4) {
            if (rows == MaskedRows::nan) EXPECT_TRUE(std::isnan(x));
            else EXPECT_EQ(std::bit_cast<uint32_t>(x), 0u) << "a zero row";
          } else {
            EXPECT_TRUE(std::isfinite(x));
          }
        }
  }
}

TEST_P(AttentionOnEveryBackend, KeyLengthZero) {
  for (MaskedRows rows : {MaskedRows::nan, MaskedRows::zero})
    for (DataType t : {DataType::float32, DataType::float16}) {
      Attention att(device(), t, {.masked_rows = rows});
      Case c{shape(1, 2, 3, 0, 8)};
      const Outcome o = run(att, c);
      EXPECT_TRUE(o.untouched_ok);
      for (size_t i = 0; i < o.o.size(); ++i)
        if (o.written[i]) {
          if (rows == MaskedRows::nan) EXPECT_TRUE(std::isnan(o.o[i]));
          else EXPECT_EQ(o.o[i], 0.0f);
        }
    }
}

TEST_P(AttentionOnEveryBackend, KeyLengthsPerBatch) {
  for (DataType t : kTypes) {
    Attention att(device(), t, {.masked_rows = MaskedRows::zero});
    Case c{shape(4, 2, 5, 300, 16)};  // split keys
    c.key_lengths = {300, 17, 0, 1000};
    c.zero_rows = true;
    const Outcome o = run(att, c);
    EXPECT_LE(o.error, reference::Tolerance::of(t)) << o.variant;
    EXPECT_TRUE(o.untouched_ok);
    // Batch entry 2 sees no key: zeros.
    for (uint64_t i = 2 * 2 * 5 * 16; i < 3 * 2 * 5 * 16; ++i) EXPECT_EQ(o.o[i], 0.0f);
    Case small{shape(3, 1, 70, 40, 8)};
    small.key_lengths = {40, 33, 1};
    small.zero_rows = true;
    expect_accurate(att, small);
  }
}

TEST_P(AttentionOnEveryBackend, GroupedAndMultiQueryHeads) {
  for (DataType t : kTypes) {
    Attention att(device(), t);
    Case gqa{shape(2, 8, 7, 45, 32)};
    gqa.p.kv_heads = 2;
    expect_accurate(att, gqa);
    Case mqa{shape(1, 6, 3, 200, 64)};
    mqa.p.kv_heads = 1;
    mqa.p.q = mqa.p.o = AttentionLayout::position_first(6, 3, 64);
    expect_accurate(att, mqa);
  }
}

TEST_P(AttentionOnEveryBackend, CausalWithOffsets) {
  for (DataType t : {DataType::float32, DataType::float16}) {
    Attention att(device(), t, {.masked_rows = MaskedRows::zero});
    for (std::optional<int64_t> offset : {std::optional<int64_t>(), std::optional<int64_t>(0),
                                          std::optional<int64_t>(-3), std::optional<int64_t>(50),
                                          std::optional<int64_t>(-100)}) {
      Case c{shape(1, 2, 70, 75, 16)};
      c.p.causal = true;
      c.p.causal_offset = offset;
      c.zero_rows = true;
      expect_accurate(att, c);
    }
    Case masked{shape(1, 1, 20, 20, 16)};
    masked.p.causal = true;
    masked.mask = true;
    masked.zero_rows = true;
    expect_accurate(att, masked);
  }
}

TEST_P(AttentionOnEveryBackend, LayoutsAndCrossAttention) {
  for (DataType t : kTypes) {
    Attention att(device(), t);
    Case pf{shape(2, 3, 11, 13, 16)};
    pf.p.q = pf.p.o = AttentionLayout::position_first(3, 11, 16);
    pf.p.k = pf.p.v = AttentionLayout::position_first(3, 13, 16);
    expect_accurate(att, pf);
    // Slices of a packed projection, grouped heads.
    Case packed{shape(2, 4, 9, 9, 16)};
    packed.p.kv_heads = 2;
    packed.packed = true;
    packed.p.q = AttentionLayout::packed_qkv(AttentionLayout::Part::query, 4, 2, 9, 16);
    packed.p.k = AttentionLayout::packed_qkv(AttentionLayout::Part::key, 4, 2, 9, 16);
    packed.p.v = AttentionLayout::packed_qkv(AttentionLayout::Part::value, 4, 2, 9, 16);
    expect_accurate(att, packed);
    // Offsets and padded rows.
    Case padded{shape(2, 2, 5, 7, 8)};
    padded.p.q = AttentionLayout{6, 130, 60, 12};
    padded.p.k = AttentionLayout{2, 200, 90, 10};
    padded.p.v = AttentionLayout{4, 200, 90, 12};
    padded.p.o = AttentionLayout{10, 140, 64, 12};
    expect_accurate(att, padded);
    Case cross{shape(1, 2, 3, 57, 24)};
    expect_accurate(att, cross);
  }
}

TEST_P(AttentionOnEveryBackend, DecoderStepSplitsKeys) {
  for (DataType t : kTypes) {
    Attention att(device(), t);
    Case c{shape(1, 4, 1, 2048, 64)};
    c.p.kv_heads = 2;
    const Outcome o = run(att, c);
    EXPECT_LE(o.error, reference::Tolerance::of(t));
    EXPECT_TRUE(o.untouched_ok);
    EXPECT_NE(o.variant.find(".split"), std::string::npos) << o.variant;
    // The caller's scratch gives the same bits as the family's.
    const uint64_t n = Attention::scratch_length(c.p);
    ASSERT_GT(n, 0u);
    Buffer<float> scratch = device().create_buffer<float>(n);
    const Outcome mine = run(att, c, &scratch);
    EXPECT_TRUE(same_bits(o.o, mine.o));
  }
}

TEST_P(AttentionOnEveryBackend, BlockwiseSumsOnLongWalks) {
  for (DataType t : {DataType::float32, DataType::bfloat16}) {
    Attention att(device(), t, {.variant = AttentionVariant::rows});
    // 16 ranges of 640 keys each: a long walk, summed tile by tile.
    Case c{shape(1, 1, 3, 10240, 64)};
    c.spread = 2.0f;
    const Outcome o = run(att, c);
    EXPECT_EQ(o.variant, std::string("attention.rows.") + (t == DataType::float32 ? "f32" : "bf16") +
                             ".d64.blockwise.split16");
    EXPECT_LE(o.error, reference::Tolerance::of(t));
    EXPECT_TRUE(o.untouched_ok);
  }
}

TEST_P(AttentionOnEveryBackend, SpecialValues) {
  Attention att(device(), DataType::float32);
  Case c{shape(1, 1, 4, 40, 8)};
  c.p.causal = true;
  c.p.causal_offset = 0;
  c.q_set = {{1 * 8 + 2, std::numeric_limits<float>::quiet_NaN()}};  // row 1: NaN score
  // A NaN value row at a key row 0 cannot see (causal), and an infinite key row 3 only rows >= 3 see.
  c.v_set = {{39 * 8 + 1, std::numeric_limits<float>::quiet_NaN()}};
  c.k_set = {{3 * 8 + 0, std::numeric_limits<float>::infinity()}};
  const Outcome o = run(att, c);
  EXPECT_TRUE(o.nan_ok);
  EXPECT_LE(o.error, 1e-5);
  for (uint64_t e = 0; e < 8; ++e) {
    EXPECT_TRUE(std::isfinite(o.o[e])) << "row 0 sees key 0 only";
    EXPECT_TRUE(std::isnan(o.o[8 + e])) << "row 1 has a NaN score";
    EXPECT_TRUE(std::isfinite(o.o[16 + e]));
  }
  // A +inf mask value gives NaN; -inf hides.
  Case m{shape(1, 1, 2, 5, 4)};
  m.mask_values = {0.5f, std::numeric_limits<float>::infinity(), 0, 0, 0, kNegInf, 1, 2, kNegInf, 0};
  m.p.mask = AttentionMaskLayout::broadcast(1, 1, 2, 5);
  const Outcome om = run(att, m);
  EXPECT_TRUE(om.nan_ok);
  EXPECT_EQ(om.nan_rows, 4u);
  EXPECT_LE(om.error, 1e-5);
}

TEST_P(AttentionOnEveryBackend, BothScalarKernels) {
  std::vector<AttentionVariant> kinds = {AttentionVariant::rows};
  if (has_shuffle()) kinds.push_back(AttentionVariant::pairs);
  for (AttentionVariant kind : kinds)
    for (DataType t : kTypes) {
      Attention att(device(), t, {.variant = kind});
      const std::string name = kind == AttentionVariant::rows ? "attention.rows" : "attention.pairs";
      Case c{shape(2, 2, 37, 50, 64)};
      c.mask = true;
      expect_accurate(att, c, name);
      if (t == DataType::float32) expect_accurate(att, Case{shape(1, 2, 33, 20, 160)}, name);
      Case causal{shape(1, 2, 40, 40, 40)};
      causal.p.causal = true;
      expect_accurate(att, causal, name);
      expect_accurate(att, Case{shape(1, 2, 1, 1000, 32)}, name);
    }
  if (!has_shuffle()) GTEST_SKIP() << "the device has no subgroup shuffles: pairs not run";
}

TEST_P(AttentionOnEveryBackend, KeysKernel) {
  for (DataType t : kTypes) {
    Attention att(device(), t, {.variant = AttentionVariant::keys, .masked_rows = MaskedRows::zero});
    // Grouped heads (12 rows per key/value head), a padding mask, split and unsplit key walks.
    Case gqa{shape(2, 8, 3, 700, 64)};
    gqa.p.kv_heads = 2;
    gqa.mask = true;
    gqa.p.mask = AttentionMaskLayout::broadcast(2, 1, 1, 700);
    gqa.zero_rows = true;
    expect_accurate(att, gqa, "attention.keys");
    Case whole{shape(1, 1, 16, 90, 32)};  // 16 rows, no split
    whole.zero_rows = true;
    expect_accurate(att, whole, "attention.keys");
    // Causal rows with an offset, per-batch key lengths (one entry with none), a position-first query.
    Case causal{shape(3, 4, 2, 300, 40)};
    causal.p.kv_heads = 1;
    causal.p.causal = true;
    causal.p.causal_offset = 150;
    causal.key_lengths = {300, 77, 0};
    causal.zero_rows = true;
    causal.p.q = causal.p.o = AttentionLayout::position_first(4, 2, 40);
    expect_accurate(att, causal, "attention.keys");
    // The widest heads take 8 rows; a problem with more rows gives way to rows.
    Case wide{shape(1, 2, 4, 270, 256)};
    wide.zero_rows = true;
    expect_accurate(att, wide, "attention.keys");
    Case more{shape(1, 2, 17, 40, 16)};
    more.zero_rows = true;
    expect_accurate(att, more, "attention.rows");
  }
  Attention odd(device(), DataType::float32, {.variant = AttentionVariant::keys});
  for (uint64_t d : {1, 3, 33, 129}) {
    Case c{shape(1, 2, 5, 300, d)};
    c.seed = uint32_t(d);
    expect_accurate(odd, c, "attention.keys");
  }
  // Special values: a NaN score, a +inf mask value, and a NaN value row no row can see.
  Attention att(device(), DataType::float32, {.variant = AttentionVariant::keys});
  Case c{shape(1, 1, 4, 40, 8)};
  c.p.causal = true;
  c.p.causal_offset = 0;
  c.q_set = {{1 * 8 + 2, std::numeric_limits<float>::quiet_NaN()}};
  c.v_set = {{39 * 8 + 1, std::numeric_limits<float>::quiet_NaN()}};
  const Outcome o = run(att, c);
  EXPECT_EQ(o.variant, "attention.keys.f32.d32");
  EXPECT_TRUE(o.nan_ok);
  EXPECT_EQ(o.nan_rows, 8u);
  EXPECT_LE(o.error, 1e-5);
  Case m{shape(1, 1, 2, 5, 4)};
  m.mask_values = {0.5f, std::numeric_limits<float>::infinity(), 0, 0, 0, kNegInf, 1, 2, kNegInf, 0};
  m.p.mask = AttentionMaskLayout::broadcast(1, 1, 2, 5);
  const Outcome om = run(att, m);
  EXPECT_TRUE(om.nan_ok);
  EXPECT_EQ(om.nan_rows, 4u);
  EXPECT_LE(om.error, 1e-5);
}

// Where the device has matrix hardware for float16 (and the build the kernel), each matrix kernel
// is checked on its own; elsewhere forcing it throws.
TEST_P(AttentionOnEveryBackend, MatrixKernel) {
  if (!matrix_kernel()) {
    EXPECT_THROW(Attention(device(), DataType::float16, {.variant = AttentionVariant::cooperative}), UnsupportedError);
    std::printf("[   NOTE   ] no float16 matrix kernel on this device: the forced kernel throws\n");
    return;
  }
  check_matrix_kernel(AttentionVariant::cooperative, "attention.cooperative");
}

TEST_P(AttentionOnEveryBackend, WorkgroupMatrixKernel) {
  if (!runs(AttentionVariant::cooperative2)) {
    EXPECT_THROW(Attention(device(), DataType::float16, {.variant = AttentionVariant::cooperative2}), UnsupportedError);
    GTEST_SKIP() << "the device has no workgroup-scope float16 matrices (VK_NV_cooperative_matrix2) or the build "
                    "lacks the kernel: forcing it throws";
  }
  check_matrix_kernel(AttentionVariant::cooperative2, "attention.coopmat2");
  // Long causal walks with grouped heads at both tuned head dimensions, against the reference.
  Attention att(device(), DataType::float16, {.variant = AttentionVariant::cooperative2});
  for (uint64_t d : {64, 128}) {
    Case c{shape(1, 4, 300, 300, d)};
    c.p.kv_heads = 2;
    c.p.causal = true;
    c.seed = uint32_t(7 * d);
    expect_accurate(att, c, "attention.coopmat2");
  }
}

template <class Base>
void AttentionFixture<Base>::check_matrix_kernel(AttentionVariant kind, const std::string& name) {
  Attention att(device(), DataType::float16, {.variant = kind, .masked_rows = MaskedRows::zero});
  for (uint64_t q : {1, 15, 16, 17, 64, 65, 130})
    for (uint64_t k : {1, 31, 32, 33, 95, 700}) {
      Case c{shape(1, 2, q, k, 64)};
      c.seed = uint32_t(q * 1000 + k);
      c.zero_rows = true;
      expect_accurate(att, c, name);
    }
  for (uint64_t d : {8, 16, 24, 40, 64, 72, 96, 120, 128}) {
    Case c{shape(2, 2, 70, 45, d)};
    c.seed = uint32_t(d);
    c.zero_rows = true;
    c.mask = true;
    c.p.mask = AttentionMaskLayout::broadcast(2, 1, 70, 45);
    expect_accurate(att, c, name);
  }
  for (std::optional<int64_t> offset : {std::optional<int64_t>(), std::optional<int64_t>(-3), std::optional<int64_t>(40)}) {
    Case c{shape(1, 2, 100, 90, 64)};
    c.p.causal = true;
    c.p.causal_offset = offset;
    c.zero_rows = true;
    expect_accurate(att, c, name);
  }
  Case gqa{shape(2, 8, 40, 200, 128)};
  gqa.p.kv_heads = 2;
  gqa.key_lengths = {200, 33};
  gqa.zero_rows = true;
  gqa.p.q = gqa.p.o = AttentionLayout::position_first(8, 40, 128);
  expect_accurate(att, gqa, name);
  Case packed{shape(2, 4, 50, 50, 32)};
  packed.p.kv_heads = 2;
  packed.packed = true;
  packed.zero_rows = true;
  packed.p.q = AttentionLayout::packed_qkv(AttentionLayout::Part::query, 4, 2, 50, 32);
  packed.p.k = AttentionLayout::packed_qkv(AttentionLayout::Part::key, 4, 2, 50, 32);
  packed.p.v = AttentionLayout::packed_qkv(AttentionLayout::Part::value, 4, 2, 50, 32);
  expect_accurate(att, packed, name);
  // Split keys (a decoder step the matrix kernel is forced on), with the merge pass.
  Case dec{shape(1, 4, 1, 2048, 64)};
  dec.zero_rows = true;
  const Outcome od = run(att, dec);
  EXPECT_EQ(od.variant.rfind(name + ".f16.d64", 0), 0u) << od.variant;
  EXPECT_NE(od.variant.find(".split"), std::string::npos) << od.variant;
  EXPECT_LE(od.error, reference::Tolerance::of(DataType::float16));
  // Fully masked rows, and special values: a NaN score, a +inf mask value.
  Case full{shape(1, 2, 6, 20, 16)};
  full.mask_values = random_floats(6 * 20, 5);
  for (uint64_t j = 0; j < 20; ++j) full.mask_values[4 * 20 + j] = kNegInf;
  full.p.mask = AttentionMaskLayout::broadcast(1, 1, 6, 20);
  full.q_set = {{1 * 16 + 2, std::numeric_limits<float>::quiet_NaN()}};
  full.zero_rows = true;
  const Outcome of = run(att, full);
  EXPECT_TRUE(of.nan_ok);
  EXPECT_EQ(of.nan_rows, 16u);  // row 1 of head 0
  EXPECT_LE(of.error, reference::Tolerance::of(DataType::float16));
  for (uint64_t h = 0; h < 2; ++h)
    for (uint64_t e = 0; e < 16; ++e) EXPECT_EQ(of.o[(h * 6 + 4) * 16 + e], 0.0f) << "a fully masked row";
  // A layout the kernel cannot read in 16-byte words gives way to rows.
  Case odd{shape(1, 2, 30, 30, 64)};
  odd.p.k = AttentionLayout{4, 2 * 30 * 64, 30 * 64, 64};
  expect_accurate(att, odd, "attention.rows");
  // Deterministic: two runs, and a call cut at the work budget, give the same bits.
  Attention cut(device(), DataType::float16,
                {.mode = KernelMode::deterministic, .variant = kind, .submission_work_budget = 2000000});
  Case c{shape(2, 3, 200, 300, 64)};
  c.mask = true;
  const Outcome a = run(att, c), b = run(att, c), x = run(cut, c);
  EXPECT_TRUE(same_bits(a.o, b.o)) << "two runs differ";
  EXPECT_TRUE(same_bits(a.o, x.o)) << "the cut call differs";
  EXPECT_LE(a.error, reference::Tolerance::of(DataType::float16));
}

TEST_P(AttentionOnEveryBackend, CutCallsAndRunsAreBitIdentical) {
  for (DataType t : {DataType::float32, DataType::float16}) {
    Attention whole(device(), t, {.mode = KernelMode::deterministic, .submission_work_budget = 0});
    Attention cut(device(), t, {.mode = KernelMode::deterministic, .submission_work_budget = 200000});
    for (Case c : {Case{shape(2, 3, 130, 70, 32)}, Case{shape(1, 2, 2, 1000, 16)}}) {
      c.mask = true;
      const Outcome a = run(whole, c), b = run(whole, c), x = run(cut, c);
      EXPECT_TRUE(same_bits(a.o, b.o)) << "two runs differ";
      EXPECT_TRUE(same_bits(a.o, x.o)) << "the cut call differs";
      EXPECT_LE(a.error, reference::Tolerance::of(t));
    }
    // The cut records several dispatches.
    Case c{shape(2, 3, 130, 70, 32)};
    RawBuffer q = upload(device(), t, random_floats(2 * 3 * 130 * 32, 1));
    RawBuffer k = upload(device(), t, random_floats(2 * 3 * 70 * 32, 2));
    RawBuffer o = upload(device(), t, random_floats(2 * 3 * 130 * 32, 3));
    auto enc = device().begin_commands();
    cut.encode(enc, c.p, q, k, k, o);
    EXPECT_GT(enc.dispatch_count(), 1u);
    device().submit(enc);
  }
}

TEST_P(AttentionOnEveryBackend, MatchesGemmSoftmaxGemm) {
  // Q K^T (Gemm, alpha = scale) + mask (Elementwise) -> softmax (Softmax) -> P V (Gemm).
  const uint64_t b = 2, h = 2, q = 33, k = 45, d = 24, bh = b * h;
  const float scale = 1.0f / std::sqrt(float(d));
  auto vq = random_floats(bh * q * d, 11), vk = random_floats(bh * k * d, 12), vv = random_floats(bh * k * d, 13);
  auto vm = random_floats(b * k, 14, -1.f, 1.f);
  vm[3] = kNegInf;
  auto bq = device().create_buffer(vq), bk = device().create_buffer(vk), bv = device().create_buffer(vv);
  auto bm = device().create_buffer(vm);
  auto scores = device().create_buffer<float>(bh * q * k), masked = device().create_buffer<float>(bh * q * k);
  auto probs = device().create_buffer<float>(bh * q * k), unfused = device().create_buffer<float>(bh * q * d);
  auto fused = device().create_buffer<float>(bh * q * d);
  kernels::Gemm gemm(device(), DataType::float32);
  kernels::Elementwise ew(device());
  kernels::Softmax softmax(device());
  Attention att(device(), DataType::float32);
  auto enc = device().begin_commands();
  gemm.encode(enc, {.m = q, .n = k, .k = d, .transpose_b = true, .batch = bh, .alpha = scale}, bq, bk, scores);
  const int64_t s_shape[] = {int64_t(b), int64_t(h), int64_t(q), int64_t(k)};
  const int64_t m_shape[] = {int64_t(b), 1, 1, int64_t(k)};
  ew.binary(enc, kernels::BinaryOp::add, tensor(scores, DataType::float32, s_shape),
            tensor(bm, DataType::float32, m_shape), tensor(masked, DataType::float32, s_shape));
  softmax.encode(enc, tensor(masked, DataType::float32, s_shape), -1, tensor(probs, DataType::float32, s_shape));
  gemm.encode(enc, {.m = q, .n = d, .k = k, .batch = bh}, probs, bv, unfused);
  AttentionProblem p = shape(b, h, q, k, d);
  p.mask = AttentionMaskLayout::broadcast(b, 1, 1, k);
  att.encode(enc, p, bq, bk, bv, fused, {.mask = &bm});
  device().submit(enc);
  const auto u = unfused.read(), f = fused.read();
  std::vector<double> ud(u.begin(), u.end());
  EXPECT_LE(reference::scaled_error(f, ud), 1e-5);
}

// The output in the buffer of Q (after it) and the caller's scratch in the output's buffer: run
// where writable bindings may alias, refused before recording where they may not (WebGPU).
TEST_P(AttentionOnEveryBackend, OutputInAnInputsBuffer) {
  Attention att(device(), DataType::float32);
  const AttentionProblem p = shape(1, 2, 3, 300, 16);  // a decoder step: split keys
  const uint64_t nq = 2 * 3 * 16, nk = 2 * 300 * 16, ns = Attention::scratch_length(p);
  ASSERT_GT(ns, 0u);
  const auto vq = random_floats(nq, 21), vk = random_floats(nk, 22), vv = random_floats(nk, 23);
  std::vector<float> qo(2 * nq, kUntouched);
  std::copy(vq.begin(), vq.end(), qo.begin());
  auto bqo = device().create_buffer(qo), bk = device().create_buffer(vk), bv = device().create_buffer(vv);
  AttentionProblem shifted = p;
  shifted.o = AttentionLayout::head_first(2, 3, 16, nq);
  auto os = device().create_buffer<float>(ns + nq);  // the scratch, then the output
  AttentionProblem after_scratch = p;
  after_scratch.o = AttentionLayout::head_first(2, 3, 16, ns);
  auto enc = device().begin_commands();
  if (!caps().aliased_writable_bindings) {
    EXPECT_THROW(att.encode(enc, shifted, bqo, bk, bv, bqo), UnsupportedError);
    EXPECT_THROW(att.encode(enc, after_scratch, bqo, bk, bv, os, {.scratch = &os}), UnsupportedError);
    EXPECT_EQ(enc.dispatch_count(), 0u);
    device().submit(enc);
    return;
  }
  att.encode(enc, shifted, bqo, bk, bv, bqo);
  device().submit(enc);
  const auto got = bqo.read();
  std::vector<double> rq(vq.begin(), vq.end()), rk(vk.begin(), vk.end()), rv(vv.begin(), vv.end()), ref(nq);
  reference::attention(p, rq, rk, rv, {}, {}, false, ref);
  EXPECT_LE(reference::scaled_error(std::vector<float>(got.begin() + nq, got.end()), ref), 1e-5);
  EXPECT_TRUE(same_bits(std::vector<float>(got.begin(), got.begin() + nq), vq)) << "Q changed";
}

TEST_F(AttentionTest, BadArgumentsThrowBeforeRecording) {
  Attention att(device(), DataType::float32);
  auto q = device().create_buffer<float>(1024), k = device().create_buffer<float>(1024);
  auto v = device().create_buffer<float>(1024), o = device().create_buffer<float>(1024);
  auto lengths = device().create_buffer<int32_t>(1);
  auto enc = device().begin_commands();
  auto message = [&](const AttentionProblem& p, const RawBuffer& out, AttentionInputs in = {}) {
    return shape_error_message([&] { att.encode(enc, p, q, k, v, out, in); });
  };
  EXPECT_NE(message(shape(1, 1, 4, 4, 300), o).find("Attention: head_dim"), std::string::npos);
  AttentionProblem g = shape(1, 3, 4, 4, 8);
  g.kv_heads = 2;
  EXPECT_NE(message(g, o).find("Attention: kv_heads"), std::string::npos);
  EXPECT_NE(message(shape(1, 4, 40, 10, 8), o).find("Attention: q"), std::string::npos);
  EXPECT_NE(message(shape(1, 1, 4, 4, 8), q).find("Attention: o: overlaps q"), std::string::npos);
  EXPECT_NE(message(shape(2, 1, 4, 4, 8), o, {.key_lengths = &lengths}).find("Attention: key_lengths"),
            std::string::npos);
  auto small = device().create_buffer<float>(4);
  EXPECT_NE(message(shape(1, 1, 1, 400, 2), o, {.scratch = &small}).find("Attention: scratch"), std::string::npos);
  EXPECT_NE(message(shape(1, 1, 4, 4, 8), o, {.mask = &small}).find("Attention: mask"), std::string::npos);
  EXPECT_EQ(enc.dispatch_count(), 0u);
  EXPECT_THROW(Attention(device(), DataType::int32), UnsupportedError);
  if (!matrix_kernel()) {
    EXPECT_THROW(Attention(device(), DataType::float16, {.variant = AttentionVariant::cooperative}), UnsupportedError);
  }
  EXPECT_THROW(Attention(device(), DataType::float32, {.variant = AttentionVariant::cooperative}), UnsupportedError);
  EXPECT_THROW(Attention(device(), DataType::float32, {.variant = AttentionVariant::cooperative2}), UnsupportedError);
  EXPECT_THROW(Attention(device(), DataType::float32, {.variant = AttentionVariant::pairs, .allow_subgroups = false}),
               UnsupportedError);
  Attention f16(device(), DataType::float16);
  EXPECT_NE(shape_error_message([&] { f16.encode(enc, shape(1, 1, 4, 4, 7), q, k, v, o); }).find("head_dim"),
            std::string::npos);
  // Nothing to do: nothing recorded.
  att.encode(enc, shape(0, 1, 4, 4, 8), q, k, v, o);
  att.encode(enc, shape(1, 1, 0, 4, 8), q, k, v, o);
  EXPECT_EQ(enc.dispatch_count(), 0u);
  device().submit(enc);
}

}  // namespace
}  // namespace onegpu::testing
