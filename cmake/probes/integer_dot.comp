#version 450
#extension GL_EXT_integer_dot_product : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer B { int v[]; };
void main() { v[0] = dotPacked4x8EXT(v[1], v[2]); }
