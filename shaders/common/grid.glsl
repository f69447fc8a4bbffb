// Linear workgroup index for grids folded into two dimensions (onegpu::linear_grid): grids of
// more than 65535 workgroups run as rows of gl_NumWorkGroups.x.
#ifndef ONEGPU_GRID_GLSL
#define ONEGPU_GRID_GLSL
#ifdef OG_WEBGPU
// Expanded in place: a function of its own would read the built-ins through the private copies
// naga makes of them, which WGSL takes as non-uniform (tools/spirv_to_wgsl/spirv_to_wgsl.mjs).
#define og_workgroup_index() (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x)
#else
uint og_workgroup_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
#endif
#endif
