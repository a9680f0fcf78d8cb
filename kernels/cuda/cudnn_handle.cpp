// Compiled in every build; only the CUDA backend has cuDNN handles.
#ifdef EMBER_WITH_CUDA
#include "ember/kernels/cuda/cudnn_handle.h"

#include <mutex>
#include <vector>

#include "ember/kernels/cuda/cudnn_check.h"

namespace ember::cuda {

cudnnHandle_t cudnn_handle(int device) {
  // Never destroyed: at exit the CUDA context may already be gone, and
  // cudnnDestroy would then fail.
  static std::mutex mutex;
  static std::vector<cudnnHandle_t> handles;
  std::lock_guard<std::mutex> lock(mutex);
  if (device >= static_cast<int>(handles.size())) handles.resize(device + 1, nullptr);
  if (!handles[device]) {
    cudnnHandle_t h = nullptr;
    EMBER_CUDNN_CHECK(cudnnCreate(&h));
    EMBER_CUDNN_CHECK(cudnnSetStream(h, nullptr));  // stream 0
    handles[device] = h;
  }
  return handles[device];
}

}  // namespace ember::cuda
#endif
