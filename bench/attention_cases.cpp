// Fused attention benchmark cases: the reference models' attention shapes (BERT-base, Whisper
// encoder, long causal self-attention with and without grouped heads, a decoder step over a 4096
// key cache, MiniLM). flops count 4 b h q k d (two products), halved for causal rows.
#include <map>

#include "harness.h"
#include "onegpu/kernels/attention.h"
#include "onegpu/numeric.h"

namespace onegpu::bench {

namespace {

struct Row {
  const char* name;
  DataType type;
  uint64_t batch, heads, kv_heads, query, key, dim;
  bool causal;
  bool position_first;
};

std::shared_ptr<RawBuffer> values(Device& device, DataType t, uint64_t n, uint32_t seed,
                                  std::vector<std::shared_ptr<void>>& keep) {
  const std::vector<float> v = random_values(n, seed);
  std::shared_ptr<RawBuffer> b;
  if (t == DataType::float32) {
    b = std::make_shared<Buffer<float>>(device.create_buffer(v));
  } else if (t == DataType::float16) {
    std::vector<float16> h(padded_length(t, n));
    for (uint64_t i = 0; i < n; ++i) h[i] = to_float16(v[i]);
    b = std::make_shared<Buffer<float16>>(device.create_buffer(h));
  } else {
    std::vector<bfloat16> h(padded_length(t, n));
    for (uint64_t i = 0; i < n; ++i) h[i] = to_bfloat16(v[i]);
    b = std::make_shared<Buffer<bfloat16>>(device.create_buffer(h));
  }
  keep.push_back(b);
  return b;
}

std::vector<Case> attention_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  CaseBuilder builder(device, options, keep);
  const DataType f16 = DataType::float16, f32 = DataType::float32;
  std::vector<Row> rows = {
      {"bert", f16, 8, 12, 12, 512, 512, 64, false, false},
      {"whisper_encoder", f16, 1, 12, 12, 1500, 1500, 64, false, true},
      {"causal", f16, 1, 32, 32, 4096, 4096, 128, true, false},
      {"gqa_causal", f16, 1, 32, 8, 4096, 4096, 128, true, false},
      {"decoder_step", f16, 1, 32, 8, 1, 4096, 128, false, false},
      {"bert", f32, 8, 12, 12, 512, 512, 64, false, false},
      {"minilm", f32, 8, 12, 12, 128, 128, 32, false, false},
  };
  if (options.quick)
    rows = {{"bert", f16, 1, 2, 2, 64, 64, 64, false, false},
            {"decoder_step", f16, 1, 4, 2, 1, 512, 128, false, false},
            {"minilm", f32, 1, 2, 2, 32, 32, 32, true, true}};
  std::map<DataType, std::shared_ptr<Attention>> families;
  for (const Row& r : rows) {
    const std::string shape = std::string(r.name) + " b" + std::to_string(r.batch) + " h" + std::to_string(r.heads) +
                              "/" + std::to_string(r.kv_heads) + " q" + std::to_string(r.query) + " k" +
                              std::to_string(r.key) + " d" + std::to_string(r.dim);
    const std::string dtype(data_type_name(r.type));
    if (!builder.wants("attention", dtype, shape)) continue;
    auto& family = families[r.type];
    if (!family) family = builder.keep(std::make_shared<Attention>(device, r.type));
    AttentionProblem p;
    p.batch = r.batch, p.heads = r.heads, p.kv_heads = r.kv_heads, p.query_length = r.query, p.key_length = r.key;
    p.head_dim = r.dim, p.causal = r.causal;
    if (r.position_first) {
      p.q = p.o = AttentionLayout::position_first(r.heads, r.query, r.dim);
      p.k = p.v = AttentionLayout::position_first(r.kv_heads, r.key, r.dim);
    }
    const uint64_t nq = r.batch * r.heads * r.query * r.dim, nk = r.batch * r.kv_heads * r.key * r.dim;
    auto q = values(device, r.type, nq, 1, keep), k = values(device, r.type, nk, 2, keep);
    auto v = values(device, r.type, nk, 3, keep), o = values(device, r.type, nq, 4, keep);
    double flops = 4.0 * double(r.batch * r.heads) * double(r.query) * double(r.key) * double(r.dim);
    if (r.causal) flops /= 2;
    const double bytes = double(data_type_size(r.type)) * double(2 * nq + 2 * nk);
    auto att = family;
    builder.add({"attention", dtype, shape, att->variant(p), flops, bytes,
                 [=](CommandEncoder& e) { att->encode(e, p, *q, *k, *v, *o); }});
  }
  return builder.take();
}

const FamilyCases kRegistered("attention", &attention_cases);

}  // namespace

}  // namespace onegpu::bench
