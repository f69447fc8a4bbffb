#version 450
// Fused attention on workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2), float16 Q,
// K, V and O with float32 scores, sums and accumulators, head dimension padded to DP (32, 64 or
// 128). A workgroup of THREADS invocations owns BR query rows and walks its keys in tiles of BC,
// in increasing order; the driver spreads every matrix over the workgroup and stages the operands
// itself, so the kernel is written as whole-matrix operations:
//
//   S  = Q Kᵀ · scale · log2(e) (+ mask · log2(e)), hidden keys set to -inf (ragged and diagonal
//        tiles only)
//   M' = max(M, rowmax(S));  P = exp2(S - M');  e = exp2(M - M')
//   P is rounded to float16 once; L = e L + rowsum(P) (a product with a BC x 16 matrix of ones,
//   so the sum adds the rounded values the product with V sees); O = e O + P V.
//
// The per-row state (maximum, sum, scale) lives in BR x 16 matrices, "smeared": every column of
// a row holds the row's value, so per-row operations are element-wise operations between matrices
// of one layout, and a row reduction spreads them to BR x BC (the subtracted maximum) or BR x DP
// (the accumulator's scale, the final sum). Keeping them BR x BC instead (an exponential per score
// for e, the sum as a BC x BC product) was 13-17% slower on the H200 at head dimension 128 and 51%
// slower on the Whisper encoder; summing by a row reduction instead of the product, 4-6%. Scores are
// in log2 units and exponentials are exp2. A row whose maximum is still -inf subtracts 0 instead
// (no -inf - -inf), and an unchanged maximum scales by exactly 1.
//
// Special values follow the scalar kernels: hidden keys weigh 0; a NaN or +inf score makes the
// row's sum NaN; a row with no visible key has a zero sum and gives NaN or zeros
// (OG_ATTN_ZERO_ROWS). As in the subgroup matrix kernel, a key hidden by a -inf mask value or the
// causal rule inside the walked range is multiplied by a zero probability (a NaN in its value row
// spreads); keys past the key length are read as zeros.
//
// The output is written element by element as 16-bit words (so one binding serves the float16
// output and, with OG_ATTN_SPLIT, the float32 partials as pairs of words, bit for bit).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
#include "attention/attention_push.h"
#include "common/grid.glsl"

#ifndef DP
#define DP 64
#endif
#ifndef BR
#define BR 64       // query rows per workgroup
#endif
#ifndef BC
#define BC 64       // keys per tile
#endif
#ifndef THREADS
#define THREADS 128
#endif
#define LOG2E 1.4426950408889634
#define LN2 0.6931471805599453
#define NEG_INF (-1.0 / 0.0)
#define NO_LIMIT 0x3fffffff  // a causal limit no key reaches

layout(local_size_x = THREADS) in;
layout(push_constant) uniform Push { AttentionPush p; };
layout(std430, binding = 0) readonly buffer BufQ { float16_t q_data[]; };
layout(std430, binding = 1) readonly buffer BufK { float16_t k_data[]; };
layout(std430, binding = 2) readonly buffer BufV { float16_t v_data[]; };
// The output (float16 bits), or the scratch of partials (float32 bits, low word first).
layout(std430, binding = 3) writeonly buffer BufO { uint16_t o_bits[]; };
layout(std430, binding = 4) readonly buffer BufMask { float mask_data[]; };
layout(std430, binding = 5) readonly buffer BufLengths { int key_lengths[]; };

#define ROWS_F32 coopmat<float, gl_ScopeWorkgroup, BR, BC, gl_MatrixUseAccumulator>
#define ROW_W 16  // columns of the per-row state matrices
#define ROW_F32 coopmat<float, gl_ScopeWorkgroup, BR, ROW_W, gl_MatrixUseAccumulator>
#define OUT_F32 coopmat<float, gl_ScopeWorkgroup, BR, DP, gl_MatrixUseAccumulator>
#define CLAMPED tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV>

float max_of(const in float a, const in float b) { return max(a, b); }
float max_elem(const in uint r, const in uint c, const in float a, const in float b) { return max(a, b); }
float smear(const in float a, const in float b) { return a; }

// Hides keys at or past kv_end and, for causal calls, past row + causal offset (limit0 is the
// first row's limit).
float hide(const in uint r, const in uint c, const in float s, const in uint key0, const in uint kv_end,
           const in int limit0) {
  const uint key = key0 + c;
  return key < kv_end && int(key) <= limit0 + int(r) ? s : NEG_INF;
}
// The value subtracted before exp2: the row maximum, or 0 while it is -inf.
float base_of(const in uint r, const in uint c, const in float m) { return m == NEG_INF ? 0.0 : m; }
float prob(const in uint r, const in uint c, const in float s, const in float base) { return exp2(s - base); }
// exp2(old - new), exactly 1 when the maximum did not change (also while both are -inf).
float rescale(const in uint r, const in uint c, const in float old_max, const in float new_max) {
  return old_max == new_max ? 1.0 : exp2(old_max - new_max);
}

void put_float(const in uint at, const in float v) {
  const uint bits = floatBitsToUint(v);
  o_bits[2u * at] = uint16_t(bits & 0xffffu);
  o_bits[2u * at + 1u] = uint16_t(bits >> 16u);
}

// O / L as float16 at row0 + r (NaN or zeros where L is 0).
float store_out(const in uint r, const in uint c, const in float o, const in float l, const in uint row0,
                const in uint o_base) {
  const uint row = row0 + r;
  if (row < p.query_length && c < p.head_dim) {
    float v = o / l;
    if (l == 0.0) v = (p.flags & OG_ATTN_ZERO_ROWS) != 0u ? 0.0 : uintBitsToFloat(0x7fc00000u);
    o_bits[o_base + row * p.o_row + c] = float16BitsToUint16(float16_t(v));
  }
  return o;
}
// Partials of row row0 + r: the accumulator, then (column 0) the maximum in natural units (NaN
// where the sum is) and the sum.
float store_partial(const in uint r, const in uint c, const in float o, const in uint row0, const in uint first) {
  const uint row = row0 + r;
  if (row < p.query_length && c < p.head_dim)
    put_float(first + row * p.splits * (p.head_dim + OG_ATTN_PARTIAL_HEADER) + OG_ATTN_PARTIAL_HEADER + c, o);
  return o;
}
float store_header(const in uint r, const in uint c, const in float l, const in float m, const in uint row0,
                   const in uint first) {
  const uint row = row0 + r;
  if (row < p.query_length && c == 0u) {
    const uint at = first + row * p.splits * (p.head_dim + OG_ATTN_PARTIAL_HEADER);
    put_float(at, isnan(l) ? uintBitsToFloat(0x7fc00000u) : m * float(LN2));
    put_float(at + 1u, l);
  }
  return l;
}

void main() {
  const uint local_wg = og_workgroup_index();
  if (local_wg >= p.workgroup_count) return;
  const uint wg = p.first_workgroup + local_wg;
  const uint query_blocks = (p.query_length + BR - 1u) / BR;
  const uint split = wg % p.splits;
  const uint rest = wg / p.splits;
  // The last query blocks first: under the causal rule they walk the most keys.
  const uint block = query_blocks - 1u - rest % query_blocks;
  const uint bh = rest / query_blocks;
  const uint b = bh / p.heads, h = bh % p.heads;
  const uint kvh = h / p.group;
  const uint row0 = block * BR;
  const int causal_offset = int(p.causal_offset);
  const bool causal = (p.flags & OG_ATTN_CAUSAL) != 0u, has_mask = (p.flags & OG_ATTN_MASK) != 0u;
  // Offsets and strides of Q, K and V are multiples of 8 (the plan checks): the masks tell the
  // compiler so.
  const uint qbase = (p.q_offset + b * p.q_batch + h * p.q_head) & ~7u;
  const uint kbase = (p.k_offset + b * p.k_batch + kvh * p.k_head) & ~7u;
  const uint vbase = (p.v_offset + b * p.v_batch + kvh * p.v_head) & ~7u;
  const uint mbase = p.mask_offset + b * p.mask_batch + h * p.mask_head;
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
  const int limit0 = causal ? int(row0) + causal_offset : NO_LIMIT;

  // Rows past the query length and columns past the head dimension read as zeros; so do keys
  // past kv_end (never read from memory).
  CLAMPED lq = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  lq = setTensorLayoutDimensionNV(lq, p.query_length, p.head_dim);
  lq = setTensorLayoutStrideNV(lq, p.q_row & ~7u, 1);
  CLAMPED lk = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  lk = setTensorLayoutDimensionNV(lk, kv_end, p.head_dim);
  lk = setTensorLayoutStrideNV(lk, p.k_row & ~7u, 1);
  CLAMPED lv = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  lv = setTensorLayoutDimensionNV(lv, kv_end, p.head_dim);
  lv = setTensorLayoutStrideNV(lv, p.v_row & ~7u, 1);
  // Whole tiles of full-width rows load without bounds checks.
  tensorLayoutNV<2> uk = createTensorLayoutNV(2);
  uk = setTensorLayoutDimensionNV(uk, kv_end, DP);
  uk = setTensorLayoutStrideNV(uk, p.k_row & ~7u, 1);
  tensorLayoutNV<2> uv = createTensorLayoutNV(2);
  uv = setTensorLayoutDimensionNV(uv, kv_end, DP);
  uv = setTensorLayoutStrideNV(uv, p.v_row & ~7u, 1);
  CLAMPED lm = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  lm = setTensorLayoutDimensionNV(lm, p.query_length, p.key_length);
  lm = setTensorLayoutStrideNV(lm, p.mask_row, 1);
  const tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);

  coopmat<float16_t, gl_ScopeWorkgroup, BR, DP, gl_MatrixUseA> qm;
  coopMatLoadTensorNV(qm, q_data, qbase, sliceTensorLayoutNV(lq, row0, BR, 0, DP));

  const coopmat<float16_t, gl_ScopeWorkgroup, BC, ROW_W, gl_MatrixUseB> ones =
      coopmat<float16_t, gl_ScopeWorkgroup, BC, ROW_W, gl_MatrixUseB>(1.0);
  OUT_F32 o = OUT_F32(0.0);
  ROW_F32 l = ROW_F32(0.0);
  ROW_F32 m = ROW_F32(NEG_INF);
  const bool wide = p.head_dim == DP;

  [[dont_unroll]] for (uint key0 = k_begin; key0 < kv_end; key0 += BC) {
    const bool whole = key0 + BC <= kv_end;
    coopmat<float16_t, gl_ScopeWorkgroup, DP, BC, gl_MatrixUseB> kt;
    if (whole && wide)
      coopMatLoadTensorNV(kt, k_data, kbase, sliceTensorLayoutNV(uk, key0, BC, 0, DP), transposed);
    else
      coopMatLoadTensorNV(kt, k_data, kbase, sliceTensorLayoutNV(lk, key0, BC, 0, DP), transposed);
    ROWS_F32 s = coopMatMulAdd(qm, kt, ROWS_F32(0.0));
    s = s * scale_log2;
    if (has_mask) {
      ROWS_F32 mk;
      coopMatLoadTensorNV(mk, mask_data, mbase, sliceTensorLayoutNV(lm, row0, BR, key0, BC));
      s = s + mk * float(LOG2E);
    }
    if (!whole || (causal && int(key0 + BC - 1u) > limit0)) coopMatPerElementNV(s, s, hide, key0, kv_end, limit0);

    ROW_F32 tile_max, m_new, base_row, e;
    ROWS_F32 pr;
    coopMatReduceNV(tile_max, s, gl_CooperativeMatrixReduceRowNV, max_of);
    coopMatPerElementNV(m_new, tile_max, max_elem, m);  // max(tile maximum, old maximum)
    coopMatPerElementNV(base_row, m_new, base_of);
    coopMatPerElementNV(e, m, rescale, m_new);
    m = m_new;
    ROWS_F32 base;
    coopMatReduceNV(base, base_row, gl_CooperativeMatrixReduceRowNV, smear);
    coopMatPerElementNV(pr, s, prob, base);

    const coopmat<float16_t, gl_ScopeWorkgroup, BR, BC, gl_MatrixUseA> pa =
        coopmat<float16_t, gl_ScopeWorkgroup, BR, BC, gl_MatrixUseA>(pr);
    l = e * l + coopMatMulAdd(pa, ones, ROW_F32(0.0));
    OUT_F32 e_wide;
    coopMatReduceNV(e_wide, e, gl_CooperativeMatrixReduceRowNV, smear);
    o = o * e_wide;

    coopmat<float16_t, gl_ScopeWorkgroup, BC, DP, gl_MatrixUseB> vm;
    if (whole && wide)
      coopMatLoadTensorNV(vm, v_data, vbase, sliceTensorLayoutNV(uv, key0, BC, 0, DP));
    else
      coopMatLoadTensorNV(vm, v_data, vbase, sliceTensorLayoutNV(lv, key0, BC, 0, DP));
    o = coopMatMulAdd(pa, vm, o);
  }

  if ((p.flags & OG_ATTN_SPLIT) != 0u) {
    const uint first = (bh * p.query_length * p.splits + split) * (p.head_dim + OG_ATTN_PARTIAL_HEADER);
    coopMatPerElementNV(o, o, store_partial, row0, first);
    coopMatPerElementNV(l, l, store_header, m, row0, first);
  } else {
    OUT_F32 l_wide;
    coopMatReduceNV(l_wide, l, gl_CooperativeMatrixReduceRowNV, smear);
    const uint o_base = p.o_offset + b * p.o_batch + h * p.o_head;
    coopMatPerElementNV(o, o, store_out, l_wide, row0, o_base);
  }
}
