// onegpu/kernels/recurrent.h - ONNX RNN, GRU and LSTM layers.
//
// One encode() runs one layer: forward, reverse or bidirectional, layout 0 (sequence-major) or 1
// (batch-major), with optional per-row sequence lengths, initial states, peepholes, clip,
// input_forget (LSTM), linear_before_reset (GRU) and any of the eleven ONNX activations in every
// slot. Tensors are float32 or float16, all of one type; products, sums and the state are float32.
//
// Tensors (ONNX shapes; D = 2 for bidirectional, else 1; G = 4 for LSTM, 3 for GRU, 1 for RNN):
//   x             [seq, batch, input]             layout 1: [batch, seq, input]
//   w             [D, G * hidden, input]          gates stored as ONNX orders them: LSTM i, o, f, c;
//   r             [D, G * hidden, hidden]         GRU z, r, h; used as stored, never repacked
//   b             [D, 2 * G * hidden]             optional (W's bias, then R's)
//   sequence_lens [batch], int32                  optional
//   initial_h     [D, batch, hidden]              optional; layout 1: [batch, D, hidden]
//   initial_c     [D, batch, hidden]              optional, LSTM only; layout 1 as initial_h
//   p             [D, 3 * hidden]                 optional, LSTM only (peepholes i, o, f)
//   y             [seq, D, batch, hidden]         optional; layout 1: [batch, seq, D, hidden]
//   y_h, y_c      [D, batch, hidden]              optional (y_c: LSTM only); layout 1: [batch, D, hidden]
// A tensor whose buffer is null is absent; an absent output is not written. Every tensor is dense,
// an element offset into its buffer; float16 outputs that start or end inside a 32-bit word keep
// the neighbouring half of that word.
//
// Semantics (as ONNX, with these settled): row b runs its first len = sequence_lens[b] steps (in
// reverse from step len - 1 for the reverse direction); y is zero at the steps past len; y_h and
// y_c are the state after the row's last step, and 0 for a row of length 0. The lengths are read
// on the device and not validated there: a value above seq counts as seq, a negative one as 0
// (validate them on the host). With seq = 0 nothing runs and y_h, y_c are the initial states (or
// zeros); with batch = 0 (or hidden = 0) nothing is recorded. clip (when given, > 0) clamps every
// gate's pre-activation to [-clip, clip] (NaN passes). input_forget sets f = 1 - i.
//
// Arithmetic, in a fixed order: the projection x * w^T of every step and direction is one batched
// Gemm (the family's own, in the family's KernelMode) into float32 scratch; each recurrent dot
// product is eight partial sums, lane l taking k = 4 l + 32 i + c (c = 0..3) in increasing k
// with products and sums rounded separately (no fused multiply-add), added as
// ((p0 + p4) + (p2 + p6)) + ((p1 + p5) + (p3 + p7)); a gate's pre-activation is
// ((xw + rec) + wb) + rb, then the peephole term, clip and the activation; LSTM
// c = f * c_prev + i * g(c~), h = o * h(c); GRU h = (1 - z) * h~ + z * h_prev. No atomic
// arithmetic, no subgroup arithmetic: both KernelMode values and the passes and sequence schedules
// (RecurrentSchedule) run the same step code and two runs give the same bits. The persistent
// schedule has its own order (RecurrentSchedule); its runs too give the same bits. Accuracy against float64 (inputs rounded to their type),
// max|gpu - ref| / max|ref| on y, y_h and y_c: float32 <= 1e-5, float16 <= 2e-3.
//
// Recording: one Gemm, one pass that sets up the state, one pass per step (two for a GRU with
// linear_before_reset = 0), one pass per output. Scratch (the projection, xw_length() floats, and
// the state with every step's hidden state, state_length() floats) is the family's own, grown on
// demand, or the caller's (RecurrentScratch). Each must fit one storage binding.
//
// Errors, all before anything is recorded: KernelShapeError with operation "LSTM", "GRU" or "RNN"
// and the argument ("x", "w", "sequence_lens", "activations", "p", ...) for a missing or misshapen
// tensor, a type other than the layer's, an option of another cell, a count or offset at or past
// 2^31, a range outside its buffer, an output overlapping an input or another output, scratch too
// small; UnsupportedError for an element type other than float32/float16 and scratch or a tensor
// larger than one storage binding, and where the device's aliased_writable_bindings is false
// (WebGPU) for a written tensor in the buffer of one bound beside it (docs/recurrent.md, "Errors").
// The sequence and persistent schedules need SPIR-V kernels (ComputeCapabilities::spirv_kernels):
// without them `automatic` runs passes and asking for either throws UnsupportedError at
// construction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

enum class RecurrentCell { rnn, gru, lstm };
enum class RecurrentDirection { forward, reverse, bidirectional };

// The ONNX activation functions; codes are shared with the shaders.
enum class RecurrentActivationKind : uint32_t {
  sigmoid,  // 1 / (1 + e^-x)
  tanh,
  relu,              // max(0, x)
  affine,            // alpha x + beta
  leaky_relu,        // x < 0 ? alpha x : x
  thresholded_relu,  // x > alpha ? x : 0
  scaled_tanh,       // alpha tanh(beta x)
  hard_sigmoid,      // max(0, min(1, alpha x + beta))
  elu,               // x < 0 ? alpha (e^x - 1) : x
  softsign,          // x / (1 + |x|)
  softplus,          // log(1 + e^x)
};

// One activation slot with its parameters, resolved by the caller (ONNX's defaults for alpha and
// beta are the caller's to apply: LeakyRelu 0.01, ThresholdedRelu 1, HardSigmoid 0.2 and 0.5,
// Elu 1, ScaledTanh 1 and 1, Affine 1 and 0).
struct RecurrentActivation {
  RecurrentActivationKind kind = RecurrentActivationKind::sigmoid;
  float alpha = 0.0f, beta = 0.0f;
};

struct RecurrentProblem {
  RecurrentCell cell = RecurrentCell::lstm;
  uint64_t seq = 0, batch = 0, input = 0, hidden = 0;
  RecurrentDirection direction = RecurrentDirection::forward;
  uint32_t layout = 0;                // 0 or 1 (ONNX `layout`)
  DataType type = DataType::float32;  // every tensor's type: float32 or float16
  std::optional<float> clip;          // none: no clipping; must be > 0
  bool input_forget = false;          // LSTM only
  bool linear_before_reset = false;   // GRU only
  // Empty: the ONNX defaults (LSTM sigmoid, tanh, tanh; GRU sigmoid, tanh; RNN tanh). Otherwise
  // slots per direction (LSTM 3: f, g, h; GRU 2: f, g; RNN 1: f) for the forward (or only)
  // direction, then the reverse one. Must outlive the call.
  std::span<const RecurrentActivation> activations;
  // A host-side bound on sequence_lens (at most seq): the layer runs this many steps. Only with
  // sequence_lens; without it every row runs seq steps.
  std::optional<uint64_t> max_length;
};

struct RecurrentTensors {
  TensorRef x, w, r;
  TensorRef b, sequence_lens, initial_h, initial_c, p;  // optional
  TensorRef y, y_h, y_c;                                // optional outputs
};

// Caller-supplied scratch (a memory planner's arena): both regions may lie in one buffer when they
// do not overlap. Null: the family's own.
struct RecurrentScratch {
  const Buffer<float>* xw = nullptr;
  uint64_t xw_offset = 0;  // floats
  const Buffer<float>* state = nullptr;
  uint64_t state_offset = 0;  // floats
};

// How the steps are dispatched; passes and sequence give the same bits.
//   passes:    one dispatch per step (two for a GRU with linear_before_reset = 0), ordered by
//              barriers between them.
//   sequence:  one dispatch for every step: its workgroups take work items (step, pass, block of
//              units) in order from a counter and wait, spinning on a second counter, until the
//              pass before an item is complete. A workgroup only waits on items that workgroups
//              already running have taken, so it needs no grid-wide barrier and cannot deadlock
//              however few workgroups the device runs at once; it assumes only that a running
//              workgroup keeps running. On a software device it launches one workgroup.
//              A layer of 2^31 work items or more runs as passes whatever was asked.
//   persistent: LSTM layers of hidden up to 1024 (others run as automatic chooses): one dispatch
//              in which each workgroup keeps its rows of R for the whole layer and a counter orders
//              the steps. Workgroups first join (a door that the first closes after a bounded
//              wait); only those that joined, known to be running, share the rows, so it cannot
//              deadlock however few the device runs at once. With KernelMode::fast on float16 and a
//              device with 16 x 16 x 16 float16 cooperative matrices the product runs on them (the
//              state split into two halves, hi + lo, float32 sums; a fixed order of its own, so
//              other bits than passes); otherwise on float32 lanes. Its bits do not depend on how
//              many workgroups join.
//   automatic: persistent for float16 LSTM layers (hidden up to 1024) of at least 16 steps or
//              of steps of at least 2^23 multiply-adds (directions x batch x gates x hidden^2), in
//              fast mode on a device with the matrix product; otherwise sequence on GPUs for steps
//              of fewer than 2^23 multiply-adds, where it was measured faster; passes otherwise
//              and on software devices (docs/recurrent.md, "Schedules").
enum class RecurrentSchedule { automatic, passes, sequence, persistent };

struct RecurrentOptions {
  // The projection's Gemm mode; fast also lets the persistent schedule's product use matrix
  // hardware. The steps are fixed-order in both.
  KernelMode mode = KernelMode::fast;
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
  RecurrentSchedule schedule = RecurrentSchedule::automatic;
};

class Recurrent : public KernelFamily {
 public:
  // `type` is the element type of every tensor: float32 or float16 (UnsupportedError otherwise).
  Recurrent(Device& device, DataType type, RecurrentOptions options = {});
  ~Recurrent();
  Recurrent(Recurrent&&) noexcept;
  Recurrent& operator=(Recurrent&&) noexcept;

  // Records the layer (see the top of this file). problem.type must be the family's type.
  void encode(CommandEncoder& encoder, const RecurrentProblem& problem, const RecurrentTensors& tensors,
              const RecurrentScratch& scratch = {});

  // Floats of projection and state scratch the problem needs (checked arithmetic; KernelShapeError
  // for a bad problem).
  static uint64_t xw_length(const RecurrentProblem& problem);
  static uint64_t state_length(const RecurrentProblem& problem);

  // The step kernels the problem runs on this family's device and schedule, as the variant table
  // names them ("sequence.lstm.f32.rows1.default", "step.lstm.f32.rows1.default",
  // "step.gru.gates.f16.rows8.all+step.gru.candidate.f16.rows8.all").
  std::string variant(const RecurrentProblem& problem) const;

  DataType element_type() const;
  // Bind groups built so far, the projection's Gemm included.
  uint64_t bind_groups_created() const;
  void release_bindings();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
