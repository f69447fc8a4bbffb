// Pool: plans the problem (pool_plan.cpp), checks the buffers and records one dispatch.
#include "onegpu/kernels/pool.h"

#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/pool/pool_plan.h"
#include "onegpu/errors.h"
#include "pool_variants.h"

namespace onegpu::kernels {

static_assert(pool::kVariants.push_constants_are("pool.max.", sizeof(PoolWindowPush)));
static_assert(pool::kVariants.push_constants_are("pool.avg.", sizeof(PoolWindowPush)));
static_assert(pool::kVariants.push_constants_are("pool.global.", sizeof(PoolGlobalPush)));
static_assert(sizeof(PoolWindowPush) <= 128, "every Vulkan device offers 128 bytes of push constants");

namespace {

// Every name the plan can return is declared (at() fails to compile otherwise).
constexpr Variant kVariantList[] = {
    pool::kVariants.at("pool.max.f32"),        pool::kVariants.at("pool.max.f16"),
    pool::kVariants.at("pool.avg.f32"),        pool::kVariants.at("pool.avg.f16"),
    pool::kVariants.at("pool.global.max.f32"), pool::kVariants.at("pool.global.max.f16"),
    pool::kVariants.at("pool.global.avg.f32"), pool::kVariants.at("pool.global.avg.f16"),
};

Variant variant_named(std::string_view name) {
  for (const Variant& v : kVariantList)
    if (v.name() == name) return v;
  return kVariantList[0];
}

}  // namespace

struct Pool::Impl {
  KernelSet& set;

  ByteRange check_buffer(const char* op, const char* name, const RawBuffer& b, uint64_t offset, uint64_t count,
                         DataType type) {
    const uint64_t bytes = data_type_size(type);
    check_elements(op, name, b, offset, count, bytes);
    const ByteRange r = tensor_bytes(op, name, b.id(), offset, count, bytes);
    if (r.end > b.size_bytes())
      throw KernelShapeError(op, name, "the buffer ends inside the tensor's last word (allocate padded_length)");
    check_bindable(op, b, set.caps());
    return r;
  }

  void encode(CommandEncoder& encoder, const PoolProblem& problem, const RawBuffer& x, const RawBuffer& y) {
    const char* op = Pool::operation_name(problem.operation);
    const pool::Plan p = pool::plan(problem);
    const ByteRange xr = check_buffer(op, "x", x, problem.x_offset, p.input_span, problem.type);
    const ByteRange yr = check_buffer(op, "y", y, problem.y_offset, p.output_count, problem.type);
    check_disjoint(op, "y", yr, "x", xr);
    check_separate_buffers(set.caps(), op, "y", yr, "x", xr);
    const ComputeKernel& k = set.kernel(variant_named(p.variant));
    const BufferBinding buffers[] = {BufferBinding(x), BufferBinding(y)};
    const auto group = set.bind(k, buffers);
    auto pass = encoder.begin_compute_pass();
    if (p.global)
      pass.dispatch_linear(k, *group, std::as_bytes(std::span(&p.global_push, 1)), p.workgroups);
    else
      pass.dispatch_linear(k, *group, std::as_bytes(std::span(&p.window_push, 1)), p.workgroups);
  }
};

Pool::Pool(Device& device, PoolOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(Impl{kernels()})) {}
Pool::~Pool() = default;
Pool::Pool(Pool&&) noexcept = default;
Pool& Pool::operator=(Pool&&) noexcept = default;

void Pool::encode(CommandEncoder& encoder, const PoolProblem& problem, const RawBuffer& x, const RawBuffer& y) {
  impl_->encode(encoder, problem, x, y);
}

Extent2 Pool::output_extent(const PoolProblem& problem) { return pool::plan(problem).output; }
uint64_t Pool::input_elements(const PoolProblem& problem) { return pool::plan(problem).input_count; }
uint64_t Pool::output_elements(const PoolProblem& problem) { return pool::plan(problem).output_count; }

std::string Pool::describe(const PoolProblem& problem) {
  const pool::Plan p = pool::plan(problem);
  std::string s(p.variant);
  if (p.global) s += " (" + std::to_string(p.global_push.threads) + " threads a plane)";
  return s;
}

const char* Pool::operation_name(PoolOperation operation) {
  switch (operation) {
    case PoolOperation::max_pool: return "MaxPool";
    case PoolOperation::average_pool: return "AveragePool";
    case PoolOperation::global_average_pool: return "GlobalAveragePool";
    case PoolOperation::global_max_pool: return "GlobalMaxPool";
  }
  return "Pool";
}

}  // namespace onegpu::kernels
