#pragma once
// One cuBLAS handle per device, made on first use and bound to the legacy
// default stream (stream 0, where all of ember's device work runs). CUDA builds only.
#include <cublas_v2.h>

namespace ember::cuda {

// The handle of `device`, created on the first call for it (thread-safe). The
// handles are shared by all threads and never reconfigured after creation
// (pointer mode host, default math mode, stream 0): each call states its compute
// type, so sharing is safe. Workspace: cuBLAS's own default (allocated by
// cuBLAS, not from ember's caching allocator). The handles live until the
// process ends: none is destroyed at exit.
cublasHandle_t cublas_handle(int device);

}  // namespace ember::cuda
