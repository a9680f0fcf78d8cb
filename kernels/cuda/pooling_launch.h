#pragma once
// The launches of the pooling and upsampling kernels
// (kernels/cuda/{pooling,upsample}_kernels.cu, CUDA builds only), on plain
// data: the entry points of kernels/cuda/{pooling,upsample}.h read the
// tensors. Every buffer is contiguous device memory of `device`, read as
// `planes` stacked planes: the forward's input (in_h, in_w) and output
// (out_h, out_w); a backward reads the output's shape and writes the input's.
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/kernels/common/pooling_functors.h"

namespace ember::cuda::detail {

struct PlaneShape {
  int64_t planes, in_h, in_w, out_h, out_w;
};

void launch_max_pool2d(ScalarType t, const void* x, void* out, int64_t* indices,
                       const PlaneShape& s, const functors::PoolWindow& w, int device);
void launch_max_pool2d_backward(ScalarType t, const void* grad_out, const int64_t* indices,
                                void* grad_in, const PlaneShape& s, const functors::PoolWindow& w,
                                int device);
void launch_avg_pool2d(ScalarType t, const void* x, void* out, const PlaneShape& s,
                       const functors::PoolWindow& w, bool count_include_pad, int device);
void launch_avg_pool2d_backward(ScalarType t, const void* grad_out, void* grad_in,
                                const PlaneShape& s, const functors::PoolWindow& w,
                                bool count_include_pad, int device);
void launch_adaptive_avg_pool2d(ScalarType t, const void* x, void* out, const PlaneShape& s,
                                int device);
void launch_adaptive_avg_pool2d_backward(ScalarType t, const void* grad_out, void* grad_in,
                                         const PlaneShape& s, int device);
void launch_adaptive_max_pool2d(ScalarType t, const void* x, void* out, int64_t* indices,
                                const PlaneShape& s, int device);

void launch_upsample_nearest2d(ScalarType t, const void* x, void* out, const PlaneShape& s,
                               int device);
void launch_upsample_nearest2d_backward(ScalarType t, const void* grad_out, void* grad_in,
                                        const PlaneShape& s, int device);
void launch_upsample_bilinear2d(ScalarType t, const void* x, void* out, const PlaneShape& s,
                                bool align_corners, int device);
void launch_upsample_bilinear2d_backward(ScalarType t, const void* grad_out, void* grad_in,
                                         const PlaneShape& s, bool align_corners, int device);

}  // namespace ember::cuda::detail
