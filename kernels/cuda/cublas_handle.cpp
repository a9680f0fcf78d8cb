// The per-device cuBLAS handles.
#include "ember/kernels/cuda/cublas_handle.h"

#include <memory>
#include <mutex>
#include <vector>

#include "ember/kernels/cuda/cublas_check.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"

namespace ember::cuda {
namespace {

class HandlePool {
  struct Destroy {
    void operator()(cublasHandle_t h) const { cublasDestroy(h); }
  };

 public:
  cublasHandle_t get(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (handles_.size() <= static_cast<size_t>(device)) handles_.resize(device + 1, nullptr);
    cublasHandle_t& h = handles_[device];
    if (h == nullptr) {
      DeviceGuard guard(device);  // a handle belongs to the device current at cublasCreate
      cublasHandle_t made = nullptr;
      EMBER_CUBLAS_CHECK(cublasCreate(&made));
      std::unique_ptr<cublasContext, Destroy> owned(made);  // freed if binding it throws
      EMBER_CUBLAS_CHECK(cublasSetStream(owned.get(), nullptr));
      h = owned.release();
    }
    return h;
  }

 private:
  std::mutex mutex_;
  std::vector<cublasHandle_t> handles_;
};

}  // namespace

cublasHandle_t cublas_handle(int device) {
  // Never destroyed, as the cuDNN handles: cublasDestroy from a static
  // destructor can run after cuBLAS's or the driver's own teardown at exit.
  static auto* pool = new HandlePool();
  return pool->get(device);
}

}  // namespace ember::cuda
