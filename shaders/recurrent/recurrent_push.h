// Push constants and codes of the recurrent kernels, shared by the host (src/kernels/recurrent)
// and GLSL.
#ifndef ONEGPU_RECURRENT_PUSH_H
#define ONEGPU_RECURRENT_PUSH_H
#include "common/layout.h"

// The variants' defines (src/kernels/recurrent/CMakeLists.txt):
//   step.comp:   CELL (OG_RNN_CELL_*), GRU_PASS (OG_RNN_GRU_*; GRU only), ROWS (batch rows a
//                workgroup carries: 1 or 8), ALL_ACTIVATIONS (activation codes from the push
//                constants, else the ONNX defaults), F16 (half weights, else float32), SEQUENCE
//                (the whole layer in one dispatch; a GRU with linear_before_reset = 0 then runs
//                both of its passes, GRU_PASS being OG_RNN_GRU_GATES);
//   persistent.comp: F16, ALL_ACTIVATIONS, COOPMAT (the product on cooperative matrices), WIDE
//                (with COOPMAT: sixteen subgroups rather than eight);
//   setup.comp, output.comp: F16.
#define OG_RNN_CELL_RNN 0
#define OG_RNN_CELL_GRU 1
#define OG_RNN_CELL_LSTM 2
#define OG_RNN_GRU_LINEAR 0      // linear_before_reset = 1: one pass per step
#define OG_RNN_GRU_GATES 1       // linear_before_reset = 0, first pass: z and r (r * h kept)
#define OG_RNN_GRU_CANDIDATE 2   // linear_before_reset = 0, second pass: the candidate and h

// A step workgroup: 32 rows of R (units x gates of the pass), 8 lanes each; lane l sums the
// chunks of 4 elements k = 4 l + 32 i .. 4 l + 32 i + 3 in increasing order.
#define OG_RNN_WORKGROUP 256u
#define OG_RNN_ROWS_PER_GROUP 32u
#define OG_RNN_LANES 8u
#define OG_RNN_CHUNK 4u

// The persistent schedule (persistent.comp): a role is 8 hidden units of one direction (32 rows of
// R); the matrix product holds R for hidden sizes up to 1024; the first workgroup waits at most
// this many times 16 polls for the others to join.
#define OG_RNN_PERSISTENT_UNITS 8u
#define OG_RNN_PERSISTENT_MAX_HIDDEN 1024u
#define OG_RNN_PERSISTENT_DOOR_POLLS 1024u

// Activation codes (onegpu::kernels::RecurrentActivationKind).
#define OG_RNN_ACT_SIGMOID 0u
#define OG_RNN_ACT_TANH 1u
#define OG_RNN_ACT_RELU 2u
#define OG_RNN_ACT_AFFINE 3u
#define OG_RNN_ACT_LEAKY_RELU 4u
#define OG_RNN_ACT_THRESHOLDED_RELU 5u
#define OG_RNN_ACT_SCALED_TANH 6u
#define OG_RNN_ACT_HARD_SIGMOID 7u
#define OG_RNN_ACT_ELU 8u
#define OG_RNN_ACT_SOFTSIGN 9u
#define OG_RNN_ACT_SOFTPLUS 10u
#define OG_RNN_ACT_COUNT 11u

// flags
#define OG_RNN_BIAS 1u
#define OG_RNN_PEEPHOLE 2u
#define OG_RNN_LENGTHS 4u
#define OG_RNN_INPUT_FORGET 8u
#define OG_RNN_LAYOUT1 16u      // batch-major X, Y, initial and final states
#define OG_RNN_REVERSE 32u      // one direction, run in reverse
#define OG_RNN_CLIP 64u
#define OG_RNN_WRITE_Y 128u     // keep every step's hidden state for Y
#define OG_RNN_INITIAL_H 256u
#define OG_RNN_INITIAL_C 512u
#define OG_RNN_ZERO_EMPTY 1024u // final states of rows of length 0 are 0 (a sequence of at least one step)
#define OG_RNN_CELL_STATE 2048u // LSTM: the state has a cell state
#define OG_RNN_VECTOR 4096u     // R rows and state rows start on 4-element boundaries: vector loads
#define OG_RNN_SEQUENCE 8192u   // the steps run as one dispatch: setup.comp zeroes its counters

// Output kinds (output.comp)
#define OG_RNN_OUT_Y 0u
#define OG_RNN_OUT_YH 1u
#define OG_RNN_OUT_YC 2u

// State scratch, in floats from state_offset: h (two buffers of dirs x batch x hidden, swapped
// every step), then the cell state (LSTM) or z and r * h (GRU, two passes), then every step's
// hidden state [steps][dirs][batch][hidden] when Y is written (from y_base), then two counters
// (uint) of the one-dispatch schedule (at sync_offset).
struct RecurrentPush {
  OG_U32 hidden, batch, dirs, seq;
  OG_U32 step;             // step.comp: the step (SEQUENCE: the steps the layer runs); setup.comp,
                           // output.comp: the steps the layer runs
  OG_U32 kind;             // output.comp: OG_RNN_OUT_*; persistent.comp: the workgroups launched
  OG_U32 flags;
  OG_U32 xw_offset;        // floats; direction d's projection at xw_offset + d * xw_dir_stride
  OG_U32 xw_dir_stride;
  OG_U32 r_offset, b_offset, p_offset, lens_offset;  // elements (setup.comp: initial_h, initial_c in r, b)
  OG_U32 state_offset;     // floats
  OG_U32 y_base;           // floats after state_offset
  OG_U32 out_offset;       // output.comp: elements of the output
  OG_U32 activations;      // four bits per slot: slot s of direction d at 4 * (3 d + s)
  OG_U32 sync_offset;      // words of the state buffer: sequence: the ticket and done counters;
                           // persistent: the door, the participants and the done counter
  OG_F32 clip;
  OG_F32 alpha[6];
  OG_F32 beta[6];
};

#endif
