// What a check threw, for tests of the checks (no device needed).
#pragma once

#include <string>

#include "onegpu/errors.h"

namespace onegpu::testing {

// What a KernelShapeError thrown by `f` says, or "no error".
template <class F>
std::string shape_error_message(F&& f) {
  try {
    f();
  } catch (const KernelShapeError& e) {
    return e.what();
  }
  return "no error";
}

// The argument a KernelShapeError thrown by `f` names, or "(nothing thrown)".
template <class F>
std::string shape_error_argument(F&& f) {
  try {
    f();
  } catch (const KernelShapeError& e) {
    return e.argument();
  }
  return "(nothing thrown)";
}

}  // namespace onegpu::testing
