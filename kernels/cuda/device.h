#pragma once
// The CUDA backend's device queries: its answers to the public ones of
// core/cuda/runtime.h, which reach them through the backend hooks (Note [CUDA
// backend hooks] in core/cuda/backend.h; registered in register_backend.cpp).
#include <string>

namespace ember::cuda::hooks {

// cudaGetDeviceCount; 0 without a driver, with an old driver or no GPU.
int device_count();
// cudaDeviceSynchronize of the current device; no-op without a device.
void synchronize();
// "CUDA runtime 13.0, cuDNN 9.x, cuBLAS 13.x, devices: N".
std::string build_info();

}  // namespace ember::cuda::hooks
