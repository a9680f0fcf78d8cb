// The per-device cuSOLVER handles.
#include "ember/kernels/cuda/cusolver_handle.h"

#include <memory>
#include <mutex>
#include <vector>

#include "ember/kernels/cuda/cusolver_check.h"
#include "ember/kernels/cuda/device_guard.h"

namespace ember::cuda {

const char* cusolver_status_name(cusolverStatus_t status) {
  switch (status) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "cuSOLVER status (unnamed)";
  }
}

namespace {

class HandlePool {
  struct Destroy {
    void operator()(cusolverDnHandle_t h) const { cusolverDnDestroy(h); }
  };

 public:
  cusolverDnHandle_t get(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (handles_.size() <= static_cast<size_t>(device)) handles_.resize(device + 1, nullptr);
    cusolverDnHandle_t& h = handles_[device];
    if (h == nullptr) {
      DeviceGuard guard(device);  // a handle belongs to the device current at its creation
      cusolverDnHandle_t made = nullptr;
      EMBER_CUSOLVER_CHECK(cusolverDnCreate(&made));
      std::unique_ptr<cusolverDnContext, Destroy> owned(made);  // freed if binding it throws
      EMBER_CUSOLVER_CHECK(cusolverDnSetStream(owned.get(), nullptr));
      h = owned.release();
    }
    return h;
  }

 private:
  std::mutex mutex_;
  std::vector<cusolverDnHandle_t> handles_;
};

}  // namespace

cusolverDnHandle_t cusolver_handle(int device) {
  // Never destroyed, as the cuBLAS and cuDNN handles: a destroy from a static
  // destructor can run after the library's or the driver's own teardown.
  static auto* pool = new HandlePool();
  return pool->get(device);
}

}  // namespace ember::cuda
