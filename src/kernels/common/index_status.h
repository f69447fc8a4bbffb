// Internal: how an operation registers itself as a user of an IndexStatus before it records.
#pragma once

#include "onegpu/kernels/index_status.h"

namespace onegpu::kernels {

struct IndexStatusAccess {
  // `operation` and `argument` must be string literals (kept as pointers, so a warm encode
  // allocates nothing).
  static void note_use(IndexStatus& status, const char* operation, const char* argument);
};

}  // namespace onegpu::kernels
