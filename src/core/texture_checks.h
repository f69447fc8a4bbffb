// Decisions about textures that need no GPU: descriptor checks against the capabilities, mip
// extents, region resolution and byte counts, buffer layouts of copies, sampler descriptors and
// whether a texture fits a kernel's binding. Plain functions over plain structs, tested without a
// device; every size is computed in overflow-checked 64-bit arithmetic.
#pragma once

#include <cstdint>
#include <string>

#include "onegpu/capabilities.h"
#include "onegpu/shader.h"
#include "onegpu/texture.h"

namespace onegpu::core {

// floor(log2(largest extent)) + 1: the most mips a texture of these extents can have.
uint32_t max_mip_levels(const TextureDescriptor& d);

// Layers of the texture (6 for cube, depth_or_layers for d2_array, else 1) and its depth (d3 only).
uint32_t layer_count(const TextureDescriptor& d);
Extent3 mip_extent(const TextureDescriptor& d, uint32_t mip);

// Throws KernelShapeError (operation "create_texture") or UnsupportedError.
void check_texture_descriptor(const TextureDescriptor& d, const TextureCapabilities& caps);

// A region with every zero extent resolved and every bound checked.
struct ResolvedRegion {
  uint32_t mip = 0, layer = 0, layers = 1;
  uint32_t x = 0, y = 0, z = 0;
  uint32_t width = 0, height = 0, depth = 0;
};
// Resolves zero extents to the mip's edge and checks the region lies inside the texture (mip,
// layers, texels). Throws KernelShapeError(operation, argument).
ResolvedRegion resolve_region(const TextureDescriptor& d, const TextureRegion& r, const char* operation,
                              const char* argument);
// Bytes of the region tightly packed (texel size x width x height x depth x layers).
uint64_t packed_bytes(const TextureDescriptor& d, const ResolvedRegion& r);

// Throws when the format has no byte layout a copy can move (UnsupportedError "copyable format"),
// or the texture is multisampled (KernelShapeError "sample_count"), or lacks `usage`
// (KernelShapeError "usage").
void check_copyable(const TextureDescriptor& d, TextureUsage usage, const char* operation, const char* argument);

// A buffer layout resolved for a region: rows of bytes_per_row, images of rows_per_image rows.
struct ResolvedLayout {
  uint64_t offset = 0;
  uint64_t bytes_per_row = 0;
  uint64_t rows_per_image = 0;
  uint64_t bytes = 0;  // the extent the copy touches, from offset
};
// Checks alignment (offset a multiple of 4 and of the texel size, bytes_per_row of the texel size),
// that rows and images are no shorter than the region's, and that the bytes lie inside a buffer
// of `buffer_bytes`. Throws KernelShapeError(operation, "layout").
ResolvedLayout resolve_layout(const TextureDescriptor& d, const ResolvedRegion& r, const BufferTextureLayout& l,
                              uint64_t buffer_bytes, const char* operation);

// Checks the destination of a texture-to-texture copy of `src` (same format and sample count,
// destination region inside its mip, no overlap when both are one texture) and returns it.
ResolvedRegion resolve_copy_destination(const TextureDescriptor& src_desc, const ResolvedRegion& src,
                                        const TextureDescriptor& dst_desc, const TextureOrigin& o,
                                        bool same_texture);

// generate_mipmaps: usage copy_src|copy_dst, a format the device blits with a linear filter, one
// sample. Throws KernelShapeError or UnsupportedError (operation "generate_mipmaps").
void check_mipmap_generation(const TextureDescriptor& d, const TextureCapabilities& caps);

// Throws KernelShapeError (operation "create_sampler") or UnsupportedError.
void check_sampler_descriptor(const SamplerDescriptor& s, const TextureCapabilities& caps);

// A texture binding with its counts resolved (mips and layers).
struct ResolvedView {
  TextureViewDimension dimension = TextureViewDimension::d2;
  uint32_t base_mip = 0, mip_count = 0, base_layer = 0, layer_count = 0;
};
// Whether `texture` (its descriptor, and the sampler's when there is one) fits the shader binding
// `b` (a sampled or storage texture). `arg` names the binding ("binding 3"). Throws
// KernelShapeError(operation "bind", arg) or UnsupportedError.
ResolvedView check_texture_binding(const ShaderBinding& b, const std::string& arg, const TextureDescriptor& texture,
                                   const TextureBinding& binding, const SamplerDescriptor* sampler,
                                   const TextureCapabilities& caps);

}  // namespace onegpu::core
