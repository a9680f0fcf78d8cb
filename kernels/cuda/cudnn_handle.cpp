// The per-thread, per-device cuDNN handles (cudnn_handle.h).
#include "ember/kernels/cuda/cudnn_handle.h"

#include <memory>
#include <mutex>
#include <vector>

#include "ember/kernels/cuda/cudnn_check.h"
#include "ember/kernels/cuda/device_guard.h"

namespace ember::cuda {
namespace {

// Handles not held by any thread, per device. Never destroyed, and handles
// are never destroyed either: at exit the CUDA context may already be gone.
class FreeHandles {
 public:
  // A free handle of `device`, or a new one. Creation is serialized, as
  // cuDNN recommends when several threads make handles.
  cudnnHandle_t take(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (device < static_cast<int>(free_.size()) && !free_[device].empty()) {
      const cudnnHandle_t h = free_[device].back();
      free_[device].pop_back();
      return h;
    }
    DeviceGuard guard(device);  // a handle belongs to the device current at cudnnCreate
    cudnnHandle_t made = nullptr;
    EMBER_CUDNN_CHECK(cudnnCreate(&made));
    struct Destroy {
      void operator()(cudnnContext* h) const { cudnnDestroy(h); }
    };
    std::unique_ptr<cudnnContext, Destroy> owned(made);  // freed if binding it throws
    EMBER_CUDNN_CHECK(cudnnSetStream(owned.get(), nullptr));  // stream 0
    return owned.release();
  }

  void give_back(int device, cudnnHandle_t h) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (device >= static_cast<int>(free_.size())) free_.resize(device + 1);
    free_[device].push_back(h);
  }

 private:
  std::mutex mutex_;
  std::vector<std::vector<cudnnHandle_t>> free_;
};

FreeHandles& free_handles() {
  static auto* pool = new FreeHandles();
  return *pool;
}

// One thread's handles, by device; returned to the pool when the thread ends.
struct ThreadHandles {
  std::vector<cudnnHandle_t> by_device;
  ~ThreadHandles() {
    for (size_t d = 0; d < by_device.size(); ++d)
      if (by_device[d]) free_handles().give_back(static_cast<int>(d), by_device[d]);
  }
};

}  // namespace

cudnnHandle_t cudnn_handle(int device) {
  thread_local ThreadHandles mine;
  if (device >= static_cast<int>(mine.by_device.size())) mine.by_device.resize(device + 1, nullptr);
  cudnnHandle_t& h = mine.by_device[device];
  if (!h) h = free_handles().take(device);
  return h;
}

}  // namespace ember::cuda
