// ember_cuda_tests: the CUDA kernels against their CPU twins. Without a usable
// device it says why and exits 77, which CTest reports as skipped
// (SKIP_RETURN_CODE in tests/cuda/CMakeLists.txt), never as passed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <iostream>

#include <ember/ember.h>

int main(int argc, char** argv) {
  if (!ember::cuda::is_available()) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    std::cout << "ember_cuda_tests: SKIPPED, no CUDA device ("
              << (err == cudaSuccess ? "the driver reports 0 devices" : cudaGetErrorString(err))
              << "); " << ember::cuda::build_info() << "\n";
    return 77;
  }
  std::cout << ember::cuda::build_info() << "\n";
  return Catch::Session().run(argc, argv);
}
