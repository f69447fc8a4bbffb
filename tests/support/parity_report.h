// ONEGPU_PARITY_REPORT=FILE: every measured error against a float64 reference is appended to FILE
// as a markdown table row (test, comparison number within the test, elements compared, scaled
// error), so one run of the suite gives the accuracy table of every kernel on that device.
#pragma once

#include <cstddef>

namespace onegpu::testing {

// Appends a row for the running test when ONEGPU_PARITY_REPORT is set; does nothing otherwise.
void report_parity(double scaled_error, size_t elements);

}  // namespace onegpu::testing
