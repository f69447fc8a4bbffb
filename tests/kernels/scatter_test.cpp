// ScatterND and ScatterElements against a sequential host loop, bit for bit: every payload type,
// every reduction with duplicate indices (two runs compared too), NaN and ties, integer wrap, half
// tensors at odd offsets beside live neighbours, negative and out-of-range indices, the distinct
// path, the in-place form, and the errors raised before anything is recorded. Every output buffer
// is filled with random sentinel bits around the tensor, and the whole buffer is compared.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "onegpu/errors.h"
#include "onegpu/kernels/scatter.h"
#include "onegpu/numeric.h"
#include "support/device_fixture.h"

namespace onegpu::testing {
namespace {

using kernels::IndexStatus;
using kernels::Scatter;
using kernels::ScatterReduction;
using Shape = std::vector<int64_t>;

uint64_t count_of(const Shape& s) {
  uint64_t n = 1;
  for (int64_t d : s) n *= uint64_t(d);
  return n;
}

// ---- the host reference: one update at a time, in index order --------------------------------

bool nan32(uint64_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
bool nan16(uint64_t b) { return (b & 0x7fffu) > 0x7c00u; }

uint64_t combine(DataType t, ScatterReduction r, uint64_t a, uint64_t b) {
  if (r == ScatterReduction::none) return b;
  const bool is_min = r == ScatterReduction::min;
  switch (t) {
    case DataType::float32: {
      const float x = std::bit_cast<float>(uint32_t(a)), y = std::bit_cast<float>(uint32_t(b));
      if (r == ScatterReduction::add) return std::bit_cast<uint32_t>(x + y);
      if (r == ScatterReduction::mul) return std::bit_cast<uint32_t>(x * y);
      if (nan32(a)) return a;
      if (nan32(b)) return b;
      return (is_min ? y < x : y > x) ? b : a;
    }
    case DataType::float16: {
      const float x = to_float(float16{uint16_t(a)}), y = to_float(float16{uint16_t(b)});
      if (r == ScatterReduction::add) return to_float16(x + y).bits;
      if (r == ScatterReduction::mul) return to_float16(x * y).bits;
      if (nan16(a)) return a;
      if (nan16(b)) return b;
      return (is_min ? y < x : y > x) ? b : a;
    }
    case DataType::int32: {
      if (r == ScatterReduction::add) return uint32_t(uint32_t(a) + uint32_t(b));
      if (r == ScatterReduction::mul) return uint32_t(uint32_t(a) * uint32_t(b));
      const int32_t x = int32_t(uint32_t(a)), y = int32_t(uint32_t(b));
      return (is_min ? y < x : y > x) ? b : a;
    }
    default: {
      if (r == ScatterReduction::add) return a + b;
      if (r == ScatterReduction::mul) return a * b;
      const int64_t x = int64_t(a), y = int64_t(b);
      return (is_min ? y < x : y > x) ? b : a;
    }
  }
}

struct Problem {
  bool nd = false;
  DataType type = DataType::float32;
  DataType index_type = DataType::int32;
  Shape data, indices;  // updates' shape follows
  int64_t axis = 0;
  ScatterReduction reduction = ScatterReduction::none;
  std::vector<int64_t> index_values;
  std::vector<uint64_t> data_bits, update_bits;

  Shape updates() const {
    if (!nd) return indices;
    Shape u(indices.begin(), indices.end() - 1);
    u.insert(u.end(), data.begin() + indices.back(), data.end());
    return u;
  }
};

std::optional<uint64_t> normalise(int64_t v, int64_t n) {
  if (v < -n || v >= n) return std::nullopt;
  return uint64_t(v < 0 ? v + n : v);
}

// The reference result, and the first bad index position (if any).
std::vector<uint64_t> reference(const Problem& p, std::optional<uint64_t>* bad) {
  std::vector<uint64_t> out = p.data_bits;
  const Shape upd = p.updates();
  if (p.nd) {
    const size_t k = size_t(p.indices.back());
    const uint64_t units = count_of(Shape(p.indices.begin(), p.indices.end() - 1));
    const uint64_t row = count_of(Shape(p.data.begin() + k, p.data.end()));
    for (uint64_t u = 0; u < units; ++u) {
      uint64_t target = 0;
      bool ok = true;
      for (size_t c = 0; c < k && ok; ++c) {
        const auto v = normalise(p.index_values[u * k + c], p.data[c]);
        if (!v) {
          ok = false;
          if (!*bad || u * k + c < **bad) *bad = u * k + c;
        } else {
          target = target * uint64_t(p.data[c]) + *v;
        }
      }
      if (!ok) continue;
      for (uint64_t j = 0; j < row; ++j)
        out[target * row + j] = combine(p.type, p.reduction, out[target * row + j], p.update_bits[u * row + j]);
    }
    return out;
  }
  const size_t rank = p.data.size();
  const size_t axis = size_t(p.axis < 0 ? p.axis + int64_t(rank) : p.axis);
  const uint64_t units = count_of(p.indices);
  for (uint64_t u = 0; u < units; ++u) {
    const auto v = normalise(p.index_values[u], p.data[axis]);
    if (!v) {
      if (!*bad || u < **bad) *bad = u;
      continue;
    }
    uint64_t rest = u, target = 0, stride = 1;
    for (size_t d = rank; d-- > 0;) {
      const uint64_t c = rest % uint64_t(p.indices[d]);
      rest /= uint64_t(p.indices[d]);
      target += (d == axis ? *v : c) * stride;
      stride *= uint64_t(p.data[d]);
    }
    out[target] = combine(p.type, p.reduction, out[target], p.update_bits[u]);
  }
  return out;
}

// ---- buffers of raw elements with sentinels ----------------------------------------------------

// A buffer of `before + n + after` elements of `bytes` each (rounded up to words), every byte
// random, with `values` written from element `before`.
struct Placed {
  RawBuffer buffer;
  std::vector<uint8_t> image;  // what the whole buffer holds before the call
  uint64_t offset = 0;
};

void put(std::vector<uint8_t>& image, uint32_t bytes, uint64_t at, uint64_t v) {
  std::memcpy(image.data() + at * bytes, &v, bytes);  // little-endian
}
uint64_t get(const std::vector<uint8_t>& image, uint32_t bytes, uint64_t at) {
  uint64_t v = 0;
  std::memcpy(&v, image.data() + at * bytes, bytes);
  return v;
}

Placed place(Device& d, uint32_t bytes, const std::vector<uint64_t>& values, uint64_t before, uint64_t after,
             uint32_t seed) {
  Placed p;
  p.offset = before;
  const uint64_t total = ((before + values.size() + after) * bytes + 3) / 4 * 4;
  p.image.resize(total);
  std::mt19937 rng(seed);
  for (auto& b : p.image) b = uint8_t(rng());
  for (size_t i = 0; i < values.size(); ++i) put(p.image, bytes, before + i, values[i]);
  p.buffer = RawBuffer(d.create_raw_buffer(total));
  p.buffer.write_bytes(0, std::as_bytes(std::span(p.image)));
  return p;
}

std::vector<uint8_t> read_all(const RawBuffer& b) {
  std::vector<uint8_t> v(b.size_bytes());
  b.read_bytes(0, std::as_writable_bytes(std::span(v)));
  return v;
}

// ---- random problems --------------------------------------------------------------------------

uint64_t random_bits(DataType t, ScatterReduction r, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> wide(-4.0f, 4.0f), near_one(0.75f, 1.25f);
  const bool mul = r == ScatterReduction::mul;
  switch (t) {
    case DataType::float32: return std::bit_cast<uint32_t>(mul ? near_one(rng) : wide(rng));
    case DataType::float16: return to_float16(mul ? near_one(rng) : wide(rng)).bits;
    case DataType::bfloat16: return rng() & 0xffffu;
    case DataType::int32:
    case DataType::uint32: return rng() & 0xffffffffu;
    default: return rng();
  }
}

Problem random_problem(bool nd, DataType t, ScatterReduction r, Shape data, Shape indices, int64_t axis,
                       int64_t index_lo, int64_t index_hi, uint32_t seed, DataType it = DataType::int32) {
  Problem p;
  p.nd = nd;
  p.type = t;
  p.index_type = it;
  p.data = std::move(data);
  p.indices = std::move(indices);
  p.axis = axis;
  p.reduction = r;
  std::mt19937_64 rng(seed);
  p.data_bits.resize(count_of(p.data));
  for (auto& v : p.data_bits) v = random_bits(t, r, rng);
  p.update_bits.resize(count_of(p.updates()));
  for (auto& v : p.update_bits) v = random_bits(t, r, rng);
  std::uniform_int_distribution<int64_t> idx(index_lo, index_hi);
  p.index_values.resize(count_of(p.indices));
  for (auto& v : p.index_values) v = idx(rng);
  return p;
}

// The same problem with 100 more updates to 50 more outputs after it (1-D ScatterElements), so a
// handful of units also takes the sorted path.
Problem padded(Problem p) {
  const int64_t n = p.data[0];
  std::mt19937_64 rng(99);
  for (int k = 0; k < 50; ++k) p.data_bits.push_back(random_bits(p.type, p.reduction, rng));
  for (int k = 0; k < 100; ++k) {
    p.index_values.push_back(n + int64_t(rng() % 50));
    p.update_bits.push_back(random_bits(p.type, p.reduction, rng));
  }
  p.data[0] += 50;
  p.indices[0] += 100;
  return p;
}

struct Layout {
  uint64_t data_offset = 3, out_offset = 5, indices_offset = 2, updates_offset = 1;
  bool in_place = false;
  bool distinct = false;
  bool status = false;
};

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class ScatterFixture : public Base {
 protected:
  // Runs the problem, checks the whole output buffer against the reference (sentinels included) and
  // the index status; returns the output buffer's bytes.
  std::vector<uint8_t> check(Scatter& s, const Problem& p, const Layout& l = {}) {
    const uint32_t bytes = data_type_size(p.type);
    const uint32_t ib = data_type_size(p.index_type);
    std::vector<uint64_t> idx(p.index_values.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = uint64_t(p.index_values[i]);
    Placed data = place(this->device(), bytes, p.data_bits, l.data_offset, 7, 11);
    Placed indices = place(this->device(), ib, idx, l.indices_offset, 3, 12);
    Placed updates = place(this->device(), bytes, p.update_bits, l.updates_offset, 5, 13);
    std::optional<Placed> out_buffer;
    if (!l.in_place) out_buffer = place(this->device(), bytes, std::vector<uint64_t>(p.data_bits.size(), 0), l.out_offset, 9, 14);
    Placed& out = l.in_place ? data : *out_buffer;
    const Shape upd = p.updates();
    const TensorRef td{&data.buffer, data.offset, p.data, {}, p.type};
    const TensorRef ti{&indices.buffer, indices.offset, p.indices, {}, p.index_type};
    const TensorRef tu{&updates.buffer, updates.offset, upd, {}, p.type};
    const TensorRef to{&out.buffer, out.offset, p.data, {}, p.type};
    std::optional<IndexStatus> status;
    if (l.status) status.emplace(this->device());
    CommandEncoder e = this->device().begin_commands();
    if (p.nd)
      s.scatter_nd(e, td, ti, tu, to, p.reduction, l.distinct, status ? &*status : nullptr);
    else
      s.scatter_elements(e, td, ti, tu, p.axis, to, p.reduction, l.distinct, status ? &*status : nullptr);
    this->device().submit(e);
    std::optional<uint64_t> bad;
    const std::vector<uint64_t> want = reference(p, &bad);
    std::vector<uint8_t> expected = out.image;
    for (size_t i = 0; i < want.size(); ++i) put(expected, bytes, out.offset + i, want[i]);
    const std::vector<uint8_t> got = read_all(out.buffer);
    EXPECT_EQ(got.size(), expected.size());
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != expected[i] && wrong++ == 0) first = i;
    EXPECT_EQ(wrong, 0u) << "first wrong byte " << first << " (element " << first / bytes - out.offset
                         << "): got " << std::hex << get(got, bytes, first / bytes) << ", want "
                         << get(expected, bytes, first / bytes);
    // Inputs untouched (unless in place).
    if (!l.in_place) {
      EXPECT_TRUE(read_all(data.buffer) == data.image);
    }
    EXPECT_TRUE(read_all(updates.buffer) == updates.image);
    if (status) {
      EXPECT_EQ(status->first_bad_position(), bad);
      if (bad) {
        try {
          status->check();
          ADD_FAILURE() << "no IndexError";
        } catch (const IndexError& e) {
          EXPECT_EQ(e.operation(), p.nd ? "ScatterND" : "ScatterElements");
          EXPECT_EQ(e.argument(), "indices");
          EXPECT_EQ(e.position(), *bad);
        }
      }
    }
    return got;
  }
};

using ScatterTest = ScatterFixture<DeviceTest>;
// On every backend with the same host loop and bit checks. A device that runs only WGSL (WebGPU)
// sorts in three dispatches a pass: the sweep and the group fold have no WGSL.
using ScatterOnEveryBackend = ScatterFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, ScatterOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

constexpr ScatterReduction kReductions[] = {ScatterReduction::none, ScatterReduction::add, ScatterReduction::mul,
                                            ScatterReduction::min, ScatterReduction::max};
constexpr DataType kArithmetic[] = {DataType::float32, DataType::float16, DataType::int32, DataType::int64};

TEST_P(ScatterOnEveryBackend, ElementsEveryReductionAndTypeWithDuplicatesBothModes) {
  for (auto mode : {kernels::KernelMode::fast, kernels::KernelMode::deterministic}) {
    Scatter s(device(), {.mode = mode});
    for (DataType t : kArithmetic)
      for (ScatterReduction r : kReductions) {
        SCOPED_TRACE(std::string(data_type_name(t)) + " reduction " + std::to_string(int(r)));
        // 3000 updates into 37 x 5 outputs along axis 0 (about 80 per output), negative indices too.
        const Problem p = random_problem(false, t, r, {37, 5}, {600, 5}, 0, -37, 36, 100 + uint32_t(r));
        const auto first = check(s, p);
        EXPECT_TRUE(first == check(s, p)) << "two runs differ";
        // More outputs than updates: one combine invocation per sorted unit instead of per output.
        const Problem sparse = random_problem(false, t, r, {1000}, {300}, 0, -1000, 999, 150 + uint32_t(r));
        const auto once = check(s, sparse);
        EXPECT_TRUE(once == check(s, sparse)) << "two runs differ";
        Problem rows = random_problem(true, t, r, {600, 3}, {100, 1}, 0, -20, 19, 160 + uint32_t(r));
        check(s, rows);
      }
  }
}

TEST_P(ScatterOnEveryBackend, NdEveryReductionAndTypeWithDuplicates) {
  Scatter s(device(), {.mode = kernels::KernelMode::deterministic});
  for (DataType t : kArithmetic)
    for (ScatterReduction r : kReductions) {
      SCOPED_TRACE(std::string(data_type_name(t)) + " reduction " + std::to_string(int(r)));
      const Problem p = random_problem(true, t, r, {6, 7, 9}, {300, 2}, 0, -6, 5, 200 + uint32_t(r),
                                       DataType::int64);
      // Both index components: the second's range is 7, so draw again for it.
      Problem q = p;
      std::mt19937 rng(7);
      for (size_t i = 1; i < q.index_values.size(); i += 2) q.index_values[i] = int64_t(rng() % 14) - 7;
      check(s, q);
      // 40 tuples: few enough to skip the sort.
      Problem f = q;
      f.indices = {40, 2};
      f.index_values.resize(80);
      f.update_bits.resize(40 * 9);
      check(s, f);
    }
}

TEST_P(ScatterOnEveryBackend, NdWholeElementsAndWholeTensor) {
  Scatter s(device());
  for (ScatterReduction r : kReductions) {
    // k = rank: one element per tuple (its update travels through the sort), 300 tuples.
    Problem p = random_problem(true, DataType::float32, r, {5, 6}, {300, 2}, 0, -5, 4, 250 + uint32_t(r));
    std::mt19937 rng(251);
    for (size_t i = 1; i < p.index_values.size(); i += 2) p.index_values[i] = int64_t(rng() % 12) - 6;
    check(s, p);
    // k = 0: every update is the whole tensor.
    check(s, random_problem(true, DataType::int32, r, {5, 6}, {3, 0}, 0, 0, 0, 252));
  }
}

TEST_P(ScatterOnEveryBackend, MovesAnySixteenThirtyTwoAndSixtyFourBitPayload) {
  Scatter s(device());
  for (DataType t : {DataType::bfloat16, DataType::uint32, DataType::float32, DataType::float16, DataType::int64,
                     DataType::uint64, DataType::int16}) {
    SCOPED_TRACE(data_type_name(t));
    check(s, random_problem(false, t, ScatterReduction::none, {50}, {200}, 0, -50, 49, 300));
    check(s, random_problem(true, t, ScatterReduction::none, {10, 3}, {40, 1}, 0, -10, 9, 301));
  }
}

TEST_P(ScatterOnEveryBackend, HalfAtOddOffsetsKeepsNeighbours) {
  Scatter s(device());
  for (ScatterReduction r : kReductions)
    for (uint64_t off : {0, 1, 2, 3}) {
      SCOPED_TRACE("offset " + std::to_string(off));
      const Problem p = random_problem(false, DataType::float16, r, {33}, {120}, 0, -33, 32, 400 + uint32_t(off));
      check(s, p, {.data_offset = off + 1, .out_offset = off, .indices_offset = 1, .updates_offset = off});
      check(s, p, {.data_offset = off, .out_offset = off, .in_place = true});
    }
}

TEST_P(ScatterOnEveryBackend, MinMaxNanAndTies) {
  Scatter s(device());
  const uint32_t qnan = 0x7fc00001u, nnan = 0xffc00002u, pz = 0, nz = 0x80000000u, one = 0x3f800000u;
  for (ScatterReduction r : {ScatterReduction::min, ScatterReduction::max}) {
    Problem p;
    p.type = DataType::float32;
    p.reduction = r;
    p.data = {6};
    p.indices = {10};
    p.data_bits = {qnan, one, pz, one, nz, 0x40000000u};
    // out 0 is NaN (stays, whatever comes), out 1 meets a NaN then numbers, out 2 (+0) meets -0
    // (a tie: +0 stays), out 3 meets 1 (a tie), out 4 (-0) meets +0, out 5 meets another NaN.
    p.index_values = {0, 1, 1, 2, 3, 4, 0, 5, 5, 1};
    p.update_bits = {one, nnan, one, nz, one, pz, nnan, 0x3f000000u, qnan, 0xbf800000u};
    check(s, p);
    check(s, padded(p));
    // float16: the same in halves.
    Problem h = p;
    h.type = DataType::float16;
    h.data_bits = {0x7e01, 0x3c00, 0x0000, 0x3c00, 0x8000, 0x4000};
    h.update_bits = {0x3c00, 0xfe02, 0x3c00, 0x8000, 0x3c00, 0x0000, 0xfe02, 0x3800, 0x7e01, 0xbc00};
    check(s, h);
    check(s, padded(h));
  }
}

TEST_P(ScatterOnEveryBackend, IntegerAddAndMulWrapNearTheExtremes) {
  Scatter s(device());
  const int64_t i64max = std::numeric_limits<int64_t>::max(), i64min = std::numeric_limits<int64_t>::min();
  for (ScatterReduction r : {ScatterReduction::add, ScatterReduction::mul, ScatterReduction::min,
                             ScatterReduction::max}) {
    Problem p;
    p.type = DataType::int64;
    p.reduction = r;
    p.data = {4};
    p.indices = {8};
    p.data_bits = {uint64_t(i64max), uint64_t(i64min), uint64_t(-1), uint64_t(0x00000001ffffffffll)};
    p.index_values = {0, 1, 2, 3, 0, 1, 3, 3};
    p.update_bits = {1, uint64_t(-1), uint64_t(i64min), 0xffffffffu, uint64_t(i64max), 3, 0x100000001ull,
                     uint64_t(-7)};
    check(s, p);
    check(s, padded(p));
    Problem q;
    q.type = DataType::int32;
    q.reduction = r;
    q.data = {3};
    q.indices = {6};
    q.data_bits = {0x7fffffffu, 0x80000000u, 0xffffffffu};
    q.index_values = {0, 1, 2, 0, 1, 2};
    q.update_bits = {1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 3, 0x10001u};
    check(s, q);
    check(s, padded(q));
  }
}

TEST_P(ScatterOnEveryBackend, OutOfRangeIndicesAreSkippedAndRecorded) {
  Scatter s(device());
  for (bool distinct : {false, true})
    for (bool status : {false, true}) {
      SCOPED_TRACE(std::string(distinct ? "distinct " : "sorted ") + (status ? "with status" : "silent"));
      Problem p = random_problem(false, DataType::float32, ScatterReduction::add, {40}, {30}, 0, 0, 39, 500);
      if (distinct)
        for (size_t i = 0; i < 30; ++i) p.index_values[i] = int64_t(i) - 20;  // -20 .. 9: distinct
      p.index_values[17] = 40;
      p.index_values[23] = -41;
      check(s, p, {.distinct = distinct, .status = status});
      Problem q = random_problem(true, DataType::int32, ScatterReduction::none, {5, 6, 4}, {8, 2}, 0, 0, 4, 501,
                                 DataType::int64);
      if (distinct)
        for (size_t i = 0; i < 8; ++i) q.index_values[2 * i] = int64_t(i % 5), q.index_values[2 * i + 1] = int64_t(i / 5);
      q.index_values[9] = 6;   // tuple 4, second component
      q.index_values[12] = -6; // tuple 6, first component
      check(s, q, {.distinct = distinct, .status = status});
    }
  // Wide indices whose high word is not the sign of the low one.
  Problem w = random_problem(false, DataType::int32, ScatterReduction::max, {16}, {20}, 0, 0, 15, 502, DataType::int64);
  w.index_values[3] = int64_t(1) << 32;
  w.index_values[5] = -(int64_t(1) << 32) + 2;
  check(s, w, {.status = true});
}

TEST_P(ScatterOnEveryBackend, DistinctPathAndInPlace) {
  Scatter s(device());
  for (ScatterReduction r : kReductions)
    for (DataType t : kArithmetic) {
      Problem p = random_problem(false, t, r, {12, 9}, {12, 7}, 1, 0, 0, 600);
      std::mt19937 rng(601);
      for (int64_t row = 0; row < 12; ++row) {  // a permutation of 9 columns per row, 7 of them, negative half the time
        std::vector<int64_t> cols = {0, 1, 2, 3, 4, 5, 6, 7, 8};
        std::shuffle(cols.begin(), cols.end(), rng);
        for (int64_t j = 0; j < 7; ++j) p.index_values[size_t(row * 7 + j)] = cols[size_t(j)] - ((rng() & 1) ? 9 : 0);
      }
      check(s, p, {.distinct = true});
      check(s, p, {.data_offset = 4, .in_place = true, .distinct = true});
      check(s, p, {.data_offset = 4, .in_place = true});
    }
  // A key-value cache append: new rows written in place at their positions.
  Problem kv = random_problem(true, DataType::float16, ScatterReduction::none, {32, 2, 24}, {3, 1}, 0, 0, 0, 602,
                              DataType::int64);
  kv.index_values = {10, 11, 12};
  check(s, kv, {.data_offset = 1, .in_place = true, .distinct = true});
  check(s, kv, {.data_offset = 1, .in_place = true});
}

TEST_P(ScatterOnEveryBackend, AllUpdatesToOneOutput) {
  Scatter s(device());
  const int64_t n = (1 << 16) + 300;  // one owner's run longer than 65535 steps
  for (ScatterReduction r : {ScatterReduction::add, ScatterReduction::max, ScatterReduction::none}) {
    Problem p = random_problem(false, DataType::float32, r, {64}, {n}, 0, 17, 17, 700);
    check(s, p);
    p.data = {1};
    p.data_bits.resize(1);
    for (auto& v : p.index_values) v = -1;
    check(s, p);
  }
}

TEST_P(ScatterOnEveryBackend, ManyTilesAndPasses) {
  // More than one sort tile and scan block, and keys over several digits.
  Scatter s(device());
  const Problem p = random_problem(false, DataType::float32, ScatterReduction::add, {70000}, {150000}, 0, -70000,
                                   69999, 800);
  const auto a = check(s, p);
  EXPECT_TRUE(a == check(s, p));
}

TEST_P(ScatterOnEveryBackend, BothRadixSortsGiveTheSameBits) {
  // The one-dispatch passes that rank with subgroup ballots (where the device has them) and the
  // three-dispatch passes: keys over three digits, runs of every length (one target holding a
  // third of the units), bad indices recorded, half rows and 64-bit rows through ids, and skipped
  // units sorting just past the last output's run.
  Scatter swept(device()), portable(device(), {.allow_subgroups = false});
  EXPECT_FALSE(portable.sorts_with_subgroups());
  if (!swept.sorts_with_subgroups()) std::printf("[ INFO     ] this device sorts without subgroups only\n");
  Problem many = random_problem(false, DataType::float32, ScatterReduction::add, {70000}, {20000}, 0, -70001,
                                70000, 810);
  for (size_t u = 0; u < many.index_values.size(); u += 3) many.index_values[u] = 12345;
  const Problem rows = random_problem(true, DataType::float16, ScatterReduction::max, {300, 6}, {5000, 1}, 0, -300,
                                      299, 811);
  const Problem wide = random_problem(true, DataType::int64, ScatterReduction::mul, {40, 3}, {3000, 1}, 0, -40, 39,
                                      812);
  // 2^16 outputs: a skipped unit's key (65536) needs a digit more than the real ones, and the
  // last outputs hold long runs.
  Problem edge = random_problem(false, DataType::float32, ScatterReduction::add, {1 << 16}, {9000}, 0, -65537,
                                65536, 813);
  for (size_t u = 0; u < edge.index_values.size(); u += 5) edge.index_values[u] = 65535 - int64_t(u % 300);
  for (const Problem* p : std::initializer_list<const Problem*>{&many, &rows, &wide, &edge}) {
    const auto a = check(swept, *p, {.status = true});
    EXPECT_TRUE(a == check(portable, *p, {.status = true})) << "the two sorts differ";
  }
}

// The group fold (a sort by target / 256, then each group of 256 outputs folded in workgroup
// memory, tile by tile) against the host loop, the full sort with its per-output combine, the
// three-dispatch passes and the other mode, and a second run: every reduction of the types whose
// values travel through the sort, ScatterElements along an inner axis, ScatterND of whole
// elements, a hot output holding a third of the units (its group spans many tiles), one group
// holding every unit, bad indices (skipped units inside the last group, or past every group when
// the outputs fill whole groups), exactly one group, in place; and a run of 594,000 updates.
TEST_P(ScatterOnEveryBackend, GroupFoldMatchesTheFullSortAndTheLoop) {
  Scatter grouped(device()), full(device(), {.allow_group_fold = false});
  Scatter portable(device(), {.allow_subgroups = false});
  Scatter other_mode(device(), {.mode = kernels::KernelMode::deterministic});
  EXPECT_FALSE(full.folds_in_groups());
  EXPECT_FALSE(portable.folds_in_groups());
  if (!grouped.folds_in_groups()) std::printf("[ INFO     ] this device has no group fold\n");
  std::vector<std::pair<Problem, Layout>> cases;
  uint32_t seed = 1000;
  for (DataType t : {DataType::float32, DataType::float16, DataType::int32})
    for (ScatterReduction r : kReductions)
      cases.push_back({random_problem(false, t, r, {1000}, {9000}, 0, -1001, 1000, seed++), {.status = true}});
  cases.push_back({random_problem(false, DataType::float32, ScatterReduction::add, {30, 40}, {30, 400}, 1, -40, 39,
                                  seed++),
                   {}});
  cases.push_back({random_problem(true, DataType::float32, ScatterReduction::mul, {700}, {9000, 1}, 0, -700, 699,
                                  seed++, DataType::int64),
                   {}});
  Problem hot = random_problem(false, DataType::float32, ScatterReduction::add, {20000}, {200000}, 0, -20001, 20000,
                               seed++);
  for (size_t u = 0; u < hot.index_values.size(); u += 3) hot.index_values[u] = 12345;
  cases.push_back({hot, {.status = true}});
  Problem last = random_problem(false, DataType::float32, ScatterReduction::add, {1000}, {100000}, 0, -1001, 1000,
                                seed++);
  for (size_t u = 0; u < last.index_values.size(); u += 2) last.index_values[u] = 999;
  cases.push_back({last, {}});
  Problem one_group = random_problem(false, DataType::float32, ScatterReduction::max, {300}, {70000}, 0, 0, 255,
                                     seed++);
  for (size_t u = 0; u < one_group.index_values.size(); u += 4) one_group.index_values[u] = 17;
  cases.push_back({one_group, {}});
  cases.push_back({random_problem(false, DataType::float32, ScatterReduction::add, {512}, {6000}, 0, -513, 512,
                                  seed++),
                   {.status = true}});
  cases.push_back({random_problem(false, DataType::int32, ScatterReduction::add, {256}, {20000}, 0, -256, 255,
                                  seed++),
                   {.in_place = true}});
  // One output holding more updates than llvmpipe's 65535 loop steps would fold eight at a time.
  Problem long_run = random_problem(false, DataType::float32, ScatterReduction::add, {300}, {600000}, 0, 0, 299,
                                    seed++);
  for (size_t u = 0; u < long_run.index_values.size(); ++u)
    if (u % 100 != 0) long_run.index_values[u] = 5;
  EXPECT_TRUE(check(grouped, long_run) == check(full, long_run)) << "the group fold and the full sort differ";
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    const auto& [p, layout] = cases[i];
    const auto a = check(grouped, p, layout);
    EXPECT_TRUE(a == check(grouped, p, layout)) << "two runs differ";
    EXPECT_TRUE(a == check(other_mode, p, layout)) << "the modes differ";
    EXPECT_TRUE(a == check(full, p, layout)) << "the group fold and the full sort differ";
    EXPECT_TRUE(a == check(portable, p, layout)) << "the group fold and the three-dispatch sort differ";
  }
}

// Groups of more than 256 outputs (256 << extra, one sweep for up to 2^(16 + extra) outputs; the
// big fold keeps each owner's accumulators in workgroup memory) and a skipped unit counted as digit
// 255 of every sweep: against the host loop, the full sort, the other mode and a second run. Output
// counts at the top of each group size, so the last group is the highest a sweep can name and the
// skipped units (bad indices) share its range; a hot output. Each result is the host loop's, bit for
// bit (so the full sort's too); the first case also against a second run and the other mode.
TEST_F(ScatterTest, BigGroupsAndSkippedUnitsMatchTheLoop) {
  Scatter grouped(device());
  Scatter other_mode(device(), {.mode = kernels::KernelMode::deterministic});
  if (!grouped.folds_in_groups()) GTEST_SKIP() << "this device has no group fold";
  std::printf("[ INFO     ] groups of up to %u outputs\n", grouped.max_group_outputs());
  struct Case {
    Problem problem;
    Layout layout;
  };
  std::vector<Case> cases;
  uint32_t seed = 3000;
  // 2^16 outputs: one sweep (groups of 256), the skipped units inside group 255.
  const int64_t t16 = 1 << 16, t17 = (1 << 17) - 100, t18 = (1 << 18) - 7;
  cases.push_back({random_problem(false, DataType::float32, ScatterReduction::add, {t16}, {8 * t16}, 0, -t16 - 3,
                                  t16 + 2, seed++),
                   {.status = true}});
  // Groups of 512 (2^17 - 100 outputs): float16 min, int32 none with a hot output, in place.
  cases.push_back({random_problem(false, DataType::float16, ScatterReduction::min, {t17}, {8 * t17 + 11}, 0, -t17,
                                  t17, seed++),
                   {}});
  Problem hot = random_problem(false, DataType::int32, ScatterReduction::none, {t17}, {8 * t17}, 0, -t17, t17 - 1,
                               seed++);
  for (size_t u = 0; u < hot.index_values.size(); u += 5) hot.index_values[u] = t17 - 3;
  cases.push_back({hot, {.in_place = true}});
  // Groups of 1024 where the device's big fold takes them (2^18 - 7 outputs), with bad indices.
  cases.push_back({random_problem(false, DataType::float32, ScatterReduction::mul, {t18}, {8 * t18 + 5}, 0, -t18 - 9,
                                  t18 + 9, seed++),
                   {.status = true}});
  const auto a = check(grouped, cases[0].problem, cases[0].layout);
  EXPECT_TRUE(a == check(grouped, cases[0].problem, cases[0].layout)) << "two runs differ";
  EXPECT_TRUE(a == check(other_mode, cases[0].problem, cases[0].layout)) << "the modes differ";
  for (size_t i = 1; i < cases.size(); ++i) check(grouped, cases[i].problem, cases[i].layout);
}

// The placement (runs of up to OG_SC_PLACE_RUN = 64 units, sorted by each owner) against the host
// loop and against the radix sort alone, for every type and reduction; two runs give one result.
TEST_F(ScatterTest, PlacementEveryReductionAndTypeMatchesTheRadixSort) {
  Scatter placed(device(), {.allow_placement = true}), radix(device());
  for (DataType t : kArithmetic)
    for (ScatterReduction r : kReductions) {
      SCOPED_TRACE(std::string(data_type_name(t)) + " reduction " + std::to_string(int(r)));
      // 4000 updates into 501 outputs (about 8 each, at most about 25), negative indices too.
      const Problem p = random_problem(false, t, r, {501}, {4000}, 0, -501, 500, 1000 + uint32_t(r));
      const auto first = check(placed, p);
      EXPECT_TRUE(first == check(placed, p)) << "two runs differ";
      EXPECT_TRUE(first == check(radix, p)) << "the placement and the radix sort differ";
      // ScatterND with whole elements: tuples naming elements of a [30, 4] tensor.
      const Problem nd = random_problem(true, t, r, {30, 4}, {700, 2}, 0, -4, 3, 1010 + uint32_t(r));
      const auto a = check(placed, nd);
      EXPECT_TRUE(a == check(radix, nd));
    }
}

TEST_F(ScatterTest, PlacementRunsOfEveryLengthUpToTheBoundAndPast) {
  // Runs of 1 .. 64 units (every network width of the owners' sort), then one of 65: the radix
  // sort takes over. Both forms of the radix sort; every update to one output too.
  Scatter swept(device(), {.allow_placement = true}),
      portable(device(), {.allow_subgroups = false, .allow_placement = true});
  for (ScatterReduction r : {ScatterReduction::add, ScatterReduction::min, ScatterReduction::none}) {
    for (int64_t longest : {int64_t(64), int64_t(65)}) {
      SCOPED_TRACE("reduction " + std::to_string(int(r)) + ", longest run " + std::to_string(longest));
      std::vector<int64_t> targets;
      for (int64_t length = 1; length < 64; ++length)
        for (int64_t k = 0; k < length; ++k) targets.push_back(length);
      for (int64_t k = 0; k < longest; ++k) targets.push_back(0);
      Problem p = random_problem(false, DataType::float32, r, {200}, {int64_t(targets.size())}, 0, 0, 0, 1100);
      std::shuffle(targets.begin(), targets.end(), std::mt19937(1101));
      p.index_values = targets;
      const auto a = check(swept, p, {.status = true});
      EXPECT_TRUE(a == check(portable, p));
      EXPECT_TRUE(a == check(swept, p));
    }
    // Every update to one output (of 4000): the longest run there is, behind the placement.
    Problem one = random_problem(false, DataType::float32, r, {4000}, {20000}, 0, -7, -7, 1102);
    const auto a = check(swept, one, {.status = true});
    EXPECT_TRUE(a == check(portable, one));
  }
}

TEST_F(ScatterTest, PlacementOverSeveralBuckets) {
  // 600000 updates into 2^17 outputs: four buckets of 2^15 targets; 64-bit payloads through ids.
  Scatter s(device(), {.allow_placement = true});
  const Problem p = random_problem(false, DataType::float32, ScatterReduction::add, {1 << 17}, {600000}, 0,
                                   -(1 << 17), (1 << 17) - 1, 1300);
  const auto a = check(s, p, {.status = true});
  EXPECT_TRUE(a == check(s, p));
  const Problem wide = random_problem(false, DataType::int64, ScatterReduction::mul, {1 << 17}, {600000}, 0, 0,
                                      (1 << 17) - 1, 1301, DataType::int64);
  check(s, wide, {.in_place = true});
}

TEST_F(ScatterTest, PlacementSkipsOutOfRangeIndices) {
  Scatter s(device(), {.allow_placement = true});
  for (bool status : {false, true}) {
    SCOPED_TRACE(status ? "with status" : "silent");
    Problem p = random_problem(false, DataType::float32, ScatterReduction::add, {40}, {300}, 0, -40, 39, 1200);
    p.index_values[17] = 40;
    p.index_values[123] = -41;
    p.index_values[299] = 1000;
    check(s, p, {.status = status});
    check(s, p, {.in_place = true, .status = status});
    // Every index out of range: nothing written.
    for (auto& v : p.index_values) v = 77;
    check(s, p, {.status = status});
  }
}

TEST_P(ScatterOnEveryBackend, WorkOutlivesTheFamilyAndItsGrownScratch) {
  // Two scatters recorded, the second growing the scratch the first bound, then the family
  // destroyed before the submission: both results stay right.
  const Problem small = random_problem(false, DataType::float32, ScatterReduction::add, {50}, {300}, 0, 0, 49, 950);
  const Problem large = random_problem(false, DataType::float32, ScatterReduction::add, {50}, {5000}, 0, 0, 49, 951);
  std::vector<RawBuffer> keep;
  std::vector<std::vector<uint64_t>> want;
  CommandEncoder e = device().begin_commands();
  {
    Scatter s(device());
    for (const Problem* p : {&small, &large}) {
      std::vector<uint64_t> idx(p->index_values.begin(), p->index_values.end());
      Placed d = place(device(), 4, p->data_bits, 0, 0, 1), i = place(device(), 4, idx, 0, 0, 2);
      Placed u = place(device(), 4, p->update_bits, 0, 0, 3);
      s.scatter_elements(e, {&d.buffer, 0, p->data, {}, DataType::float32}, {&i.buffer, 0, p->indices, {}, DataType::int32},
                         {&u.buffer, 0, p->indices, {}, DataType::float32}, 0, {&d.buffer, 0, p->data, {}, DataType::float32},
                         ScatterReduction::add);
      std::optional<uint64_t> bad;
      want.push_back(reference(*p, &bad));
      keep.push_back(std::move(d.buffer));
    }
  }
  device().submit(e);
  for (size_t k = 0; k < 2; ++k) {
    const std::vector<uint8_t> got = read_all(keep[k]);
    for (size_t n = 0; n < want[k].size(); ++n) EXPECT_EQ(get(got, 4, n), want[k][n]) << "scatter " << k << " element " << n;
  }
}

// A sort whose scratch would not fit one storage binding is refused before the scratch is
// allocated and before anything is recorded (lavapipe binds 128 MiB: 2^23 units need more).
TEST_F(ScatterTest, ScratchBeyondOneBindingIsRefusedBeforeRecording) {
  const Shape d{1 << 20}, i{1 << 23};
  const uint64_t scratch = Scatter::scratch_bytes_elements(d, i, 0);
  if (scratch <= caps().max_storage_buffer_range)
    GTEST_SKIP() << "this device binds " << caps().max_storage_buffer_range << " bytes, more than the "
                 << scratch << " bytes of scratch the test needs refused";
  Scatter s(device());
  auto data = device().create_buffer<float>(size_t(1) << 20), upd = device().create_buffer<float>(size_t(1) << 23);
  auto idx = device().create_buffer<int32_t>(size_t(1) << 23);
  const uint64_t before = device().memory_stats().live_bytes;
  CommandEncoder e = device().begin_commands();
  EXPECT_THROW(s.scatter_elements(e, {&data, 0, d, {}, DataType::float32}, {&idx, 0, i, {}, DataType::int32},
                                  {&upd, 0, i, {}, DataType::float32}, 0, {&data, 0, d, {}, DataType::float32},
                                  ScatterReduction::add),
               UnsupportedError);
  EXPECT_EQ(e.dispatch_count(), 0u);
  EXPECT_EQ(device().memory_stats().live_bytes, before);  // no scratch was allocated
}

TEST_F(ScatterTest, ErrorsBeforeRecording) {
  Scatter s(device());
  auto data = device().create_buffer<float>(64), upd = device().create_buffer<float>(64);
  auto idx = device().create_buffer<int32_t>(64);
  auto halves = device().create_buffer<float16>(64);
  const Shape d{16}, d15{15}, i{8}, i2{8, 1}, bad{9};
  auto expect = [&](const char* arg, auto&& f) {
    CommandEncoder e = device().begin_commands();
    try {
      f(e);
      ADD_FAILURE() << "no error for " << arg;
    } catch (const KernelShapeError& x) {
      EXPECT_EQ(x.argument(), arg) << x.what();
    }
    EXPECT_EQ(e.dispatch_count(), 0u);
  };
  const TensorRef td{&data, 0, d, {}, DataType::float32}, ti{&idx, 0, i, {}, DataType::int32};
  const TensorRef tu{&upd, 0, i, {}, DataType::float32};
  // Overlaps: out inside data at another offset, out over the updates, out over the indices.
  expect("output", [&](CommandEncoder& e) { s.scatter_elements(e, td, ti, tu, 0, {&data, 8, d, {}, DataType::float32}); });
  expect("output", [&](CommandEncoder& e) { s.scatter_elements(e, td, ti, tu, 0, {&upd, 4, d, {}, DataType::float32}); });
  expect("output", [&](CommandEncoder& e) {
    s.scatter_elements(e, td, ti, tu, 0, {&idx, 0, d, {}, DataType::float32});
  });
  // Half: sharing one word with data is an overlap.
  expect("output", [&](CommandEncoder& e) {
    s.scatter_elements(e, {&halves, 0, d15, {}, DataType::float16}, ti, {&upd, 0, i, {}, DataType::float16}, 0,
                       {&halves, 15, d15, {}, DataType::float16});
  });
  // Buffer ranges, shapes, types, axis.
  expect("data", [&](CommandEncoder& e) { s.scatter_elements(e, {&data, 50, d, {}, DataType::float32}, ti, tu, 0, {&upd, 0, d, {}, DataType::float32}); });
  expect("updates", [&](CommandEncoder& e) { s.scatter_elements(e, td, ti, {&upd, 0, bad, {}, DataType::float32}, 0, {&upd, 0, d, {}, DataType::float32}); });
  expect("indices", [&](CommandEncoder& e) { s.scatter_elements(e, td, {&idx, 0, i, {}, DataType::float32}, tu, 0, {&upd, 0, d, {}, DataType::float32}); });
  expect("axis", [&](CommandEncoder& e) { s.scatter_elements(e, td, ti, tu, 1, {&upd, 0, d, {}, DataType::float32}); });
  expect("updates", [&](CommandEncoder& e) { s.scatter_nd(e, td, {&idx, 0, i2, {}, DataType::int32}, td, {&upd, 0, d, {}, DataType::float32}); });
  expect("output", [&](CommandEncoder& e) { s.scatter_nd(e, td, {&idx, 0, i2, {}, DataType::int32}, tu, {&upd, 0, bad, {}, DataType::float32}); });
  const Shape negative{-2};
  expect("indices", [&](CommandEncoder& e) { s.scatter_elements(e, td, {&idx, 0, negative, {}, DataType::int32}, tu, 0, {&upd, 0, d, {}, DataType::float32}); });
  const int64_t strides[] = {2};
  expect("updates", [&](CommandEncoder& e) { s.scatter_elements(e, td, ti, {&upd, 0, i, strides, DataType::float32}, 0, {&upd, 32, d, {}, DataType::float32}); });
  // Types a reduction does not take.
  CommandEncoder e = device().begin_commands();
  EXPECT_THROW(s.scatter_elements(e, {&data, 0, d, {}, DataType::uint32}, ti, {&upd, 0, i, {}, DataType::uint32}, 0,
                                  {&upd, 16, d, {}, DataType::uint32}, ScatterReduction::add),
               UnsupportedError);
  EXPECT_EQ(e.dispatch_count(), 0u);
}

TEST_F(ScatterTest, LargeScatterAdd) {
  const char* full = std::getenv("ONEGPU_SCATTER_FULL");
  if (full == nullptr || std::string(full) != "1") GTEST_SKIP() << "set ONEGPU_SCATTER_FULL=1 for 2^22 updates";
  Scatter s(device());
  const Problem p = random_problem(false, DataType::float32, ScatterReduction::add, {1 << 18}, {1 << 22}, 0, 0,
                                   (1 << 18) - 1, 900);
  const auto a = check(s, p, {.in_place = true});
  Scatter placed(device(), {.allow_placement = true});  // 16 updates an output: placed
  EXPECT_TRUE(a == check(placed, p, {.in_place = true}));
  Problem one = random_problem(false, DataType::float32, ScatterReduction::add, {4}, {1 << 20}, 0, 2, 2, 901);
  check(s, one);
  // The group fold against the full sort: 2^22 updates into 2^18 outputs, a quarter of them on one.
  Scatter full_sort(device(), {.allow_group_fold = false});
  EXPECT_TRUE(a == check(full_sort, p, {.in_place = true}));
  Problem hot = random_problem(false, DataType::float32, ScatterReduction::add, {1 << 18}, {1 << 22}, 0, 0,
                               (1 << 18) - 1, 902);
  for (size_t u = 0; u < hot.index_values.size(); u += 4) hot.index_values[u] = 177777;
  EXPECT_TRUE(check(s, hot) == check(full_sort, hot));
}

}  // namespace
}  // namespace onegpu::testing
