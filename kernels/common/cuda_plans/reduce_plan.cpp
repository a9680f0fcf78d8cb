#include "ember/kernels/common/cuda_plans/reduce_plan.h"

#include <algorithm>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/shape.h"
#include "ember/kernels/common/reduce_dims.h"

namespace ember::cuda {
namespace {

// Reduced elements one thread should fold at least before a split is worth it.
constexpr int64_t kMinPerThread = 64;
// Reductions this short get one thread per output, whatever the strides.
constexpr int64_t kShortReduction = 16;
// Resident blocks of kReduceThreads per multiprocessor the splits aim to fill.
constexpr int64_t kBlocksPerSm = 4;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int pow2_at_least(int64_t n, int cap) {
  int p = 1;
  while (p < cap && p < n) p *= 2;
  return p;
}

// False (nothing pushed) when dims is full.
bool push(ReduceDims& dims, int64_t size, int64_t in_stride, int64_t out_stride) {
  if (dims.ndim == kMaxReduceDims) return false;
  dims.sizes[dims.ndim] = size;
  dims.in_strides[dims.ndim] = in_stride;
  dims.out_strides[dims.ndim] = out_stride;
  ++dims.ndim;
  return true;
}

// gridDim.x's limit.
constexpr int64_t kMaxBlocks = 2147483647;

int64_t numel(const ReduceDims& dims) {
  int64_t n = 1;
  for (int d = 0; d < dims.ndim; ++d) n *= dims.sizes[d];
  return n;
}

// Threads per output and outputs per block (see reduce_plan.h).
void choose_block(ReducePlan& p) {
  const int64_t r = p.reduce_count, n = p.num_outputs;
  if (p.inner_mode) {
    // A warp per output for short reductions, up to the whole block for long ones.
    p.lanes = 32;
    while (p.lanes < kReduceThreads && p.lanes * 16 < r) p.lanes *= 2;
    p.slots = kReduceThreads / p.lanes;
    return;
  }
  // A warp's width of neighbouring outputs (coalesced), lanes while the
  // reduction is long enough to share, then more outputs.
  p.slots = pow2_at_least(n, 32);
  p.lanes = 1;
  while (p.lanes * p.slots < kReduceThreads && p.lanes * 16 < r) p.lanes *= 2;
  while (p.lanes * p.slots < kReduceThreads && p.slots < n) p.slots *= 2;
}

}  // namespace

std::optional<ReducePlan> try_make_reduce_plan(const char* op, IntArrayRef sizes,
                                               IntArrayRef strides, IntArrayRef keep_sizes,
                                               int sm_count) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size() && sizes.size() == keep_sizes.size(), op,
                        ": reduce plan of shape ", sizes, " into ", keep_sizes);
  ReducePlan p;
  for (const ReduceDim& d : merged_reduce_dims(sizes, strides, keep_sizes))
    if (!push(d.reduced ? p.reduced : p.kept, d.size, d.in_stride, d.out_stride))
      return std::nullopt;
  if (p.reduced.ndim == 0) push(p.reduced, 1, 0, 0);  // each output reads one element
  p.num_outputs = numel(p.kept);
  p.reduce_count = numel(p.reduced);
  p.inner_mode =
      p.kept.ndim == 0 ||
      reduce_order_key(p.reduced.in_strides[0]) < reduce_order_key(p.kept.in_strides[0]);
  // A few elements per output: a warp each would leave most lanes idle, so one
  // thread per output walks them (neighbouring threads still read nearby).
  if (p.inner_mode && p.kept.ndim > 0 && p.reduce_count <= kShortReduction) p.inner_mode = false;
  choose_block(p);
  p.blocks = ceil_div(p.num_outputs, p.slots);
  EMBER_CHECK(p.blocks <= kMaxBlocks, op, ": ", p.num_outputs,
              " outputs exceed the CUDA reduction's grid (tensor of shape ", sizes, ")");
  p.split_size = p.reduce_count;
  const int64_t target_blocks = std::max(1, sm_count) * kBlocksPerSm;
  if (p.blocks > 0 && p.blocks < target_blocks && p.reduce_count > p.lanes * kMinPerThread) {
    const int64_t splits =
        std::min({ceil_div(target_blocks, p.blocks), ceil_div(p.reduce_count, p.lanes * kMinPerThread),
                  kMaxReduceSplits});
    p.split_size = ceil_div(p.reduce_count, splits);
    p.splits = ceil_div(p.reduce_count, p.split_size);  // no empty split
  }
  return p;
}

ReducePlan make_reduce_plan(const char* op, IntArrayRef sizes, IntArrayRef strides,
                            IntArrayRef keep_sizes, int sm_count) {
  const std::optional<ReducePlan> p =
      try_make_reduce_plan(op, sizes, strides, keep_sizes, sm_count);
  EMBER_CHECK(p.has_value(), op, ": a CUDA reduction supports at most ", kMaxReduceDims,
              " kept and ", kMaxReduceDims, " reduced dims after merging neighbours (shape ",
              sizes, ", strides ", strides, ", reduced to ", keep_sizes, ")");
  return *p;
}

RowPlan make_row_plan(int64_t rows, int64_t n) {
  RowPlan p;
  while (p.lanes < kReduceThreads && p.lanes * 8 < n) p.lanes *= 2;  // >= 8 elements a lane
  p.slots = kReduceThreads / p.lanes;
  p.blocks = ceil_div(rows, p.slots);
  EMBER_CHECK(p.blocks <= kMaxBlocks, "softmax / cross_entropy on CUDA: ", rows,
              " rows exceed the row kernel's grid");
  return p;
}

bool softmax_by_columns(int64_t outer, int64_t inner) {
  constexpr int64_t kMinLines = 16384;  // ~ 132 multiprocessors x 128 threads
  return inner >= 32 && outer * inner >= kMinLines;
}

}  // namespace ember::cuda
