#pragma once
// Device queries. In a build without the CUDA backend, or on a machine whose
// driver cannot run CUDA, there are no devices: these answer false / 0 and
// never throw. Defined in runtime.cpp through the CUDA backend's hooks
// (Note [CUDA backend hooks] in core/cuda/backend.h).
#include <string>

namespace ember::cuda {

bool is_available();
int device_count();
// Waits for all work on the current device (no-op without a device).
void synchronize();
// "CUDA runtime 13.0, cuDNN 9.x, cuBLAS 13.x", or why there is no CUDA.
std::string build_info();

// How a program surfaces a bad index found on the device now rather than at
// the next CUDA indexing or cross-entropy call (Note [Index error report] in
// kernels/cuda/indexing.cpp). Waits for the pending work of every device that
// ran a reporting kernel (indexing or cross-entropy; one counted sync each)
// and raises the Error of the bad index or class target a kernel found since
// the last report, if any. No-op without the CUDA backend or before the first
// reporting kernel.
void check_index_errors();

}  // namespace ember::cuda
