// Recurrent benchmark cases: layers of a text-line recognizer and a large LSTM, float32 and
// float16, and one-step layers for what a step costs, each with both schedules (float16 LSTM layers
// also persistent). Shapes are
// "<direction>.seq<S>.batch<B>.<input>x<hidden>"; flops count the projection and the recurrent
// products (2 per multiply-add), bytes the weights read once per step plus x and y. --quick
// shrinks the 512-step LSTM to 2 steps.
#include <cmath>

#include "harness.h"
#include "onegpu/kernels/recurrent.h"
#include "onegpu/numeric.h"

namespace onegpu::bench {
namespace {

struct Layer {
  kernels::RecurrentCell cell;
  bool bidirectional;
  uint64_t seq, batch, input, hidden;
  // GRU: ONNX linear_before_reset = 1 is the cell PyTorch's nn.GRU (and cuDNN) computes; the row
  // is named gru_lbr. The plain gru rows use the ONNX default, 0 (two passes a step).
  bool linear_before_reset = false;
};

std::shared_ptr<RawBuffer> values(Device& d, DataType t, size_t n, uint32_t seed, float scale) {
  auto v = random_values(n, seed);
  for (auto& x : v) x *= scale;
  if (t == DataType::float32) return std::make_shared<Buffer<float>>(d.create_buffer(v));
  std::vector<float16> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = to_float16(v[i]);
  return std::make_shared<Buffer<float16>>(d.create_buffer(h));
}

}  // namespace

std::vector<Case> recurrent_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  CaseBuilder builder(device, options, keep);
  const bool quick = options.quick;
  std::vector<Layer> layers = {
      {RecurrentCell::lstm, true, 80, 1, 256, 256}, {RecurrentCell::lstm, true, 80, 8, 256, 256},
      {RecurrentCell::gru, false, 80, 1, 256, 256}, {RecurrentCell::lstm, false, quick ? 2u : 512u, 16, 1024, 1024},
      {RecurrentCell::lstm, true, 1, 1, 256, 256},  {RecurrentCell::lstm, false, 1, 1, 256, 256},
      {RecurrentCell::gru, false, 1, 1, 256, 256},  {RecurrentCell::gru, false, 80, 1, 256, 256, true},
  };
  // For what a persistent step costs: the large layer with one batch row (the same R, roles and
  // k loop, 1/16 of the state read a step), with hidden 256 (a quarter of the k loop and roles),
  // and as one step (the fixed costs).
  const std::vector<Layer> persistent_only = {
      {RecurrentCell::lstm, false, quick ? 2u : 512u, 1, 1024, 1024},
      {RecurrentCell::lstm, false, quick ? 2u : 512u, 16, 1024, 256},
      {RecurrentCell::lstm, false, 1, 16, 1024, 1024},
  };
  // Each layer in both schedules (the row's variant names the kernel: sequence.* or step.*), and the
  // float16 LSTM layers in the persistent one (persistent.*; its matrix product where the device
  // has one).
  for (DataType type : {DataType::float32, DataType::float16})
    for (RecurrentSchedule schedule :
         {RecurrentSchedule::passes, RecurrentSchedule::sequence, RecurrentSchedule::persistent}) {
      if (schedule == RecurrentSchedule::persistent && type != DataType::float16) continue;
      auto family = std::make_shared<Recurrent>(device, type, RecurrentOptions{.schedule = schedule});
      keep.push_back(family);
      std::vector<Layer> run = layers;
      if (schedule == RecurrentSchedule::persistent) run.insert(run.end(), persistent_only.begin(), persistent_only.end());
      for (const Layer& l : run) {
        if (schedule == RecurrentSchedule::persistent && l.cell != RecurrentCell::lstm) continue;
        const std::string op = l.cell == RecurrentCell::lstm ? "lstm" : l.linear_before_reset ? "gru_lbr" : "gru";
        const std::string shape = std::string(l.bidirectional ? "bidirectional" : "forward") + ".seq" +
                                  std::to_string(l.seq) + ".batch" + std::to_string(l.batch) + "." +
                                  std::to_string(l.input) + "x" + std::to_string(l.hidden);
        const std::string dtype(data_type_name(type));
        if (!builder.wants(op, dtype, shape)) continue;
        auto problem = std::make_shared<RecurrentProblem>();
        problem->cell = l.cell, problem->seq = l.seq, problem->batch = l.batch, problem->input = l.input;
        problem->hidden = l.hidden, problem->type = type;
        problem->linear_before_reset = l.linear_before_reset;
        problem->direction = l.bidirectional ? RecurrentDirection::bidirectional : RecurrentDirection::forward;
        const int64_t D = l.bidirectional ? 2 : 1, G = l.cell == RecurrentCell::lstm ? 4 : 3;
        const int64_t S = int64_t(l.seq), B = int64_t(l.batch), I = int64_t(l.input), H = int64_t(l.hidden);
        auto shapes =
            builder.keep(std::make_shared<std::vector<std::vector<int64_t>>>(std::vector<std::vector<int64_t>>{
                {S, B, I}, {D, G * H, I}, {D, G * H, H}, {D, 2 * G * H}, {S, D, B, H}, {D, B, H}}));
        const float scale = 1.0f / std::sqrt(float(H));
        auto x = builder.keep(values(device, type, size_t(S * B * I), 1, 1.0f));
        auto w = builder.keep(values(device, type, size_t(D * G * H * I), 2, scale));
        auto r = builder.keep(values(device, type, size_t(D * G * H * H), 3, scale));
        auto b = builder.keep(values(device, type, size_t(D * 2 * G * H), 4, scale));
        auto y = builder.keep(values(device, type, size_t(padded_length(type, uint64_t(S * D * B * H))), 5, 1.0f));
        auto yh = builder.keep(values(device, type, size_t(padded_length(type, uint64_t(D * B * H))), 6, 1.0f));
        auto yc = builder.keep(values(device, type, size_t(padded_length(type, uint64_t(D * B * H))), 7, 1.0f));
        const auto& s = *shapes;
        RecurrentTensors t;
        t.x = {x.get(), 0, s[0], {}, type}, t.w = {w.get(), 0, s[1], {}, type}, t.r = {r.get(), 0, s[2], {}, type};
        t.b = {b.get(), 0, s[3], {}, type}, t.y = {y.get(), 0, s[4], {}, type}, t.y_h = {yh.get(), 0, s[5], {}, type};
        if (l.cell == RecurrentCell::lstm) t.y_c = {yc.get(), 0, s[5], {}, type};
        const double macs = double(D) * double(S) * double(B) * double(G * H) * double(I + H);
        const double bytes = double(data_type_size(type)) * (double(S) * double(D * G * H * H) + double(D * G * H * I) +
                                                             double(S * B * I) + double(S * D * B * H));
        builder.add({op, dtype, shape, family->variant(*problem), 2.0 * macs, bytes,
                     [=](CommandEncoder& e) { family->encode(e, *problem, t); }});
      }
    }
  return builder.take();
}

const FamilyCases kRegistered("recurrent", &recurrent_cases);

}  // namespace onegpu::bench
