#pragma once
// Internal: how the view ops make a view (a new TensorImpl on the input's
// storage, registered with its base for Note [Views of a tensor changed in
// place]) and record its backward. Shared by views.cpp and diagonal.cpp.
#include "ember/autograd/function.h"
#include "ember/autograd/view_history.h"
#include "ember/core/tensor.h"

namespace ember::detail {

inline Tensor make_view(const Tensor& x, DimVector sizes, DimVector strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>(x.impl()->storage(), offset, std::move(sizes),
                                           std::move(strides), x.scalar_type());
  impl->set_is_view(true);
  autograd::record_view_base(*impl, x);
  return Tensor(std::move(impl));
}

// Records `name` for a view whose gradient is backward(g) (captures only sizes).
template <typename Backward>
Tensor record_view(const char* name, const Tensor& x, Tensor out, Backward backward) {
  if (autograd::needs_grad(x)) {
    autograd::set_history(
        out, autograd::make_node(name, {x}, [backward](autograd::Node&, const tensor_list& g) {
          return tensor_list{backward(g[0])};
        }));
  }
  return out;
}

}  // namespace ember::detail
