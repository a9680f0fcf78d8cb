#pragma once
// DeviceGuard: makes a CUDA device current for a scope (cudaMalloc, kernel
// launches and the legacy default stream all act on the current device) and
// restores the previous one. CUDA builds only.
#include <cuda_runtime.h>

#include "ember/kernels/cuda/cuda_check.h"

namespace ember::cuda {

inline int current_device() {
  int device = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) : previous_(current_device()), device_(device) {
    if (device_ != previous_) EMBER_CUDA_CHECK(cudaSetDevice(device_));
  }
  ~DeviceGuard() {
    // A failed restore must not stay behind as the next launch's error.
    if (device_ != previous_ && cudaSetDevice(previous_) != cudaSuccess) cudaGetLastError();
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_;
  int device_;
};

}  // namespace ember::cuda
