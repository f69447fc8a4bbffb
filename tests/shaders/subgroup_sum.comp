#version 450
// out[workgroup] = sum of in over the workgroup through subgroup arithmetic (pinned widths).
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) buffer Dst { uint dst[]; };
shared uint partial[64];
void main() {
  uint s = subgroupAdd(src[gl_GlobalInvocationID.x]);
  if (subgroupElect()) partial[gl_SubgroupID] = s;
  barrier();
  if (gl_LocalInvocationID.x == 0u) {
    uint t = 0u;
    for (uint i = 0u; i < gl_NumSubgroups; ++i) t += partial[i];
    dst[gl_WorkGroupID.x] = t;
    dst[gl_NumWorkGroups.x + gl_WorkGroupID.x] = gl_SubgroupSize;
  }
}
