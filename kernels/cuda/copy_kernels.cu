// The strided copy and fill kernels of kernels/cuda/copy.h: one thread per
// element (grid-stride), its offsets found by index math over CopyGeometry;
// below them the copy and fill entry points of the copy family's table.
#include <algorithm>
#include <cstring>

#include "ember/kernels/cuda/copy.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"

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
    dst[d] = convert_element<Out>(src[s]);
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
  dispatch_storage(dst_dtype, "copy_", [&]<typename Out>() {
    dispatch_storage(src_dtype, "copy_", [&]<typename In>() {
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
  dispatch_storage(dtype, "fill_", [&]<typename T>() {
    strided_fill_kernel<T><<<grid_for(numel), kThreads>>>(static_cast<T*>(dst), value.to<T>(), g,
                                                           numel);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

// The CUDA entry points of the copy family's table (kernels/common/copy_kernels.h).

namespace {

// Whether a plain memcpy of dst.nbytes() bytes is the whole copy: both dense,
// one dtype and shape.
bool same_dense_layout(const Tensor& dst, const Tensor& src) {
  return dst.is_contiguous() && src.is_contiguous() && src.scalar_type() == dst.scalar_type() &&
         src.sizes() == dst.sizes();
}

// Whether value, as t's dtype, is all zero bytes (then a memset writes it; -0.0 is not).
bool is_zero_bytes(const Tensor& t, const Scalar& value) {
  return dispatch_storage(t.scalar_type(), "fill_", [&]<typename T>() {
    const T v = value.to<T>(), zero{};
    return std::memcmp(&v, &zero, sizeof(T)) == 0;
  });
}

}  // namespace

void copy_kernel(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const int device = detail::device_of(dst);
  if (same_dense_layout(dst, src)) {
    copy_device_to_device(dst.data_ptr(), src.data_ptr(), dst.nbytes(), device);
    return;
  }
  const CopyGeometry g =
      make_copy_geometry("copy_", dst.sizes(), dst.strides(), src.sizes(), src.strides());
  strided_copy(dst.data_ptr(), dst.scalar_type(), src.data_ptr(), src.scalar_type(), g,
               dst.numel(), device);
}

void fill_kernel(const Tensor& t, const Scalar& value) {
  if (t.numel() == 0) return;
  if (t.is_contiguous() && is_zero_bytes(t, value)) {
    memset_zero(t.data_ptr(), t.nbytes(), detail::device_of(t));
    return;
  }
  const CopyGeometry g = make_copy_geometry("fill_", t.sizes(), t.strides(), {}, {});
  strided_fill(t.data_ptr(), t.scalar_type(), value, g, t.numel(), detail::device_of(t));
}

}  // namespace ember::cuda
