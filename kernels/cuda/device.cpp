// The CUDA backend's device queries (device.h).
#include "ember/kernels/cuda/device.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "ember/core/error.h"

namespace ember::cuda::hooks {

int device_count() {
  int n = 0;
  // No driver, an old driver or no GPU all mean "no device" here.
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  return n;
}

void synchronize() {
  if (device_count() == 0) return;
  const cudaError_t err = cudaDeviceSynchronize();
  EMBER_CHECK(err == cudaSuccess, "cuda::synchronize: ", cudaGetErrorString(err));
}

std::string build_info() {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  return ::ember::detail::str_cat("CUDA runtime ", runtime / 1000, ".", (runtime % 1000) / 10,
                                  ", cuDNN ", cudnnGetVersion(), ", cuBLAS ", CUBLAS_VER_MAJOR,
                                  ".", CUBLAS_VER_MINOR, ", devices: ", device_count());
}

}  // namespace ember::cuda::hooks
