#pragma once
// The device half of Note [Index error report] (kernels/cuda/indexing.cpp),
// shared by the .cu files whose kernels report bad indices or class targets
// (indexing_kernels.cu, cross_entropy.cu). CUDA code only. The claim lives in
// memory whose address the kernel is given (IndexErrorSink), not in a
// __device__ variable: without separable compilation each .cu file would
// have its own copy of one.
#include "ember/kernels/common/cuda_plans/indexing_plan.h"

namespace ember::cuda::detail {

// Records a bad value in the device's report unless a thread has claimed it
// since the host last cleared it: the first bad thread takes the claim and
// alone writes the report, so its fields all come from one thread. The fence
// orders the fields before the status the host polls.
__device__ inline void report_index_error(const IndexErrorSink& sink, IndexErrorKind kind,
                                          const char* op, int64_t value, int64_t size,
                                          int64_t dim, int64_t ignore_index) {
  if (*static_cast<volatile unsigned int*>(sink.claim) != 0u) return;  // cheap pre-check
  if (atomicCAS(sink.claim, 0u, 1u) != 0u) return;
  volatile IndexErrorReport* v = sink.report;
  v->value = value;
  v->size = size;
  v->dim = dim;
  v->ignore_index = ignore_index;
  v->op = reinterpret_cast<uint64_t>(op);
  v->kind = kind;
  __threadfence_system();
  v->status = 1;
}

}  // namespace ember::cuda::detail
