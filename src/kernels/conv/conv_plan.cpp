#include "kernels/conv/conv_plan.h"

#include <algorithm>

#include "kernels/common/checked.h"
#include "kernels/common/conv_channels.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::conv {
namespace {

constexpr uint64_t kIndexLimit = uint64_t(1) << 32;  // every element index is a 32-bit uint
constexpr uint64_t kCountLimit = uint64_t(1) << 31;  // element counts of one tensor

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
std::string s(uint64_t v) { return std::to_string(v); }

// Element counts below 2^31, offset + count within 32-bit indices, checked in 64 bits.
void check_sizes(const Geometry& g) {
  const char* op = g.op;
  const Counts n = counts(g);
  struct Item {
    const char* name;
    uint64_t count, offset;
    bool used;
  } items[] = {{"x", n.x, g.x_offset, true},
               {"w", n.w, g.w_offset, true},
               {"bias", n.bias, g.bias_offset, g.bias},
               {"residual", n.residual, g.residual_offset, g.residual},
               {"y", n.y, g.y_offset, true}};
  for (const Item& i : items) {
    if (!i.used) continue;
    if (i.count >= kCountLimit) throw KernelShapeError(op, i.name, s(i.count) + " elements: not below 2^31");
    if (i.offset >= kIndexLimit || i.offset + i.count >= kIndexLimit)
      throw KernelShapeError(op, i.name, "offset " + s(i.offset) + " + " + s(i.count) + " elements passes 2^32");
  }
  // The product's intermediate extents (columns per image, taps times pixels) stay below 2^31 too.
  const uint64_t cols = checked_mul(op, "x", checked_mul(op, "x", g.depth(), g.transpose ? g.in_pixels() : g.pixels()),
                                    g.groups);
  if (cols >= kCountLimit) throw KernelShapeError(op, "x", "the unfolded image has 2^31 elements or more");
  if (g.transpose && checked_mul(op, "x", cols, g.cout_g * g.taps()) >= (uint64_t(1) << 62))
    throw KernelShapeError(op, "x", "the transposed product does not fit 64 bits");
}

// Whether a product is wide enough for the fast Gemm tiles to beat the implicit kernel's gathering
// (measured on an H200, docs/conv.md): float32 when the 128 x 128 tile takes it (256 or more
// output channels per group and columns, k a multiple of 4); float16 on matrix hardware always
// (small grids split k; see plan()).
bool wide_product(const Geometry& g, const Config& c) {
  const uint64_t columns = g.one_by_one() ? g.pixels() * (g.batch == 1 ? 1 : 0) : Plan::row_length(g, g.batch);
  if (c.type == DataType::float32) return g.cout_g >= 256 && columns >= 256 && g.depth() % 4 == 0;
  (void)columns;
  return true;
}

// Whether a 1 x 1 convolution's product reads the input as it lies as fast as an unfolded copy:
// one image (a product per image is narrow otherwise), and for the matrix kernels rows of a
// multiple of 8 pixels.
bool direct_product(const Geometry& g, const Config& c) {
  return g.batch == 1 && (c.type == DataType::float32 || g.pixels() % 8 == 0);
}

// Whether the float16 implicit GEMM on cooperative matrices takes a convolution: its taps fit
// the kernel's table.
bool matrix_fits(const Geometry& g) { return !g.transpose && g.taps() <= kMatrixMaxTaps; }

// Whether it beats the column matrix and Gemm's larger matrix tiles (every ResNet-50 layer at batch
// 8 measured both ways on an H200, docs/conv.md): for up to 256 output channels per group, or
// 4096 columns (images x pixels) and more; Gemm's 128-row tiles win on wide, short products.
bool matrix_preferred(const Geometry& g) { return g.cout_g <= 256 || g.batch * g.pixels() >= 4096; }

// Split k for a grid of fewer than `few` workgroups (`tiles`) with at least 256 terms: up to 16
// ranges of at least 128 terms (multiples of 32) aiming at `aim` workgroups; else one range.
void split_k(Plan& p, uint64_t tiles, uint64_t k, uint64_t few, uint64_t aim) {
  if (tiles < few && k >= 256) {
    const uint64_t want = std::min<uint64_t>({16, ceil_div(aim, std::max<uint64_t>(tiles, 1)), k / 128});
    if (want >= 2) {
      const uint64_t chunk = ceil_div(ceil_div(k, want), 32) * 32;
      p.k_chunk = uint32_t(chunk);
      p.splits = uint32_t(ceil_div(k, chunk));
    }
  }
  if (p.k_chunk == 0) p.k_chunk = uint32_t(std::max<uint64_t>(k, 1));
}

// The fields both operators share, from a problem whose channels and window are checked and
// resolved (g.window), then the sizes.
template <class Problem>
void fill(Geometry& g, const Problem& p, Extent2 out) {
  g.batch = uint64_t(p.batch), g.cin = uint64_t(p.in_channels), g.cout = uint64_t(p.out_channels);
  g.groups = uint64_t(p.groups), g.cin_g = g.cin / g.groups, g.cout_g = g.cout / g.groups;
  g.ih = uint64_t(p.input[0]), g.iw = uint64_t(p.input[1]), g.oh = uint64_t(out[0]), g.ow = uint64_t(out[1]);
  g.kh = uint64_t(g.window.kernel[0]), g.kw = uint64_t(g.window.kernel[1]);
  g.bias = p.bias, g.residual = p.residual, g.activation = p.activation;
  g.x_offset = p.x_offset, g.w_offset = p.w_offset, g.bias_offset = p.bias_offset;
  g.residual_offset = p.residual_offset, g.y_offset = p.y_offset;
  check_sizes(g);
}

}  // namespace

bool winograd_fits(const Geometry& g, DataType type) {
  return type == DataType::float32 && !g.transpose && g.groups == 1 && g.kh == 3 && g.kw == 3 &&
         g.window.strides == Extent2{1, 1} && g.window.dilations == Extent2{1, 1};
}

uint64_t winograd_tiles(const Geometry& g) { return ceil_div(g.oh, 2) * ceil_div(g.ow, 2); }

namespace {
// Whether Winograd beats the other paths (automatic): enough tiles to fill the 16 products' grids
// and channels enough for their depth and rows. Measured on an H200 (docs/conv.md): 392 tiles
// (256 channels at 14 x 14, batch 8) 0.071 ms against 0.128 for the column matrix; 16 tiles (512
// channels at 7 x 7, batch 1) 0.075 against 0.048 for the implicit kernel with split k.
bool winograd_preferred(const Geometry& g) {
  return g.batch * winograd_tiles(g) >= 256 && g.cin >= 16 && g.cout >= 16;
}
}  // namespace

bool Geometry::one_by_one() const {
  return kh == 1 && kw == 1 && window.strides == Extent2{1, 1} && window.pads == std::array<int64_t, 4>{0, 0, 0, 0};
}

Geometry resolve(const ConvProblem& p) {
  Geometry g;
  g.op = "Conv";
  check_conv_channels(g.op, p.batch, p.in_channels, p.out_channels, p.groups);
  g.window = resolve_auto_pad(p.window, p.auto_pad, p.input, g.op);
  fill(g, p, window_output_extent(g.window, p.input, false, g.op));
  return g;
}

Geometry resolve(const ConvTransposeProblem& p) {
  Geometry g;
  g.op = "ConvTranspose";
  g.transpose = true;
  check_conv_channels(g.op, p.batch, p.in_channels, p.out_channels, p.groups);
  Window w = p.window;
  if (p.output_shape) {
    w = transpose_pads_for_output(w, p.auto_pad, p.input, *p.output_shape, p.output_padding, g.op);
  } else if (p.auto_pad == AutoPad::same_upper || p.auto_pad == AutoPad::same_lower) {
    // ONNX: the output is input * stride.
    const Extent2 target{checked_mul(g.op, "input", p.input[0], w.strides[0]),
                         checked_mul(g.op, "input", p.input[1], w.strides[1])};
    w = transpose_pads_for_output(w, p.auto_pad, p.input, target, p.output_padding, g.op);
  } else if (p.auto_pad == AutoPad::valid) {
    w.pads = {0, 0, 0, 0};
  }
  g.window = w;
  fill(g, p, transpose_output_extent(w, p.input, p.output_padding, g.op));
  return g;
}

Counts counts(const Geometry& g) {
  // Every factor is below 2^31 and the window's extents below 2^31: products of three fit 64 bits
  // only with care, so each is checked.
  const char* op = g.op;
  Counts c;
  c.x = checked_mul(op, "x", checked_mul(op, "x", g.batch, g.cin), checked_mul(op, "x", g.ih, g.iw));
  const uint64_t w_rows = g.transpose ? g.cin : g.cout, w_cols = g.transpose ? g.cout_g : g.cin_g;
  c.w = checked_mul(op, "w", checked_mul(op, "w", w_rows, w_cols), checked_mul(op, "w", g.kh, g.kw));
  c.bias = g.cout;
  c.y = checked_mul(op, "y", checked_mul(op, "y", g.batch, g.cout), checked_mul(op, "y", g.oh, g.ow));
  c.residual = c.y;
  return c;
}

PhaseAxis phase_axis(uint64_t r, uint64_t stride, uint64_t kernel, uint64_t pad, uint64_t extent) {
  PhaseAxis a;
  a.taps = kernel > r ? ceil_div(kernel - r, stride) : 0;
  a.first = (r + stride - pad % stride) % stride;
  a.count = extent > a.first ? ceil_div(extent - a.first, stride) : 0;
  return a;
}

bool phases_apply(const Geometry& g) {
  return g.transpose && g.window.dilations == Extent2{1, 1} &&
         uint64_t(g.window.strides[0]) * uint64_t(g.window.strides[1]) <= kMaxPhases;
}

// The largest phase is the one whose first output is 0 along each axis (it has every stride-th
// output from the start); phase 0 has the most taps.
uint64_t Plan::product_pixels(const Geometry& g) const {
  if (phases == 0) return g.pixels();
  return ceil_div(g.oh, uint64_t(g.window.strides[0])) * ceil_div(g.ow, uint64_t(g.window.strides[1]));
}
uint64_t Plan::product_depth(const Geometry& g) const {
  if (phases == 0) return g.depth();
  return g.cin_g * ceil_div(g.kh, uint64_t(g.window.strides[0])) * ceil_div(g.kw, uint64_t(g.window.strides[1]));
}

uint64_t Plan::row_length(const Geometry& g, uint64_t images) { return ceil_div(images * g.pixels(), 8) * 8; }

Plan::Layout Plan::layout(const Geometry& g, DataType type, uint64_t images) const {
  // Every factor below 2^31 with products checked by check_sizes; saturate to be safe.
  auto times = [](uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; };
  auto aligned = [](uint64_t words) { return words > UINT64_MAX - 15 ? UINT64_MAX : ceil_div(words, 16) * 16; };
  const uint64_t per_word = type == DataType::float16 ? 2 : 1;  // elements of the type in a word
  Layout l;
  uint64_t sums = 0;
  switch (path) {
    case Path::direct: return l;
    case Path::implicit:
    case Path::implicit_matrix:
      if (phases != 0) l.sums = aligned(ceil_div(counts(g).w, per_word));  // the phases' weights
      sums = epilogue_pass ? times(times(splits, g.cout), times(images, g.pixels())) : 0;
      break;
    case Path::unfold: {
      const uint64_t row = row_length(g, images);
      const uint64_t columns = times(times(g.groups, depth_padded), row) / per_word;  // rows of 8k elements
      const uint64_t weights = pad_weights ? times(g.cout, depth_padded) / per_word : 0;
      l.weights = aligned(columns);
      l.sums = l.weights + aligned(weights);
      sums = times(times(product_splits, g.cout), row);
      break;
    }
    case Path::pointwise: sums = times(times(images, g.cout), g.pixels()); break;
    case Path::transpose: sums = times(times(images, g.cout), times(g.taps(), g.in_pixels())); break;
    case Path::winograd: {
      const uint64_t tiles = times(images, winograd_tiles(g));
      l.weights = 0;
      l.columns = aligned(times(16, times(g.cout, g.cin)));
      l.sums = l.columns + aligned(times(16, times(g.cin, tiles)));
      sums = times(16, times(g.cout, tiles));
      break;
    }
  }
  l.total = l.sums > UINT64_MAX - sums ? UINT64_MAX : l.sums + sums;
  return l;
}

uint64_t Plan::scratch_words(const Geometry& g, DataType type, uint64_t images) const {
  return layout(g, type, images).total;
}

Plan plan(const Geometry& g, const Config& c) {
  Plan p;
  const bool matrix_ok = c.mode == KernelMode::fast && (c.type == DataType::float32 || c.matrix_f16);
  auto unsupported = [&](const char* why) {
    throw UnsupportedError(std::string(g.op) + " variant", why, conv_variant_name(c.variant));
  };
  if (g.transpose) {
    // Phase convolutions on the implicit kernels where they apply (dilation 1), the matrix kernel
    // for float16 where the device runs it and a phase has at most 256 taps; otherwise (or forced
    // col2im) Gemm into columns and the gathering col2im pass. Other forced variants choose as
    // automatic does.
    const bool matrix = c.type == DataType::float16 && c.implicit_matrix && c.mode == KernelMode::fast;
    const bool matrix_taps = ceil_div(g.kh, uint64_t(g.window.strides[0])) *
                                 ceil_div(g.kw, uint64_t(g.window.strides[1])) <=
                             kMatrixMaxTaps;
    switch (c.variant) {
      case ConvVariant::col2im:
        p.path = Path::transpose;
        break;
      case ConvVariant::phases:
        if (!phases_apply(g)) unsupported("dilation 1 and at most 256 phases (the strides' product)");
        p.path = matrix && matrix_taps ? Path::implicit_matrix : Path::implicit;
        break;
      case ConvVariant::implicit:
        if (!phases_apply(g)) unsupported("dilation 1 and at most 256 phases (the strides' product)");
        p.path = Path::implicit;
        break;
      case ConvVariant::implicit_matrix:
        if (!matrix) unsupported("float16 in fast mode on a device with 16 x 16 x 16 float16 cooperative matrices");
        if (!phases_apply(g) || !matrix_taps) unsupported("dilation 1, at most 256 phases and 256 taps a phase");
        p.path = Path::implicit_matrix;
        break;
      default:
        p.path = !phases_apply(g)         ? Path::transpose
                 : matrix && matrix_taps ? Path::implicit_matrix
                                         : Path::implicit;
        break;
    }
    if (p.path == Path::transpose) {
      p.epilogue_pass = true;
      return p;
    }
    p.phases = uint32_t(g.window.strides[0] * g.window.strides[1]);
  } else switch (c.variant) {
    case ConvVariant::col2im:
    case ConvVariant::phases: unsupported("a ConvTranspose"); break;
    case ConvVariant::automatic:
      p.path = g.depthwise()                        ? Path::direct
               : c.mode == KernelMode::fast && winograd_fits(g, c.type) && winograd_preferred(g) ? Path::winograd
               : !matrix_ok || !wide_product(g, c) ? Path::implicit
               : g.one_by_one() && direct_product(g, c) ? Path::pointwise
               : c.type == DataType::float16 && c.implicit_matrix && matrix_fits(g) && matrix_preferred(g)
                   ? Path::implicit_matrix
               : c.aliased_writable_bindings ? Path::unfold
                                             : Path::implicit;
      break;
    case ConvVariant::implicit_matrix:
      if (c.type != DataType::float16 || !c.implicit_matrix || c.mode != KernelMode::fast)
        unsupported("float16 in fast mode on a device with 16 x 16 x 16 float16 cooperative matrices");
      if (!matrix_fits(g)) unsupported("at most 256 taps");
      p.path = Path::implicit_matrix;
      break;
    case ConvVariant::direct:
      if (!g.depthwise()) unsupported("a depthwise convolution (one input channel per group)");
      p.path = Path::direct;
      break;
    case ConvVariant::implicit: p.path = Path::implicit; break;
    case ConvVariant::unfold:
      if (!c.aliased_writable_bindings)
        throw UnsupportedError("aliased_writable_bindings",
                               std::string(g.op) + " variant unfold: the scratch bound read-only and writable",
                               "a device that refuses it");
      p.path = Path::unfold;
      break;
    case ConvVariant::winograd:
      if (!winograd_fits(g, c.type)) unsupported("float32, a 3 x 3 kernel, stride 1, dilation 1 and one group");
      p.path = Path::winograd;
      break;
    case ConvVariant::pointwise:
      if (!g.one_by_one()) unsupported("a 1 x 1 convolution with stride 1 and no padding");
      p.path = Path::pointwise;
      break;
  }
  if (p.path == Path::implicit) {
    // float32 convolutions take the wide tile (64 x 128), unless that would leave a grid that fills
    // the device with 64 x 64 tiles (384 or more, no split) with fewer than 384 workgroups, or it is
    // forced off; ConvTranspose phases and float16 take the 64 x 64 one. Measured on an H200
    // (docs/conv.md): the stem 0.128 against 0.141 ms, 1 x 1 1024 -> 256 at 14 x 14 0.065 against
    // 0.077; 64 channels at 56 x 56 (392 narrow, 196 wide workgroups) 0.125 against 0.111.
    const uint64_t columns = g.batch * p.product_pixels(g), rows = ceil_div(g.cout_g, 64) * g.groups;
    const bool narrow_fills = ceil_div(columns, 64) * rows >= 384 && ceil_div(columns, 128) * rows < 384;
    p.wide = c.type == DataType::float32 && p.phases == 0 &&
             (c.implicit_wide == 1 || (c.implicit_wide != 0 && !narrow_fills));
    // Split k for small grids: fewer than 384 workgroups (192 of the wide tile) and at least eight
    // 32-term blocks; up to 16 ranges of at least 128 terms (multiples of 32) aiming at 512
    // workgroups (256). From the shape only (the whole batch), so chunks of images sum alike.
    const uint64_t k = p.product_depth(g);
    const uint64_t tiles = ceil_div(g.batch * p.product_pixels(g), p.wide ? 128 : 64) * ceil_div(g.cout_g, 64) *
                           g.groups * std::max(p.phases, 1u);
    split_k(p, tiles, k, p.wide ? 192 : 384, p.wide ? 256 : 512);
    p.epilogue_pass = p.splits > 1 || c.type == DataType::float16;
  }
  if (p.path == Path::implicit_matrix) {
    // The tile: 64 x 64 (measured fastest on an H200 for every benchmark layer, docs/conv.md).
    // Split k only for grids of fewer than 128 workgroups (each range a multiple of 32 terms, at
    // least 128), aiming at 256. The output is stored by the kernel when its pairs of halves fill whole words;
    // otherwise (and with split k) the epilogue pass finishes.
    p.tile = c.matrix_tile >= 0 && uint32_t(c.matrix_tile) < kMatrixTileCount ? uint32_t(c.matrix_tile) : 0u;
    const MatrixTile& t = kMatrixTiles[p.tile];
    const uint64_t k = p.product_depth(g);
    const uint64_t tiles =
        ceil_div(g.batch * p.product_pixels(g), t.bn) * ceil_div(g.cout_g, t.bm) * g.groups * std::max(p.phases, 1u);
    split_k(p, tiles, k, 128, 256);
    // Phases store whole words where a workgroup can make both column phases of a stride of 2
    // (an even output width and offset), else single halves (a phase's neighbouring pixels lie in
    // other phases); other products whole words, so an odd pixel count or offset goes through the pass.
    p.phase_pairs = p.phases != 0 && p.splits == 1 && g.window.strides[1] == 2 && g.ow % 2 == 0 &&
                    g.y_offset % 2 == 0 && matrix_tile_pairs(p.tile);
    p.epilogue_pass = p.splits > 1 || (p.phases == 0 && (g.pixels() % 2 != 0 || g.y_offset % 2 != 0));
  }
  if (p.path == Path::unfold || p.path == Path::pointwise || p.path == Path::winograd) p.epilogue_pass = true;
  if (p.path == Path::unfold) {
    const uint64_t k = g.depth();
    p.depth_padded = ceil_div(k, 8) * 8;
    p.pad_weights = p.depth_padded != k;
    // The matrix kernels do not split k themselves: a product of few 128 x 128 tiles is cut into
    // k ranges run as batch entries (at least 128 terms each, a multiple of 16, dividing the depth
    // evenly), aiming at 128 workgroups. From the whole batch's shape, so chunks sum alike.
    if (c.type == DataType::float16 && c.matrix_f16 && g.groups == 1) {
      const uint64_t tiles = ceil_div(g.cout, 128) * ceil_div(Plan::row_length(g, g.batch), 128);
      const uint64_t kp = p.depth_padded;
      if (tiles < 128 && kp >= 256) {
        for (uint64_t s = std::min<uint64_t>({16, ceil_div(128, tiles), kp / 128}); s >= 2; --s)
          if (kp % s == 0 && (kp / s) % 16 == 0 && kp / s >= 128) {
            p.product_splits = uint32_t(s);
            break;
          }
      }
    }
  }
  return p;
}

TileShape tile_shape(const Plan& p) {
  if (p.path == Path::implicit && p.wide) return {64, 128};
  if (p.path != Path::implicit_matrix) return {};
  return {kMatrixTiles[p.tile].bm, kMatrixTiles[p.tile].bn};
}

uint64_t chunk_images(const Plan& p, const Geometry& g, DataType type, uint64_t words) {
  if (p.scratch_words(g, type, g.batch) <= words) return g.batch;
  if (p.scratch_words(g, type, 1) > words) return 0;
  // Words grow with the images (monotone): the largest count that fits.
  uint64_t lo = 1, hi = g.batch;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (p.scratch_words(g, type, mid) <= words ? lo : hi) = mid;
  }
  return lo;
}

ConvPush push_constants(const Geometry& g, const Plan& p, uint64_t first, uint64_t images) {
  ConvPush c{};
  c.ih = uint32_t(g.ih), c.iw = uint32_t(g.iw), c.oh = uint32_t(g.oh), c.ow = uint32_t(g.ow);
  c.kh = uint32_t(g.kh), c.kw = uint32_t(g.kw);
  c.sh = uint32_t(g.window.strides[0]), c.sw = uint32_t(g.window.strides[1]);
  c.dh = uint32_t(g.window.dilations[0]), c.dw = uint32_t(g.window.dilations[1]);
  c.ph = uint32_t(g.window.pads[0]), c.pw = uint32_t(g.window.pads[1]);
  c.cin_g = uint32_t(g.cin_g), c.cout_g = uint32_t(g.cout_g), c.groups = uint32_t(g.groups);
  c.images = uint32_t(images);
  // Below 2^32 by check_sizes (first + images <= batch).
  c.x_off = uint32_t(g.x_offset + first * g.cin * g.in_pixels());
  c.w_off = uint32_t(g.w_offset);
  c.y_off = uint32_t(g.y_offset + first * g.cout * g.pixels());
  c.b_off = uint32_t(g.bias_offset);
  c.r_off = uint32_t(g.residual_offset + first * g.cout * g.pixels());
  c.flags = (g.bias ? OG_CONV_BIAS : 0u) | (g.residual ? OG_CONV_RESIDUAL : 0u) |
            (uint32_t(g.activation.op) << OG_CONV_ACT_SHIFT);
  c.act_alpha = g.activation.params.alpha, c.act_beta = g.activation.params.beta;
  c.splits = p.splits, c.k_chunk = p.k_chunk;
  return c;
}

std::string path_name(const Plan& p) {
  switch (p.path) {
    case Path::direct: return "conv.direct";
    case Path::implicit:
      return std::string(p.phases != 0 ? "conv.transpose.phases." : "conv.") + "implicit" + (p.wide ? ".wide" : "") +
             (p.splits > 1 ? ".splitk" + s(p.splits) : "");
    case Path::implicit_matrix:
      return std::string(p.phases != 0 ? "conv.transpose.phases." : "conv.") + "implicit_coopmat." +
             kMatrixTiles[p.tile].name + (p.phase_pairs ? ".pairs" : "") + (p.splits > 1 ? ".splitk" + s(p.splits) : "");
    case Path::unfold: return p.product_splits > 1 ? "conv.unfold.splitk" + s(p.product_splits) : "conv.unfold";
    case Path::pointwise: return "conv.pointwise";
    case Path::transpose: return "conv.transpose";
    case Path::winograd: return "conv.winograd";
  }
  return "conv";
}

std::vector<Product> products(const Geometry& g, const Plan& p, DataType type, uint64_t first, uint64_t images,
                              uint64_t columns_offset, uint64_t accumulators_offset) {
  std::vector<Product> out;
  if (p.path == Path::unfold) {
    const uint64_t row = Plan::row_length(g, images), kp = p.depth_padded;
    const uint64_t per_word = type == DataType::float16 ? 2 : 1;
    const Plan::Layout l = p.layout(g, type, images);
    Product x;
    x.b_is_scratch = true;
    x.a_is_scratch = p.pad_weights;
    GemmProblem& q = x.problem;
    q.m = g.cout_g, q.n = row;
    q.lda = p.pad_weights ? kp : g.depth(), q.ldb = row, q.ldc = row;
    q.offset_a = p.pad_weights ? columns_offset + l.weights * per_word : g.w_offset;
    q.offset_b = columns_offset + l.columns * per_word;
    q.offset_c = accumulators_offset + l.sums;
    q.plan_n = Plan::row_length(g, g.batch);
    if (p.product_splits > 1) {  // one group: k ranges as batch entries
      const uint64_t kc = kp / p.product_splits;
      q.k = kc, q.batch = p.product_splits;
      q.stride_a = kc, q.stride_b = kc * row, q.stride_c = g.cout * row;
    } else {
      q.k = kp, q.batch = g.groups;
      q.stride_a = g.cout_g * *q.lda, q.stride_b = kp * row, q.stride_c = g.cout_g * row;
    }
    out.push_back(x);
    return out;
  }
  // pointwise (x is B as it lies) and transpose (W^T times x into the column matrix).
  const bool t = p.path == Path::transpose;
  const uint64_t m = t ? g.cout_g * g.taps() : g.cout_g, k = g.cin_g, pix = t ? g.in_pixels() : g.pixels();
  const uint64_t x_image = g.cin * pix, x_group = g.cin_g * pix;
  const uint64_t w_group = m * k;
  const uint64_t c_image = g.groups * m * pix, c_group = m * pix;  // accumulators / columns per image, group
  const uint64_t x0 = g.x_offset + first * x_image, c0 = accumulators_offset;
  GemmProblem base;
  base.m = m, base.n = pix, base.k = k, base.transpose_a = t;
  base.lda = t ? m : k, base.ldb = pix, base.ldc = pix;
  if (g.groups == 1 || g.groups <= g.batch) {
    // Batch over images, one product per group.
    for (uint64_t grp = 0; grp < g.groups; ++grp) {
      Product x{base, false};
      GemmProblem& q = x.problem;
      q.batch = images, q.plan_batch = g.batch;
      q.offset_a = g.w_offset + grp * w_group, q.offset_b = x0 + grp * x_group, q.offset_c = c0 + grp * c_group;
      q.stride_a = 0, q.stride_b = x_image, q.stride_c = c_image;
      out.push_back(x);
    }
  } else {
    // Batch over groups, one product per image.
    for (uint64_t b = 0; b < images; ++b) {
      Product x{base, false};
      GemmProblem& q = x.problem;
      q.batch = g.groups;
      q.offset_a = g.w_offset, q.offset_b = x0 + b * x_image, q.offset_c = c0 + b * c_image;
      q.stride_a = w_group, q.stride_b = x_group, q.stride_c = c_group;
      out.push_back(x);
    }
  }
  return out;
}

}  // namespace onegpu::kernels::conv
