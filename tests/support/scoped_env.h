// An environment variable set for one scope (the library's tuning variables, read when a family
// object is constructed), with the previous value put back.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace onegpu::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* v = std::getenv(name)) previous_ = v;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (previous_) setenv(name_, previous_->c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

}  // namespace onegpu::testing
