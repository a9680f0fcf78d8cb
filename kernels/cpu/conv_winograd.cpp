// Winograd passes for 3x3 convolutions with stride 2 (float32, builds with AVX-512 or AVX2 and
// FMA): 81 multiplications per 4x4 output tile and channel pair instead of 144 (Note
// [Stride-2 Winograd] in conv_winograd_algorithm.h; the backward passes' Notes in
// conv_winograd_backward_data.h and conv_winograd_backward_weight.h).
#include "ember/kernels/cpu/conv.h"

#include "ember/core/error.h"

#if defined(__AVX512F__)
// GCC 12's AVX-512 headers make their "undefined" vectors by self-initialisation.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "ember/kernels/cpu/conv_winograd_isa.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <algorithm>
#include <memory>

#include "ember/kernels/cpu/conv_winograd_algorithm.h"
#include "ember/kernels/cpu/conv_winograd_backward_data.h"
#include "ember/kernels/cpu/conv_winograd_backward_weight.h"
#include "ember/kernels/cpu/conv_winograd_cache.h"
#endif

namespace ember::cpu {

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
namespace {

using winograd::Isa;
using winograd::kWeightPoints;

winograd::WeightCache& weight_cache() {
  static winograd::WeightCache cache;
  return cache;
}

void check_applies(const ConvParams& p) {
  EMBER_CHECK(conv_winograd_applies(p), "conv2d: the Winograd algorithm takes float32 3x3 "
              "convolutions with stride 2, no dilation and one group, got ", p.key());
}

}  // namespace

bool conv_winograd_available() { return true; }

bool conv_winograd_applies(const ConvParams& p) {
  return p.dtype == ScalarType::Float && p.groups == 1 && p.r == 3 && p.s == 3 &&
         p.stride[0] == 2 && p.stride[1] == 2 && p.dilation[0] == 1 && p.dilation[1] == 1;
}

// 16+ input channels: the products' reduction is over the channels, and a first layer's
// 1 or 3 leave the micro-kernel idle; transformed weights of at most 16 MiB: larger ones
// stream from memory at every call.
bool conv_winograd_preferred(const ConvParams& p) {
  return conv_winograd_applies(p) && p.inference && p.c >= 16 &&
         kWeightPoints * p.k * p.c <= (int64_t(1) << 22);
}

void conv_winograd_forward(const ConvParams& p, const ConvForwardArgs<float>& a) {
  check_applies(p);
  const winograd::Plan<Isa> plan{conv_detail::ConvShape(p)};
  // Inference: the transformed weights are kept for the next call. Training: its
  // weights change at every step, so they are transformed into scratch each time.
  std::shared_ptr<const winograd::WeightCache::Entry> weights;
  Tensor transformed;
  const float* u_packed;
  if (p.inference) {
    weights = weight_cache().get(p.k, p.c, a.w, kWeightPoints * p.k * p.c,
                                 &winograd::transform_forward_weights<Isa>);
    u_packed = weights->packed.data();
  } else {
    transformed = conv_detail::scratch<float>(kWeightPoints * p.k * p.c);
    winograd::transform_forward_weights<Isa>(p.k, p.c, a.w, transformed.data_ptr<float>());
    u_packed = transformed.data_ptr<float>();
  }
  winograd::for_each_group(
      plan.groups, plan.q_floats() + plan.v_floats() + plan.m_floats(), plan.q_floats(),
      [&](int64_t group, float* scratch) {
        winograd::run_group(plan, a, u_packed, p.relu, group, scratch);
      });
}

void conv_winograd_backward_data(const ConvParams& p, const ConvBackwardDataArgs<float>& a) {
  check_applies(p);
  const winograd::DataPlan<Isa> plan{conv_detail::ConvShape(p)};
  // U'_t (C, K): the kernel turned by 180 degrees, rows c (stride 9), reduction k (C * 9).
  const Tensor transformed = conv_detail::scratch<float>(kWeightPoints * p.k * p.c);
  float* u_packed = transformed.data_ptr<float>();
  winograd::transform_weights<Isa>(p.c, p.k, 9, p.c * 9, true, a.w, u_packed);
  winograd::for_each_group(
      plan.groups, plan.q_floats() + plan.v_floats() + plan.m_floats() + plan.o_floats(),
      plan.q_floats(), [&](int64_t group, float* scratch) {
        winograd::run_group_data(plan, a, u_packed, group, scratch);
      });
}

void conv_winograd_backward_weight(const ConvParams& p, const ConvBackwardWeightArgs<float>& a) {
  check_applies(p);
  const int64_t parts = ember::detail::in_parallel_region() ? 1 : get_num_threads();
  const winograd::WeightPlan<Isa> plan{conv_detail::ConvShape(p), parts};
  const Tensor v = conv_detail::scratch<float>(plan.v_floats());
  const Tensor m = conv_detail::scratch<float>(kWeightPoints * p.k * p.c);
  float* v_panels = v.data_ptr<float>();
  float* products = m.data_ptr<float>();
  const Tensor scratch = conv_detail::scratch<float>(parts * plan.scratch_floats());
  for (int64_t part = 0; part < parts; ++part) {  // the planes' zeros (see build_planes)
    float* own = scratch.data_ptr<float>() + part * plan.scratch_floats();
    std::fill(own, own + plan.q_floats() + plan.gy_floats(), 0.0f);
  }
  // One group of images at a time (Note [Stride-2 Winograd backward-weight]).
  const Tensor stage = conv_detail::scratch<float>(plan.c_panels * plan.stage_floats());
  for (int64_t group = 0; group < plan.groups; ++group) {
    winograd::GroupTasks<Isa> tasks(plan, a, group, stage.data_ptr<float>(), v_panels, products);
    parallel_for(0, parts, 1, [&](int64_t part, int64_t) {  // one scratch per running part
      tasks.run(scratch.data_ptr<float>() + part * plan.scratch_floats());
    });
  }
  parallel_for(0, p.k, 1, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k)
      winograd::gradient_taps<Isa>(plan.g, products, k, a.gw);
  });
}

#else  // neither AVX-512 nor AVX2 in this build

bool conv_winograd_available() { return false; }

bool conv_winograd_applies(const ConvParams&) { return false; }

bool conv_winograd_preferred(const ConvParams&) { return false; }

void conv_winograd_forward(const ConvParams&, const ConvForwardArgs<float>&) {
  EMBER_ERROR("conv2d: this build has no Winograd convolution (compile with -mavx512f or "
              "-mavx2 -mfma)");
}

void conv_winograd_backward_data(const ConvParams&, const ConvBackwardDataArgs<float>&) {
  EMBER_ERROR("conv2d: this build has no Winograd convolution (compile with -mavx512f or "
              "-mavx2 -mfma)");
}

void conv_winograd_backward_weight(const ConvParams&, const ConvBackwardWeightArgs<float>&) {
  EMBER_ERROR("conv2d: this build has no Winograd convolution (compile with -mavx512f or "
              "-mavx2 -mfma)");
}

#endif

}  // namespace ember::cpu
