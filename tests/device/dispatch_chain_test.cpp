// Chains of dependent passes: every pass must see every write of the passes and copies before it.
#include <gtest/gtest.h>

#include "shaders/fill_push.h"
#include "support/device_fixture.h"
#include "support/random.h"
#include "test_add_one.h"
#include "test_fill.h"
#include "test_transpose.h"

namespace onegpu::testing {
namespace {

struct TransposePush {
  uint32_t rows, cols;
};
static_assert(sizeof(TransposePush) == shaders::test_transpose::kPushConstantSize);
static_assert(offsetof(TransposePush, cols) == shaders::test_transpose::kPushOffset_cols);

static_assert(sizeof(FillPush) == shaders::test_fill::kPushConstantSize);

constexpr FillPush kFill{1, 1, 1};

Grid transpose_grid(uint32_t rows, uint32_t cols) { return {(cols + 15) / 16, (rows + 15) / 16, 1}; }

class DispatchChain : public DeviceTest {};

TEST_F(DispatchChain, TransposeBackAndForthManyTimes) {
  const uint32_t rows = 37, cols = 53;
  auto input = random_floats(rows * cols, 1);
  auto a = device().create_buffer(input);
  auto b = device().create_buffer<float>(rows * cols);
  auto kernel = device().create_compute_kernel(shaders::test_transpose::source());
  auto ab = device().create_bind_group(kernel, {a, b});
  auto ba = device().create_bind_group(kernel, {b, a});
  const int kRounds = 25;  // 50 dependent passes
  auto enc = device().begin_commands();
  for (int i = 0; i < kRounds; ++i) {
    enc.begin_compute_pass().dispatch(kernel, ab, TransposePush{rows, cols}, transpose_grid(rows, cols));
    enc.begin_compute_pass().dispatch(kernel, ba, TransposePush{cols, rows}, transpose_grid(cols, rows));
  }
  EXPECT_EQ(enc.compute_pass_count(), 2u * kRounds);
  device().submit(enc);
  auto back = a.read();
  auto transposed = b.read();
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      ASSERT_EQ(back[r * cols + c], input[r * cols + c]) << r << "," << c;
      ASSERT_EQ(transposed[c * rows + r], input[r * cols + c]) << r << "," << c;
    }
}

TEST_F(DispatchChain, RepeatedFullWritesToOneBufferWithCopiesBetween) {
  const uint32_t n = 1000;
  const int kWrites = 40;
  auto data = device().create_buffer<uint32_t>(n);
  std::vector<uint32_t> sentinel(n * kWrites + 16, kSentinel);
  auto history = device().create_buffer(sentinel);
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  auto enc = device().begin_commands();
  for (int k = 0; k < kWrites; ++k) {
    enc.begin_compute_pass().dispatch(kernel, group, FillPush{n, uint32_t(k * 1000), uint32_t(k + 1)}, {(n + 63) / 64, 1, 1});
    enc.copy_buffer(data, 0, history, uint64_t(k) * n * 4, n * 4);
  }
  device().submit(enc);
  auto h = history.read();
  for (int k = 0; k < kWrites; ++k)
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(h[k * n + i], uint32_t(k * 1000) + i * uint32_t(k + 1)) << k << "," << i;
  for (size_t i = size_t(n) * kWrites; i < h.size(); ++i) ASSERT_EQ(h[i], kSentinel);
  auto last = data.read();
  EXPECT_EQ(last[n - 1], uint32_t((kWrites - 1) * 1000) + (n - 1) * uint32_t(kWrites));
}

TEST_F(DispatchChain, CopiesFeedLaterPasses) {
  const uint32_t rows = 20, cols = 33;
  auto input = random_floats(rows * cols, 2);
  auto a = device().create_buffer(input);
  auto b = device().create_buffer<float>(rows * cols);
  auto c = device().create_buffer<float>(rows * cols);
  auto kernel = device().create_compute_kernel(shaders::test_transpose::source());
  auto bc = device().create_bind_group(kernel, {b, c});
  auto enc = device().begin_commands();
  for (int i = 0; i < 6; ++i) {
    // a -> b by copy, b -> c transposed, c -> a by copy: a is transposed once per round.
    uint32_t r = (i % 2 == 0) ? rows : cols, k = (i % 2 == 0) ? cols : rows;
    enc.copy_buffer(a, 0, b, 0, rows * cols * 4);
    enc.begin_compute_pass().dispatch(kernel, bc, TransposePush{r, k}, transpose_grid(r, k));
    enc.copy_buffer(c, 0, a, 0, rows * cols * 4);
  }
  EXPECT_EQ(enc.compute_pass_count(), 6u);
  device().submit(enc);
  EXPECT_EQ(a.read(), input);  // an even number of transposes
}

TEST_F(DispatchChain, LinearGridBeyond65535Workgroups) {
  const uint32_t groups = 65535 + 70;
  const uint32_t n = groups * 64 - 5;
  auto data = device().create_buffer<uint32_t>(n + 64);
  std::vector<uint32_t> tail(64, kSentinel);
  data.write(tail, n);
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  auto enc = device().begin_commands();
  auto pass = enc.begin_compute_pass();
  FillPush push{n, 7, 3};
  pass.dispatch_linear(kernel, group, std::as_bytes(std::span(&push, 1)), (n + 63) / 64);
  device().submit(enc);
  auto out = data.read();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 7 + i * 3) << i;
  for (uint32_t i = n; i < n + 64; ++i) ASSERT_EQ(out[i], kSentinel) << i;
}

TEST_F(DispatchChain, PassAndDispatchCountsEmptyGridRunsNothing) {
  auto data = device().create_buffer(std::vector<uint32_t>(128, kSentinel));
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  auto enc = device().begin_commands();
  EXPECT_EQ(enc.compute_pass_count(), 0u);
  auto first = enc.begin_compute_pass();
  first.dispatch(kernel, group, FillPush{128, 1, 1}, {0, 1, 1});
  first.dispatch(kernel, group, FillPush{128, 1, 1}, {2, 0, 1});
  enc.begin_compute_pass().dispatch(kernel, group, FillPush{128, 1, 1}, {1, 1, 0});
  enc.begin_compute_pass().end();
  EXPECT_EQ(enc.compute_pass_count(), 3u);
  EXPECT_EQ(enc.dispatch_count(), 3u);
  device().submit(enc);
  for (uint32_t v : data.read()) ASSERT_EQ(v, kSentinel);
}

TEST_F(DispatchChain, IndirectDispatchReadsItsGridFromABuffer) {
  const uint32_t n = 1000;
  std::vector<uint32_t> init(n + 1 + 64, kSentinel);
  init[0] = n;
  auto start = random_words(n, 3);
  std::copy(start.begin(), start.end(), init.begin() + 1);
  auto data = device().create_buffer(init);
  auto args = device().create_buffer(std::vector<uint32_t>{kSentinel, (n + 63) / 64, 1, 1});
  auto kernel = device().create_compute_kernel(shaders::test_add_one::source());
  auto group = device().create_bind_group(kernel, {data});
  auto enc = device().begin_commands();
  enc.begin_compute_pass().dispatch_indirect(kernel, group, {}, args, 4);
  enc.begin_compute_pass().dispatch_indirect(kernel, group, {}, args, 4);
  EXPECT_EQ(enc.dispatch_count(), 2u);
  device().submit(enc);
  auto out = data.read();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[1 + i], start[i] + 2) << i;
  for (size_t i = n + 1; i < out.size(); ++i) ASSERT_EQ(out[i], kSentinel);
  EXPECT_THROW(enc.begin_compute_pass(), UsageError);  // submitted encoder
}

TEST_F(DispatchChain, BadDispatchesThrowBeforeRecording) {
  auto data = device().create_buffer<uint32_t>(64);
  auto fill = device().create_compute_kernel(shaders::test_fill::source());
  auto add = device().create_compute_kernel(shaders::test_add_one::source());
  auto group = device().create_bind_group(fill, {data});
  auto add_group = device().create_bind_group(add, {data});
  auto args = device().create_buffer<uint32_t>(3);
  auto enc = device().begin_commands();
  EXPECT_THROW(ComputePass().dispatch(fill, group, FillPush{1, 1, 1}, {1, 1, 1}), UsageError);  // no pass
  auto pass = enc.begin_compute_pass();
  EXPECT_THROW(pass.dispatch(fill, group, TransposePush{1, 1}, {1, 1, 1}), KernelShapeError);
  EXPECT_THROW(pass.dispatch(fill, add_group, FillPush{1, 1, 1}, {1, 1, 1}), KernelShapeError);
  EXPECT_THROW(pass.dispatch(fill, group, FillPush{1, 1, 1}, {caps().max_workgroup_count[0] + 1u, 1, 1}),
               UnsupportedError);
  EXPECT_THROW(pass.dispatch_linear(fill, group, std::as_bytes(std::span(&kFill, 1)), UINT64_MAX),
               UnsupportedError);
  EXPECT_THROW(pass.dispatch_indirect(add, add_group, {}, args, 4), KernelShapeError);  // past the end
  EXPECT_THROW(pass.dispatch_indirect(add, add_group, {}, args, 2), KernelShapeError);  // misaligned
  EXPECT_THROW(enc.copy_buffer(data, 0, args, 0, 16), KernelShapeError);
  EXPECT_THROW(enc.copy_buffer(data, 2, data, 64, 4), KernelShapeError);
  EXPECT_EQ(enc.dispatch_count(), 0u);
}

TEST_F(DispatchChain, EndedPassesRefuseWork) {
  auto data = device().create_buffer(std::vector<uint32_t>(64, kSentinel));
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  auto other = device().create_buffer(std::vector<uint32_t>(64, 0));
  auto enc = device().begin_commands();
  EXPECT_TRUE(ComputePass().ended());
  EXPECT_THROW(ComputePass().dispatch(kernel, group, kFill, {1, 1, 1}), UsageError);

  auto ended_by_end = enc.begin_compute_pass();
  EXPECT_FALSE(ended_by_end.ended());
  ended_by_end.end();
  EXPECT_TRUE(ended_by_end.ended());
  EXPECT_THROW(ended_by_end.dispatch(kernel, group, kFill, {1, 1, 1}), UsageError);
  ended_by_end.end();  // again: nothing

  auto ended_by_next = enc.begin_compute_pass();
  auto next = enc.begin_compute_pass();
  EXPECT_TRUE(ended_by_next.ended());
  EXPECT_THROW(ended_by_next.dispatch(kernel, group, kFill, {1, 1, 1}), UsageError);

  enc.copy_buffer(data, 0, other, 0, 64);
  EXPECT_TRUE(next.ended());
  EXPECT_THROW(next.dispatch(kernel, group, kFill, {1, 1, 1}), UsageError);

  auto at_submit = enc.begin_compute_pass();
  at_submit.dispatch(kernel, group, FillPush{64, 5, 0}, {1, 1, 1});
  ComputePass moved = std::move(at_submit);
  EXPECT_FALSE(moved.ended());
  device().submit(enc);
  EXPECT_TRUE(moved.ended());
  try {
    moved.dispatch(kernel, group, kFill, {1, 1, 1});
    FAIL() << "a pass of a submitted encoder accepted a dispatch";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.operation(), "dispatch");
  }
  EXPECT_EQ(data.read(), std::vector<uint32_t>(64, 5u));
  auto copied = other.read();
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(copied[i], i < 16 ? kSentinel : 0u) << i;
}

TEST_F(DispatchChain, ReadOnlyInputsSharedByOnePassAndTheNext) {
  // Two passes read `a` (read-only in the transpose shader) and write different outputs; a third
  // overwrites `a` (write after read), a fourth reads what the third wrote.
  const uint32_t rows = 19, cols = 23;
  auto input = random_floats(rows * cols, 5);
  auto a = device().create_buffer(input);
  auto b = device().create_buffer<float>(rows * cols);
  auto c = device().create_buffer<float>(rows * cols);
  auto kernel = device().create_compute_kernel(shaders::test_transpose::source());
  ASSERT_TRUE(kernel.reflection().bindings[0].read_only);
  ASSERT_FALSE(kernel.reflection().bindings[1].read_only);
  auto ab = device().create_bind_group(kernel, {a, b});
  auto ac = device().create_bind_group(kernel, {a, c});
  auto ba = device().create_bind_group(kernel, {b, a});
  auto enc = device().begin_commands();
  enc.begin_compute_pass().dispatch(kernel, ab, TransposePush{rows, cols}, transpose_grid(rows, cols));
  enc.begin_compute_pass().dispatch(kernel, ac, TransposePush{rows, cols}, transpose_grid(rows, cols));
  enc.begin_compute_pass().dispatch(kernel, ba, TransposePush{cols, rows}, transpose_grid(cols, rows));
  enc.copy_buffer(a, 0, b, 0, rows * cols * 4);
  device().submit(enc);
  EXPECT_EQ(a.read(), input);
  EXPECT_EQ(b.read(), input);
  auto t = c.read();
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t k = 0; k < cols; ++k) ASSERT_EQ(t[k * rows + r], input[r * cols + k]);
}

}  // namespace
}  // namespace onegpu::testing
