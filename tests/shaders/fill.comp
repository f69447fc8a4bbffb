#version 450
// data[i] = value + i * step over `count` elements, with a linear grid of 64-wide workgroups.
#extension GL_GOOGLE_include_directive : require
#include "common/grid.glsl"
#include "fill_push.h"
layout(local_size_x = 64) in;
layout(std430, binding = 0) writeonly buffer Data { uint data[]; };
layout(push_constant) uniform Push { FillPush pc; };
void main() {
  uint i = og_workgroup_index() * 64u + gl_LocalInvocationID.x;
  if (i < pc.count) data[i] = pc.value + i * pc.step;
}
