#include "ember/core/tensor_impl.h"

#include "ember/core/autograd_meta.h"
#include "ember/core/shape.h"

namespace ember {

TensorImpl::TensorImpl(std::shared_ptr<StorageImpl> storage, int64_t storage_offset,
                       DimVector sizes, DimVector strides, ScalarType dtype)
    : storage_(std::move(storage)),
      storage_offset_(storage_offset),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      numel_(compute_numel(sizes_)),
      dtype_(dtype),
      is_contiguous_(is_contiguous_layout(sizes_, strides_)) {}

TensorImpl::~TensorImpl() = default;

AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_meta_) autograd_meta_ = std::make_unique<AutogradMeta>();
  return *autograd_meta_;
}

void TensorImpl::clear_autograd_meta() { autograd_meta_.reset(); }

}  // namespace ember
