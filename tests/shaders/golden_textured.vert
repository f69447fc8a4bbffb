#version 450
// A textured 2D mesh: position and texture coordinate per vertex.
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec2 v_uv;
void main() {
  gl_Position = vec4(position, 0.5, 1.0);
  v_uv = uv;
}
