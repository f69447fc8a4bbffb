// A child process for the validation-layer tests: opens a device with validation requested and
// prints what happened ("validated", "unvalidated" or "unsupported: <capability>").
#include <cstdio>

#include "onegpu/onegpu.h"

int main() {
  try {
    onegpu::Device device = onegpu::Device::create({.validation = true});
    std::printf("%s\n", device.validation_enabled() ? "validated" : "unvalidated");
    return 0;
  } catch (const onegpu::UnsupportedError& e) {
    std::printf("unsupported: %s\n", e.capability().c_str());
    return 0;
  }
}
