#version 450
// Copies the texel under each fragment from a sampled texture to the colour target.
layout(binding = 0) uniform sampler2D src;
layout(location = 0) out vec4 out_color;
void main() { out_color = texelFetch(src, ivec2(gl_FragCoord.xy), 0); }
