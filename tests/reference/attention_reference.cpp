#include "reference/attention_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onegpu::reference {

using kernels::AttentionLayout;
using kernels::AttentionMaskLayout;
using kernels::AttentionProblem;

AttentionLayout layout_or_default(const std::optional<AttentionLayout>& l, uint64_t heads, uint64_t rows,
                                  uint64_t head_dim) {
  return l.value_or(AttentionLayout{0, heads * rows * head_dim, rows * head_dim, head_dim});
}

AttentionMaskLayout mask_layout_or_default(const AttentionProblem& p) {
  return p.mask.value_or(AttentionMaskLayout{0, p.heads * p.query_length * p.key_length, p.query_length * p.key_length,
                                             p.key_length});
}

uint64_t attention_extent(const AttentionLayout& l, uint64_t batch, uint64_t heads, uint64_t rows, uint64_t width) {
  if (!batch || !heads || !rows || !width) return l.offset;
  return l.offset + (batch - 1) * l.batch_stride + (heads - 1) * l.head_stride + (rows - 1) * l.row_stride + width;
}

void attention(const AttentionProblem& p, std::span<const double> q, std::span<const double> k,
               std::span<const double> v, std::span<const double> mask, std::span<const int32_t> key_lengths,
               bool zero_rows, std::span<double> o) {
  const uint64_t kvh = p.kv_heads ? p.kv_heads : p.heads, group = p.heads / kvh, d = p.head_dim;
  const AttentionLayout lq = layout_or_default(p.q, p.heads, p.query_length, d);
  const AttentionLayout lk = layout_or_default(p.k, kvh, p.key_length, d);
  const AttentionLayout lv = layout_or_default(p.v, kvh, p.key_length, d);
  const AttentionLayout lo = layout_or_default(p.o, p.heads, p.query_length, d);
  const AttentionMaskLayout lm = mask_layout_or_default(p);
  const double scale = p.scale ? double(*p.scale) : double(float(1.0 / std::sqrt(double(d))));
  const int64_t offset = p.causal_offset.value_or(int64_t(p.key_length) - int64_t(p.query_length));
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<double> scores(p.key_length);
  std::vector<uint8_t> visible(p.key_length);
  for (uint64_t b = 0; b < p.batch; ++b)
    for (uint64_t h = 0; h < p.heads; ++h)
      for (uint64_t r = 0; r < p.query_length; ++r) {
        const uint64_t kh = h / group;
        int64_t limit = int64_t(p.key_length);
        if (!key_lengths.empty()) limit = std::clamp<int64_t>(key_lengths[b], 0, limit);
        bool bad = false;
        double top = -inf;
        for (uint64_t j = 0; j < p.key_length; ++j) {
          visible[j] = int64_t(j) < limit && (!p.causal || int64_t(j) <= int64_t(r) + offset);
          if (!visible[j]) continue;
          double s = 0;
          for (uint64_t e = 0; e < d; ++e)
            s += q[lq.offset + b * lq.batch_stride + h * lq.head_stride + r * lq.row_stride + e] *
                 k[lk.offset + b * lk.batch_stride + kh * lk.head_stride + j * lk.row_stride + e];
          s *= scale;
          if (!mask.empty()) s += mask[lm.offset + b * lm.batch_stride + h * lm.head_stride + r * lm.row_stride + j];
          if (std::isnan(s) || s == inf) bad = true;
          if (s == -inf) visible[j] = 0;
          scores[j] = s;
          if (visible[j] && !bad) top = std::max(top, s);
        }
        const uint64_t out = lo.offset + b * lo.batch_stride + h * lo.head_stride + r * lo.row_stride;
        if (bad || top == -inf) {
          const double fill = bad || !zero_rows ? nan : 0.0;
          for (uint64_t e = 0; e < d; ++e) o[out + e] = fill;
          continue;
        }
        double sum = 0;
        std::vector<double> acc(d, 0.0);
        for (uint64_t j = 0; j < p.key_length; ++j) {
          if (!visible[j]) continue;
          const double w = std::exp(scores[j] - top);
          sum += w;
          for (uint64_t e = 0; e < d; ++e)
            acc[e] += w * v[lv.offset + b * lv.batch_stride + kh * lv.head_stride + j * lv.row_stride + e];
        }
        for (uint64_t e = 0; e < d; ++e) o[out + e] = acc[e] / sum;
      }
}

std::vector<uint8_t> attention_written(const AttentionProblem& p, size_t size) {
  std::vector<uint8_t> w(size, 0);
  const AttentionLayout lo = layout_or_default(p.o, p.heads, p.query_length, p.head_dim);
  for (uint64_t b = 0; b < p.batch; ++b)
    for (uint64_t h = 0; h < p.heads; ++h)
      for (uint64_t r = 0; r < p.query_length; ++r)
        for (uint64_t e = 0; e < p.head_dim; ++e)
          w[lo.offset + b * lo.batch_stride + h * lo.head_stride + r * lo.row_stride + e] = 1;
  return w;
}

}  // namespace onegpu::reference
