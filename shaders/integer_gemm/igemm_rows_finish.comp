#version 450
// The rows kernel's second pass when it splits k: one invocation per output adds the slices'
// int32 results (binding 0, [slice][batch][m][n], each with its zero-point terms applied; integer
// additions, the same in any order) and stores the sum in the int32 or float-scaled form.
#extension GL_GOOGLE_include_directive : require
#include "integer_gemm/igemm_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(IntegerGemmPush, p);
#include "integer_gemm/igemm_io.glsl"

void main() {
  const uint t = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  const uint outputs = p.batch * p.m * p.n;
  if (t >= outputs) return;
  int sum = 0;
  for (uint s = 0u; s < p.splits; ++s) sum += int(a_words[s * outputs + t]);
  const uint col = t % p.n, line = t / p.n;
  store_output(line / p.m, line % p.m, col, sum);
}
