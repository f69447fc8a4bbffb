#version 450
// One unsigned output: the fragment stage of an r32_uint target.
layout(location = 0) in vec4 v_color;
layout(location = 0) out uint value;
void main() { value = uint(v_color.x * 255.0); }
