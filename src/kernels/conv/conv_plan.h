// Convolution decisions without a GPU: the geometry of a problem (checked), the tensors' element
// counts, the path, the k split, the chunks of images a scratch allows and the push constants.
#pragma once

#include <cstdint>
#include <string>

#include "conv/conv_push.h"
#include "onegpu/kernels/conv.h"
#include "onegpu/kernels/gemm.h"

namespace onegpu::kernels::conv {

enum class Path { direct, implicit, implicit_matrix, unfold, pointwise, transpose, winograd };

// The tiles of the float16 implicit GEMM on cooperative matrices (conv.implicit_coopmat.f16.<name>
// in CMakeLists.txt): output channels x columns per workgroup.
struct MatrixTile {
  const char* name;
  uint32_t bm, bn;
};
inline constexpr MatrixTile kMatrixTiles[] = {
    {"64x64.4sg", 64, 64}, {"64x128.4sg", 64, 128}, {"128x128.4sg", 128, 128}, {"64x256.8sg", 64, 256}};
inline constexpr uint32_t kMatrixTileCount = 4;
// Whether a tile has the ConvTranspose phase-pairs form (conv.implicit_coopmat.f16.<tile>.pairs).
inline constexpr bool matrix_tile_pairs(uint32_t tile) { return tile == 0; }
// The kernel keeps the taps' offsets in a table of this many entries.
inline constexpr uint64_t kMatrixMaxTaps = 256;

// Runs of eight columns one invocation of the column kernel writes (RUNS in conv_im2col.comp).
inline constexpr uint64_t kUnfoldRuns = 1;

// A problem in one form for both operators. For ConvTranspose, ih/iw are the input's extents and
// oh/ow the output's; the product is over the input channels of a group.
struct Geometry {
  const char* op = "Conv";
  bool transpose = false;
  uint64_t batch = 0, cin = 0, cout = 0, groups = 1, cin_g = 0, cout_g = 0;
  uint64_t ih = 0, iw = 0, oh = 0, ow = 0, kh = 0, kw = 0;
  Window window{};  // pads resolved
  bool bias = false, residual = false;
  UnaryFunction activation{};
  uint64_t x_offset = 0, w_offset = 0, bias_offset = 0, residual_offset = 0, y_offset = 0;

  uint64_t taps() const { return kh * kw; }
  uint64_t pixels() const { return oh * ow; }
  uint64_t in_pixels() const { return ih * iw; }
  // Depth of the product: cin_g * taps (Conv), cin_g (ConvTranspose).
  uint64_t depth() const { return transpose ? cin_g : cin_g * taps(); }
  bool depthwise() const { return !transpose && cin_g == 1; }
  bool one_by_one() const;  // 1 x 1 kernel, stride 1, no padding
};

// Checked: channels and groups positive, groups dividing both channel counts, the window and the
// extents (window.h), every element count and offset below the kernels' 32-bit indices.
Geometry resolve(const ConvProblem& p);
Geometry resolve(const ConvTransposeProblem& p);

// Elements of each tensor.
struct Counts {
  uint64_t x = 0, w = 0, bias = 0, residual = 0, y = 0;
};
Counts counts(const Geometry& g);

struct Config {
  DataType type = DataType::float32;
  KernelMode mode = KernelMode::fast;
  ConvVariant variant = ConvVariant::automatic;
  bool matrix_f16 = false;  // the family's float16 Gemm runs on matrix hardware
  bool implicit_matrix = false;  // the device runs the float16 implicit GEMM on cooperative matrices
  int matrix_tile = -1;          // implicit_matrix: a forced tile of kMatrixTiles (-1: by shape)
  int implicit_wide = -1;        // implicit, float32: 0 / 1 force the 64 x 64 / 64 x 128 tile (-1: by shape)
  // The device binds one buffer read-only and writable in a dispatch (ComputeCapabilities::
  // aliased_writable_bindings): unfold's products read and write the scratch, so without it
  // automatic takes implicit instead and a forced unfold throws UnsupportedError.
  bool aliased_writable_bindings = true;
};

// ConvTranspose as phase convolutions (dilation 1): output pixels whose (o + pad) % stride is r
// along an axis get an ordinary stride-1 convolution of the input with the taps r + stride t,
// flipped (conv_view.glsl does the same per workgroup). One axis of phase r:
struct PhaseAxis {
  uint64_t taps = 0;   // the phase's taps
  uint64_t first = 0;  // its first output
  uint64_t count = 0;  // its outputs
};
PhaseAxis phase_axis(uint64_t r, uint64_t stride, uint64_t kernel, uint64_t pad, uint64_t extent);
// Whether the phases take a ConvTranspose: dilation 1 and at most kMaxPhases phases.
inline constexpr uint64_t kMaxPhases = 256;
bool phases_apply(const Geometry& g);

// Winograd F(2x2, 3x3): whether a problem takes it (float32, not transposed, a 3 x 3 kernel,
// stride 1, dilation 1, one group), and its 2 x 2 output tiles per image.
bool winograd_fits(const Geometry& g, DataType type);
uint64_t winograd_tiles(const Geometry& g);
// Tiles (columns of the 16 products) per workgroup of the product pass (conv_winograd.comp).
inline constexpr uint64_t kWinogradColumns = 128;

struct Plan {
  Path path = Path::direct;
  // implicit, implicit_matrix for a ConvTranspose: its strides' product of phase convolutions
  // (0: not phases). Their weights lie first in the scratch, rearranged.
  uint32_t phases = 0;
  uint32_t splits = 1;   // implicit, implicit_matrix: k ranges
  uint32_t k_chunk = 0;  // implicit, implicit_matrix: terms per range (a multiple of 32)
  uint32_t tile = 0;     // implicit_matrix: the index in kMatrixTiles
  bool wide = false;     // implicit: the float32 64 x 128 tile (conv_implicit_wide.comp)
  // implicit_matrix phases with stride 2 across, an even output width and y at an even offset,
  // unsplit: a workgroup makes both column phases of its rows, storing whole words of y.
  bool phase_pairs = false;
  uint32_t views() const { return phases == 0 ? 1u : phase_pairs ? phases / 2 : phases; }  // grid z per group and split
  bool epilogue_pass = false;  // a pass after the product turns float32 sums into the output
  // Unfold: the product's depth rounded up to a multiple of 8 (the matrix kernels' aligned loads);
  // when it differs from the depth the weights are first copied into the scratch with that row
  // length; and the k ranges the product is cut into as batch entries (one group only), whose
  // planes the epilogue pass adds in order.
  uint64_t depth_padded = 0;
  bool pad_weights = false;
  uint32_t product_splits = 1;

  // Where a chunk's parts lie in the scratch, in 32-bit words from its start (each part starts
  // on 16 words): the column matrix and the padded weights (unfold), the float32 sums (every path
  // with a product or an epilogue pass). Winograd: the transformed weights (weights, 16 x cout x
  // cin), windows (columns, 16 x cin x tiles) and products (sums, 16 x cout x tiles).
  struct Layout {
    uint64_t columns = 0, weights = 0, sums = 0, total = 0;
  };
  Layout layout(const Geometry& g, DataType type, uint64_t images) const;

  // The grid of outputs one product computes (the largest phase's for phases) and its depth.
  uint64_t product_pixels(const Geometry& g) const;
  uint64_t product_depth(const Geometry& g) const;

  // Scratch words a chunk of `images` images needs.
  uint64_t scratch_words(const Geometry& g, DataType type, uint64_t images) const;
  // Unfold: the column matrix's row length for a chunk (a multiple of 8).
  static uint64_t row_length(const Geometry& g, uint64_t images);
};

// The path for a problem: the forced variant (UnsupportedError when it cannot take the problem), or
// the automatic choice (header); the k split of the implicit kernel. Shape-only: the chunks a
// scratch allows do not change it.
Plan plan(const Geometry& g, const Config& c);

// The output tile of a workgroup of the implicit kernels: output channels x columns (64 x 64 for
// conv.implicit, 64 x 128 for conv.implicit.wide, the plan's kMatrixTiles entry for
// conv.implicit_coopmat).
struct TileShape {
  uint64_t rows = 64, columns = 64;
};
TileShape tile_shape(const Plan& p);

// The largest number of images per chunk that `words` of scratch hold (the whole batch at most);
// 0 when not even one image fits.
uint64_t chunk_images(const Plan& p, const Geometry& g, DataType type, uint64_t words);

// Push constants for `images` images from image `first` (offsets advanced to it).
ConvPush push_constants(const Geometry& g, const Plan& p, uint64_t first, uint64_t images);

// "conv.direct", "conv.implicit.splitk3", "conv.implicit_coopmat.64x128.4sg", ...
std::string path_name(const Plan& p);

// The Gemm products of a chunk (unfold: one batched over groups; pointwise and transpose: over
// images per group, or over groups per image, whichever loops less); columns and accumulators at
// the given scratch offsets (in the scratch's elements of the Gemm: float32 words, or halves for a
// float16 column matrix). For unfold, `columns_offset` is the layout's start (its parts follow).
struct Product {
  GemmProblem problem;
  bool a_is_scratch = false;  // A is the padded weights in the scratch; otherwise w
  bool b_is_scratch = false;  // unfold: B is the column matrix; otherwise x
};
std::vector<Product> products(const Geometry& g, const Plan& p, DataType type, uint64_t first, uint64_t images,
                              uint64_t columns_offset, uint64_t accumulators_offset);

}  // namespace onegpu::kernels::conv
