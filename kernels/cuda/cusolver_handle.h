#pragma once
// One cuSOLVER dense handle per device, made on first use and bound to the
// legacy default stream (stream 0, where all of ember's device work runs).
// CUDA builds only.
#include <cusolverDn.h>

namespace ember::cuda {

// The handle of `device`, created on the first call for it (thread-safe) and
// shared by all threads, as cublas_handle. Workspaces are passed per call
// (from ember's caching allocator), so the handle holds no per-call state.
// The handles live until the process ends: none is destroyed at exit.
cusolverDnHandle_t cusolver_handle(int device);

}  // namespace ember::cuda
