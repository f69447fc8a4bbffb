#version 450
// One small shape drawn many times: the shape per vertex; offset, scale and colour per instance.
layout(location = 0) in vec2 position;
layout(location = 1) in vec4 placement;  // xy: offset, z: scale, w: rotation in radians
layout(location = 2) in vec4 color;
layout(location = 0) out vec4 v_color;
void main() {
  const float c = cos(placement.w), s = sin(placement.w);
  const vec2 p = mat2(c, s, -s, c) * position * placement.z + placement.xy;
  gl_Position = vec4(p, 0.5, 1.0);
  v_color = color;
}
