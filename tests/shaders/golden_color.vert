#version 450
// A coloured mesh with per-vertex depth: position (x, y, depth) and colour per vertex.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
void main() {
  gl_Position = vec4(position, 1.0);
  v_color = color;
}
