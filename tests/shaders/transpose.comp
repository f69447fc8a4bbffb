#version 450
// out[c][r] = in[r][c] for a rows x cols matrix (tests of pass ordering).
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };
layout(push_constant) uniform Push { uint rows; uint cols; } pc;
void main() {
  uint r = gl_GlobalInvocationID.y, c = gl_GlobalInvocationID.x;
  if (r < pc.rows && c < pc.cols) dst[c * pc.rows + r] = src[r * pc.cols + c];
}
