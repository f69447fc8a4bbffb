// Recurrent plans: checks in overflow-checked 64-bit arithmetic, sizes, variants, push constants.
#include "kernels/recurrent/recurrent_plan.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "onegpu/errors.h"

namespace onegpu::kernels::recurrent {

static_assert(uint32_t(RecurrentActivationKind::sigmoid) == OG_RNN_ACT_SIGMOID);
static_assert(uint32_t(RecurrentActivationKind::tanh) == OG_RNN_ACT_TANH);
static_assert(uint32_t(RecurrentActivationKind::relu) == OG_RNN_ACT_RELU);
static_assert(uint32_t(RecurrentActivationKind::affine) == OG_RNN_ACT_AFFINE);
static_assert(uint32_t(RecurrentActivationKind::leaky_relu) == OG_RNN_ACT_LEAKY_RELU);
static_assert(uint32_t(RecurrentActivationKind::thresholded_relu) == OG_RNN_ACT_THRESHOLDED_RELU);
static_assert(uint32_t(RecurrentActivationKind::scaled_tanh) == OG_RNN_ACT_SCALED_TANH);
static_assert(uint32_t(RecurrentActivationKind::hard_sigmoid) == OG_RNN_ACT_HARD_SIGMOID);
static_assert(uint32_t(RecurrentActivationKind::elu) == OG_RNN_ACT_ELU);
static_assert(uint32_t(RecurrentActivationKind::softsign) == OG_RNN_ACT_SOFTSIGN);
static_assert(uint32_t(RecurrentActivationKind::softplus) == OG_RNN_ACT_SOFTPLUS);

namespace {

struct Checker {
  const char* op;
  [[noreturn]] void fail(const char* argument, const std::string& detail) const {
    throw KernelShapeError(op, argument, detail);
  }
  uint64_t mul(const char* argument, uint64_t a, uint64_t b) const {
    uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) fail(argument, "the size overflows 64 bits");
    return r;
  }
  uint64_t add(const char* argument, uint64_t a, uint64_t b) const {
    uint64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) fail(argument, "the size overflows 64 bits");
    return r;
  }
  void below(const char* argument, uint64_t v, const char* what) const {
    if (v >= kMaxElements) fail(argument, std::string(what) + " " + std::to_string(v) + " is not below 2^31");
  }
};

std::string shape_text(std::span<const int64_t> s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

// Checks a present tensor's type, shape (exactly `expected`), density and offset + count; returns
// its element count.
uint64_t check_tensor(const Checker& c, const char* argument, const Operand& t, DataType type,
                      std::initializer_list<uint64_t> expected) {
  if (t.type != type)
    c.fail(argument, "type " + std::string(data_type_name(t.type)) + " is not " + std::string(data_type_name(type)));
  bool same = t.shape.size() == expected.size();
  uint64_t count = 1;
  size_t i = 0;
  for (uint64_t e : expected) {
    if (same && (t.shape[i] < 0 || uint64_t(t.shape[i]) != e)) same = false;
    count = c.mul(argument, count, e);
    ++i;
  }
  if (!same) {
    std::string want = "[";
    i = 0;
    for (uint64_t e : expected) want += (i++ ? ", " : "") + std::to_string(e);
    c.fail(argument, "shape " + shape_text(t.shape) + " is not " + want + "]");
  }
  if (!t.strides.empty()) {
    int64_t stride = 1;
    for (size_t k = t.shape.size(); k-- > 0;) {
      if (t.shape[k] != 1 && t.strides[k] != stride) c.fail(argument, "the tensor is not dense");
      stride *= t.shape[k];
    }
  }
  c.below(argument, c.add(argument, t.offset, count), "offset + count");
  return count;
}

}  // namespace

Operands operands_of(const RecurrentTensors& t) {
  Operands o;
  o.x = operand_of(t.x), o.w = operand_of(t.w), o.r = operand_of(t.r), o.b = operand_of(t.b);
  o.sequence_lens = operand_of(t.sequence_lens), o.initial_h = operand_of(t.initial_h);
  o.initial_c = operand_of(t.initial_c), o.p = operand_of(t.p);
  o.y = operand_of(t.y), o.y_h = operand_of(t.y_h), o.y_c = operand_of(t.y_c);
  o.has_b = t.b.buffer != nullptr, o.has_lens = t.sequence_lens.buffer != nullptr;
  o.has_initial_h = t.initial_h.buffer != nullptr, o.has_initial_c = t.initial_c.buffer != nullptr;
  o.has_p = t.p.buffer != nullptr, o.has_y = t.y.buffer != nullptr, o.has_y_h = t.y_h.buffer != nullptr;
  o.has_y_c = t.y_c.buffer != nullptr;
  return o;
}

const char* operation_name(RecurrentCell cell) {
  return cell == RecurrentCell::lstm ? "LSTM" : cell == RecurrentCell::gru ? "GRU" : "RNN";
}
uint32_t gates(RecurrentCell cell) { return cell == RecurrentCell::lstm ? 4 : cell == RecurrentCell::gru ? 3 : 1; }
uint32_t activation_slots(RecurrentCell cell) {
  return cell == RecurrentCell::lstm ? 3 : cell == RecurrentCell::gru ? 2 : 1;
}
uint32_t directions(RecurrentDirection direction) { return direction == RecurrentDirection::bidirectional ? 2 : 1; }

Sizes sizes(const RecurrentProblem& pr) {
  const Checker c{operation_name(pr.cell)};
  if (pr.type != DataType::float32 && pr.type != DataType::float16)
    throw UnsupportedError(std::string(c.op) + " element type", "float32 or float16",
                           std::string(data_type_name(pr.type)));
  if (pr.cell != RecurrentCell::lstm && pr.input_forget) c.fail("input_forget", "is an LSTM option");
  if (pr.cell != RecurrentCell::gru && pr.linear_before_reset) c.fail("linear_before_reset", "is a GRU option");
  if (pr.layout > 1) c.fail("layout", std::to_string(pr.layout) + " is not 0 or 1");
  if (pr.clip && !(*pr.clip > 0.0f)) c.fail("clip", std::to_string(*pr.clip) + " is not positive");
  Sizes s;
  s.dirs = directions(pr.direction);
  s.gates = gates(pr.cell);
  if (!pr.activations.empty()) {
    const uint64_t want = activation_slots(pr.cell) * s.dirs;
    if (pr.activations.size() != want)
      c.fail("activations", std::to_string(pr.activations.size()) + " functions given, " + std::to_string(want) +
                                " expected (" + std::to_string(activation_slots(pr.cell)) + " per direction)");
    for (const RecurrentActivation& a : pr.activations)
      if (uint32_t(a.kind) >= OG_RNN_ACT_COUNT)
        c.fail("activations", "unknown function " + std::to_string(uint32_t(a.kind)));
  }
  c.below("seq", pr.seq, "seq");
  c.below("batch", pr.batch, "batch");
  c.below("input", pr.input, "input");
  c.below("hidden", pr.hidden, "hidden");
  if (pr.input == 0) c.fail("input", "is 0");
  if (pr.max_length && *pr.max_length > pr.seq)
    c.fail("max_length", std::to_string(*pr.max_length) + " is more than seq = " + std::to_string(pr.seq));
  s.steps = pr.max_length.value_or(pr.seq);
  s.xw_rows = c.mul("x", pr.layout == 0 ? s.steps : pr.seq, pr.batch);
  s.state_units = c.mul("hidden", c.mul("hidden", s.dirs, pr.batch), pr.hidden);
  s.xw_length = c.mul("x", c.mul("x", c.mul("x", s.dirs, s.xw_rows), s.gates), pr.hidden);
  const uint64_t extra = pr.cell == RecurrentCell::lstm                               ? 1
                         : (pr.cell == RecurrentCell::gru && !pr.linear_before_reset) ? 2
                                                                                      : 0;
  s.y_base = c.mul("state", 2 + extra, s.state_units);
  s.sync_base = c.add("state", s.y_base, c.mul("state", s.steps, s.state_units));
  s.state_length = c.add("state", s.sync_base, 3);
  c.below("xw_scratch", s.xw_length, "projection scratch of");
  c.below("state_scratch", s.state_length, "state scratch of");
  return s;
}

bool default_activations(const RecurrentProblem& pr) {
  const uint32_t slots = activation_slots(pr.cell);
  for (size_t i = 0; i < pr.activations.size(); ++i) {
    const uint32_t slot = uint32_t(i % slots);
    const RecurrentActivationKind want =
        pr.cell == RecurrentCell::rnn || slot > 0 ? RecurrentActivationKind::tanh : RecurrentActivationKind::sigmoid;
    if (pr.activations[i].kind != want) return false;
  }
  return true;
}

uint32_t rows_per_workgroup(uint64_t batch) { return batch <= 1 ? 1 : 8; }

uint64_t step_workgroups(const RecurrentProblem& pr, uint32_t pass_gates) {
  const uint64_t units = OG_RNN_ROWS_PER_GROUP / pass_gates, rows = rows_per_workgroup(pr.batch);
  return directions(pr.direction) * ((pr.hidden + units - 1) / units) * ((pr.batch + rows - 1) / rows);
}

namespace {
constexpr const char* kStepCells[] = {"lstm", "rnn", "gru.linear", "gru.gates", "gru.candidate"};
// Every step variant's name, built once (a warm encode allocates nothing).
std::string_view step_name(size_t cell, bool f16, bool rows8, bool all) {
  static const std::array<std::string, 40> names = [] {
    std::array<std::string, 40> n;
    for (size_t i = 0; i < 40; ++i)
      n[i] = std::string("step.") + kStepCells[i / 8] + ((i & 4) ? ".f16" : ".f32") + ((i & 2) ? ".rows8" : ".rows1") +
             ((i & 1) ? ".all" : ".default");
    return n;
  }();
  return names[cell * 8 + (f16 ? 4 : 0) + (rows8 ? 2 : 0) + (all ? 1 : 0)];
}
}  // namespace

StepVariants step_variants(const RecurrentProblem& pr) {
  const bool f16 = pr.type == DataType::float16, rows8 = rows_per_workgroup(pr.batch) == 8;
  const bool all = !default_activations(pr);
  switch (pr.cell) {
    case RecurrentCell::lstm:
      return {step_name(0, f16, rows8, all), {}};
    case RecurrentCell::rnn:
      return {step_name(1, f16, rows8, all), {}};
    case RecurrentCell::gru:
      if (pr.linear_before_reset) return {step_name(2, f16, rows8, all), {}};
      return {step_name(3, f16, rows8, all), step_name(4, f16, rows8, all)};
  }
  return {};
}

bool runs_as_sequence(const RecurrentProblem& pr, RecurrentSchedule requested, bool software_device) {
  if (requested == RecurrentSchedule::passes) return false;
  // The counters are 32-bit: a layer of 2^31 work items or more runs as passes.
  const uint64_t steps = pr.max_length.value_or(pr.seq);
  if (steps != 0 && sequence_items_per_step(pr) >= kMaxElements / steps) return false;
  if (requested == RecurrentSchedule::sequence) return true;
  if (software_device) return false;
  // In double: exact below the bound, and a product far above it stays far above it.
  const double macs = double(directions(pr.direction)) * double(pr.batch) * double(gates(pr.cell)) * double(pr.hidden) *
                      double(pr.hidden);
  return macs < double(kSequenceMaxStepMacs);
}

std::string_view sequence_variant(const RecurrentProblem& pr) {
  constexpr const char* kCells[] = {"lstm", "rnn", "gru.linear", "gru"};
  static const std::array<std::string, 32> names = [&] {
    std::array<std::string, 32> n;
    for (size_t i = 0; i < 32; ++i)
      n[i] = std::string("sequence.") + kCells[i / 8] + ((i & 4) ? ".f16" : ".f32") + ((i & 2) ? ".rows8" : ".rows1") +
             ((i & 1) ? ".all" : ".default");
    return n;
  }();
  const size_t cell = pr.cell == RecurrentCell::lstm  ? 0
                      : pr.cell == RecurrentCell::rnn ? 1
                      : pr.linear_before_reset        ? 2
                                                      : 3;
  return names[cell * 8 + (pr.type == DataType::float16 ? 4 : 0) + (rows_per_workgroup(pr.batch) == 8 ? 2 : 0) +
               (default_activations(pr) ? 0 : 1)];
}

uint64_t sequence_items_per_step(const RecurrentProblem& pr) {
  if (pr.cell == RecurrentCell::gru && !pr.linear_before_reset) return step_workgroups(pr, 2) + step_workgroups(pr, 1);
  return step_workgroups(pr, gates(pr.cell));
}

uint64_t sequence_workgroups(const RecurrentProblem& pr, bool software_device) {
  if (software_device) return 1;
  const uint64_t first = pr.cell == RecurrentCell::gru && !pr.linear_before_reset ? step_workgroups(pr, 2)
                                                                                  : step_workgroups(pr, gates(pr.cell));
  return std::max<uint64_t>(1, std::min(sequence_items_per_step(pr) + first, kMaxSequenceWorkgroups));
}

bool persistent_fits(const RecurrentProblem& pr) {
  return pr.cell == RecurrentCell::lstm && pr.hidden <= OG_RNN_PERSISTENT_MAX_HIDDEN;
}

bool runs_persistent(const RecurrentProblem& pr, RecurrentSchedule requested, bool software_device,
                     bool matrix_product) {
  if (!persistent_fits(pr)) return false;
  // The done counter reaches steps x roles: it stays below 2^31.
  const uint64_t steps = pr.max_length.value_or(pr.seq);
  if (steps != 0 && persistent_roles(pr) >= kMaxElements / steps) return false;
  if (software_device && persistent_software_iterations(pr) > double(kSoftwareLoopIterations)) return false;
  if (requested == RecurrentSchedule::persistent) return true;
  if (requested != RecurrentSchedule::automatic || software_device || !matrix_product ||
      pr.type != DataType::float16 || !default_activations(pr))
    return false;
  const double macs = double(directions(pr.direction)) * double(pr.batch) * double(gates(pr.cell)) * double(pr.hidden) *
                      double(pr.hidden);
  return steps >= kPersistentMinSteps || macs >= double(kPersistentMinStepMacs);
}

double persistent_software_iterations(const RecurrentProblem& pr) {
  // One workgroup runs every role: per step the step loop, the wait, and per role the role loop,
  // then per block of 16 batch rows the block loop and the scalar product's k loop for both
  // 16-row halves of the role's 32 rows of R (one spare iteration each); the door's polls once.
  // In double: exact far past the bound, and a count far above it stays far above it.
  const double steps = double(pr.max_length.value_or(pr.seq)), blocks = std::ceil(double(pr.batch) / 16.0);
  const double per_role = 2.0 + blocks * (2.0 + 2.0 * double(pr.hidden));
  return double(OG_RNN_PERSISTENT_DOOR_POLLS) + 1.0 + steps * (2.0 + double(persistent_roles(pr)) * per_role);
}

std::string_view persistent_variant(const RecurrentProblem& pr, bool matrix_product, bool wide) {
  constexpr const char* kProducts[] = {".scalar", ".coopmat", ".coopmat16"};
  static const std::array<std::string, 12> names = [&] {
    std::array<std::string, 12> n;
    for (size_t i = 0; i < 12; ++i)
      n[i] = std::string("persistent.lstm") + ((i / 6) ? ".f16" : ".f32") + kProducts[(i / 2) % 3] +
             ((i & 1) ? ".all" : ".default");
    return n;
  }();
  const bool f16 = pr.type == DataType::float16;
  const size_t product = f16 && matrix_product && default_activations(pr) ? (wide ? 2 : 1) : 0;
  return names[(f16 ? 6 : 0) + product * 2 + (default_activations(pr) ? 0 : 1)];
}

uint64_t persistent_roles(const RecurrentProblem& pr) {
  return directions(pr.direction) * ((pr.hidden + OG_RNN_PERSISTENT_UNITS - 1) / OG_RNN_PERSISTENT_UNITS);
}

bool persistent_wide(const RecurrentProblem& pr, uint32_t forced_subgroups) {
  if (forced_subgroups != 0) return forced_subgroups == 16;
  return pr.hidden >= kPersistentWideHidden;
}

uint64_t persistent_workgroups(const RecurrentProblem& pr, bool software_device, uint64_t cap) {
  uint64_t n = persistent_roles(pr);
  if (cap != 0) n = std::min(n, cap);
  if (software_device) n = std::min(n, kPersistentSoftwareWorkgroups);
  return std::max<uint64_t>(n, 1);
}

Plan plan(const RecurrentProblem& pr, const Operands& t, uint64_t xw_offset, uint64_t state_offset,
          RecurrentSchedule schedule, bool software_device, bool matrix_product, uint64_t workgroup_cap,
          bool wide) {
  const Checker c{operation_name(pr.cell)};
  Plan pl;
  pl.sizes = sizes(pr);
  const Sizes& s = pl.sizes;
  const bool lstm = pr.cell == RecurrentCell::lstm;
  if (!lstm && t.has_p) c.fail("p", "peepholes are an LSTM input");
  if (!lstm && t.has_initial_c) c.fail("initial_c", "is an LSTM input");
  if (!lstm && t.has_y_c) c.fail("y_c", "is an LSTM output");
  const DataType type = pr.type;
  const uint64_t D = s.dirs, B = pr.batch, H = pr.hidden, G = s.gates;
  const bool l1 = pr.layout == 1;
  pl.x_count = check_tensor(
      c, "x", t.x, type,
      l1 ? std::initializer_list<uint64_t>{B, pr.seq, pr.input} : std::initializer_list<uint64_t>{pr.seq, B, pr.input});
  pl.w_count = check_tensor(c, "w", t.w, type, {D, c.mul("w", G, H), pr.input});
  pl.r_count = check_tensor(c, "r", t.r, type, {D, c.mul("r", G, H), H});
  if (t.has_b) pl.b_count = check_tensor(c, "b", t.b, type, {D, c.mul("b", 2 * G, H)});
  if (t.has_lens) pl.lens_count = check_tensor(c, "sequence_lens", t.sequence_lens, DataType::int32, {B});
  if (pr.max_length && !t.has_lens) c.fail("max_length", "is a bound on sequence_lens, which is absent");
  const auto state_shape = [&](const char* name, const Operand& o) {
    return check_tensor(c, name, o, type,
                        l1 ? std::initializer_list<uint64_t>{B, D, H} : std::initializer_list<uint64_t>{D, B, H});
  };
  if (t.has_initial_h) pl.state_count = state_shape("initial_h", t.initial_h);
  if (t.has_initial_c) state_shape("initial_c", t.initial_c);
  if (t.has_p) pl.p_count = check_tensor(c, "p", t.p, type, {D, c.mul("p", 3, H)});
  if (t.has_y)
    pl.y_count = check_tensor(
        c, "y", t.y, type,
        l1 ? std::initializer_list<uint64_t>{B, pr.seq, D, H} : std::initializer_list<uint64_t>{pr.seq, D, B, H});
  if (t.has_y_h) pl.yh_count = state_shape("y_h", t.y_h);
  if (t.has_y_c) state_shape("y_c", t.y_c);
  c.below("xw_scratch", c.add("xw_scratch", xw_offset, s.xw_length), "projection scratch offset + length");
  c.below("state_scratch", c.add("state_scratch", state_offset, s.state_length), "state scratch offset + length");
  pl.nothing = B == 0 || H == 0;

  pl.steps = step_variants(pr);
  pl.setup = type == DataType::float16 ? "setup.f16" : "setup.f32";
  pl.output = type == DataType::float16 ? "output.f16" : "output.f32";
  if (pr.cell == RecurrentCell::gru && !pr.linear_before_reset) {
    pl.first_pass_gates = 2;
    pl.second_pass_gates = 1;
  } else {
    pl.first_pass_gates = uint32_t(G);
  }
  pl.first_workgroups = step_workgroups(pr, pl.first_pass_gates);
  pl.second_workgroups = pl.second_pass_gates ? step_workgroups(pr, pl.second_pass_gates) : 0;
  pl.setup_workgroups = (s.state_units + OG_RNN_WORKGROUP - 1) / OG_RNN_WORKGROUP;
  pl.persistent = runs_persistent(pr, schedule, software_device, matrix_product);
  if (pl.persistent) {
    pl.persistent_matrix = matrix_product && type == DataType::float16 && default_activations(pr);
    pl.persistent_kernel = persistent_variant(pr, pl.persistent_matrix, wide);
    pl.persistent_workgroups = persistent_workgroups(pr, software_device, workgroup_cap);
  }
  pl.sequence = !pl.persistent && runs_as_sequence(pr, schedule, software_device);
  if (pl.sequence) {
    pl.sequence_kernel = sequence_variant(pr);
    pl.sequence_workgroups = sequence_workgroups(pr, software_device);
  }

  RecurrentPush& p = pl.push;
  p.hidden = uint32_t(H), p.batch = uint32_t(B), p.dirs = uint32_t(D), p.seq = uint32_t(pr.seq);
  p.flags = (t.has_b ? OG_RNN_BIAS : 0u) | (t.has_p ? OG_RNN_PEEPHOLE : 0u) | (t.has_lens ? OG_RNN_LENGTHS : 0u) |
            (pr.input_forget ? OG_RNN_INPUT_FORGET : 0u) | (l1 ? OG_RNN_LAYOUT1 : 0u) |
            (pr.direction == RecurrentDirection::reverse ? OG_RNN_REVERSE : 0u) | (pr.clip ? OG_RNN_CLIP : 0u) |
            (t.has_y ? OG_RNN_WRITE_Y : 0u) | (t.has_initial_h ? OG_RNN_INITIAL_H : 0u) |
            (t.has_initial_c ? OG_RNN_INITIAL_C : 0u) | (pr.seq > 0 ? OG_RNN_ZERO_EMPTY : 0u) |
            (lstm ? OG_RNN_CELL_STATE : 0u) |
            (H % OG_RNN_CHUNK == 0 && t.r.offset % OG_RNN_CHUNK == 0 && state_offset % OG_RNN_CHUNK == 0 ? OG_RNN_VECTOR
                                                                                                         : 0u) |
            (pl.sequence || pl.persistent ? OG_RNN_SEQUENCE : 0u);
  p.xw_offset = uint32_t(xw_offset);
  p.xw_dir_stride = uint32_t(s.xw_rows * G * H);
  p.r_offset = uint32_t(t.r.offset);
  p.b_offset = t.has_b ? uint32_t(t.b.offset) : 0u;
  p.p_offset = t.has_p ? uint32_t(t.p.offset) : 0u;
  p.lens_offset = t.has_lens ? uint32_t(t.sequence_lens.offset) : 0u;
  p.state_offset = uint32_t(state_offset);
  p.y_base = uint32_t(s.y_base);
  p.sync_offset = uint32_t(state_offset + s.sync_base);
  p.clip = pr.clip.value_or(0.0f);
  const uint32_t slots = activation_slots(pr.cell);
  for (size_t i = 0; i < pr.activations.size(); ++i) {
    const size_t index = 3 * (i / slots) + i % slots;
    p.activations |= uint32_t(pr.activations[i].kind) << (4 * index);
    p.alpha[index] = pr.activations[i].alpha;
    p.beta[index] = pr.activations[i].beta;
  }
  return pl;
}

}  // namespace onegpu::kernels::recurrent
