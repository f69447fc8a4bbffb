// onegpu-info: lists the adapters the library sees, in adapter order, with their capabilities.
//   onegpu-info          text
//   onegpu-info --json   one JSON document
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "onegpu/onegpu.h"

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string features_json(onegpu::FeatureSet f) {
  std::string out = "[";
  bool first = true;
  for (uint32_t bit = 1; bit != 0 && bit <= f.bits(); bit <<= 1) {
    if (!(f.bits() & bit)) continue;
    out += (first ? "" : ", ") + json_string(onegpu::feature_name(static_cast<onegpu::ShaderFeature>(bit)));
    first = false;
  }
  return out + "]";
}

void print_json(const std::vector<onegpu::AdapterInfo>& adapters) {
  std::ostringstream o;
  o << "{\"backend\": \"" << onegpu::backend_name(onegpu::selected_backend()) << "\", \"adapters\": [";
  for (size_t i = 0; i < adapters.size(); ++i) {
    const auto& a = adapters[i];
    const auto& c = a.compute;
    o << (i ? ", " : "") << "{\"name\": " << json_string(a.name) << ", \"kind\": \""
      << onegpu::adapter_kind_name(a.kind) << "\", \"vendor_id\": " << a.vendor_id
      << ", \"device_id\": " << a.device_id << ", \"api_version\": \"" << a.api_version.to_string()
      << "\", \"driver_name\": " << json_string(a.driver_name) << ", \"driver_info\": " << json_string(a.driver_info)
      << ", \"surface_support\": " << (a.surface_support ? "true" : "false")
      << ", \"compute\": {\"subgroup_size\": " << c.subgroup_size << ", \"min_subgroup_size\": " << c.min_subgroup_size
      << ", \"max_subgroup_size\": " << c.max_subgroup_size << ", \"features\": " << features_json(c.features)
      << ", \"full_subgroups\": " << (c.full_subgroups ? "true" : "false")
      << ", \"subgroup_size_control\": " << (c.subgroup_size_control ? "true" : "false")
      << ", \"max_workgroup_size\": [" << c.max_workgroup_size[0] << ", " << c.max_workgroup_size[1] << ", "
      << c.max_workgroup_size[2] << "], \"max_workgroup_invocations\": " << c.max_workgroup_invocations
      << ", \"max_workgroup_count\": [" << c.max_workgroup_count[0] << ", " << c.max_workgroup_count[1] << ", "
      << c.max_workgroup_count[2] << "], \"max_workgroup_memory_bytes\": " << c.max_workgroup_memory_bytes
      << ", \"max_workgroup_subgroups\": " << c.max_workgroup_subgroups
      << ", \"max_push_constants_bytes\": " << c.max_push_constants_bytes
      << ", \"max_storage_buffer_range\": " << c.max_storage_buffer_range
      << ", \"max_memory_allocation_size\": " << c.max_memory_allocation_size
      << ", \"max_buffer_size\": " << c.max_buffer_size
      << ", \"min_storage_buffer_offset_alignment\": " << c.min_storage_buffer_offset_alignment
      << ", \"timestamps\": " << (c.timestamps ? "true" : "false")
      << ", \"timestamp_period_ns\": " << c.timestamp_period_ns << ", \"cooperative_matrix_shapes\": [";
    for (size_t j = 0; j < c.cooperative_matrix_shapes.size(); ++j) {
      const auto& s = c.cooperative_matrix_shapes[j];
      o << (j ? ", " : "") << "{\"m\": " << s.m << ", \"n\": " << s.n << ", \"k\": " << s.k << ", \"a\": \""
        << onegpu::data_type_name(s.a) << "\", \"b\": \"" << onegpu::data_type_name(s.b) << "\", \"c\": \""
        << onegpu::data_type_name(s.c) << "\", \"result\": \"" << onegpu::data_type_name(s.result)
        << "\", \"saturating\": " << (s.saturating_accumulation ? "true" : "false") << "}";
    }
    o << "], \"cooperative_matrix_workgroup_shapes\": [";
    for (size_t j = 0; j < c.cooperative_matrix_workgroup_shapes.size(); ++j) {
      const auto& s = c.cooperative_matrix_workgroup_shapes[j];
      o << (j ? ", " : "") << "{\"m_granularity\": " << s.m_granularity << ", \"n_granularity\": " << s.n_granularity
        << ", \"k_granularity\": " << s.k_granularity << ", \"a\": \"" << onegpu::data_type_name(s.a)
        << "\", \"b\": \"" << onegpu::data_type_name(s.b) << "\", \"c\": \"" << onegpu::data_type_name(s.c)
        << "\", \"result\": \"" << onegpu::data_type_name(s.result)
        << "\", \"workgroup_invocations\": " << s.workgroup_invocations << "}";
    }
    o << "], \"cooperative_matrix_workgroup_max_invocations\": " << c.cooperative_matrix_workgroup_max_invocations
      << ", \"cooperative_matrix_workgroup_reserved_memory_bytes\": "
      << c.cooperative_matrix_workgroup_reserved_memory_bytes;
    o << ", \"describe\": " << json_string(c.describe()) << "}}";
  }
  o << "]}\n";
  std::cout << o.str();
}

void print_text(const std::vector<onegpu::AdapterInfo>& adapters) {
  std::cout << "Backend: " << onegpu::backend_name(onegpu::selected_backend()) << ", " << adapters.size()
            << " adapter(s)\n";
  for (size_t i = 0; i < adapters.size(); ++i) {
    const auto& a = adapters[i];
    std::cout << "[" << i << "] " << a.name << " (" << onegpu::adapter_kind_name(a.kind) << ", " << onegpu::backend_name(a.backend) << " "
              << a.api_version.to_string() << ", " << a.driver_name << " " << a.driver_info << ")\n"
              << "    " << a.compute.describe() << "\n"
              << "    features: " << a.compute.features.to_string() << "\n"
              << "    surfaces (xcb): " << (a.surface_support ? "yes" : "no") << "\n";
    for (const auto& s : a.compute.cooperative_matrix_shapes)
      std::cout << "    coopmat " << s.m << "x" << s.n << "x" << s.k << " " << onegpu::data_type_name(s.a) << "*"
                << onegpu::data_type_name(s.b) << "+" << onegpu::data_type_name(s.c) << "->"
                << onegpu::data_type_name(s.result) << "\n";
    for (const auto& s : a.compute.cooperative_matrix_workgroup_shapes)
      std::cout << "    coopmat2 workgroup " << s.workgroup_invocations << ", multiples of " << s.m_granularity << "x"
                << s.n_granularity << "x" << s.k_granularity << " " << onegpu::data_type_name(s.a) << "*"
                << onegpu::data_type_name(s.b) << "+" << onegpu::data_type_name(s.c) << "->"
                << onegpu::data_type_name(s.result) << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool json = argc > 1 && std::string(argv[1]) == "--json";
  if (argc > 1 && !json) {
    std::cerr << "usage: onegpu-info [--json]\n";
    return 2;
  }
  try {
    auto adapters = onegpu::enumerate_adapters();
    if (json) print_json(adapters);
    else print_text(adapters);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "onegpu-info: " << e.what() << "\n";
    return 1;
  }
}
