// Reaching a public Device's backend object from inside the library (and its tests).
#pragma once

#include "backend/backend.h"

namespace onegpu {

struct DeviceAccess {
  static backend::Device& backend(Device& d) { return *d.impl_; }
};

}  // namespace onegpu
