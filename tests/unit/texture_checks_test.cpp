// Texture decisions without a device: descriptors, mip extents, regions, buffer layouts, copies,
// samplers and bindings, against a hand-made set of capabilities.
#include <gtest/gtest.h>

#include <cmath>

#include "core/texture_checks.h"
#include "onegpu/errors.h"
#include "support/shape_error.h"

namespace onegpu::testing {
namespace {

TextureCapabilities caps() {
  TextureCapabilities c;
  for (auto& f : c.formats) f = {true, true, true, true, true, true, true, true, true};
  c.formats[static_cast<uint32_t>(TextureFormat::r32_uint)].filterable = false;
  c.formats[static_cast<uint32_t>(TextureFormat::rgba8_srgb)].storage = false;
  c.max_texture_2d = 4096;
  c.max_texture_3d = 256;
  c.max_texture_cube = 1024;
  c.max_texture_layers = 64;
  c.max_sampler_anisotropy = 16;
  c.depth24_stencil8 = true;
  return c;
}

TEST(TextureChecks, MipExtentsAndCounts) {
  TextureDescriptor d{.dimension = TextureDimension::d3, .width = 13, .height = 4, .depth_or_layers = 33};
  EXPECT_EQ(core::max_mip_levels(d), 6u);  // 33 -> bit width 6
  EXPECT_EQ(core::mip_extent(d, 2), (Extent3{3, 1, 8}));
  EXPECT_EQ(core::mip_extent(d, 5), (Extent3{1, 1, 1}));
  TextureDescriptor a{.dimension = TextureDimension::d2_array, .width = 8, .height = 8, .depth_or_layers = 5};
  EXPECT_EQ(core::layer_count(a), 5u);
  EXPECT_EQ(core::mip_extent(a, 1), (Extent3{4, 4, 1}));
}

TEST(TextureChecks, Descriptors) {
  const TextureCapabilities c = caps();
  auto arg = [&](TextureDescriptor d) { return shape_error_argument([&] { core::check_texture_descriptor(d, c); }); };
  EXPECT_EQ(arg({.width = 16, .height = 16, .mip_levels = 5}), "(nothing thrown)");
  EXPECT_EQ(arg({.width = 16, .height = 16, .mip_levels = 6}), "mip_levels");
  EXPECT_EQ(arg({.height = 0}), "extent");
  EXPECT_EQ(arg({.dimension = TextureDimension::d3, .format = TextureFormat::depth32_float}), "dimension");
  EXPECT_THROW(core::check_texture_descriptor({.width = 4097}, c), UnsupportedError);
  EXPECT_THROW(core::check_texture_descriptor({.dimension = TextureDimension::d2_array, .depth_or_layers = 65}, c),
               UnsupportedError);
  EXPECT_THROW(core::check_texture_descriptor({.format = TextureFormat::rgba8_srgb, .usage = TextureUsage::storage}, c),
               UnsupportedError);
  EXPECT_EQ(arg({.sample_count = 4, .usage = TextureUsage::render_target}), "(nothing thrown)");
}

TEST(TextureChecks, RegionsAndBytes) {
  TextureDescriptor d{.dimension = TextureDimension::d2_array, .format = TextureFormat::rgba16_float, .width = 10,
                      .height = 6, .depth_or_layers = 4, .mip_levels = 2};
  const core::ResolvedRegion r = core::resolve_region(d, {1, 1, 2, 1, 2}, "t", "region");
  EXPECT_EQ(r.width, 4u);   // mip 1 is 5 x 3, from x = 1
  EXPECT_EQ(r.height, 1u);  // from y = 2
  EXPECT_EQ(r.depth, 1u);
  EXPECT_EQ(core::packed_bytes(d, r), 8u * 4 * 1 * 2);
  EXPECT_EQ(shape_error_argument([&] { core::resolve_region(d, {1, 3, 2}, "t", "region"); }), "region");
  EXPECT_EQ(shape_error_argument([&] { core::resolve_region(d, {0, 0, 1, UINT32_MAX, 0, 0, 2}, "t", "region"); }),
            "region");
}

TEST(TextureChecks, BufferLayouts) {
  TextureDescriptor d{.format = TextureFormat::rgba8_unorm, .width = 8, .height = 8};
  const core::ResolvedRegion r = core::resolve_region(d, {0, 0, 1, 0, 0, 0, 4, 3}, "t", "region");
  const core::ResolvedLayout l = core::resolve_layout(d, r, {8, 32, 0}, 1000, "copy");
  EXPECT_EQ(l.bytes, 32u * 2 + 16);
  EXPECT_EQ(l.rows_per_image, 3u);
  EXPECT_EQ(shape_error_argument([&] { core::resolve_layout(d, r, {8, 32, 0}, 8 + 79, "copy"); }), "layout");
  EXPECT_EQ(shape_error_argument([&] { core::resolve_layout(d, r, {0, UINT32_MAX - 3, UINT32_MAX}, UINT64_MAX, "copy"); }),
            "(nothing thrown)");  // large but representable
}

TEST(TextureChecks, CopyDestinations) {
  TextureDescriptor a{.format = TextureFormat::r32_float, .width = 8, .height = 8};
  TextureDescriptor v{.dimension = TextureDimension::d3, .format = TextureFormat::r32_float, .width = 8, .height = 8,
                      .depth_or_layers = 4};
  const core::ResolvedRegion r = core::resolve_region(a, {0, 0, 1, 0, 0, 0, 4, 4}, "t", "region");
  EXPECT_EQ(shape_error_argument([&] { core::resolve_copy_destination(a, r, a, {0, 0, 2, 2}, true); }), "dst");
  EXPECT_EQ(shape_error_argument([&] { core::resolve_copy_destination(a, r, a, {0, 0, 4, 0}, true); }),
            "(nothing thrown)");
  const core::ResolvedRegion d = core::resolve_copy_destination(a, r, v, {0, 0, 0, 0, 3}, false);
  EXPECT_EQ(d.depth, 1u);  // one layer lands on one slice
  EXPECT_EQ(shape_error_argument([&] { core::resolve_copy_destination(a, r, v, {0, 0, 0, 0, 4}, false); }), "dst");
}

TEST(TextureChecks, Bindings) {
  const TextureCapabilities c = caps();
  TextureDescriptor cube{.dimension = TextureDimension::cube, .width = 8, .height = 8, .depth_or_layers = 6,
                         .mip_levels = 2};
  ShaderBinding cb{.kind = BindingKind::sampled_texture, .view_dimension = TextureViewDimension::cube,
                   .combined_sampler = true};
  SamplerDescriptor s;
  const core::ResolvedView v = core::check_texture_binding(cb, "binding 0", cube, {nullptr}, &s, c);
  EXPECT_EQ(v.layer_count, 6u);
  EXPECT_EQ(v.mip_count, 2u);
  EXPECT_EQ(shape_error_argument([&] { core::check_texture_binding(cb, "binding 0", cube, {nullptr, 0, 0, 1, 0}, &s, c); }),
            "binding 0");  // not all six faces
  ShaderBinding arr{.kind = BindingKind::sampled_texture, .view_dimension = TextureViewDimension::d2_array};
  EXPECT_EQ(core::check_texture_binding(arr, "binding 1", cube, {nullptr, 0, 0, 2, 3}, nullptr, c).layer_count, 3u);
  ShaderBinding shadow{.kind = BindingKind::sampled_texture, .view_dimension = TextureViewDimension::d2,
                       .texel_kind = TexelKind::depth, .combined_sampler = true};
  TextureDescriptor depth{.format = TextureFormat::depth32_float};
  EXPECT_EQ(shape_error_argument([&] { core::check_texture_binding(shadow, "binding 2", depth, {nullptr}, &s, c); }),
            "binding 2");  // needs a comparison sampler
  SamplerDescriptor cmp{.compare = CompareFunction::less};
  EXPECT_EQ(shape_error_argument([&] { core::check_texture_binding(shadow, "binding 2", depth, {nullptr}, &cmp, c); }),
            "(nothing thrown)");
  ShaderBinding storage{.kind = BindingKind::storage_texture, .view_dimension = TextureViewDimension::d2,
                        .texel_kind = TexelKind::uint_, .storage_format = TextureFormat::r32_uint};
  TextureDescriptor u{.format = TextureFormat::r32_uint, .usage = TextureUsage::storage};
  EXPECT_EQ(shape_error_argument([&] { core::check_texture_binding(storage, "binding 3", u, {nullptr}, nullptr, c); }),
            "(nothing thrown)");
}

TEST(TextureChecks, Samplers) {
  const TextureCapabilities c = caps();
  EXPECT_NO_THROW(core::check_sampler_descriptor({}, c));
  EXPECT_EQ(shape_error_argument([&] { core::check_sampler_descriptor({.lod_min = std::nanf("")}, c); }), "lod_min");
  SamplerDescriptor aniso{.mag_filter = FilterMode::linear, .min_filter = FilterMode::linear,
                          .mipmap_filter = FilterMode::linear, .max_anisotropy = 17};
  EXPECT_THROW(core::check_sampler_descriptor(aniso, c), UnsupportedError);
  aniso.max_anisotropy = 16;
  EXPECT_NO_THROW(core::check_sampler_descriptor(aniso, c));
}

TEST(TextureChecks, UsageNames) {
  EXPECT_EQ(texture_usage_names(TextureUsage::copy_src | TextureUsage::storage), "copy_src|storage");
  EXPECT_EQ(texture_usage_names(TextureUsage::none), "none");
  EXPECT_TRUE(has(TextureUsage::sampled | TextureUsage::copy_dst, TextureUsage::sampled));
}

}  // namespace
}  // namespace onegpu::testing
