#version 450
#extension GL_EXT_bfloat16 : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { bfloat16_t v[]; };
layout(binding = 1) buffer C { float c[]; };
void main() {
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> t =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  t = setTensorLayoutDimensionNV(t, 32, 32);
  coopmat<bfloat16_t, gl_ScopeWorkgroup, 32, 32, gl_MatrixUseA> a;
  coopmat<bfloat16_t, gl_ScopeWorkgroup, 32, 32, gl_MatrixUseB> b;
  coopMatLoadTensorNV(a, v, 0, sliceTensorLayoutNV(t, 0, 32, 0, 32));
  coopMatLoadTensorNV(b, v, 1024, sliceTensorLayoutNV(t, 0, 32, 0, 32));
  coopmat<float, gl_ScopeWorkgroup, 32, 32, gl_MatrixUseAccumulator> acc =
      coopmat<float, gl_ScopeWorkgroup, 32, 32, gl_MatrixUseAccumulator>(0.0);
  acc = coopMatMulAdd(a, b, acc);
  coopMatStoreTensorNV(acc, c, 0, sliceTensorLayoutNV(t, 0, 32, 0, 32));
}
