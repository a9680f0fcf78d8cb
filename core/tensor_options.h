#pragma once
// TensorOptions: dtype, device, requires_grad and pinned_memory for factories, as libtorch's:
//   ember::zeros({2, 3}, ember::TensorOptions().dtype(ember::kFloat64).requires_grad(true));
// A dtype or device converts implicitly: ember::ones({3}, ember::kInt64).
#include "ember/core/device.h"
#include "ember/core/dtype.h"

namespace ember {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t), has_dtype_(true) {}  // NOLINT
  TensorOptions(Device d) : device_(d), has_device_(true) {}      // NOLINT
  TensorOptions(DeviceType d) : device_(d), has_device_(true) {}  // NOLINT

  TensorOptions dtype(ScalarType t) const {
    auto o = *this;
    o.dtype_ = t;
    o.has_dtype_ = true;
    return o;
  }
  TensorOptions device(Device d) const {
    auto o = *this;
    o.device_ = d;
    o.has_device_ = true;
    return o;
  }
  TensorOptions requires_grad(bool r) const { auto o = *this; o.requires_grad_ = r; return o; }
  // CPU memory from the pinned (page-locked) host allocator (kernels/cuda/pinned_memory.h).
  TensorOptions pinned_memory(bool p) const { auto o = *this; o.pinned_memory_ = p; return o; }

  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }
  bool pinned_memory() const { return pinned_memory_; }
  // Whether dtype was given (ember::tensor and arange infer it otherwise).
  bool has_dtype() const { return has_dtype_; }
  // Whether device was given (Tensor::to(options) keeps the tensor's otherwise).
  bool has_device() const { return has_device_; }

 private:
  ScalarType dtype_ = kFloat;
  Device device_ = Device(kCPU);
  bool requires_grad_ = false;
  bool pinned_memory_ = false;
  bool has_dtype_ = false;
  bool has_device_ = false;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

}  // namespace ember
