#version 450
// Writes a pattern into a storage texture: texel (x, y) = (x * scale, y, x + y, seed).
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba32f) uniform writeonly image2D img;
layout(push_constant) uniform Push { uint width; uint height; float scale; float seed; } pc;
void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  imageStore(img, ivec2(p), vec4(float(p.x) * pc.scale, float(p.y), float(p.x + p.y), pc.seed));
}
