#include "reference/recurrent_reference.h"

#include <algorithm>
#include <cmath>

namespace onegpu::reference {

using kernels::RecurrentActivation;
using kernels::RecurrentActivationKind;
using kernels::RecurrentCell;

double recurrent_activation(const RecurrentActivation& a, double x) {
  const double alpha = a.alpha, beta = a.beta;
  switch (a.kind) {
    case RecurrentActivationKind::sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case RecurrentActivationKind::tanh:
      return std::tanh(x);
    case RecurrentActivationKind::relu:
      return std::max(0.0, x);
    case RecurrentActivationKind::affine:
      return alpha * x + beta;
    case RecurrentActivationKind::leaky_relu:
      return x < 0 ? alpha * x : x;
    case RecurrentActivationKind::thresholded_relu:
      return x > alpha ? x : 0.0;
    case RecurrentActivationKind::scaled_tanh:
      return alpha * std::tanh(beta * x);
    case RecurrentActivationKind::hard_sigmoid:
      return std::max(0.0, std::min(1.0, alpha * x + beta));
    case RecurrentActivationKind::elu:
      return x < 0 ? alpha * std::expm1(x) : x;
    case RecurrentActivationKind::softsign:
      return x / (1.0 + std::abs(x));
    case RecurrentActivationKind::softplus:
      return std::log1p(std::exp(x));
  }
  return x;
}

RecurrentOutputs recurrent(const kernels::RecurrentProblem& pr, const RecurrentInputs& in) {
  const size_t D = pr.direction == kernels::RecurrentDirection::bidirectional ? 2 : 1;
  const size_t S = pr.seq, B = pr.batch, I = pr.input, H = pr.hidden;
  const size_t G = pr.cell == RecurrentCell::lstm ? 4 : pr.cell == RecurrentCell::gru ? 3 : 1;
  const size_t slots = pr.cell == RecurrentCell::lstm ? 3 : pr.cell == RecurrentCell::gru ? 2 : 1;
  const bool l1 = pr.layout == 1;
  const double clip = pr.clip ? double(*pr.clip) : 0.0;
  auto clipped = [&](double v) { return pr.clip ? std::clamp(v, -clip, clip) : v; };
  auto act = [&](size_t d, size_t slot, double v) {
    if (pr.activations.empty()) {
      const RecurrentActivationKind k =
          pr.cell == RecurrentCell::rnn || slot > 0 ? RecurrentActivationKind::tanh : RecurrentActivationKind::sigmoid;
      return recurrent_activation({k, 0, 0}, v);
    }
    return recurrent_activation(pr.activations[d * slots + slot], v);
  };
  auto state_index = [&](size_t d, size_t b, size_t u) { return l1 ? (b * D + d) * H + u : (d * B + b) * H + u; };
  RecurrentOutputs out;
  out.y.assign(S * D * B * H, 0.0);
  out.y_h.assign(D * B * H, 0.0);
  if (pr.cell == RecurrentCell::lstm) out.y_c.assign(D * B * H, 0.0);
  for (size_t d = 0; d < D; ++d) {
    const bool reverse = D == 2 ? d == 1 : pr.direction == kernels::RecurrentDirection::reverse;
    for (size_t b = 0; b < B; ++b) {
      std::vector<double> h(H, 0.0), c(H, 0.0);
      if (!in.initial_h.empty())
        for (size_t u = 0; u < H; ++u) h[u] = in.initial_h[state_index(d, b, u)];
      if (!in.initial_c.empty())
        for (size_t u = 0; u < H; ++u) c[u] = in.initial_c[state_index(d, b, u)];
      size_t len = S;
      if (!in.sequence_lens.empty()) len = size_t(std::clamp<int64_t>(in.sequence_lens[b], 0, int64_t(S)));
      for (size_t step = 0; step < len; ++step) {
        const size_t t = reverse ? len - 1 - step : step;
        const double* xt = &in.x[l1 ? (b * S + t) * I : (t * B + b) * I];
        // gate pre-activations without the recurrent part: x W^T + Wb, and the recurrent part.
        std::vector<double> xw(G * H, 0.0), rec(G * H, 0.0), wb(G * H, 0.0), rb(G * H, 0.0);
        for (size_t g = 0; g < G * H; ++g) {
          const double* wrow = &in.w[(d * G * H + g) * I];
          double sx = 0;
          for (size_t k = 0; k < I; ++k) sx += xt[k] * wrow[k];
          xw[g] = sx;
          const double* rrow = &in.r[(d * G * H + g) * H];
          double sr = 0;
          for (size_t k = 0; k < H; ++k) sr += h[k] * rrow[k];
          rec[g] = sr;
          if (!in.b.empty()) {
            wb[g] = in.b[d * 2 * G * H + g];
            rb[g] = in.b[d * 2 * G * H + G * H + g];
          }
        }
        std::vector<double> hn(H);
        if (pr.cell == RecurrentCell::lstm) {
          for (size_t u = 0; u < H; ++u) {
            double pi = xw[u] + rec[u] + wb[u] + rb[u];
            double po = xw[H + u] + rec[H + u] + wb[H + u] + rb[H + u];
            double pf = xw[2 * H + u] + rec[2 * H + u] + wb[2 * H + u] + rb[2 * H + u];
            double pc = xw[3 * H + u] + rec[3 * H + u] + wb[3 * H + u] + rb[3 * H + u];
            if (!in.p.empty()) {
              pi += in.p[d * 3 * H + u] * c[u];
              pf += in.p[d * 3 * H + 2 * H + u] * c[u];
            }
            const double i = act(d, 0, clipped(pi));
            const double f = pr.input_forget ? 1.0 - i : act(d, 0, clipped(pf));
            const double cn = f * c[u] + i * act(d, 1, clipped(pc));
            if (!in.p.empty()) po += in.p[d * 3 * H + H + u] * cn;
            hn[u] = act(d, 0, clipped(po)) * act(d, 2, cn);
            c[u] = cn;
          }
        } else if (pr.cell == RecurrentCell::gru) {
          std::vector<double> z(H), r(H);
          for (size_t u = 0; u < H; ++u) {
            z[u] = act(d, 0, clipped(xw[u] + rec[u] + wb[u] + rb[u]));
            r[u] = act(d, 0, clipped(xw[H + u] + rec[H + u] + wb[H + u] + rb[H + u]));
          }
          for (size_t u = 0; u < H; ++u) {
            double pre;
            if (pr.linear_before_reset) {
              pre = xw[2 * H + u] + r[u] * (rec[2 * H + u] + rb[2 * H + u]) + wb[2 * H + u];
            } else {
              const double* rrow = &in.r[(d * G * H + 2 * H + u) * H];
              double sr = 0;
              for (size_t k = 0; k < H; ++k) sr += r[k] * h[k] * rrow[k];
              pre = xw[2 * H + u] + sr + wb[2 * H + u] + rb[2 * H + u];
            }
            hn[u] = (1.0 - z[u]) * act(d, 1, clipped(pre)) + z[u] * h[u];
          }
        } else {
          for (size_t u = 0; u < H; ++u) hn[u] = act(d, 0, clipped(xw[u] + rec[u] + wb[u] + rb[u]));
        }
        h = hn;
        for (size_t u = 0; u < H; ++u) out.y[l1 ? ((b * S + t) * D + d) * H + u : ((t * D + d) * B + b) * H + u] = h[u];
      }
      const bool zero = S > 0 && len == 0;
      for (size_t u = 0; u < H; ++u) {
        out.y_h[state_index(d, b, u)] = zero ? 0.0 : h[u];
        if (pr.cell == RecurrentCell::lstm) out.y_c[state_index(d, b, u)] = zero ? 0.0 : c[u];
      }
    }
  }
  return out;
}

}  // namespace onegpu::reference
