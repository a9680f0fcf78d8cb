#pragma once
// TensorImpl: what a Tensor handle points to. Storage + offset + sizes +
// strides say where each element lives (element i,j of a 2-d tensor is at
// data + (offset + i*stride[0] + j*stride[1]) * element_size); views are new
// TensorImpls on the same storage. The autograd slot is empty until a tensor
// requires grad or gets a grad_fn.
#include <memory>

#include "ember/core/dim_vector.h"
#include "ember/core/dtype.h"
#include "ember/core/storage.h"

namespace ember {

struct AutogradMeta;

class TensorImpl {
 public:
  TensorImpl(std::shared_ptr<StorageImpl> storage, int64_t storage_offset, DimVector sizes,
             DimVector strides, ScalarType dtype);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  bool is_contiguous() const { return is_contiguous_; }
  int64_t storage_offset() const { return storage_offset_; }
  const std::shared_ptr<StorageImpl>& storage() const { return storage_; }
  // Address of element 0 (storage data + offset).
  void* data() const {
    return static_cast<char*>(storage_->data()) + storage_offset_ * element_size(dtype_);
  }

  uint32_t version() const { return storage_->version(); }
  void bump_version() { storage_->bump_version(); }

  // Made by a view op from another tensor (autograd refuses in-place ops on
  // views of tensors that require grad: their base would not see the change).
  bool is_view() const { return is_view_; }
  void set_is_view(bool v) { is_view_ = v; }
  // A view's base (the non-view tensor it was made from, through any chain of
  // views) and an id of the base's history when the view was made; autograd
  // uses them to give the view a new history after an in-place op on the base
  // (autograd/view_history.h).
  const std::weak_ptr<TensorImpl>& view_base() const { return view_base_; }
  uint64_t view_base_history() const { return view_base_history_; }
  void set_view_base(std::weak_ptr<TensorImpl> base, uint64_t history) {
    view_base_ = std::move(base);
    view_base_history_ = history;
  }
  void set_view_base_history(uint64_t history) { view_base_history_ = history; }

  // Takes other's data (storage, offset, sizes, strides, dtype) and keeps this
  // tensor's autograd slot, as libtorch's set_data: Module::to() converts
  // parameters this way, so every handle to them sees the new data.
  void set_data(const TensorImpl& other) {
    if (&other == this) return;
    storage_ = other.storage_;
    storage_offset_ = other.storage_offset_;
    sizes_ = other.sizes_;
    strides_ = other.strides_;
    numel_ = other.numel_;
    dtype_ = other.dtype_;
    is_contiguous_ = other.is_contiguous_;
  }

  AutogradMeta* autograd_meta() const { return autograd_meta_.get(); }
  AutogradMeta& ensure_autograd_meta();
  void clear_autograd_meta();

 private:
  std::shared_ptr<StorageImpl> storage_;
  int64_t storage_offset_;
  DimVector sizes_;
  DimVector strides_;
  int64_t numel_;
  ScalarType dtype_;
  bool is_contiguous_;
  bool is_view_ = false;
  std::weak_ptr<TensorImpl> view_base_;
  uint64_t view_base_history_ = 0;
  std::unique_ptr<AutogradMeta> autograd_meta_;
};

}  // namespace ember
