#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { float16_t v[]; };
void main() {
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> t =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  t = setTensorLayoutDimensionNV(t, 32, 32);
  coopmat<float16_t, gl_ScopeWorkgroup, 32, 32, gl_MatrixUseA> a;
  coopMatLoadTensorNV(a, v, 0, sliceTensorLayoutNV(t, 0, 32, 0, 32));
  coopMatStoreTensorNV(a, v, 1024, sliceTensorLayoutNV(t, 0, 32, 0, 32));
}
