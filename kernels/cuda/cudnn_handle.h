#pragma once
// cuDNN handles: one per (host thread, device), bound to the legacy default
// stream (stream 0), where ember runs all device work. cuDNN forbids using
// one handle from two threads at once, so each thread gets its own; a
// thread's handles go back to a shared pool when it exits and serve the
// next thread. CUDA builds only.
#include <cudnn.h>

namespace ember::cuda {

// The calling thread's handle for `device`, created on first use.
cudnnHandle_t cudnn_handle(int device);

}  // namespace ember::cuda
