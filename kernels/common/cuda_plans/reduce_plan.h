#pragma once
// The plain-data plan of one CUDA reduction (kernels/cuda/reduce_kernels.cuh),
// built on the host in every configuration so the CPU tests check it.
//
// The input's dims are split into kept and reduced dims, each ordered by
// input stride, innermost first (stride-0 expanded dims outermost), and
// neighbours of one kind that step through memory as one dim are merged, as
// the CPU loops do (kernels/cpu/reduce_loops.h, Note [Reduction layout]). Output
// o (in kept order) reduces `reduce_count` elements, element r in reduced order.
//
// A block is `slots` outputs times `lanes` threads per output:
// - inner mode (the innermost reduced dim is the input's fastest): lanes run
//   along threadIdx.x, so a warp's neighbouring lanes read neighbouring
//   elements of one output and combine by warp shuffle (then shared memory
//   when lanes > 32);
// - outer mode (a kept dim is fastest, or each output reduces 16 elements or
//   fewer): outputs run along threadIdx.x, so a warp reads neighbouring
//   outputs' elements (coalesced) while each thread walks the reduced dims;
//   lanes (threadIdx.y) split the reduction, combined in shared memory.
// When the outputs fill too few blocks for the device and the reduction is
// long, gridDim.y = splits > 1 blocks share each output's reduction: each
// writes its partial accumulator to a workspace and a second kernel combines
// the splits in order and writes the outputs (two passes).
#include <cstdint>
#include <optional>

#include "ember/core/dim_vector.h"
#include "ember/kernels/common/macros.h"

namespace ember::cuda {

constexpr int kMaxReduceDims = 8;      // of each kind, after merging
constexpr int kReduceThreads = 256;    // threads per block
constexpr int64_t kMaxReduceSplits = 65535;  // gridDim.y
// Bytes of workspace per output and split of a two-pass reduction (the widest accumulator).
constexpr int64_t kReduceWorkspaceBytes = 16;

// Dims of one kind, innermost first; strides in elements.
struct ReduceDims {
  int ndim = 0;
  int64_t sizes[kMaxReduceDims] = {};
  int64_t in_strides[kMaxReduceDims] = {};
  int64_t out_strides[kMaxReduceDims] = {};  // kept dims only
};

struct ReducePlan {
  ReduceDims kept, reduced;
  int64_t num_outputs = 0;
  int64_t reduce_count = 0;
  bool inner_mode = true;
  int lanes = 1;           // threads per output (a power of 2)
  int slots = 1;           // outputs per block; lanes * slots <= kReduceThreads
  int64_t blocks = 0;      // gridDim.x: ceil(num_outputs / slots)
  int64_t splits = 1;      // gridDim.y: blocks sharing one output's reduction
  int64_t split_size = 0;  // reduced elements per split (the last may have fewer)
  EMBER_HOST_DEVICE bool two_pass() const { return splits > 1; }
};

// The plan of reducing a tensor of `sizes` and element `strides` into the
// contiguous keepdim shape `keep_sizes` (size 1 at each reduced dim), on a
// device of `sm_count` multiprocessors. Error naming `op` when more than
// kMaxReduceDims dims of a kind remain after merging, or when the outputs
// need more than 2^31 - 1 blocks.
ReducePlan make_reduce_plan(const char* op, IntArrayRef sizes, IntArrayRef strides,
                            IntArrayRef keep_sizes, int sm_count);
// The same, or nullopt where make_reduce_plan would raise for too many dims
// (the caller then reduces a copy with kept dims first, reduced dims last).
std::optional<ReducePlan> try_make_reduce_plan(const char* op, IntArrayRef sizes,
                                               IntArrayRef strides, IntArrayRef keep_sizes,
                                               int sm_count);

// The launch of a row kernel (softmax, logsumexp, cross-entropy): `rows`
// contiguous rows of n elements, a group of `lanes` threads (a warp for short
// rows, up to the block for long ones) per row along threadIdx.x, `slots`
// rows per block along threadIdx.y, `blocks` blocks (Error past gridDim.x's
// 2^31 - 1).
struct RowPlan {
  int lanes = 32;
  int slots = kReduceThreads / 32;
  int64_t blocks = 0;
};
RowPlan make_row_plan(int64_t rows, int64_t n);

// Whether a softmax along the middle dim of a contiguous (outer, n, inner)
// tensor runs in place with one thread per (outer, inner) line, neighbouring
// threads on neighbouring lines (coalesced): when inner is at least a warp
// wide and there are enough lines to fill the device. Otherwise the op
// transposes the dim innermost and runs the row kernel.
bool softmax_by_columns(int64_t outer, int64_t inner);

// The input and output element offsets of output o (o < num_outputs).
EMBER_HOST_DEVICE void kept_offsets(const ReducePlan& p, int64_t o, int64_t& in_off,
                                           int64_t& out_off) {
  in_off = out_off = 0;
  for (int d = 0; d < p.kept.ndim; ++d) {
    const int64_t i = o % p.kept.sizes[d];
    o /= p.kept.sizes[d];
    in_off += i * p.kept.in_strides[d];
    out_off += i * p.kept.out_strides[d];
  }
}

// The input element offset of reduced element r (r < reduce_count).
EMBER_HOST_DEVICE int64_t reduced_offset(const ReducePlan& p, int64_t r) {
  if (p.reduced.ndim == 1) return r * p.reduced.in_strides[0];
  int64_t off = 0;
  for (int d = 0; d < p.reduced.ndim; ++d) {
    off += (r % p.reduced.sizes[d]) * p.reduced.in_strides[d];
    r /= p.reduced.sizes[d];
  }
  return off;
}

}  // namespace ember::cuda
