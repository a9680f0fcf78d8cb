#pragma once
// The indexing ops on CUDA tensors: the device half of core/ops/indexing/indexing.cpp.
// The op has checked dtypes, devices and shapes; every tensor here lives on
// one CUDA device, dims >= 1 (0-d tensors viewed as 1-d).
//
// Index values are checked by the kernels, not on the host (that would cost a
// device->host sync per op). An out-of-range index does not touch memory:
// gather / index_select write 0 at that position, scatter_add skips it. The
// first bad index a device finds is recorded in a small report in
// host-mapped memory; the next CUDA indexing op on the host, or
// cuda::check_index_errors() (core/cuda/runtime.h), raises an Error such as
//   "gather: index 7 is out of bounds for dimension 1 with size 5 (valid range
//   [0, 4]); found by a CUDA kernel of an earlier call (reported asynchronously)"
// once, and clears the report (Note [Index error report] in indexing.cpp).
// The cross-entropy kernels report a bad class target in the same report
// (kernels/cuda/cross_entropy.h), raised the same way:
//   "cross_entropy: target 12 is out of bounds for 10 classes (valid range
//   [0, 9], or ignore_index -100); found by a CUDA kernel of an earlier call
//   (reported asynchronously)"
// Unlike a device-side assert, the CUDA context stays usable.
//
// The entry points of the indexing family's table
// (kernels/common/indexing_kernels.h) are in indexing_kernels.cu (CUDA builds
// only; registered in kernels/cuda/register_kernels.cu); the report's host
// half is in indexing.cpp; the launch plans are plain C++ in
// kernels/common/cuda_plans/index_launch.h, compiled in every build.
#include <optional>

#include "ember/core/tensor.h"
#include "ember/kernels/common/cuda_plans/index_launch.h"
#include "ember/kernels/common/indexing_kernels.h"
#include "ember/kernels/common/scatter_functors.h"

namespace ember::cuda {

// No value the host can see: the kernels check the index (see above).
decltype(IndexingKernels::find_out_of_range)::Signature find_out_of_range;
// out[p] = self[p with p[dim] = index[p]] over index's shape (out: index's shape).
decltype(IndexingKernels::gather)::Signature gather;
// out = self with the slices along dim picked by the 1-d index (out: contiguous).
decltype(IndexingKernels::index_select)::Signature index_select;
// self[p with p[dim] = index[p]] += src[p] over index's shape, by atomic adds
// (so repeated indices accumulate; float sums in no fixed order). int64,
// float32, float64.
decltype(IndexingKernels::scatter_add)::Signature scatter_add;

// self[p with p[dim] = index[p]] = src[p] over index's shape (any dtype);
// with repeated positions one write lands (unspecified which).
decltype(IndexingKernels::scatter)::Signature scatter;
// self[p with p[dim] = index[p]] = reduce(that, src[p]) by atomic
// compare-and-swap: scatter_reduce's prod, amax, amin (int64, float32, float64).
decltype(IndexingKernels::scatter_reduce)::Signature scatter_reduce;
// out[i, indices[i, 0]] = 1 (out: (n, C) int64 zeros); a bad value is
// reported as the other kernels' bad indices are.
decltype(IndexingKernels::one_hot)::Signature one_hot;

namespace hooks {
// cuda::check_index_errors() (core/cuda/runtime.h, through the backend hooks:
// Note [CUDA backend hooks] in core/cuda/backend.h): waits for every device
// that ran a reporting kernel, then raises its report, if any.
void check_index_errors();
}  // namespace hooks

namespace detail {
// For the other ops whose kernels report (kernels/cuda/cross_entropy.cu).
// Raises the Error of a report a kernel of an earlier call wrote, if any,
// without a sync: every reporting op calls it before it launches.
void raise_reported_index_error();
// The device addresses of `device`'s report and claim for a kernel launched
// there (made on the device's first call; noted for check_index_errors).
IndexErrorSink index_error_sink(int device);
}  // namespace detail

}  // namespace ember::cuda
