#pragma once
// Note [Kernel tables]
// Each kernel family (elementwise, reduce, index, conv, ...) is declared once
// here in kernels/common as a struct of Kernel slots, one slot per entry point.
// A slot holds one function per device type. The CPU and CUDA backends fill
// their slots when the registry is first used (kernel_registry.cpp), and the
// ops call through them:
//
//   kernels().elementwise.binary.on(out.device(), "add")("add", BinaryOp::kAdd, out, a, b, 1);
//
// This lookup is the one place where an op's device is turned into code; an
// op file never branches on is_cuda(). A build without the CUDA backend simply
// registers no CUDA entries, and the lookup raises "OP has no CUDA kernel".
// (PyTorch's DispatchStub is the same idea: declare once, register per device.)
#include "ember/core/device.h"

namespace ember {

[[noreturn]] void no_kernel(const char* op, Device device);

template <typename Signature>
class Kernel;

// Entry points return void, but for a backend's query that the op asks
// through its table (normalization's "does cuDNN take this batch norm").
template <typename R, typename... Args>
class Kernel<R(Args...)> {
 public:
  using Fn = R (*)(Args...);
  // The entry point's function type: a backend declares its kernel with it,
  // `decltype(SoftmaxKernels::logsumexp)::Signature logsumexp_kernel;`, so
  // the parameters are written once, here in the table.
  using Signature = R(Args...);

  void set(DeviceType type, Fn fn) { fns_[slot(type)] = fn; }
  bool has(DeviceType type) const { return fns_[slot(type)] != nullptr; }

  // The kernel for `device`; an Error naming `op` and the device when this
  // build has none.
  Fn on(Device device, const char* op) const {
    const Fn fn = fns_[slot(device.type())];
    if (fn == nullptr) [[unlikely]]
      no_kernel(op, device);
    return fn;
  }

 private:
  static constexpr int slot(DeviceType type) { return static_cast<int>(type); }
  Fn fns_[2] = {nullptr, nullptr};  // indexed by DeviceType: CPU, CUDA
};

}  // namespace ember
