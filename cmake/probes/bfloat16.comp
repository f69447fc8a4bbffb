#version 450
#extension GL_EXT_bfloat16 : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer B { float v[]; };
void main() { bfloat16_t x = bfloat16_t(v[0]); v[1] = float(x); }
