// The main() of the CUDA test binaries (ember_cuda_tests: the CUDA kernels
// against their CPU twins; trainer_cuda_tests). Without a usable device it
// says why and exits 77, which CTest reports as skipped
// (SKIP_RETURN_CODE in tests/cuda/CMakeLists.txt), never as passed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include <ember/ember.h>

int main(int argc, char** argv) {
  // The tests count the benchmark caches' searches: no cache file may be
  // loaded into them from the environment.
  ::unsetenv("EMBER_CUDNN_CACHE");
  ::unsetenv("EMBER_CPU_CONV_CACHE");
  if (!ember::cuda::is_available()) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    const std::string name = std::filesystem::path(argv[0]).filename().string();
    std::cout << name << ": SKIPPED, no CUDA device ("
              << (err == cudaSuccess ? "the driver reports 0 devices" : cudaGetErrorString(err))
              << "); " << ember::cuda::build_info() << "\n";
    return 77;
  }
  std::cout << ember::cuda::build_info() << "\n";
  // Catch2 returns the number of failed assertions: 77 of them would read as a skip.
  return Catch::Session().run(argc, argv) == 0 ? 0 : 1;
}
