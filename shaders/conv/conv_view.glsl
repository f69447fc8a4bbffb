// The product one workgroup computes, seen as an ordinary convolution: the problem's own, or for
// a ConvTranspose phase (OG_CONV_PHASES, dilation 1) the stride-1 convolution of the input with
// the phase's taps, flipped, whose outputs are every stride-th pixel of y from the phase's first.
// For phases the push holds the ConvTranspose: ih/iw its input, oh/ow its output, kh/kw, sh/sw,
// ph/pw its window; w_off the phases' weights in order (row phase, column phase), each
// [out channel][input channel of the group][sub-kernel row][sub-kernel column].
struct ConvView {
  uint kh, kw, sh, sw, dh, dw;
  int ph, pw;
  uint oh, ow;  // the grid of outputs
  uint w_off;
  uint y_first, y_row, y_col;  // grid output (i, j) is pixel y_first + i y_row + j y_col of a plane of y
};

uint conv_phase_taps(uint r, uint s, uint k) { return k > r ? (k - r + s - 1u) / s : 0u; }

// One axis of phase r (stride s, kernel k, pad, output extent): taps r + s t, the first output o
// with (o + pad) % s == r, the outputs, the sub-convolution's pad (negative where the phase's
// first output reads past the input's start) and the taps of the phases before it.
void conv_phase_axis(uint r, uint s, uint k, uint pad, uint extent, out uint taps, out uint first, out uint count,
                     out int sub_pad, out uint taps_before) {
  taps = conv_phase_taps(r, s, k);
  first = (r + s - pad % s) % s;
  count = extent > first ? (extent - first + s - 1u) / s : 0u;
  sub_pad = int(taps) - 1 - int((first + pad - r) / s);
  taps_before = 0u;
  for (uint i = 0u; i < r; ++i) taps_before += conv_phase_taps(i, s, k);
}

ConvView conv_view(uint phase) {
  ConvView v;
  if ((p.flags & OG_CONV_PHASES) == 0u) {
    v.kh = p.kh, v.kw = p.kw, v.sh = p.sh, v.sw = p.sw, v.dh = p.dh, v.dw = p.dw;
    v.ph = int(p.ph), v.pw = int(p.pw), v.oh = p.oh, v.ow = p.ow, v.w_off = p.w_off;
    v.y_first = 0u, v.y_row = p.ow, v.y_col = 1u;
    return v;
  }
  uint fh, fw, before_h, before_w;
  conv_phase_axis(phase / p.sw, p.sh, p.kh, p.ph, p.oh, v.kh, fh, v.oh, v.ph, before_h);
  conv_phase_axis(phase % p.sw, p.sw, p.kw, p.pw, p.ow, v.kw, fw, v.ow, v.pw, before_w);
  v.sh = 1u, v.sw = 1u, v.dh = 1u, v.dw = 1u;
  v.w_off = p.w_off + p.cout_g * p.groups * p.cin_g * (before_h * p.kw + v.kh * before_w);
  v.y_first = fh * p.ow + fw, v.y_row = p.sh * p.ow, v.y_col = p.sw;
  return v;
}

// The pixel of y's plane that grid pixel `pix` of the view is.
uint conv_view_pixel(ConvView v, uint pix) {
  const uint i = pix / v.ow;
  return v.y_first + i * v.y_row + (pix - i * v.ow) * v.y_col;
}
