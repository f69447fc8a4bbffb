// Dawn's library, opened at run time: ONEGPU_WEBGPU_LIBRARY when set, then the copy the setup
// script installed (its path is compiled in), then the usual sonames. Missing entry points leave
// the library unavailable rather than failing later.
#pragma once

#include <string>

#include "webgpu/abi.h"

namespace onegpu::webgpu {

struct Library : abi::Functions {
  bool available = false;
  std::string path;    // the file that was opened
  std::string tried;   // every name tried, for messages
  std::string reason;  // why it is unavailable
};

// Opened once per process.
const Library& library();

}  // namespace onegpu::webgpu
