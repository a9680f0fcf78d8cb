#pragma once
// The CUDA reduction kernel, generic over an Ops of kernels/common/
// reduce_functors.h, as a ReducePlan lays it out (kernels/common/cuda_plans/reduce_plan.h):
// each thread folds its share of one output's elements, then the lanes of the
// output combine (warp shuffle, then shared memory), and lane 0 writes the
// output through a Sink (or, in a two-pass plan, its split's partial
// accumulator, which combine_splits_kernel folds in split order).
// Also the warp / group all-reduce the softmax kernels use.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ember/kernels/common/reduce_functors.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/reduce_plan.h"

namespace ember::cuda::reduce_kernels {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarp = 32;

// __shfl_down_sync / __shfl_xor_sync of the accumulator types (bool, int64,
// float, double, and ArgAcc member by member).
template <typename T>
__device__ __forceinline__ T shfl_down(T v, int delta) {
  if constexpr (std::is_same_v<T, bool>)
    return __shfl_down_sync(kFullMask, static_cast<int>(v), delta) != 0;
  else if constexpr (std::is_same_v<T, int64_t>)
    return static_cast<int64_t>(__shfl_down_sync(kFullMask, static_cast<long long>(v), delta));
  else
    return __shfl_down_sync(kFullMask, v, delta);
}
template <typename T>
__device__ __forceinline__ functors::ArgAcc<T> shfl_down(functors::ArgAcc<T> a, int delta) {
  return {shfl_down(a.value, delta), shfl_down(a.index, delta)};
}
template <typename T>
__device__ __forceinline__ T shfl_xor(T v, int mask) {
  if constexpr (std::is_same_v<T, int64_t>)
    return static_cast<int64_t>(__shfl_xor_sync(kFullMask, static_cast<long long>(v), mask));
  else
    return __shfl_xor_sync(kFullMask, v, mask);
}

// The shared memory of a block's combine step (the kernels size it at launch).
template <typename Acc>
__device__ __forceinline__ Acc* shared_accumulators() {
  extern __shared__ __align__(16) unsigned char reduce_shared[];
  return reinterpret_cast<Acc*>(reduce_shared);
}

// ops.step_at(acc, v, index) for Ops that fold indices (ArgFoldOps), else ops.step(acc, v).
template <typename Ops, typename Acc, typename In>
__device__ __forceinline__ Acc fold(const Ops& ops, Acc acc, In v, int64_t index) {
  if constexpr (requires { ops.step_at(acc, v, index); })
    return ops.step_at(acc, v, index);
  else
    return ops.step(acc, v);
}

// Lanes along threadIdx.x (lanes a multiple of 32, so a warp holds lanes of
// one output): lane 0 gets the combination of the `lanes` values of its slot.
// Every thread of the block calls it.
template <typename Acc, typename Ops>
__device__ Acc combine_lanes_x(Acc acc, const Ops& ops, int lane, int lanes, int slot) {
#pragma unroll
  for (int d = kWarp / 2; d > 0; d /= 2) acc = ops.combine(acc, shfl_down(acc, d));
  if (lanes == kWarp) return acc;
  const int warps = lanes / kWarp;
  Acc* s = shared_accumulators<Acc>();
  if (lane % kWarp == 0) s[slot * warps + lane / kWarp] = acc;
  __syncthreads();
  if (lane == 0)
    for (int w = 1; w < warps; ++w) acc = ops.combine(acc, s[slot * warps + w]);
  return acc;
}

// Lanes along threadIdx.y (outer mode): a tree in shared memory; lane 0 gets
// the result. Every thread of the block calls it.
template <typename Acc, typename Ops>
__device__ Acc combine_lanes_y(Acc acc, const Ops& ops, int lane, int lanes, int slot, int slots) {
  if (lanes == 1) return acc;
  Acc* s = shared_accumulators<Acc>();
  s[lane * slots + slot] = acc;
  for (int half = lanes / 2; half > 0; half /= 2) {
    __syncthreads();
    if (lane < half) s[lane * slots + slot] = ops.combine(s[lane * slots + slot],
                                                          s[(lane + half) * slots + slot]);
  }
  return s[slot];  // read by lane 0, which wrote it last
}

// Writes ops.project(acc) to out[offset] in the output dtype.
template <typename Out>
struct ValueSink {
  Out* out;
  template <typename V>
  __device__ void operator()(int64_t offset, V v) const {
    out[offset] = static_cast<Out>(v);
  }
};

// Writes an ArgAcc: the value (when values is not null) and the index.
template <typename T>
struct ArgSink {
  T* values;
  int64_t* indices;
  __device__ void operator()(int64_t offset, functors::ArgAcc<T> a) const {
    if (values) values[offset] = a.value;
    indices[offset] = a.index;
  }
};

template <typename In, typename Acc, typename Ops, typename Sink>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_kernel(const ReducePlan p, const In* in, const Ops ops, const Sink sink, Acc* partial) {
  const int lane = p.inner_mode ? threadIdx.x : threadIdx.y;
  const int slot = p.inner_mode ? threadIdx.y : threadIdx.x;
  const int64_t o = blockIdx.x * int64_t(p.slots) + slot;
  const int64_t split = blockIdx.y;
  const bool active = o < p.num_outputs;
  int64_t in_off = 0, out_off = 0;
  Acc acc = ops.identity();
  if (active) {
    kept_offsets(p, o, in_off, out_off);
    const int64_t begin = split * p.split_size;
    const int64_t end = begin + p.split_size < p.reduce_count ? begin + p.split_size
                                                              : p.reduce_count;
    for (int64_t r = begin + lane; r < end; r += p.lanes)
      acc = fold(ops, acc, in[in_off + reduced_offset(p, r)], r);
  }
  acc = p.inner_mode ? combine_lanes_x(acc, ops, lane, p.lanes, slot)
                     : combine_lanes_y(acc, ops, lane, p.lanes, slot, p.slots);
  if (!active || lane != 0) return;
  if (p.two_pass())
    partial[split * p.num_outputs + o] = acc;
  else
    sink(out_off, ops.project(acc));
}

// The second pass: output o combines its splits' partials in order.
template <typename Acc, typename Ops, typename Sink>
__global__ void combine_splits_kernel(const ReducePlan p, const Acc* partial, const Ops ops,
                                      const Sink sink) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < p.num_outputs;
       o += int64_t(gridDim.x) * blockDim.x) {
    Acc acc = partial[o];
    for (int64_t s = 1; s < p.splits; ++s) acc = ops.combine(acc, partial[s * p.num_outputs + o]);
    int64_t in_off, out_off;
    kept_offsets(p, o, in_off, out_off);
    sink(out_off, ops.project(acc));
  }
}

// The device's multiprocessor count (a plan's sm_count), asked once per device.
inline int multiprocessors(int device) {
  static std::array<std::atomic<int>, 64> cached{};  // 0: not asked yet
  const bool cacheable = device < static_cast<int>(cached.size());
  if (cacheable) {
    const int known = cached[device].load(std::memory_order_relaxed);
    if (known > 0) return known;
  }
  int count = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  if (cacheable) cached[device].store(count, std::memory_order_relaxed);
  return count;
}

// Runs the plan on the legacy default stream of `device`.
template <typename In, typename Acc, typename Ops, typename Sink>
void run(const ReducePlan& p, const In* in, void* workspace, const Ops& ops, const Sink& sink,
         int device) {
  static_assert(sizeof(Acc) <= kReduceWorkspaceBytes,
                "the two-pass workspace holds kReduceWorkspaceBytes per accumulator");
  if (p.num_outputs == 0) return;
  DeviceGuard guard(device);
  const dim3 block = p.inner_mode ? dim3(p.lanes, p.slots) : dim3(p.slots, p.lanes);
  const dim3 grid(static_cast<unsigned>(p.blocks), static_cast<unsigned>(p.splits));
  const size_t shared = sizeof(Acc) * p.lanes * p.slots;
  Acc* partial = static_cast<Acc*>(workspace);
  reduce_kernel<In, Acc, Ops, Sink><<<grid, block, shared, 0>>>(p, in, ops, sink, partial);
  EMBER_CUDA_CHECK_LAUNCH();
  if (!p.two_pass()) return;
  const int64_t blocks = std::min<int64_t>((p.num_outputs + kReduceThreads - 1) / kReduceThreads,
                                           65535);
  combine_splits_kernel<Acc, Ops, Sink>
      <<<static_cast<unsigned>(blocks), kReduceThreads, 0, 0>>>(p, partial, ops, sink);
  EMBER_CUDA_CHECK_LAUNCH();
}

// All-reduce over the `lanes` threads of a group along threadIdx.x (lanes 32
// or a multiple of it, groups side by side along threadIdx.y): every lane gets
// the combination. Every thread of the block calls it.
template <typename Acc, typename Ops>
__device__ Acc allreduce_lanes_x(Acc acc, const Ops& ops, int lane, int lanes, int slot) {
#pragma unroll
  for (int m = kWarp / 2; m > 0; m /= 2) acc = ops.combine(acc, shfl_xor(acc, m));
  if (lanes == kWarp) return acc;
  const int warps = lanes / kWarp;
  Acc* s = shared_accumulators<Acc>();
  __syncthreads();  // an earlier call's readers are done with s
  if (lane % kWarp == 0) s[slot * warps + lane / kWarp] = acc;
  __syncthreads();
  acc = s[slot * warps];
  for (int w = 1; w < warps; ++w) acc = ops.combine(acc, s[slot * warps + w]);
  return acc;
}

}  // namespace ember::cuda::reduce_kernels
