#pragma once
// Shared by the pooling and upsampling kernels: a contiguous tensor read as a
// stack of planes (P, H, W) over its last two dims, and a parallel loop over
// the planes.
#include <algorithm>

#include "ember/core/parallel.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {

struct Planes {
  int64_t count, in_h, in_w, out_h, out_w;
};

// in: (P, H, W), out: (P, OH, OW) by their last two dims.
inline Planes planes_of(const Tensor& in, const Tensor& out) {
  const int64_t oh = out.size(-2), ow = out.size(-1);
  return {oh * ow == 0 ? 0 : out.numel() / (oh * ow), in.size(-2), in.size(-1), oh, ow};
}

// Runs f(plane) for every plane, in parallel when there is enough work.
template <typename F>
void for_each_plane(const Planes& p, int64_t work_per_plane, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work_per_plane));
  parallel_for(0, p.count, grain, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) f(plane);
  });
}

}  // namespace ember::cpu
