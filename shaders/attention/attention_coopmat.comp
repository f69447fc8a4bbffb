#version 450
// Fused attention on cooperative matrices (VK_KHR_cooperative_matrix), float16 (ELEM 1) or
// bfloat16 (ELEM 2) Q, K, V and O with float32 accumulation, head dimension padded to DP (a
// multiple of 16, at most 128). A workgroup of SG subgroups of 32 owns 16 * SG query rows (16 per
// subgroup) and walks the keys in tiles of BC, in increasing order.
//
// Per tile: the K and V rows are staged through workgroup memory (the next tile's loads travel in
// registers while this one is computed); each subgroup forms S^T = K Q^T on the matrix units
// (Q^T stays in registers as B operands), stores it to its own score tile, and the lanes turn it
// into probabilities: lane l owns row l & 15 and every other group of four keys. The
// probabilities are rounded to the element type, written to the subgroup's probability tile and
// multiplied by V into the 16 x DP accumulator. Both lanes of a row meet in one shuffle per tile
// for the maximum and one for the sum (two numbers each; the order does not matter).
//
// An accumulator cannot be scaled per row in place (its element layout is not specified), so the
// kernel keeps a reference maximum per row instead of the running maximum: it is set by the first
// tile with a visible key and raised only when a tile's maximum exceeds it by more than REF_SLACK
// (in log2 units), which keeps every probability below 2^REF_SLACK. Raising it rescales the
// row's sum and, through the score tile, its accumulator; on random data that happens at most a
// few times per row. Whether it happens depends only on the data, so the bits are repeatable.
// Scores are kept in log2 units (scale * log2(e) folded in) and exponentials are exp2.
//
// Special values follow the scalar kernels: hidden keys (mask -inf, key length, causal) weigh 0;
// a NaN or +inf score makes the row's sum NaN (exp2(NaN) or exp2(inf - inf)), so its output NaN;
// a row with no visible key has a zero sum and gives NaN or zeros (OG_ATTN_ZERO_ROWS).
//
// With OG_ATTN_SPLIT the workgroup walks one key range and writes its partials (maximum in natural
// units, sum, accumulator; attention_push.h) for the merge pass.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#if ELEM == 2
#extension GL_EXT_bfloat16 : require
#define ELEM_T bfloat16_t
#else
#define ELEM_T float16_t
#endif
#include "attention/attention_push.h"
#include "common/grid.glsl"

#ifndef DP
#define DP 64u     // head dimension padded to a multiple of 16
#endif
#ifndef BC
#define BC 32u     // keys per tile
#endif
#ifndef SG
#define SG 4u      // subgroups per workgroup
#endif
#define THREADS (32u * SG)
#define BR (16u * SG)             // query rows per workgroup
#define FD (DP / 16u)             // 16-wide column blocks of the head dimension
#define FC (BC / 16u)             // 16-key blocks of a tile
#define LD8 ((DP + 8u) / 8u)      // uvec4 per staged row of Q, K and V (eight elements padding)
#define LDS4 ((BC + 4u) / 4u)     // vec4 per row of a subgroup's score tile
#define LDP ((BC + 8u) / 8u)      // uvec4 per row of a subgroup's probability tile
#define REF_SLACK 11.0            // log2 units: probabilities stay below 2^11
#define LOG2E 1.4426950408889634
#define LN2 0.6931471805599453
#define NEG_INF (-1.0 / 0.0)

layout(local_size_x = THREADS) in;
layout(push_constant) uniform Push { AttentionPush p; };
layout(std430, binding = 0) readonly buffer BufQ { uvec4 q8[]; };
layout(std430, binding = 1) readonly buffer BufK { uvec4 k8[]; };
layout(std430, binding = 2) readonly buffer BufV { uvec4 v8[]; };
// The output (two elements per word), or the scratch of partials with OG_ATTN_SPLIT.
layout(std430, binding = 3) writeonly buffer BufO { uint o_words[]; };
layout(std430, binding = 4) readonly buffer BufMask { float mask_data[]; };
layout(std430, binding = 5) readonly buffer BufLengths { int key_lengths[]; };

#define KV_TILE (BC * LD8)
#define Q_TILE (BR * LD8)
#define MAX2(x, y) ((x) > (y) ? (x) : (y))
shared uvec4 kv_smem[MAX2(2u * KV_TILE, Q_TILE)];  // Q at the start, then the K and V tiles
shared vec4 s_stage[SG * 16u * LDS4];              // per subgroup: scores, or accumulator blocks
shared uvec4 p_stage[SG * 16u * LDP];              // per subgroup: probabilities

#define KV_LOADS ((BC * DP / 8u + THREADS - 1u) / THREADS)
uvec4 rk[KV_LOADS], rv[KV_LOADS];  // the next tile on its way to workgroup memory

// Rows past kv_end and columns past the head dimension are zeros (a zero V row times a zero
// probability stays zero whatever the buffer holds beyond the tensor).
void load_kv(uint key0, uint kv_end, uint kbase, uint vbase) {
  [[unroll]] for (uint l = 0u; l < KV_LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + THREADS * l;
    const uint key = key0 + idx / (DP / 8u), c = (idx % (DP / 8u)) * 8u;
    rk[l] = uvec4(0u);
    rv[l] = uvec4(0u);
    if (idx < BC * DP / 8u && key < kv_end && c < p.head_dim) {
      rk[l] = k8[(kbase + key * p.k_row + c) / 8u];
      rv[l] = v8[(vbase + key * p.v_row + c) / 8u];
    }
  }
}

void store_kv() {
  [[unroll]] for (uint l = 0u; l < KV_LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + THREADS * l;
    if (idx < BC * DP / 8u) {
      const uint at = (idx / (DP / 8u)) * LD8 + idx % (DP / 8u);
      kv_smem[at] = rk[l];
      kv_smem[KV_TILE + at] = rv[l];
    }
  }
}

uint pack_pair(vec2 v) {
#if ELEM == 2
  return uint(bfloat16BitsToUintEXT(bfloat16_t(v.x))) | (uint(bfloat16BitsToUintEXT(bfloat16_t(v.y))) << 16);
#else
  return packFloat2x16(f16vec2(v));
#endif
}

void main() {
  const uint local_wg = og_workgroup_index();
  if (local_wg >= p.workgroup_count) return;
  const uint wg = p.first_workgroup + local_wg;
  const uint query_blocks = (p.query_length + BR - 1u) / BR;
  const uint split = wg % p.splits;
  const uint rest = wg / p.splits;
  const uint block = rest % query_blocks;
  const uint bh = rest / query_blocks;
  const uint b = bh / p.heads, h = bh % p.heads;
  const uint kvh = h / p.group;
  const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint r16 = lane & 15u, half_ = lane >> 4u;
  const uint row0 = block * BR;
  const int causal_offset = int(p.causal_offset);
  const uint qbase = p.q_offset + b * p.q_batch + h * p.q_head;
  const uint kbase = p.k_offset + b * p.k_batch + kvh * p.k_head;
  const uint vbase = p.v_offset + b * p.v_batch + kvh * p.v_head;
  const uint mbase = p.mask_offset + b * p.mask_batch + h * p.mask_head;
  const bool causal = (p.flags & OG_ATTN_CAUSAL) != 0u, has_mask = (p.flags & OG_ATTN_MASK) != 0u;
  const float scale_log2 = p.scale * float(LOG2E);

  // The keys this workgroup walks: its range, cut at the batch entry's key length and at the last
  // key the causal rule shows to its last row.
  const uint k_begin = split * p.key_chunk;
  uint kv_end = min(k_begin + p.key_chunk, p.key_length);
  if ((p.flags & OG_ATTN_KEY_LENGTHS) != 0u) kv_end = min(kv_end, uint(clamp(key_lengths[b], 0, int(p.key_length))));
  if (causal) {
    const int last_row = int(min(row0 + BR, p.query_length)) - 1;
    kv_end = min(kv_end, uint(clamp(last_row + causal_offset + 1, 0, int(p.key_length))));
  }

  // Q: BR rows staged through workgroup memory (zeros past the rows and the head dimension); each
  // subgroup keeps its 16 rows as the B operands of S^T = K Q^T.
  for (uint idx = gl_LocalInvocationIndex; idx < BR * DP / 8u; idx += THREADS) {
    const uint r = row0 + idx / (DP / 8u), c = (idx % (DP / 8u)) * 8u;
    uvec4 v = uvec4(0u);
    if (r < p.query_length && c < p.head_dim) v = q8[(qbase + r * p.q_row + c) / 8u];
    kv_smem[(idx / (DP / 8u)) * LD8 + idx % (DP / 8u)] = v;
  }
  barrier();
  coopmat<ELEM_T, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> qf[FD];
  [[unroll]] for (uint kk = 0u; kk < FD; ++kk)
    coopMatLoad(qf[kk], kv_smem, (sg * 16u) * LD8 + kk * 2u, LD8, gl_CooperativeMatrixLayoutColumnMajor);

  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[FD];
  [[unroll]] for (uint f = 0u; f < FD; ++f)
    acc[f] = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);

  // This lane's row (both lanes of a row hold the same state).
  const uint row = row0 + sg * 16u + r16;
  const uint srow0 = row0 + sg * 16u;  // the subgroup's first row
  const uint mrow = mbase + row * p.mask_row;
  const bool live = row < p.query_length;
  float m_ref = NEG_INF, l_sum = 0.0;
  bool started = false;  // a tile has been accumulated (uniform over the subgroup)
  const uint s_base = sg * 16u * LDS4, p_base = sg * 16u * LDP;

  const uint tiles = kv_end > k_begin ? (kv_end - k_begin + BC - 1u) / BC : 0u;
  if (tiles > 0u) load_kv(k_begin, kv_end, kbase, vbase);
  for (uint t = 0u; t < tiles; ++t) {
    const uint key0 = k_begin + t * BC;
    barrier();  // Q, or the previous tile, is read
    store_kv();
    barrier();
    if (t + 1u < tiles) load_kv(key0 + BC, kv_end, kbase, vbase);

    // S^T = K Q^T, stored transposed: the subgroup's [16][BC] score tile.
    [[unroll]] for (uint j = 0u; j < FC; ++j) {
      coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> s =
          coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
      [[unroll]] for (uint kk = 0u; kk < FD; ++kk) {
        coopmat<ELEM_T, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> kf;
        coopMatLoad(kf, kv_smem, (j * 16u) * LD8 + kk * 2u, LD8, gl_CooperativeMatrixLayoutRowMajor);
        s = coopMatMulAdd(kf, qf[kk], s);
      }
      coopMatStore(s, s_stage, s_base + j * 4u, LDS4, gl_CooperativeMatrixLayoutColumnMajor);
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();

    // This lane's scores (keys 4 (half_ + 2 c) + e), in log2 units. A tile every key of which is
    // visible to every row of the subgroup skips the per-key checks.
    const bool full = key0 + BC <= kv_end && (!causal || int(key0 + BC - 1u) <= int(srow0) + causal_offset);
    const int limit = causal ? int(row) + causal_offset : int(kv_end) - 1;
    float sc[BC / 2u];
    float bmax = NEG_INF;
    [[unroll]] for (uint c = 0u; c < BC / 8u; ++c) {
      const uint col = 4u * (half_ + 2u * c);
      const vec4 sv = s_stage[s_base + r16 * LDS4 + col / 4u];
      [[unroll]] for (uint e = 0u; e < 4u; ++e) {
        const uint key = key0 + col + e;
        const bool visible = live && (full || (key < kv_end && int(key) <= limit));
        float s2 = visible ? sv[e] * scale_log2 : NEG_INF;
        if (visible && has_mask) s2 += mask_data[mrow + key] * float(LOG2E);
        sc[4u * c + e] = s2;
        bmax = max(bmax, s2);
      }
    }
    bmax = max(bmax, subgroupShuffleXor(bmax, 16u));
    const bool raise_row = bmax > m_ref + REF_SLACK || (m_ref == NEG_INF && bmax > NEG_INF);
    const float m_new = raise_row ? bmax : m_ref;
    const float factor = raise_row ? exp2(m_ref - m_new) : 1.0;

    // Probabilities rounded to the element type; the sum adds the rounded values.
    const float mm = m_new == NEG_INF ? 0.0 : m_new;
    float psum = 0.0;
    [[unroll]] for (uint c = 0u; c < BC / 8u; ++c) {
      const uint col = 4u * (half_ + 2u * c);
      const vec4 pv = exp2(vec4(sc[4u * c], sc[4u * c + 1u], sc[4u * c + 2u], sc[4u * c + 3u]) - vec4(mm));
#if ELEM == 2
      const vec4 pr = vec4(float(bfloat16_t(pv.x)), float(bfloat16_t(pv.y)), float(bfloat16_t(pv.z)), float(bfloat16_t(pv.w)));
#else
      const vec4 pr = vec4(f16vec4(pv));
#endif
      psum += (pr.x + pr.y) + (pr.z + pr.w);
      const uvec2 pw = uvec2(pack_pair(pr.xy), pack_pair(pr.zw));
      if (half_ == 0u) p_stage[p_base + r16 * LDP + col / 8u].xy = pw;
      else p_stage[p_base + r16 * LDP + col / 8u].zw = pw;
    }
    psum += subgroupShuffleXor(psum, 16u);
    l_sum = l_sum * factor + psum;
    m_ref = m_new;

    // A raised reference rescales the rows' accumulators through the score tile.
    if (subgroupAny(raise_row) && started) {
      [[unroll]] for (uint f = 0u; f < FD; ++f) {
        subgroupBarrier();
        coopMatStore(acc[f], s_stage, s_base, 4u, gl_CooperativeMatrixLayoutRowMajor);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        [[unroll]] for (uint c = 0u; c < 2u; ++c) s_stage[s_base + r16 * 4u + half_ + 2u * c] *= factor;
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        coopMatLoad(acc[f], s_stage, s_base, 4u, gl_CooperativeMatrixLayoutRowMajor);
      }
    }
    started = true;
    subgroupMemoryBarrierShared();
    subgroupBarrier();

    // O += P V.
    [[unroll]] for (uint kc = 0u; kc < FC; ++kc) {
      coopmat<ELEM_T, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> pf;
      coopMatLoad(pf, p_stage, p_base + kc * 2u, LDP, gl_CooperativeMatrixLayoutRowMajor);
      [[unroll]] for (uint n = 0u; n < FD; ++n) {
        coopmat<ELEM_T, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> vf;
        coopMatLoad(vf, kv_smem, KV_TILE + (kc * 16u) * LD8 + n * 2u, LD8, gl_CooperativeMatrixLayoutRowMajor);
        acc[n] = coopMatMulAdd(pf, vf, acc[n]);
      }
    }
  }

  // The result: O = acc / sum (two elements per word), or the range's partials.
  const bool split_out = (p.flags & OG_ATTN_SPLIT) != 0u;
  const float nan = uintBitsToFloat(0x7fc00000u);
  const uint o_base = p.o_offset + b * p.o_batch + h * p.o_head + row * p.o_row;
  const uint part = ((bh * p.query_length + row) * p.splits + split) * (p.head_dim + OG_ATTN_PARTIAL_HEADER);
  if (split_out && live && half_ == 0u) {
    // A NaN sum (a NaN or +inf score) is reported as a NaN maximum, as the scalar kernels do.
    o_words[part] = floatBitsToUint(isnan(l_sum) ? nan : m_ref * float(LN2));
    o_words[part + 1u] = floatBitsToUint(l_sum);
  }
  const bool zero_rows = (p.flags & OG_ATTN_ZERO_ROWS) != 0u;
  [[unroll]] for (uint f = 0u; f < FD; ++f) {
    subgroupBarrier();
    coopMatStore(acc[f], s_stage, s_base, 4u, gl_CooperativeMatrixLayoutRowMajor);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    [[unroll]] for (uint c = 0u; c < 2u; ++c) {
      const uint q4 = half_ + 2u * c;           // this lane's group of four columns
      const vec4 a = s_stage[s_base + r16 * 4u + q4];
      const uint d = f * 16u + q4 * 4u;
      if (!live) continue;
      if (split_out) {
        [[unroll]] for (uint e = 0u; e < 4u; ++e)
          if (d + e < p.head_dim) o_words[part + OG_ATTN_PARTIAL_HEADER + d + e] = floatBitsToUint(a[e]);
      } else {
        vec4 o = a / l_sum;
        if (l_sum == 0.0) o = vec4(zero_rows ? 0.0 : nan);
        if (d < p.head_dim) o_words[(o_base + d) / 2u] = pack_pair(o.xy);
        if (d + 2u < p.head_dim) o_words[(o_base + d) / 2u + 1u] = pack_pair(o.zw);
      }
    }
  }
}
