#version 450
// A workgroup no device offers (tests of the capability checks).
layout(local_size_x = 1024, local_size_y = 1024) in;
layout(std430, binding = 0) buffer Data { uint data[]; };
void main() { data[0] = 1u; }
