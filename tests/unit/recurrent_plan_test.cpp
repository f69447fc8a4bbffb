// Recurrent decisions without a GPU: shape and option checks (operation and argument named),
// scratch sizes, variant choice, grids and push constants.
#include "kernels/recurrent/recurrent_plan.h"

#include <gtest/gtest.h>

#include <vector>

#include "onegpu/errors.h"

namespace onegpu::kernels::recurrent {
namespace {

using Shape = std::vector<int64_t>;
const DataType f32 = DataType::float32, f16 = DataType::float16, i32 = DataType::int32;

// The ONNX shapes of a problem's tensors, as a test edits them.
struct Args {
  RecurrentProblem pr;
  Shape x, w, r, b, lens, h0, c0, p, y, yh, yc;
  bool has_b = true, has_lens = false, has_h0 = false, has_c0 = false, has_p = false;
  bool has_y = true, has_yh = true, has_yc = false;
  DataType lens_type = i32;
  explicit Args(RecurrentCell cell, RecurrentDirection dir = RecurrentDirection::forward, uint32_t layout = 0) {
    pr.cell = cell, pr.direction = dir, pr.layout = layout;
    pr.seq = 5, pr.batch = 3, pr.input = 7, pr.hidden = 6;
    const int64_t D = dir == RecurrentDirection::bidirectional ? 2 : 1, G = gates(cell), S = 5, B = 3, I = 7, H = 6;
    x = layout ? Shape{B, S, I} : Shape{S, B, I};
    w = {D, G * H, I}, r = {D, G * H, H}, b = {D, 2 * G * H}, lens = {B};
    h0 = layout ? Shape{B, D, H} : Shape{D, B, H};
    c0 = h0, p = {D, 3 * H}, yh = h0, yc = h0;
    y = layout ? Shape{B, S, D, H} : Shape{S, D, B, H};
  }
  Plan run(RecurrentSchedule schedule = RecurrentSchedule::passes, bool software = false, bool matrix = false,
           uint64_t cap = 0) const {
    Operands o;
    const DataType t = pr.type;
    o.x = {x, {}, t, 0}, o.w = {w, {}, t, 0}, o.r = {r, {}, t, 0}, o.b = {b, {}, t, 0};
    o.sequence_lens = {lens, {}, lens_type, 0}, o.initial_h = {h0, {}, t, 0}, o.initial_c = {c0, {}, t, 0};
    o.p = {p, {}, t, 0}, o.y = {y, {}, t, 0}, o.y_h = {yh, {}, t, 0}, o.y_c = {yc, {}, t, 0};
    o.has_b = has_b, o.has_lens = has_lens, o.has_initial_h = has_h0, o.has_initial_c = has_c0, o.has_p = has_p;
    o.has_y = has_y, o.has_y_h = has_yh, o.has_y_c = has_yc;
    return plan(pr, o, 0, 0, schedule, software, matrix, cap);
  }
};

template <class F>
std::pair<std::string, std::string> error_of(F&& f) {
  try {
    f();
  } catch (const KernelShapeError& e) {
    return {e.operation(), e.argument()};
  }
  return {"", ""};
}

TEST(RecurrentPlan, ValidProblemsPlan) {
  for (auto cell : {RecurrentCell::rnn, RecurrentCell::gru, RecurrentCell::lstm})
    for (auto dir : {RecurrentDirection::forward, RecurrentDirection::reverse, RecurrentDirection::bidirectional})
      for (uint32_t layout : {0u, 1u}) {
        Args a(cell, dir, layout);
        const Plan p = a.run();
        EXPECT_EQ(p.x_count, 5u * 3 * 7);
        EXPECT_FALSE(p.nothing);
        EXPECT_EQ(p.push.dirs, dir == RecurrentDirection::bidirectional ? 2u : 1u);
        EXPECT_EQ((p.push.flags & OG_RNN_LAYOUT1) != 0, layout == 1);
        EXPECT_EQ((p.push.flags & OG_RNN_REVERSE) != 0, dir == RecurrentDirection::reverse);
      }
}

TEST(RecurrentPlan, ShapeErrorsNameOperationAndArgument) {
  using P = std::pair<std::string, std::string>;
  {
    Args a(RecurrentCell::lstm);
    a.x = {5, 3, 8};
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "x"));
  }
  {
    Args a(RecurrentCell::gru, RecurrentDirection::bidirectional);
    a.w = {1, 18, 7};  // one direction's weights for two
    EXPECT_EQ(error_of([&] { a.run(); }), P("GRU", "w"));
  }
  {
    Args a(RecurrentCell::rnn);
    a.r = {1, 6, 7};
    EXPECT_EQ(error_of([&] { a.run(); }), P("RNN", "r"));
  }
  {
    Args a(RecurrentCell::lstm, RecurrentDirection::forward, 1);
    a.has_h0 = true;
    a.h0 = {1, 3, 6};  // layout 0's shape in layout 1
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "initial_h"));
  }
  {
    Args a(RecurrentCell::lstm);
    a.has_lens = true;
    a.lens_type = DataType::int64;
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "sequence_lens"));
  }
  {
    Args a(RecurrentCell::lstm);
    a.y = {5, 1, 3, 7};
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "y"));
  }
  {
    Args a(RecurrentCell::gru);
    a.has_p = true;
    EXPECT_EQ(error_of([&] { a.run(); }), P("GRU", "p"));
  }
  {
    Args a(RecurrentCell::rnn);
    a.has_yc = true;
    EXPECT_EQ(error_of([&] { a.run(); }), P("RNN", "y_c"));
  }
  {
    Args a(RecurrentCell::gru);
    a.has_c0 = true;
    EXPECT_EQ(error_of([&] { a.run(); }), P("GRU", "initial_c"));
  }
  {
    Args a(RecurrentCell::gru);
    a.pr.input_forget = true;
    EXPECT_EQ(error_of([&] { a.run(); }), P("GRU", "input_forget"));
  }
  {
    Args a(RecurrentCell::lstm);
    a.pr.linear_before_reset = true;
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "linear_before_reset"));
  }
  {
    Args a(RecurrentCell::lstm);
    a.pr.clip = -1.0f;
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "clip"));
  }
  {
    Args a(RecurrentCell::lstm);
    a.pr.layout = 2;
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "layout"));
  }
  {
    Args a(RecurrentCell::lstm);
    const RecurrentActivation acts[2] = {};
    a.pr.activations = acts;  // LSTM needs three per direction
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "activations"));
  }
  {
    Args a(RecurrentCell::lstm);
    a.pr.max_length = 6;  // above seq
    a.has_lens = true;
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "max_length"));
    a.pr.max_length = 3;
    a.has_lens = false;
    EXPECT_EQ(error_of([&] { a.run(); }), P("LSTM", "max_length"));
  }
  {
    Args a(RecurrentCell::lstm);
    a.x = {5, 3, 7};
    a.pr.type = f16;
    Operands o;  // x float32 in a float16 layer
    o.x = {a.x, {}, f32, 0};
    o.w = {a.w, {}, f16, 0}, o.r = {a.r, {}, f16, 0};
    EXPECT_EQ(error_of([&] { plan(a.pr, o); }), P("LSTM", "x"));
  }
  {
    // Counts past 2^31 are refused before any multiplication wraps.
    Args a(RecurrentCell::lstm);
    a.pr.seq = uint64_t(1) << 20, a.pr.batch = uint64_t(1) << 12, a.pr.hidden = 1024;
    EXPECT_NE(error_of([&] { sizes(a.pr); }).first, "");
    a.pr.seq = uint64_t(1) << 40;
    EXPECT_EQ(error_of([&] { sizes(a.pr); }), P("LSTM", "seq"));
  }
  {
    Args a(RecurrentCell::lstm);
    a.pr.type = DataType::int32;
    EXPECT_THROW(sizes(a.pr), UnsupportedError);
  }
}

TEST(RecurrentPlan, ScratchSizes) {
  Args a(RecurrentCell::lstm, RecurrentDirection::bidirectional);
  Sizes s = sizes(a.pr);
  // Projection: dirs x (seq x batch) x 4 hidden; state: two h, c, then every step's h.
  EXPECT_EQ(s.xw_length, 2u * 15 * 24);
  EXPECT_EQ(s.state_units, 2u * 3 * 6);
  EXPECT_EQ(s.state_length, (3u + 5) * 36 + 3);  // + the one-dispatch schedules' three counters
  EXPECT_EQ(s.sync_base, (3u + 5) * 36);
  a.pr.max_length = 2;  // layout 0 projects only the steps that run
  s = sizes(a.pr);
  EXPECT_EQ(s.xw_length, 2u * 6 * 24);
  EXPECT_EQ(s.state_length, (3u + 2) * 36 + 3);
  a.pr.layout = 1;  // batch-major X: every step is projected
  EXPECT_EQ(sizes(a.pr).xw_length, 2u * 15 * 24);
  Args g(RecurrentCell::gru);
  EXPECT_EQ(sizes(g.pr).state_length, (4u + 5) * 18 + 3);  // z and r * h for the two-pass GRU
  g.pr.linear_before_reset = true;
  EXPECT_EQ(sizes(g.pr).state_length, (2u + 5) * 18 + 3);
  Args r(RecurrentCell::rnn);
  r.pr.seq = 0;
  EXPECT_EQ(sizes(r.pr).xw_length, 0u);
  EXPECT_EQ(sizes(r.pr).state_length, 2u * 18 + 3);
}

TEST(RecurrentPlan, VariantChoice) {
  Args a(RecurrentCell::lstm);
  a.pr.batch = 1;
  EXPECT_EQ(std::string(step_variants(a.pr).first), "step.lstm.f32.rows1.default");
  a.pr.batch = 9;
  a.pr.type = f16;
  EXPECT_EQ(std::string(step_variants(a.pr).first), "step.lstm.f16.rows8.default");
  const RecurrentActivation defaults[3] = {
      {RecurrentActivationKind::sigmoid}, {RecurrentActivationKind::tanh}, {RecurrentActivationKind::tanh}};
  a.pr.activations = defaults;  // the defaults spelled out keep the default kernel
  EXPECT_EQ(std::string(step_variants(a.pr).first), "step.lstm.f16.rows8.default");
  const RecurrentActivation other[3] = {{RecurrentActivationKind::hard_sigmoid, 0.2f, 0.5f},
                                        {RecurrentActivationKind::tanh},
                                        {RecurrentActivationKind::tanh}};
  a.pr.activations = other;
  EXPECT_EQ(std::string(step_variants(a.pr).first), "step.lstm.f16.rows8.all");
  Args g(RecurrentCell::gru);
  StepVariants v = step_variants(g.pr);
  EXPECT_EQ(std::string(v.first), "step.gru.gates.f32.rows8.default");
  EXPECT_EQ(std::string(v.second), "step.gru.candidate.f32.rows8.default");
  g.pr.linear_before_reset = true;
  v = step_variants(g.pr);
  EXPECT_EQ(std::string(v.first), "step.gru.linear.f32.rows8.default");
  EXPECT_TRUE(v.second.empty());
  Args r(RecurrentCell::rnn);
  const RecurrentActivation sigmoid[1] = {{RecurrentActivationKind::sigmoid}};
  r.pr.activations = sigmoid;  // an RNN's default is tanh
  EXPECT_EQ(std::string(step_variants(r.pr).first), "step.rnn.f32.rows8.all");
}

TEST(RecurrentPlan, PersistentChoice) {
  // Asked for: LSTM layers of hidden up to 1024 on any device; automatic: float16 layers of at
  // least 16 steps or steps of at least 2^23 multiply-adds on a GPU with the matrix product.
  Args l(RecurrentCell::lstm);
  l.pr.type = f16, l.pr.batch = 16, l.pr.hidden = 1024, l.pr.seq = 512;  // 16 x 4 x 1024^2 = 2^26
  EXPECT_TRUE(runs_persistent(l.pr, RecurrentSchedule::automatic, false, true));
  EXPECT_FALSE(runs_persistent(l.pr, RecurrentSchedule::automatic, false, false));
  EXPECT_FALSE(runs_persistent(l.pr, RecurrentSchedule::automatic, true, true));
  EXPECT_FALSE(runs_persistent(l.pr, RecurrentSchedule::passes, false, true));
  EXPECT_FALSE(runs_persistent(l.pr, RecurrentSchedule::sequence, false, true));
  EXPECT_TRUE(runs_persistent(l.pr, RecurrentSchedule::persistent, false, false));
  // A software device: not past llvmpipe's loop limit, asked or not.
  EXPECT_GT(persistent_software_iterations(l.pr), double(kSoftwareLoopIterations));
  EXPECT_FALSE(runs_persistent(l.pr, RecurrentSchedule::persistent, true, false));
  {
    Args s(RecurrentCell::lstm);
    s.pr.type = f16, s.pr.batch = 16, s.pr.hidden = 64, s.pr.seq = 4;  // 4 x (2 + 8 x (2 + 130)) + 1025
    EXPECT_EQ(persistent_software_iterations(s.pr), 5257.0);
    EXPECT_TRUE(runs_persistent(s.pr, RecurrentSchedule::persistent, true, false));
    s.pr.seq = 60;  // 60 x 1058 + 1025
    EXPECT_FALSE(runs_persistent(s.pr, RecurrentSchedule::persistent, true, false));
    EXPECT_TRUE(runs_persistent(s.pr, RecurrentSchedule::persistent, false, false));
  }
  // The matrix product needs the default activations (|h| <= 1 for the state's float16 halves).
  {
    const RecurrentActivation relu[3] = {{RecurrentActivationKind::sigmoid}, {RecurrentActivationKind::tanh},
                                         {RecurrentActivationKind::relu}};
    RecurrentProblem big = l.pr;
    big.activations = relu;
    EXPECT_FALSE(runs_persistent(big, RecurrentSchedule::automatic, false, true));
    Args a(RecurrentCell::lstm);
    a.pr.type = f16, a.pr.activations = relu;
    const Plan pa = a.run(RecurrentSchedule::persistent, false, true, 0);
    EXPECT_TRUE(pa.persistent);
    EXPECT_FALSE(pa.persistent_matrix);
    EXPECT_EQ(std::string(pa.persistent_kernel), "persistent.lstm.f16.scalar.all");
  }
  EXPECT_EQ(std::string(persistent_variant(l.pr, true)), "persistent.lstm.f16.coopmat.default");
  EXPECT_EQ(std::string(persistent_variant(l.pr, false)), "persistent.lstm.f16.scalar.default");
  EXPECT_EQ(std::string(persistent_variant(l.pr, true, true)), "persistent.lstm.f16.coopmat16.default");
  EXPECT_TRUE(persistent_wide(l.pr, 0));  // hidden 1024: sixteen subgroups
  EXPECT_FALSE(persistent_wide(l.pr, 8));
  Args small(RecurrentCell::lstm);
  small.pr.hidden = 256;
  EXPECT_FALSE(persistent_wide(small.pr, 0));
  EXPECT_TRUE(persistent_wide(small.pr, 16));
  EXPECT_EQ(persistent_roles(l.pr), 128u);
  EXPECT_EQ(persistent_workgroups(l.pr, false, 0), 128u);
  EXPECT_EQ(persistent_workgroups(l.pr, true, 0), kPersistentSoftwareWorkgroups);
  EXPECT_EQ(persistent_workgroups(l.pr, true, 3), kPersistentSoftwareWorkgroups);  // the cap does not raise it
  EXPECT_EQ(persistent_workgroups(l.pr, false, 3), 3u);
  EXPECT_EQ(persistent_workgroups(l.pr, false, 500), 128u);
  l.pr.batch = 1;  // 2^22: below the bound, but 512 steps
  EXPECT_TRUE(runs_persistent(l.pr, RecurrentSchedule::automatic, false, true));
  l.pr.seq = 15;  // a short layer of small steps
  EXPECT_FALSE(runs_persistent(l.pr, RecurrentSchedule::automatic, false, true));
  l.pr.batch = 16;
  EXPECT_TRUE(runs_persistent(l.pr, RecurrentSchedule::automatic, false, true));
  l.pr.seq = 512;
  l.pr.batch = 16, l.pr.type = f32;  // float32 only when asked, on float32 lanes
  EXPECT_FALSE(runs_persistent(l.pr, RecurrentSchedule::automatic, false, true));
  EXPECT_EQ(std::string(persistent_variant(l.pr, true)), "persistent.lstm.f32.scalar.default");
  l.pr.hidden = 1025;  // beyond the matrices held
  EXPECT_FALSE(runs_persistent(l.pr, RecurrentSchedule::persistent, false, true));
  l.pr.hidden = 13, l.pr.direction = RecurrentDirection::bidirectional;
  EXPECT_EQ(persistent_roles(l.pr), 4u);
  Args g(RecurrentCell::gru);
  EXPECT_FALSE(runs_persistent(g.pr, RecurrentSchedule::persistent, false, true));
  // The plan: one dispatch, the counters zeroed by the set-up.
  Args p(RecurrentCell::lstm);
  const Plan pl = p.run(RecurrentSchedule::persistent, true, false, 2);
  EXPECT_TRUE(pl.persistent);
  EXPECT_FALSE(pl.sequence);
  EXPECT_FALSE(pl.persistent_matrix);
  EXPECT_EQ(pl.persistent_workgroups, 1u);  // hidden 6: one role
  EXPECT_NE(pl.push.flags & OG_RNN_SEQUENCE, 0u);
}

TEST(RecurrentPlan, ScheduleChoice) {
  // Automatic: one dispatch on GPUs for steps below 2^23 multiply-adds, a pass per step on
  // software devices and for larger steps; forced either way.
  Args l(RecurrentCell::lstm, RecurrentDirection::bidirectional);
  l.pr.batch = 1, l.pr.hidden = 256;  // 2 x 4 x 256^2 = 2^19
  EXPECT_TRUE(runs_as_sequence(l.pr, RecurrentSchedule::automatic, false));
  EXPECT_FALSE(runs_as_sequence(l.pr, RecurrentSchedule::automatic, true));
  EXPECT_TRUE(runs_as_sequence(l.pr, RecurrentSchedule::sequence, true));
  EXPECT_FALSE(runs_as_sequence(l.pr, RecurrentSchedule::passes, false));
  l.pr.batch = 16;  // 2^23
  EXPECT_FALSE(runs_as_sequence(l.pr, RecurrentSchedule::automatic, false));
  EXPECT_TRUE(runs_as_sequence(l.pr, RecurrentSchedule::sequence, false));
  l.pr.batch = 15;
  EXPECT_TRUE(runs_as_sequence(l.pr, RecurrentSchedule::automatic, false));
  l.pr.hidden = uint64_t(1) << 30;  // no overflow in the product
  EXPECT_FALSE(runs_as_sequence(l.pr, RecurrentSchedule::automatic, false));
  Args many(RecurrentCell::rnn);
  many.pr.seq = uint64_t(1) << 20, many.pr.batch = 1, many.pr.hidden = 32 * 4096;  // 2^32 work items
  EXPECT_FALSE(runs_as_sequence(many.pr, RecurrentSchedule::sequence, false));
  Args a(RecurrentCell::lstm, RecurrentDirection::bidirectional);
  a.pr.batch = 1, a.pr.hidden = 256;
  EXPECT_EQ(std::string(sequence_variant(a.pr)), "sequence.lstm.f32.rows1.default");
  // 2 directions x 32 blocks of 8 units; launched: a step and the next step's first pass.
  EXPECT_EQ(sequence_items_per_step(a.pr), 64u);
  EXPECT_EQ(sequence_workgroups(a.pr, false), 128u);
  EXPECT_EQ(sequence_workgroups(a.pr, true), 1u);
  Args g(RecurrentCell::gru);
  g.pr.batch = 1, g.pr.hidden = 256, g.pr.type = f16;
  EXPECT_EQ(std::string(sequence_variant(g.pr)), "sequence.gru.f16.rows1.default");
  EXPECT_EQ(sequence_items_per_step(g.pr), 16u + 8u);  // z, r: 16 units a block; candidate: 32
  EXPECT_EQ(sequence_workgroups(g.pr, false), 24u + 16u);
  g.pr.linear_before_reset = true;
  g.pr.batch = 9;
  EXPECT_EQ(std::string(sequence_variant(g.pr)), "sequence.gru.linear.f16.rows8.default");
  EXPECT_EQ(sequence_items_per_step(g.pr), 26u * 2);  // 10 units a block, 2 blocks of 8 rows
  Args big(RecurrentCell::lstm);
  big.pr.batch = 16, big.pr.hidden = 4096;
  EXPECT_EQ(sequence_workgroups(big.pr, false), kMaxSequenceWorkgroups);
  Args r(RecurrentCell::rnn);
  const RecurrentActivation relu[1] = {{RecurrentActivationKind::relu}};
  r.pr.activations = relu;
  EXPECT_EQ(std::string(sequence_variant(r.pr)), "sequence.rnn.f32.rows8.all");
  // The plan: the flag that has setup zero the counters, and where they are.
  Args s(RecurrentCell::lstm);
  Operands o;
  o.x = {s.x, {}, f32, 0}, o.w = {s.w, {}, f32, 0}, o.r = {s.r, {}, f32, 0};
  const Plan seq = plan(s.pr, o, 0, 12, RecurrentSchedule::automatic, false);
  EXPECT_TRUE(seq.sequence);
  EXPECT_EQ(std::string(seq.sequence_kernel), "sequence.lstm.f32.rows8.default");
  EXPECT_NE(seq.push.flags & OG_RNN_SEQUENCE, 0u);
  EXPECT_EQ(seq.push.sync_offset, 12u + sizes(s.pr).sync_base);
  const Plan passes = plan(s.pr, o, 0, 12, RecurrentSchedule::automatic, true);
  EXPECT_FALSE(passes.sequence);
  EXPECT_EQ(passes.push.flags & OG_RNN_SEQUENCE, 0u);
}

TEST(RecurrentPlan, GridsAndPushConstants) {
  Args a(RecurrentCell::lstm, RecurrentDirection::bidirectional);
  a.pr.batch = 17, a.pr.hidden = 33;
  EXPECT_EQ(rows_per_workgroup(1), 1u);
  EXPECT_EQ(rows_per_workgroup(17), 8u);
  // LSTM: 8 units x 4 gates per workgroup; 33 units -> 5 blocks; 17 rows -> 3 blocks of 8.
  EXPECT_EQ(step_workgroups(a.pr, 4), 2u * 5 * 3);
  EXPECT_EQ(step_workgroups(a.pr, 1), 2u * 2 * 3);
  EXPECT_EQ(step_workgroups(a.pr, 3), 2u * 4 * 3);  // 10 units of 3 gates
  Args b(RecurrentCell::lstm, RecurrentDirection::bidirectional);
  b.has_lens = b.has_p = b.has_h0 = b.has_c0 = true;
  b.pr.clip = 3.0f;
  const RecurrentActivation acts[6] = {{RecurrentActivationKind::sigmoid},  {RecurrentActivationKind::elu, 0.5f},
                                       {RecurrentActivationKind::tanh},     {RecurrentActivationKind::affine, 2.f, 3.f},
                                       {RecurrentActivationKind::softplus}, {RecurrentActivationKind::relu}};
  b.pr.activations = acts;
  const Plan p = b.run();
  EXPECT_EQ(p.push.flags & (OG_RNN_LENGTHS | OG_RNN_PEEPHOLE | OG_RNN_CLIP | OG_RNN_INITIAL_H | OG_RNN_INITIAL_C |
                            OG_RNN_CELL_STATE | OG_RNN_BIAS | OG_RNN_WRITE_Y | OG_RNN_ZERO_EMPTY),
            OG_RNN_LENGTHS | OG_RNN_PEEPHOLE | OG_RNN_CLIP | OG_RNN_INITIAL_H | OG_RNN_INITIAL_C | OG_RNN_CELL_STATE |
                OG_RNN_BIAS | OG_RNN_WRITE_Y | OG_RNN_ZERO_EMPTY);
  EXPECT_EQ(p.push.clip, 3.0f);
  EXPECT_EQ((p.push.activations >> 4) & 15u, OG_RNN_ACT_ELU);
  EXPECT_EQ((p.push.activations >> 12) & 15u, OG_RNN_ACT_AFFINE);
  EXPECT_EQ((p.push.activations >> 20) & 15u, OG_RNN_ACT_RELU);
  EXPECT_EQ(p.push.alpha[1], 0.5f);
  EXPECT_EQ(p.push.beta[3], 3.f);
  EXPECT_EQ(p.push.xw_dir_stride, 15u * 24);
  // Vector loads when R's and the state's rows start on 4-element boundaries.
  EXPECT_EQ(p.push.flags & OG_RNN_VECTOR, 0u);  // hidden 6
  Args v(RecurrentCell::gru);
  v.pr.hidden = 8;
  v.w = {1, 24, 7}, v.r = {1, 24, 8}, v.b = {1, 48}, v.y = {5, 1, 3, 8}, v.yh = {1, 3, 8};
  EXPECT_NE(v.run().push.flags & OG_RNN_VECTOR, 0u);
  Operands o;
  o.x = {v.x, {}, f32, 0}, o.w = {v.w, {}, f32, 0}, o.r = {v.r, {}, f32, 2};
  EXPECT_EQ(plan(v.pr, o).push.flags & OG_RNN_VECTOR, 0u);  // R at an offset of 2
  o.r.offset = 4;
  EXPECT_NE(plan(v.pr, o).push.flags & OG_RNN_VECTOR, 0u);
  EXPECT_EQ(plan(v.pr, o, 0, 6).push.flags & OG_RNN_VECTOR, 0u);  // state scratch at 6
  Args e(RecurrentCell::rnn);
  e.pr.batch = 0;
  e.x = {5, 0, 7}, e.y = {5, 1, 0, 6}, e.yh = {1, 0, 6}, e.lens = {0};
  EXPECT_TRUE(e.run().nothing);
}

}  // namespace
}  // namespace onegpu::kernels::recurrent
