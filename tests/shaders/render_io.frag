#version 450
// The fragment half of render_io.vert: two outputs (locations 0 and 2), a storage block it shares
// with the vertex stage and one it writes.
layout(location = 0) in vec4 v_color;
layout(location = 1) flat in uint v_id;
layout(location = 0) out vec4 color;
layout(location = 2) out uint id;
layout(std430, binding = 1) readonly buffer Offsets { vec4 offsets[]; } offsets_buf;
layout(std430, binding = 2) buffer Hits { uint hits[]; } hits_buf;
layout(push_constant) uniform Push { vec4 tint; uint mode; } pc;
void main() {
  color = v_color * pc.tint + offsets_buf.offsets[0];
  id = v_id;
  atomicAdd(hits_buf.hits[v_id % 4u], 1u);
}
