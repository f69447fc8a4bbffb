// Gather: each operation plans its request (gather_plan.cpp), checks the buffers and records.
#include "onegpu/kernels/gather.h"

#include <optional>
#include <string>

#include "gather_variants.h"
#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/common/index_status.h"
#include "kernels/gather/gather_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {

static_assert(gather::kVariants.push_constants_are("gather.", sizeof(GatherPush)));
static_assert(sizeof(GatherPush) <= 128, "every Vulkan device offers 128 bytes of push constants");

namespace {

// Every name variant_name() can return is declared (at() fails to compile otherwise).
constexpr Variant kVariantList[] = {
    gather::kVariants.at("gather.index.w8"),     gather::kVariants.at("gather.index.w16"),
    gather::kVariants.at("gather.index.w32"),    gather::kVariants.at("gather.index.w64"),
    gather::kVariants.at("gather.elements.w8"),  gather::kVariants.at("gather.elements.w16"),
    gather::kVariants.at("gather.elements.w32"), gather::kVariants.at("gather.elements.w64"),
    gather::kVariants.at("gather.rows.uvec4"),   gather::kVariants.at("gather.rows.word"),
};

Variant variant_of(const gather::Plan& p) {
  const std::string_view name = gather::variant_name(p);
  for (const Variant& v : kVariantList)
    if (v.name() == name) return v;
  return kVariantList[0];
}

gather::Request request(GatherOperation op, const TensorRef& data, const TensorRef& indices, int64_t axis,
                        const TensorRef& out) {
  return {op, gather::operand_of(data), gather::operand_of(indices), gather::operand_of(out), axis};
}

}  // namespace

struct Gather::Impl {
  KernelSet& set;
  // The status slot without a status where the device refuses the output's buffer bound there
  // too (ComputeCapabilities::aliased_writable_bindings false).
  std::optional<Buffer<uint32_t>> no_status;
  Impl(KernelSet& k, Device& d) : set(k) {
    if (!d.capabilities().aliased_writable_bindings) no_status.emplace(d.create_buffer<uint32_t>(4));
  }

  // Present, inside their buffers (whole words: the kernels read and write words), bindable, and
  // the output shares no word with the data or the indices.
  void check_buffers(const char* op, const gather::Plan& p, const TensorRef& data, const TensorRef& indices,
                     const TensorRef& out) {
    const TensorRef* tensors[] = {&data, &indices, &out};
    const char* names[] = {"data", "indices", "output"};
    const uint64_t counts[] = {p.data_elements, p.index_elements, p.out_elements};
    ByteRange ranges[3];
    for (int i = 0; i < 3; ++i) {
      const TensorRef& t = *tensors[i];
      if (t.buffer == nullptr) throw KernelShapeError(op, names[i], "no buffer");
      const uint64_t bytes = data_type_size(t.type);
      check_elements(op, names[i], *t.buffer, t.offset, counts[i], bytes);
      ranges[i] = tensor_bytes(op, names[i], t.buffer->id(), t.offset, counts[i], bytes);
      if (ranges[i].end > t.buffer->size_bytes())
        throw KernelShapeError(op, names[i], "the buffer ends inside the tensor's last word (allocate padded_length)");
      check_bindable(op, *t.buffer, set.caps());
    }
    for (int i = 0; i < 2; ++i) {
      check_disjoint(op, "output", ranges[2], names[i], ranges[i]);
      check_separate_buffers(set.caps(), op, "output", ranges[2], names[i], ranges[i]);
    }
  }

  void run(GatherOperation operation, CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices,
           int64_t axis, const TensorRef& out, IndexStatus* status) {
    const char* op = gather::operation_name(operation);
    gather::Plan p = gather::plan(request(operation, data, indices, axis, out));
    check_buffers(op, p, data, indices, out);
    if (status != nullptr) IndexStatusAccess::note_use(*status, op, "indices");
    if (p.empty()) return;
    if (status != nullptr) p.push.codes |= OG_GATHER_RECORD;
    const ComputeKernel& k = set.kernel(variant_of(p));
    // Without a status the kernel is told not to record, and the status slot holds the output's
    // buffer: written by the pass anyway, it adds no dependency between passes (a buffer of the
    // family's own would look written by every pass and order independent gathers). Where a
    // device refuses one buffer in two writable slots, the family's own it is.
    const RawBuffer& unused = no_status ? static_cast<const RawBuffer&>(*no_status) : *out.buffer;
    const BufferBinding bindings[] = {BufferBinding(*data.buffer), BufferBinding(*indices.buffer),
                                      BufferBinding(*out.buffer),
                                      BufferBinding(status != nullptr ? status->buffer() : unused)};
    const auto group = set.bind(k, bindings);
    ComputePass pass = encoder.begin_compute_pass();
    pass.dispatch_linear(k, *group, std::as_bytes(std::span(&p.push, 1)), p.workgroups);
  }
};

Gather::Gather(Device& device, GatherOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), device)) {}
Gather::~Gather() = default;
Gather::Gather(Gather&&) noexcept = default;
Gather& Gather::operator=(Gather&&) noexcept = default;

void Gather::gather(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices, int64_t axis,
                    const TensorRef& out, IndexStatus* status) {
  impl_->run(GatherOperation::gather, encoder, data, indices, axis, out, status);
}

void Gather::gather_elements(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices, int64_t axis,
                             const TensorRef& out, IndexStatus* status) {
  impl_->run(GatherOperation::gather_elements, encoder, data, indices, axis, out, status);
}

void Gather::gather_nd(CommandEncoder& encoder, const TensorRef& data, const TensorRef& indices, int64_t batch_dims,
                       const TensorRef& out, IndexStatus* status) {
  impl_->run(GatherOperation::gather_nd, encoder, data, indices, batch_dims, out, status);
}

std::vector<int64_t> Gather::gather_shape(std::span<const int64_t> data, std::span<const int64_t> indices,
                                          int64_t axis) {
  return gather::gather_shape(data, indices, axis);
}

std::vector<int64_t> Gather::gather_nd_shape(std::span<const int64_t> data, std::span<const int64_t> indices,
                                             int64_t batch_dims) {
  return gather::gather_nd_shape(data, indices, batch_dims);
}

std::string_view Gather::variant(GatherOperation operation, const TensorRef& data, const TensorRef& indices,
                                 int64_t axis, const TensorRef& out) const {
  return variant_of(gather::plan(request(operation, data, indices, axis, out))).name();
}

}  // namespace onegpu::kernels
