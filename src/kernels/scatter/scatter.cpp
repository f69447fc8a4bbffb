// Scatter: checks (scatter_plan.cpp), the buffers, and recording: the copy, the sort of the units
// by target, the owners' combine (or the distinct path).
#include <algorithm>
#include <array>
#include <optional>
#include <span>

#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/common/index_status.h"
#include "kernels/scatter/scatter_plan.h"
#include "onegpu/errors.h"
#include "scatter_variants.h"

namespace onegpu::kernels {

static_assert(scatter::kVariants.push_constants_are("scatter.", sizeof(ScatterPush)));
static_assert(sizeof(ScatterPush) <= 128, "every Vulkan device offers 128 bytes of push constants");
static_assert(OG_SC_SWEEP_THREADS * OG_SC_SWEEP_ITEMS == OG_SC_TILE && OG_SC_SWEEP_WIDE_THREADS * 8 == OG_SC_TILE,
              "both sweeps rank a tile of the three-dispatch sort's size");
static_assert(OG_SC_SWEEP_THREADS / 8 * OG_SC_DIGITS <= 2 * OG_SC_TILE &&
                  OG_SC_SWEEP_WIDE_THREADS / 16 * OG_SC_DIGITS <= 2 * OG_SC_TILE,
              "the per-subgroup digit counts fit the sweep's workgroup memory (subgroups of 8 / 16 or more)");
static_assert(uint32_t(ScatterReduction::none) == OG_SC_NONE && uint32_t(ScatterReduction::add) == OG_SC_ADD &&
              uint32_t(ScatterReduction::mul) == OG_SC_MUL && uint32_t(ScatterReduction::min) == OG_SC_MIN &&
              uint32_t(ScatterReduction::max) == OG_SC_MAX);

namespace {

enum Stage { kCopy, kKeys, kCount, kScan, kReorder, kCombine, kDistinct, kRuns, kSweep, kClear, kSweepWide,
             kRoute, kPlace, kFold, kPartition, kGroup, kGroupWide, kGroupBig, kGroupWideBig, kCounted, kCountedWide };
constexpr std::string_view kStages[] = {"scatter.copy",     "scatter.keys",    "scatter.count",
                                        "scatter.scan",     "scatter.reorder", "scatter.combine",
                                        "scatter.distinct", "scatter.runs",    "scatter.sweep",
                                        "scatter.clear",    "scatter.sweep.wide", "scatter.route",
                                        "scatter.place",    "scatter.fold",    "scatter.partition",
                                        "scatter.group",    "scatter.group.wide",
                                        "scatter.group.big", "scatter.group.wide.big",
                                        "scatter.sweep.counted", "scatter.sweep.counted.wide"};
constexpr bool every_stage_declared() {
  for (std::string_view name : kStages)
    if (!scatter::kVariants.built(name)) return false;
  return true;
}
static_assert(every_stage_declared(), "a stage the host records is missing from CMakeLists.txt");

enum Slot { kData, kIndices, kUpdates, kOut, kScratch, kStatus, kSlots };

scatter::Operand operand_of(const char* op, const char* argument, const TensorRef& t) {
  element_count(t.shape, op, argument);  // a bad shape is named here, before dense() looks at it
  return {t.shape, t.type, t.offset, t.dense()};
}

// The subgroup width the sweep runs at (0: it cannot run): full subgroups of 8, 16 or 32 with
// ballots and arithmetic, pinned to 32 where the width can be chosen.
uint32_t sweep_width(const ComputeCapabilities& c) {
  const SubgroupOperations& o = c.subgroup_operations;
  if (!o.basic || !o.ballot || !o.arithmetic || !c.full_subgroups) return 0;
  // The sweeps and group folds have no WGSL (docs/scatter.md): a device that runs only WGSL sorts
  // in three dispatches a pass.
  if (!c.spirv_kernels && !scatter::kVariants.at("scatter.sweep").has_wgsl()) return 0;
  uint32_t width = 0;
  if (c.min_subgroup_size == c.max_subgroup_size)
    width = c.max_subgroup_size;
  else if (c.subgroup_size_control && c.min_subgroup_size <= 32 && c.max_subgroup_size >= 32)
    width = 32;
  if (width != 8 && width != 16 && width != 32) return 0;
  const uint32_t threads = width >= 16 ? OG_SC_SWEEP_WIDE_THREADS : OG_SC_SWEEP_THREADS;
  if (uint64_t(width) * c.max_workgroup_subgroups < threads) return 0;
  // Its workgroup memory: the tile's keys and ids (or the subgroups' digit counts), four tables of
  // the digits, the subgroups' totals and a word (Vulkan promises only 16 KiB).
  const uint64_t memory = 4 * (2 * OG_SC_TILE + 4 * OG_SC_DIGITS + OG_SC_SWEEP_WIDE_THREADS / 8 + 1);
  if (c.max_workgroup_memory_bytes < memory) return 0;
  return width;
}

// Whether the group fold fits the device: the subgroups' counts, a sorted tile of values (4096 in
// the wide form, for subgroups of 16 or more), the digits' starts, the subgroups' totals, a few words.
bool group_fits(const ComputeCapabilities& c, uint32_t width) {
  const uint64_t tile = width >= 16 ? 2 * OG_SC_TILE : OG_SC_TILE;
  const uint64_t memory = 4 * (2 * OG_SC_TILE + tile + OG_SC_DIGITS + OG_SC_SWEEP_WIDE_THREADS / 8 + 6);
  return width != 0 && c.max_workgroup_memory_bytes >= memory;
}

// The largest group_extra the big group fold takes on the device (0: none): its form's digit
// counts (subgroups of 8 in the narrow form, of 32 in the wide one), a sorted tile of values and
// of sub-groups (a byte each), the accumulators of 256 << extra targets, the digits' starts, the
// subgroups' totals, a few words.
uint32_t big_group_extra(const ComputeCapabilities& c, uint32_t width) {
  if (width == 0 || (width >= 16 && width != 32)) return 0;
  const uint64_t threads = width >= 16 ? OG_SC_SWEEP_WIDE_THREADS : OG_SC_SWEEP_THREADS;
  const uint64_t tile = width >= 16 ? 2 * OG_SC_TILE : OG_SC_TILE;
  const uint32_t extra = width >= 16 ? 4 : 2;
  const uint64_t memory =
      4 * (threads / width * OG_SC_DIGITS + tile + tile / 4 + (OG_SC_DIGITS << extra) + OG_SC_DIGITS + threads / 8 + 6);
  return c.max_workgroup_memory_bytes >= memory ? extra : 0;
}

}  // namespace

struct Scatter::Impl {
  KernelSet& set;
  Buffer<uint32_t> scratch;  // the sort's keys and ids (grown on demand)
  // The status slot without a status, where a written buffer may not be bound twice (else the
  // output's buffer stands in: written anyway, it orders nothing more).
  std::optional<Buffer<uint32_t>> no_status;
  uint32_t sweep_width = 0;  // the sweep's subgroup width; 0: the three-dispatch passes
  bool place = true;         // sort by placement where the units allow
  bool group = true;         // fold groups of 256 targets in workgroup memory where the units allow
  uint32_t group_extra_max = 0;  // groups of up to 256 << this many targets (the big group fold)

  Impl(KernelSet& k, const ScatterOptions& o)
      : set(k), sweep_width(o.allow_subgroups ? onegpu::kernels::sweep_width(k.caps()) : 0),
        // The placement's dispatches read their grids from the scratch they write.
        place(o.allow_placement && k.caps().aliased_writable_bindings),
        group(o.allow_group_fold && group_fits(k.caps(), sweep_width)),
        group_extra_max(group ? big_group_extra(k.caps(), sweep_width) : 0) {
    if (!k.caps().aliased_writable_bindings) no_status = k.device().create_buffer<uint32_t>(4);
  }

  // The group fold's form: wide for subgroups of 16 or more, big for groups of more than 256 targets.
  Stage group_stage(const scatter::Plan& p) const {
    if (p.group_extra > 0) return sweep_width >= 16 ? kGroupWideBig : kGroupBig;
    return sweep_width >= 16 ? kGroupWide : kGroup;
  }
  void run(CommandEncoder& encoder, scatter::Request r, const TensorRef& data, const TensorRef& indices,
           const TensorRef& updates, const TensorRef& out, IndexStatus* status);
  template <class Direct, class Routed>
  void record_placed(const scatter::Plan& p, Direct& dispatch, Routed& routed);
  void check_buffers(const char* op, const scatter::Plan& p, const TensorRef& data, const TensorRef& indices,
                     const TensorRef& updates, const TensorRef& out);
};

void Scatter::Impl::check_buffers(const char* op, const scatter::Plan& p, const TensorRef& data,
                                  const TensorRef& indices, const TensorRef& updates, const TensorRef& out) {
  const std::pair<const TensorRef*, const char*> all[] = {
      {&data, "data"}, {&indices, "indices"}, {&updates, "updates"}, {&out, "output"}};
  const uint64_t counts[] = {p.data_elements, p.index_elements, p.update_elements, p.data_elements};
  for (size_t i = 0; i < 4; ++i) {
    const auto& [t, name] = all[i];
    check_elements(op, name, *t->buffer, t->offset, counts[i], data_type_size(t->type));
    check_bindable(op, *t->buffer, set.caps());
  }
  ByteRange ranges[4];
  for (size_t i = 0; i < 4; ++i) {
    const auto& [t, name] = all[i];
    ranges[i] = tensor_bytes(op, name, t->buffer->id(), t->offset, counts[i], data_type_size(t->type));
  }
  // `out` may be `data` itself (the copy is then skipped); otherwise it overlaps no input.
  const bool in_place = data.buffer->id() == out.buffer->id() && data.offset == out.offset;
  for (size_t i = in_place ? 1 : 0; i < 3; ++i) check_disjoint(op, "output", ranges[3], all[i].second, ranges[i]);
}

void Scatter::Impl::run(CommandEncoder& encoder, scatter::Request r, const TensorRef& data,
                        const TensorRef& indices, const TensorRef& updates, const TensorRef& out,
                        IndexStatus* status) {
  const char* op = scatter::operation_name(r.operation);
  const std::pair<const TensorRef*, const char*> named[] = {
      {&data, "data"}, {&indices, "indices"}, {&updates, "updates"}, {&out, "output"}};
  for (const auto& [t, name] : named)
    if (t->buffer == nullptr || !*t->buffer) throw KernelShapeError(op, name, "no buffer");
  r.status = status != nullptr;
  r.sweep = sweep_width != 0;
  r.place = place;
  r.group = group;
  r.group_extra_max = group_extra_max;
  const bool in_place = data.buffer->id() == out.buffer->id() && data.offset == out.offset;
  const scatter::Plan p = scatter::plan(r, in_place);
  check_buffers(op, p, data, indices, updates, out);

  // The sort's scratch must fit one binding: refused before it is allocated.
  const uint64_t scratch_bytes = p.keyed() ? p.scratch_words * 4 : 0;
  if (scratch_bytes > set.caps().max_storage_buffer_range)
    throw UnsupportedError("max_storage_buffer_range",
                           std::string(op) + " scratch of " + std::to_string(scratch_bytes) + " bytes",
                           std::to_string(set.caps().max_storage_buffer_range) + " bytes");
  if (p.keyed() && scratch.size() < p.scratch_words) scratch = set.device().create_buffer<uint32_t>(p.scratch_words);
  if (status != nullptr) IndexStatusAccess::note_use(*status, op, "indices");
  // A slot the stages leave untouched (the status without one) holds the output's buffer: written
  // by every scatter anyway, it orders nothing more (a buffer of the family's own would look
  // written by every scatter and order independent ones); where a written buffer may not be bound
  // twice, the family's own. The stages declare only the bindings they use (no scratch on the distinct
  // path, data for the copy alone).
  const RawBuffer& unused_status = no_status ? static_cast<const RawBuffer&>(*no_status) : *out.buffer;
  const BufferBinding slots[kSlots] = {BufferBinding(*data.buffer),    BufferBinding(*indices.buffer),
                                       BufferBinding(*updates.buffer), BufferBinding(*out.buffer),
                                       BufferBinding(p.keyed() ? scratch : *out.buffer),
                                       BufferBinding(status != nullptr ? status->buffer() : unused_status)};
  const KernelOptions sweep_options{.require_full_subgroups = true,
                                    .required_subgroup_size = set.caps().min_subgroup_size ==
                                                                      set.caps().max_subgroup_size
                                                                  ? 0u
                                                                  : sweep_width};
  auto bind = [&](size_t stage) {
    const ComputeKernel& k =
        set.kernel(scatter::kVariants.at(kStages[stage]),
                   stage == kSweep || stage == kSweepWide || stage == kGroup || stage == kGroupWide ||
                           stage == kGroupBig || stage == kGroupWideBig || stage == kCounted ||
                           stage == kCountedWide
                       ? sweep_options
                       : KernelOptions{});
    return std::make_pair(&k, set.bind(k, declared_bindings(k, slots).span()));
  };
  // Every stage is bound before the first is recorded (a bind checks each buffer's device), so an
  // error records nothing; the groups are cached, so recording finds them again.
  if (p.copy_words > 0) bind(kCopy);
  if (p.update_elements > 0) {
    const Stage used[] = {kKeys, kCount, kScan, kReorder, kRuns, kCombine};
    // Subgroups of 16 or more: 256 invocations of 8 keys (fewer registers each).
    const Stage sweep = sweep_width >= 16 ? kSweepWide : kSweep;
    const Stage swept[] = {kClear, kKeys, sweep, kRuns, kCombine};
    const Stage grouped[] = {kClear, kKeys, sweep, group_stage(p)};
    const Stage counted[] = {kKeys, kScan, sweep_width >= 16 ? kCountedWide : kCounted, group_stage(p)};
    const Stage placing[] = {kClear, kScan, kRoute, kPartition, kPlace, kFold};
    if (!p.keyed()) bind(kDistinct);
    else
      for (Stage stage : p.counted   ? std::span<const Stage>(counted)
                         : p.grouped ? std::span<const Stage>(grouped)
                         : p.sweep ? std::span<const Stage>(swept)
                                   : std::span<const Stage>(used))
        if (stage != kRuns || p.by_target) bind(stage);
    if (p.placed)
      for (Stage stage : placing) bind(stage);
  }
  auto dispatch = [&](size_t stage, const ScatterPush& push, uint64_t workgroups) {
    const auto [k, group] = bind(stage);
    encoder.begin_compute_pass().dispatch_linear(*k, *group, std::as_bytes(std::span(&push, 1)), workgroups);
  };
  // The radix sort behind the placement runs only after a run too long for it: its grids come
  // from the route stage (no workgroups otherwise).
  auto dispatch_routed = [&](size_t stage, const ScatterPush& push, scatter::RouteSlot slot) {
    const auto [k, group] = bind(stage);
    encoder.begin_compute_pass().dispatch_indirect(*k, *group, std::as_bytes(std::span(&push, 1)), scratch,
                                                   scatter::route_offset(p, slot));
  };
  auto groups = [](uint64_t n) { return (n + 255) / 256; };

  if (p.copy_words > 0) dispatch(kCopy, scatter::copy_push(p), groups(p.copy_words));
  if (p.update_elements == 0) return;
  if (!p.keyed()) {
    dispatch(kDistinct, p.push, groups(p.update_elements));
    return;
  }
  if (p.placed) {
    record_placed(p, dispatch, dispatch_routed);
    return;
  }
  if (p.sweep) {
    if (!p.counted) {
      const ScatterPush clear = scatter::clear_push(p);
      dispatch(kClear, clear, groups(clear.shift));
    }
    // Every pass's counts, or each tile's for a counted sweep (then scanned).
    dispatch(kKeys, scatter::keys_push(p), (p.tiles + OG_SC_KEYS_TILES - 1) / OG_SC_KEYS_TILES);
    for (uint32_t level = 0; p.counted && level < p.levels; ++level)
      dispatch(kScan, scatter::scan_push(p, level), scatter::scan_groups(p, level));
    if (p.counted) dispatch(sweep_width >= 16 ? kCountedWide : kCounted, scatter::sweep_push(p, 1), p.tiles);
    for (uint32_t pass = p.first_pass(); !p.counted && pass < p.passes; ++pass)
      dispatch(sweep_width >= 16 ? kSweepWide : kSweep, scatter::sweep_push(p, pass), p.tiles);
    if (p.grouped) {
      dispatch(group_stage(p), scatter::group_push(p), p.groups());
      return;
    }
  } else {
    dispatch(kKeys, scatter::keys_push(p), p.tiles);  // the first pass's digit counts too
  }
  for (uint32_t pass = 0; !p.sweep && pass < p.passes; ++pass) {
    const ScatterPush digits = scatter::radix_push(p, pass);
    if (pass > 0) dispatch(kCount, digits, p.tiles);
    for (uint32_t level = 0; level < p.levels; ++level)
      dispatch(kScan, scatter::scan_push(p, level), scatter::scan_groups(p, level));
    dispatch(kReorder, digits, p.tiles);
  }
  if (p.by_target) dispatch(kRuns, scatter::combine_push(p), groups(p.units));
  dispatch(kCombine, scatter::combine_push(p), groups(p.combine_invocations()));
}

// The placement: count and rank, scan the counts, route; then either the placement's partition,
// move and fold or (after a run longer than OG_SC_PLACE_RUN) the radix sort.
template <class Direct, class Routed>
void Scatter::Impl::record_placed(const scatter::Plan& p, Direct& dispatch, Routed& routed) {
  using namespace scatter;
  auto groups = [](uint64_t n) { return (n + 255) / 256; };
  const ScatterPush clear = place_clear_push(p);
  dispatch(kClear, clear, groups(clear.shift));
  dispatch(kKeys, place_keys_push(p), p.tiles);
  for (uint32_t level = 0; level < p.place_levels; ++level)
    dispatch(kScan, place_scan_push(p, level), place_scan_groups(p, level));
  dispatch(kRoute, route_push(p), 1);
  routed(kPartition, place_push(p), kRoutePartition);
  routed(kPlace, place_push(p), kRoutePlace);
  routed(kFold, place_push(p), kRouteFold);
  // The radix sort, from the keys on (the placement's keys stage kept only ranks).
  if (p.sweep) {
    routed(kClear, clear_push(p), kRouteClearSweep);
    routed(kKeys, keys_push(p), kRouteKeys);
    for (uint32_t pass = 0; pass < p.passes; ++pass)
      routed(sweep_width >= 16 ? kSweepWide : kSweep, sweep_push(p, pass), kRouteSweep);
  } else {
    routed(kKeys, keys_push(p), kRouteKeys);
    for (uint32_t pass = 0; pass < p.passes; ++pass) {
      const ScatterPush digits = radix_push(p, pass);
      if (pass > 0) routed(kCount, digits, kRouteTiles);
      for (uint32_t level = 0; level < p.levels; ++level)
        routed(kScan, scan_push(p, level), RouteSlot(kRouteScan0 + level));
      routed(kReorder, digits, kRouteTiles);
    }
  }
  routed(kRuns, combine_push(p), kRouteRuns);
  routed(kCombine, combine_push(p), kRouteCombine);
}

Scatter::Scatter(Device& device, ScatterOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), options)) {}
Scatter::~Scatter() = default;
Scatter::Scatter(Scatter&&) noexcept = default;
Scatter& Scatter::operator=(Scatter&&) noexcept = default;

void Scatter::scatter_nd(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices,
                         const TensorRef& updates, const TensorRef& out, ScatterReduction reduction,
                         bool indices_are_distinct, IndexStatus* status) {
  scatter::Request r;
  r.operation = scatter::Operation::nd;
  r.data = operand_of("ScatterND", "data", data);
  r.indices = operand_of("ScatterND", "indices", indices);
  r.updates = operand_of("ScatterND", "updates", updates);
  r.out = operand_of("ScatterND", "output", out);
  r.reduction = reduction;
  r.distinct = indices_are_distinct;
  impl_->run(encoder, r, data, indices, updates, out, status);
}

void Scatter::scatter_elements(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices,
                               const TensorRef& updates, int64_t axis, const TensorRef& out,
                               ScatterReduction reduction, bool indices_are_distinct, IndexStatus* status) {
  scatter::Request r;
  r.operation = scatter::Operation::elements;
  r.data = operand_of("ScatterElements", "data", data);
  r.indices = operand_of("ScatterElements", "indices", indices);
  r.updates = operand_of("ScatterElements", "updates", updates);
  r.out = operand_of("ScatterElements", "output", out);
  r.axis = axis;
  r.reduction = reduction;
  r.distinct = indices_are_distinct;
  impl_->run(encoder, r, data, indices, updates, out, status);
}

bool Scatter::sorts_with_subgroups() const { return impl_->sweep_width != 0; }
bool Scatter::folds_in_groups() const { return impl_->group && impl_->sweep_width != 0; }
uint32_t Scatter::max_group_outputs() const {
  return folds_in_groups() ? uint32_t(OG_SC_DIGITS) << impl_->group_extra_max : 0u;
}

namespace {
// The larger of the two sorts' needs, so the answer holds on every device.
uint64_t scratch_bytes_of(scatter::Request r) {
  r.indices.type = DataType::int32;
  r.data.type = r.updates.type = r.out.type = DataType::float32;
  r.out.shape = r.data.shape;
  const uint64_t words = scatter::plan(r, false).scratch_words;
  r.sweep = true;
  return std::max(words, scatter::plan(r, false).scratch_words) * 4;
}
}  // namespace

uint64_t Scatter::scratch_bytes_nd(std::span<const int64_t> data_shape, std::span<const int64_t> indices_shape) {
  scatter::Request r;
  r.operation = scatter::Operation::nd;
  r.data.shape = data_shape;
  r.indices.shape = indices_shape;
  // updates = indices.shape[:-1] + data.shape[k:]
  std::vector<int64_t> updates;
  if (!indices_shape.empty()) {
    updates.assign(indices_shape.begin(), indices_shape.end() - 1);
    const int64_t k = indices_shape.back();
    if (k >= 0 && uint64_t(k) <= data_shape.size()) updates.insert(updates.end(), data_shape.begin() + k, data_shape.end());
  }
  r.updates.shape = updates;
  return scratch_bytes_of(r);
}

uint64_t Scatter::scratch_bytes_elements(std::span<const int64_t> data_shape, std::span<const int64_t> indices_shape,
                                         int64_t axis) {
  scatter::Request r;
  r.operation = scatter::Operation::elements;
  r.data.shape = data_shape;
  r.indices.shape = indices_shape;
  r.updates.shape = indices_shape;
  r.axis = axis;
  return scratch_bytes_of(r);
}

}  // namespace onegpu::kernels
