#version 450
// A coloured 2D triangle: position and colour per vertex, an offset and depth for the draw.
layout(location = 0) in vec2 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
layout(push_constant) uniform Push { vec2 offset; float depth; } pc;
void main() {
  gl_Position = vec4(position + pc.offset, pc.depth, 1.0);
  v_color = color;
}
