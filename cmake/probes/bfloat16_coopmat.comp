#version 450
#extension GL_EXT_bfloat16 : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(binding = 0) buffer B { uvec4 v[]; };
layout(binding = 1) buffer C { float c[]; };
void main() {
  coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
  coopmat<bfloat16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b;
  coopMatLoad(a, v, 0, 2, gl_CooperativeMatrixLayoutRowMajor);
  coopMatLoad(b, v, 32, 2, gl_CooperativeMatrixLayoutRowMajor);
  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
      coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
  acc = coopMatMulAdd(a, b, acc);
  coopMatStore(acc, c, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
