#version 450
// ScatterND and ScatterElements. One source, one stage per variant (STAGE):
//   0 copy      out = data, one invocation per output word
//   1 keys      each unit's target (data row or element; `targets` for a bad index), and the
//               first radix pass's digit counts per tile
//   2 count     per sort tile, how many keys hold each 8-bit digit
//   3 scan      exclusive scan of one level of counts in blocks of OG_SC_SCAN_BLOCK, block totals
//               to the next level
//   4 reorder   stable move of each tile's keys and ids to their sorted place
//   5 combine   the owner of each target (the first of its run in the sorted keys) applies the
//               run's updates in id order; for a few units (OG_SC_FEW), unsorted
//   6 distinct  one invocation per update element, no sort (the caller says no two units meet)
//   7 runs      where each target's run starts in the sorted keys (for a combine by target)
//   8 sweep     one radix pass in one dispatch (OG_SC_SWEEP): ranks with subgroup ballots, then
//               finds each digit's place from the counts earlier tiles publish (or counts a tile
//               itself when it has not published yet)
//   9 clear     zeroes the sweep's counts and status words (or the placement's counts)
//  10 route     sizes the indirect dispatches: the placement's when every run fits
//               OG_SC_PLACE_RUN, the radix sort's otherwise
//  11 place     each unit, from its bucket, to its target's start plus its rank as an (id, value)
//               pair
//  12 fold      the owner of each target sorts its placed run by id and folds it in that order
//  13 partition each unit's final place, id and value into its bucket (a range of targets), so
//               that the moves of neighbouring units after it land near each other
//  15 counted   the one sweep of a grouped sort (OG_SC_COUNTED): each tile's digit counts come
//               from the keys stage and the scan, so a tile's workgroup walks back over nothing
//  14 group     one workgroup per group of 256 targets (the sort ordered the units by target / 256):
//               finds the group's units, sorts each tile of them by the low 8 bits in workgroup
//               memory with subgroup ballots, and the owner of each target folds its run in order
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "scatter/scatter_push.h"
#include "common/grid.glsl"
#include "common/half.glsl"
#include "common/carry.glsl"

#if STAGE == 8 || STAGE == 14 || STAGE == 15
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = OG_SC_SWEEP_THREADS) in;
#else
layout(local_size_x = 256) in;
#endif
OG_PUSH_BLOCK(ScatterPush, p);
// Each stage declares only the bindings it uses (the copy alone reads data, the keys and the
// distinct path alone report bad indices, the distinct path has no scratch), so that a scatter in
// place binds no buffer both read-only and writable (WebGPU refuses that in one dispatch).
#if STAGE == 0
layout(std430, binding = 0) readonly buffer Data { uint data_words[]; };
#endif
layout(std430, binding = 1) readonly buffer Indices { uint index_words[]; };
layout(std430, binding = 2) readonly buffer Updates { uint update_words[]; };
layout(std430, binding = 3) buffer Out { uint out_words[]; };
#if STAGE == 8
// Coherent: a sweep reads the status words other workgroups of the same dispatch publish.
layout(std430, binding = 4) coherent buffer Scratch { uint scratch[]; };
#elif STAGE != 0 && STAGE != 6
layout(std430, binding = 4) buffer Scratch { uint scratch[]; };
#endif
#if STAGE == 1 || STAGE == 6
layout(std430, binding = 5) buffer Status { uint status_word; };
#define OG_INDEX_STATUS status_word
#endif
#include "common/index.glsl"

// Scratch layout, in words: keys A, ids A, keys B, ids B, then either the digit counts of every
// tile (digit-major) and the two levels of scan block totals, or (OG_SC_SWEEP) each pass's digit
// counts over all keys, its tile tickets and its status words (see scatter_plan.cpp).
uint keys_a() { return 0u; }
uint ids_a() { return p.units; }
uint keys_b() { return 2u * p.units; }
uint ids_b() { return 3u * p.units; }
uint counts_at() { return 4u * p.units; }
uint level1_at() { return counts_at() + OG_SC_DIGITS * p.tiles; }
uint level2_at() { return level1_at() + (OG_SC_DIGITS * p.tiles + OG_SC_SCAN_BLOCK - 1u) / OG_SC_SCAN_BLOCK; }
// A counted sweep's: each tile's places within its keys workgroup at counts_at(), then each keys
// workgroup's digit totals (digit-major) and their scan's block totals, two levels.
uint keys_workgroups() { return (p.tiles + OG_SC_KEYS_TILES - 1u) / OG_SC_KEYS_TILES; }
uint keys_totals_at() { return level1_at(); }
uint keys_level1_at() { return keys_totals_at() + OG_SC_DIGITS * keys_workgroups(); }
uint keys_level2_at() { return keys_level1_at() + (OG_SC_DIGITS * keys_workgroups() + OG_SC_SCAN_BLOCK - 1u) / OG_SC_SCAN_BLOCK; }

uint invocation() { return og_workgroup_index() * 256u + gl_LocalInvocationID.x; }

#if STAGE == 11 || STAGE == 12 || STAGE == 13
// Where target t's run starts among the placed units (the counts scanned in up to three levels).
uint run_start(uint t) {
  uint start = scratch[p.dims[0] + t];
  if (p.dims[3] > 1u) start += scratch[p.dims[1] + t / OG_SC_SCAN_BLOCK];
  if (p.dims[3] > 2u) start += scratch[p.dims[2] + t / (OG_SC_SCAN_BLOCK * OG_SC_SCAN_BLOCK)];
  return start;
}
#endif

#if STAGE == 1 || STAGE == 6
uint raw_index(uint position, out uint hi) {
  const uint i = p.indices_offset + position;
  if ((p.flags & OG_SC_WIDE_INDICES) != 0u) {
    hi = index_words[2u * i + 1u];
    return index_words[2u * i];
  }
  hi = 0u;
  return index_words[i];
}

uint normalized_index(uint position, uint lo, uint hi, uint n) {
  const uint v = og_normalize_index(lo, hi, (p.flags & OG_SC_WIDE_INDICES) != 0u, n);
  if (v == OG_BAD_INDEX && (p.flags & OG_SC_STATUS) != 0u) og_report_bad_index(position);
  return v;
}

uint normalized(uint position, uint n) {
  uint hi;
  const uint lo = raw_index(position, hi);
  return normalized_index(position, lo, hi, n);
}

// ScatterElements: the element unit u updates, from its raw index (lo, hi).
uint element_target(uint u, uint lo, uint hi) {
  const uint v = normalized_index(u, lo, hi, p.axis_length);
  if (v == OG_BAD_INDEX) return p.targets;
  // Unit u's coordinates, innermost first (one division each; the outermost is what is left, so
  // a one-dimensional ScatterElements divides nothing).
  uint t = 0u, rest = u;
  for (uint d = p.rank; d-- > 1u;) {
    const uint q = rest / p.dims[d];
    t += (d == p.axis ? v : rest - q * p.dims[d]) * p.strides[d];
    rest = q;
  }
  return t + (p.axis == 0u ? v : rest) * p.strides[0];
}

// The row (ScatterND) or element (ScatterElements) unit u updates, relative to the tensor's
// start; p.targets when an index is out of range.
uint target_of(uint u) {
  if ((p.flags & OG_SC_ND) != 0u) {
    uint t = 0u;
    for (uint c = 0u; c < p.rank; ++c) {
      const uint v = normalized(u * p.rank + c, p.dims[c]);
      if (v == OG_BAD_INDEX) return p.targets;
      t += v * p.strides[c];
    }
    return t;
  }
  uint hi;
  const uint lo = raw_index(u, hi);
  return element_target(u, lo, hi);
}

// The targets of units first + i * 256 (i < OG_SC_ITEMS; all ones past the end): for
// ScatterElements every raw index is loaded before the first target is worked out, so the loads
// are in flight together.
void targets_of(uint first, out uint key[OG_SC_ITEMS]) {
  if ((p.flags & OG_SC_ND) != 0u) {
    [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
      const uint u = first + i * 256u;
      key[i] = u < p.units ? target_of(u) : 0xFFFFFFFFu;
    }
    return;
  }
  uint lo[OG_SC_ITEMS], hi[OG_SC_ITEMS];
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    const uint u = first + i * 256u;
    lo[i] = u < p.units ? raw_index(u, hi[i]) : 0u;
    if (u >= p.units) hi[i] = 0u;
  }
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    const uint u = first + i * 256u;
    key[i] = u < p.units ? element_target(u, lo[i], hi[i]) : 0xFFFFFFFFu;
  }
}
#endif

#if STAGE == 0
// Payload values as (low word, high word); a half in the low 16 bits.
uvec2 load_data(uint e) {
  switch (OG_SC_STORAGE(p.flags)) {
    case OG_SC_WORD: return uvec2(data_words[e], 0u);
    case OG_SC_PAIR: return uvec2(data_words[2u * e], data_words[2u * e + 1u]);
    default: return uvec2((data_words[e >> 1] >> ((e & 1u) * 16u)) & 0xffffu, 0u);
  }
}
#endif
#if STAGE == 0 || STAGE == 4 || STAGE == 5 || STAGE == 6 || STAGE == 8 || STAGE == 12 || STAGE == 13 || \
    STAGE == 14 || STAGE == 15
uvec2 load_update(uint e) {
  switch (OG_SC_STORAGE(p.flags)) {
    case OG_SC_WORD: return uvec2(update_words[e], 0u);
    case OG_SC_PAIR: return uvec2(update_words[2u * e], update_words[2u * e + 1u]);
    default: return uvec2((update_words[e >> 1] >> ((e & 1u) * 16u)) & 0xffffu, 0u);
  }
}
uvec2 load_out(uint e) {
  switch (OG_SC_STORAGE(p.flags)) {
    case OG_SC_WORD: return uvec2(out_words[e], 0u);
    case OG_SC_PAIR: return uvec2(out_words[2u * e], out_words[2u * e + 1u]);
    default: return uvec2((out_words[e >> 1] >> ((e & 1u) * 16u)) & 0xffffu, 0u);
  }
}
// The other half of a word may belong to another invocation: disjoint bits, integer atomics.
void store_out(uint e, uvec2 v) {
  switch (OG_SC_STORAGE(p.flags)) {
    case OG_SC_WORD: out_words[e] = v.x; break;
    case OG_SC_PAIR: out_words[2u * e] = v.x; out_words[2u * e + 1u] = v.y; break;
    default: {
      const uint shift = (e & 1u) * 16u;
      atomicAnd(out_words[e >> 1], ~(0xffffu << shift));
      atomicOr(out_words[e >> 1], v.x << shift);
    }
  }
}
#endif

#if STAGE == 5 || STAGE == 6 || STAGE == 12 || STAGE == 14
bool nan32(uint bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }
bool nan16(uint bits) { return (bits & 0x7fffu) > 0x7c00u; }

// a op b for the push constants' reduction and type. Min and max keep a on ties; a NaN on either
// side wins (a's first). Integer add and mul wrap.
uvec2 combine(uvec2 a, uvec2 b) {
  const uint r = OG_SC_REDUCTION(p.flags);
  if (r == OG_SC_NONE) return b;
  switch (OG_SC_ARITH(p.flags)) {
    case OG_SC_F32: {
      const float x = uintBitsToFloat(a.x), y = uintBitsToFloat(b.x);
      if (r == OG_SC_ADD) return uvec2(floatBitsToUint(x + y), 0u);
      if (r == OG_SC_MUL) return uvec2(floatBitsToUint(x * y), 0u);
      if (nan32(a.x)) return a;
      if (nan32(b.x)) return b;
      return (r == OG_SC_MIN ? y < x : y > x) ? b : a;
    }
    case OG_SC_F16: {
      const float x = unpackHalf2x16(a.x).x, y = unpackHalf2x16(b.x).x;
      if (r == OG_SC_ADD) return uvec2(og_f32_to_f16(x + y), 0u);
      if (r == OG_SC_MUL) return uvec2(og_f32_to_f16(x * y), 0u);
      if (nan16(a.x)) return a;
      if (nan16(b.x)) return b;
      return (r == OG_SC_MIN ? y < x : y > x) ? b : a;
    }
    case OG_SC_I32: {
      if (r == OG_SC_ADD) return uvec2(a.x + b.x, 0u);
      if (r == OG_SC_MUL) return uvec2(a.x * b.x, 0u);
      const int x = int(a.x), y = int(b.x);
      return (r == OG_SC_MIN ? y < x : y > x) ? b : a;
    }
    default: {
      if (r == OG_SC_ADD) {
        uint carry;
        const uint lo = og_uadd_carry(a.x, b.x, carry);
        return uvec2(lo, a.y + b.y + carry);
      }
      if (r == OG_SC_MUL) {
        uint hi, lo;
        og_umul_extended(a.x, b.x, hi, lo);
        return uvec2(lo, hi + a.x * b.y + a.y * b.x);
      }
      const bool less = int(b.y) < int(a.y) || (b.y == a.y && b.x < a.x);
      const bool greater = int(b.y) > int(a.y) || (b.y == a.y && b.x > a.x);
      return (r == OG_SC_MIN ? less : greater) ? b : a;
    }
  }
}
#endif

#if STAGE == 2 || STAGE == 4 || STAGE == 8 || STAGE == 14 || STAGE == 15
uint source_keys() { return (p.flags & OG_SC_FROM_B) != 0u ? keys_b() : keys_a(); }
uint source_ids() { return (p.flags & OG_SC_FROM_B) != 0u ? ids_b() : ids_a(); }
// Grouped sweeps (OG_SC_GROUPED) put a skipped unit (key `targets`) in digit 255 of every pass, so it
// sorts after every group but the highest possible one (see the group fold).
uint digit_of(uint key) {
  if ((p.flags & OG_SC_GROUPED) != 0u && key == p.targets) return OG_SC_DIGITS - 1u;
  return (key >> p.shift) & (OG_SC_DIGITS - 1u);
}
#endif

#if STAGE == 1 || STAGE == 2
shared uint tile_counts[OG_SC_DIGITS];
#endif

#if STAGE == 1
// The sweep: every pass's digit counts, or (counted) each of the workgroup's tiles' counts.
shared uint pass_counts[OG_SC_KEYS_TILES * OG_SC_DIGITS];
#endif
#if STAGE == 3
// The block's entries (16 KiB, the least any device offers), then the invocations' sums in its
// first 256 words. Entry j sits at j with its low 5 bits XORed by bits 5-9, so that the
// invocations of a subgroup meet no bank twice both when they take neighbouring entries and when
// each takes the i-th of its 16 consecutive ones.
shared uint scan_block[OG_SC_SCAN_BLOCK];
uint scan_slot(uint j) { return j ^ ((j >> 5) & 31u); }
#endif
#if STAGE == 4
// Either the rank matrix [nibble][invocation] (keys of the nibble held by earlier invocations) or
// the tile's keys and ids between the two rounds.
shared uint tile_memory[2u * (OG_SC_TILE + OG_SC_TILE / 8u)];
// Tile slots read by invocation t as t * 8 + i sit one word apart every 8 (no bank conflicts).
uint padded(uint slot) { return slot + (slot >> 3); }
const uint kIdSlots = OG_SC_TILE + OG_SC_TILE / 8u;  // where the ids start
shared uint segment[256];
shared uint nibble_total[16];
shared uint nibble_start[16];
shared uint digit_start[OG_SC_DIGITS];  // where each 8-bit digit starts in the sorted tile
shared uint digit_base[OG_SC_DIGITS];   // a digit's place in the whole sort, less its start in the tile

// Stable places in the tile (0 .. OG_SC_TILE - 1) of this invocation's items by their 4-bit
// `nibble`: the items are in (invocation, item) order.
// Sixteen 4-bit counters (at most OG_SC_ITEMS = 8 each) in two words: no indexed local arrays.
uint counter(uvec2 c, uint n) { return ((n < 8u ? c.x : c.y) >> (4u * (n & 7u))) & 15u; }
uvec2 counted(uvec2 c, uint n) { return c + (n < 8u ? uvec2(1u << (4u * n), 0u) : uvec2(0u, 1u << (4u * (n - 8u)))); }

void rank_nibbles(uint t, uint nibble[OG_SC_ITEMS], out uint place[OG_SC_ITEMS]) {
  uvec2 mine = uvec2(0u);
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) mine = counted(mine, nibble[i]);
  [[unroll]] for (uint d = 0u; d < 16u; ++d) tile_memory[d * 256u + t] = counter(mine, d);
  barrier();
  // Exclusive scan of each nibble's row: 16 segments of 16, then the segment totals.
  const uint d = t >> 4, s = t & 15u, at = d * 256u + s * 16u;
  uint sum = 0u;
  for (uint i = 0u; i < 16u; ++i) {
    const uint x = tile_memory[at + i];
    tile_memory[at + i] = sum;
    sum += x;
  }
  segment[d * 16u + s] = sum;
  barrier();
  if (t < 16u) {
    uint run = 0u;
    for (uint i = 0u; i < 16u; ++i) {
      const uint x = segment[t * 16u + i];
      segment[t * 16u + i] = run;
      run += x;
    }
    nibble_total[t] = run;
  }
  barrier();
  const uint add = segment[d * 16u + s];
  for (uint i = 0u; i < 16u; ++i) tile_memory[at + i] += add;
  if (t == 0u) {
    uint run = 0u;
    for (uint n = 0u; n < 16u; ++n) {
      nibble_start[n] = run;
      run += nibble_total[n];
    }
  }
  barrier();
  uvec2 before = uvec2(0u);  // this invocation's earlier items, per nibble
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    const uint n = nibble[i];
    place[i] = nibble_start[n] + tile_memory[n * 256u + t] + counter(before, n);
    before = counted(before, n);
  }
  barrier();  // tile_memory is free again
}
#endif

#if STAGE == 8 || STAGE == 14 || STAGE == 15
#define OG_SC_SWEEP_PER (OG_SC_DIGITS / OG_SC_SWEEP_THREADS)  // digits an invocation looks after
// Per subgroup, how many of its keys hold each digit (then where its keys of each digit start among
// the tile's keys of that digit); afterwards (the sweep) the tile's keys and ids in sorted order.
// The big group fold holds only the counts, for subgroups of OG_SC_BIG_MIN_WIDTH or more.
#ifdef OG_SC_BIG_GROUPS
#define OG_SC_SWEEP_MEMORY (OG_SC_SWEEP_THREADS / OG_SC_BIG_MIN_WIDTH * OG_SC_DIGITS)
#else
#define OG_SC_SWEEP_MEMORY (2u * OG_SC_TILE)
#endif
shared uint sweep_memory[OG_SC_SWEEP_MEMORY];
shared uint sweep_start[OG_SC_DIGITS];  // where each digit starts in the sorted tile
shared uint sweep_totals[OG_SC_SWEEP_THREADS / 8u];  // one per subgroup (subgroups of 8 or more)
#endif
#if STAGE == 8 || STAGE == 15
shared uint sweep_base[OG_SC_DIGITS];   // a digit's place in the whole sort, less its start in the tile
#endif
#if STAGE == 8
shared uint sweep_count[OG_SC_DIGITS];  // the tile's keys of each digit
shared uint sweep_recount[OG_SC_DIGITS];
shared uint sweep_word;
#endif
#if STAGE == 14
shared uint group_bound[4];  // the two searches' ranges [lo, hi] (the group's start, its end)
shared uint group_below[2];  // probes of each search that found keys before its group
// A group's tile: every invocation's keys (2048, or 4096 in the wide form of 16 keys each).
#define OG_SC_GROUP_TILE (OG_SC_SWEEP_THREADS * OG_SC_SWEEP_ITEMS)
shared uint group_values[OG_SC_GROUP_TILE];  // the tile's values sorted by target (apart from the counts)
#ifdef OG_SC_BIG_GROUPS
// Groups of 256 << extra targets: each unit's target >> 8 within the group (its sub-group) beside
// its value, a byte each, and every target's accumulator (owner i's are i, i + 256, ...).
shared uint group_subs[OG_SC_GROUP_TILE / 4u];
shared uint group_acc[OG_SC_DIGITS << OG_SC_GROUP_EXTRA_MAX];
#endif
#endif
#if STAGE == 8 || STAGE == 14 || STAGE == 15

// Loops over the workgroup's subgroups: the narrow form (llvmpipe's, subgroups of 8) unrolls them
// to the most a workgroup holds, since llvmpipe ends any invocation's loops after 65535 steps and a
// group fold walks the subgroups several times a tile.
#ifdef OG_SC_WIDE
#define OG_SC_FOR_SUBGROUPS(g) for (uint g = 0u; g < gl_NumSubgroups; ++g)
#else
#define OG_SC_FOR_SUBGROUPS(g) [[unroll]] for (uint g = 0u; g < OG_SC_SWEEP_THREADS / 8u; ++g) if (g < gl_NumSubgroups)
#endif

// This invocation's place in the workgroup, subgroup by subgroup: the order every per-digit step
// below uses (digits `me` and, with 128 invocations, `me + 128`).
uint sweep_me() { return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID; }

// Exclusive sum of x over the workgroup's invocations in sweep_me() order; `total` is the sum of all.
uint workgroup_exclusive(uint x, out uint total) {
  const uint within = subgroupExclusiveAdd(x);
  if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) sweep_totals[gl_SubgroupID] = within + x;
  barrier();
  uint before = 0u;
  total = 0u;
  OG_SC_FOR_SUBGROUPS(s) {
    const uint v = sweep_totals[s];
    if (s < gl_SubgroupID) before += v;
    total += v;
  }
  barrier();
  return before + within;
}

// Ranks each key (item-major over the subgroup's lanes; all ones: no key) among the subgroup's keys
// of its digit: the lanes holding the same digit are found bit by bit with ballots; the lowest of
// them adds their number to the subgroup's count of the digit in sweep_memory (zero before).
void rank_in_subgroup(uint key[OG_SC_SWEEP_ITEMS], out uint place[OG_SC_SWEEP_ITEMS]) {
  const uint lower = gl_SubgroupLtMask.x;
  [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i) {
    const bool live = key[i] != 0xFFFFFFFFu;
    const uint d = digit_of(key[i]);
    uint peers = subgroupBallot(live).x;
    [[unroll]] for (uint b = 0u; b < OG_SC_DIGIT_BITS; ++b) {
      const bool bit = ((d >> b) & 1u) != 0u;
      const uint m = subgroupBallot(bit).x;
      peers &= bit ? m : ~m;
    }
    const uint slot = gl_SubgroupID * OG_SC_DIGITS + d;
    const uint base = live ? sweep_memory[slot] : 0u;
    subgroupBarrier();
    if (live && (peers & lower) == 0u) sweep_memory[slot] = base + bitCount(peers);
    subgroupBarrier();
    place[i] = base + bitCount(peers & lower);
  }
}

// Digit d's counts per subgroup become the subgroups' starts among the tile's keys of d; returns
// the tile's count of d.
uint subgroup_starts(uint d) {
  uint run = 0u;
  OG_SC_FOR_SUBGROUPS(g) {
    const uint c = sweep_memory[g * OG_SC_DIGITS + d];
    sweep_memory[g * OG_SC_DIGITS + d] = run;
    run += c;
  }
  return run;
}

#endif

#if STAGE == 15
// Tile `tile`'s keys and ids (none from end_tile on): a subgroup's are OG_SC_SWEEP_ITEMS * width
// consecutive units, item-major, so ranking item by item, lane by lane, keeps their order. Past the
// end, a key of all ones. The first pass's ids are the positions, or the updates themselves.
void load_sweep_tile(uint tile, uint end_tile, uint keys, uint ids, out uint key[OG_SC_SWEEP_ITEMS],
                     out uint id[OG_SC_SWEEP_ITEMS]) {
  const uint width = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
  const uint first = tile * OG_SC_TILE + gl_SubgroupID * width * OG_SC_SWEEP_ITEMS;
  [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i) {
    const uint u = first + i * width + lane;
    const bool live = tile < end_tile && u < p.units;
    uint v = u;
    if ((p.flags & OG_SC_FIRST_PASS) == 0u)
      v = live ? scratch[ids + u] : 0u;
    else if ((p.flags & OG_SC_CARRY_VALUES) != 0u)
      v = live ? load_update(p.updates_offset + u).x : 0u;
    key[i] = live ? scratch[keys + u] : 0xFFFFFFFFu;
    id[i] = v;
  }
}
#endif

#if STAGE == 8
// Walks back from tile `at` - 1 over the status words of digit d: a tile's own count adds and the
// walk goes on, an inclusive count adds and ends it (as does reaching tile 0). Stops at a tile that
// has published nothing after a bounded wait, and after a bounded number of steps either way
// (llvmpipe ends any loop after 65535 steps); the caller then counts tile `at` - 1 itself.
// The status words of 8 tiles are read at once (on the H200 wider windows and waiting on one word
// measured no faster).
// `budget`: the walk's steps left for this invocation over all its calls (llvmpipe's loop limit).
void walk_back(uint d, inout uint at, inout uint before, inout bool done, inout uint budget) {
  const uint status = p.dims[0];
  for (uint step = 0u; step < 64u && !done && budget > 0u; ++step, --budget) {
    uint s[8];
    [[unroll]] for (uint k = 0u; k < 8u; ++k)
      s[k] = k < at ? scratch[status + (at - 1u - k) * OG_SC_DIGITS + d] : 0u;
    [[unroll]] for (uint k = 0u; k < 8u; ++k) {
      if (done || s[k] == 0u) break;
      before += s[k] & OG_SC_COUNT_MASK;
      at -= 1u;
      done = (s[k] & OG_SC_PREFIX) != 0u || at == 0u;
    }
  }
}
#endif

#if STAGE == 12
// The owner's run, up to OG_SC_PLACE_RUN units as (id << 6 | place in the run), sorted: a
// bitonic network over the first `width` (16, 32 or 64) slots, the rest holding all ones. Fixed
// indices after unrolling, so the run stays in registers.
#define OG_SC_RUN OG_SC_PLACE_RUN
void sort_run(inout uint run[OG_SC_RUN], uint width) {
  [[unroll]] for (uint k = 2u; k <= OG_SC_RUN; k <<= 1) {
    const uint block = max(k, 16u);
    [[unroll]] for (uint b = 0u; b < OG_SC_RUN; b += block) {
      if (k > width || b >= width) continue;
      [[unroll]] for (uint j = k >> 1; j > 0u; j >>= 1)
        [[unroll]] for (uint i = b; i < b + block; ++i) {
          const uint l = i ^ j;
          if (l <= i) continue;
          const uint x = run[i], y = run[l];
          const bool up = (i & k) == 0u;
          run[i] = up ? min(x, y) : max(x, y);
          run[l] = up ? max(x, y) : min(x, y);
        }
    }
  }
}
#endif

#if STAGE == 14
#ifndef OG_SC_GROUP_AHEAD
#define OG_SC_GROUP_AHEAD 1
#endif
// The keys and values of the group's tile from unit `tile` (up to `end`): the subgroup's are
// OG_SC_SWEEP_ITEMS * width consecutive units, item-major; a skipped unit (key `targets`) and past
// the end: all ones, no key.
void load_group_tile(uint tile, uint end, uint keys, uint values, out uint key[OG_SC_SWEEP_ITEMS],
                     out uint value[OG_SC_SWEEP_ITEMS]) {
  const uint width = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
  const uint first = tile + gl_SubgroupID * width * OG_SC_SWEEP_ITEMS;
  [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i) {
    const uint u = first + i * width + lane;
    const uint k = u < end ? scratch[keys + u] : 0xFFFFFFFFu;
    key[i] = k == p.targets ? 0xFFFFFFFFu : k;
    value[i] = u < end ? scratch[values + u] : 0u;
  }
}

// v folded with the sorted tile's values [s, s + n) in order (reduction none: the last wins), eight
// a loop step, or 32 in the narrow form (llvmpipe's, which ends any invocation's loops after 65535
// steps: a hot output's run then reaches about 2 million updates, as in the combine).
#ifdef OG_SC_WIDE
#define OG_SC_FOLD_STEP 8u
#else
#define OG_SC_FOLD_STEP 32u
#endif
uvec2 fold_sorted(uvec2 v, uint s, uint n) {
  if (OG_SC_REDUCTION(p.flags) == OG_SC_NONE) return n > 0u ? uvec2(group_values[s + n - 1u], 0u) : v;
  for (uint k = 0u; k < n; k += OG_SC_FOLD_STEP)
    [[unroll]] for (uint c = 0u; c < OG_SC_FOLD_STEP; ++c)
      if (k + c < n) v = combine(v, uvec2(group_values[s + k + c], 0u));
  return v;
}
#ifdef OG_SC_BIG_GROUPS
// The big form: the sorted tile's values [s, s + n) of low digit d, each folded in order into the
// accumulator of its sub-group's target (reduction none: the last wins); returns the sub-groups
// touched as bits.
// On GPUs one update a loop step, the next update's sub-group and value loaded while this one's
// accumulator is read, combined and written (unrolled, eight copies of the combine measured slower
// on the H200); llvmpipe's loop limit wants the narrow form's steps of 32.
uint sub_at(uint at) { return (group_subs[at >> 2] >> ((at & 3u) * 8u)) & 0xFFu; }
uint fold_subs(uint d, uint s, uint n) {
  uint touched = 0u;
  const bool last_wins = OG_SC_REDUCTION(p.flags) == OG_SC_NONE;
#ifdef OG_SC_WIDE
  if (n == 0u) return 0u;
  uint sub = sub_at(s), value = group_values[s];
  for (uint k = 1u; k <= n; ++k) {
    const uint next = s + min(k, n - 1u);
    const uint next_sub = sub_at(next), next_value = group_values[next];
    const uint a = (sub << OG_SC_DIGIT_BITS) + d;
    group_acc[a] = last_wins ? value : combine(uvec2(group_acc[a], 0u), uvec2(value, 0u)).x;
    touched |= 1u << sub;
    sub = next_sub;
    value = next_value;
  }
#else
  for (uint k = 0u; k < n; k += OG_SC_FOLD_STEP)
    [[unroll]] for (uint c = 0u; c < OG_SC_FOLD_STEP; ++c)
      if (k + c < n) {
        const uint at = s + k + c;
        const uint sub = sub_at(at);
        const uint a = (sub << OG_SC_DIGIT_BITS) + d;
        group_acc[a] = last_wins ? group_values[at] : combine(uvec2(group_acc[a], 0u), uvec2(group_values[at], 0u)).x;
        touched |= 1u << sub;
      }
#endif
  return touched;
}
#endif
#endif

#if STAGE == 13
shared uint bucket_count[OG_SC_PLACE_BUCKETS];
shared uint bucket_base[OG_SC_PLACE_BUCKETS];
#endif

#if STAGE == 5
// The owner's fold of the sorted places [q0, q1) of `key`'s run, for row element j, 32 updates a
// loop step (their loads overlap; the fold is in order). Reduction none reads only the last.
void fold_span(uint q0, uint q1, uint key, uint j, uint ids) {
  const uint e = p.out_offset + key * p.row + j;
  const bool carried = (p.flags & OG_SC_CARRY_VALUES) != 0u;
  if (OG_SC_REDUCTION(p.flags) == OG_SC_NONE) {
    const uint last = scratch[ids + q1 - 1u];
    store_out(e, carried ? uvec2(last, 0u) : load_update(p.updates_offset + last * p.row + j));
    return;
  }
  uvec2 v = load_out(e);
  for (uint q = q0; q < q1; q += 32u) {
    uvec2 u[32];
    [[unroll]] for (uint c = 0u; c < 32u; ++c)
      u[c] = q + c < q1 ? (carried ? uvec2(scratch[ids + q + c], 0u)
                                   : load_update(p.updates_offset + scratch[ids + q + c] * p.row + j))
                        : uvec2(0u);
    [[unroll]] for (uint c = 0u; c < 32u; ++c)
      if (q + c < q1) v = combine(v, u[c]);
  }
  store_out(e, v);
}

// The owner's fold of the run of `key` from sorted place q0, for row element j.
void fold_run(uint q0, uint key, uint j, uint keys, uint ids) {
  const uint e = p.out_offset + key * p.row + j;
  uvec2 v = load_out(e);
  // The run in steps of up to 32 units: their keys, ids and updates are loaded independently (the
  // loads overlap), then folded in order. Unrolled, so a loop step is 32 updates (llvmpipe ends
  // any invocation's loops after 65535 steps).
  const bool last_wins = OG_SC_REDUCTION(p.flags) == OG_SC_NONE;
  const bool carried = (p.flags & OG_SC_CARRY_VALUES) != 0u;
  uint q = q0, width = 8u;  // a first step of 8: most runs are short
  bool more = true;
  while (more) {
    uint count = 0u;
    [[unroll]] for (uint c = 0u; c < 32u; ++c)
      if (c < width && q + c < p.units && scratch[keys + q + c] == key) count = c + 1u;  // the run is a prefix
    uvec2 u[32];
    [[unroll]] for (uint c = 0u; c < 32u; ++c)  // reduction none: only the last update counts
      u[c] = c < count && (!last_wins || c + 1u == count)
                 ? (carried ? uvec2(scratch[ids + q + c], 0u)
                            : load_update(p.updates_offset + scratch[ids + q + c] * p.row + j))
                 : uvec2(0u);
    [[unroll]] for (uint c = 0u; c < 32u; ++c)
      if (c < count && (!last_wins || c + 1u == count)) v = combine(v, u[c]);
    q += count;
    more = count == width;
    width = 32u;
  }
  store_out(e, v);
}
#endif

void main() {
  const uint t = gl_LocalInvocationID.x;
#if STAGE == 0
  const uint w = invocation();
  if (w >= p.shift) return;
  const uint count = p.targets * p.row;
  if (OG_SC_STORAGE(p.flags) == OG_SC_WORD) {
    out_words[p.out_offset + w] = data_words[p.data_offset + w];
  } else if (OG_SC_STORAGE(p.flags) == OG_SC_PAIR) {
    out_words[2u * p.out_offset + w] = data_words[2u * p.data_offset + w];
  } else {
    // This invocation owns the output word; halves outside the tensor keep their value.
    const uint word = (p.out_offset >> 1) + w;
    uint v = out_words[word];
    [[unroll]] for (uint h = 0u; h < 2u; ++h) {
      const uint e = 2u * word + h;
      if (e >= p.out_offset && e - p.out_offset < count) {
        const uint bits = load_data(e - p.out_offset + p.data_offset).x;
        v = (v & ~(0xffffu << (16u * h))) | (bits << (16u * h));
      }
    }
    out_words[word] = v;
  }
#elif STAGE == 1
  // One sort tile per workgroup: the keys, and the first pass's digit counts (as STAGE 2 counts).
  // The ids are the positions until the first pass moves them.
  const uint tile = og_workgroup_index();
  if ((p.flags & OG_SC_PLACE) != 0u) {
    // The placement: each unit's key and its rank among its target's units, in one word (integer
    // atomics: the ranks' order depends on scheduling, the owners' sort by id undoes that). A rank
    // of OG_SC_PLACE_RUN marks a run too long for the owners' sort.
    if (tile >= p.tiles) return;
    for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
      const uint u = tile * OG_SC_TILE + i * 256u + t;
      if (u >= p.units) continue;
      const uint key = target_of(u);
      if (key == p.targets) {
        scratch[ids_a() + u] = 0xFFFFFFFFu;
        continue;
      }
      const uint rank = atomicAdd(scratch[p.shift + OG_SC_PLACE_HEADER + key], 1u);
      scratch[ids_a() + u] = (key << 6) | min(rank, OG_SC_PLACE_RUN - 1u);  // key < 2^24
      if (rank == OG_SC_PLACE_RUN) scratch[p.shift] = 1u;
    }
    return;
  }
  if ((p.flags & OG_SC_SWEEP) != 0u) {
    // The sweep: every pass's digit counts over all keys, from word `shift` (dims holds the
    // shapes), OG_SC_KEYS_TILES tiles a workgroup so few atomics meet in those counts. Integer
    // sums: their order does not matter. The passes as the host counts them.
    if (tile * OG_SC_KEYS_TILES >= p.tiles) return;
    const uint passes = OG_SC_PASSES(p.flags), extra = OG_SC_GROUP_EXTRA(p.flags);
    for (uint i = t; i < OG_SC_KEYS_TILES * OG_SC_DIGITS; i += 256u) pass_counts[i] = 0u;
    barrier();
    const bool grouped = (p.flags & OG_SC_GROUPED) != 0u;
    if ((p.flags & OG_SC_COUNTED) != 0u) {
      // The one sweep of a grouped sort (pass 1): each tile's digit counts, digit-major, made places
      // within the workgroup's tiles; the workgroup's totals for the scan that follows.
      // Counts tile-major in workgroup memory (tile k's at k * OG_SC_DIGITS): the invocations of a
      // subgroup, on random digits, meet in few banks.
      for (uint k = 0u; k < OG_SC_KEYS_TILES; ++k) {
        const uint first = (tile * OG_SC_KEYS_TILES + k) * OG_SC_TILE + t;
        uint key[OG_SC_ITEMS];
        targets_of(first, key);
        [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
          if (key[i] == 0xFFFFFFFFu) continue;
          scratch[keys_a() + first + i * 256u] = key[i];
          const uint d = key[i] == p.targets ? OG_SC_DIGITS - 1u : (key[i] >> (OG_SC_DIGIT_BITS + extra)) & (OG_SC_DIGITS - 1u);
          atomicAdd(pass_counts[k * OG_SC_DIGITS + d], 1u);
        }
      }
      barrier();
      // Each tile's place among the workgroup's keys of digit d (a digit's tiles are neighbours in
      // the scratch, written together); the last tile's invocation writes the workgroup's count,
      // the entry the scan takes.
      for (uint j = t; j < OG_SC_KEYS_TILES * OG_SC_DIGITS; j += 256u) {
        const uint d = j / OG_SC_KEYS_TILES, k = j - d * OG_SC_KEYS_TILES;
        uint before = 0u;
        [[unroll]] for (uint e = 0u; e < OG_SC_KEYS_TILES; ++e)
          if (e < k) before += pass_counts[e * OG_SC_DIGITS + d];
        if (tile * OG_SC_KEYS_TILES + k < p.tiles) scratch[counts_at() + d * p.tiles + tile * OG_SC_KEYS_TILES + k] = before;
        if (k == OG_SC_KEYS_TILES - 1u)
          scratch[keys_totals_at() + d * keys_workgroups() + tile] = before + pass_counts[k * OG_SC_DIGITS + d];
      }
      return;
    }
    const uint from = grouped ? 1u : 0u;
    for (uint k = 0u; k < OG_SC_KEYS_TILES; ++k) {
      const uint first = (tile * OG_SC_KEYS_TILES + k) * OG_SC_TILE + t;
      uint keys[OG_SC_ITEMS];
      targets_of(first, keys);
      [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
        const uint key = keys[i];
        if (key == 0xFFFFFFFFu) continue;
        scratch[keys_a() + first + i * 256u] = key;
        // As the sweeps' digit_of: grouped, a skipped unit is digit 255 of every pass.
        for (uint q = from; q < passes; ++q)
          atomicAdd(pass_counts[q * OG_SC_DIGITS + (grouped && key == p.targets
                                                        ? OG_SC_DIGITS - 1u
                                                        : (key >> (q * OG_SC_DIGIT_BITS + extra)) & (OG_SC_DIGITS - 1u))],
                    1u);
      }
    }
    barrier();
    for (uint q = from; q < passes; ++q) {
      const uint c = pass_counts[q * OG_SC_DIGITS + t];
      if (c != 0u) atomicAdd(scratch[p.shift + q * OG_SC_DIGITS + t], c);
    }
    return;
  }
  if (tile >= p.tiles) return;
  tile_counts[t] = 0u;
  barrier();
  uint keys[OG_SC_ITEMS];
  targets_of(tile * OG_SC_TILE + t, keys);
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    if (keys[i] == 0xFFFFFFFFu) continue;
    scratch[keys_a() + tile * OG_SC_TILE + i * 256u + t] = keys[i];
    atomicAdd(tile_counts[keys[i] & (OG_SC_DIGITS - 1u)], 1u);
  }
  barrier();
  scratch[counts_at() + t * p.tiles + tile] = tile_counts[t];
#elif STAGE == 2
  const uint tile = og_workgroup_index();
  if (tile >= p.tiles) return;
  tile_counts[t] = 0u;
  barrier();
  const uint keys = source_keys();
  for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    const uint k = tile * OG_SC_TILE + i * 256u + t;
    if (k < p.units) atomicAdd(tile_counts[digit_of(scratch[keys + k])], 1u);
  }
  barrier();
  scratch[counts_at() + t * p.tiles + tile] = tile_counts[t];
#elif STAGE == 3
  // Entries [block * OG_SC_SCAN_BLOCK, ...) of the level at dims[0]; the block's total to dims[1].
  const uint block = og_workgroup_index();
  if (block * OG_SC_SCAN_BLOCK >= p.shift) return;
  const uint base = p.dims[0] + block * OG_SC_SCAN_BLOCK;
  const uint n = min(p.shift - block * OG_SC_SCAN_BLOCK, OG_SC_SCAN_BLOCK);
  // Loaded and stored with neighbouring invocations on neighbouring entries, scanned 16
  // consecutive entries an invocation through workgroup memory.
  [[unroll]] for (uint i = 0u; i < 16u; ++i) {
    const uint j = i * 256u + t;
    scan_block[scan_slot(j)] = j < n ? scratch[base + j] : 0u;
  }
  barrier();
  uint v[16];
  uint sum = 0u;
  [[unroll]] for (uint i = 0u; i < 16u; ++i) {
    v[i] = sum;
    sum += scan_block[scan_slot(t * 16u + i)];
  }
  barrier();  // every entry is in registers: the first 256 words take the sums
  scan_block[t] = sum;
  barrier();
  for (uint s = 1u; s < 256u; s <<= 1) {
    const uint add = t >= s ? scan_block[t - s] : 0u;
    barrier();
    scan_block[t] += add;
    barrier();
  }
  const uint through = scan_block[t];  // this invocation's sum and every earlier one's
  barrier();
  [[unroll]] for (uint i = 0u; i < 16u; ++i) scan_block[scan_slot(t * 16u + i)] = v[i] + through - sum;
  barrier();
  [[unroll]] for (uint i = 0u; i < 16u; ++i) {
    const uint j = i * 256u + t;
    if (j < n) scratch[base + j] = scan_block[scan_slot(j)];
  }
  if (t == 255u && p.dims[1] != OG_SC_NO_TOTALS) scratch[p.dims[1] + block] = through;
#elif STAGE == 4
  const uint tile = og_workgroup_index();
  if (tile >= p.tiles) return;
  const uint keys = source_keys(), ids = source_ids();
  const uint to_keys = (p.flags & OG_SC_FROM_B) != 0u ? keys_a() : keys_b();
  const uint to_ids = (p.flags & OG_SC_FROM_B) != 0u ? ids_a() : ids_b();
  // This invocation's items are OG_SC_ITEMS consecutive units; past the end, a key of all ones
  // (no target reaches it) sorts last and is never written.
  uint key[OG_SC_ITEMS], id[OG_SC_ITEMS], nibble[OG_SC_ITEMS], place[OG_SC_ITEMS];
  // Loaded with neighbouring invocations on neighbouring units, then taken 8 consecutive each.
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    const uint slot = i * 256u + t, u = tile * OG_SC_TILE + slot;
    const bool live = u < p.units;
    uint v = u;
    if ((p.flags & OG_SC_FIRST_PASS) == 0u)
      v = live ? scratch[ids + u] : 0u;
    else if ((p.flags & OG_SC_CARRY_VALUES) != 0u)
      v = live ? load_update(p.updates_offset + u).x : 0u;
    tile_memory[padded(slot)] = live ? scratch[keys + u] : 0xFFFFFFFFu;
    tile_memory[kIdSlots + padded(slot)] = v;
  }
  barrier();
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    key[i] = tile_memory[padded(t * OG_SC_ITEMS + i)];
    id[i] = tile_memory[kIdSlots + padded(t * OG_SC_ITEMS + i)];
    nibble[i] = digit_of(key[i]) & 15u;
  }
  barrier();
  // Round one: stable by the low nibble, through workgroup memory.
  rank_nibbles(t, nibble, place);
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    tile_memory[padded(place[i])] = key[i];
    tile_memory[kIdSlots + padded(place[i])] = id[i];
  }
  barrier();
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    key[i] = tile_memory[padded(t * OG_SC_ITEMS + i)];
    id[i] = tile_memory[kIdSlots + padded(t * OG_SC_ITEMS + i)];
    nibble[i] = digit_of(key[i]) >> 4;
  }
  barrier();
  // Round two: stable by the high nibble, so the tile is in digit order. A unit's place in the
  // whole sort is its digit's start there (the scanned counts of the levels) plus its rank
  // among the tile's units of its digit; neighbouring invocations write neighbouring places.
  rank_nibbles(t, nibble, place);
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    tile_memory[place[i]] = key[i];
    tile_memory[OG_SC_TILE + place[i]] = id[i];
  }
  barrier();
  // Where each digit starts in the sorted tile (a digit the tile lacks keeps no start: unused).
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    const uint at = i * 256u + t, d = digit_of(tile_memory[at]);
    if (at == 0u || digit_of(tile_memory[at - 1u]) != d) digit_start[d] = at;
  }
  barrier();
  {
    const uint entry = t * p.tiles + tile, levels = OG_SC_LEVELS(p.flags);
    uint base = scratch[counts_at() + entry];
    if (levels > 1u) base += scratch[level1_at() + entry / OG_SC_SCAN_BLOCK];
    if (levels > 2u) base += scratch[level2_at() + entry / (OG_SC_SCAN_BLOCK * OG_SC_SCAN_BLOCK)];
    digit_base[t] = base - digit_start[t];
  }
  barrier();
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    const uint at = i * 256u + t;
    const uint k = tile_memory[at];
    if (k == 0xFFFFFFFFu) continue;
    const uint to = digit_base[digit_of(k)] + at;
    scratch[to_keys + to] = k;
    scratch[to_ids + to] = tile_memory[OG_SC_TILE + at];
  }
#elif STAGE == 5
  const uint i = invocation();
  if ((p.flags & OG_SC_BY_TARGET) != 0u) {
    // One invocation per output element; its run's start comes from STAGE 7 (a stale entry fails
    // the checks: only a run's first place holds its key after a different one).
    if (i >= p.targets * p.row) return;
    const uint key = i / p.row, j = i - key * p.row;
    const bool in_b = (p.flags & OG_SC_FROM_B) != 0u;
    const uint keys = in_b ? keys_b() : keys_a(), ids = in_b ? ids_b() : ids_a();
    const uint q0 = scratch[(in_b ? keys_a() : keys_b()) + key];
    if (q0 >= p.units || scratch[keys + q0] != key || (q0 > 0u && scratch[keys + q0 - 1u] == key)) return;
    fold_span(q0, scratch[(in_b ? ids_a() : ids_b()) + key], key, j, ids);
    return;
  }
  if (i >= p.units * p.row) return;
  const uint q0 = i / p.row, j = i - q0 * p.row;
  if ((p.flags & OG_SC_FEW) != 0u) {
    // A few units, unsorted: the first unit with a target owns it and folds the later ones that
    // share it, in order.
    const uint key = scratch[keys_a() + q0];
    if (key == p.targets) return;
    for (uint w = 0u; w < q0; ++w)
      if (scratch[keys_a() + w] == key) return;
    const uint e = p.out_offset + key * p.row + j;
    uvec2 v = load_out(e);
    for (uint w = q0; w < p.units; ++w)
      if (scratch[keys_a() + w] == key) v = combine(v, load_update(p.updates_offset + w * p.row + j));
    store_out(e, v);
    return;
  }
  const uint keys = (p.flags & OG_SC_FROM_B) != 0u ? keys_b() : keys_a();
  const uint ids = (p.flags & OG_SC_FROM_B) != 0u ? ids_b() : ids_a();
  const uint key = scratch[keys + q0];
  if (key == p.targets || (q0 > 0u && scratch[keys + q0 - 1u] == key)) return;
  fold_run(q0, key, j, keys, ids);

#elif STAGE == 7
  // Each run's first place and its end, by target, into the keys and ids of the copy the sort left
  // free.
  const uint q = invocation();
  if (q >= p.units) return;
  const bool in_b = (p.flags & OG_SC_FROM_B) != 0u;
  const uint keys = in_b ? keys_b() : keys_a();
  const uint key = scratch[keys + q];
  if (key == p.targets) return;
  if (q == 0u || scratch[keys + q - 1u] != key) scratch[(in_b ? keys_a() : keys_b()) + key] = q;
  if (q + 1u == p.units || scratch[keys + q + 1u] != key) scratch[(in_b ? ids_a() : ids_b()) + key] = q + 1u;
#elif STAGE == 8
  // One tile per workgroup, taken in the order workgroups start (a ticket), so the tiles a
  // workgroup looks back over started before it.
  const uint me = sweep_me();
  if (me == 0u) sweep_word = atomicAdd(scratch[p.dims[2]], 1u);
  // Loops of a fixed count are unrolled: llvmpipe ends every loop of an invocation once all of
  // them together have run 65535 steps, and the walk back below needs that budget.
  [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_MEMORY; i += OG_SC_SWEEP_THREADS) sweep_memory[i + me] = 0u;
  barrier();
  const uint tile = sweep_word;
  if (tile >= p.tiles) return;  // (never: one ticket per workgroup, one workgroup per tile)
  const uint keys = source_keys(), ids = source_ids();
  const uint to_keys = (p.flags & OG_SC_FROM_B) != 0u ? keys_a() : keys_b();
  const uint to_ids = (p.flags & OG_SC_FROM_B) != 0u ? ids_a() : ids_b();
  const uint width = gl_SubgroupSize, group = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  // A subgroup's keys are OG_SC_SWEEP_ITEMS * width consecutive units, item-major, so ranking
  // item by item, lane by lane, keeps their order. Past the end, a key of all ones.
  const uint first = tile * OG_SC_TILE + group * width * OG_SC_SWEEP_ITEMS;
  uint key[OG_SC_SWEEP_ITEMS], id[OG_SC_SWEEP_ITEMS], place[OG_SC_SWEEP_ITEMS];
  [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i) {
    const uint u = first + i * width + lane;
    const bool live = u < p.units;
    uint v = u;
    if ((p.flags & OG_SC_FIRST_PASS) == 0u)
      v = live ? scratch[ids + u] : 0u;
    else if ((p.flags & OG_SC_CARRY_VALUES) != 0u)
      v = live ? load_update(p.updates_offset + u).x : 0u;
    key[i] = live ? scratch[keys + u] : 0xFFFFFFFFu;
    id[i] = v;
  }
  rank_in_subgroup(key, place);
  barrier();
  // Per digit (this invocation's OG_SC_SWEEP_PER): the subgroups' counts become their starts, the
  // tile's count is published at once for later tiles, and the digit's start in the sorted tile.
  uint digit[OG_SC_SWEEP_PER];
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) digit[h] = me + h * OG_SC_SWEEP_THREADS;
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) {
    const uint d = digit[h];
    const uint run = subgroup_starts(d);
    sweep_count[d] = run;
    atomicMax(scratch[p.dims[0] + tile * OG_SC_DIGITS + d], (tile == 0u ? OG_SC_PREFIX : OG_SC_AGGREGATE) | run);
  }
  // Where each digit starts in the sorted tile and in the whole sort (the pass's counts over all
  // keys, scanned).
  uint live_keys = 0u, all = 0u, start[OG_SC_SWEEP_PER], global[OG_SC_SWEEP_PER];
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) {
    uint total;
    start[h] = live_keys + workgroup_exclusive(sweep_count[digit[h]], total);
    live_keys += total;
    sweep_start[digit[h]] = start[h];
    global[h] = all + workgroup_exclusive(scratch[p.dims[1] + digit[h]], total);
    all += total;
  }

  // How many keys of each digit the earlier tiles hold: walk back over their status words; where
  // a tile has not published, count its keys here (the pass's input is complete).
  uint before[OG_SC_SWEEP_PER], at[OG_SC_SWEEP_PER];
  bool done[OG_SC_SWEEP_PER];
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) {
    before[h] = 0u;
    at[h] = tile;
    done[h] = tile == 0u;
  }
  uint budget = 4096u;  // walk steps in all; past them every round counts one tile (at most p.tiles rounds)
  for (uint round = 0u; round < p.tiles + 1u; ++round) {
    [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) walk_back(digit[h], at[h], before[h], done[h], budget);
    if (me == 0u) sweep_word = 0u;
    barrier();
    [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h)
      if (!done[h]) atomicMax(sweep_word, at[h]);
    barrier();
    const uint blocked = sweep_word;  // the highest tile + 1 a digit waits on; 0 when all are done
    barrier();
    if (blocked == 0u) break;
    [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) sweep_recount[digit[h]] = 0u;
    barrier();
    const uint from = (blocked - 1u) * OG_SC_TILE;
    [[unroll]] for (uint j = 0u; j < OG_SC_TILE; j += OG_SC_SWEEP_THREADS)
      if (from + j + me < p.units) atomicAdd(sweep_recount[digit_of(scratch[keys + from + j + me])], 1u);
    barrier();
    [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h)
      if (!done[h] && at[h] == blocked) {
        before[h] += sweep_recount[digit[h]];
        at[h] -= 1u;
        done[h] = at[h] == 0u;
      }
  }
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) {
    if (tile > 0u)
      atomicMax(scratch[p.dims[0] + tile * OG_SC_DIGITS + digit[h]], OG_SC_PREFIX | (before[h] + sweep_count[digit[h]]));
    sweep_base[digit[h]] = global[h] + before[h] - start[h];
  }
  // Each key's place in the sorted tile, then the tile through workgroup memory so neighbouring
  // invocations write neighbouring places.
  [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i) {
    const uint d = digit_of(key[i]);
    place[i] += sweep_start[d] + sweep_memory[group * OG_SC_DIGITS + d];
  }
  barrier();
  [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i)
    if (key[i] != 0xFFFFFFFFu) {
      sweep_memory[place[i]] = key[i];
      sweep_memory[OG_SC_TILE + place[i]] = id[i];
    }
  barrier();
  [[unroll]] for (uint i = 0u; i < OG_SC_TILE; i += OG_SC_SWEEP_THREADS) {
    const uint j = i + me;
    if (j >= live_keys) break;
    const uint k = sweep_memory[j];
    const uint to = sweep_base[digit_of(k)] + j;
    scratch[to_keys + to] = k;
    scratch[to_ids + to] = sweep_memory[OG_SC_TILE + j];
  }
#elif STAGE == 9
  const uint w = invocation();
  if (w < p.shift) scratch[p.dims[0] + w] = 0u;
#elif STAGE == 10
  // Slot t's grid: its workgroups (strides[0..7], dims[3..7]) when it belongs to the path taken,
  // else none; folded into rows of OG_SC_FOLD.
  if (t >= p.shift) return;
  uint n = t < 8u ? p.strides[t] : p.dims[t - 5u];
  const bool long_run = scratch[p.dims[1]] != 0u;
  if ((((p.dims[2] >> t) & 1u) != 0u) != long_run) n = 0u;
  scratch[p.dims[0] + 3u * t] = min(n, OG_SC_FOLD);
  scratch[p.dims[0] + 3u * t + 1u] = (n + OG_SC_FOLD - 1u) / OG_SC_FOLD;
  scratch[p.dims[0] + 3u * t + 2u] = 1u;
#elif STAGE == 11
  // Bucketed unit q (read in order) to its final place: (id, value) into the sort's second copy.
  const uint q = invocation();
  if (q >= run_start(p.targets)) return;
  const uint at = keys_b() + 2u * scratch[keys_a() + q];
  scratch[at] = scratch[p.dims[4] + q];
  scratch[at + 1u] = scratch[p.dims[4] + p.units + q];
#elif STAGE == 12
  // The owner of target i: its run sorted by id, then folded in that order (reduction none: the
  // largest id wins). Every run fits OG_SC_RUN (the route sized this dispatch).
  const uint i = invocation();
  if (i >= p.targets) return;
  const uint first = run_start(i), n = run_start(i + 1u) - first;
  if (n == 0u) return;
  const uint w = keys_b() + 2u * first;  // the run's (id, value) pairs
  const bool carried = (p.flags & OG_SC_CARRY_VALUES) != 0u;
  uint run[OG_SC_RUN];
  [[unroll]] for (uint c = 0u; c < OG_SC_RUN; ++c) run[c] = c < n ? (scratch[w + 2u * c] << 6) | c : 0xFFFFFFFFu;
  const uint e = p.out_offset + i;
  if (OG_SC_REDUCTION(p.flags) == OG_SC_NONE) {
    uint last = run[0];
    [[unroll]] for (uint c = 1u; c < OG_SC_RUN; ++c)
      if (c < n) last = max(last, run[c]);
    store_out(e, carried ? uvec2(scratch[w + 2u * (last & 63u) + 1u], 0u) : load_update(p.updates_offset + (last >> 6)));
    return;
  }
  sort_run(run, n <= 16u ? 16u : n <= 32u ? 32u : OG_SC_RUN);
  // The order goes into the run's id slots (this invocation's own words), so the fold below is one
  // loop with one copy of the reduction's code.
  [[unroll]] for (uint c = 0u; c < OG_SC_RUN; ++c)
    if (c < n) scratch[w + 2u * c] = run[c];
  uvec2 v = load_out(e);
  for (uint c = 0u; c < n; ++c) {
    const uint k = scratch[w + 2u * c];
    v = combine(v, carried ? uvec2(scratch[w + 2u * (k & 63u) + 1u], 0u) : load_update(p.updates_offset + (k >> 6)));
  }
  store_out(e, v);
#elif STAGE == 13
  // One tile of units: each to its bucket (dims[7] of them, of 2^dims[5] targets each), at the
  // bucket's start (its first target's run start) plus the places earlier tiles took there (a
  // cursor, integer atomics) plus its place among the tile's units of that bucket. Kept: the
  // unit's final place, its id and its value.
  const uint tile = og_workgroup_index();
  if (tile >= p.tiles) return;
  for (uint b = t; b < p.dims[7]; b += 256u) bucket_count[b] = 0u;
  barrier();
  uint packed[OG_SC_ITEMS], slot[OG_SC_ITEMS];
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    const uint u = tile * OG_SC_TILE + i * 256u + t;
    packed[i] = u < p.units ? scratch[ids_a() + u] : 0xFFFFFFFFu;
    slot[i] = packed[i] != 0xFFFFFFFFu ? atomicAdd(bucket_count[(packed[i] >> 6) >> p.dims[5]], 1u) : 0u;
  }
  barrier();
  for (uint b = t; b < p.dims[7]; b += 256u) {
    const uint c = bucket_count[b];
    if (c != 0u) bucket_base[b] = run_start(b << p.dims[5]) + atomicAdd(scratch[p.dims[6] + b], c);
  }
  barrier();
  const bool carried = (p.flags & OG_SC_CARRY_VALUES) != 0u;
  [[unroll]] for (uint i = 0u; i < OG_SC_ITEMS; ++i) {
    if (packed[i] == 0xFFFFFFFFu) continue;
    const uint u = tile * OG_SC_TILE + i * 256u + t, key = packed[i] >> 6;
    const uint at = bucket_base[key >> p.dims[5]] + slot[i];
    scratch[keys_a() + at] = run_start(key) + (packed[i] & 63u);
    scratch[p.dims[4] + at] = u;
    scratch[p.dims[4] + p.units + at] = carried ? load_update(p.updates_offset + u).x : 0u;
  }
#elif STAGE == 14
  // Group g of 256 << extra targets: its units are one range of the sort (ordered by target >>
  // (8 + extra), so by index within the group), the values carried. Found by two searches at once
  // (the first half of the invocations for the group's first unit, the second half for the next
  // group's), each round probing evenly spaced keys of what is left; then the range in tiles of
  // OG_SC_GROUP_TILE units, each sorted by the low 8 bits in workgroup memory (stable), and each
  // owner folds its targets' runs in order.
  const uint extra = OG_SC_GROUP_EXTRA(p.flags), group_bits = OG_SC_DIGIT_BITS + extra;
  const uint groups = ((p.targets - 1u) >> group_bits) + 1u;  // targets >= 256 when grouped
  const uint grp = og_workgroup_index();
  if (grp >= groups) return;
  const uint me = sweep_me();
  const uint keys = source_keys(), values = source_ids();
  const uint probes = OG_SC_SWEEP_THREADS / 2u, side = me / probes, probe = me - side * probes;
  if (me < 2u) {
    group_bound[2u * me] = 0u;
    group_bound[2u * me + 1u] = p.units;
    group_below[me] = 0u;
  }
  [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_MEMORY; i += OG_SC_SWEEP_THREADS) sweep_memory[i + me] = 0u;
  barrier();
  // The first key of the group (or of the next one). The sweeps sorted a skipped unit (key
  // `targets`) as digit 255 of every pass: after every group but the highest possible one, so the
  // keys are in order up to the last group's start, and the last group ends with the units.
  const uint wanted = (grp + side) << group_bits;
  for (uint round = 0u; round < 16u; ++round) {
    const uint lo = group_bound[2u * side], hi = group_bound[2u * side + 1u];
    if (group_bound[0] == group_bound[1] && group_bound[2] == group_bound[3]) break;  // uniform
    const uint step = (hi - lo + probes - 1u) / probes, q = lo + probe * step + step - 1u;
    // One count per subgroup (a search's probes fill whole subgroups): no contention on the word.
    const uint below = subgroupBallotBitCount(subgroupBallot(hi > lo && q < hi && scratch[keys + q] < wanted));
    if (gl_SubgroupInvocationID == 0u && below > 0u) atomicAdd(group_below[side], below);
    barrier();
    if (me < 2u) {
      const uint l = group_bound[2u * me], h = group_bound[2u * me + 1u];
      const uint s = (h - l + probes - 1u) / probes, below = group_below[me];
      group_bound[2u * me] = l + below * s;
      group_bound[2u * me + 1u] = min(h, l + below * s + s - 1u);
      if (h == l) group_bound[2u * me + 1u] = h;
      group_below[me] = 0u;
    }
    barrier();
  }
  const uint start = group_bound[0], end = grp + 1u == groups ? p.units : group_bound[2];
  // This invocation's targets: digits `me` and, with 128 invocations, `me + 128`, and in the big
  // form those plus every multiple of 256 (up to 256 << extra).
  uint digit[OG_SC_SWEEP_PER];
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) digit[h] = me + h * OG_SC_SWEEP_THREADS;
#ifdef OG_SC_BIG_GROUPS
  uint touched[OG_SC_SWEEP_PER];  // bit s: target (s << 8) + digit of the group
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) {
    touched[h] = 0u;
    for (uint s = 0u; s < (1u << extra); ++s) {
      const uint target = (grp << group_bits) + (s << OG_SC_DIGIT_BITS) + digit[h];
      group_acc[(s << OG_SC_DIGIT_BITS) + digit[h]] = target < p.targets ? load_out(p.out_offset + target).x : 0u;
    }
  }
#else
  uvec2 acc[OG_SC_SWEEP_PER];
  bool touched[OG_SC_SWEEP_PER];
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) {
    const uint target = grp * OG_SC_DIGITS + digit[h];
    acc[h] = target < p.targets ? load_out(p.out_offset + target) : uvec2(0u);
    touched[h] = false;
  }
#endif
  // A tile's keys and values, loaded one tile ahead: the next tile's loads are in flight while
  // the owners fold the current one (its registers are free by then).
  uint key[OG_SC_SWEEP_ITEMS], value[OG_SC_SWEEP_ITEMS], place[OG_SC_SWEEP_ITEMS];
#if OG_SC_GROUP_AHEAD
  load_group_tile(start, end, keys, values, key, value);
#endif
  for (uint tile = start; tile < end; tile += OG_SC_GROUP_TILE) {
#if !OG_SC_GROUP_AHEAD
    load_group_tile(tile, end, keys, values, key, value);
#endif
    rank_in_subgroup(key, place);
    barrier();
    uint count[OG_SC_SWEEP_PER], from[OG_SC_SWEEP_PER], live_keys = 0u;
    [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) count[h] = subgroup_starts(digit[h]);
    [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) {
      uint total;
      from[h] = live_keys + workgroup_exclusive(count[h], total);
      live_keys += total;
      sweep_start[digit[h]] = from[h];
    }
    barrier();
    [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i) {
      const uint d = digit_of(key[i]);
      place[i] += sweep_start[d] + sweep_memory[gl_SubgroupID * OG_SC_DIGITS + d];
    }
#ifdef OG_SC_BIG_GROUPS
    // The previous tile's folds read the sub-groups before the barrier above.
    [[unroll]] for (uint i = 0u; i < OG_SC_GROUP_TILE / 4u; i += OG_SC_SWEEP_THREADS) group_subs[i + me] = 0u;
#endif
    barrier();
    // The counts are read: cleared for the next tile, which writes them only after a barrier (and
    // its values only after three, so the folds below are done by then).
    [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_MEMORY; i += OG_SC_SWEEP_THREADS)
      if (i + me < gl_NumSubgroups * OG_SC_DIGITS) sweep_memory[i + me] = 0u;
    [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i)
      if (key[i] != 0xFFFFFFFFu) {
        group_values[place[i]] = value[i];
#ifdef OG_SC_BIG_GROUPS
        const uint sub = (key[i] >> OG_SC_DIGIT_BITS) & ((1u << extra) - 1u);
        if (sub != 0u) atomicOr(group_subs[place[i] >> 2], sub << ((place[i] & 3u) * 8u));
#endif
      }
    barrier();
#if OG_SC_GROUP_AHEAD
    load_group_tile(tile + OG_SC_GROUP_TILE, end, keys, values, key, value);
#endif
    [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) {
#ifdef OG_SC_BIG_GROUPS
      touched[h] |= fold_subs(digit[h], from[h], count[h]);
#else
      acc[h] = fold_sorted(acc[h], from[h], count[h]);
      touched[h] = touched[h] || count[h] > 0u;
#endif
    }
  }
#ifdef OG_SC_BIG_GROUPS
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h)
    for (uint s = 0u; s < (1u << extra); ++s)
      if ((touched[h] & (1u << s)) != 0u)
        store_out(p.out_offset + (grp << group_bits) + (s << OG_SC_DIGIT_BITS) + digit[h],
                  uvec2(group_acc[(s << OG_SC_DIGIT_BITS) + digit[h]], 0u));
#else
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h)
    if (touched[h]) store_out(p.out_offset + grp * OG_SC_DIGITS + digit[h], acc[h]);
#endif
#elif STAGE == 15
  // One tile per workgroup, ranked as the sweep ranks one, its digits placed from its places among
  // its keys workgroup's tiles and the scanned totals of those workgroups (digit-major, up to three
  // levels). (Eight tiles a workgroup, each loaded while the one
  // before went out, measured slower on the H200: 0.312 against 0.226 ms for 2^24 units, with
  // fewer workgroups in flight.)
  const uint me = sweep_me();
  const uint first_tile = og_workgroup_index();
  if (first_tile >= p.tiles) return;
  const uint end_tile = first_tile + 1u;
  const uint keys = source_keys(), ids = source_ids();
  const uint to_keys = (p.flags & OG_SC_FROM_B) != 0u ? keys_a() : keys_b();
  const uint to_ids = (p.flags & OG_SC_FROM_B) != 0u ? ids_a() : ids_b();
  const uint levels = OG_SC_LEVELS(p.flags);
  uint digit[OG_SC_SWEEP_PER];
  [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) digit[h] = me + h * OG_SC_SWEEP_THREADS;
  [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_MEMORY; i += OG_SC_SWEEP_THREADS) sweep_memory[i + me] = 0u;
  uint key[OG_SC_SWEEP_ITEMS], id[OG_SC_SWEEP_ITEMS], place[OG_SC_SWEEP_ITEMS];
  load_sweep_tile(first_tile, end_tile, keys, ids, key, id);
  barrier();
  {
    const uint tile = first_tile;
    rank_in_subgroup(key, place);
    barrier();
    uint count[OG_SC_SWEEP_PER], start[OG_SC_SWEEP_PER], live_keys = 0u;
    [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) count[h] = subgroup_starts(digit[h]);
    [[unroll]] for (uint h = 0u; h < OG_SC_SWEEP_PER; ++h) {
      uint total;
      start[h] = live_keys + workgroup_exclusive(count[h], total);
      live_keys += total;
      sweep_start[digit[h]] = start[h];
      const uint entry = digit[h] * keys_workgroups() + tile / OG_SC_KEYS_TILES;
      uint base = scratch[counts_at() + digit[h] * p.tiles + tile] + scratch[keys_totals_at() + entry];
      if (levels > 1u) base += scratch[keys_level1_at() + entry / OG_SC_SCAN_BLOCK];
      if (levels > 2u) base += scratch[keys_level2_at() + entry / (OG_SC_SCAN_BLOCK * OG_SC_SCAN_BLOCK)];
      sweep_base[digit[h]] = base - start[h];
    }
    barrier();
    [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i) {
      const uint d = digit_of(key[i]);
      place[i] += sweep_start[d] + sweep_memory[gl_SubgroupID * OG_SC_DIGITS + d];
    }
    barrier();
    // The tile through workgroup memory in sorted order (over the counts, read above), so
    // neighbouring invocations write neighbouring places.
    [[unroll]] for (uint i = 0u; i < OG_SC_SWEEP_ITEMS; ++i)
      if (key[i] != 0xFFFFFFFFu) {
        sweep_memory[place[i]] = key[i];
        sweep_memory[OG_SC_TILE + place[i]] = id[i];
      }
    barrier();
    [[unroll]] for (uint i = 0u; i < OG_SC_TILE; i += OG_SC_SWEEP_THREADS) {
      const uint j = i + me;
      if (j >= live_keys) break;
      const uint k = sweep_memory[j];
      const uint to = sweep_base[digit_of(k)] + j;
      scratch[to_keys + to] = k;
      scratch[to_ids + to] = sweep_memory[OG_SC_TILE + j];
    }
  }
#elif STAGE == 6
  const uint i = invocation();
  if (i >= p.units * p.row) return;
  const uint u = i / p.row, j = i - u * p.row;
  const uint target = target_of(u);
  if (target == p.targets) return;
  const uint e = p.out_offset + target * p.row + j;
  const uvec2 update = load_update(p.updates_offset + i);
  store_out(e, OG_SC_REDUCTION(p.flags) == OG_SC_NONE ? update : combine(load_out(e), update));
#endif
}
