#pragma once
// One cuDNN handle per device, created on first use and bound to the legacy
// default stream (stream 0), where ember runs all device work. CUDA builds only.
#include <cudnn.h>

namespace ember::cuda {

// The handle of `device`; the caller has made `device` current (DeviceGuard).
// Thread-safe to obtain. cuDNN handles are not meant for concurrent calls
// from several threads; ember's ops on one device serialize on stream 0 anyway.
cudnnHandle_t cudnn_handle(int device);

}  // namespace ember::cuda
