// ScatterND / ScatterElements checks and plans without a GPU.
#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <vector>

#include "kernels/scatter/scatter_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::scatter {
namespace {

using Shape = std::vector<int64_t>;

struct Shapes {
  Shape data, indices, updates;
};

// A request over shapes kept alive for the whole test program (a Request only refers to them).
Request nd(const Shapes& given, DataType t = DataType::float32, DataType it = DataType::int64) {
  static std::deque<Shapes> kept;
  const Shapes& s = kept.emplace_back(given);
  Request r;
  r.operation = Operation::nd;
  r.data = {s.data, t};
  r.out = {s.data, t};
  r.indices = {s.indices, it};
  r.updates = {s.updates, t};
  return r;
}

Request elements(const Shapes& s, int64_t axis, DataType t = DataType::float32, DataType it = DataType::int32) {
  Request r = nd(s, t, it);
  r.operation = Operation::elements;
  r.axis = axis;
  return r;
}

// The operation and argument of the KernelShapeError `f` throws.
std::string failure(const std::function<void()>& f) {
  try {
    f();
  } catch (const KernelShapeError& e) {
    return e.operation() + "/" + e.argument();
  } catch (const UnsupportedError&) {
    return "unsupported";
  }
  return "none";
}

TEST(ScatterPlan, NdRowsAndSort) {
  const Shapes s{{64, 8, 32}, {100, 2}, {100, 32}};
  const Plan p = plan(nd(s), false);
  EXPECT_EQ(p.units, 100u);
  EXPECT_FALSE(p.few);
  EXPECT_FALSE(p.by_target);  // 512 rows for 100 tuples: one invocation per tuple element
  EXPECT_EQ(p.combine_invocations(), 100u * 32);
  EXPECT_EQ(p.row, 32u);
  EXPECT_EQ(p.targets, 512u);
  EXPECT_EQ(p.key_bits, 10u);  // keys 0..512
  EXPECT_EQ(p.passes, 2u);
  EXPECT_EQ(p.tiles, 1u);
  EXPECT_EQ(p.level_entries[0], 256u);
  EXPECT_EQ(p.level_entries[1], 1u);
  EXPECT_EQ(p.level_entries[2], 1u);
  EXPECT_EQ(p.level_at[0], 400u);
  EXPECT_EQ(p.level_at[2], 400u + 256 + 1);
  EXPECT_EQ(p.scratch_words, 4u * 100 + 256 + 1 + 1);
  EXPECT_EQ(p.levels, 1u);  // one block of counts
  EXPECT_EQ(OG_SC_LEVELS(p.push.flags), 1u);
  EXPECT_EQ(p.copy_words, 64u * 8 * 32);
  EXPECT_EQ(p.push.rank, 2u);
  EXPECT_EQ(p.push.dims[0], 64u);
  EXPECT_EQ(p.push.dims[1], 8u);
  EXPECT_EQ(p.push.strides[0], 8u);
  EXPECT_EQ(p.push.strides[1], 1u);
  EXPECT_FALSE(p.sorted_in_b());
  EXPECT_EQ(p.push.flags & OG_SC_ND, OG_SC_ND);
  EXPECT_EQ(p.push.flags & OG_SC_WIDE_INDICES, OG_SC_WIDE_INDICES);
  EXPECT_EQ(p.push.flags & OG_SC_CARRY_VALUES, 0u);  // rows of 32 move by id
}

TEST(ScatterPlan, SingleElementUpdatesOfUpTo32BitsTravelThroughTheSort) {
  for (DataType t : {DataType::float32, DataType::float16, DataType::int32, DataType::bfloat16})
    EXPECT_EQ(plan(elements({{64}, {100}, {100}}, 0, t), false).push.flags & OG_SC_CARRY_VALUES, OG_SC_CARRY_VALUES);
  EXPECT_EQ(plan(elements({{64}, {100}, {100}}, 0, DataType::int64), false).push.flags & OG_SC_CARRY_VALUES, 0u);
  EXPECT_EQ(plan(nd({{64}, {100, 1}, {100}}), false).push.flags & OG_SC_CARRY_VALUES, OG_SC_CARRY_VALUES);
}

TEST(ScatterPlan, ElementsPassesFollowTheOutputCount) {
  const Shape data{1 << 20}, idx{1 << 24};
  const Plan p = plan(elements({data, idx, idx}, 0), true);
  EXPECT_EQ(p.key_bits, 21u);
  EXPECT_EQ(p.passes, 3u);
  EXPECT_EQ(p.tiles, 8192u);
  EXPECT_EQ(p.level_entries[0], 256u * 8192);  // 256 digits x 8192 tiles
  EXPECT_EQ(p.level_entries[1], 512u);         // in blocks of 4096
  EXPECT_EQ(p.level_entries[2], 1u);
  EXPECT_EQ(p.levels, 2u);
  EXPECT_EQ(p.sweep_end, 4ull * (1 << 24) + 256 * 8192 + 512 + 1);  // the placement's words follow
  EXPECT_EQ(p.copy_words, 0u);  // in place
  EXPECT_TRUE(p.sorted_in_b());
  EXPECT_TRUE(p.by_target);  // 2^20 owners, one per output
  EXPECT_EQ(p.combine_invocations(), 1u << 20);
  // Many units: three levels of counts, the last within one workgroup.
  const Shape big{1ll << 29};
  const Plan q = plan(elements({big, big, big}, 0), true);
  EXPECT_EQ(q.level_entries[0], 1u << 26);
  EXPECT_EQ(q.level_entries[1], 1u << 14);
  EXPECT_EQ(q.level_entries[2], 4u);
  EXPECT_EQ(q.levels, 3u);
  // Past 32-bit scratch indices: refused.
  const Shape too_many{(1ll << 31) - 1};
  EXPECT_EQ(failure([&] { plan(elements({too_many, too_many, too_many}, 0), true); }), "ScatterElements/indices");
  // One output: one pass whatever the update count.
  const Shape one{1}, many{1 << 20};
  EXPECT_EQ(plan(elements({one, many, many}, 0), false).passes, 1u);
}

TEST(ScatterPlan, AFewUnitsSkipTheSort) {
  const Plan kv = plan(nd({{4096, 32, 128}, {16, 1}, {16, 32, 128}}), true);  // a cache append
  EXPECT_TRUE(kv.few);
  EXPECT_FALSE(kv.sorted());
  EXPECT_TRUE(kv.keyed());
  EXPECT_EQ(kv.push.flags & OG_SC_FEW, OG_SC_FEW);
  EXPECT_EQ(kv.scratch_words, 4u * 16 + 256 + 1 + 1);
  EXPECT_TRUE(plan(elements({{100}, {64}, {64}}, 0), false).few);
  EXPECT_FALSE(plan(elements({{100}, {65}, {65}}, 0), false).few);
  EXPECT_FALSE(plan(nd({{4096, 8192}, {64, 1}, {64, 8192}}), false).few);  // 64 x 64 x 8192 compares
}

TEST(ScatterPlan, DistinctAndEmptySkipTheSort) {
  Request r = elements({{100}, {50}, {50}}, 0);
  r.distinct = true;
  const Plan p = plan(r, false);
  EXPECT_FALSE(p.sorted());
  EXPECT_EQ(p.scratch_words, 0u);
  const Plan e = plan(elements({{100}, {0}, {0}}, 0), false);
  EXPECT_FALSE(e.sorted());
  EXPECT_EQ(e.copy_words, 100u);
}

TEST(ScatterPlan, ElementsCoordinates) {
  const Plan p = plan(elements({{4, 5, 6}, {2, 7, 3}, {2, 7, 3}}, -2), false);
  EXPECT_EQ(p.push.axis, 1u);
  EXPECT_EQ(p.push.axis_length, 5u);
  EXPECT_EQ(p.push.dims[1], 7u);  // the indices' shape
  EXPECT_EQ(p.push.strides[0], 30u);  // data's strides
  EXPECT_EQ(p.push.strides[1], 6u);
  EXPECT_EQ(p.units, 42u);
}

TEST(ScatterPlan, HalfCopyCoversPartialWords) {
  Request r = elements({{5}, {3}, {3}}, 0, DataType::float16);
  r.out.offset = 1;  // elements 1..5: words 0..2
  EXPECT_EQ(plan(r, false).copy_words, 3u);
  r.out.offset = 2;  // elements 2..6: words 1..3
  EXPECT_EQ(plan(r, false).copy_words, 3u);
  EXPECT_EQ(plan(elements({{5}, {3}, {3}}, 0, DataType::int64), false).copy_words, 10u);
}

TEST(ScatterPlan, ShapeErrors) {
  EXPECT_EQ(failure([] { plan(nd({{4, 5}, {3, 3}, {3}}), false); }), "ScatterND/indices");  // k > rank
  EXPECT_EQ(failure([] { plan(nd({{4, 5}, {3, 1}, {3, 4}}), false); }), "ScatterND/updates");
  EXPECT_EQ(failure([] { plan(nd({{4, 5}, {}, {5}}), false); }), "ScatterND/indices");
  EXPECT_EQ(failure([] { plan(elements({{4, 5}, {3}, {3}}, 0), false); }), "ScatterElements/indices");  // rank
  EXPECT_EQ(failure([] { plan(elements({{4, 5}, {3, 5}, {3, 4}}, 0), false); }), "ScatterElements/updates");
  EXPECT_EQ(failure([] { plan(elements({{4, 5}, {3, 6}, {3, 6}}, 0), false); }), "ScatterElements/indices");
  EXPECT_EQ(failure([] { plan(elements({{4, 5}, {6, 5}, {6, 5}}, 0), false); }), "none");  // along the axis: fine
  EXPECT_EQ(failure([] { plan(elements({{4, 5}, {3, 5}, {3, 5}}, 2), false); }), "ScatterElements/axis");
  EXPECT_EQ(failure([] { plan(elements({{4, 5}, {3, 5}, {3, 5}}, -3), false); }), "ScatterElements/axis");
  EXPECT_EQ(failure([] { plan(elements({{}, {}, {}}, 0), false); }), "ScatterElements/data");
  EXPECT_EQ(failure([] { plan(nd({{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1}, {1, 1, 1, 1, 1, 1, 1, 1}}), false); }),
            "ScatterND/data");
  EXPECT_EQ(failure([] { plan(elements({{1 << 16, 1 << 15}, {1, 1}, {1, 1}}, 0), false); }), "ScatterElements/data");
  // Beside a zero dimension a dimension of 2^32 + 5 keeps the count at 0; it must not reach the
  // kernels as 5.
  EXPECT_EQ(failure([] { plan(nd({{(int64_t(1) << 32) + 5, 0}, {1, 2}, {1}}, DataType::float32, DataType::int32), false); }),
            "ScatterND/data");
  EXPECT_EQ(failure([] {
              Request r = elements({{4}, {3}, {3}}, 0);
              r.out.shape = std::span<const int64_t>();
              plan(r, false);
            }),
            "ScatterElements/output");
  EXPECT_EQ(failure([] {
              Request r = elements({{4}, {3}, {3}}, 0);
              r.updates.dense = false;
              plan(r, false);
            }),
            "ScatterElements/updates");
  EXPECT_EQ(failure([] {
              Request r = elements({{4}, {3}, {3}}, 0);
              r.data.offset = uint64_t(1) << 32;
              plan(r, false);
            }),
            "ScatterElements/data");
}

TEST(ScatterPlan, TypeErrors) {
  EXPECT_EQ(failure([] { plan(elements({{4}, {3}, {3}}, 0, DataType::float32, DataType::float32), false); }),
            "ScatterElements/indices");
  EXPECT_EQ(failure([] {
              Request r = elements({{4}, {3}, {3}}, 0);
              r.updates.type = DataType::float16;
              plan(r, false);
            }),
            "ScatterElements/updates");
  EXPECT_EQ(failure([] {
              Request r = nd({{4}, {3, 1}, {3}});
              r.out.type = DataType::int32;
              plan(r, false);
            }),
            "ScatterND/output");
  EXPECT_EQ(failure([] { plan(elements({{4}, {3}, {3}}, 0, DataType::uint8), false); }), "unsupported");
  EXPECT_EQ(failure([] { plan(elements({{4}, {3}, {3}}, 0, DataType::boolean), false); }), "unsupported");
  for (DataType t : {DataType::uint32, DataType::bfloat16}) {
    Request r = elements({{4}, {3}, {3}}, 0, t);
    EXPECT_EQ(failure([&] { plan(r, false); }), "none");  // moved as bits
    r.reduction = ScatterReduction::add;
    EXPECT_EQ(failure([&] { plan(r, false); }), "unsupported");
  }
  for (DataType t : {DataType::float32, DataType::float16, DataType::int32, DataType::int64}) {
    Request r = elements({{4}, {3}, {3}}, 0, t);
    r.reduction = ScatterReduction::max;
    EXPECT_EQ(failure([&] { plan(r, false); }), "none");
  }
}

TEST(ScatterPlan, PushConstantsPerDispatch) {
  const Plan p = plan(elements({{1 << 20}, {1 << 24}, {1 << 24}}, 0), false);
  EXPECT_EQ(radix_push(p, 0).shift, 0u);
  EXPECT_EQ(radix_push(p, 2).shift, 16u);
  EXPECT_EQ(radix_push(p, 0).flags & OG_SC_FROM_B, 0u);
  EXPECT_EQ(radix_push(p, 1).flags & OG_SC_FROM_B, OG_SC_FROM_B);
  EXPECT_EQ(radix_push(p, 0).flags & OG_SC_FIRST_PASS, OG_SC_FIRST_PASS);
  EXPECT_EQ(radix_push(p, 1).flags & OG_SC_FIRST_PASS, 0u);
  EXPECT_EQ(scan_push(p, 0).shift, 256u * 8192);
  EXPECT_EQ(scan_push(p, 0).dims[0], 4u << 24);
  EXPECT_EQ(scan_push(p, 0).dims[1], (4u << 24) + 256 * 8192);
  EXPECT_EQ(scan_push(p, 1).shift, 512u);
  EXPECT_EQ(scan_push(p, 1).dims[1], OG_SC_NO_TOTALS);  // two levels
  EXPECT_EQ(scan_groups(p, 0), 512u);
  EXPECT_EQ(scan_groups(p, 1), 1u);
  EXPECT_EQ(combine_push(p).flags & OG_SC_FROM_B, OG_SC_FROM_B);  // three passes end in B
  EXPECT_EQ(copy_push(p).shift, 1u << 20);
  EXPECT_FALSE(p.sweep);
}

TEST(ScatterPlan, SweepLayoutAndPushConstants) {
  Request r = elements({{1 << 20}, {1 << 24}, {1 << 24}}, 0);
  r.sweep = true;
  const Plan p = plan(r, false);
  ASSERT_TRUE(p.sweep);
  EXPECT_EQ(p.push.flags & OG_SC_SWEEP, OG_SC_SWEEP);
  const uint32_t at = 4u << 24, tickets = at + 3 * 256, status = tickets + 4;
  EXPECT_EQ(p.sweep_at, at);
  EXPECT_EQ(p.sweep_end, uint64_t(status) + 3 * 256 * 8192);
  EXPECT_EQ(keys_push(p).shift, at);
  EXPECT_EQ(clear_push(p).dims[0], at);
  EXPECT_EQ(clear_push(p).shift, 3u * 256 + 4 + 3 * 256 * 8192);
  for (uint32_t pass = 0; pass < 3; ++pass) {
    const ScatterPush q = sweep_push(p, pass);
    EXPECT_EQ(q.shift, 8 * pass);
    EXPECT_EQ(q.dims[0], status + pass * 256 * 8192);
    EXPECT_EQ(q.dims[1], at + pass * 256);
    EXPECT_EQ(q.dims[2], tickets + pass);
    EXPECT_EQ(q.flags & OG_SC_FROM_B, pass % 2 == 1 ? OG_SC_FROM_B : 0u);
  }
  // Beyond 2^26 units, and without a sort, the three-dispatch passes (or none).
  Request big = elements({{1 << 20}, {(1 << 26) + 1}, {(1 << 26) + 1}}, 0);
  big.sweep = true;
  EXPECT_FALSE(plan(big, false).sweep);
  Request few = elements({{100}, {40}, {40}}, 0);
  few.sweep = true;
  EXPECT_FALSE(plan(few, false).sweep);
}

// Groups of 256 << extra targets where the device's big group fold takes them: one sweep for up to
// 2^(16 + extra) targets, sorting by target >> (8 + extra).
TEST(ScatterPlan, BigGroupsMakeOneSweepEnough) {
  Request r = elements({{1 << 20}, {1 << 24}, {1 << 24}}, 0);
  r.sweep = true;
  r.place = false;
  r.group_extra_max = 4;
  const Plan p = plan(r, true);
  ASSERT_TRUE(p.grouped);
  EXPECT_EQ(p.group_extra, 4u);
  EXPECT_EQ(p.passes, 2u);  // pass 0 does not run, pass 1 sorts by target >> 12
  EXPECT_EQ(p.groups(), 256u);
  EXPECT_EQ(sweep_push(p, 1).shift, 12u);
  EXPECT_EQ(OG_SC_GROUP_EXTRA(group_push(p).flags), 4u);
  EXPECT_EQ(OG_SC_GROUP_EXTRA(keys_push(p).flags), 4u);
  EXPECT_EQ(OG_SC_PASSES(keys_push(p).flags), 2u);
  EXPECT_TRUE(p.sorted_in_b());
  EXPECT_EQ(group_push(p).flags & OG_SC_FROM_B, OG_SC_FROM_B);
  // One sweep reading the keys in index order: each tile's places come from the keys stage (within
  // its workgroup of 8 tiles) and the scan of the workgroups' totals (two levels for 1024), and the
  // sweep walks back over nothing.
  EXPECT_TRUE(p.counted);
  EXPECT_EQ(keys_push(p).flags & OG_SC_COUNTED, OG_SC_COUNTED);
  EXPECT_EQ(sweep_push(p, 1).flags & OG_SC_COUNTED, OG_SC_COUNTED);
  EXPECT_EQ(group_push(p).flags & OG_SC_COUNTED, 0u);
  EXPECT_EQ(p.level_entries[0], 256u * 1024u);
  EXPECT_EQ(p.level_at[0], 4u * p.units + 256u * 8192u);  // after the tiles' places
  EXPECT_EQ(p.level_entries[1], 64u);
  EXPECT_EQ(p.levels, 2u);
  EXPECT_EQ(OG_SC_LEVELS(sweep_push(p, 1).flags), 2u);
  // The sweep's words cover the passes that the plan has, within the same scratch as the full sort's.
  EXPECT_EQ(p.sweep_end, p.sweep_at + 2 * OG_SC_DIGITS + 4 + 2 * p.tiles * OG_SC_DIGITS);
  r.group = false;
  EXPECT_EQ(plan(r, true).scratch_words, p.scratch_words);
  r.group = true;
  // One target more needs extra 5: groups of 256 and two sweeps instead.
  Request over = elements({{(1 << 20) + 1}, {1 << 24}, {1 << 24}}, 0);
  over.sweep = true;
  over.place = false;
  over.group_extra_max = 4;
  const Plan two = plan(over, true);
  EXPECT_EQ(two.group_extra, 0u);
  EXPECT_EQ(two.passes, 3u);
  EXPECT_EQ(two.groups(), 4097u);
  EXPECT_FALSE(two.counted);  // two sweeps: the second's tiles hold the first's output
  EXPECT_EQ(keys_push(two).flags & OG_SC_COUNTED, 0u);
  EXPECT_EQ(sweep_push(two, 2).shift, 16u);
  // The narrow form's limit (extra 2): 2^17 - 100 targets in groups of 512, 2^18 in two sweeps.
  Request narrow = elements({{(1 << 17) - 100}, {1 << 21}, {1 << 21}}, 0);
  narrow.sweep = true;
  narrow.place = false;
  narrow.group_extra_max = 2;
  EXPECT_EQ(plan(narrow, true).group_extra, 1u);
  EXPECT_EQ(plan(narrow, true).groups(), 256u);
  EXPECT_EQ(plan(narrow, true).passes, 2u);
  Request past = elements({{(1 << 18) + 1}, {1 << 22}, {1 << 22}}, 0);
  past.sweep = true;
  past.place = false;
  past.group_extra_max = 2;
  EXPECT_EQ(plan(past, true).group_extra, 0u);
  EXPECT_EQ(plan(past, true).passes, 3u);
  // Without the big form, groups of 256.
  narrow.group_extra_max = 0;
  EXPECT_EQ(plan(narrow, true).group_extra, 0u);
  EXPECT_EQ(plan(narrow, true).passes, 3u);
}

TEST(ScatterPlan, GroupFoldSkipsTheLowestPassTheRunsAndTheCombine) {
  Request r = elements({{1 << 20}, {1 << 24}, {1 << 24}}, 0);
  r.sweep = true;
  r.place = false;
  const Plan p = plan(r, true);
  ASSERT_TRUE(p.grouped);
  EXPECT_EQ(p.passes, 3u);
  EXPECT_EQ(p.first_pass(), 1u);
  EXPECT_FALSE(p.by_target);  // no runs, no combine
  EXPECT_EQ(p.push.flags & OG_SC_BY_TARGET, 0u);
  EXPECT_EQ(p.groups(), 4096u);
  // Passes 1 and 2 run: the first reads positions and updates from A and writes B, the second back.
  const ScatterPush one = sweep_push(p, 1), two = sweep_push(p, 2);
  EXPECT_EQ(one.shift, 8u);
  EXPECT_EQ(one.flags & (OG_SC_FIRST_PASS | OG_SC_FROM_B), OG_SC_FIRST_PASS);
  EXPECT_EQ(two.shift, 16u);
  EXPECT_EQ(two.flags & (OG_SC_FIRST_PASS | OG_SC_FROM_B), OG_SC_FROM_B);
  EXPECT_FALSE(p.sorted_in_b());
  EXPECT_EQ(group_push(p).flags & OG_SC_FROM_B, 0u);
  EXPECT_EQ(group_push(p).shift, 0u);  // the tiles sort by the low 8 bits
  EXPECT_EQ(keys_push(p).flags & OG_SC_GROUPED, OG_SC_GROUPED);  // no counts for pass 0
  EXPECT_EQ(p.push.flags & OG_SC_GROUPED, 0u);
  // The same scratch as the full sort's.
  r.group = false;
  const Plan full = plan(r, true);
  EXPECT_FALSE(full.grouped);
  EXPECT_TRUE(full.by_target);
  EXPECT_EQ(full.scratch_words, p.scratch_words);
  EXPECT_TRUE(full.sorted_in_b());
  // 2^16 outputs: a skipped unit is digit 255 of every sweep, so its key needs no bit of its own
  // and one sweep (of the real targets' 16 bits) runs, ending in B.
  Request small = elements({{1 << 16}, {1 << 20}, {1 << 20}}, 0);
  small.sweep = true;
  small.place = false;
  EXPECT_TRUE(plan(small, true).grouped);
  EXPECT_EQ(plan(small, true).groups(), 256u);
  EXPECT_EQ(plan(small, true).passes, 2u);
  EXPECT_TRUE(plan(small, true).sorted_in_b());
  EXPECT_EQ(sweep_push(plan(small, true), 1).flags & OG_SC_GROUPED, OG_SC_GROUPED);
  EXPECT_EQ(OG_SC_PASSES(keys_push(plan(small, true)).flags), 2u);
  // Not grouped: a single digit, rows, 64-bit values (moved by id), the three-dispatch passes, the
  // placement; 1000 outputs make four groups, the last one partly used.
  Request one_digit = elements({{255}, {5000}, {5000}}, 0);
  one_digit.sweep = true;
  one_digit.place = false;
  EXPECT_FALSE(plan(one_digit, true).grouped);
  Request digits = elements({{256}, {5000}, {5000}}, 0);
  digits.sweep = true;
  digits.place = false;
  EXPECT_TRUE(plan(digits, true).grouped);
  Request rows = nd({{1000, 2}, {5000, 1}, {5000, 2}});
  rows.sweep = true;
  rows.place = false;
  EXPECT_FALSE(plan(rows, true).grouped);
  Request wide = elements({{1000}, {5000}, {5000}}, 0, DataType::int64);
  wide.sweep = true;
  wide.place = false;
  EXPECT_FALSE(plan(wide, true).grouped);
  Request half = elements({{1000}, {9000}, {9000}}, 0, DataType::float16);
  half.sweep = true;
  half.place = false;
  EXPECT_TRUE(plan(half, true).grouped);
  EXPECT_EQ(plan(half, true).groups(), 4u);
  Request portable = elements({{1000}, {9000}, {9000}}, 0);
  portable.place = false;
  EXPECT_FALSE(plan(portable, true).grouped);
  Request placed = elements({{1000}, {9000}, {9000}}, 0);
  placed.sweep = true;
  ASSERT_TRUE(plan(placed, true).placed);
  EXPECT_FALSE(plan(placed, true).grouped);
  // At least kGroupUnitsPerTarget units a target on average (a permutation is not grouped).
  Request sparse = elements({{1000}, {7999}, {7999}}, 0), dense = elements({{1000}, {8000}, {8000}}, 0);
  sparse.sweep = dense.sweep = true;
  sparse.place = dense.place = false;
  EXPECT_FALSE(plan(sparse, true).grouped);
  EXPECT_TRUE(plan(dense, true).grouped);
}

TEST(ScatterPlan, PlacementLayoutAndRoutes) {
  Request r = elements({{1 << 20}, {1 << 24}, {1 << 24}}, 0);
  r.sweep = true;
  const Plan p = plan(r, false);
  ASSERT_TRUE(p.placed);
  EXPECT_TRUE(p.sweep);  // the radix sort behind it stays planned
  EXPECT_EQ(p.place_at, p.sweep_end);
  EXPECT_EQ(p.place_levels, 2u);
  EXPECT_EQ(p.place_entries[0], (1u << 20) + 1);  // the last entry ends the last run
  EXPECT_EQ(p.place_entries[1], 257u);
  EXPECT_EQ(p.place_level_at[0], p.place_at + OG_SC_PLACE_HEADER);
  EXPECT_EQ(p.place_level_at[1], p.place_level_at[0] + (1u << 20) + 1);
  EXPECT_EQ(p.scratch_words, uint64_t(p.place_level_at[1]) + 257 + 1 + 2 * (1u << 24));
  EXPECT_EQ(place_clear_push(p).dims[0], p.place_at);
  EXPECT_EQ(place_clear_push(p).shift, OG_SC_PLACE_HEADER + (1u << 20) + 1);
  EXPECT_EQ(place_keys_push(p).flags & OG_SC_PLACE, OG_SC_PLACE);
  EXPECT_EQ(place_keys_push(p).shift, p.place_at);
  EXPECT_EQ(keys_push(p).flags & OG_SC_PLACE, 0u);
  // Buckets of 2^14 targets, about 2^18 units each; the staged ids and values after the scans.
  EXPECT_EQ(p.bucket_shift, 14u);
  EXPECT_EQ(p.buckets, 64u);
  EXPECT_EQ(p.place_staged_at, p.place_level_at[1] + 257 + 1);
  EXPECT_EQ(place_push(p).dims[4], p.place_staged_at);
  EXPECT_EQ(place_push(p).dims[5], 14u);
  EXPECT_EQ(place_push(p).dims[6], p.place_at + OG_SC_PLACE_CURSORS);
  EXPECT_EQ(place_push(p).dims[7], 64u);
  EXPECT_EQ(place_scan_push(p, 0).dims[1], p.place_level_at[1]);
  EXPECT_EQ(place_scan_push(p, 1).dims[1], OG_SC_NO_TOTALS);
  EXPECT_EQ(place_scan_groups(p, 0), 257u);
  EXPECT_EQ(place_push(p).dims[3], 2u);
  EXPECT_EQ(clear_push(p).shift, p.sweep_end - p.sweep_at);  // the sweep's words only
  // The route: the placement's grids unless a run is too long, the radix sort's otherwise.
  auto count_in = [](const ScatterPush& push, RouteSlot s) { return s < 8 ? push.strides[s] : push.dims[s - 5]; };
  const ScatterPush q = route_push(p);
  auto count = [&](RouteSlot s) { return count_in(q, s); };
  EXPECT_EQ(q.shift, uint32_t(kRouteSlots));
  EXPECT_EQ(q.dims[0], p.place_at + 1);
  EXPECT_EQ(q.dims[1], p.place_at);
  EXPECT_EQ(q.dims[2] & ((1u << kRoutePartition) | (1u << kRoutePlace) | (1u << kRouteFold)), 0u);
  EXPECT_EQ(q.dims[2] & (1u << kRouteSweep), 1u << kRouteSweep);
  EXPECT_EQ(count(kRoutePlace), 1u << 16);
  EXPECT_EQ(count(kRouteFold), 1u << 12);
  EXPECT_EQ(count(kRouteSweep), 8192u);
  EXPECT_EQ(count(kRouteKeys), 1024u);
  EXPECT_EQ(count(kRoutePartition), 8192u);
  EXPECT_EQ(count(kRouteScan0), 0u);
  EXPECT_EQ(route_offset(p, kRouteFold), 4 * (uint64_t(p.place_at) + 7));
  // The three-dispatch sort behind it: its scans and tiles.
  r.sweep = false;
  const ScatterPush portable = route_push(plan(r, false));
  EXPECT_EQ(count_in(portable, kRouteScan0), 512u);
  EXPECT_EQ(count_in(portable, kRouteScan1), 1u);
  EXPECT_EQ(count_in(portable, kRouteScan2), 0u);
  EXPECT_EQ(count_in(portable, kRouteTiles), 8192u);
  EXPECT_EQ(count_in(portable, kRouteKeys), 8192u);
  EXPECT_EQ(count_in(portable, kRouteSweep), 0u);
  // Not placed: rows of more than one element, fewer than 4 or more than 16 units a target, a few
  // units, past 2^26 units, refused.
  EXPECT_FALSE(plan(nd({{64, 8, 32}, {100, 2}, {100, 32}}), false).placed);
  EXPECT_FALSE(plan(elements({{1000}, {3999}, {3999}}, 0), false).placed);
  EXPECT_FALSE(plan(elements({{1000}, {16001}, {16001}}, 0), false).placed);  // runs likely too long
  EXPECT_TRUE(plan(elements({{1000}, {16000}, {16000}}, 0), false).placed);
  EXPECT_FALSE(plan(elements({{10}, {40}, {40}}, 0), false).placed);
  EXPECT_FALSE(plan(elements({{1 << 23}, {(1 << 26) + 1}, {(1 << 26) + 1}}, 0), false).placed);
  EXPECT_TRUE(plan(elements({{1000}, {4000}, {4000}}, 0), false).placed);
  const Plan whole = plan(nd({{30, 4}, {600, 2}, {600}}), false);  // whole elements
  EXPECT_TRUE(whole.placed);
  EXPECT_EQ(whole.buckets, 1u);
  EXPECT_EQ(whole.bucket_shift, 7u);
  Request refused = elements({{100}, {400}, {400}}, 0);
  EXPECT_TRUE(plan(refused, false).placed);
  refused.place = false;
  EXPECT_FALSE(plan(refused, false).placed);
}

}  // namespace
}  // namespace onegpu::kernels::scatter

namespace onegpu::kernels {
namespace {

TEST(ScatterPlan, ScratchBytes) {
  const std::vector<int64_t> data{1 << 20}, idx{1 << 24};
  // The larger of the two sorts': the sweep's counts, tickets and status words of three passes,
  // then the placement's flag, grids and cursors, counts and their block totals, staged ids and values.
  EXPECT_EQ(Scatter::scratch_bytes_elements(data, idx, 0),
            4ull * (6ull * (1 << 24) + 3 * 256 + 4 + 3 * 256 * 8192 + OG_SC_PLACE_HEADER + (1 << 20) + 1 + 257 + 1));
  const std::vector<int64_t> cache{4096, 32, 128}, rows{16, 1};
  EXPECT_EQ(Scatter::scratch_bytes_nd(cache, rows), 4ull * (4 * 16 + 256 + 1 + 1));
  const std::vector<int64_t> too_long{16, 4};
  EXPECT_THROW(Scatter::scratch_bytes_nd(cache, too_long), KernelShapeError);
  EXPECT_THROW(Scatter::scratch_bytes_elements(data, idx, 1), KernelShapeError);
}

}  // namespace
}  // namespace onegpu::kernels
