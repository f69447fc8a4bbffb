// Layout benchmark cases.
#include "harness.h"
#include "onegpu/kernels/layout.h"
