// One pass of one step (step.comp includes this once per pass it runs): STEP_FUNCTION(wg, step)
// computes workgroup wg's rows of the pass. GRU_PASS selects the GRU pass. Each row's 8 lanes sum
// chunks of 4 (k = 4 lane + 32 i + c) in increasing k, with vector loads where rows start on
// 4-element boundaries and scalar ones otherwise (the same order, so the same bits). After one
// barrier the invocation that forms a unit's gates adds each row's 8 sums in the order of a halving
// tree and does the gate arithmetic.

// Gates of the cell (the projection's and the bias's row stride) and of this pass.
#if CELL == OG_RNN_CELL_LSTM
#define GATES 4u
#define PASS_GATES 4u
#elif CELL == OG_RNN_CELL_GRU
#define GATES 3u
#if GRU_PASS == OG_RNN_GRU_LINEAR
#define PASS_GATES 3u
#elif GRU_PASS == OG_RNN_GRU_GATES
#define PASS_GATES 2u
#else
#define PASS_GATES 1u
#endif
#else
#define GATES 1u
#define PASS_GATES 1u
#endif
#define UNITS (OG_RNN_ROWS_PER_GROUP / PASS_GATES)
// The cell's gate index of the pass's gate g.
#if CELL == OG_RNN_CELL_GRU && GRU_PASS == OG_RNN_GRU_CANDIDATE
#define CELL_GATE(g) 2u
#else
#define CELL_GATE(g) (g)
#endif

void STEP_FUNCTION(const uint wg, const uint step) {
  const uint H = p.hidden, B = p.batch;
  const uint unit_blocks = (H + UNITS - 1u) / UNITS, batch_blocks = (B + ROWS - 1u) / ROWS;
  if (wg >= p.dirs * unit_blocks * batch_blocks) return;
  const uint d = wg / (unit_blocks * batch_blocks);
  const uint ub = (wg / batch_blocks) % unit_blocks, bb = wg % batch_blocks;
  const uint dbh = p.dirs * B * H;
  const uint h_in = p.state_offset + (step & 1u) * dbh, h_out = p.state_offset + ((step + 1u) & 1u) * dbh;
  const uint extra = p.state_offset + 2u * dbh;  // LSTM: c; GRU (two passes): z, then r * h

  const uint tid = gl_LocalInvocationIndex, row = tid / OG_RNN_LANES, lane = tid % OG_RNN_LANES;
  if (row < UNITS * PASS_GATES) {
    const uint g = row / UNITS, ul = row % UNITS, unit = min(ub * UNITS + ul, H - 1u);
    const uint r_base = p.r_offset + ((d * GATES + CELL_GATE(g)) * H + unit) * H;
#if CELL == OG_RNN_CELL_GRU && GRU_PASS == OG_RNN_GRU_CANDIDATE
    const uint in_base = extra + dbh;
#else
    const uint in_base = h_in;
#endif
    uint in_row[ROWS];
    precise float acc[ROWS];  // no contraction: the vector and scalar loads round alike
    [[unroll]] for (uint j = 0u; j < ROWS; ++j) {
      in_row[j] = in_base + (d * B + min(bb * ROWS + j, B - 1u)) * H;
      acc[j] = 0.0;
    }
    const uint step_k = OG_RNN_CHUNK * OG_RNN_LANES;
    if ((p.flags & OG_RNN_VECTOR) != 0u) {
      for (uint k = OG_RNN_CHUNK * lane; k < H; k += step_k) {
        const vec4 w = OG_RNN_R4((r_base + k) >> 2);
        [[unroll]] for (uint j = 0u; j < ROWS; ++j) {
          const vec4 h = OG_RNN_STATE4((in_row[j] + k) >> 2);
          acc[j] += w.x * h.x;
          acc[j] += w.y * h.y;
          acc[j] += w.z * h.z;
          acc[j] += w.w * h.w;
        }
      }
    } else {
      for (uint k0 = OG_RNN_CHUNK * lane; k0 < H; k0 += step_k) {
        [[unroll]] for (uint c = 0u; c < OG_RNN_CHUNK; ++c) {
          const uint k = k0 + c;
          if (k >= H) break;
          const float w = OG_RNN_LOAD(r_words, r_base + k);
          [[unroll]] for (uint j = 0u; j < ROWS; ++j) acc[j] += w * state[in_row[j] + k];
        }
      }
    }
    [[unroll]] for (uint j = 0u; j < ROWS; ++j) partial[(row * OG_RNN_LANES + lane) * ROWS + j] = acc[j];
  }
  barrier();

  if (tid >= UNITS * ROWS) return;
  const uint ul = tid % UNITS, j = tid / UNITS;
  const uint unit = ub * UNITS + ul, b = bb * ROWS + j;
  if (unit >= H || b >= B) return;
  const uint len = OG_RNN_LENGTH(b);
  const uint s = (d * B + b) * H + unit;
  const bool running = step < len;
#if CELL == OG_RNN_CELL_GRU && GRU_PASS == OG_RNN_GRU_GATES
  if (!running) return;  // the candidate pass copies the state through
#else
  if (!running) {
    state[h_out + s] = state[h_in + s];
    return;
  }
#endif
  const bool reverse = p.dirs == 2u ? d == 1u : (p.flags & OG_RNN_REVERSE) != 0u;
  const uint t = reverse ? len - 1u - step : step;
  const uint x_row = (p.flags & OG_RNN_LAYOUT1) != 0u ? b * p.seq + t : t * B + b;
  const uint xw_base = p.xw_offset + d * p.xw_dir_stride + x_row * (GATES * H) + unit;
  const bool bias = (p.flags & OG_RNN_BIAS) != 0u;
  const uint wb = p.b_offset + d * 2u * GATES * H + unit, rb = wb + GATES * H;
#define PRE(gate, rec)                                                                                \
  (bias ? ((xw[xw_base + (gate) * H] + (rec)) + OG_RNN_LOAD(b_words, wb + (gate) * H)) +             \
              OG_RNN_LOAD(b_words, rb + (gate) * H)                                                   \
        : xw[xw_base + (gate) * H] + (rec))
#define PRODUCT(g) product(UNITS, g, ul, j)

#if CELL == OG_RNN_CELL_LSTM
  const float c_prev = state[extra + s];
  const bool peephole = (p.flags & OG_RNN_PEEPHOLE) != 0u;
  const uint pp = p.p_offset + d * 3u * H + unit;
  float pi = PRE(0u, PRODUCT(0u)), po = PRE(1u, PRODUCT(1u));
  float pf = PRE(2u, PRODUCT(2u)), pc = PRE(3u, PRODUCT(3u));
  if (peephole) {
    pi += OG_RNN_LOAD(p_words, pp) * c_prev;
    pf += OG_RNN_LOAD(p_words, pp + 2u * H) * c_prev;
  }
  const float i = activation(d, 0u, clipped(pi));
  const float f = (p.flags & OG_RNN_INPUT_FORGET) != 0u ? 1.0 - i : activation(d, 0u, clipped(pf));
  const float c = f * c_prev + i * activation(d, 1u, clipped(pc));
  if (peephole) po += OG_RNN_LOAD(p_words, pp + H) * c;
  const float h = activation(d, 0u, clipped(po)) * activation(d, 2u, c);
  state[extra + s] = c;
#elif CELL == OG_RNN_CELL_GRU
#if GRU_PASS == OG_RNN_GRU_CANDIDATE
  const float z = state[extra + s];
  const float h = (1.0 - z) * activation(d, 1u, clipped(PRE(2u, PRODUCT(0u)))) + z * state[h_in + s];
#else
  const float z = activation(d, 0u, clipped(PRE(0u, PRODUCT(0u))));
  const float r = activation(d, 0u, clipped(PRE(1u, PRODUCT(1u))));
#if GRU_PASS == OG_RNN_GRU_GATES
  state[extra + s] = z;
  state[extra + dbh + s] = r * state[h_in + s];
  return;
#else
  const float rec_h = PRODUCT(2u) + (bias ? OG_RNN_LOAD(b_words, rb + 2u * H) : 0.0);
  const float pre_h = (xw[xw_base + 2u * H] + r * rec_h) + (bias ? OG_RNN_LOAD(b_words, wb + 2u * H) : 0.0);
  const float h = (1.0 - z) * activation(d, 1u, clipped(pre_h)) + z * state[h_in + s];
#endif
#endif
#else
  const float h = activation(d, 0u, clipped(PRE(0u, PRODUCT(0u))));
#endif
#if !(CELL == OG_RNN_CELL_GRU && GRU_PASS == OG_RNN_GRU_GATES)
  state[h_out + s] = h;
  if ((p.flags & OG_RNN_WRITE_Y) != 0u) state[p.state_offset + p.y_base + ((t * p.dirs + d) * B + b) * H + unit] = h;
#endif
}

#undef GATES
#undef PASS_GATES
#undef UNITS
#undef CELL_GATE
#undef PRE
#undef PRODUCT
