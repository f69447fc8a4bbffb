// Barriers from what passes and copies read and write, decided without a GPU.
#include <gtest/gtest.h>

#include <vector>

#include "core/hazards.h"

namespace onegpu::core {
namespace {

using A = std::vector<BufferAccess>;
constexpr uint64_t kX = 1, kY = 2, kZ = 3;

BarrierKind scope(HazardTracker& t, const A& accesses) {
  BarrierKind k = t.access(accesses);
  t.end_scope();
  return k;
}

TEST(Hazards, FirstScopeNeedsNothing) {
  HazardTracker t;
  EXPECT_EQ(scope(t, {{kX, false}, {kY, true}}), BarrierKind::none);
}

TEST(Hazards, ReadAfterWriteNeedsAMemoryBarrier) {
  HazardTracker t;
  scope(t, {{kX, false}, {kY, true}});
  EXPECT_EQ(t.needed(A{{kY, false}}), BarrierKind::memory);
  EXPECT_EQ(scope(t, {{kY, false}, {kZ, true}}), BarrierKind::memory);
}

TEST(Hazards, WriteAfterWriteNeedsAMemoryBarrier) {
  HazardTracker t;
  scope(t, {{kY, true}});
  EXPECT_EQ(scope(t, {{kY, true}}), BarrierKind::memory);
}

TEST(Hazards, WriteAfterReadNeedsOnlyAnExecutionDependency) {
  HazardTracker t;
  scope(t, {{kX, false}, {kY, true}});
  EXPECT_EQ(scope(t, {{kX, true}}), BarrierKind::execution);
}

TEST(Hazards, ReadAfterReadAndDisjointBuffersNeedNothing) {
  HazardTracker t;
  scope(t, {{kX, false}, {kY, true}});
  EXPECT_EQ(scope(t, {{kX, false}, {kZ, true}}), BarrierKind::none);
}

TEST(Hazards, AMemoryBarrierOrdersEverythingBeforeIt) {
  HazardTracker t;
  scope(t, {{kX, false}, {kY, true}});
  scope(t, {{kZ, true}});
  EXPECT_EQ(scope(t, {{kY, false}}), BarrierKind::memory);  // covers the write of kZ too
  EXPECT_EQ(t.needed(A{{kZ, false}}), BarrierKind::none);
  EXPECT_EQ(t.needed(A{{kX, true}}), BarrierKind::none);    // the read of kX is ordered as well
  EXPECT_EQ(t.needed(A{{kY, true}}), BarrierKind::execution);  // read by the last scope
}

TEST(Hazards, AnExecutionDependencyLeavesWritesPending) {
  HazardTracker t;
  scope(t, {{kX, false}, {kY, true}});
  EXPECT_EQ(scope(t, {{kX, true}}), BarrierKind::execution);
  EXPECT_EQ(t.needed(A{{kY, false}}), BarrierKind::memory);
  EXPECT_EQ(t.needed(A{{kX, false}}), BarrierKind::memory);
}

TEST(Hazards, DispatchesOfOneScopeAreNotOrderedAgainstEachOther) {
  HazardTracker t;
  EXPECT_EQ(t.access(A{{kX, true}}), BarrierKind::none);
  EXPECT_EQ(t.access(A{{kX, false}}), BarrierKind::none);  // same pass: no barrier
  t.end_scope();
  EXPECT_EQ(t.access(A{{kX, false}}), BarrierKind::memory);
}

TEST(Hazards, LaterDispatchOfAScopeStillSeesEarlierScopes) {
  HazardTracker t;
  scope(t, {{kY, true}});
  EXPECT_EQ(t.access(A{{kX, true}}), BarrierKind::none);
  EXPECT_EQ(t.access(A{{kY, false}}), BarrierKind::memory);
}

TEST(Hazards, ResetForAFreshCommandBuffer) {
  HazardTracker t;
  scope(t, {{kY, true}});
  t.reset();
  EXPECT_EQ(scope(t, {{kY, false}}), BarrierKind::none);
}

}  // namespace
}  // namespace onegpu::core
