#pragma once
// Device queries. In a build without the CUDA backend, or on a machine whose
// driver cannot run CUDA, there are no devices: these answer false / 0 and
// never throw.
#include <string>

namespace ember::cuda {

bool is_available();
int device_count();
// Waits for all work on the current device (no-op without a device).
void synchronize();
// "CUDA runtime 13.0, cuDNN 9.x, cuBLAS 13.x", or why there is no CUDA.
std::string build_info();

}  // namespace ember::cuda
