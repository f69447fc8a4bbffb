// Gather, GatherElements and GatherND against a host reference, bit for bit: every payload width,
// int32 and int64 (negative) indices, every axis, ranks 1 to 8, batch dimensions, odd offsets next
// to live neighbours, sentinels around every output, out-of-range indices with and without an
// IndexStatus, and the checks made before recording.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "onegpu/kernels/gather.h"
#include "kernels/tensor_helpers.h"
#include "support/device_fixture.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using namespace kernels;
using Shape = std::vector<int64_t>;


// Row-major multi-index of flat position e, and back.
Shape unravel(uint64_t e, const Shape& s) {
  Shape x(s.size());
  for (size_t i = s.size(); i-- > 0;) {
    x[i] = int64_t(e % uint64_t(s[i]));
    e /= uint64_t(s[i]);
  }
  return x;
}
uint64_t ravel(const Shape& x, const Shape& s) {
  uint64_t e = 0;
  for (size_t i = 0; i < s.size(); ++i) e = e * uint64_t(s[i]) + uint64_t(x[i]);
  return e;
}

// An index of an axis of n in [0, n), or -1 when out of range.
int64_t normalize(int64_t v, int64_t n) {
  if (v < -n || v >= n) return -1;
  return v < 0 ? v + n : v;
}

// The reference: for each output element, the data element it copies (-1: zero), in output order.
// Also the smallest bad index position (or -1).
struct Reference {
  std::vector<int64_t> source;
  int64_t first_bad = -1;
};

Reference reference(GatherOperation op, const Shape& data, const Shape& ishape, const std::vector<int64_t>& idx,
                    int64_t axis, const Shape& out) {
  Reference r;
  const int64_t rank = int64_t(data.size());
  r.source.resize(count_of(out));
  for (uint64_t e = 0; e < r.source.size(); ++e) {
    const Shape o = unravel(e, out);
    Shape x;
    int64_t pos = -1, bad = -1;
    if (op == GatherOperation::gather) {
      const size_t ax = size_t(axis < 0 ? axis + rank : axis), q = ishape.size();
      Shape iv(o.begin() + ptrdiff_t(ax), o.begin() + ptrdiff_t(ax + q));
      pos = int64_t(ravel(iv, ishape));
      x.assign(o.begin(), o.begin() + ptrdiff_t(ax));
      const int64_t j = normalize(idx[size_t(pos)], data[ax]);
      if (j < 0) bad = pos;
      x.push_back(j);
      x.insert(x.end(), o.begin() + ptrdiff_t(ax + q), o.end());
    } else if (op == GatherOperation::gather_elements) {
      const size_t ax = size_t(axis < 0 ? axis + rank : axis);
      pos = int64_t(e);
      x = o;
      x[ax] = normalize(idx[e], data[ax]);
      if (x[ax] < 0) bad = pos;
    } else {
      const size_t b = size_t(axis), k = size_t(ishape.back()), q = ishape.size();
      Shape tuple_index(o.begin(), o.begin() + ptrdiff_t(q - 1));
      tuple_index.push_back(0);
      const uint64_t first = ravel(tuple_index, ishape);
      x.assign(o.begin(), o.begin() + ptrdiff_t(b));
      for (size_t c = 0; c < k; ++c) {
        const int64_t j = normalize(idx[first + c], data[b + c]);
        if (j < 0 && bad < 0) bad = int64_t(first + c);
        x.push_back(j);
      }
      x.insert(x.end(), o.begin() + ptrdiff_t(q - 1), o.end());
    }
    if (bad >= 0) {
      r.source[e] = -1;
      if (r.first_bad < 0 || bad < r.first_bad) r.first_bad = bad;
    } else {
      r.source[e] = int64_t(ravel(x, data));
    }
  }
  return r;
}

struct Problem {
  GatherOperation op = GatherOperation::gather;
  Shape data, indices;
  int64_t axis = 0;  // batch_dims for GatherND
  DataType type = DataType::float32, index_type = DataType::int32;
  uint64_t data_offset = 0, index_offset = 0, out_offset = 0;
  double bad_fraction = 0;  // share of indices made out of range
  bool with_status = false;
  uint32_t seed = 1;
};

std::string describe(const Problem& p) {
  auto t = [](const Shape& s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
    return r + "]";
  };
  static const char* names[] = {"Gather", "GatherElements", "GatherND"};
  return std::string(names[int(p.op)]) + " " + std::string(data_type_name(p.type)) + " data " + t(p.data) +
         " indices " + t(p.indices) + " " + std::string(data_type_name(p.index_type)) + " axis " +
         std::to_string(p.axis) + " offsets " + std::to_string(p.data_offset) + "/" + std::to_string(p.index_offset) +
         "/" + std::to_string(p.out_offset);
}

Shape out_shape(const Problem& p) {
  if (p.op == GatherOperation::gather) return Gather::gather_shape(p.data, p.indices, p.axis);
  if (p.op == GatherOperation::gather_nd) return Gather::gather_nd_shape(p.data, p.indices, p.axis);
  return p.indices;
}

// Random valid indices (negative ones included), some made out of range on request.
std::vector<int64_t> make_indices(const Problem& p) {
  std::mt19937 rng(p.seed * 7919u + 13u);
  const uint64_t n = count_of(p.indices);
  std::vector<int64_t> v(n);
  const int64_t rank = int64_t(p.data.size());
  for (uint64_t i = 0; i < n; ++i) {
    int64_t len;
    if (p.op == GatherOperation::gather_nd) {
      len = p.data[size_t(p.axis) + size_t(i % uint64_t(p.indices.back()))];
    } else {
      len = p.data[size_t(p.axis < 0 ? p.axis + rank : p.axis)];
    }
    std::uniform_int_distribution<int64_t> d(-len, len - 1);
    v[i] = len > 0 ? d(rng) : 0;
    if (p.bad_fraction > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < p.bad_fraction) {
      const int64_t far[] = {len, -len - 1, len + 1000, int64_t(1) << 40, -(int64_t(1) << 40), INT64_MIN};
      v[i] = far[rng() % (p.index_type == DataType::int64 ? 6 : 3)];
    }
  }
  return v;
}

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class GatherFixture : public Base {
 protected:
  struct Outcome {
    std::vector<uint8_t> out;  // the whole output buffer
    std::string variant;
  };

  // Runs the problem and checks it against the reference, bit for bit, sentinels included.
  Outcome check(const Problem& p, Gather* family = nullptr) {
    SCOPED_TRACE(describe(p));
    Device& dev = this->device();
    std::optional<Gather> own;
    if (!family) family = &own.emplace(dev);
    const uint32_t b = data_type_size(p.type);
    const Shape oshape = out_shape(p);
    const uint64_t dn = count_of(p.data), on = count_of(oshape), in = count_of(p.indices);
    // Data: random bytes, the tensor from element data_offset.
    const uint64_t data_words = ((p.data_offset + dn) * b + 3) / 4 + 1;
    const auto data_raw = random_words(data_words, p.seed);
    auto data = dev.create_buffer<uint32_t>(data_raw);
    const auto idx = make_indices(p);
    std::optional<RawBuffer> ibuf;
    if (p.index_type == DataType::int32) {
      std::vector<int32_t> w(p.index_offset + in + 1, 0x5a5a5a5a);
      for (uint64_t i = 0; i < in; ++i) w[p.index_offset + i] = int32_t(idx[i]);
      ibuf.emplace(dev.create_buffer<int32_t>(w));
    } else {
      std::vector<int64_t> w(p.index_offset + in + 1, 0x5a5a5a5a5a5a5a5a);
      for (uint64_t i = 0; i < in; ++i) w[p.index_offset + i] = idx[i];
      ibuf.emplace(dev.create_buffer<int64_t>(w));
    }
    const uint64_t out_words = ((p.out_offset + on) * b + 3) / 4 + 2;
    const auto sentinel = random_words(out_words, p.seed + 1000);
    auto out = dev.create_buffer<uint32_t>(sentinel);
    std::optional<IndexStatus> status;
    if (p.with_status) status.emplace(dev);

    const TensorRef d{&data, p.data_offset, p.data, {}, p.type};
    const TensorRef i{&*ibuf, p.index_offset, p.indices, {}, p.index_type};
    const TensorRef o{&out, p.out_offset, oshape, {}, p.type};
    Outcome result;
    result.variant = std::string(family->variant(p.op, d, i, p.axis, o));
    auto enc = dev.begin_commands();
    IndexStatus* s = status ? &*status : nullptr;
    if (p.op == GatherOperation::gather) family->gather(enc, d, i, p.axis, o, s);
    if (p.op == GatherOperation::gather_elements) family->gather_elements(enc, d, i, p.axis, o, s);
    if (p.op == GatherOperation::gather_nd) family->gather_nd(enc, d, i, p.axis, o, s);
    dev.submit(enc);
    result.out.resize(out_words * 4);
    out.read_bytes(0, std::as_writable_bytes(std::span(result.out)));

    const Reference ref = reference(p.op, p.data, p.indices, idx, p.axis, oshape);
    std::vector<uint8_t> expected(out_words * 4);
    std::memcpy(expected.data(), sentinel.data(), expected.size());
    const auto* src = reinterpret_cast<const uint8_t*>(data_raw.data());
    for (uint64_t e = 0; e < on; ++e) {
      uint8_t* dst = expected.data() + (p.out_offset + e) * b;
      if (ref.source[e] < 0)
        std::memset(dst, 0, b);
      else
        std::memcpy(dst, src + (p.data_offset + uint64_t(ref.source[e])) * b, b);
    }
    uint64_t mismatches = 0, first = 0;
    for (uint64_t k = 0; k < expected.size(); ++k)
      if (expected[k] != result.out[k] && mismatches++ == 0) first = k;
    EXPECT_EQ(mismatches, 0u) << "first differing byte " << first << " (output bytes "
                              << p.out_offset * b << " to " << (p.out_offset + on) * b << "), variant "
                              << result.variant;
    if (status) {
      const auto got = status->first_bad_position();
      if (ref.first_bad < 0) {
        EXPECT_FALSE(got.has_value());
      } else {
        EXPECT_EQ(got.value_or(~0ull), uint64_t(ref.first_bad));
      }
    }
    return result;
  }
};

using GatherTest = GatherFixture<DeviceTest>;
// On every backend with the same references and bit checks (the argument checks, which bind an
// output beside its data in one buffer, stay on Vulkan).
using GatherOnEveryBackend = GatherFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, GatherOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

const DataType kAllTypes[] = {DataType::int8,    DataType::uint8,  DataType::boolean, DataType::float16,
                              DataType::bfloat16, DataType::int16,  DataType::uint16,  DataType::float32,
                              DataType::int32,   DataType::uint32, DataType::int64,   DataType::uint64,
                              DataType::float64};

TEST_P(GatherOnEveryBackend, EveryPayloadEveryAxisBothIndexTypes) {
  Gather g(device());
  uint32_t seed = 1;
  for (DataType t : kAllTypes)
    for (int64_t axis = -3; axis < 3; ++axis)
      for (DataType it : {DataType::int32, DataType::int64}) {
        Problem p{GatherOperation::gather, {5, 6, 7}, {2, 3}, axis, t, it};
        p.data_offset = 1;
        p.index_offset = 1;
        p.out_offset = 3;  // odd: 8- and 16-bit outputs share words with live neighbours
        p.seed = seed++;
        check(p, &g);
      }
}

TEST_P(GatherOnEveryBackend, OddOffsetsKeepLiveNeighbours) {
  Gather g(device());
  for (DataType t : {DataType::uint8, DataType::int8, DataType::boolean, DataType::float16, DataType::uint16})
    for (uint64_t off : {0, 1, 2, 3, 5})
      for (int64_t width : {1, 3, 4, 8}) {
        Problem p{GatherOperation::gather, {9, width}, {7}, 0, t, DataType::int64};
        p.out_offset = off;
        p.data_offset = off ^ 1u;
        p.seed = uint32_t(off * 10 + uint64_t(width));
        check(p, &g);
        Problem e{GatherOperation::gather_elements, {9, width}, {4, width}, 0, t};
        e.out_offset = off;
        e.seed = p.seed + 1;
        check(e, &g);
        Problem n{GatherOperation::gather_nd, {9, width}, {5, 1}, 0, t};
        n.out_offset = off;
        n.seed = p.seed + 2;
        check(n, &g);
      }
}

TEST_P(GatherOnEveryBackend, RanksOneToEight) {
  Gather g(device());
  for (size_t rank = 1; rank <= 8; ++rank)
    for (DataType t : {DataType::float32, DataType::float16, DataType::int64, DataType::uint8}) {
      Shape data(rank, 2);
      data[0] = 3;
      data[rank - 1] = 3;
      // Gather with rank-0 indices (out rank rank - 1) and rank-1 indices.
      for (int64_t axis : {int64_t(0), int64_t(rank) - 1, int64_t(rank / 2)}) {
        Problem p{GatherOperation::gather, data, {}, axis, t};
        p.out_offset = 1;
        p.seed = uint32_t(rank * 100 + size_t(axis));
        check(p, &g);
        p.indices = {3};
        check(p, &g);
        Problem e{GatherOperation::gather_elements, data, data, axis, t, DataType::int64};
        e.indices[size_t(axis)] = 4;
        e.out_offset = 1;
        e.seed = p.seed + 7;
        check(e, &g);
      }
      Problem n{GatherOperation::gather_nd, data, {2, int64_t(std::min<size_t>(rank, 3))}, 0, t};
      n.seed = uint32_t(rank * 31);
      check(n, &g);
    }
}

TEST_P(GatherOnEveryBackend, GatherElementsEveryPayloadAndAxis) {
  Gather g(device());
  uint32_t seed = 500;
  for (DataType t : kAllTypes)
    for (int64_t axis = -3; axis < 3; ++axis) {
      Problem p{GatherOperation::gather_elements, {4, 5, 6}, {3, 5, 4}, axis, t, seed % 2 ? DataType::int64 : DataType::int32};
      p.indices[size_t(axis < 0 ? axis + 3 : axis)] = 7;  // more indices than the axis has elements
      p.data_offset = 2;
      p.out_offset = 1;
      p.index_offset = 3;
      p.seed = seed++;
      check(p, &g);
    }
}

TEST_P(GatherOnEveryBackend, GatherNdBatchDimensions) {
  Gather g(device());
  uint32_t seed = 900;
  struct NdCase {
    Shape data, indices;
    int64_t batch_dims;
  };
  const NdCase cases[] = {
      {{4, 5}, {3, 2}, 0},           {{4, 5}, {3, 1}, 0},          {{4, 5, 6}, {2, 3, 2}, 0},
      {{4, 5, 6}, {2, 3, 3}, 0},     {{4, 5, 6}, {4, 3, 1}, 1},    {{4, 5, 6}, {4, 2}, 1},
      {{2, 3, 5, 6}, {2, 3, 4, 1}, 2}, {{2, 3, 5, 6}, {2, 3, 2}, 2}, {{2, 3, 5, 6, 4}, {2, 3, 2, 2, 2}, 2},
      {{3, 4, 8}, {3, 5, 1}, 1},     {{3, 4, 8}, {3, 1}, 1},
  };
  for (const auto& c : cases)
    for (DataType t : {DataType::uint8, DataType::float16, DataType::float32, DataType::int64})
      for (DataType it : {DataType::int32, DataType::int64}) {
        Problem p{GatherOperation::gather_nd, c.data, c.indices, c.batch_dims, t, it};
        p.out_offset = seed % 3;
        p.index_offset = 1;
        p.seed = seed++;
        check(p, &g);
      }
}

TEST_P(GatherOnEveryBackend, EmbeddingRowsAlignedAndUnaligned) {
  Gather g(device());
  // Aligned rows (uvec4), rows of words, and rows that are not whole words.
  struct RowCase {
    DataType type;
    int64_t width;
    uint64_t data_offset, out_offset;
    const char* variant;
  };
  const RowCase cases[] = {
      {DataType::float32, 256, 0, 0, "gather.rows.uvec4"},  {DataType::float32, 1000, 4, 8, "gather.rows.uvec4"},
      {DataType::float32, 2052, 0, 4, "gather.rows.uvec4"}, {DataType::float32, 4096, 0, 0, "gather.rows.uvec4"},
      {DataType::float32, 257, 0, 0, "gather.rows.word"},   {DataType::float32, 256, 1, 0, "gather.rows.word"},
      {DataType::float32, 256, 0, 3, "gather.rows.word"},   {DataType::float16, 64, 0, 0, "gather.rows.uvec4"},
      {DataType::float16, 66, 2, 2, "gather.rows.word"},    {DataType::float16, 65, 0, 0, "gather.index.w16"},
      {DataType::int8, 48, 0, 16, "gather.rows.uvec4"},     {DataType::int8, 47, 0, 0, "gather.index.w8"},
      {DataType::int64, 33, 0, 0, "gather.rows.word"},      {DataType::int64, 32, 2, 0, "gather.rows.uvec4"},
      {DataType::float32, 9000, 0, 0, "gather.rows.uvec4"},  // a row over several workgroups
  };
  uint32_t seed = 2000;
  for (const auto& c : cases)
    for (DataType it : {DataType::int32, DataType::int64}) {
      Problem p{GatherOperation::gather, {37, c.width}, {29}, 0, c.type, it};
      p.data_offset = c.data_offset;
      p.out_offset = c.out_offset;
      p.seed = seed++;
      EXPECT_EQ(check(p, &g).variant, c.variant) << c.width;
    }
  // Many short rows: several rows per workgroup, a grid over the 65535 row limit when full.
  Problem p{GatherOperation::gather, {50, 4}, {3000}, 0, DataType::float32, DataType::int64};
  check(p, &g);
}

TEST_P(GatherOnEveryBackend, OutOfRangeIndicesWriteZerosAndRecordThePosition) {
  Gather g(device());
  uint32_t seed = 3000;
  for (bool with_status : {true, false})
    for (DataType t : {DataType::uint8, DataType::float16, DataType::float32, DataType::int64})
      for (DataType it : {DataType::int32, DataType::int64}) {
        const Problem problems[] = {
            {GatherOperation::gather, {6, 8}, {5, 4}, 0, t, it},      // rows
            {GatherOperation::gather, {6, 3}, {5, 4}, 0, t, it},      // rows or words
            {GatherOperation::gather, {4, 6, 3}, {9}, 1, t, it},
            {GatherOperation::gather_elements, {6, 5}, {7, 5}, 0, t, it},
            {GatherOperation::gather_nd, {4, 5, 6}, {7, 2}, 0, t, it},
            {GatherOperation::gather_nd, {4, 5, 3}, {4, 7, 2}, 1, t, it},
            {GatherOperation::gather, {0, 5}, {3}, 0, t, it},            // empty data: every index bad
            {GatherOperation::gather_elements, {3, 0}, {3, 2}, 1, t, it},
            {GatherOperation::gather_nd, {2, 0, 3}, {2, 2}, 0, t, it},
        };
        for (Problem p : problems) {
          p.bad_fraction = 0.2;
          p.with_status = with_status;
          p.out_offset = 1;
          p.seed = seed++;
          check(p, &g);
        }
      }
}

TEST_P(GatherOnEveryBackend, IndexErrorNamesOperationArgumentAndPosition) {
  Gather g(device());
  auto data = device().create_buffer(random_floats(40, 1));
  auto out = device().create_buffer<float>(40);
  const Shape ds{10, 4}, is{5}, os{5, 4};
  const std::vector<int32_t> idx{1, -10, 7, 10, -11};
  auto ibuf = device().create_buffer<int32_t>(idx);
  IndexStatus status(device());
  const TensorRef d{&data, 0, ds, {}, DataType::float32}, i{&ibuf, 0, is, {}, DataType::int32},
      o{&out, 0, os, {}, DataType::float32};
  auto enc = device().begin_commands();
  g.gather(enc, d, i, 0, o, &status);
  device().submit(enc);
  try {
    status.check();
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_EQ(e.operation(), "Gather");
    EXPECT_EQ(e.argument(), "indices");
    EXPECT_EQ(e.position(), 3u);
  }
  // check_async raises the same.
  auto f = status.check_async();
  EXPECT_THROW(f.get(), IndexError);
  // reset clears it; a clean run then checks fine, synchronously and not.
  status.reset();
  const std::vector<int32_t> good{0, 1, 2, 3, -1};
  auto gbuf = device().create_buffer<int32_t>(good);
  const TensorRef gi{&gbuf, 0, is, {}, DataType::int32};
  auto enc2 = device().begin_commands();
  g.gather(enc2, d, gi, 0, o, &status);
  device().submit(enc2);
  EXPECT_NO_THROW(status.check());
  EXPECT_NO_THROW(status.check_async().get());
  EXPECT_FALSE(status.first_bad_position().has_value());
}

TEST_P(GatherOnEveryBackend, OneStatusForTwoOperationsNamesBoth) {
  Gather g(device());
  auto data = device().create_buffer(random_floats(40, 2));
  auto out = device().create_buffer<float>(40);
  auto out2 = device().create_buffer<float>(40);
  const Shape ds{10, 4}, is{5}, os{5, 4}, nis{5, 1};
  auto good = device().create_buffer<int64_t>(std::vector<int64_t>{0, 1, 2, 3, 4});
  auto bad = device().create_buffer<int64_t>(std::vector<int64_t>{0, 1, 2, int64_t(1) << 33, 4});
  IndexStatus status(device());
  const TensorRef d{&data, 0, ds, {}, DataType::float32}, o{&out, 0, os, {}, DataType::float32},
      o2{&out2, 0, os, {}, DataType::float32};
  auto enc = device().begin_commands();
  g.gather(enc, d, {&good, 0, is, {}, DataType::int64}, 0, o, &status);
  g.gather_nd(enc, d, {&bad, 0, nis, {}, DataType::int64}, 0, o2, &status);
  device().submit(enc);
  auto f = status.check_async();
  try {
    f.get();
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_EQ(e.operation(), "Gather or GatherND");
    EXPECT_EQ(e.argument(), "indices");
    EXPECT_EQ(e.position(), 3u);
  }
  // The other order: a name that begins another one is still named.
  IndexStatus other(device());
  auto enc2 = device().begin_commands();
  g.gather_nd(enc2, d, {&bad, 0, nis, {}, DataType::int64}, 0, o2, &other);
  g.gather(enc2, d, {&good, 0, is, {}, DataType::int64}, 0, o, &other);
  g.gather(enc2, d, {&good, 0, is, {}, DataType::int64}, 0, o, &other);  // noted once
  device().submit(enc2);
  try {
    other.check();
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_EQ(e.operation(), "GatherND or Gather");
    EXPECT_EQ(e.position(), 3u);
  }
}

// Data in the output's buffer (disjoint words): the same bits as from another buffer, or, where a
// buffer bound writable may not be bound again in a dispatch (WebGPU), refused before recording.
TEST_P(GatherOnEveryBackend, DataInTheOutputsBuffer) {
  Gather g(device());
  const std::vector<uint32_t> words = random_words(64, 5);
  auto shared = device().create_buffer(words);
  auto data = device().create_buffer(std::vector<uint32_t>(words.begin(), words.begin() + 32));
  auto out = device().create_buffer(random_words(32, 6));
  auto idx = device().create_buffer(std::vector<int32_t>{3, 0, 2, -1});
  const Shape ds{4, 8}, is{4}, os{4, 8};
  const TensorRef i{&idx, 0, is, {}, DataType::int32};
  auto enc = device().begin_commands();
  if (!caps().aliased_writable_bindings) {
    try {
      g.gather(enc, {&shared, 0, ds, {}, DataType::float32}, i, 0, {&shared, 32, os, {}, DataType::float32});
      ADD_FAILURE() << "no error";
    } catch (const UnsupportedError& e) {
      EXPECT_EQ(e.capability(), "aliased_writable_bindings");
    }
    EXPECT_EQ(enc.dispatch_count(), 0u);
    return;
  }
  g.gather(enc, {&shared, 0, ds, {}, DataType::float32}, i, 0, {&shared, 32, os, {}, DataType::float32});
  g.gather(enc, {&data, 0, ds, {}, DataType::float32}, i, 0, {&out, 0, os, {}, DataType::float32});
  device().submit(enc);
  const std::vector<uint32_t> got = shared.read(), want = out.read();
  EXPECT_EQ(std::vector<uint32_t>(got.begin() + 32, got.end()), want);
  EXPECT_EQ(std::vector<uint32_t>(got.begin(), got.begin() + 32), std::vector<uint32_t>(words.begin(), words.begin() + 32));
}

TEST_F(GatherTest, ChecksBeforeRecording) {
  Gather g(device());
  auto data = device().create_buffer<float>(64);
  auto idx = device().create_buffer<int32_t>(std::vector<int32_t>(8, 1));
  auto out = device().create_buffer<float>(64);
  auto small = device().create_buffer<float>(8);
  auto bytes = device().create_buffer<uint8_t>(6);  // 8 bytes after padding
  const Shape ds{8, 8}, is{4}, os{4, 8}, bad_os{4, 7}, nis{4, 1};
  const TensorRef d{&data, 0, ds, {}, DataType::float32}, i{&idx, 0, is, {}, DataType::int32},
      o{&out, 0, os, {}, DataType::float32};
  auto enc = device().begin_commands();
  auto expect = [&](auto&& f, const char* operation, const char* argument) {
    try {
      f();
      ADD_FAILURE() << "no error for " << argument;
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.operation(), operation);
      EXPECT_EQ(e.argument(), argument) << e.what();
    }
  };
  expect([&] { g.gather(enc, d, i, 0, {&out, 0, bad_os, {}, DataType::float32}); }, "Gather", "output");
  expect([&] { g.gather(enc, d, i, 0, {&out, 0, os, {}, DataType::int32}); }, "Gather", "output");
  expect([&] { g.gather(enc, d, {&idx, 0, is, {}, DataType::uint32}, 0, o); }, "Gather", "indices");
  expect([&] { g.gather(enc, d, i, 2, o); }, "Gather", "axis");
  expect([&] { g.gather(enc, d, i, 0, {&small, 0, os, {}, DataType::float32}); }, "Gather", "output");
  expect([&] { g.gather(enc, d, {&idx, 6, is, {}, DataType::int32}, 0, o); }, "Gather", "indices");
  expect([&] { g.gather(enc, {&data, 1, ds, {}, DataType::float32}, i, 0, o); }, "Gather", "data");
  // Overlaps: the output may not share a word with data or indices.
  expect([&] { g.gather(enc, d, i, 0, {&data, 0, os, {}, DataType::float32}); }, "Gather", "output");
  expect([&] { g.gather(enc, {&data, 0, Shape{2, 8}, {}, DataType::float32}, i, 0, {&data, 15, os, {}, DataType::float32}); },
         "Gather", "output");
  const Shape bs{5}, bos{2};
  expect([&] { g.gather(enc, {&bytes, 0, bs, {}, DataType::uint8}, {&idx, 0, Shape{2}, {}, DataType::int32}, 0,
                         {&bytes, 5, bos, {}, DataType::uint8}); },
         "Gather", "output");  // bytes 5, 6 share the second word with data's byte 4
  expect([&] { g.gather(enc, d, i, 0, {&idx, 0, os, {}, DataType::float32}); }, "Gather", "output");
  expect([&] { g.gather_elements(enc, d, i, 0, {&out, 0, is, {}, DataType::float32}); }, "GatherElements", "indices");
  expect([&] { g.gather_nd(enc, d, {&idx, 0, nis, {}, DataType::int32}, 2, o); }, "GatherND", "batch_dims");
  const int64_t strides[] = {1, 8};
  expect([&] { g.gather(enc, {&data, 0, ds, strides, DataType::float32}, i, 0, o); }, "Gather", "strides");
  // A disjoint range of the same buffer is fine.
  g.gather(enc, {&data, 0, Shape{4, 8}, {}, DataType::float32}, i, 0, {&data, 32, os, {}, DataType::float32});
  EXPECT_EQ(enc.dispatch_count(), 1u);
  device().submit(enc);
}

TEST_P(GatherOnEveryBackend, BothModesGiveTheSameBits) {
  Gather fast(device(), {.mode = KernelMode::fast});
  Gather det(device(), {.mode = KernelMode::deterministic});
  const Problem problems[] = {
      {GatherOperation::gather, {37, 64}, {50}, 0, DataType::float32, DataType::int64},
      {GatherOperation::gather, {5, 6, 7}, {4}, 1, DataType::float16},
      {GatherOperation::gather_elements, {5, 6, 7}, {5, 9, 7}, 1, DataType::uint8},
      {GatherOperation::gather_nd, {5, 6, 7}, {5, 2, 1}, 1, DataType::int64},
  };
  for (const Problem& p : problems) {
    const auto a = check(p, &fast), b = check(p, &det), c = check(p, &det);
    EXPECT_EQ(a.out, b.out);
    EXPECT_EQ(b.out, c.out);
  }
}

TEST_P(GatherOnEveryBackend, WarmCallsBuildNoBindGroups) {
  Gather g(device());
  Problem p{GatherOperation::gather, {37, 64}, {50}, 0};
  auto data = device().create_buffer(random_floats(37 * 64, 3));
  auto idx = device().create_buffer<int32_t>(std::vector<int32_t>(50, 2));
  auto out = device().create_buffer<float>(50 * 64);
  const Shape os{50, 64};
  const TensorRef d{&data, 0, p.data, {}, DataType::float32}, i{&idx, 0, p.indices, {}, DataType::int32},
      o{&out, 0, os, {}, DataType::float32};
  IndexStatus status(device());
  auto enc = device().begin_commands();
  g.gather(enc, d, i, 0, o);
  g.gather(enc, d, i, 0, o, &status);
  const uint64_t built = g.bind_groups_created();
  g.gather(enc, d, i, 0, o);
  g.gather(enc, d, i, 0, o, &status);
  EXPECT_EQ(g.bind_groups_created(), built);
  device().submit(enc);
  status.check();
}

// The benchmark's embedding lookup at full size (ONEGPU_GATHER_FULL=1; slow on a CPU driver).
TEST_P(GatherOnEveryBackend, LargeEmbedding) {
  const char* full = std::getenv("ONEGPU_GATHER_FULL");
  if (!full || std::string(full) != "1") GTEST_SKIP() << "set ONEGPU_GATHER_FULL=1";
  Problem p{GatherOperation::gather, {32000, 4096}, {8192}, 0, DataType::float32, DataType::int64};
  if (caps().max_storage_buffer_range > 32000ull * 4096 * 4 + 8) {  // lavapipe binds at most 128 MiB
    EXPECT_EQ(check(p).variant, "gather.rows.uvec4");
  }
  // More than 65535 workgroups: an invocation per output word of 8-bit rows that are not whole
  // words (17000 x 4095 bytes), on the folded grid.
  Problem q{GatherOperation::gather, {300, 4095}, {17000}, 0, DataType::int8, DataType::int32};
  q.out_offset = 1;
  EXPECT_EQ(check(q).variant, "gather.index.w8");
}

}  // namespace
}  // namespace onegpu::testing
