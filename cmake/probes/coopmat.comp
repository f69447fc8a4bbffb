#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(binding = 0) buffer B { float16_t v[]; };
void main() {
  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
  coopMatLoad(a, v, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
  coopMatStore(a, v, 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}
