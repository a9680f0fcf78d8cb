#include "ember/nn/functional/fold.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/index_ops.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/nn_ops/pad.h"

namespace ember::nn::functional {

namespace {

// The window geometry of one call, shared by unfold and fold.
struct Windows {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

template <typename Options>
Windows windows_of(const char* op, const Options& o) {
  const Windows g{o.kernel_size()[0], o.kernel_size()[1], o.dilation()[0], o.dilation()[1],
                  o.padding()[0],     o.padding()[1],     o.stride()[0],   o.stride()[1]};
  EMBER_CHECK(g.kh > 0 && g.kw > 0, op, ": kernel_size must be positive, got ", o.kernel_size());
  EMBER_CHECK(g.dh > 0 && g.dw > 0, op, ": dilation must be positive, got ", o.dilation());
  EMBER_CHECK(g.sh > 0 && g.sw > 0, op, ": stride must be positive, got ", o.stride());
  EMBER_CHECK(g.ph >= 0 && g.pw >= 0, op, ": padding must be non-negative, got ", o.padding());
  return g;
}

// Block positions along one dim of size n (before padding); at least one.
int64_t blocks_along(const char* op, int64_t n, int64_t k, int64_t d, int64_t p, int64_t s,
                     const char* which) {
  const int64_t span = n + 2 * p - d * (k - 1) - 1;
  EMBER_CHECK(span >= 0, op, ": the ", which, " ", n, " with padding ", p,
              " is smaller than the dilated kernel (", d * (k - 1) + 1, ")");
  return span / s + 1;
}

// (kH * kW * oH * oW) int64: the flat position in the padded (Hp, Wp) image that
// window element (i, j) of block (y, x) reads, ordered (i, j, y, x).
Tensor window_index(const Windows& g, int64_t oh, int64_t ow, int64_t wp, Device device) {
  const TensorOptions opt = TensorOptions().dtype(kLong).device(device);
  const Tensor rows = (arange(g.kh, opt) * g.dh).view({g.kh, 1, 1, 1}) +
                      (arange(oh, opt) * g.sh).view({1, 1, oh, 1});
  const Tensor cols = (arange(g.kw, opt) * g.dw).view({1, g.kw, 1, 1}) +
                      (arange(ow, opt) * g.sw).view({1, 1, 1, ow});
  return (rows * wp + cols).reshape({-1});
}

}  // namespace

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
              "unfold: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got ", input.sizes());
  const Windows g = windows_of("unfold", options);
  const Tensor x = input.dim() == 4 ? input : input.unsqueeze(0);  // (N, C, H, W)
  const int64_t n = x.size(0), c = x.size(1);
  const int64_t oh = blocks_along("unfold", x.size(2), g.kh, g.dh, g.ph, g.sh, "height");
  const int64_t ow = blocks_along("unfold", x.size(3), g.kw, g.dw, g.pw, g.sw, "width");
  const Tensor padded = (g.ph || g.pw) ? constant_pad_nd(x, {g.pw, g.pw, g.ph, g.ph}) : x;
  const int64_t hp = padded.size(2), wp = padded.size(3);
  // (N, C, Hp * Wp) read at (kH * kW * L) positions -> (N, C * kH * kW, L)
  const Tensor cols = index_select(padded.reshape({n, c, hp * wp}), 2,
                                   window_index(g, oh, ow, wp, x.device()))
                          .reshape({n, c * g.kh * g.kw, oh * ow});
  return input.dim() == 4 ? cols : cols.squeeze(0);
}

Tensor fold(const Tensor& input, const FoldFuncOptions& options) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3,
              "fold: expected a 2-D (C * kH * kW, L) or 3-D (N, C * kH * kW, L) input, got ",
              input.sizes());
  const Windows g = windows_of("fold", options);
  const int64_t h = options.output_size()[0], w = options.output_size()[1];
  EMBER_CHECK(h > 0 && w > 0, "fold: output_size must be positive, got ", options.output_size());
  const Tensor cols = input.dim() == 3 ? input : input.unsqueeze(0);  // (N, C * kH * kW, L)
  const int64_t n = cols.size(0), k = g.kh * g.kw;
  EMBER_CHECK(cols.size(1) % k == 0, "fold: the size of dim ", input.dim() - 2, " of input ",
              input.sizes(), " must be divisible by the product of kernel_size (", k, ")");
  const int64_t oh = blocks_along("fold", h, g.kh, g.dh, g.ph, g.sh, "height");
  const int64_t ow = blocks_along("fold", w, g.kw, g.dw, g.pw, g.sw, "width");
  EMBER_CHECK(cols.size(2) == oh * ow, "fold: input ", input.sizes(), " has ", cols.size(2),
              " blocks, but output_size ", options.output_size(), " with these kernel_size, "
              "dilation, padding and stride gives ", oh, " x ", ow, " = ", oh * ow);
  const int64_t c = cols.size(1) / k, hp = h + 2 * g.ph, wp = w + 2 * g.pw;
  const Tensor index = window_index(g, oh, ow, wp, cols.device());
  const Tensor image =
      index_add(zeros({n, c, hp * wp}, cols.options()), 2, index, cols.reshape({n, c, k * oh * ow}))
          .view({n, c, hp, wp})
          .narrow(2, g.ph, h)
          .narrow(3, g.pw, w);
  return input.dim() == 3 ? image : image.squeeze(0);
}

}  // namespace ember::nn::functional
