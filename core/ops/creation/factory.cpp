#include "ember/core/ops/creation/factory.h"

#include <cmath>

#include "ember/core/autograd_meta.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/shape.h"
#include "ember/kernels/common/kernel_registry.h"
#include "ember/core/cuda/backend.h"

namespace ember {
namespace {

// CUDA and pinned memory come from the CUDA backend's hooks (Note [CUDA
// backend hooks] in core/cuda/backend.h): the pool of the tensor's device, or
// the Error that says why there is none. CPU memory never goes through them.
Allocator* allocator_for(const TensorOptions& options) {
  const Device device = options.device();
  if (options.pinned_memory()) {
    EMBER_CHECK(device.is_cpu(), "pinned_memory: only CPU tensors can be pinned, but the "
                "options ask for ", device);
    return cuda::detail::backend().pinned_allocator("pinned_memory");
  }
  return device.is_cpu() ? cpu_allocator() : cuda::detail::backend().allocator(device);
}

Tensor apply_requires_grad(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}
}  // namespace

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options) {
  EMBER_CHECK(size.size() == stride.size(), "empty_strided: ", size.size(), " sizes but ",
              stride.size(), " strides");
  int64_t span = 1;  // elements from the first to one past the last
  for (size_t d = 0; d < size.size(); ++d) {
    EMBER_CHECK(size[d] >= 0, "empty_strided: negative size in ", size);
    if (size[d] == 0) span = 0;
    else if (span > 0) span += (size[d] - 1) * stride[d];
  }
  const size_t nbytes = static_cast<size_t>(span) * element_size(options.dtype());
  auto storage = std::make_shared<StorageImpl>(nbytes, allocator_for(options));
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), 0, DimVector(size), DimVector(stride),
                                        options.dtype()));
  return apply_requires_grad(std::move(t), options);
}

Tensor empty(IntArrayRef size, const TensorOptions& options) {
  for (int64_t s : size) EMBER_CHECK(s >= 0, "empty: negative size in ", size);
  const std::optional<int64_t> numel = checked_numel(size);
  const std::optional<uint64_t> nbytes =
      numel ? checked_mul(static_cast<uint64_t>(*numel), uint64_t{element_size(options.dtype())})
            : std::nullopt;
  EMBER_CHECK(nbytes.has_value(), "empty: shape ", size, " with dtype ", options.dtype(),
              " is too large: its element count, byte count or strides overflow");
  auto storage = std::make_shared<StorageImpl>(*nbytes, allocator_for(options));
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), 0, DimVector(size),
                                        contiguous_strides(size), options.dtype()));
  return apply_requires_grad(std::move(t), options);
}

Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options) {
  // Without a dtype, an integer value makes int64 and a bool makes bool, as libtorch 1.13.
  const bool infer = !options.has_dtype() && !fill_value.is_floating_point();
  Tensor t = empty(size, (infer ? options.dtype(fill_value.type()) : options).requires_grad(false));
  EMBER_CHECK(converts_without_overflow(fill_value, t.scalar_type()), "full: value ", fill_value,
              " cannot be converted to type ", t.scalar_type(), " without overflow");
  detail::fill_kernel(t, fill_value);  // a new tensor starts at version 0
  return apply_requires_grad(std::move(t), options);
}
// 0.0 and 1.0: float32 unless options say otherwise (full would infer int64 from 0 and 1).
Tensor zeros(IntArrayRef size, const TensorOptions& options) { return full(size, 0.0, options); }
Tensor ones(IntArrayRef size, const TensorOptions& options) { return full(size, 1.0, options); }

namespace {
// o, with t's dtype and device where o names none (as PyTorch's *_like).
TensorOptions like(const Tensor& t, TensorOptions o) {
  if (!o.has_dtype()) o = o.dtype(t.scalar_type());
  if (!o.has_device()) o = o.device(t.device());
  return o;
}
}  // namespace

Tensor Tensor::new_empty(IntArrayRef size, const TensorOptions& o) const {
  return empty(size, like(*this, o));
}
Tensor Tensor::new_zeros(IntArrayRef size, const TensorOptions& o) const {
  return zeros(size, like(*this, o));
}
Tensor Tensor::new_ones(IntArrayRef size, const TensorOptions& o) const {
  return ones(size, like(*this, o));
}
Tensor Tensor::new_full(IntArrayRef size, const Scalar& v, const TensorOptions& o) const {
  return full(size, v, like(*this, o));
}
Tensor Tensor::type_as(const Tensor& other) const { return to(other.device(), other.scalar_type()); }

Tensor empty_like(const Tensor& t) { return empty(t.sizes(), t.options()); }
Tensor empty_like(const Tensor& t, const TensorOptions& o) { return empty(t.sizes(), like(t, o)); }
Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), t.options()); }
Tensor zeros_like(const Tensor& t, const TensorOptions& o) { return zeros(t.sizes(), like(t, o)); }
Tensor ones_like(const Tensor& t) { return ones(t.sizes(), t.options()); }
Tensor ones_like(const Tensor& t, const TensorOptions& o) { return ones(t.sizes(), like(t, o)); }
Tensor full_like(const Tensor& t, const Scalar& v) { return full(t.sizes(), v, t.options()); }
Tensor full_like(const Tensor& t, const Scalar& v, const TensorOptions& o) {
  return full(t.sizes(), v, like(t, o));
}

Tensor arange(const Scalar& end, const TensorOptions& options) { return arange(0, end, 1, options); }
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return arange(start, end, 1, options);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options) {
  const bool all_int = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
  // An integer dtype truncates the bounds and the step first, as PyTorch.
  if (!all_int && options.has_dtype() && !is_floating_point(options.dtype()))
    return arange(start.toLong(), end.toLong(), step.toLong(), options);
  const TensorOptions o = options.has_dtype() ? options : options.dtype(all_int ? kLong : kFloat);
  const double s = step.toDouble(), a = start.toDouble(), b = end.toDouble();
  EMBER_CHECK(s != 0, "arange: step must be nonzero");
  EMBER_CHECK((b - a) / s >= 0, "arange: the range [", start, ", ", end, ") is empty in the direction of step ", step);
  const int64_t n = all_int ? (end.toLong() - start.toLong() + step.toLong() - (s > 0 ? 1 : -1)) / step.toLong()
                            : static_cast<int64_t>(std::ceil((b - a) / s));
  // The kernels fill the compute dtypes; other dtypes get those values rounded.
  Tensor t = empty({n}, o.dtype(compute_dtype(o.dtype())).requires_grad(false));
  kernels().factory.arange.on(t.device(), "arange")(t, start, step, all_int);
  return apply_requires_grad(t.to(o.dtype()), o);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  const ScalarType dtype = options.has_dtype() ? options.dtype() : kFloat;
  Tensor t = empty({steps}, options.dtype(compute_dtype(dtype)).requires_grad(false));
  const double a = start.toDouble(), b = end.toDouble();
  kernels().factory.linspace.on(t.device(), "linspace")(t, a, b);
  return apply_requires_grad(t.to(dtype), options);
}

// zeros with ones on the diagonal: a strided fill of the diagonal (stride n + 1),
// the same kernel on either device.
Tensor eye(int64_t n, const TensorOptions& options) {
  Tensor t = zeros({n, n}, options.requires_grad(false));
  detail::fill_kernel(t.view({n * n}).slice(0, 0, n * n, n + 1), 1);
  return apply_requires_grad(std::move(t), options);
}

TensorDataContainer::TensorDataContainer(std::initializer_list<TensorDataContainer> list)
    : elements_(list) {
  for (const auto& e : elements_) {
    EMBER_CHECK(e.is_scalar() == elements_.front().is_scalar() &&
                    e.sizes() == elements_.front().sizes(),
                "tensor: nested lists must be rectangular (all rows of one length)");
  }
}

DimVector TensorDataContainer::sizes() const {
  if (is_scalar_) return {};
  DimVector s{static_cast<int64_t>(elements_.size())};
  if (!elements_.empty())
    for (int64_t d : elements_.front().sizes()) s.push_back(d);
  return s;
}

ScalarType TensorDataContainer::inferred_dtype() const {
  if (is_scalar_) return scalar_.is_floating_point() ? kFloat : scalar_.type();
  ScalarType t = kBool;
  for (const auto& e : elements_) t = promote_types(t, e.inferred_dtype());
  return elements_.empty() ? kFloat : t;
}

namespace {
template <typename T>
void fill_from(const TensorDataContainer& c, T*& out) {
  if (c.is_scalar()) {
    *out++ = c.scalar().to<T>();
    return;
  }
  for (const auto& e : c.elements()) fill_from(e, out);
}
}  // namespace

// The values come from the host: built on the CPU, then one host->device copy.
Tensor tensor(const TensorDataContainer& data, const TensorOptions& options) {
  const ScalarType dtype = options.has_dtype() ? options.dtype() : data.inferred_dtype();
  Tensor t = empty(data.sizes(), TensorOptions(dtype));
  dispatch_all(dtype, "tensor", [&]<typename T>() {
    T* p = t.data_ptr<T>();
    fill_from(data, p);
  });
  if (!options.device().is_cpu()) t = t.to(options.device());
  return apply_requires_grad(std::move(t), options);
}

Tensor tensor(const TensorDataContainer& data) { return tensor(data, TensorOptions()); }

// from_blob wraps memory of the device the options name, as libtorch's: with a
// CUDA device, `data` must be device memory of that device (ember cannot check
// a raw pointer); nothing is copied either way.
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  EMBER_CHECK(sizes.size() == strides.size(), "from_blob: ", sizes.size(), " sizes but ",
              strides.size(), " strides");
  int64_t span = 1;
  for (size_t d = 0; d < sizes.size(); ++d) span = sizes[d] == 0 ? 0 : span + (sizes[d] - 1) * strides[d];
  auto storage = std::make_shared<StorageImpl>(
      data, static_cast<size_t>(span) * element_size(options.dtype()), options.device(), nullptr);
  return apply_requires_grad(
      Tensor(std::make_shared<TensorImpl>(std::move(storage), 0, DimVector(sizes),
                                          DimVector(strides), options.dtype())),
      options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return from_blob(data, sizes, contiguous_strides(sizes), options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 const TensorOptions& options) {
  auto storage = std::make_shared<StorageImpl>(
      data, static_cast<size_t>(compute_numel(sizes)) * element_size(options.dtype()),
      options.device(), deleter);
  return apply_requires_grad(
      Tensor(std::make_shared<TensorImpl>(std::move(storage), 0, DimVector(sizes),
                                          contiguous_strides(sizes), options.dtype())),
      options);
}

}  // namespace ember
