// ScatterND / ScatterElements: the shape and type checks and the launch plan, as pure functions
// over shapes (unit-tested without a device).
#pragma once

#include <cstdint>
#include <span>

#include "onegpu/kernels/scatter.h"
#include "onegpu/tensor.h"
#include "scatter/scatter_push.h"

namespace onegpu::kernels::scatter {

enum class Operation { nd, elements };

struct Operand {
  std::span<const int64_t> shape;
  DataType type = DataType::float32;
  uint64_t offset = 0;  // elements
  bool dense = true;
};

struct Request {
  Operation operation = Operation::nd;
  Operand data, indices, updates, out;
  int64_t axis = 0;  // ScatterElements
  ScatterReduction reduction = ScatterReduction::none;
  bool distinct = false;
  bool status = false;
  // The device runs the one-dispatch radix pass (subgroup ballots and arithmetic, full subgroups
  // of 8, 16 or 32): the sort uses it where the units allow.
  bool sweep = false;
  // Sort by placement where the units allow (ScatterOptions::allow_placement); the radix sort
  // stays ready for runs longer than OG_SC_PLACE_RUN. scratch_bytes_*() plan with it.
  bool place = true;
  // Fold groups of OG_SC_DIGITS targets in workgroup memory after sorting by target / OG_SC_DIGITS
  // (ScatterOptions::allow_group_fold), where the sweep runs and the units allow.
  bool group = true;
  // The largest group_extra the device's big group fold takes (0: groups of OG_SC_DIGITS only).
  uint32_t group_extra_max = 0;
};

struct Plan {
  const char* operation = "ScatterND";
  uint64_t data_elements = 0;
  uint64_t index_elements = 0;
  uint64_t update_elements = 0;
  uint32_t units = 0;      // index tuples / index elements
  uint32_t row = 1;        // payload elements per unit
  uint32_t targets = 0;    // rows / elements of data
  uint32_t key_bits = 0;   // bits the sort keys span (targets, and `targets` itself for a skip)
  uint32_t passes = 0;     // radix passes (0: no sort)
  bool few = false;        // a few units: keys, then the combine compares them all (no sort)
  bool by_target = false;  // sorted, no more targets than units: the combine runs per output element
  // One-element updates of at most 32 bits, one-dispatch passes, two or more digits, at least
  // kGroupUnitsPerTarget units a target: the sweeps skip the lowest digit (pass 0) and
  // `scatter.group` folds each group of OG_SC_DIGITS targets (no runs, no combine).
  bool grouped = false;
  // Grouped: each group holds OG_SC_DIGITS << group_extra targets, so that one sweep sorts up to
  // 2^(16 + group_extra) targets (the big group fold keeps 2^group_extra targets an owner in
  // workgroup memory); 0 with more than one sweep.
  uint32_t group_extra = 0;
  // Grouped with one sweep: the keys stage counts each tile's digits (at level_at[0], digit-major),
  // the three-dispatch sort's scan makes them places, and the sweep reads its tile's places instead
  // of walking back over earlier tiles (no clear, tickets or status words).
  bool counted = false;
  uint32_t tiles = 0;      // sort tiles of OG_SC_TILE units
  // The digit counts (OG_SC_DIGITS per tile) and the block totals of their scan, two levels.
  uint32_t level_entries[3] = {0, 0, 0};
  uint32_t level_at[3] = {0, 0, 0};  // first word in the scratch
  uint32_t levels = 0;  // levels scanned: a level of one block needs no totals above it
  // The one-dispatch radix passes (OG_SC_SWEEP): from word sweep_at, every pass's digit counts
  // over all keys (OG_SC_DIGITS each), a ticket word per pass (four words), then every pass's
  // status words (OG_SC_DIGITS per tile), all zeroed by the clear stage first.
  bool sweep = false;
  uint32_t sweep_at = 0;
  // The placement (OG_SC_PLACE): from word place_at, its flag (a run is too long), the route's
  // indirect grids (OG_SC_ROUTE_SLOTS of three words) and the buckets' cursors, then each target's
  // count (targets + 1 entries, the last 0), the two levels of scan block totals, and the buckets'
  // ids and values (units words each, from place_staged_at). The radix sort's dispatches wait
  // behind the route, sized to nothing unless a run is too long.
  bool placed = false;
  uint32_t place_at = 0;
  uint32_t place_staged_at = 0;
  uint32_t bucket_shift = 0;  // a target's bucket is target >> bucket_shift
  uint32_t buckets = 0;
  uint32_t place_entries[3] = {0, 0, 0};
  uint32_t place_level_at[3] = {0, 0, 0};
  uint32_t place_levels = 0;
  uint32_t sweep_end = 0;  // end of the sweep's words (the clear's range)
  uint64_t scratch_words = 0;
  uint64_t copy_words = 0;  // output words the copy writes (0: in place or empty)
  ScatterPush push{};       // everything but the per-pass fields (shift, the FROM_B flag)
  bool sorted() const { return passes > 0; }
  bool keyed() const { return sorted() || few; }  // a keys stage and a combine
  uint64_t combine_invocations() const { return by_target ? uint64_t(targets) * row : update_elements; }
  // The radix passes that run: every pass, or with `grouped` all but pass 0.
  uint32_t first_pass() const { return grouped ? 1 : 0; }
  // The words a keys/count/reorder/combine stage reads the sorted keys from after the last pass.
  bool sorted_in_b() const { return (passes - first_pass()) % 2 == 1; }
  uint32_t group_bits() const { return OG_SC_DIGIT_BITS + group_extra; }  // targets a group: 2^group_bits
  uint32_t groups() const { return uint32_t((uint64_t(targets) + (1ull << group_bits()) - 1) >> group_bits()); }
};

// At most this many units, with units^2 x row within kFewWork, skip the sort: the combine's owners
// compare every key (the form of a key-value cache append with a handful of new rows).
inline constexpr uint32_t kFewUnits = 64;
inline constexpr uint64_t kFewWork = uint64_t(1) << 24;
// The group fold needs at least this many units a target on average.
inline constexpr uint64_t kGroupUnitsPerTarget = 8;

// Every check that needs no buffer; throws KernelShapeError (operation and argument) or
// UnsupportedError (a type scatter does not take). `in_place`: out is data itself.
Plan plan(const Request& r, bool in_place);

// The push constants of each dispatch: the copy, the keys, radix pass `pass` (0-based: count and
// reorder), the scan of count level `level` (0, 1, 2) in every pass, the combine, the distinct path.
ScatterPush copy_push(const Plan& p);
ScatterPush keys_push(const Plan& p);
// The sweep: the clear of its words (`shift` of them from dims[0]) and radix pass `pass`.
ScatterPush clear_push(const Plan& p);
ScatterPush sweep_push(const Plan& p, uint32_t pass);
ScatterPush radix_push(const Plan& p, uint32_t pass);
ScatterPush scan_push(const Plan& p, uint32_t level);
// Workgroups of the scan of `level` (< levels).
uint32_t scan_groups(const Plan& p, uint32_t level);
ScatterPush combine_push(const Plan& p);
// The group fold: one workgroup per groups().
ScatterPush group_push(const Plan& p);

// The placement's dispatches: the clear of its counts and cursors, the keys that count and rank,
// the scan of the counts (`level` < place_levels), the route, then the partition into buckets, the
// move of each unit to its place and the owners' fold (all three from place_push).
ScatterPush place_clear_push(const Plan& p);
ScatterPush place_keys_push(const Plan& p);
ScatterPush place_scan_push(const Plan& p, uint32_t level);
uint32_t place_scan_groups(const Plan& p, uint32_t level);
ScatterPush place_push(const Plan& p);

// The grids the route stage writes (slot i at word place_at + 1 + 3 i): the placement's, used when
// every run fits, and the radix sort's, used otherwise.
enum RouteSlot : uint32_t {
  kRoutePartition,   // tiles
  kRoutePlace,       // groups of the units
  kRouteFold,        // groups of the targets
  kRouteKeys,        // the radix sort's keys stage
  kRouteRuns,        // groups of the units
  kRouteCombine,     // groups of the output elements
  kRouteClearSweep,  // the sweep's words
  kRouteSweep,       // tiles
  kRouteTiles,       // tiles (count and reorder)
  kRouteScan0,       // the scan of the digit counts, level 0, 1, 2
  kRouteScan1,
  kRouteScan2,
  kRouteSlots
};
static_assert(kRouteSlots <= OG_SC_ROUTE_SLOTS);
ScatterPush route_push(const Plan& p);
// Byte offset of a slot's grid in the scratch.
uint64_t route_offset(const Plan& p, RouteSlot slot);

const char* operation_name(Operation op);

}  // namespace onegpu::kernels::scatter
