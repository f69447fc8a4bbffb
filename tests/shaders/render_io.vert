#version 450
// Exercises the reflection of a vertex stage: inputs of every kind (a matrix takes two locations),
// outputs, built-ins (not listed), a uniform and a storage block, a push block shared with the
// fragment stage (render_io.frag).
layout(location = 0) in vec3 position;
layout(location = 1) in ivec2 cell;
layout(location = 2) in uvec4 ids;
layout(location = 3) in mat2 rotation;
layout(location = 5) in float weight;
layout(location = 0) out vec4 v_color;
layout(location = 1) flat out uint v_id;
layout(std140, binding = 0) uniform Camera { mat4 view; } camera;
layout(std430, binding = 1) readonly buffer Offsets { vec4 offsets[]; } offsets_buf;
layout(push_constant) uniform Push { vec4 tint; uint mode; } pc;
void main() {
  vec2 p = rotation * position.xy + vec2(cell);
  gl_Position = camera.view * vec4(p, position.z, 1.0) + offsets_buf.offsets[gl_VertexIndex];
  gl_PointSize = 1.0;
  v_color = pc.tint * weight;
  v_id = ids.x + ids.w + pc.mode;
}
