#include "core/texture_checks.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "onegpu/errors.h"

namespace onegpu::core {
namespace {

std::string str(uint64_t v) { return std::to_string(v); }

// a * b, or an error when it does not fit 64 bits.
uint64_t mul(uint64_t a, uint64_t b, const char* operation, const char* argument) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a)
    throw KernelShapeError(operation, argument, str(a) + " x " + str(b) + " overflows 64 bits");
  return a * b;
}
uint64_t add(uint64_t a, uint64_t b, const char* operation, const char* argument) {
  if (b > std::numeric_limits<uint64_t>::max() - a)
    throw KernelShapeError(operation, argument, str(a) + " + " + str(b) + " overflows 64 bits");
  return a + b;
}

bool is_layered(TextureDimension d) { return d == TextureDimension::d2_array || d == TextureDimension::cube; }

}  // namespace

uint32_t layer_count(const TextureDescriptor& d) { return is_layered(d.dimension) ? d.depth_or_layers : 1; }

uint32_t max_mip_levels(const TextureDescriptor& d) {
  uint32_t largest = std::max(d.width, d.height);
  if (d.dimension == TextureDimension::d3) largest = std::max(largest, d.depth_or_layers);
  return largest == 0 ? 0 : static_cast<uint32_t>(std::bit_width(largest));
}

Extent3 mip_extent(const TextureDescriptor& d, uint32_t mip) {
  auto shrink = [mip](uint32_t v) { return mip >= 32 ? 1u : std::max(1u, v >> mip); };
  return {shrink(d.width), shrink(d.height), d.dimension == TextureDimension::d3 ? shrink(d.depth_or_layers) : 1u};
}

void check_texture_descriptor(const TextureDescriptor& d, const TextureCapabilities& caps) {
  const char* op = "create_texture";
  const uint32_t fi = static_cast<uint32_t>(d.format);
  if (fi >= kTextureFormatCount) throw KernelShapeError(op, "format", "unknown format code " + str(fi));
  if (d.width == 0 || d.height == 0 || d.depth_or_layers == 0)
    throw KernelShapeError(op, "extent", str(d.width) + " x " + str(d.height) + " x " + str(d.depth_or_layers) +
                                             " has a zero extent");
  const std::string fmt(format_name(d.format));
  switch (d.dimension) {
    case TextureDimension::d2:
      if (d.depth_or_layers != 1)
        throw KernelShapeError(op, "depth_or_layers", "a d2 texture has 1 layer, not " + str(d.depth_or_layers));
      [[fallthrough]];
    case TextureDimension::d2_array:
      if (d.width > caps.max_texture_2d || d.height > caps.max_texture_2d)
        throw UnsupportedError("max_texture_2d", str(std::max(d.width, d.height)), str(caps.max_texture_2d));
      if (d.depth_or_layers > caps.max_texture_layers)
        throw UnsupportedError("max_texture_layers", str(d.depth_or_layers), str(caps.max_texture_layers));
      break;
    case TextureDimension::cube:
      if (d.depth_or_layers != 6)
        throw KernelShapeError(op, "depth_or_layers", "a cube texture has 6 layers, not " + str(d.depth_or_layers));
      if (d.width != d.height)
        throw KernelShapeError(op, "extent", "cube faces must be square, not " + str(d.width) + " x " + str(d.height));
      if (d.width > caps.max_texture_cube)
        throw UnsupportedError("max_texture_cube", str(d.width), str(caps.max_texture_cube));
      break;
    case TextureDimension::d3:
      if (is_depth_format(d.format)) throw KernelShapeError(op, "dimension", "a depth format cannot be d3");
      if (std::max({d.width, d.height, d.depth_or_layers}) > caps.max_texture_3d)
        throw UnsupportedError("max_texture_3d", str(std::max({d.width, d.height, d.depth_or_layers})),
                               str(caps.max_texture_3d));
      break;
    default: throw KernelShapeError(op, "dimension", "unknown dimension code " + str(uint32_t(d.dimension)));
  }
  const uint32_t most = max_mip_levels(d);
  if (d.mip_levels == 0 || d.mip_levels > most)
    throw KernelShapeError(op, "mip_levels", str(d.mip_levels) + " is outside 1.." + str(most) + " for " +
                                                 str(d.width) + " x " + str(d.height) + " x " + str(d.depth_or_layers));
  const uint32_t known = static_cast<uint32_t>(TextureUsage::copy_src | TextureUsage::copy_dst | TextureUsage::sampled |
                                               TextureUsage::storage | TextureUsage::render_target);
  const uint32_t u = static_cast<uint32_t>(d.usage);
  if (u == 0) throw KernelShapeError(op, "usage", "the usage is empty");
  if (u & ~known) throw KernelShapeError(op, "usage", "unknown usage bits " + str(u & ~known));
  if (d.sample_count != 1 && d.sample_count != 4)
    throw KernelShapeError(op, "sample_count", str(d.sample_count) + " is neither 1 nor 4");
  const FormatCapabilities& f = caps.format(d.format);
  if (d.format == TextureFormat::depth24_stencil8 && !caps.depth24_stencil8)
    throw UnsupportedError("depth24_stencil8", "supported", "not supported");
  if (d.sample_count == 4) {
    if (d.mip_levels != 1) throw KernelShapeError(op, "sample_count", "a 4-sample texture has 1 mip, not " + str(d.mip_levels));
    if (d.dimension != TextureDimension::d2)
      throw KernelShapeError(op, "sample_count", std::string("a 4-sample texture is d2, not ") + texture_dimension_name(d.dimension));
    if (has(d.usage, TextureUsage::storage)) throw KernelShapeError(op, "sample_count", "a 4-sample texture cannot be storage");
    if (!has(d.usage, TextureUsage::render_target))
      throw KernelShapeError(op, "sample_count", "a 4-sample texture must be a render_target");
    if (!f.multisample) throw UnsupportedError(fmt + " multisample", "supported", "not supported");
  }
  if ((has(d.usage, TextureUsage::copy_src) || has(d.usage, TextureUsage::copy_dst)) && !f.copy)
    throw UnsupportedError(fmt + " copy", "supported", "not supported");
  if (has(d.usage, TextureUsage::sampled) && !f.sampled) throw UnsupportedError(fmt + " sampled", "supported", "not supported");
  if (has(d.usage, TextureUsage::storage) && !f.storage) throw UnsupportedError(fmt + " storage", "supported", "not supported");
  if (has(d.usage, TextureUsage::render_target) && !f.render_target)
    throw UnsupportedError(fmt + " render_target", "supported", "not supported");
  if (has(d.usage, TextureUsage::render_target) && d.dimension == TextureDimension::d3)
    throw KernelShapeError(op, "usage", "a d3 texture cannot be a render_target");
}

ResolvedRegion resolve_region(const TextureDescriptor& d, const TextureRegion& r, const char* op, const char* arg) {
  if (r.mip >= d.mip_levels)
    throw KernelShapeError(op, arg, "mip " + str(r.mip) + " is past the texture's " + str(d.mip_levels) + " mips");
  const uint32_t layers = layer_count(d);
  if (r.layers == 0) throw KernelShapeError(op, arg, "the region has no layers");
  if (uint64_t(r.layer) + r.layers > layers)
    throw KernelShapeError(op, arg, "layers [" + str(r.layer) + ", " + str(uint64_t(r.layer) + r.layers) +
                                        ") are outside the texture's " + str(layers));
  const Extent3 e = mip_extent(d, r.mip);
  ResolvedRegion out{r.mip, r.layer, r.layers, r.x, r.y, r.z, r.width, r.height, r.depth};
  const uint32_t edge[3] = {e.width, e.height, e.depth};
  const uint32_t origin[3] = {r.x, r.y, r.z};
  uint32_t* extent[3] = {&out.width, &out.height, &out.depth};
  static const char* kAxis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (origin[i] >= edge[i])
      throw KernelShapeError(op, arg, std::string(kAxis[i]) + " = " + str(origin[i]) + " is outside mip " + str(r.mip) +
                                          " (" + str(e.width) + " x " + str(e.height) + " x " + str(e.depth) + ")");
    if (*extent[i] == 0) *extent[i] = edge[i] - origin[i];
    if (uint64_t(origin[i]) + *extent[i] > edge[i])
      throw KernelShapeError(op, arg, std::string(kAxis[i]) + " range [" + str(origin[i]) + ", " +
                                          str(uint64_t(origin[i]) + *extent[i]) + ") is outside mip " + str(r.mip) + " (" +
                                          str(e.width) + " x " + str(e.height) + " x " + str(e.depth) + ")");
  }
  return out;
}

uint64_t packed_bytes(const TextureDescriptor& d, const ResolvedRegion& r) {
  const char* op = "region";
  uint64_t n = mul(format_info(d.format).bytes_per_texel, r.width, op, "width");
  n = mul(n, r.height, op, "height");
  n = mul(n, r.depth, op, "depth");
  return mul(n, r.layers, op, "layers");
}

void check_copyable(const TextureDescriptor& d, TextureUsage usage, const char* op, const char* arg) {
  if (format_info(d.format).bytes_per_texel == 0)
    throw UnsupportedError("copyable format", "a format with a byte layout", std::string(format_name(d.format)));
  if (d.sample_count != 1)
    throw KernelShapeError(op, arg, "a " + str(d.sample_count) + "-sample texture cannot be copied");
  if (!has(d.usage, usage))
    throw KernelShapeError(op, arg, "the texture's usage (" + texture_usage_names(d.usage) + ") lacks " +
                                        texture_usage_names(usage));
}

ResolvedLayout resolve_layout(const TextureDescriptor& d, const ResolvedRegion& r, const BufferTextureLayout& l,
                              uint64_t buffer_bytes, const char* op) {
  const uint64_t texel = format_info(d.format).bytes_per_texel;
  const char* arg = "layout";
  if (l.offset % 4 != 0 || l.offset % texel != 0)
    throw KernelShapeError(op, arg, "offset " + str(l.offset) + " is not a multiple of 4 and of the texel size " + str(texel));
  const uint64_t row = mul(texel, r.width, op, arg);
  ResolvedLayout out;
  out.offset = l.offset;
  out.bytes_per_row = l.bytes_per_row == 0 ? row : l.bytes_per_row;
  out.rows_per_image = l.rows_per_image == 0 ? r.height : l.rows_per_image;
  if (out.bytes_per_row < row)
    throw KernelShapeError(op, arg, "bytes_per_row " + str(out.bytes_per_row) + " is less than a row of the region (" +
                                        str(row) + " bytes)");
  if (out.bytes_per_row % texel != 0)
    throw KernelShapeError(op, arg, "bytes_per_row " + str(out.bytes_per_row) + " is not a multiple of the texel size " +
                                        str(texel));
  if (out.rows_per_image < r.height)
    throw KernelShapeError(op, arg, "rows_per_image " + str(out.rows_per_image) + " is less than the region's height " +
                                        str(r.height));
  // The last image's last row ends the range: images before it are whole.
  const uint64_t images = mul(r.depth, r.layers, op, arg);
  const uint64_t image_bytes = mul(out.bytes_per_row, out.rows_per_image, op, arg);
  uint64_t bytes = mul(image_bytes, images - 1, op, arg);
  bytes = add(bytes, mul(out.bytes_per_row, r.height - 1, op, arg), op, arg);
  out.bytes = add(bytes, row, op, arg);
  if (l.offset > buffer_bytes || out.bytes > buffer_bytes - l.offset)
    throw KernelShapeError(op, arg, "bytes [" + str(l.offset) + ", " + str(l.offset) + " + " + str(out.bytes) +
                                        ") are outside the buffer of " + str(buffer_bytes) + " bytes");
  return out;
}

ResolvedRegion resolve_copy_destination(const TextureDescriptor& sd, const ResolvedRegion& s,
                                        const TextureDescriptor& dd, const TextureOrigin& o, bool same_texture) {
  const char* op = "copy_texture";
  if (sd.format != dd.format)
    throw KernelShapeError(op, "dst", "formats differ: " + std::string(format_name(sd.format)) + " and " +
                                          std::string(format_name(dd.format)));
  if (sd.sample_count != dd.sample_count) throw KernelShapeError(op, "dst", "sample counts differ");
  // A d3 region of depth n lands on n depth slices; a layered one on as many layers.
  TextureRegion r{o.mip, o.layer, s.layers, o.x, o.y, o.z, s.width, s.height, s.depth};
  if (dd.dimension == TextureDimension::d3 && sd.dimension != TextureDimension::d3) {
    r.depth = s.layers;
    r.layers = 1;
  } else if (dd.dimension != TextureDimension::d3 && sd.dimension == TextureDimension::d3) {
    r.layers = s.depth;
    r.depth = 1;
  }
  ResolvedRegion d = resolve_region(dd, r, op, "dst");
  if (same_texture && d.mip == s.mip) {
    const bool layers_overlap = d.layer < s.layer + s.layers && s.layer < d.layer + d.layers;
    const bool x = d.x < s.x + s.width && s.x < d.x + d.width;
    const bool y = d.y < s.y + s.height && s.y < d.y + d.height;
    const bool z = d.z < s.z + s.depth && s.z < d.z + d.depth;
    if (layers_overlap && x && y && z) throw KernelShapeError(op, "dst", "the source and destination regions overlap");
  }
  return d;
}

void check_mipmap_generation(const TextureDescriptor& d, const TextureCapabilities& caps) {
  const char* op = "generate_mipmaps";
  if (!has(d.usage, TextureUsage::copy_src | TextureUsage::copy_dst))
    throw KernelShapeError(op, "texture", "the texture's usage (" + texture_usage_names(d.usage) +
                                              ") lacks copy_src|copy_dst");
  if (d.sample_count != 1) throw KernelShapeError(op, "texture", "a multisampled texture has no mips");
  if (is_depth_format(d.format))
    throw UnsupportedError(std::string(format_name(d.format)) + " blit", "linear blits", "depth formats blit nearest only");
  const FormatCapabilities& f = caps.format(d.format);
  if (!f.blit || !f.filterable)
    throw UnsupportedError(std::string(format_name(d.format)) + " blit", "linear blits", "not supported");
}

void check_sampler_descriptor(const SamplerDescriptor& s, const TextureCapabilities& caps) {
  const char* op = "create_sampler";
  if (!(s.lod_min >= 0)) throw KernelShapeError(op, "lod_min", std::to_string(s.lod_min) + " is negative (or NaN)");
  if (!(s.lod_max >= s.lod_min))
    throw KernelShapeError(op, "lod_max", std::to_string(s.lod_max) + " is less than lod_min " + std::to_string(s.lod_min));
  if (s.max_anisotropy == 0) throw KernelShapeError(op, "max_anisotropy", "must be at least 1");
  if (s.max_anisotropy > 1) {
    if (s.mag_filter != FilterMode::linear || s.min_filter != FilterMode::linear || s.mipmap_filter != FilterMode::linear)
      throw KernelShapeError(op, "max_anisotropy", "anisotropy above 1 needs every filter linear");
    if (s.max_anisotropy > caps.max_sampler_anisotropy)
      throw UnsupportedError("max_sampler_anisotropy", str(s.max_anisotropy), str(caps.max_sampler_anisotropy));
  }
  if (static_cast<uint32_t>(s.address_u) > 3 || static_cast<uint32_t>(s.address_v) > 3 ||
      static_cast<uint32_t>(s.address_w) > 3)
    throw KernelShapeError(op, "address", "unknown address mode");
  if (s.compare && static_cast<uint32_t>(*s.compare) > 7) throw KernelShapeError(op, "compare", "unknown function");
}

ResolvedView check_texture_binding(const ShaderBinding& b, const std::string& arg, const TextureDescriptor& t,
                                   const TextureBinding& tb, const SamplerDescriptor* sampler,
                                   const TextureCapabilities& caps) {
  const char* op = "bind";
  const bool storage = b.kind == BindingKind::storage_texture;
  const TextureUsage need = storage ? TextureUsage::storage : TextureUsage::sampled;
  if (!has(t.usage, need))
    throw KernelShapeError(op, arg, "the texture's usage (" + texture_usage_names(t.usage) + ") lacks " +
                                        texture_usage_names(need));
  // Mips and layers.
  ResolvedView v;
  v.dimension = b.view_dimension;
  if (tb.base_mip >= t.mip_levels)
    throw KernelShapeError(op, arg, "base_mip " + str(tb.base_mip) + " is past the texture's " + str(t.mip_levels) + " mips");
  v.base_mip = tb.base_mip;
  v.mip_count = tb.mip_count == 0 ? t.mip_levels - tb.base_mip : tb.mip_count;
  if (uint64_t(v.base_mip) + v.mip_count > t.mip_levels)
    throw KernelShapeError(op, arg, "mips [" + str(v.base_mip) + ", " + str(uint64_t(v.base_mip) + v.mip_count) +
                                        ") are outside the texture's " + str(t.mip_levels));
  const uint32_t layers = layer_count(t);
  if (tb.base_layer >= layers)
    throw KernelShapeError(op, arg, "base_layer " + str(tb.base_layer) + " is past the texture's " + str(layers) + " layers");
  v.base_layer = tb.base_layer;
  v.layer_count = tb.layer_count == 0 ? layers - tb.base_layer : tb.layer_count;
  if (uint64_t(v.base_layer) + v.layer_count > layers)
    throw KernelShapeError(op, arg, "layers [" + str(v.base_layer) + ", " + str(uint64_t(v.base_layer) + v.layer_count) +
                                        ") are outside the texture's " + str(layers));
  if (storage && v.mip_count != 1)
    throw KernelShapeError(op, arg, "a storage binding sees one mip, not " + str(v.mip_count));
  // View dimension: a d2 binding views one layer of any 2-D texture; a d2_array binding any layers
  // of d2, d2_array and cube textures; a cube binding all six faces of a cube; d3 a d3 texture.
  const std::string dims = std::string("a ") + view_dimension_name(b.view_dimension) + " binding cannot view a " +
                           texture_dimension_name(t.dimension) + " texture";
  switch (b.view_dimension) {
    case TextureViewDimension::d2:
      if (t.dimension == TextureDimension::d3) throw KernelShapeError(op, arg, dims);
      if (v.layer_count != 1) throw KernelShapeError(op, arg, "a d2 binding views 1 layer, not " + str(v.layer_count));
      break;
    case TextureViewDimension::d2_array:
      if (t.dimension == TextureDimension::d3) throw KernelShapeError(op, arg, dims);
      break;
    case TextureViewDimension::cube:
      if (t.dimension != TextureDimension::cube) throw KernelShapeError(op, arg, dims);
      if (v.base_layer != 0 || v.layer_count != 6) throw KernelShapeError(op, arg, "a cube binding views all 6 faces");
      break;
    case TextureViewDimension::d3:
      if (t.dimension != TextureDimension::d3) throw KernelShapeError(op, arg, dims);
      break;
    default: throw UnsupportedError("texture_view_dimension", "d2, d2_array, cube or d3", view_dimension_name(b.view_dimension));
  }
  if (b.multisampled != (t.sample_count > 1))
    throw KernelShapeError(op, arg, std::string(b.multisampled ? "a multisampled binding needs" : "a single-sample binding cannot take") +
                                        " a " + str(t.sample_count) + "-sample texture");
  // Texel kind against the format.
  const FormatInfo fi = format_info(t.format);
  const std::string fmt(fi.name);
  bool kind_ok = false;
  switch (b.texel_kind) {
    case TexelKind::float_: kind_ok = fi.kind == TexelKind::float_ || (fi.kind == TexelKind::depth && !storage); break;
    case TexelKind::uint_: kind_ok = fi.kind == TexelKind::uint_; break;
    case TexelKind::depth: kind_ok = fi.kind == TexelKind::depth; break;
    case TexelKind::sint_: kind_ok = false; break;
  }
  static const char* kKind[] = {"float", "uint", "depth", "sint"};
  if (!kind_ok)
    throw KernelShapeError(op, arg, std::string("the binding reads ") + kKind[static_cast<int>(b.texel_kind)] +
                                        " texels, the texture is " + fmt);
  if (storage) {
    if (!b.storage_format) throw UnsupportedError("storage_texture_format", "a format the library maps", "unknown");
    if (*b.storage_format != t.format)
      throw KernelShapeError(op, arg, "the binding's storage format is " + std::string(format_name(*b.storage_format)) +
                                          ", the texture is " + fmt);
  }
  // Sampler.
  if (b.combined_sampler) {
    if (sampler == nullptr) throw KernelShapeError(op, arg, "the binding combines a sampler: TextureBinding::sampler is null");
    const bool shadow = b.texel_kind == TexelKind::depth;
    if (shadow && !sampler->compare)
      throw KernelShapeError(op, arg, "a shadow binding needs a comparison sampler");
    if (!shadow && sampler->compare)
      throw KernelShapeError(op, arg, "a comparison sampler needs a shadow binding");
    const bool linear = sampler->mag_filter == FilterMode::linear || sampler->min_filter == FilterMode::linear ||
                        sampler->mipmap_filter == FilterMode::linear;
    if (linear && !caps.format(t.format).filterable)
      throw UnsupportedError(fmt + " filterable", "linear filtering", "not supported");
  } else if (tb.sampler != nullptr) {
    throw KernelShapeError(op, arg, "the binding takes no sampler");
  }
  return v;
}

}  // namespace onegpu::core
