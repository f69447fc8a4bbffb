#version 450
// Cube sampling binding for the binding checks (a cube binding needs a cube texture).
layout(local_size_x = 1) in;
layout(binding = 0) uniform samplerCube tex;
layout(std430, binding = 1) writeonly buffer Out { vec4 result[]; };
void main() { result[0] = textureLod(tex, vec3(1, 0, 0), 0); }
