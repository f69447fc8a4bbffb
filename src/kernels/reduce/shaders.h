// The reduction family's shader variants by name (the list matches cmake/reduce_shaders.cmake).
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include "onegpu/shader.h"
#include "reduce_p0.h"
#include "reduce_p0_arg.h"
#include "reduce_p1.h"
#include "reduce_p1_sg.h"
#include "reduce_p1_arg.h"
#include "reduce_p2.h"
#include "reduce_p2_sg.h"
#include "reduce_p2_arg.h"
#include "reduce_p3.h"
#include "reduce_p3_sg.h"
#include "reduce_p3_arg.h"
#include "reduce_p4.h"
#include "reduce_p4_arg.h"
#include "reduce_p5.h"
#include "reduce_p5_arg.h"
#include "softmax_p0.h"
#include "softmax_p1_l1.h"
#include "softmax_p1_l2.h"
#include "softmax_p1_l4.h"
#include "softmax_p1_l8.h"
#include "softmax_p2.h"
#include "softmax_p2_sg.h"
#include "softmax_p3_sg.h"
#include "reduce_p6.h"
#include "norm.h"
#include "norm_sg.h"
namespace onegpu::kernels::reduce {
inline const ShaderSource& shader_by_name(std::string_view name) {  // only when a pipeline is built
  if (name == "reduce_p0") return shaders::reduce_p0::source();
  if (name == "reduce_p0_arg") return shaders::reduce_p0_arg::source();
  if (name == "reduce_p1") return shaders::reduce_p1::source();
  if (name == "reduce_p1_sg") return shaders::reduce_p1_sg::source();
  if (name == "reduce_p1_arg") return shaders::reduce_p1_arg::source();
  if (name == "reduce_p2") return shaders::reduce_p2::source();
  if (name == "reduce_p2_sg") return shaders::reduce_p2_sg::source();
  if (name == "reduce_p2_arg") return shaders::reduce_p2_arg::source();
  if (name == "reduce_p3") return shaders::reduce_p3::source();
  if (name == "reduce_p3_sg") return shaders::reduce_p3_sg::source();
  if (name == "reduce_p3_arg") return shaders::reduce_p3_arg::source();
  if (name == "reduce_p4") return shaders::reduce_p4::source();
  if (name == "reduce_p4_arg") return shaders::reduce_p4_arg::source();
  if (name == "reduce_p5") return shaders::reduce_p5::source();
  if (name == "reduce_p5_arg") return shaders::reduce_p5_arg::source();
  if (name == "softmax_p0") return shaders::softmax_p0::source();
  if (name == "softmax_p1_l1") return shaders::softmax_p1_l1::source();
  if (name == "softmax_p1_l2") return shaders::softmax_p1_l2::source();
  if (name == "softmax_p1_l4") return shaders::softmax_p1_l4::source();
  if (name == "softmax_p1_l8") return shaders::softmax_p1_l8::source();
  if (name == "softmax_p2") return shaders::softmax_p2::source();
  if (name == "softmax_p2_sg") return shaders::softmax_p2_sg::source();
  if (name == "softmax_p3_sg") return shaders::softmax_p3_sg::source();
  if (name == "reduce_p6") return shaders::reduce_p6::source();
  if (name == "norm") return shaders::norm::source();
  if (name == "norm_sg") return shaders::norm_sg::source();
  throw std::logic_error("reduce: no shader variant named " + std::string(name));
}
}  // namespace onegpu::kernels::reduce
