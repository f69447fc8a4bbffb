// RNN, GRU and LSTM layers against a float64 reference (tests/reference/recurrent_reference.h):
// every cell x direction x layout with and without the optional inputs (bias, lengths including
// 0 and a host-side maximum, initial states, peepholes, clip, input_forget, linear_before_reset),
// every activation in every slot of both directions, float16, batches above eight and hidden sizes
// that do not divide a workgroup, the recognizer's shapes, the empty sequence and batch, caller
// scratch in one arena, both schedules (passes and one dispatch) giving the same bits. Every
// tensor sits at an odd element offset, every output between sentinels, and every case runs twice
// and must give the same bits. The recognizer's full set runs
// with ONEGPU_RNN_FULL=1.
#include "onegpu/kernels/recurrent.h"

#include "onegpu/adapter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/tensor_helpers.h"
#include "reference/recurrent_reference.h"
#include "reference/reference.h"
#include "support/device_fixture.h"
#include "support/parity_report.h"
#include "support/random.h"

namespace onegpu::testing {
namespace {

using namespace kernels;
using Shape = std::vector<int64_t>;
const DataType f32 = DataType::float32, f16 = DataType::float16;

bool full_run() {
  const char* v = std::getenv("ONEGPU_RNN_FULL");
  return v != nullptr && std::string(v) == "1";
}

// A tensor of `count` elements at element `offset` in a buffer of 32-bit words; the rest of the
// buffer (before, after, and the other half of shared words) holds sentinels.
struct Placed {
  Buffer<uint32_t> buffer;
  uint64_t offset, count;
  DataType type;
};

Placed place(Device& d, DataType t, const std::vector<float>& values, uint64_t offset) {
  const uint64_t es = data_type_size(t), count = values.size();
  const uint64_t words = ((offset + count) * es + 3) / 4 + 2;
  std::vector<uint32_t> w(words, kSentinel);
  auto* bytes = reinterpret_cast<unsigned char*>(w.data());
  for (uint64_t i = 0; i < count; ++i) {
    if (t == f32) {
      std::memcpy(bytes + (offset + i) * 4, &values[i], 4);
    } else {
      const float16 h = to_float16(values[i]);
      std::memcpy(bytes + (offset + i) * 2, &h, 2);
    }
  }
  return {d.create_buffer(w), offset, count, t};
}

Placed place_ints(Device& d, const std::vector<int32_t>& values, uint64_t offset) {
  std::vector<uint32_t> w(offset + values.size() + 1, kSentinel);
  for (size_t i = 0; i < values.size(); ++i) w[offset + i] = uint32_t(values[i]);
  return {d.create_buffer(w), offset, values.size(), DataType::int32};
}

// The output's values; fails the test when a byte outside the tensor changed.
std::vector<float> take(const Placed& p, const char* name) {
  std::vector<uint32_t> w(p.buffer.size());
  p.buffer.read(std::span(w));
  const uint64_t es = data_type_size(p.type);
  std::vector<uint32_t> fresh(w.size(), kSentinel);
  const auto* got = reinterpret_cast<const unsigned char*>(w.data());
  const auto* was = reinterpret_cast<const unsigned char*>(fresh.data());
  const uint64_t begin = p.offset * es, end = (p.offset + p.count) * es;
  for (uint64_t i = 0; i < w.size() * 4; ++i)
    if ((i < begin || i >= end) && got[i] != was[i]) {
      ADD_FAILURE() << name << ": byte " << i << " outside the tensor changed";
      break;
    }
  std::vector<float> out(p.count);
  for (uint64_t i = 0; i < p.count; ++i) {
    if (p.type == f32) {
      std::memcpy(&out[i], got + (p.offset + i) * 4, 4);
    } else {
      float16 h;
      std::memcpy(&h, got + (p.offset + i) * 2, 2);
      out[i] = to_float(h);
    }
  }
  return out;
}

struct Options {
  bool bias = false, lengths = false, initial = false, peephole = false, max_length = false;
  std::optional<float> clip;
  bool input_forget = false, linear_before_reset = false;
  std::vector<RecurrentActivation> activations;
  bool arena = false;     // caller scratch, both regions in one buffer
  bool scratch_apart = false;  // caller scratch, each region in a buffer of its own
  uint64_t r_offset = 5;  // a multiple of 4 with hidden a multiple of 4: the vector loads
  KernelMode mode = KernelMode::fast;
  RecurrentSchedule schedule = RecurrentSchedule::automatic;
};

struct Layer {
  RecurrentCell cell;
  RecurrentDirection direction;
  uint32_t layout;
  uint64_t seq, batch, input, hidden;
  DataType type = f32;
};

// The helpers over either fixture: DeviceTest (Vulkan) or BackendTest (every backend).
template <class Base>
class RecurrentFixture : public Base {
 protected:
  using Base::caps;
  using Base::device;
  // Runs the layer twice, compares the two runs bit for bit and each output with the reference.
  std::vector<std::vector<float>> check(const Layer& l, const Options& o, uint32_t seed = 1) {
    SCOPED_TRACE(std::string(l.cell == RecurrentCell::lstm  ? "LSTM"
                             : l.cell == RecurrentCell::gru ? "GRU"
                                                            : "RNN") +
                 " dir " + std::to_string(int(l.direction)) + " layout " + std::to_string(l.layout) + " seq " +
                 std::to_string(l.seq) + " batch " + std::to_string(l.batch) + " input " + std::to_string(l.input) +
                 " hidden " + std::to_string(l.hidden) + " " + std::string(data_type_name(l.type)));
    const int64_t D = l.direction == RecurrentDirection::bidirectional ? 2 : 1;
    const int64_t G = l.cell == RecurrentCell::lstm ? 4 : l.cell == RecurrentCell::gru ? 3 : 1;
    const int64_t S = int64_t(l.seq), B = int64_t(l.batch), I = int64_t(l.input), H = int64_t(l.hidden);
    RecurrentProblem pr;
    pr.cell = l.cell, pr.direction = l.direction, pr.layout = l.layout, pr.type = l.type;
    pr.seq = l.seq, pr.batch = l.batch, pr.input = l.input, pr.hidden = l.hidden;
    pr.clip = o.clip, pr.input_forget = o.input_forget, pr.linear_before_reset = o.linear_before_reset;
    pr.activations = o.activations;
    const float scale = 1.5f / std::sqrt(float(std::max(I, H)));
    auto data = [&](size_t n, uint32_t s, float k) {
      auto v = random_floats(n, seed * 131 + s, -k, k);
      return stored(l.type, v);
    };
    const auto x = data(size_t(S * B * I), 1, 1.0f), w = data(size_t(D * G * H * I), 2, scale);
    const auto r = data(size_t(D * G * H * H), 3, scale), b = data(size_t(D * 2 * G * H), 4, 0.5f);
    const auto h0 = data(size_t(D * B * H), 5, 0.8f), c0 = data(size_t(D * B * H), 6, 0.8f);
    const auto pp = data(size_t(D * 3 * H), 7, 0.5f);
    std::vector<int32_t> lens(static_cast<size_t>(B));
    const int64_t top = o.max_length ? std::max<int64_t>(S - 2, 0) : S;
    for (int64_t i = 0; i < B; ++i) lens[size_t(i)] = int32_t(i % 3 == 0 ? top : i % 3 == 1 ? 0 : (top + 1) / 2);
    // Lengths above seq count as seq, negative ones as 0 (only without a host maximum).
    for (int64_t i = 5; i < B && !o.max_length; i += 7) lens[size_t(i)] = int32_t(S + 5);
    for (int64_t i = 6; i < B && !o.max_length; i += 7) lens[size_t(i)] = -2;
    if (o.max_length) pr.max_length = uint64_t(top);

    Shape xs = l.layout ? Shape{B, S, I} : Shape{S, B, I}, ws{D, G * H, I}, rs{D, G * H, H}, bs{D, 2 * G * H};
    Shape ls{B}, hs = l.layout ? Shape{B, D, H} : Shape{D, B, H}, ps{D, 3 * H};
    Shape ys = l.layout ? Shape{B, S, D, H} : Shape{S, D, B, H};
    Device& dev = device();
    const DataType t = l.type;
    Placed X = place(dev, t, x, 3), W = place(dev, t, w, 1), R = place(dev, t, r, o.r_offset), Bb = place(dev, t, b, 7);
    Placed H0 = place(dev, t, h0, 1), C0 = place(dev, t, c0, 3), P = place(dev, t, pp, 1);
    Placed L = place_ints(dev, lens, 1);
    const uint64_t nstate = uint64_t(D * B * H);
    std::vector<float> poison(size_t(S * D * B * H), std::nanf(""));
    auto fresh_outputs = [&] {
      return std::array<Placed, 3>{place(dev, t, poison, 1), place(dev, t, std::vector<float>(nstate, NAN), 3),
                                   place(dev, t, std::vector<float>(nstate, NAN), 5)};
    };
    const bool lstm = l.cell == RecurrentCell::lstm;
    auto refs = [&](const Placed& p, const Shape& s) { return TensorRef{&p.buffer, p.offset, s, {}, p.type}; };
    RecurrentTensors ts;
    ts.x = refs(X, xs), ts.w = refs(W, ws), ts.r = refs(R, rs);
    if (o.bias) ts.b = refs(Bb, bs);
    if (o.lengths) ts.sequence_lens = refs(L, ls);
    if (o.initial) ts.initial_h = refs(H0, hs);
    if (o.initial && lstm) ts.initial_c = refs(C0, hs);
    if (o.peephole) ts.p = refs(P, ps);

    Recurrent family(dev, t, {.mode = o.mode, .schedule = o.schedule});
    std::optional<Buffer<float>> arena, state_scratch;
    RecurrentScratch scratch;
    if (o.arena) {
      const uint64_t xl = Recurrent::xw_length(pr), sl = Recurrent::state_length(pr);
      arena.emplace(dev.create_buffer<float>(xl + sl + 8));
      scratch = {&*arena, 3, &*arena, xl + 8};
    } else if (o.scratch_apart) {
      const uint64_t xl = Recurrent::xw_length(pr), sl = Recurrent::state_length(pr);
      arena.emplace(dev.create_buffer<float>(xl + 3));
      state_scratch.emplace(dev.create_buffer<float>(sl + 8));
      scratch = {&*arena, 3, &*state_scratch, 8};
    }
    std::vector<std::vector<float>> runs[2];
    for (int run = 0; run < 2; ++run) {
      auto outs = fresh_outputs();
      ts.y = refs(outs[0], ys), ts.y_h = refs(outs[1], hs);
      ts.y_c = lstm ? refs(outs[2], hs) : TensorRef{};
      auto enc = dev.begin_commands();
      family.encode(enc, pr, ts, scratch);
      dev.submit(enc);
      dev.wait_idle();
      runs[run] = {take(outs[0], "y"), take(outs[1], "y_h"), lstm ? take(outs[2], "y_c") : std::vector<float>{}};
    }
    for (int k = 0; k < 3; ++k)
      EXPECT_TRUE(same_bits(runs[0][k], runs[1][k])) << "output " << k << " differs between runs";

    reference::RecurrentInputs in;
    auto dbl = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
    in.x = dbl(x), in.w = dbl(w), in.r = dbl(r);
    if (o.bias) in.b = dbl(b);
    if (o.lengths) in.sequence_lens = lens;
    if (o.initial) in.initial_h = dbl(h0);
    if (o.initial && lstm) in.initial_c = dbl(c0);
    if (o.peephole) in.p = dbl(pp);
    const reference::RecurrentOutputs want = reference::recurrent(pr, in);
    const std::vector<double>* wants[3] = {&want.y, &want.y_h, &want.y_c};
    const char* names[3] = {"y", "y_h", "y_c"};
    for (int k = 0; k < (lstm ? 3 : 2); ++k) {
      if (runs[0][k].size() != wants[k]->size()) {
        ADD_FAILURE() << names[k] << ": " << runs[0][k].size() << " elements, " << wants[k]->size() << " expected";
        continue;
      }
      if (wants[k]->empty()) continue;
      const double e = reference::scaled_error(runs[0][k], *wants[k]);
      report_parity(e, wants[k]->size());
      EXPECT_LE(e, tolerance(t)) << names[k];
    }
    return runs[0];
  }
};

using RecurrentTest = RecurrentFixture<DeviceTest>;
// On every backend with the same references, tolerances and bit checks (the one-dispatch
// schedules stay on Vulkan: they have no WGSL).
using RecurrentOnEveryBackend = RecurrentFixture<BackendTest>;
INSTANTIATE_TEST_SUITE_P(Backends, RecurrentOnEveryBackend, ::testing::ValuesIn(kEveryBackend), backend_name);

const RecurrentCell kCells[] = {RecurrentCell::rnn, RecurrentCell::gru, RecurrentCell::lstm};
// Activations other than the defaults, both directions' three slots.
const RecurrentActivation kOtherActivations[6] = {{RecurrentActivationKind::hard_sigmoid, 0.2f, 0.5f},
                                                  {RecurrentActivationKind::softsign},
                                                  {RecurrentActivationKind::elu, 0.9f},
                                                  {RecurrentActivationKind::sigmoid},
                                                  {RecurrentActivationKind::tanh},
                                                  {RecurrentActivationKind::relu}};
const RecurrentDirection kDirections[] = {RecurrentDirection::forward, RecurrentDirection::reverse,
                                          RecurrentDirection::bidirectional};

TEST_P(RecurrentOnEveryBackend, EveryCellDirectionAndLayoutWithOptionSets) {
  for (RecurrentCell cell : kCells)
    for (RecurrentDirection dir : kDirections)
      for (uint32_t layout : {0u, 1u}) {
        const Layer l{cell, dir, layout, 5, 3, 7, 6};
        Options plain;
        plain.linear_before_reset = cell == RecurrentCell::gru && layout == 0;
        check(l, plain, 1);
        Options full;
        full.bias = full.lengths = full.initial = true;
        full.peephole = cell == RecurrentCell::lstm;
        full.clip = 1.5f;
        full.input_forget = cell == RecurrentCell::lstm && layout == 1;
        full.linear_before_reset = cell == RecurrentCell::gru && layout == 1;
        full.max_length = dir == RecurrentDirection::reverse;
        check(l, full, 2);
        Layer h = l;
        h.type = f16;
        check(h, full, 3);
      }
}

TEST_P(RecurrentOnEveryBackend, EveryActivationInEverySlot) {
  const RecurrentActivation kinds[] = {{RecurrentActivationKind::sigmoid},
                                       {RecurrentActivationKind::tanh},
                                       {RecurrentActivationKind::relu},
                                       {RecurrentActivationKind::affine, 0.8f, 0.1f},
                                       {RecurrentActivationKind::leaky_relu, 0.1f},
                                       {RecurrentActivationKind::thresholded_relu, 0.3f},
                                       {RecurrentActivationKind::scaled_tanh, 1.2f, 0.7f},
                                       {RecurrentActivationKind::hard_sigmoid, 0.2f, 0.5f},
                                       {RecurrentActivationKind::elu, 0.9f},
                                       {RecurrentActivationKind::softsign},
                                       {RecurrentActivationKind::softplus}};
  for (RecurrentCell cell : kCells) {
    const size_t slots = cell == RecurrentCell::lstm ? 3 : cell == RecurrentCell::gru ? 2 : 1;
    for (size_t rotation = 0; rotation < 11; ++rotation) {
      Options o;
      o.bias = true;
      o.linear_before_reset = cell == RecurrentCell::gru && rotation % 2 == 1;
      for (size_t i = 0; i < 2 * slots; ++i) o.activations.push_back(kinds[(rotation + i) % 11]);
      check({cell, RecurrentDirection::bidirectional, uint32_t(rotation % 2), 4, 2, 5, 5}, o, uint32_t(10 + rotation));
    }
  }
  Options o;
  o.bias = o.lengths = true;
  o.activations = {kinds[7], kinds[6], kinds[10], kinds[8], kinds[4], kinds[9]};
  check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 0, 4, 2, 5, 5, f16}, o, 30);
}

TEST_P(RecurrentOnEveryBackend, BatchAboveEightAndOddHiddenSizes) {
  Options o;
  o.bias = o.lengths = o.initial = true;
  check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 0, 4, 11, 6, 13}, o, 40);
  check({RecurrentCell::gru, RecurrentDirection::reverse, 1, 4, 9, 6, 17}, o, 41);
  check({RecurrentCell::rnn, RecurrentDirection::forward, 0, 4, 17, 6, 33}, o, 42);
  o.r_offset = 8;
  check({RecurrentCell::lstm, RecurrentDirection::forward, 1, 4, 12, 6, 36}, o, 44);
  o.r_offset = 5;
  o.linear_before_reset = true;
  check({RecurrentCell::gru, RecurrentDirection::bidirectional, 0, 3, 10, 5, 11, f16}, o, 43);
}

TEST_P(RecurrentOnEveryBackend, VectorAndScalarLoadsGiveTheSameBits) {
  // Hidden a multiple of 4 and R on a 4-element boundary take the vector loads; R one element
  // further takes the scalar ones, in the same order: the outputs are identical.
  for (DataType t : {f32, f16})
    for (RecurrentCell cell : kCells) {
      Options o;
      o.bias = o.lengths = o.initial = true;
      const Layer l{cell, RecurrentDirection::bidirectional, 0, 4, 9, 6, 40, t};
      o.r_offset = 4;
      const auto vector = check(l, o, 90);
      o.r_offset = 5;
      const auto scalar = check(l, o, 90);
      for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(same_bits(vector[k], scalar[k])) << "output " << k;
    }
}

TEST_F(RecurrentTest, SequenceAndPassesGiveTheSameBits) {
  // The one-dispatch schedule runs the step code of the passes: every cell (both GRU cells), both
  // types, one and several batch rows, the default and other activations give the same bits.
  uint32_t seed = 95;
  for (RecurrentCell cell : kCells)
    for (bool lbr : {false, true}) {
      if (lbr && cell != RecurrentCell::gru) continue;
      const size_t slots = cell == RecurrentCell::lstm ? 3 : cell == RecurrentCell::gru ? 2 : 1;
      // float32 with one batch row and the default activations; float16 with nine and others.
      for (const auto& [t, batch] : {std::pair{f32, uint64_t(1)}, std::pair{f16, uint64_t(9)}}) {
        Options o;
        o.bias = o.lengths = o.initial = true;
        o.clip = 2.5f;
        o.linear_before_reset = lbr;
        o.r_offset = 4;
        if (batch == 9) o.activations.assign(kOtherActivations, kOtherActivations + 2 * slots);
        const Layer l{cell, RecurrentDirection::bidirectional, batch == 1 ? 0u : 1u, 5, batch, 6, 36, t};
        o.schedule = RecurrentSchedule::passes;
        const auto passes = check(l, o, seed);
        o.schedule = RecurrentSchedule::sequence;
        const auto sequence = check(l, o, seed++);
        for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(same_bits(passes[k], sequence[k])) << "output " << k;
      }
    }
}

// ONEGPU_RNN_PERSISTENT_WORKGROUPS for the scope (empty: unset).
struct PersistentWorkgroups {
  explicit PersistentWorkgroups(const std::string& n) {
    if (n.empty()) unsetenv("ONEGPU_RNN_PERSISTENT_WORKGROUPS");
    else setenv("ONEGPU_RNN_PERSISTENT_WORKGROUPS", n.c_str(), 1);
  }
  ~PersistentWorkgroups() { unsetenv("ONEGPU_RNN_PERSISTENT_WORKGROUPS"); }
};

TEST_F(RecurrentTest, PersistentAgainstReference) {
  // The persistent schedule (its matrix product in fast float16 where the device has one, float32
  // lanes otherwise): every direction and layout, one, nine and seventeen batch rows (two blocks of
  // 16), hidden sizes that do not divide a role of 8 units, the options and other activations.
  uint32_t seed = 300;
  for (DataType t : {f16, f32}) {
    Options o;
    o.schedule = RecurrentSchedule::persistent;
    o.bias = o.lengths = o.initial = true;
    check({RecurrentCell::lstm, RecurrentDirection::forward, 0, 5, 1, 6, 16, t}, o, seed++);
    check({RecurrentCell::lstm, RecurrentDirection::reverse, 1, 4, 9, 7, 13, t}, o, seed++);
    check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 0, 3, 17, 5, 36, t}, o, seed++);
    o.peephole = true, o.clip = 2.0f, o.r_offset = 8;
    check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 1, 4, 3, 6, 40, t}, o, seed++);
    o.peephole = false, o.clip.reset(), o.max_length = true, o.input_forget = true;
    check({RecurrentCell::lstm, RecurrentDirection::forward, 0, 6, 5, 4, 24, t}, o, seed++);
    o.max_length = o.input_forget = false;
    o.activations.assign(kOtherActivations, kOtherActivations + 6);
    check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 0, 3, 2, 5, 20, t}, o, seed++);
  }
  Options o;
  o.schedule = RecurrentSchedule::persistent;
  o.arena = true;  // the counters in the caller's scratch
  check({RecurrentCell::lstm, RecurrentDirection::forward, 0, 3, 4, 5, 16, f16}, o, seed++);
  // Other cells run as automatic would choose.
  check({RecurrentCell::gru, RecurrentDirection::forward, 0, 3, 2, 5, 16, f16}, o, seed++);
}

TEST_F(RecurrentTest, PersistentBitsDoNotDependOnWorkgroups) {
  // One workgroup running every role, two and three sharing them (those that join in time), and
  // the device's choice give the same bits; each run is also checked against the reference. (A
  // software device launches one workgroup whatever the cap.)
  for (DataType t : {f16, f32}) {
    Options o;
    o.schedule = RecurrentSchedule::persistent;
    o.bias = o.lengths = o.initial = true;
    const Layer l{RecurrentCell::lstm, RecurrentDirection::bidirectional, 0, 4, 18, 5, 28, t};
    std::vector<std::vector<float>> first;
    for (const char* n : {"1", "2", "3", ""}) {
      SCOPED_TRACE(std::string("workgroups ") + (*n ? n : "(device's choice)"));
      PersistentWorkgroups cap(n);
      const auto out = check(l, o, 320);
      if (first.empty()) first = out;
      for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(same_bits(first[k], out[k])) << "output " << k;
    }
  }
}

TEST_F(RecurrentTest, PersistentCounters) {
  // After a layer the door is closed (the high bit) on P participants, 1 <= P <= the workgroups
  // launched, and the done counter holds steps x roles. P is printed: on a GPU, whether every role
  // found a running workgroup; on a software device, whether several shared the roles.
  struct Case {
    uint64_t hidden, batch, steps;
    const char* cap;
    uint64_t launched;
  };
  // llvmpipe ends a shader's loops after 65535 iterations in all: a software device runs a small
  // layer of the scalar product (one workgroup, every role) instead of the benchmark's.
  const bool software = device().adapter().kind == AdapterKind::software;
  for (const Case& c : {Case{28, 18, 4, "3", 3}, software ? Case{64, 16, 4, "", 0} : Case{1024, 16, 8, "", 0}}) {
    PersistentWorkgroups cap(c.cap);
    RecurrentProblem pr;
    pr.cell = RecurrentCell::lstm, pr.type = f16, pr.seq = c.steps, pr.batch = c.batch, pr.input = 8;
    pr.hidden = c.hidden;
    const int64_t B = int64_t(c.batch), H = int64_t(c.hidden), S = int64_t(c.steps);
    Device& dev = device();
    Placed X = place(dev, f16, random_floats(size_t(S * B * 8), 1, -1.0f, 1.0f), 0);
    Placed W = place(dev, f16, random_floats(size_t(4 * H * 8), 2, -0.3f, 0.3f), 0);
    Placed R = place(dev, f16, random_floats(size_t(4 * H * H), 3, -0.03f, 0.03f), 0);
    Placed Y = place(dev, f16, std::vector<float>(size_t(B * H), 0.0f), 0);
    const Shape xs{S, B, 8}, ws{1, 4 * H, 8}, rs{1, 4 * H, H}, hs{1, B, H};
    RecurrentTensors ts;
    ts.x = {&X.buffer, 0, xs, {}, f16}, ts.w = {&W.buffer, 0, ws, {}, f16};
    ts.r = {&R.buffer, 0, rs, {}, f16}, ts.y_h = {&Y.buffer, 0, hs, {}, f16};
    Recurrent family(dev, f16, {.schedule = RecurrentSchedule::persistent});
    const uint64_t length = Recurrent::state_length(pr);
    Buffer<float> state = dev.create_buffer<float>(length);
    Buffer<float> xw = dev.create_buffer<float>(Recurrent::xw_length(pr));
    auto enc = dev.begin_commands();
    family.encode(enc, pr, ts, {&xw, 0, &state, 0});
    dev.submit(enc);
    dev.wait_idle();
    std::vector<float> words(length);
    state.read(std::span(words));
    uint32_t door, participants, done;
    std::memcpy(&door, &words[length - 3], 4);
    std::memcpy(&participants, &words[length - 2], 4);
    std::memcpy(&done, &words[length - 1], 4);
    const uint64_t roles = (c.hidden + 7) / 8;
    // A software device launches one workgroup whatever the cap.
    const uint64_t launched = software ? 1 : (c.launched ? c.launched : roles);
    std::printf("persistent hidden %llu: %u of %llu workgroups joined (%s)\n", (unsigned long long)c.hidden,
                participants, (unsigned long long)launched, family.variant(pr).c_str());
    EXPECT_NE(door & 0x80000000u, 0u);
    EXPECT_GE(participants, 1u);
    EXPECT_LE(participants, launched);
    EXPECT_EQ(door & 0x7fffffffu, launched);  // every launched workgroup knocked, joined or not
    EXPECT_EQ(done, c.steps * roles);
  }
}

TEST_F(RecurrentTest, PersistentLargeLayer) {
  // The benchmark's layer shape at 64 steps (the reference takes a while): ONEGPU_RNN_FULL=1.
  if (!full_run()) GTEST_SKIP() << "ONEGPU_RNN_FULL=1 runs it";
  Options o;
  o.bias = true;  // automatic: persistent on a device with the matrix product
  check({RecurrentCell::lstm, RecurrentDirection::forward, 0, 64, 16, 1024, 1024, f16}, o, 330);
}

TEST_P(RecurrentOnEveryBackend, CallerScratchInOneArena) {
  Options o;
  o.bias = o.initial = o.arena = true;
  if (!caps().aliased_writable_bindings) {
    // The steps read the projection scratch and write the state scratch: one buffer is refused
    // before anything is recorded where writable bindings may not alias.
    const Layer l{RecurrentCell::lstm, RecurrentDirection::forward, 0, 4, 3, 5, 8};
    RecurrentProblem pr;
    pr.cell = l.cell, pr.seq = l.seq, pr.batch = l.batch, pr.input = l.input, pr.hidden = l.hidden;
    const uint64_t xl = Recurrent::xw_length(pr), sl = Recurrent::state_length(pr);
    Device& dev = device();
    auto x = dev.create_buffer<float>(4 * 3 * 5), w = dev.create_buffer<float>(32 * 5), r = dev.create_buffer<float>(32 * 8);
    auto yh = dev.create_buffer<float>(3 * 8), arena = dev.create_buffer<float>(xl + sl + 8);
    const Shape xs{4, 3, 5}, ws{1, 32, 5}, rs{1, 32, 8}, hs{1, 3, 8};
    RecurrentTensors ts;
    ts.x = {&x, 0, xs, {}, f32}, ts.w = {&w, 0, ws, {}, f32}, ts.r = {&r, 0, rs, {}, f32}, ts.y_h = {&yh, 0, hs, {}, f32};
    Recurrent family(dev, f32);
    auto enc = dev.begin_commands();
    EXPECT_THROW(family.encode(enc, pr, ts, {&arena, 3, &arena, xl + 8}), UnsupportedError);
    EXPECT_EQ(enc.dispatch_count(), 0u);
    dev.submit(enc);
    // Apart, the caller's scratch runs.
    o.arena = false, o.scratch_apart = true;
    check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 1, 4, 3, 5, 6}, o, 50);
    o.r_offset = 4;
    check({RecurrentCell::gru, RecurrentDirection::reverse, 1, 4, 3, 5, 8}, o, 52);
    return;
  }
  check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 1, 4, 3, 5, 6}, o, 50);
  check({RecurrentCell::gru, RecurrentDirection::forward, 0, 4, 3, 5, 6, f16}, o, 51);
  o.r_offset = 4;  // vector loads from the arena's state region
  check({RecurrentCell::gru, RecurrentDirection::reverse, 1, 4, 3, 5, 8}, o, 52);
  o.schedule = RecurrentSchedule::sequence;  // the counters in the caller's scratch
  check({RecurrentCell::lstm, RecurrentDirection::forward, 0, 4, 3, 5, 8}, o, 53);
}

TEST_P(RecurrentOnEveryBackend, RecognizerShapes) {
  // Bidirectional LSTM of a text-line recognizer: lavapipe runs one shape in each mode, the full
  // set (sequence 80 and 48, batch 1 and 8, input 256 and 192, hidden 256 and 96) with ONEGPU_RNN_FULL=1.
  Options o;
  o.bias = o.lengths = true;
  o.r_offset = 4;
  check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 0, 48, 8, 192, 96}, o, 60);
  o.mode = KernelMode::deterministic;
  o.r_offset = 8;
  check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 0, 48, 1, 192, 96, f16}, o, 61);
  if (!full_run()) return;
  for (uint64_t seq : {80u, 48u})
    for (uint64_t batch : {1u, 8u})
      for (auto [input, hidden] : {std::pair<uint64_t, uint64_t>{256, 256}, {192, 96}})
        for (DataType t : {f32, f16})
          for (KernelMode mode : {KernelMode::fast, KernelMode::deterministic}) {
            o.mode = mode;
            check({RecurrentCell::lstm, RecurrentDirection::bidirectional, 0, seq, batch, input, hidden, t}, o, 62);
          }
}

TEST_P(RecurrentOnEveryBackend, EmptySequenceAndBatch) {
  // Seq 0: y is empty, y_h and y_c are the initial states; batch 0 records nothing.
  Device& dev = device();
  for (DataType t : {f32, f16}) {
    const auto h0 = stored(t, random_floats(6, 70)), c0 = stored(t, random_floats(6, 71));
    Placed X = place(dev, t, {0.5f}, 1), W = place(dev, t, random_floats(24 * 3, 72), 1);
    Placed R = place(dev, t, random_floats(24 * 6, 73), 1), H0 = place(dev, t, h0, 1), C0 = place(dev, t, c0, 3);
    Placed YH = place(dev, t, std::vector<float>(6, NAN), 1), YC = place(dev, t, std::vector<float>(6, NAN), 1);
    Shape xs{0, 1, 3}, ws{1, 24, 3}, rs{1, 24, 6}, hs{1, 1, 6}, ys{0, 1, 1, 6};
    RecurrentProblem pr{.cell = RecurrentCell::lstm, .seq = 0, .batch = 1, .input = 3, .hidden = 6, .type = t};
    RecurrentTensors ts;
    ts.x = {&X.buffer, 1, xs, {}, t}, ts.w = {&W.buffer, 1, ws, {}, t}, ts.r = {&R.buffer, 1, rs, {}, t};
    ts.initial_h = {&H0.buffer, 1, hs, {}, t}, ts.initial_c = {&C0.buffer, 3, hs, {}, t};
    ts.y_h = {&YH.buffer, 1, hs, {}, t}, ts.y_c = {&YC.buffer, 1, hs, {}, t};
    Recurrent family(dev, t);
    auto enc = dev.begin_commands();
    family.encode(enc, pr, ts);
    dev.submit(enc);
    dev.wait_idle();
    EXPECT_EQ(take(YH, "y_h"), h0);
    EXPECT_EQ(take(YC, "y_c"), c0);
    // Batch 0.
    Shape xb{2, 0, 3}, hb{1, 0, 6};
    RecurrentProblem pb = pr;
    pb.seq = 2, pb.batch = 0;
    RecurrentTensors tb;
    tb.x = {&X.buffer, 1, xb, {}, t}, tb.w = ts.w, tb.r = ts.r, tb.y_h = {&YH.buffer, 1, hb, {}, t};
    auto e2 = dev.begin_commands();
    family.encode(e2, pb, tb);
    EXPECT_EQ(e2.dispatch_count(), 0u);
  }
}

TEST_P(RecurrentOnEveryBackend, OneDispatchSchedulesWhereTheirKernelsRun) {
  // Without SPIR-V kernels (WebGPU) the one-dispatch schedules have no kernel: asked for, the
  // family refuses; automatic runs the passes.
  const RecurrentProblem pr{.cell = RecurrentCell::lstm, .seq = 20, .batch = 2, .input = 3, .hidden = 8};
  if (caps().spirv_kernels) {
    EXPECT_NO_THROW(Recurrent(device(), f32, {.schedule = RecurrentSchedule::sequence}));
    EXPECT_NO_THROW(Recurrent(device(), f32, {.schedule = RecurrentSchedule::persistent}));
    return;
  }
  for (RecurrentSchedule s : {RecurrentSchedule::sequence, RecurrentSchedule::persistent}) {
    try {
      (void)Recurrent(device(), f32, {.schedule = s});
      ADD_FAILURE() << "a one-dispatch schedule was accepted";
    } catch (const UnsupportedError& e) {
      EXPECT_EQ(e.capability(), "spirv_kernels") << e.what();
    }
  }
  for (DataType t : {f32, f16}) {
    RecurrentProblem p = pr;
    p.type = t;
    EXPECT_EQ(Recurrent(device(), t).variant(p).rfind("step.lstm.", 0), 0u) << Recurrent(device(), t).variant(p);
  }
}

TEST_F(RecurrentTest, ErrorsBeforeRecording) {
  Device& dev = device();
  Recurrent family(dev, f32);
  auto x = dev.create_buffer<float>(64), w = dev.create_buffer<float>(256), r = dev.create_buffer<float>(256);
  auto y = dev.create_buffer<float>(256), small = dev.create_buffer<float>(4);
  Shape xs{2, 2, 3}, ws{1, 24, 3}, rs{1, 24, 6}, hs{1, 2, 6}, ys{2, 1, 2, 6}, bad{2, 2, 4};
  RecurrentProblem pr{.cell = RecurrentCell::lstm, .seq = 2, .batch = 2, .input = 3, .hidden = 6};
  RecurrentTensors ts;
  ts.x = {&x, 0, xs, {}, f32}, ts.w = {&w, 0, ws, {}, f32}, ts.r = {&r, 0, rs, {}, f32};
  ts.y = {&y, 0, ys, {}, f32};
  auto enc = dev.begin_commands();
  auto message = [&](const RecurrentProblem& p, const RecurrentTensors& t, RecurrentScratch s = {}) {
    return shape_error_message([&] { family.encode(enc, p, t, s); });
  };
  RecurrentTensors t1 = ts;
  t1.x.shape = bad;
  EXPECT_NE(message(pr, t1).find("LSTM: x"), std::string::npos);
  RecurrentTensors t2 = ts;
  t2.y = {&x, 0, ys, {}, f32};  // y overlaps x
  EXPECT_NE(message(pr, t2).find("LSTM: y: overlaps x"), std::string::npos);
  RecurrentTensors t3 = ts;
  t3.y_h = {&small, 0, hs, {}, f32};  // outside its buffer
  EXPECT_NE(message(pr, t3).find("LSTM: y_h"), std::string::npos);
  RecurrentProblem g = pr;
  g.cell = RecurrentCell::gru;
  g.input_forget = true;
  EXPECT_NE(message(g, ts).find("GRU: input_forget"), std::string::npos);
  RecurrentProblem h = pr;
  h.type = f16;
  EXPECT_NE(message(h, ts).find("LSTM: type"), std::string::npos);
  EXPECT_NE(message(pr, ts, {.xw = &small}).find("LSTM: xw_scratch"), std::string::npos);
  EXPECT_NE(message(pr, ts, {.state = &small}).find("LSTM: state_scratch"), std::string::npos);
  RecurrentProblem rnn = pr;
  rnn.cell = RecurrentCell::rnn;
  RecurrentTensors t4 = ts;
  t4.w.shape = ws;  // an LSTM's weights for an RNN
  EXPECT_NE(message(rnn, t4).find("RNN: w"), std::string::npos);
  EXPECT_EQ(enc.dispatch_count(), 0u);
  EXPECT_THROW(Recurrent(dev, DataType::int32), UnsupportedError);
}

TEST_P(RecurrentOnEveryBackend, BindGroupsAreCachedWithTheProjection) {
  // A second call with the same buffers builds no bind group (the projection's Gemm included);
  // release_bindings() drops them, and the next call builds them again.
  Device& dev = device();
  Recurrent family(dev, f32);
  auto x = dev.create_buffer(random_floats(2 * 2 * 3, 80)), w = dev.create_buffer(random_floats(48, 81));
  auto r = dev.create_buffer(random_floats(96, 82)), y = dev.create_buffer<float>(32), yh = dev.create_buffer<float>(8);
  Shape xs{2, 2, 3}, ws{1, 12, 3}, rs{1, 12, 4}, ys{2, 1, 2, 4}, hs{1, 2, 4};
  const RecurrentProblem pr{.cell = RecurrentCell::gru, .seq = 2, .batch = 2, .input = 3, .hidden = 4};
  RecurrentTensors ts;
  ts.x = {&x, 0, xs}, ts.w = {&w, 0, ws}, ts.r = {&r, 0, rs}, ts.y = {&y, 0, ys}, ts.y_h = {&yh, 0, hs};
  auto run = [&] {
    auto enc = dev.begin_commands();
    family.encode(enc, pr, ts);
    dev.submit(enc);
    dev.wait_idle();
  };
  run();
  const uint64_t first = family.bind_groups_created();
  // Projection, set-up, the step kernels (two passes, or one dispatch), two outputs.
  const bool two = family.variant(pr).find('+') != std::string::npos;
  EXPECT_GE(first, two ? 6u : 5u);
  run();
  EXPECT_EQ(family.bind_groups_created(), first);
  family.release_bindings();
  run();
  EXPECT_EQ(family.bind_groups_created(), 2 * first);
}

}  // namespace
}  // namespace onegpu::testing
