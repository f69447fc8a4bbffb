// The element-wise family's shader variants (GROUP x BCAST, see CMakeLists.txt).
#pragma once
#include <stdexcept>
#include "onegpu/shader.h"
#include "elementwise_g0_b0.h"
#include "elementwise_g0_b1.h"
#include "elementwise_g0_b2.h"
#include "elementwise_g1_b0.h"
#include "elementwise_g1_b1.h"
#include "elementwise_g1_b2.h"
#include "elementwise_g2_b0.h"
#include "elementwise_g2_b1.h"
#include "elementwise_g2_b2.h"
#include "elementwise_g3_b0.h"
#include "elementwise_g3_b1.h"
#include "elementwise_g3_b2.h"
#include "elementwise_g4_b0.h"
#include "elementwise_g4_b1.h"
#include "elementwise_g4_b2.h"
namespace onegpu::kernels::elementwise {
inline const char* shader_name(uint32_t group, uint32_t bcast) {
  static const char* names[5][3] = {
      {"elementwise_g0_b0", "elementwise_g0_b1", "elementwise_g0_b2"},
      {"elementwise_g1_b0", "elementwise_g1_b1", "elementwise_g1_b2"},
      {"elementwise_g2_b0", "elementwise_g2_b1", "elementwise_g2_b2"},
      {"elementwise_g3_b0", "elementwise_g3_b1", "elementwise_g3_b2"},
      {"elementwise_g4_b0", "elementwise_g4_b1", "elementwise_g4_b2"},
  };
  return group < 5 && bcast < 3 ? names[group][bcast] : "";
}

inline const ShaderSource& shader(uint32_t group, uint32_t bcast) {
  using Source = const ShaderSource& (*)();
  static const Source table[5][3] = {
      {&shaders::elementwise_g0_b0::source, &shaders::elementwise_g0_b1::source, &shaders::elementwise_g0_b2::source},
      {&shaders::elementwise_g1_b0::source, &shaders::elementwise_g1_b1::source, &shaders::elementwise_g1_b2::source},
      {&shaders::elementwise_g2_b0::source, &shaders::elementwise_g2_b1::source, &shaders::elementwise_g2_b2::source},
      {&shaders::elementwise_g3_b0::source, &shaders::elementwise_g3_b1::source, &shaders::elementwise_g3_b2::source},
      {&shaders::elementwise_g4_b0::source, &shaders::elementwise_g4_b1::source, &shaders::elementwise_g4_b2::source},
  };
  if (group >= 5 || bcast >= 3) throw std::logic_error("elementwise: no such variant");
  return table[group][bcast]();
}
}  // namespace onegpu::kernels::elementwise
