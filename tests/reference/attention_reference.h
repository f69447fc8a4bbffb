// Float64 reference of fused attention (kernels/attention.h), written from the definition: for
// each batch entry, head and query row, the visible keys' scores, their softmax and the weighted
// sum of value rows. Independent of the family's own planning code.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "onegpu/kernels/attention.h"

namespace onegpu::reference {

// O = softmax(scale Q K^T + mask) V over the problem's layouts (defaults filled as the header
// says), written into `o` at the output layout's elements. `mask` empty: none; `key_lengths`
// empty: none. Rows without a visible key get NaN, or zeros with `zero_rows`; rows with a NaN or
// +inf visible score get NaN.
void attention(const kernels::AttentionProblem& p, std::span<const double> q, std::span<const double> k,
               std::span<const double> v, std::span<const double> mask, std::span<const int32_t> key_lengths,
               bool zero_rows, std::span<double> o);

// Which elements of an output buffer of `size` elements the problem writes.
std::vector<uint8_t> attention_written(const kernels::AttentionProblem& p, size_t size);

// One past the highest element a layout of `heads` x `rows` rows of `width` reaches (offset when empty).
uint64_t attention_extent(const kernels::AttentionLayout& l, uint64_t batch, uint64_t heads, uint64_t rows,
                          uint64_t width);

// The layouts with defaults filled in.
kernels::AttentionLayout layout_or_default(const std::optional<kernels::AttentionLayout>& l, uint64_t heads,
                                           uint64_t rows, uint64_t head_dim);
kernels::AttentionMaskLayout mask_layout_or_default(const kernels::AttentionProblem& p);

}  // namespace onegpu::reference
