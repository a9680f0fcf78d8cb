// Device queries, compiled in every build: without the CUDA backend there
// are no devices.
#include "ember/core/cuda/runtime.h"

#include "ember/core/error.h"

#ifdef EMBER_WITH_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#endif

namespace ember::cuda {

#ifdef EMBER_WITH_CUDA

int device_count() {
  int n = 0;
  // No driver, an old driver or no GPU all mean "no device" here.
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  return n;
}

bool is_available() { return device_count() > 0; }

void synchronize() {
  if (!is_available()) return;
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

#else

int device_count() { return 0; }
bool is_available() { return false; }
void synchronize() {}
std::string build_info() { return "built without the CUDA backend (EMBER_CUDA=OFF or no toolkit)"; }

#endif

}  // namespace ember::cuda
