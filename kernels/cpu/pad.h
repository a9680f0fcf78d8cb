#pragma once
// The CPU entry points of the pad family (kernels/common/pad_kernels.h says
// what each computes and what the op has checked), registered in
// kernels/cpu/register_kernels.cpp: contiguous tensors read as (outer, n,
// inner) around the padded dim, work split over (outer, output position) rows.
#include "ember/core/tensor.h"
#include "ember/kernels/common/pad_functors.h"
#include "ember/kernels/common/pad_kernels.h"

namespace ember::cpu {

// x: (outer, a.in, inner) -> out: (outer, a.out, inner); out[o] = x[a.source(o)],
// or `value` where the source is -1.
decltype(PadKernels::axis)::Signature pad_axis;
// The adjoint (gather form): grad_in[i] = the sum of grad_out over a.outputs_of(i).
decltype(PadKernels::axis_backward)::Signature pad_axis_backward;

}  // namespace ember::cpu
