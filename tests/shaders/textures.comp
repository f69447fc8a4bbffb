#version 450
// Every kind of texture and sampler binding, beside a storage buffer: the reflection must name
// them and the device must refuse the kernel until the library has textures.
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform sampler2D combined;
layout(binding = 1, rgba8) uniform writeonly image2D storage_out;
layout(binding = 2) uniform texture2D separate;
layout(binding = 3) uniform sampler linear_sampler;
layout(binding = 4, r32f) uniform readonly image2D storage_in;
layout(std430, binding = 5) writeonly buffer Out { vec4 result[]; };
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec4 v = texelFetch(combined, p, 0) + texture(sampler2D(separate, linear_sampler), vec2(0.5)) +
           imageLoad(storage_in, p);
  imageStore(storage_out, p, v);
  result[p.x] = v;
}
