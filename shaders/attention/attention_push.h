// Push constants of the attention kernels, shared by the host (src/kernels/attention) and GLSL.
// Every kernel that computes attention partials (the scalar rows and pairs kernels, and any
// matrix-hardware kernel) takes AttentionPush and writes the split-key partials in the layout
// below; the merge pass takes AttentionMergePush.
//
// Split-key partials (scratch, float32): for each batch entry b, head h, query row r and key range
// s, in that order of significance, OG_ATTN_PARTIAL_HEADER + head_dim floats:
//   [maximum score, sum of exp(score - maximum), accumulator[head_dim]]
// A range without a visible key stores (-inf, 0, zeros); one that met a NaN or +inf score stores
// NaN as its maximum.
#ifndef ONEGPU_ATTENTION_PUSH_H
#define ONEGPU_ATTENTION_PUSH_H
#include "common/layout.h"

#define OG_ATTN_WORKGROUP 64u        // invocations of every attention kernel
#define OG_ATTN_PARTIAL_HEADER 2u    // maximum and sum before each partial accumulator

// flags
#define OG_ATTN_MASK 1u         // an additive float32 mask is bound
#define OG_ATTN_KEY_LENGTHS 2u  // per-batch key lengths (int32) are bound
#define OG_ATTN_CAUSAL 4u       // key j is visible to row r only when j <= r + causal_offset
#define OG_ATTN_ZERO_ROWS 8u    // rows without a visible key give zeros (else NaN)
#define OG_ATTN_SPLIT 16u       // write partials to scratch (binding 3) instead of the output

struct AttentionPush {
  OG_U32 heads;
  OG_U32 group;         // query heads per key/value head
  OG_U32 query_length;
  OG_U32 key_length;
  OG_U32 head_dim;
  OG_U32 flags;
  OG_U32 causal_offset;  // a signed value (two's complement), clamped to [-query_length, key_length]
  OG_U32 splits;         // key ranges (1: none)
  OG_U32 key_chunk;      // keys per range (a multiple of 32; key_length without a split)
  OG_U32 first_workgroup;  // of the whole call, for a dispatch that records a piece of it
  OG_U32 workgroup_count;  // in this dispatch
  OG_F32 scale;
  // Layouts, in elements from the start of each binding: offset, batch, head and row strides.
  OG_U32 q_offset, q_batch, q_head, q_row;
  OG_U32 k_offset, k_batch, k_head, k_row;
  OG_U32 v_offset, v_batch, v_head, v_row;
  OG_U32 o_offset, o_batch, o_head, o_row;
  OG_U32 mask_offset, mask_batch, mask_head, mask_row;
};

struct AttentionMergePush {
  OG_U32 count;  // items: output rows times elements per row (float32) or words per row (16-bit)
  OG_U32 heads;
  OG_U32 query_length;
  OG_U32 head_dim;
  OG_U32 splits;
  OG_U32 flags;
  OG_U32 o_offset, o_batch, o_head, o_row;
};

#endif
