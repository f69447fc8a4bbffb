#include "core/env.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace onegpu::core {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == 0) return std::nullopt;
  return std::string(v);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool env_flag(const char* name) {
  auto v = env(name);
  return v && (*v == "1" || lower(*v) == "true");
}

}  // namespace onegpu::core
