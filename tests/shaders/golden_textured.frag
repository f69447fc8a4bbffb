#version 450
// Samples the bound texture with the bound sampler (its filters and mips decide the result).
layout(binding = 0) uniform sampler2D tex;
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 out_color;
void main() { out_color = texture(tex, v_uv); }
