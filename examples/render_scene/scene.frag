#version 450
#extension GL_GOOGLE_include_directive : require
// The scene's fragment stage: Lambert lighting with an ambient term over a mipmapped texture, and a
// little distance fog so the floor fades towards the horizon.
#include "scene_draw.glsl"

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 2) in float in_distance;

layout(set = 0, binding = 0) uniform Light {
  vec4 direction;  // xyz: towards the light, eye space
  vec4 color;      // rgb: the light's colour
  vec4 ambient;    // rgb: the ambient term
  vec4 fog;        // rgb: the fog's colour (the clear colour too), w: density per unit of distance
} light;
layout(set = 0, binding = 1) uniform sampler2D albedo;

layout(location = 0) out vec4 out_color;

void main() {
  const vec3 n = normalize(in_normal);
  const float diffuse = max(dot(n, normalize(light.direction.xyz)), 0.0);
  const vec3 base = texture(albedo, in_uv).rgb * draw.tint.rgb;
  const vec3 lit = base * (light.ambient.rgb + light.color.rgb * diffuse);
  const float fog = clamp(1.0 - exp(-light.fog.w * in_distance), 0.0, 1.0);
  out_color = vec4(mix(lit, light.fog.rgb, fog), 1.0);
}
