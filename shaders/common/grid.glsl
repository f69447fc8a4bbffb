// Linear workgroup index for grids folded into two dimensions (onegpu::linear_grid): grids of
// more than 65535 workgroups run as rows of gl_NumWorkGroups.x.
#ifndef ONEGPU_GRID_GLSL
#define ONEGPU_GRID_GLSL
uint og_workgroup_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
#endif
