// Recurrent decisions that need no GPU: the checks on the problem and the tensors' shapes, the
// scratch sizes, the step variants, the grids and the push constants. The family adds the
// buffers' checks and records.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/common/operand.h"
#include "onegpu/kernels/recurrent.h"
#include "onegpu/tensor.h"
#include "recurrent/recurrent_push.h"

namespace onegpu::kernels::recurrent {

using kernels::Operand;

// Element counts and offsets the kernels index with 32-bit arithmetic stay below this.
inline constexpr uint64_t kMaxElements = uint64_t(1) << 31;

// The tensors of RecurrentTensors as the plan sees them; `present` says which are given.
struct Operands {
  Operand x, w, r, b, sequence_lens, initial_h, initial_c, p, y, y_h, y_c;
  bool has_b = false, has_lens = false, has_initial_h = false, has_initial_c = false, has_p = false;
  bool has_y = false, has_y_h = false, has_y_c = false;
};
Operands operands_of(const RecurrentTensors& t);

// "LSTM", "GRU", "RNN".
const char* operation_name(RecurrentCell cell);
uint32_t gates(RecurrentCell cell);             // 4, 3, 1
uint32_t activation_slots(RecurrentCell cell);  // 3, 2, 1
uint32_t directions(RecurrentDirection direction);

// Sizes of a layer, every one checked in 64-bit arithmetic and below kMaxElements.
struct Sizes {
  uint64_t dirs = 1, gates = 1;
  uint64_t steps = 0;        // passes of the step loop: max_length (with lengths) or seq
  uint64_t xw_rows = 0;      // rows of each direction's projection
  uint64_t state_units = 0;  // dirs * batch * hidden
  uint64_t xw_length = 0, state_length = 0, y_base = 0;
  uint64_t sync_base = 0;  // the one-dispatch schedules' three counters, after every step's state
};
// Checks the problem alone (type, sizes, options of the cell, activations) and sizes it.
Sizes sizes(const RecurrentProblem& problem);

// The step kernels: "step.<cell>.<precision>.rows<1|8>.<default|all>"; a GRU with
// linear_before_reset = 0 has two (gates, candidate), others one (second empty).
struct StepVariants {
  std::string_view first, second;  // names from a table built once
};
StepVariants step_variants(const RecurrentProblem& problem);
bool default_activations(const RecurrentProblem& problem);
// Batch rows a step workgroup carries (1 or 8) and units per workgroup for a pass of `pass_gates`.
uint32_t rows_per_workgroup(uint64_t batch);
uint64_t step_workgroups(const RecurrentProblem& problem, uint32_t pass_gates);

// The sequence schedule: whether a problem runs as one dispatch, its kernel
// ("sequence.<lstm|rnn|gru.linear|gru>.<f32|f16>.rows<1|8>.<default|all>"), the work items of a
// step (workgroups of the passes) and the workgroups it launches: every item of a step and of the
// next step's first pass, so the items of the next pass are taken and waiting when a pass ends
// (at most kMaxSequenceWorkgroups); one on a software device, where a waiting workgroup would
// only spin beside the one it waits on. runs_as_sequence: passes when asked, or for a layer of
// kMaxElements work items or more (steps x items of a step; the counters are 32-bit); sequence
// when asked; automatic: sequence on a GPU for steps below kSequenceMaxStepMacs.
inline constexpr uint64_t kMaxSequenceWorkgroups = 1024;
// automatic picks the sequence schedule on GPUs for steps of fewer multiply-adds than this
// (directions x batch x gates x hidden^2). On an H200 (2026-12-01, float32) it took 256/256
// layers from 0.68 to 0.36 ms (bidirectional LSTM, batch 1, 2^19), 0.96 to 0.75 ms (batch 8,
// 2^22) and 1.23 to 0.60 ms (GRU), and was slower for the 2^26 of a 1024/1024 LSTM of batch 16
// (18.2 against 14.9 ms: every step's state then comes from L2 past the L1 cache, where a pass
// reads it through L1). Between 2^22 and 2^26 nothing was measured; the bound sits at 2^23.
inline constexpr uint64_t kSequenceMaxStepMacs = uint64_t(1) << 23;
bool runs_as_sequence(const RecurrentProblem& problem, RecurrentSchedule requested, bool software_device);
std::string_view sequence_variant(const RecurrentProblem& problem);
uint64_t sequence_items_per_step(const RecurrentProblem& problem);
uint64_t sequence_workgroups(const RecurrentProblem& problem, bool software_device);

// The persistent schedule (persistent.comp): LSTM layers of hidden up to
// OG_RNN_PERSISTENT_MAX_HIDDEN, every step in one dispatch, each workgroup keeping the rows of R of
// its roles (8 units of one direction each). `matrix_product`: the family may use the
// cooperative-matrix product (float16, fast mode, and the device accepted the kernel).
// runs_persistent: when asked and the layer fits; automatic: on a GPU with the matrix product, for
// float16 layers of at least kPersistentMinSteps steps or steps of at least kPersistentMinStepMacs
// multiply-adds. On an H200 (2026-12-02, float16) it took the LSTM of sequence 512, batch 16,
// 1024/1024 (2^26 a step) from 14.2 ms (passes) to 4.2 ms, the bidirectional 256/256 ones of 80
// steps from 0.83 to 0.38 ms (batch 8) and 0.384 to 0.363 ms (batch 1; about 0.35 us a step
// less), and was 5 us slower for one step (the joining and the loading of R).
inline constexpr uint64_t kPersistentMinStepMacs = kSequenceMaxStepMacs;
inline constexpr uint64_t kPersistentMinSteps = 16;
// Workgroups launched on a software device, where joined workgroups spin beside each other.
inline constexpr uint64_t kPersistentSoftwareWorkgroups = 1;
// llvmpipe ends a shader's loops after 65535 iterations in all (the count of every loop's
// iterations in one invocation), silently: on a software device a layer whose loops would pass
// kSoftwareLoopIterations (persistent_software_iterations, an upper bound) does not run persistent,
// asked or not, and runs as `automatic` would choose. The matrix product needs the ONNX default
// activations (|h| <= 1 keeps the state's float16 halves finite); other activations get the scalar
// product when persistent is asked for, and automatic does not choose it for them.
inline constexpr uint64_t kSoftwareLoopIterations = 60000;
double persistent_software_iterations(const RecurrentProblem& problem);
bool persistent_fits(const RecurrentProblem& problem);
bool runs_persistent(const RecurrentProblem& problem, RecurrentSchedule requested, bool software_device,
                     bool matrix_product);
// "persistent.lstm.<f32|f16>.scalar.<default|all>" or "persistent.lstm.f16.<coopmat|coopmat16>.default"
// (the matrix product only with the default activations); `wide`: the matrix product
// in sixteen subgroups (coopmat16) rather than eight.
std::string_view persistent_variant(const RecurrentProblem& problem, bool matrix_product, bool wide = false);
uint64_t persistent_roles(const RecurrentProblem& problem);
// The matrix product in sixteen subgroups (coopmat16) for hidden sizes from kPersistentWideHidden
// (on an H200, 2026-12-02: 4.19 against 4.59 ms for the 1024/1024 batch-16 layer, 0.378 against
// 0.363 ms for the 256/256 bidirectional one), or as `forced_subgroups` (8 or 16; 0: this rule).
inline constexpr uint64_t kPersistentWideHidden = 512;
bool persistent_wide(const RecurrentProblem& problem, uint32_t forced_subgroups);
// One workgroup per role, at most `cap` (a test's or tuner's bound; 0: none), and at most
// kPersistentSoftwareWorkgroups on a software device whatever the cap (there a spinning workgroup's
// polls count towards llvmpipe's loop limit while another holds the core).
uint64_t persistent_workgroups(const RecurrentProblem& problem, bool software_device, uint64_t cap);

struct Plan {
  Sizes sizes;
  StepVariants steps;
  std::string_view setup, output;  // "setup.f32", "output.f16", ...
  uint32_t first_pass_gates = 1, second_pass_gates = 0;
  uint64_t first_workgroups = 0, second_workgroups = 0, setup_workgroups = 0;
  bool sequence = false;  // one dispatch for every step (sequence_kernel)
  std::string_view sequence_kernel;
  uint64_t sequence_workgroups = 0;
  bool persistent = false;  // one dispatch, R kept on chip (persistent_kernel)
  bool persistent_matrix = false;  // its product on cooperative matrices
  std::string_view persistent_kernel;
  uint64_t persistent_workgroups = 0;
  RecurrentPush push{};  // the step push constants (step 0); setup and outputs change a few fields
  // Elements each tensor reaches from its offset (0 when absent).
  uint64_t x_count = 0, w_count = 0, r_count = 0, b_count = 0, lens_count = 0, state_count = 0, p_count = 0;
  uint64_t y_count = 0, yh_count = 0;
  bool nothing = false;  // batch = 0 or hidden = 0: record nothing
};

// Checks everything that needs no buffer and plans the layer. xw_offset and state_offset are the
// scratch offsets (floats); `schedule`, `software_device` and `matrix_product` choose the schedule,
// `workgroup_cap` bounds the persistent schedule's workgroups (0: none). KernelShapeError
// (operation, argument) or UnsupportedError on the first problem.
Plan plan(const RecurrentProblem& problem, const Operands& tensors, uint64_t xw_offset = 0, uint64_t state_offset = 0,
          RecurrentSchedule schedule = RecurrentSchedule::passes, bool software_device = false,
          bool matrix_product = false, uint64_t workgroup_cap = 0, bool wide = false);

}  // namespace onegpu::kernels::recurrent
