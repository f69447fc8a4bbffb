// The activation of slot `slot` (LSTM f, g, h; GRU f, g; RNN f) of direction d: the ONNX
// defaults, or with ALL_ACTIVATIONS the function, alpha and beta of the push constants.
#ifndef ONEGPU_RECURRENT_ACTIVATIONS_GLSL
#define ONEGPU_RECURRENT_ACTIVATIONS_GLSL

// tanh through exp(-2|x|): finite for every finite x (a driver's tanh may not be).
float og_rnn_tanh(float x) {
  const float e = exp(-2.0 * abs(x));
  return sign(x) * ((1.0 - e) / (1.0 + e));
}
float og_rnn_sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }

#ifdef ALL_ACTIVATIONS
float activation(uint d, uint slot, float x) {
  const uint index = 3u * d + slot;
  const uint code = (p.activations >> (4u * index)) & 15u;
  const float alpha = p.alpha[index], beta = p.beta[index];
  switch (code) {
    case OG_RNN_ACT_SIGMOID: return og_rnn_sigmoid(x);
    case OG_RNN_ACT_TANH: return og_rnn_tanh(x);
    case OG_RNN_ACT_RELU: return max(x, 0.0);
    case OG_RNN_ACT_AFFINE: return alpha * x + beta;
    case OG_RNN_ACT_LEAKY_RELU: return x < 0.0 ? alpha * x : x;
    case OG_RNN_ACT_THRESHOLDED_RELU: return x > alpha ? x : 0.0;
    case OG_RNN_ACT_SCALED_TANH: return alpha * og_rnn_tanh(beta * x);
    case OG_RNN_ACT_HARD_SIGMOID: return max(0.0, min(1.0, alpha * x + beta));
    case OG_RNN_ACT_ELU: return x < 0.0 ? alpha * (exp(x) - 1.0) : x;
    case OG_RNN_ACT_SOFTSIGN: return x / (1.0 + abs(x));
    default: return max(x, 0.0) + log(1.0 + exp(-abs(x)));  // softplus
  }
}
#else
float activation(uint d, uint slot, float x) {
#if CELL == OG_RNN_CELL_RNN
  return og_rnn_tanh(x);
#else
  return slot == 0u ? og_rnn_sigmoid(x) : og_rnn_tanh(x);
#endif
}
#endif
#endif
