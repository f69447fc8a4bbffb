// Exceptions carry their data and name the operation first.
#include <gtest/gtest.h>

#include "onegpu/errors.h"
#include "vulkan/check.h"

namespace onegpu {
namespace {

TEST(Errors, MessagesNameTheOperationAndValues) {
  KernelShapeError s("Gemm", "lda", "12 is less than K = 16");
  EXPECT_STREQ(s.what(), "Gemm: lda: 12 is less than K = 16");
  EXPECT_EQ(s.operation(), "Gemm");
  EXPECT_EQ(s.argument(), "lda");
  UnsupportedError u("float64", "supported", "not supported");
  EXPECT_EQ(u.capability(), "float64");
  OutOfMemoryError m("vkAllocateMemory", 1ull << 40);
  EXPECT_EQ(m.requested_bytes(), 1ull << 40);
  EXPECT_NE(std::string(m.what()).find("1099511627776"), std::string::npos);
}

TEST(Errors, VkResultsBecomeTypedExceptions) {
  using vulkan::check;
  EXPECT_NO_THROW(check(VK_SUCCESS, "vkX"));
  EXPECT_NO_THROW(check(VK_INCOMPLETE, "vkX"));
  try {
    check(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory", 4096);
    FAIL();
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(e.requested_bytes(), 4096u);
    EXPECT_EQ(e.operation(), "vkAllocateMemory");
  }
  try {
    check(VK_ERROR_DEVICE_LOST, "vkQueueSubmit");
    FAIL();
  } catch (const DeviceLostError& e) {
    EXPECT_EQ(e.operation(), "vkQueueSubmit");
  }
  try {
    check(VK_ERROR_INITIALIZATION_FAILED, "vkCreateDevice");
    FAIL();
  } catch (const CommandError& e) {
    EXPECT_EQ(e.result_code(), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_NE(std::string(e.what()).find("VK_ERROR_INITIALIZATION_FAILED"), std::string::npos);
  }
}

TEST(Errors, InjectedFailuresSkipTheCall) {
  vulkan::inject_failure("vkTest", VK_ERROR_DEVICE_LOST, 2);
  int calls = 0;
  auto f = [&] { ++calls; return VK_SUCCESS; };
  EXPECT_THROW(vulkan::call_checked("vkTest", 0, f), DeviceLostError);
  EXPECT_THROW(vulkan::call_checked("vkTest", 0, f), DeviceLostError);
  EXPECT_NO_THROW(vulkan::call_checked("vkTest", 0, f));
  EXPECT_EQ(calls, 1);
  vulkan::clear_injected_failures();
}

}  // namespace
}  // namespace onegpu
