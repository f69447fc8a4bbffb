#include "kernels/conv_integer/conv_integer_plan.h"

#include <algorithm>
#include <string>

#include "kernels/common/checked.h"
#include "kernels/common/conv_channels.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::conv_integer {
namespace {

constexpr uint64_t kIndexLimit = uint64_t(1) << 32;  // every element index is a 32-bit uint
constexpr uint64_t kCountLimit = uint64_t(1) << 31;  // element counts of one tensor

std::string s(uint64_t v) { return std::to_string(v); }

bool checked_signed(const char* argument, DataType t) {
  if (t != DataType::uint8 && t != DataType::int8)
    throw UnsupportedError(std::string(kOp) + " " + argument + " element type", "uint8 or int8",
                           std::string(data_type_name(t)));
  return t == DataType::int8;
}

}  // namespace

Geometry resolve(const ConvIntegerProblem& p) {
  const char* op = kOp;
  Geometry g;
  g.x_signed = checked_signed("x", p.x_type);
  g.w_signed = checked_signed("w", p.w_type);
  check_conv_channels(op, p.batch, p.in_channels, p.out_channels, p.groups);
  g.window = resolve_auto_pad(p.window, p.auto_pad, p.input, op);
  const Extent2 out = window_output_extent(g.window, p.input, false, op);
  g.batch = uint64_t(p.batch), g.cin = uint64_t(p.in_channels), g.cout = uint64_t(p.out_channels);
  g.groups = uint64_t(p.groups), g.cin_g = g.cin / g.groups, g.cout_g = g.cout / g.groups;
  g.ih = uint64_t(p.input[0]), g.iw = uint64_t(p.input[1]), g.oh = uint64_t(out[0]), g.ow = uint64_t(out[1]);
  g.kh = uint64_t(g.window.kernel[0]), g.kw = uint64_t(g.window.kernel[1]);
  g.x_offset = p.x_offset, g.w_offset = p.w_offset, g.y_offset = p.y_offset;

  const Counts n = counts(g);
  struct Item {
    const char* name;
    uint64_t count, offset;
  } items[] = {{"x", n.x, g.x_offset}, {"w", n.w, g.w_offset}, {"y", n.y, g.y_offset}};
  for (const Item& i : items) {
    if (i.count >= kCountLimit) throw KernelShapeError(op, i.name, s(i.count) + " elements: not below 2^31");
    if (i.offset >= kIndexLimit || i.offset + i.count >= kIndexLimit)
      throw KernelShapeError(op, i.name, "offset " + s(i.offset) + " + " + s(i.count) + " elements passes 2^32");
  }
  // One image's column matrices (every factor below 2^31: each product checked).
  const uint64_t depth = checked_mul(op, "x", g.cin_g, checked_mul(op, "x", g.kh, g.kw));
  const uint64_t image = checked_mul(op, "x", checked_mul(op, "x", g.groups, depth), g.row_bytes());
  if (image >= kCountLimit) throw KernelShapeError(op, "x", "the unfolded image has 2^31 bytes or more");
  return g;
}

Counts counts(const Geometry& g) {
  const char* op = kOp;
  Counts c;
  c.x = checked_mul(op, "x", checked_mul(op, "x", g.batch, g.cin), checked_mul(op, "x", g.ih, g.iw));
  c.w = checked_mul(op, "w", checked_mul(op, "w", g.cout, g.cin_g), checked_mul(op, "w", g.kh, g.kw));
  c.y = checked_mul(op, "y", checked_mul(op, "y", g.batch, g.cout), checked_mul(op, "y", g.oh, g.ow));
  return c;
}

uint64_t chunk_images(const Geometry& g, uint64_t bytes) {
  const uint64_t per_image = g.image_bytes();  // below 2^31 (resolve)
  if (per_image == 0) return g.batch;
  return std::min(g.batch, bytes / per_image);
}

Grouping grouping(const Geometry& g, bool w_zero_per_channel) {
  if (g.groups == 1) return Grouping::whole;
  // Per-channel zero points are one range per product: a product per group then. Otherwise
  // whichever records fewer products for the whole batch.
  return w_zero_per_channel || g.groups <= g.batch ? Grouping::per_group : Grouping::per_image;
}

uint64_t product_count(const Geometry& g, Grouping grouping, uint64_t images) {
  switch (grouping) {
    case Grouping::whole: return 1;
    case Grouping::per_image: return images;
    case Grouping::per_group: return g.groups;
  }
  return 0;
}

Product product(const Geometry& g, Grouping grouping, uint64_t first, uint64_t images, uint64_t index,
                uint64_t columns_offset) {
  // Every term below 2^32 by resolve and the scratch checks: the sums fit 64 bits.
  const uint64_t pix = g.pixels(), row = g.row_bytes(), depth = g.depth();
  const uint64_t group_columns = depth * row, image_columns = g.image_bytes();
  const uint64_t y_image = g.cout * pix, y0 = g.y_offset + first * y_image;
  Product out;
  IntegerGemmProblem& q = out.problem;
  q.n = pix, q.k = depth;
  q.a_type = g.w_signed ? DataType::int8 : DataType::uint8;
  q.b_type = g.x_signed ? DataType::int8 : DataType::uint8;
  q.lda = depth, q.ldb = row, q.ldc = pix;
  switch (grouping) {
    case Grouping::whole:
      q.m = g.cout, q.batch = images;
      q.offset_a = g.w_offset, q.offset_b = columns_offset, q.offset_c = y0;
      q.stride_a = 0, q.stride_b = image_columns, q.stride_c = y_image;
      break;
    case Grouping::per_image:
      q.m = g.cout_g, q.batch = g.groups;
      q.offset_a = g.w_offset, q.offset_b = columns_offset + index * image_columns, q.offset_c = y0 + index * y_image;
      q.stride_a = g.cout_g * depth, q.stride_b = group_columns, q.stride_c = g.cout_g * pix;
      break;
    case Grouping::per_group:
      q.m = g.cout_g, q.batch = images;
      q.offset_a = g.w_offset + index * g.cout_g * depth;
      q.offset_b = columns_offset + index * group_columns;
      q.offset_c = y0 + index * g.cout_g * pix;
      q.stride_a = 0, q.stride_b = image_columns, q.stride_c = y_image;
      out.w_zero_shift = index * g.cout_g;
      break;
  }
  return out;
}

ConvIntegerPush unfold_push(const Geometry& g, uint64_t first, uint64_t images, uint64_t columns_offset) {
  ConvIntegerPush c{};
  c.ih = uint32_t(g.ih), c.iw = uint32_t(g.iw), c.oh = uint32_t(g.oh), c.ow = uint32_t(g.ow);
  c.kh = uint32_t(g.kh), c.kw = uint32_t(g.kw);
  c.sh = uint32_t(g.window.strides[0]), c.sw = uint32_t(g.window.strides[1]);
  c.dh = uint32_t(g.window.dilations[0]), c.dw = uint32_t(g.window.dilations[1]);
  c.ph = uint32_t(g.window.pads[0]), c.pw = uint32_t(g.window.pads[1]);
  c.cin_g = uint32_t(g.cin_g), c.depth = uint32_t(g.depth()), c.row_words = uint32_t(g.row_bytes() / 4);
  // Below 2^32 by resolve (first + images <= batch) and the scratch checks.
  c.x_off = uint32_t(g.x_offset + first * g.cin * g.in_pixels());
  c.t_off = uint32_t(columns_offset / 4);
  c.words = uint32_t(images * g.image_bytes() / 4);
  return c;
}

}  // namespace onegpu::kernels::conv_integer
