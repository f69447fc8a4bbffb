#version 450
#extension GL_GOOGLE_include_directive : require
// The scene's vertex stage: object-space position, normal and texture coordinate in; clip-space
// position, eye-space normal, coordinate and distance from the eye out.
#include "scene_draw.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;

layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec2 out_uv;
layout(location = 2) out float out_distance;

void main() {
  const vec4 p = vec4(in_position, 1.0);
  gl_Position = draw.model_view_projection * p;
  const vec3 eye = vec3(dot(draw.model_view_rows[0], p), dot(draw.model_view_rows[1], p), dot(draw.model_view_rows[2], p));
  out_normal = vec3(dot(draw.model_view_rows[0].xyz, in_normal), dot(draw.model_view_rows[1].xyz, in_normal),
                    dot(draw.model_view_rows[2].xyz, in_normal));
  out_uv = in_uv;
  out_distance = length(eye);
}
