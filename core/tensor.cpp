// Tensor metadata accessors and item(); the ops live in core/ops/.
#include "ember/core/tensor.h"

#include "ember/core/error.h"
#include "ember/core/shape.h"

namespace ember {
namespace {
const TensorImpl& checked(const std::shared_ptr<TensorImpl>& impl) {
  EMBER_CHECK(impl != nullptr, "Tensor: this tensor is undefined (default-constructed)");
  return *impl;
}
}  // namespace

IntArrayRef Tensor::sizes() const { return checked(impl_).sizes(); }
IntArrayRef Tensor::strides() const { return checked(impl_).strides(); }
int64_t Tensor::size(int64_t d) const { return sizes()[wrap_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return strides()[wrap_dim(d, dim(), "stride")]; }
int64_t Tensor::dim() const { return checked(impl_).dim(); }
int64_t Tensor::numel() const { return checked(impl_).numel(); }
ScalarType Tensor::scalar_type() const { return checked(impl_).dtype(); }
Device Tensor::device() const { return checked(impl_).device(); }
TensorOptions Tensor::options() const {
  return TensorOptions().dtype(scalar_type()).device(device());
}
int64_t Tensor::storage_offset() const { return checked(impl_).storage_offset(); }
size_t Tensor::element_size() const { return ember::element_size(scalar_type()); }
size_t Tensor::nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
bool Tensor::is_contiguous() const { return checked(impl_).is_contiguous(); }
bool Tensor::is_floating_point() const { return ember::is_floating_point(scalar_type()); }
bool Tensor::is_alias_of(const Tensor& other) const {
  return defined() && other.defined() && impl_->storage() == other.impl_->storage();
}
uint32_t Tensor::_version() const { return checked(impl_).version(); }

std::string Tensor::toString() const {
  if (!defined()) return "undefined tensor";
  return detail::str_cat(scalar_type(), " tensor ", sizes(), " on ", device());
}

void* Tensor::data_ptr() const { return checked(impl_).data(); }

template <typename T>
T* Tensor::data_ptr() const {
  EMBER_CHECK(scalar_type() == scalar_type_of<T>, "data_ptr: tensor has dtype ", scalar_type(),
              " but ", scalar_type_of<T>, " was requested");
  return static_cast<T*>(impl_->data());
}
template bool* Tensor::data_ptr<bool>() const;
template uint8_t* Tensor::data_ptr<uint8_t>() const;
template int8_t* Tensor::data_ptr<int8_t>() const;
template int16_t* Tensor::data_ptr<int16_t>() const;
template int32_t* Tensor::data_ptr<int32_t>() const;
template int64_t* Tensor::data_ptr<int64_t>() const;
template Half* Tensor::data_ptr<Half>() const;
template BFloat16* Tensor::data_ptr<BFloat16>() const;
template float* Tensor::data_ptr<float>() const;
template double* Tensor::data_ptr<double>() const;

Scalar Tensor::item() const {
  EMBER_CHECK(numel() == 1, "item: a tensor with ", numel(), " elements (shape ", sizes(),
              ") cannot be converted to a scalar; item() needs exactly one element");
  const Tensor host = is_cpu() ? *this : cpu();
  return dispatch_storage(scalar_type(), "item", [&]<typename T>() -> Scalar {
    return Scalar(*static_cast<const T*>(host.impl_->data()));
  });
}

}  // namespace ember
