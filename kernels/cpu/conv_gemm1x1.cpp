// 1x1 convolution with stride 1 and no padding: each image x[n] (C, H*W)
// already is the GEMM operand, so there is no unfold. y[n]_g = w_g @ x[n]_g.
#include "ember/kernels/cpu/conv.h"
#include "ember/kernels/cpu/conv_util.h"
#include "ember/kernels/cpu/gemm.h"

namespace ember::cpu {
namespace {

using conv_detail::ConvShape;

// Runs f(image) for every image: in parallel (one single-threaded GEMM per
// image) when there are enough images, else one after the other with the GEMM
// threading itself (as matmul's batched products).
template <typename F>
void for_each_image(const ConvShape& g, int64_t flops_per_image, const F& f) {
  constexpr int64_t kSmallGemm = int64_t(1) << 21;
  if (g.n > 1 && (flops_per_image <= kSmallGemm || g.n >= get_num_threads())) {
    parallel_for(0, g.n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(flops_per_image, 1)),
                 [&](int64_t begin, int64_t end) {
                   for (int64_t i = begin; i < end; ++i) f(i);
                 });
  } else {
    for (int64_t i = 0; i < g.n; ++i) f(i);
  }
}

}  // namespace

template <typename T>
void conv_gemm1x1_forward(const ConvParams& p, const ConvForwardArgs<T>& a) {
  const ConvShape g(p);
  for_each_image(g, g.k * g.c * g.hw / g.groups, [&](int64_t img) {
    const T* x = a.x + img * g.c * g.hw;
    T* y = a.y + img * g.k * g.hw;
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      gemm<T>(g.kg, g.hw, g.cg, T(1), {a.w + grp * g.kg * g.cg, g.cg, false},
              {x + grp * g.cg * g.hw, g.hw, false}, T(0), y + grp * g.kg * g.hw, g.hw);
    }
    if (a.bias) {
      for (int64_t ch = 0; ch < g.k; ++ch)
        for (int64_t j = 0; j < g.hw; ++j) y[ch * g.hw + j] += a.bias[ch];
    }
  });
}

template <typename T>
void conv_gemm1x1_backward_data(const ConvParams& p, const ConvBackwardDataArgs<T>& a) {
  const ConvShape g(p);
  for_each_image(g, g.k * g.c * g.hw / g.groups, [&](int64_t img) {
    const T* gy = a.gy + img * g.k * g.hw;
    T* gx = a.gx + img * g.c * g.hw;
    // gx_g (Cg, HW) = w_g^T (Cg, Kg) @ gy_g (Kg, HW)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      gemm<T>(g.cg, g.hw, g.kg, T(1), {a.w + grp * g.kg * g.cg, g.cg, true},
              {gy + grp * g.kg * g.hw, g.hw, false}, T(0), gx + grp * g.cg * g.hw, g.hw);
    }
    if (a.bias) {
      for (int64_t ch = 0; ch < g.c; ++ch)
        for (int64_t j = 0; j < g.hw; ++j) gx[ch * g.hw + j] += a.bias[ch];
    }
  });
}

template <typename T>
void conv_gemm1x1_backward_weight(const ConvParams& p, const ConvBackwardWeightArgs<T>& a) {
  const ConvShape g(p);
  const int64_t wsize = g.k * g.cg;
  // gw_g (Kg, Cg) = sum over images of gy[n]_g (Kg, HW) @ x[n]_g^T (HW, Cg). Each
  // thread sums its share of the images into its own partial; the partials are added.
  const int64_t parts = std::min<int64_t>(g.n, get_num_threads());
  const Tensor partial_buf = conv_detail::scratch<T>(parts > 1 ? (parts - 1) * wsize : 0);
  auto sum_images = [&](int64_t part) {
    T* gw = part == 0 ? a.gw : partial_buf.data_ptr<T>() + (part - 1) * wsize;
    const int64_t begin = g.n * part / parts, end = g.n * (part + 1) / parts;
    for (int64_t img = begin; img < end; ++img) {
      const T* gy = a.gy + img * g.k * g.hw;
      const T* x = a.x + img * g.c * g.hw;
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        gemm<T>(g.kg, g.cg, g.hw, T(1), {gy + grp * g.kg * g.hw, g.hw, false},
                {x + grp * g.cg * g.hw, g.hw, true}, img == begin ? T(0) : T(1),
                gw + grp * g.kg * g.cg, g.cg);
      }
    }
  };
  if (parts == 1) return sum_images(0);
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) sum_images(part);
  });
  const T* partials = partial_buf.data_ptr<T>();
  for (int64_t part = 1; part < parts; ++part)
    for (int64_t i = 0; i < wsize; ++i) a.gw[i] += partials[(part - 1) * wsize + i];
}

#define EMBER_INSTANTIATE(T)                                                                       \
  template void conv_gemm1x1_forward<T>(const ConvParams&, const ConvForwardArgs<T>&);             \
  template void conv_gemm1x1_backward_data<T>(const ConvParams&,                                   \
                                              const ConvBackwardDataArgs<T>&);                     \
  template void conv_gemm1x1_backward_weight<T>(const ConvParams&,                                 \
                                                const ConvBackwardWeightArgs<T>&);
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
#undef EMBER_INSTANTIATE

}  // namespace ember::cpu
