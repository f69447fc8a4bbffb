#include <sstream>

#include "onegpu/capabilities.h"

namespace onegpu {

std::string ComputeCapabilities::describe() const {
  std::ostringstream s;
  s << "subgroup " << subgroup_size << " (" << min_subgroup_size << ".." << max_subgroup_size << ")";
  const std::pair<ShaderFeature, const char*> short_names[] = {
      {ShaderFeature::float16, "f16"}, {ShaderFeature::float64, "f64"},
      {ShaderFeature::int8, "i8"}, {ShaderFeature::int16, "i16"}, {ShaderFeature::int64, "i64"},
      {ShaderFeature::integer_dot_product, "dot4x8"}, {ShaderFeature::bfloat16, "bf16"},
      {ShaderFeature::subgroup_arithmetic, "subgroup-arith"}};
  for (auto& [f, n] : short_names)
    if (features.has(f)) s << " " << n;
  if (full_subgroups) s << " full-subgroups";
  if (subgroup_size_control) s << " size-control";
  if (!cooperative_matrix_shapes.empty()) s << " coopmat(" << cooperative_matrix_shapes.size() << ")";
  if (!cooperative_matrix_workgroup_shapes.empty()) s << " coopmat2(" << cooperative_matrix_workgroup_shapes.size() << ")";
  s << ", workgroup " << max_workgroup_invocations << ", shared " << max_workgroup_memory_bytes / 1024
    << " KiB, binding " << (max_storage_buffer_range >> 20) << " MiB";
  if (timestamps) s << ", timestamps " << timestamp_period_ns << " ns";
  if (kernel_statistics) s << ", kernel statistics";
  return s.str();
}

}  // namespace onegpu
