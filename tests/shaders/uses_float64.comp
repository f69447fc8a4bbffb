#version 450
// Declares the Float64 capability (tests of the capability checks).
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { double data[]; };
void main() { data[0] = data[1] * 2.0lf; }
