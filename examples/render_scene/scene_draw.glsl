// The scene's push constants (128 bytes, the size every Vulkan device offers), shared by both stages.
layout(push_constant) uniform Draw {
  mat4 model_view_projection;
  // Rows of the model-view matrix's upper 3 x 4 part (rotation and translation only, so its 3 x 3
  // part also turns normals): eye = vec3(dot(rows[0], p), dot(rows[1], p), dot(rows[2], p)).
  vec4 model_view_rows[3];
  vec4 tint;  // rgb multiplies the texture: each object's colour
} draw;
