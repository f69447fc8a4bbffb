#version 450
// Counts the fragments of each pixel in a buffer of width x height counters (a render pass
// without attachments).
layout(std430, binding = 0) buffer Hits { uint hits[]; };
layout(push_constant) uniform Push { uint width; } pc;
void main() { atomicAdd(hits[uint(gl_FragCoord.y) * pc.width + uint(gl_FragCoord.x)], 1u); }
