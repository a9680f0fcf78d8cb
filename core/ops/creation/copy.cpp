// Copies and conversions: copy_, clone, contiguous, to(dtype / device).
#include "ember/autograd/function.h"
#include "ember/core/cuda/backend.h"
#include "ember/core/memory_overlap.h"
#include "ember/core/ops/creation/device_copy.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/shape.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

// dst[i] = cast(src[i]); src broadcasts to dst's shape. Both on the CPU.
void detail::copy_cpu(const Tensor& dst, const Tensor& src) {
  kernels().copy.copy.on(Device(kCPU), "copy_")(dst, src);
}

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) const {
  EMBER_CHECK(is_expandable_to(src.sizes(), sizes()), "copy_: source of shape ", src.sizes(),
              " cannot be broadcast to destination of shape ", sizes());
  autograd::check_inplace(*this, "copy_", {src});
  assert_no_internal_overlap("copy_", *this);
  assert_no_partial_overlap("copy_", *this, src);
  if (!is_same(src)) detail::copy_any_device(*this, src, non_blocking);
  impl()->bump_version();
  if (autograd::needs_grad(*this, src)) {
    // The old values are overwritten, so only src receives a gradient, on its device.
    // derivative: d/dsrc = g (moved to src's device); self's old values get none
    auto node = autograd::make_node("CopyBackward", {src},
        [home = src.device()](autograd::Node&, const tensor_list& g) {
          return tensor_list{g[0].to(home)};
        });
    autograd::rebase_history(*this, node);
  }
  return const_cast<Tensor&>(*this);
}

Tensor Tensor::clone() const {
  Tensor out = empty(sizes(), options());
  detail::copy_any_device(out, *this);
  if (autograd::needs_grad(*this)) {
    // derivative: d/dx = g
    auto node = autograd::make_node("CloneBackward", {*this}, [](autograd::Node&, const tensor_list& g) {
      return tensor_list{g[0]};
    });
    autograd::set_history(out, node);
  }
  return out;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::to(ScalarType dtype, bool non_blocking, bool copy) const {
  return to(device(), dtype, non_blocking, copy);
}

Tensor Tensor::to(Device target, bool non_blocking, bool copy) const {
  return to(target, scalar_type(), non_blocking, copy);
}

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  return to(options.has_device() ? options.device() : device(),
            options.has_dtype() ? options.dtype() : scalar_type(), non_blocking, copy);
}

Tensor Tensor::to(Device target, ScalarType dtype, bool non_blocking, bool copy) const {
  if (target == device() && dtype == scalar_type() && !copy) return *this;
  // As PyTorch: a non_blocking copy to the host lands in pinned memory, so it
  // is queued without a wait (the caller synchronizes before reading it).
  const bool pin = non_blocking && is_cuda() && target.is_cpu();
  Tensor out = empty(sizes(), TensorOptions(dtype).device(target).pinned_memory(pin));
  detail::copy_any_device(out, *this, non_blocking);
  // An integer or bool copy leaves the graph, as PyTorch (no gradient has that dtype).
  if (autograd::needs_grad(*this) && ember::is_floating_point(dtype)) {
    // The gradient goes back to this tensor's device; the engine casts it to its dtype.
    // derivative: d/dx = g, back on x's device and in x's dtype
    auto node = autograd::make_node("ToCopyBackward", {*this},
        [home = device()](autograd::Node&, const tensor_list& g) {
          return tensor_list{g[0].to(home)};
        });
    autograd::set_history(out, node);
  }
  return out;
}

Tensor Tensor::pin_memory() const {
  EMBER_CHECK(is_cpu(), "pin_memory: cannot pin ", toString(), ": only CPU tensors can be pinned");
  if (is_pinned()) return *this;  // as PyTorch
  // Raises, naming this op, without a device.
  cuda::detail::backend().pinned_allocator("pin_memory");
  Tensor out = empty(sizes(), TensorOptions(scalar_type()).pinned_memory(true));
  detail::copy_cpu(out, *this);
  if (autograd::needs_grad(*this)) {
    // derivative: d/dx = g
    auto node = autograd::make_node("PinMemoryBackward", {*this},
        [](autograd::Node&, const tensor_list& g) { return tensor_list{g[0]}; });
    autograd::set_history(out, node);
  }
  return out;
}

bool Tensor::is_pinned() const {
  return is_cpu() && cuda::detail::backend().is_pinned(impl()->storage()->data());
}

Tensor Tensor::cpu() const { return to(Device(kCPU)); }
Tensor Tensor::cuda() const { return to(Device(kCUDA, 0)); }

void detail::fill_kernel(const Tensor& t, const Scalar& value) {
  kernels().copy.fill.on(t.device(), "fill_")(t, value);
}

Tensor& Tensor::fill_(const Scalar& value) const {
  autograd::check_inplace(*this, "fill_");
  EMBER_CHECK(converts_without_overflow(value, scalar_type()), "fill_: value ", value,
              " cannot be converted to type ", scalar_type(), " without overflow");
  detail::fill_kernel(*this, value);
  impl()->bump_version();
  // derivative: none: the filled values do not depend on any input (the old history is cut)
  if (autograd::needs_grad(*this)) {  // the old values no longer matter
    autograd::rebase_history(*this, autograd::make_node("FillBackward", tensor_list{},
        [](autograd::Node&, const tensor_list&) { return tensor_list{}; }));
  }
  return const_cast<Tensor&>(*this);
}

Tensor& Tensor::zero_() const { return fill_(0); }

}  // namespace ember
