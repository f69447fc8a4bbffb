// Staging for the kernels that multiply words of four signed bytes along k (packed dot,
// cooperative matrices): one k step of BM rows of op(A) and BN columns of op(B), as words of four
// consecutive k, unsigned bytes shifted by 128 (XOR 0x80), zero past the edges. The including
// shader defines BM, BN, KW (words per row: BK / 4), THREADS and the staged element AS(r, kw) /
// BS(c, kw), and has the flags' booleans in scope (see stage_step's parameters).

// Four k of one row of op(A) (column of op(B)) from k `gk` on: one word where k is contiguous and
// word aligned, else byte by byte.
uint pack4(bool is_a, uint base, uint line, uint ld, uint gk, bool trans, bool words, bool is_signed) {
  const uint flip = is_signed ? 0u : 0x80808080u;
  const bool k_contiguous = is_a ? !trans : trans;
  if (k_contiguous && words && gk + 3u < p.k) {
    const uint i = base + line * ld + gk;
    return (is_a ? a_words[i >> 2] : b_words[i >> 2]) ^ flip;
  }
  uint w = 0u;
  [[unroll]] for (uint q = 0u; q < 4u; ++q) {
    if (gk + q < p.k) {
      const uint i = base + (k_contiguous ? line * ld + gk + q : (gk + q) * ld + line);
      const uint byte = raw_byte(is_a ? a_words[i >> 2] : b_words[i >> 2], i);
      w |= ((byte ^ (flip & 0xffu)) & 0xffu) << (8u * q);
    }
  }
  return w;
}

// Byte j of each of four words, as one word (a 4 x 4 byte transpose, one column).
uint column4(uvec4 w, uint j) {
  const int s = int(8u * j);
  return bitfieldExtract(w.x, s, 8) | (bitfieldExtract(w.y, s, 8) << 8) | (bitfieldExtract(w.z, s, 8) << 16) |
         (bitfieldExtract(w.w, s, 8) << 24);
}

// An operand stored with k across rows (A stored K x M, B stored K x N) and word-aligned lines:
// each invocation reads four words (four k of four lines) and transposes them.
#define OG_STAGE_KMAJOR(IS_A, WORDS, BASE, LD, FIRST, LINES, LIMIT, STORE, SIGNED)                          \
  for (uint e = tid; e < KW * (LINES / 4u); e += THREADS) {                                              \
    const uint kw = e / (LINES / 4u), l = (e % (LINES / 4u)) * 4u, gk = k0 + 4u * kw, gl = FIRST + l;   \
    const uint flip = SIGNED ? 0u : 0x80808080u;                                                           \
    if (gl + 3u < LIMIT && gk + 3u < p.k) {                                                                \
      uvec4 w;                                                                                             \
      [[unroll]] for (uint q = 0u; q < 4u; ++q) w[q] = WORDS[(BASE + (gk + q) * LD + gl) >> 2];            \
      [[unroll]] for (uint j = 0u; j < 4u; ++j) STORE(l + j, kw) = column4(w, j) ^ flip;                  \
    } else {                                                                                               \
      [[unroll]] for (uint j = 0u; j < 4u; ++j)                                                           \
        STORE(l + j, kw) = gl + j < LIMIT ? pack4(IS_A, BASE, gl + j, LD, gk, IS_A, false, SIGNED) : 0u;  \
    }                                                                                                      \
  }

// One k step from k0 into the staged tiles.
void stage_step(uint tid, uint k0, uint row0, uint col0, uint base_a, uint base_b, bool trans_a, bool trans_b,
                bool a_words_ok, bool b_words_ok, bool a_signed, bool b_signed) {
  if (trans_a && a_words_ok) {
    OG_STAGE_KMAJOR(true, a_words, base_a, p.lda, row0, BM, p.m, AS, a_signed)
  } else {
    for (uint e = tid; e < BM * KW; e += THREADS) {
      const uint r = trans_a ? e % BM : e / KW, kw = trans_a ? e / BM : e % KW;
      AS(r, kw) = row0 + r < p.m ? pack4(true, base_a, row0 + r, p.lda, k0 + 4u * kw, trans_a, a_words_ok, a_signed) : 0u;
    }
  }
  if (!trans_b && b_words_ok) {
    OG_STAGE_KMAJOR(false, b_words, base_b, p.ldb, col0, BN, p.n, BS, b_signed)
  } else {
    for (uint e = tid; e < BN * KW; e += THREADS) {
      const uint c = trans_b ? e / KW : e % BN, kw = trans_b ? e % KW : e / BN;
      BS(c, kw) = col0 + c < p.n ? pack4(false, base_b, col0 + c, p.ldb, k0 + 4u * kw, trans_b, b_words_ok, b_signed) : 0u;
    }
  }
}
