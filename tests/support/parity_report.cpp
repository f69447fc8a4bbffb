#include "support/parity_report.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>

namespace onegpu::testing {

void report_parity(double scaled_error, size_t elements) {
  static std::mutex mu;
  static std::string last_test;
  static int index = 0;
  const char* path = std::getenv("ONEGPU_PARITY_REPORT");
  if (path == nullptr || *path == '\0') return;
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = info == nullptr ? "(none)" : std::string(info->test_suite_name()) + "." + info->name();
  std::lock_guard lock(mu);
  index = test == last_test ? index + 1 : 0;
  last_test = test;
  std::ifstream existing(path);
  const bool fresh = !existing || existing.peek() == std::ifstream::traits_type::eof();
  existing.close();
  std::ofstream out(path, std::ios::app);
  if (!out) return;
  if (fresh) out << "| test | comparison | elements | scaled error |\n|---|---|---|---|\n";
  char error[32];
  std::snprintf(error, sizeof error, "%.3e", scaled_error);
  out << "| " << test << " | " << index << " | " << elements << " | " << error << " |\n";
}

}  // namespace onegpu::testing
