// Reading the library's environment variables (docs/environment.md lists them).
#pragma once

#include <optional>
#include <string>

namespace onegpu::core {

// The variable's value, or nullopt when unset or empty.
std::optional<std::string> env(const char* name);
// True for "1" or "true" (any case).
bool env_flag(const char* name);
std::string lower(std::string s);

}  // namespace onegpu::core
