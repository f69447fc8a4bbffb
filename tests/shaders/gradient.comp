#version 450
// A picture for the golden-image test: red and green ramps across x and y, an 8 x 8 checkerboard
// in blue, opaque; one packed rgba8 texel (r in the low byte) per invocation.
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) writeonly buffer Pixels { uint pixels[]; };
layout(push_constant) uniform Push { uint width, height; } pc;
void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  vec2 ramp = vec2(p) / vec2(pc.width - 1u, pc.height - 1u);
  float checker = float(((p.x >> 3) + (p.y >> 3)) & 1u);
  pixels[p.y * pc.width + p.x] = packUnorm4x8(vec4(ramp, 0.25 + 0.5 * checker, 1.0));
}
