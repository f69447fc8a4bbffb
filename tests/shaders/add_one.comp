#version 450
// data[i] += 1 for i < count; the count is read from the buffer's header word 0.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { uint count; uint data[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < count) data[i] += 1u;
}
