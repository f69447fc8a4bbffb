// The element-wise family's shader variants (GROUP x BCAST x FIXED, see CMakeLists.txt).
#pragma once
#include <stdexcept>
#include "onegpu/shader.h"
#include "elementwise_g0_b0_f0.h"
#include "elementwise_g0_b0_f1.h"
#include "elementwise_g0_b1_f0.h"
#include "elementwise_g0_b1_f1.h"
#include "elementwise_g0_b2_f0.h"
#include "elementwise_g0_b2_f1.h"
#include "elementwise_g1_b0_f0.h"
#include "elementwise_g1_b0_f1.h"
#include "elementwise_g1_b0_f2.h"
#include "elementwise_g1_b1_f0.h"
#include "elementwise_g1_b1_f1.h"
#include "elementwise_g1_b1_f2.h"
#include "elementwise_g1_b2_f0.h"
#include "elementwise_g1_b2_f1.h"
#include "elementwise_g1_b2_f2.h"
#include "elementwise_g2_b0_f0.h"
#include "elementwise_g2_b1_f0.h"
#include "elementwise_g2_b2_f0.h"
#include "elementwise_g3_b0_f0.h"
#include "elementwise_g3_b0_f1.h"
#include "elementwise_g3_b0_f2.h"
#include "elementwise_g3_b1_f0.h"
#include "elementwise_g3_b1_f1.h"
#include "elementwise_g3_b1_f2.h"
#include "elementwise_g3_b2_f0.h"
#include "elementwise_g3_b2_f1.h"
#include "elementwise_g3_b2_f2.h"
#include "elementwise_g4_b0_f0.h"
#include "elementwise_g4_b1_f0.h"
#include "elementwise_g4_b2_f0.h"
namespace onegpu::kernels::elementwise {

// The variant for a group, broadcast path and fixed operand type; nullptr where none is built.
inline const ShaderSource* shader(uint32_t group, uint32_t bcast, uint32_t fixed) {
  using Source = const ShaderSource& (*)();
  static const Source table[5][3][3] = {
      {
          {&shaders::elementwise_g0_b0_f0::source, &shaders::elementwise_g0_b0_f1::source, nullptr},
          {&shaders::elementwise_g0_b1_f0::source, &shaders::elementwise_g0_b1_f1::source, nullptr},
          {&shaders::elementwise_g0_b2_f0::source, &shaders::elementwise_g0_b2_f1::source, nullptr},
      },
      {
          {&shaders::elementwise_g1_b0_f0::source, &shaders::elementwise_g1_b0_f1::source, &shaders::elementwise_g1_b0_f2::source},
          {&shaders::elementwise_g1_b1_f0::source, &shaders::elementwise_g1_b1_f1::source, &shaders::elementwise_g1_b1_f2::source},
          {&shaders::elementwise_g1_b2_f0::source, &shaders::elementwise_g1_b2_f1::source, &shaders::elementwise_g1_b2_f2::source},
      },
      {
          {&shaders::elementwise_g2_b0_f0::source, nullptr, nullptr},
          {&shaders::elementwise_g2_b1_f0::source, nullptr, nullptr},
          {&shaders::elementwise_g2_b2_f0::source, nullptr, nullptr},
      },
      {
          {&shaders::elementwise_g3_b0_f0::source, &shaders::elementwise_g3_b0_f1::source, &shaders::elementwise_g3_b0_f2::source},
          {&shaders::elementwise_g3_b1_f0::source, &shaders::elementwise_g3_b1_f1::source, &shaders::elementwise_g3_b1_f2::source},
          {&shaders::elementwise_g3_b2_f0::source, &shaders::elementwise_g3_b2_f1::source, &shaders::elementwise_g3_b2_f2::source},
      },
      {
          {&shaders::elementwise_g4_b0_f0::source, nullptr, nullptr},
          {&shaders::elementwise_g4_b1_f0::source, nullptr, nullptr},
          {&shaders::elementwise_g4_b2_f0::source, nullptr, nullptr},
      },
  };
  if (group >= 5 || bcast >= 3 || fixed >= 3 || table[group][bcast][fixed] == nullptr) return nullptr;
  return &table[group][bcast][fixed]();
}

}  // namespace onegpu::kernels::elementwise
