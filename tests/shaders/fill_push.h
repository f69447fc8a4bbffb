// Push constants of the test fill shader (fill.comp), shared by the device tests and GLSL.
#ifndef ONEGPU_TEST_FILL_PUSH_H
#define ONEGPU_TEST_FILL_PUSH_H
#include "common/layout.h"

struct FillPush {
  OG_U32 count;
  OG_U32 value;
  OG_U32 step;
};
#endif
