// Which barrier a pass or copy needs against the work recorded before it in the same command
// buffer, from the buffers each one reads and writes. A plain decision over plain structs, tested
// without a GPU; the backend turns the answer into its own barrier.
//
// The unit of ordering is a scope: a compute pass (its dispatches are not ordered against each
// other) or a copy. A scope must see every write of the scopes recorded before it:
// - it reads or writes a buffer that earlier, unbarriered work wrote (read after write, write
//   after write): a memory barrier;
// - it writes a buffer that earlier, unbarriered work read (write after read): an execution
//   dependency is enough;
// - otherwise nothing.
// A barrier orders everything recorded before it, so a memory barrier clears every pending access
// and an execution dependency clears the pending reads (the writes still need to be made visible).
// Buffers are tracked by id, whole buffers (a conservative answer for disjoint ranges).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace onegpu::core {

enum class BarrierKind : uint8_t { none, execution, memory };

struct BufferAccess {
  uint64_t buffer = 0;  // the buffer's id
  bool writes = false;  // false: only read
};

// The accesses recorded since the last barrier. A scope's own accesses join it when the scope ends.
class HazardTracker {
 public:
  // The barrier needed before recording `accesses` in the current scope. Pure.
  BarrierKind needed(std::span<const BufferAccess> accesses) const {
    BarrierKind kind = BarrierKind::none;
    for (const BufferAccess& a : accesses) {
      if (contains(written_, a.buffer)) return BarrierKind::memory;
      if (a.writes && contains(read_, a.buffer)) kind = BarrierKind::execution;
    }
    return kind;
  }

  // Records that a barrier of `kind` was placed now.
  void barrier_placed(BarrierKind kind) {
    if (kind == BarrierKind::none) return;
    read_.clear();
    if (kind == BarrierKind::memory) written_.clear();
  }

  // Decides, records the barrier as placed and notes the accesses in the current scope.
  BarrierKind access(std::span<const BufferAccess> accesses) {
    BarrierKind kind = needed(accesses);
    barrier_placed(kind);
    for (const BufferAccess& a : accesses) add(a.writes ? scope_written_ : scope_read_, a.buffer);
    return kind;
  }

  // The current scope ends: its accesses now order what comes after.
  void end_scope() {
    for (uint64_t b : scope_written_) add(written_, b);
    for (uint64_t b : scope_read_) add(read_, b);
    scope_written_.clear();
    scope_read_.clear();
  }

  // A fresh command buffer (which starts with a full barrier).
  void reset() {
    written_.clear();
    read_.clear();
    scope_written_.clear();
    scope_read_.clear();
  }

 private:
  static bool contains(const std::vector<uint64_t>& v, uint64_t id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  }
  static void add(std::vector<uint64_t>& v, uint64_t id) {
    if (!contains(v, id)) v.push_back(id);
  }
  std::vector<uint64_t> written_, read_;              // earlier scopes, since the last barrier
  std::vector<uint64_t> scope_written_, scope_read_;  // the current scope
};

}  // namespace onegpu::core
