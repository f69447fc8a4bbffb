// Float64 reference of ONNX RNN, GRU and LSTM layers, written from the operator definitions with
// the semantics docs/recurrent.md settles (rows of length 0 have zero final states).
#pragma once

#include <cstdint>
#include <vector>

#include "onegpu/kernels/recurrent.h"

namespace onegpu::reference {

// Inputs in ONNX shapes and the problem's layout (values already rounded to the tensor type);
// an empty vector is an absent input.
struct RecurrentInputs {
  std::vector<double> x, w, r, b, initial_h, initial_c, p;
  std::vector<int32_t> sequence_lens;
};
struct RecurrentOutputs {
  std::vector<double> y, y_h, y_c;  // y_c empty unless LSTM
};

double recurrent_activation(const kernels::RecurrentActivation& a, double x);
RecurrentOutputs recurrent(const kernels::RecurrentProblem& problem, const RecurrentInputs& in);

}  // namespace onegpu::reference
