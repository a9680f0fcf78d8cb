// The strided copy and fill kernels of kernels/cuda/copy.h: one thread per
// element (grid-stride), its offsets found by index math over CopyGeometry.
#include <algorithm>

#include "ember/kernels/cuda/copy.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;  // a grid-stride loop covers the rest

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
}

template <typename Out, typename In>
__global__ void strided_copy_kernel(Out* dst, const In* src, CopyGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t d, s;
    element_offsets(g, i, d, s);
    dst[d] = static_cast<Out>(src[s]);
  }
}

template <typename T>
__global__ void strided_fill_kernel(T* dst, T value, CopyGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t d, s;
    element_offsets(g, i, d, s);
    dst[d] = value;
  }
}

}  // namespace

void strided_copy(void* dst, ScalarType dst_dtype, const void* src, ScalarType src_dtype,
                  const CopyGeometry& g, int64_t numel, int device) {
  if (numel == 0) return;
  DeviceGuard guard(device);
  dispatch_all(dst_dtype, "copy_", [&]<typename Out>() {
    dispatch_all(src_dtype, "copy_", [&]<typename In>() {
      strided_copy_kernel<Out, In><<<grid_for(numel), kThreads>>>(
          static_cast<Out*>(dst), static_cast<const In*>(src), g, numel);
      EMBER_CUDA_CHECK_LAUNCH();
    });
  });
}

void strided_fill(void* dst, ScalarType dtype, const Scalar& value, const CopyGeometry& g,
                  int64_t numel, int device) {
  if (numel == 0) return;
  DeviceGuard guard(device);
  dispatch_all(dtype, "fill_", [&]<typename T>() {
    strided_fill_kernel<T><<<grid_for(numel), kThreads>>>(static_cast<T*>(dst), value.to<T>(), g,
                                                           numel);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda
