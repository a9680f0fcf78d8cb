// Copies and conversions: copy_, clone, contiguous, to(dtype / device).
#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise_helpers.h"
#include "ember/core/ops/factory.h"
#include "ember/core/shape.h"
#include "ember/kernels/cpu/loops.h"

namespace ember {
namespace {

// dst[i] = cast(src[i]); src broadcasts to dst's shape. Both on the CPU.
void copy_kernel(const Tensor& dst, const Tensor& src) {
  dispatch_all(dst.scalar_type(), "copy_", [&]<typename Out>() {
    dispatch_all(src.scalar_type(), "copy_", [&]<typename In>() {
      cpu::elementwise<Out, In>(dst, {&src}, [](In v) { return static_cast<Out>(v); });
    });
  });
}

}  // namespace

Tensor& Tensor::copy_(const Tensor& src, bool /*non_blocking*/) {
  EMBER_CHECK(is_expandable_to(src.sizes(), sizes()), "copy_: source of shape ", src.sizes(),
              " cannot be broadcast to destination of shape ", sizes());
  EMBER_CHECK(is_cpu() && src.is_cpu(), "copy_: copies between ", src.device(), " and ",
              device(), " need the CUDA backend");
  autograd::check_inplace(*this, "copy_", {src});
  if (!is_same(src)) copy_kernel(*this, src);
  impl()->bump_version();
  if (autograd::needs_grad(*this, src)) {
    // The old values are overwritten, so only src receives a gradient.
    auto node = autograd::make_node("CopyBackward", {src}, [](autograd::Node&, const tensor_list& g) {
      return tensor_list{g[0]};
    });
    autograd::rebase_history(*this, node);
  }
  return *this;
}

Tensor Tensor::clone() const {
  Tensor out = empty(sizes(), options());
  copy_kernel(out, *this);
  if (autograd::needs_grad(*this)) {
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
  return to(options.device(), options.has_dtype() ? options.dtype() : scalar_type(), non_blocking, copy);
}

Tensor Tensor::to(Device target, ScalarType dtype, bool /*non_blocking*/, bool copy) const {
  if (target == device() && dtype == scalar_type() && !copy) return *this;
  EMBER_CHECK(target.is_cpu() && is_cpu(), "to: moving a tensor from ", device(), " to ", target,
              " needs the CUDA backend");
  EMBER_CHECK(!requires_grad() || ember::is_floating_point(dtype), "to: cannot convert a tensor that "
              "requires grad to ", dtype, " (gradients need a floating point dtype)");
  Tensor out = empty(sizes(), TensorOptions(dtype).device(target));
  copy_kernel(out, *this);
  if (autograd::needs_grad(*this)) {
    // The engine casts the gradient back to this tensor's dtype.
    auto node = autograd::make_node("ToCopyBackward", {*this}, [](autograd::Node&, const tensor_list& g) {
      return tensor_list{g[0]};
    });
    autograd::set_history(out, node);
  }
  return out;
}

Tensor Tensor::cpu() const { return to(Device(kCPU)); }
Tensor Tensor::cuda() const { return to(Device(kCUDA, 0)); }

void detail::fill_kernel(const Tensor& t, const Scalar& value) {
  EMBER_CHECK(t.is_cpu(), "fill_: ", t.toString(), " needs the CUDA backend");
  dispatch_all(t.scalar_type(), "fill_", [&]<typename T>() {
    const T v = value.to<T>();
    if (t.is_contiguous()) {
      T* p = t.data_ptr<T>();
      parallel_for(0, t.numel(), cpu::kGrainSize, [&](int64_t b, int64_t e) { std::fill(p + b, p + e, v); });
    } else {
      cpu::elementwise<T>(t, {}, [v]() { return v; });
    }
  });
}

Tensor& Tensor::fill_(const Scalar& value) {
  autograd::check_inplace(*this, "fill_");
  detail::fill_kernel(*this, value);
  impl()->bump_version();
  if (autograd::needs_grad(*this)) {  // the old values no longer matter
    autograd::rebase_history(*this, autograd::make_node("FillBackward", tensor_list{},
        [](autograd::Node&, const tensor_list&) { return tensor_list{}; }));
  }
  return *this;
}

Tensor& Tensor::zero_() { return fill_(0); }

}  // namespace ember
