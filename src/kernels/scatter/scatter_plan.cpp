#include "kernels/scatter/scatter_plan.h"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "onegpu/errors.h"

namespace onegpu::kernels::scatter {

namespace {

constexpr uint64_t kMaxElements = uint64_t(1) << 31;
constexpr uint64_t kWordLimit = uint64_t(1) << 32;
constexpr size_t kMaxRank = 8;

std::string shape_text(std::span<const int64_t> s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

uint64_t count_of(const char* op, const char* argument, std::span<const int64_t> shape) {
  if (shape.size() > kMaxRank)
    throw KernelShapeError(op, argument, "rank " + std::to_string(shape.size()) + " is more than 8");
  const uint64_t n = element_count(shape, op, argument);
  if (n >= kMaxElements)
    throw KernelShapeError(op, argument, std::to_string(n) + " elements: the kernels take fewer than 2^31");
  // Dimensions travel as 32-bit values; beside a zero one, a dimension could pass 2^31 alone.
  for (size_t d = 0; d < shape.size(); ++d)
    if (uint64_t(shape[d]) >= kMaxElements)
      throw KernelShapeError(op, argument, "dimension " + std::to_string(d) + " is " + std::to_string(shape[d]) +
                                               ": the kernels take fewer than 2^31");
  return n;
}

// Every dimension is below 2^31 and at most 8 of them; past 2^63 (only beside a zero dimension,
// where nothing is recorded) the product saturates.
uint64_t product(std::span<const int64_t> s) {
  uint64_t n = 1;
  for (int64_t d : s)
    if (__builtin_mul_overflow(n, uint64_t(d), &n)) n = UINT64_MAX;
  return n;
}

// The elements of `t` must lie below the kernels' 32-bit word indices.
void check_reach(const char* op, const char* argument, const Operand& t, uint64_t count) {
  if (!t.dense) throw KernelShapeError(op, argument, "must be dense (row-major, no strides)");
  const uint64_t words_per = data_type_size(t.type) == 8 ? 2 : 1;
  if (t.offset >= kWordLimit || (t.offset + count) * words_per >= kWordLimit)
    throw KernelShapeError(op, argument,
                           "offset " + std::to_string(t.offset) + " and " + std::to_string(count) +
                               " elements reach past the kernels' 32-bit indices");
}

bool arithmetic_type(DataType t) {
  return t == DataType::float32 || t == DataType::float16 || t == DataType::int32 || t == DataType::int64;
}

void check_types(const char* op, const Request& r) {
  const DataType t = r.data.type;
  if (r.updates.type != t)
    throw KernelShapeError(op, "updates", "type " + std::string(data_type_name(r.updates.type)) + " is not data's " +
                                              std::string(data_type_name(t)));
  if (r.out.type != t)
    throw KernelShapeError(op, "output", "type " + std::string(data_type_name(r.out.type)) + " is not data's " +
                                             std::string(data_type_name(t)));
  if (r.indices.type != DataType::int32 && r.indices.type != DataType::int64)
    throw KernelShapeError(op, "indices", "type " + std::string(data_type_name(r.indices.type)) +
                                              " is not int32 or int64");
  const uint32_t bytes = data_type_size(t);
  if (bytes != 2 && bytes != 4 && bytes != 8)
    throw UnsupportedError(std::string(op) + " element type", "16-, 32- or 64-bit elements",
                           std::string(data_type_name(t)));
  if (r.reduction != ScatterReduction::none && !arithmetic_type(t))
    throw UnsupportedError(std::string(op) + " reduction type", "float32, float16, int32 or int64",
                           std::string(data_type_name(t)));
  if (uint32_t(r.reduction) > uint32_t(ScatterReduction::max))
    throw KernelShapeError(op, "reduction", "unknown code " + std::to_string(uint32_t(r.reduction)));
}

uint32_t flags_of(const Request& r) {
  const DataType t = r.data.type;
  const uint32_t bytes = data_type_size(t);
  const uint32_t storage = bytes == 2 ? OG_SC_HALF : bytes == 8 ? OG_SC_PAIR : OG_SC_WORD;
  uint32_t arith = OG_SC_F32;
  if (t == DataType::float16) arith = OG_SC_F16;
  if (t == DataType::int32) arith = OG_SC_I32;
  if (t == DataType::int64) arith = OG_SC_I64;
  uint32_t f = storage | (arith << 2) | (uint32_t(r.reduction) << 4);
  if (r.indices.type == DataType::int64) f |= OG_SC_WIDE_INDICES;
  if (r.status) f |= OG_SC_STATUS;
  if (r.operation == Operation::nd) f |= OG_SC_ND;
  return f;
}

void plan_nd(const Request& r, Plan& p) {
  const char* op = p.operation;
  const auto data = r.data.shape, indices = r.indices.shape, updates = r.updates.shape;
  if (indices.empty()) throw KernelShapeError(op, "indices", "must have rank 1 or more");
  const int64_t k = indices.back();
  if (k < 0 || uint64_t(k) > data.size())
    throw KernelShapeError(op, "indices", "the tuple length " + std::to_string(k) + " is not in [0, " +
                                              std::to_string(data.size()) + "] (data's rank)");
  // updates = indices.shape[:-1] + data.shape[k:] (compared in place: a warm call allocates nothing)
  const auto lead = indices.first(indices.size() - 1), tail = data.subspan(size_t(k));
  if (updates.size() != lead.size() + tail.size() || !std::equal(lead.begin(), lead.end(), updates.begin()) ||
      !std::equal(tail.begin(), tail.end(), updates.begin() + lead.size())) {
    std::vector<int64_t> expected(lead.begin(), lead.end());
    expected.insert(expected.end(), tail.begin(), tail.end());
    throw KernelShapeError(op, "updates", "shape " + shape_text(updates) + " is not " + shape_text(expected) +
                                              " (indices.shape[:-1] + data.shape[k:])");
  }
  p.units = uint32_t(product(indices.first(indices.size() - 1)));
  p.row = uint32_t(product(data.subspan(size_t(k))));
  p.targets = uint32_t(product(data.first(size_t(k))));
  p.push.rank = uint32_t(k);
  uint64_t stride = 1;
  for (int64_t c = k; c-- > 0;) {
    p.push.dims[c] = uint32_t(data[size_t(c)]);
    p.push.strides[c] = uint32_t(stride);
    stride *= uint64_t(data[size_t(c)]);
  }
}

void plan_elements(const Request& r, Plan& p) {
  const char* op = p.operation;
  const auto data = r.data.shape, indices = r.indices.shape, updates = r.updates.shape;
  const int64_t rank = int64_t(data.size());
  if (rank == 0) throw KernelShapeError(op, "data", "must have rank 1 or more");
  if (indices.size() != data.size())
    throw KernelShapeError(op, "indices", "rank " + std::to_string(indices.size()) + " is not data's " +
                                              std::to_string(rank));
  if (!std::equal(updates.begin(), updates.end(), indices.begin(), indices.end()))
    throw KernelShapeError(op, "updates", "shape " + shape_text(updates) + " is not the indices' " +
                                              shape_text(indices));
  if (r.axis < -rank || r.axis >= rank)
    throw KernelShapeError(op, "axis", std::to_string(r.axis) + " is outside [" + std::to_string(-rank) + ", " +
                                           std::to_string(rank) + ")");
  const uint32_t axis = uint32_t(r.axis < 0 ? r.axis + rank : r.axis);
  for (size_t d = 0; d < data.size(); ++d)
    if (d != axis && indices[d] > data[d])
      throw KernelShapeError(op, "indices", "shape " + shape_text(indices) + " is longer than data's " +
                                                shape_text(data) + " along axis " + std::to_string(d));
  p.units = uint32_t(product(indices));
  p.row = 1;
  p.targets = uint32_t(product(data));
  p.push.rank = uint32_t(rank);
  p.push.axis = axis;
  p.push.axis_length = uint32_t(data[axis]);
  uint64_t stride = 1;
  for (size_t d = data.size(); d-- > 0;) {
    p.push.dims[d] = uint32_t(indices[d]);
    p.push.strides[d] = uint32_t(stride);
    stride *= uint64_t(data[d]);
  }
}

// The levels of an exclusive scan of `entries` counts from word `at`: each level's block totals
// follow it. Fills each level's entries and first word and the number of levels that run; returns
// the word after the last.
uint64_t scan_levels(uint64_t entries, uint64_t at, uint32_t (&level_entries)[3], uint32_t (&level_at)[3],
                     uint32_t& levels) {
  for (int level = 0; level < 3; ++level) {
    level_entries[level] = uint32_t(entries);
    level_at[level] = uint32_t(std::min<uint64_t>(at, UINT32_MAX));
    at += entries;
    entries = (entries + OG_SC_SCAN_BLOCK - 1) / OG_SC_SCAN_BLOCK;
  }
  levels = level_entries[0] <= OG_SC_SCAN_BLOCK ? 1 : level_entries[1] <= OG_SC_SCAN_BLOCK ? 2 : 3;
  return at;
}

}  // namespace

const char* operation_name(Operation op) { return op == Operation::nd ? "ScatterND" : "ScatterElements"; }

Plan plan(const Request& r, bool in_place) {
  Plan p;
  p.operation = operation_name(r.operation);
  const char* op = p.operation;
  check_types(op, r);
  p.data_elements = count_of(op, "data", r.data.shape);
  p.index_elements = count_of(op, "indices", r.indices.shape);
  p.update_elements = count_of(op, "updates", r.updates.shape);
  count_of(op, "output", r.out.shape);
  if (!std::equal(r.out.shape.begin(), r.out.shape.end(), r.data.shape.begin(), r.data.shape.end()))
    throw KernelShapeError(op, "output", "shape " + shape_text(r.out.shape) + " is not data's " +
                                             shape_text(r.data.shape));
  if (r.operation == Operation::nd)
    plan_nd(r, p);
  else
    plan_elements(r, p);
  check_reach(op, "data", r.data, p.data_elements);
  check_reach(op, "indices", r.indices, p.index_elements);
  check_reach(op, "updates", r.updates, p.update_elements);
  check_reach(op, "output", r.out, p.data_elements);

  p.push.units = p.units;
  p.push.row = p.row;
  p.push.targets = p.targets;
  p.push.flags = flags_of(r);
  p.push.data_offset = uint32_t(r.data.offset);
  p.push.out_offset = uint32_t(r.out.offset);
  p.push.indices_offset = uint32_t(r.indices.offset);
  p.push.updates_offset = uint32_t(r.updates.offset);

  if (!in_place && p.data_elements > 0) {
    const uint64_t bytes = data_type_size(r.data.type);
    if (bytes == 2)
      p.copy_words = ((r.out.offset + p.data_elements - 1) >> 1) - (r.out.offset >> 1) + 1;
    else
      p.copy_words = p.data_elements * (bytes / 4);
  }
  if (p.update_elements == 0 || r.distinct) return p;

  // The sort: keys in [0, targets], `targets` marking a skipped unit.
  p.tiles = uint32_t((uint64_t(p.units) + OG_SC_TILE - 1) / OG_SC_TILE);
  p.few = p.units <= kFewUnits && uint64_t(p.units) * p.units * p.row <= kFewWork;
  if (!p.few) {
    p.key_bits = std::max(1u, uint32_t(std::bit_width(p.targets)));
    p.passes = (p.key_bits + OG_SC_DIGIT_BITS - 1) / OG_SC_DIGIT_BITS;
  }
  p.scratch_words = scan_levels(uint64_t(OG_SC_DIGITS) * p.tiles, 4 * uint64_t(p.units), p.level_entries, p.level_at, p.levels);
  p.sweep = r.sweep && p.sorted() && p.units <= OG_SC_SWEEP_MAX_UNITS;
  if (p.sweep) {
    p.sweep_at = 4 * p.units;
    p.scratch_words = p.sweep_at + uint64_t(p.passes) * OG_SC_DIGITS + 4 + uint64_t(p.passes) * p.tiles * OG_SC_DIGITS;
    p.push.flags |= OG_SC_SWEEP;
  }
  p.sweep_end = uint32_t(std::min<uint64_t>(p.scratch_words, UINT32_MAX));
  // The placement: one-element rows, 4 to 16 units a target on average (below, the counts, their
  // scan and the owners' fold, which scale with the targets, cost more than the radix sort; above,
  // runs longer than OG_SC_PLACE_RUN become likely and the radix sort would run behind it anyway),
  // ids that leave a word's low 6 bits free. Each unit is one (id, value) pair in the sort's
  // second copy.
  p.placed = r.place && p.sorted() && p.row == 1 && uint64_t(p.targets) * 4 <= p.units &&
             p.units <= uint64_t(p.targets) * 16 && p.units <= OG_SC_PLACE_MAX_UNITS;
  if (p.placed) {
    // Buckets of a power-of-two range of targets, about OG_SC_PLACE_BUCKET_UNITS units each.
    const uint32_t wanted = uint32_t(std::min<uint64_t>(
        OG_SC_PLACE_BUCKETS, std::bit_ceil((uint64_t(p.units) + OG_SC_PLACE_BUCKET_UNITS - 1) / OG_SC_PLACE_BUCKET_UNITS)));
    const uint32_t target_bits = uint32_t(std::bit_width(p.targets - 1u));
    p.bucket_shift = target_bits > uint32_t(std::countr_zero(wanted)) ? target_bits - uint32_t(std::countr_zero(wanted)) : 0;
    p.buckets = ((p.targets - 1u) >> p.bucket_shift) + 1u;
    p.place_at = p.sweep_end;
    const uint64_t place_at = scan_levels(uint64_t(p.targets) + 1, p.scratch_words + OG_SC_PLACE_HEADER,
                                          p.place_entries, p.place_level_at, p.place_levels);
    p.place_staged_at = uint32_t(std::min<uint64_t>(place_at, UINT32_MAX));
    p.scratch_words = place_at + 2 * uint64_t(p.units);
  }
  if (p.scratch_words >= kWordLimit)
    throw KernelShapeError(op, "indices", std::to_string(p.units) +
                                              " index units: the sort's scratch passes the kernels' 32-bit indices");
  p.push.tiles = p.tiles;
  p.push.flags |= p.levels << 13;
  if (p.few) p.push.flags |= OG_SC_FEW;
  // A one-element update of at most 32 bits travels through the sort itself, so the combine
  // reads the updates in order instead of gathering them by id.
  if (!p.few && p.row == 1 && (p.push.flags & 3u) != OG_SC_PAIR) p.push.flags |= OG_SC_CARRY_VALUES;
  // Carried values, one-dispatch passes, two digits or more, at least 8 units a target on average
  // (a group then holds a tile or more: with fewer, the groups' searches and short tiles cost more
  // than the pass they save): sorting by target / 256 and folding each group of 256 targets in
  // workgroup memory replaces the lowest pass, the runs and the combine.
  p.grouped = r.group && p.sweep && !p.placed && p.passes >= 2 && (p.push.flags & OG_SC_CARRY_VALUES) != 0u &&
              uint64_t(p.targets) * kGroupUnitsPerTarget <= p.units;
  if (p.grouped) {
    // The sweeps sort real targets (below `targets`) by target >> group_bits(); a skipped unit's key
    // counts as digit 255 in every pass, so it sorts after every group but the highest possible one
    // and its key needs no bit of its own. Groups of 2^(8 + extra) targets make one sweep enough
    // for up to 2^(16 + extra) targets, where the device's big group fold takes that many.
    const uint32_t real_bits = std::max(OG_SC_DIGIT_BITS, uint32_t(std::bit_width(p.targets - 1u)));
    if (real_bits > 2 * OG_SC_DIGIT_BITS && real_bits - 2 * OG_SC_DIGIT_BITS <= r.group_extra_max)
      p.group_extra = real_bits - 2 * OG_SC_DIGIT_BITS;
    const uint32_t sweeps = std::max(1u, (real_bits - p.group_bits() + OG_SC_DIGIT_BITS - 1) / OG_SC_DIGIT_BITS);
    p.passes = 1 + sweeps;  // pass 0 does not run
    p.sweep_end = uint32_t(std::min<uint64_t>(
        p.sweep_at + uint64_t(p.passes) * OG_SC_DIGITS + 4 + uint64_t(p.passes) * p.tiles * OG_SC_DIGITS, UINT32_MAX));
    p.push.flags |= p.group_extra << OG_SC_GROUP_EXTRA_SHIFT;
    p.counted = p.passes == 2;
    if (p.counted) {
      // The keys stage turns each tile's counts into places among its workgroup's tiles (in place)
      // and writes the workgroup's totals after them: only those are scanned.
      const uint64_t workgroups = (uint64_t(p.tiles) + OG_SC_KEYS_TILES - 1) / OG_SC_KEYS_TILES;
      scan_levels(OG_SC_DIGITS * workgroups, 4 * uint64_t(p.units) + uint64_t(OG_SC_DIGITS) * p.tiles, p.level_entries,
                  p.level_at, p.levels);
      p.push.flags = (p.push.flags & ~(3u << 13)) | (p.levels << 13);
    }
  }
  if (p.sweep) p.push.flags |= (p.passes - 1) << OG_SC_PASSES_SHIFT;
  // Otherwise, as many owners as targets: one invocation per output element (each finds its run
  // through a table of run starts) keeps every invocation busy, where one per sorted unit would
  // leave most idle. The table lives in the sort's other copy, which holds units >= targets words.
  p.by_target = p.sorted() && !p.grouped && p.targets <= p.units;
  if (p.by_target) p.push.flags |= OG_SC_BY_TARGET;
  return p;
}

ScatterPush copy_push(const Plan& p) {
  ScatterPush q = p.push;
  q.shift = uint32_t(p.copy_words);
  return q;
}

ScatterPush keys_push(const Plan& p) {
  ScatterPush q = p.push;
  if (p.sweep) q.shift = p.sweep_at;  // where every pass's digit counts go
  if (p.grouped) q.flags |= OG_SC_GROUPED;
  if (p.counted) q.flags |= OG_SC_COUNTED;
  return q;
}

ScatterPush clear_push(const Plan& p) {
  ScatterPush q = p.push;
  q.dims[0] = p.sweep_at;
  q.shift = p.sweep_end - p.sweep_at;
  return q;
}

ScatterPush sweep_push(const Plan& p, uint32_t pass) {
  ScatterPush q = radix_push(p, pass);
  if (p.grouped) {  // pass 0 does not run: the first that does reads the positions and updates
    const uint32_t run = pass - p.first_pass();
    q.flags &= ~(OG_SC_FROM_B | OG_SC_FIRST_PASS);
    if (run % 2 == 1) q.flags |= OG_SC_FROM_B;
    if (run == 0) q.flags |= OG_SC_FIRST_PASS;
  }
  if (p.grouped) {
    q.shift += p.group_extra;
    q.flags |= OG_SC_GROUPED;  // a skipped unit's key is digit 255
  }
  if (p.counted) q.flags |= OG_SC_COUNTED;
  const uint32_t tickets = p.sweep_at + p.passes * OG_SC_DIGITS;
  q.dims[0] = tickets + 4 + pass * p.tiles * OG_SC_DIGITS;  // this pass's status words
  q.dims[1] = p.sweep_at + pass * OG_SC_DIGITS;             // its digit counts over all keys
  q.dims[2] = tickets + pass;
  return q;
}

ScatterPush radix_push(const Plan& p, uint32_t pass) {
  ScatterPush q = p.push;
  q.shift = pass * OG_SC_DIGIT_BITS;
  if (pass % 2 == 1) q.flags |= OG_SC_FROM_B;
  if (pass == 0) q.flags |= OG_SC_FIRST_PASS;
  return q;
}

ScatterPush scan_push(const Plan& p, uint32_t level) {
  ScatterPush q = p.push;
  q.shift = p.level_entries[level];
  q.dims[0] = p.level_at[level];
  q.dims[1] = level + 1 < p.levels ? p.level_at[level + 1] : OG_SC_NO_TOTALS;
  return q;
}

uint32_t scan_groups(const Plan& p, uint32_t level) {
  return (p.level_entries[level] + OG_SC_SCAN_BLOCK - 1) / OG_SC_SCAN_BLOCK;
}

ScatterPush combine_push(const Plan& p) {
  ScatterPush q = p.push;
  if (p.sorted_in_b()) q.flags |= OG_SC_FROM_B;
  return q;
}

ScatterPush group_push(const Plan& p) {
  ScatterPush q = p.push;
  q.shift = 0;  // the digit the group's tiles are sorted by: the target's low 8 bits
  if (p.sorted_in_b()) q.flags |= OG_SC_FROM_B;
  return q;
}

ScatterPush place_clear_push(const Plan& p) {
  ScatterPush q = p.push;
  q.dims[0] = p.place_at;
  q.shift = OG_SC_PLACE_HEADER + p.place_entries[0];
  return q;
}

ScatterPush place_keys_push(const Plan& p) {
  ScatterPush q = p.push;
  q.flags |= OG_SC_PLACE;
  q.shift = p.place_at;
  return q;
}

ScatterPush place_scan_push(const Plan& p, uint32_t level) {
  ScatterPush q = p.push;
  q.shift = p.place_entries[level];
  q.dims[0] = p.place_level_at[level];
  q.dims[1] = level + 1 < p.place_levels ? p.place_level_at[level + 1] : OG_SC_NO_TOTALS;
  return q;
}

uint32_t place_scan_groups(const Plan& p, uint32_t level) {
  return (p.place_entries[level] + OG_SC_SCAN_BLOCK - 1) / OG_SC_SCAN_BLOCK;
}

ScatterPush place_push(const Plan& p) {
  ScatterPush q = p.push;
  for (uint32_t level = 0; level < 3; ++level) q.dims[level] = p.place_level_at[level];
  q.dims[3] = p.place_levels;
  q.dims[4] = p.place_staged_at;
  q.dims[5] = p.bucket_shift;
  q.dims[6] = p.place_at + OG_SC_PLACE_CURSORS;
  q.dims[7] = p.buckets;
  return q;
}

ScatterPush route_push(const Plan& p) {
  auto groups = [](uint64_t n) { return uint32_t((n + 255) / 256); };
  uint32_t count[kRouteSlots] = {};
  count[kRoutePartition] = p.tiles;
  count[kRoutePlace] = groups(p.units);
  count[kRouteFold] = groups(p.targets);
  count[kRouteRuns] = groups(p.units);
  count[kRouteCombine] = groups(p.combine_invocations());
  if (p.sweep) {
    count[kRouteKeys] = (p.tiles + OG_SC_KEYS_TILES - 1) / OG_SC_KEYS_TILES;
    count[kRouteClearSweep] = groups(p.sweep_end - p.sweep_at);
    count[kRouteSweep] = p.tiles;
  } else {
    count[kRouteKeys] = p.tiles;
    count[kRouteTiles] = p.tiles;
    for (uint32_t level = 0; level < p.levels; ++level) count[kRouteScan0 + level] = scan_groups(p, level);
  }
  ScatterPush q = p.push;
  q.dims[0] = p.place_at + 1;
  q.dims[1] = p.place_at;
  q.dims[2] = ~((1u << kRoutePartition) | (1u << kRoutePlace) | (1u << kRouteFold));  // used after a long run
  q.shift = kRouteSlots;
  for (uint32_t i = 0; i < kRouteSlots; ++i) (i < 8 ? q.strides[i] : q.dims[i - 5]) = count[i];
  return q;
}

uint64_t route_offset(const Plan& p, RouteSlot slot) { return 4 * (uint64_t(p.place_at) + 1 + 3 * uint64_t(slot)); }

}  // namespace onegpu::kernels::scatter
