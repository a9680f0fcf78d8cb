#pragma once
// The launches of the indexing kernels (kernels/cuda/indexing_kernels.cu,
// CUDA builds only), on plain data: the entry points there plan each launch
// from the tensors (the plans are in kernels/common/cuda_plans/
// index_launch.cpp). `errors` holds the device addresses of the out-of-range
// report and its claim (indexing_plan.h); `op` a string literal.
#include "ember/core/dtype.h"
#include "ember/kernels/common/scatter_functors.h"
#include "ember/kernels/common/cuda_plans/indexing_plan.h"

namespace ember::cuda::detail {

// dense[p] = indexed[p at index[p]] (gather, index_select), any dtype.
void launch_gather(const char* op, const IndexLaunch& l, ScalarType dtype, void* dense,
                   const void* indexed, const int64_t* index, int device,
                   const IndexErrorSink& errors);
// indexed[p at index[p]] += dense[p] atomically; int64, float32, float64.
void launch_scatter_add(const char* op, const IndexLaunch& l, ScalarType dtype,
                        const void* dense, void* indexed, const int64_t* index, int device,
                        const IndexErrorSink& errors);

// indexed[p at index[p]] = dense[p] (scatter), any dtype; where positions
// repeat, one of the writes lands.
void launch_scatter(const char* op, const IndexLaunch& l, ScalarType dtype, const void* dense,
                    void* indexed, const int64_t* index, int device,
                    const IndexErrorSink& errors);
// indexed[p at index[p]] = reduce(that, dense[p]) by compare-and-swap loops
// (scatter_reduce's prod, amax, amin); int64, float32, float64.
void launch_scatter_reduce(const char* op, const IndexLaunch& l, ScalarType dtype,
                           const void* dense, void* indexed, const int64_t* index, int device,
                           const IndexErrorSink& errors, functors::ScatterReduce reduce);
// indexed[p at index[p]] = 1 (one_hot's marks, in int64 zeros).
void launch_one_hot(const char* op, const IndexLaunch& l, int64_t* indexed,
                    const int64_t* index, int device, const IndexErrorSink& errors);

}  // namespace ember::cuda::detail
