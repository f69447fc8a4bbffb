#version 450
// A 2D position per vertex, moved by an offset per instance.
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 offset;
void main() { gl_Position = vec4(position + offset, 0.0, 1.0); }
