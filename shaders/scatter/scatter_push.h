// Push constants and codes of the scatter kernels, shared by the host (src/kernels/scatter) and
// GLSL.
#ifndef ONEGPU_SCATTER_PUSH_H
#define ONEGPU_SCATTER_PUSH_H
#include "common/layout.h"

// Reductions (onegpu::kernels::ScatterReduction).
#define OG_SC_NONE 0u
#define OG_SC_ADD 1u
#define OG_SC_MUL 2u
#define OG_SC_MIN 3u
#define OG_SC_MAX 4u

// flags: payload storage (bits 0-1), arithmetic type (bits 2-3), reduction (bits 4-6), and bits.
#define OG_SC_WORD 0u   // one 32-bit word per element
#define OG_SC_PAIR 1u   // two words (low, high)
#define OG_SC_HALF 2u   // 16 bits, two per word
#define OG_SC_F32 0u
#define OG_SC_F16 1u
#define OG_SC_I32 2u
#define OG_SC_I64 3u
#define OG_SC_STORAGE(f) ((f) & 3u)
#define OG_SC_ARITH(f) (((f) >> 2) & 3u)
#define OG_SC_REDUCTION(f) (((f) >> 4) & 7u)
#define OG_SC_WIDE_INDICES 128u  // int64 indices
#define OG_SC_STATUS 256u        // record bad indices in the status word
#define OG_SC_ND 512u            // ScatterND (otherwise ScatterElements)
#define OG_SC_FROM_B 1024u       // the radix pass reads copy B of the scratch (and writes A)
#define OG_SC_FIRST_PASS 2048u   // the first radix pass: a unit's id is its position
#define OG_SC_LEVELS(f) (((f) >> 13) & 3u)  // levels of scanned counts (1 to 3)
#define OG_SC_FEW 32768u         // a few units: no sort, the combine finds each target's units itself
#define OG_SC_BY_TARGET 65536u   // the combine runs per output element (STAGE 7 found the runs)
#define OG_SC_CARRY_VALUES 4096u // the sort moves each unit's update (one element, at most 32 bits) instead of its id
#define OG_SC_SWEEP 131072u      // the sort ranks with subgroup ballots, one dispatch per digit (STAGE 8)
#define OG_SC_PLACE 262144u      // keys: count each target's units and keep each unit's rank among them
#define OG_SC_GROUPED 524288u    // keys and sweeps: pass 0 does not run (a group fold follows); a skipped unit is digit 255
// Grouped: a group holds OG_SC_DIGITS << extra targets, and pass q >= 1 sorts by bits 8 q + extra up.
#define OG_SC_GROUP_EXTRA_SHIFT 20u
#define OG_SC_GROUP_EXTRA(f) (((f) >> OG_SC_GROUP_EXTRA_SHIFT) & 7u)
#define OG_SC_COUNTED 33554432u  // keys: each tile's counts of the one sweep's digits; sweep: scanned counts, no walk back
// The sweep: radix passes of the sort less one (those that run: from 1 when grouped).
#define OG_SC_PASSES_SHIFT 23u
#define OG_SC_PASSES(f) ((((f) >> OG_SC_PASSES_SHIFT) & 3u) + 1u)

// The stable sort: tiles of OG_SC_TILE keys (256 invocations, 8 each), 8-bit digits ranked in two
// 4-bit rounds, and exclusive scans in blocks of OG_SC_SCAN_BLOCK entries (three levels).
#define OG_SC_TILE 2048u
#define OG_SC_ITEMS 8u
#define OG_SC_DIGITS 256u
#define OG_SC_DIGIT_BITS 8u
#define OG_SC_SCAN_BLOCK 4096u
#define OG_SC_NO_TOTALS 0xFFFFFFFFu

// The one-dispatch radix pass (STAGE 8): 128 invocations rank 16 keys each (a tile of OG_SC_TILE)
// with subgroup ballots, and find how many keys of each digit earlier tiles hold from the status
// words those tiles publish: a count of the tile's own keys (AGGREGATE) or of its own and every
// earlier tile's (PREFIX), the flag and the count in one word.
// The `wide` variant, for subgroups of 16 or more, runs 256 invocations of 8 keys (fewer registers
// an invocation); subgroups of 8 need the narrow one's smaller per-subgroup counts.
#ifndef OG_SC_SWEEP_THREADS
#define OG_SC_SWEEP_THREADS 128u
#define OG_SC_SWEEP_ITEMS 16u
#endif
#define OG_SC_SWEEP_WIDE_THREADS 256u
#define OG_SC_AGGREGATE 0x40000000u
#define OG_SC_PREFIX 0x80000000u
#define OG_SC_COUNT_MASK 0x3FFFFFFFu
#define OG_SC_KEYS_TILES 8u  // tiles a keys workgroup covers for the sweep
#define OG_SC_SWEEP_MAX_UNITS 67108864u  // 2^26: at most 32768 tiles to look back over

// The placement (STAGE 1 with OG_SC_PLACE, then 3, 10, 13, 11, 12): each unit's rank among the
// units of its target comes from an integer atomic (so that order depends on scheduling), the
// scanned counts give each target's run, the units move there as (id, value) pairs (first
// partitioned by target range into buckets, so the final moves of neighbouring units land near each
// other), and the owner of a target sorts its run by id before folding it, so the bits do not
// depend on scheduling. Runs of up to OG_SC_PLACE_RUN units; a longer one sets a flag, and the
// route stage then sizes the radix sort's dispatches (indirect) instead of the placement's.
#define OG_SC_PLACE_RUN 64u
#define OG_SC_PLACE_MAX_UNITS 67108864u  // 2^26: a unit's id and its place in a run share one word
#define OG_SC_ROUTE_SLOTS 13u            // indirect grids the route stage writes (three words each)
#define OG_SC_PLACE_CURSORS 64u          // header word of the buckets' cursors
#define OG_SC_PLACE_BUCKETS 256u         // at most
#define OG_SC_PLACE_BUCKET_UNITS 262144u  // units a bucket holds on average (about)
#define OG_SC_PLACE_HEADER 512u  // words before the counts: the flag, the grids, the cursors
#define OG_SC_FOLD 65535u        // indirect grids are folded to rows of this many workgroups

struct ScatterPush {
  OG_U32 units;           // index tuples (ScatterND) or index elements (ScatterElements)
  OG_U32 row;             // payload elements per unit (ScatterND: the slice; ScatterElements: 1)
  OG_U32 targets;         // rows (ScatterND) or elements (ScatterElements) of data; the key of a skipped unit
  OG_U32 flags;
  OG_U32 data_offset;     // elements
  OG_U32 out_offset;      // elements
  OG_U32 indices_offset;  // elements
  OG_U32 updates_offset;  // elements
  OG_U32 axis_length;     // ScatterElements: data's length along the axis
  OG_U32 rank;            // ScatterElements: rank of indices; ScatterND: index tuple length
  OG_U32 axis;            // ScatterElements
  OG_U32 shift;           // radix pass: lowest bit of the digit; copy: output words; scan: entries
  OG_U32 tiles;           // sort tiles
  OG_U32 dims[8];         // ScatterElements: the indices' shape; ScatterND: data's leading dimensions;
                          // scan: the scanned entries' and the block totals' first words in the scratch
  OG_U32 strides[8];      // ScatterElements: data's strides; ScatterND: rows per step of each index
};

#endif
