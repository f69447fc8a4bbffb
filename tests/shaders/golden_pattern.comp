#version 450
// Writes a picture into an rgba8 storage texture: rings around the centre in red, ramps in green
// and blue.
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba8) uniform writeonly image2D img;
layout(push_constant) uniform Push { uint width; uint height; } pc;
void main() {
  const uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  const vec2 d = vec2(p) + 0.5 - 0.5 * vec2(pc.width, pc.height);
  const float ring = float((uint(length(d)) / 3u) & 1u);
  imageStore(img, ivec2(p), vec4(ring, float(p.x) / float(pc.width - 1), float(p.y) / float(pc.height - 1), 1.0));
}
