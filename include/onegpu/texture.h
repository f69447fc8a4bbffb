// onegpu/texture.h - textures, samplers and what a binding of a kernel receives.
//
// A Texture is an image of texels in one TextureFormat (format.h): 2-D, 2-D array, cube (six
// layers) or 3-D, with mip levels and, for render targets, 4 samples. Its usages say what it may
// be used for; the device checks each usage against what the format supports on it
// (AdapterInfo::texture) and refuses the rest with UnsupportedError at creation.
//
// Layout: every texture stays in one layout for its whole life (VK_IMAGE_LAYOUT_GENERAL on
// Vulkan), so reads and writes of textures are ordered by the same memory barriers as buffers and
// no call ever needs to know a texture's state. The cost is lost framebuffer compression on GPUs
// that compress render targets only in their attachment layout (docs/textures.md).
//
// Ownership: Texture and Sampler are move-only handles. Destroying one releases it once the GPU
// has finished the work submitted before (and the upload that carries its last write); the
// encoder keeps alive every texture and sampler it records until its submission has finished. A
// bind group refers to its textures without owning them (as for buffers): dispatching a group
// whose texture was destroyed throws UsageError. Neither may outlive its device.
//
// Ordering: write() copies the data into staging memory at once; the upload runs on the GPU before
// the next submission. read() submits a copy behind everything submitted so far and waits;
// read_async() does the same without waiting (completions in submission order).
//
// Errors: every region, size and usage is checked in 64-bit arithmetic before anything is
// recorded: KernelShapeError (operation and argument named) for a region outside the texture, a
// data size that does not match, a missing usage; UnsupportedError for a limit or a format
// capability the device lacks; UsageError for a texture of another device or an empty handle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "onegpu/buffer.h"
#include "onegpu/format.h"

namespace onegpu {

namespace backend { class Texture; class Sampler; }

enum class TextureDimension : uint8_t { d2, d2_array, cube, d3 };
// "d2", "d2_array", "cube", "d3".
const char* texture_dimension_name(TextureDimension d);

// What a texture may be used for (webgpu.h's WGPUTextureUsage). copy_src: read(), a copy source,
// the source levels of generate_mipmaps; copy_dst: write(), a copy destination, generate_mipmaps;
// sampled: a sampled binding (texture2D, sampler2D, ...); storage: a storage binding (image2D);
// render_target: a colour or depth attachment of a render pass.
enum class TextureUsage : uint32_t { none = 0, copy_src = 1, copy_dst = 2, sampled = 4, storage = 8, render_target = 16 };
constexpr TextureUsage operator|(TextureUsage a, TextureUsage b) {
  return static_cast<TextureUsage>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr TextureUsage operator&(TextureUsage a, TextureUsage b) {
  return static_cast<TextureUsage>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}
constexpr TextureUsage& operator|=(TextureUsage& a, TextureUsage b) { return a = a | b; }
// True when every bit of `want` is in `set`.
constexpr bool has(TextureUsage set, TextureUsage want) {
  return (static_cast<uint32_t>(set) & static_cast<uint32_t>(want)) == static_cast<uint32_t>(want);
}
// "copy_src|sampled", or "none".
std::string texture_usage_names(TextureUsage usage);

struct TextureDescriptor {
  TextureDimension dimension = TextureDimension::d2;
  TextureFormat format = TextureFormat::rgba8_unorm;
  uint32_t width = 1, height = 1;
  uint32_t depth_or_layers = 1;  // d3: depth; d2_array: layers; cube: 6; d2: 1
  uint32_t mip_levels = 1;       // 1 .. floor(log2(largest extent)) + 1 (d3: of width, height, depth)
  uint32_t sample_count = 1;     // 1, or 4 for a d2 render target (one mip, not storage)
  TextureUsage usage = TextureUsage::sampled | TextureUsage::copy_dst;
  std::string label;
};

struct Extent3 {
  uint32_t width = 0, height = 0, depth = 0;
  friend bool operator==(const Extent3&, const Extent3&) = default;
};

// Part of one mip level: layers [layer, layer + layers), texels from (x, y, z) over
// width x height x depth. A zero width, height or depth runs to the mip's edge. Layers are those of
// a d2_array or cube texture (d2 and d3 have one); z is the depth of a d3 texture (0 otherwise).
struct TextureRegion {
  uint32_t mip = 0, layer = 0, layers = 1;
  uint32_t x = 0, y = 0, z = 0;
  uint32_t width = 0, height = 0, depth = 0;
};

// Where a copy lands in the destination texture: its extent is the source region's.
struct TextureOrigin {
  uint32_t mip = 0, layer = 0;
  uint32_t x = 0, y = 0, z = 0;
};

// How texels lie in a buffer for copy_buffer_to_texture and copy_texture_to_buffer: rows of the
// region start every bytes_per_row bytes from `offset` (0: tightly packed, width x texel size),
// images (depth slices, then layers) every rows_per_image rows (0: the region's height).
// offset must be a multiple of 4 and of the texel size, bytes_per_row of the texel size.
struct BufferTextureLayout {
  uint64_t offset = 0;
  uint32_t bytes_per_row = 0;
  uint32_t rows_per_image = 0;
};

// A texture: see the file comment for ownership, ordering and errors.
class Texture {
 public:
  Texture() = default;
  explicit Texture(std::shared_ptr<backend::Texture> impl);
  Texture(Texture&&) noexcept = default;
  Texture& operator=(Texture&&) noexcept = default;
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;
  ~Texture();

  explicit operator bool() const { return impl_ != nullptr; }
  // The descriptor it was created with. Throws UsageError for an empty handle.
  const TextureDescriptor& descriptor() const;
  // Never reused within a process; shared with buffers' ids (0 for an empty handle).
  uint64_t id() const;
  // The extent of mip `mip` (each halves, rounding down, never below 1; layers are not an extent:
  // depth is 1 except for d3). Throws KernelShapeError past the last mip.
  Extent3 mip_extent(uint32_t mip) const;
  // Bytes a region holds tightly packed (after zero extents are resolved).
  uint64_t region_bytes(const TextureRegion& region) const;

  // Writes `tightly_packed` texels (rows of width x texel size, then depth slices, then layers)
  // into `region`. Needs usage copy_dst; the size must equal region_bytes(region).
  // depth32_float data must lie in [0, 1]. depth24_stencil8 and 4-sample textures cannot be
  // written or read (UnsupportedError "copyable format" / KernelShapeError "sample_count").
  void write(const TextureRegion& region, std::span<const std::byte> tightly_packed);
  // Reads `region`, tightly packed, into `out` (its size must equal region_bytes(region)) behind
  // all work submitted so far, and waits. Needs usage copy_src.
  void read(const TextureRegion& region, std::span<std::byte> out) const;
  std::future<void> read_async(const TextureRegion& region, std::span<std::byte> out) const;
  // As for RawBuffer::read_bytes_async: `done` runs on the device's readback thread.
  void read_async(const TextureRegion& region, std::span<std::byte> out,
                  std::function<void(std::exception_ptr)> done) const;

  backend::Texture& impl() const;

 private:
  std::shared_ptr<backend::Texture> impl_;
};

enum class AddressMode : uint8_t { clamp_to_edge, repeat, mirror_repeat, clamp_to_border };
enum class FilterMode : uint8_t { nearest, linear };
enum class CompareFunction : uint8_t { never, less, equal, less_equal, greater, not_equal, greater_equal, always };
// The colour clamp_to_border returns outside the texture.
enum class BorderColor : uint8_t { transparent_black, opaque_black, opaque_white };

struct SamplerDescriptor {
  AddressMode address_u = AddressMode::clamp_to_edge;
  AddressMode address_v = AddressMode::clamp_to_edge;
  AddressMode address_w = AddressMode::clamp_to_edge;
  FilterMode mag_filter = FilterMode::nearest;
  FilterMode min_filter = FilterMode::nearest;
  FilterMode mipmap_filter = FilterMode::nearest;
  float lod_min = 0, lod_max = 32;  // 0 <= lod_min <= lod_max
  // 1 .. capabilities' max_sampler_anisotropy; above 1 needs every filter linear.
  uint16_t max_anisotropy = 1;
  // A comparison sampler (for sampler2DShadow and the like): texels compare against the reference.
  std::optional<CompareFunction> compare;
  BorderColor border_color = BorderColor::transparent_black;
  std::string label;
};

// A sampler. Move-only; destroyed once the GPU has finished the work submitted before. A bind
// group holds its samplers (they own no memory worth freeing early).
class Sampler {
 public:
  Sampler() = default;
  explicit Sampler(std::shared_ptr<backend::Sampler> impl);
  Sampler(Sampler&&) noexcept = default;
  Sampler& operator=(Sampler&&) noexcept = default;
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  ~Sampler();

  explicit operator bool() const { return impl_ != nullptr; }
  const SamplerDescriptor& descriptor() const;
  backend::Sampler& impl() const;

 private:
  std::shared_ptr<backend::Sampler> impl_;
};

// A texture bound to a sampled or storage binding: mips [base_mip, base_mip + mip_count) and
// layers [base_layer, base_layer + layer_count) of it (0 counts: all the rest). A storage binding
// sees exactly one mip. A combined image sampler (GLSL sampler2D) needs `sampler`; other bindings
// must leave it null.
struct TextureBinding {
  const Texture* texture = nullptr;
  uint32_t base_mip = 0, mip_count = 0;
  uint32_t base_layer = 0, layer_count = 0;
  const Sampler* sampler = nullptr;
};

// What one binding of a kernel receives: a buffer range, a texture (with its sampler when the
// binding combines them) or a sampler alone. Implicit from each, so {buffer, texture_binding,
// sampler} lists read like the bindings.
struct Binding {
  enum class Kind : uint8_t { buffer, texture, sampler };
  Binding(const BufferBinding& b) : kind(Kind::buffer), buffer(b) {}  // NOLINT(implicit)
  Binding(const RawBuffer& b, uint64_t offset = 0, uint64_t size = 0)  // NOLINT(implicit)
      : kind(Kind::buffer), buffer(b, offset, size) {}
  Binding(const TextureBinding& t) : kind(Kind::texture), buffer(kNoBuffer), texture(t) {}  // NOLINT(implicit)
  Binding(const Texture& t) : Binding(TextureBinding{&t}) {}          // NOLINT(implicit)
  Binding(const Sampler& s) : kind(Kind::sampler), buffer(kNoBuffer), sampler(&s) {}  // NOLINT(implicit)

  Kind kind;
  BufferBinding buffer;     // kind buffer
  TextureBinding texture;   // kind texture
  const Sampler* sampler = nullptr;  // kind sampler

 private:
  static inline const RawBuffer kNoBuffer{};
};

}  // namespace onegpu
