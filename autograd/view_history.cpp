#include "ember/autograd/view_history.h"

#include <vector>

#include "ember/autograd/function.h"
#include "ember/core/autograd_meta.h"

namespace ember::autograd {

namespace {

// Calls f(storage offset) for each element of the layout, in row-major order.
template <typename F>
void for_each_offset(IntArrayRef sizes, IntArrayRef strides, int64_t offset, F f) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  for (int64_t s : sizes)
    if (s == 0) return;
  DimVector index(sizes.size(), 0);
  while (true) {
    f(offset);
    int64_t d = nd - 1;
    for (; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < sizes[d]) break;
      offset -= strides[d] * sizes[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// For each element of view (row-major), the row-major index of the base
// element at the same storage offset; undefined if the base has overlapping
// elements (an expand's detach()), where no such index is unique.
Tensor positions_in_base(const Tensor& view, const TensorImpl& base) {
  int64_t lo = base.storage_offset(), hi = lo;
  for (int64_t d = 0; d < base.dim(); ++d) hi += (base.sizes()[d] - 1) * base.strides()[d];
  std::vector<int64_t> base_index(static_cast<size_t>(hi - lo + 1), -1);
  int64_t next = 0;
  bool overlaps = false;
  for_each_offset(base.sizes(), base.strides(), base.storage_offset(), [&](int64_t off) {
    int64_t& slot = base_index[static_cast<size_t>(off - lo)];
    overlaps = overlaps || slot >= 0;
    slot = next++;
  });
  if (overlaps) return Tensor();
  Tensor positions = view.new_empty({view.numel()}, TensorOptions(kLong).device(kCPU));
  int64_t* out = positions.data_ptr<int64_t>();
  for_each_offset(view.sizes(), view.strides(), view.storage_offset(),
                  [&](int64_t off) { *out++ = base_index[static_cast<size_t>(off - lo)]; });
  return positions.to(base.device());
}

}  // namespace

uint64_t history_id(const TensorImpl& t) {
  const AutogradMeta* meta = t.autograd_meta();
  return meta && meta->grad_fn ? meta->grad_fn->sequence_nr() + 1 : 0;
}

void record_view_base(TensorImpl& view, const Tensor& source) {
  std::shared_ptr<TensorImpl> base = source.impl();
  if (base->is_view())
    if (auto root = base->view_base().lock()) base = std::move(root);
  view.set_view_base(base, history_id(*base));
}

void refresh_view_history(const Tensor& view) {
  TensorImpl& impl = *view.impl();
  if (!impl.is_view()) return;
  const std::shared_ptr<TensorImpl> base = impl.view_base().lock();
  if (!base) return;
  const uint64_t now = history_id(*base);
  if (now == impl.view_base_history()) return;
  impl.set_view_base_history(now);
  // Only a base with a new grad_fn matters (an in-place op recorded on it);
  // a base given other data since (Module::to) has no positions in common.
  if (now == 0 || base->storage() != impl.storage()) return;
  const Tensor positions = positions_in_base(view, *base);
  if (!positions.defined()) return;  // (the old history stays)
  const Tensor base_tensor(base);
  const DimVector base_sizes(base->sizes());
  const int64_t base_numel = base->numel();
  // derivative of views of a base changed in place: d/dbase = zeros of the base with g added at the view's positions
  auto node = make_node("ViewOfBaseBackward", {base_tensor},
                        [positions, base_sizes, base_numel](Node&, const tensor_list& g) {
                          const Tensor flat = g[0].new_zeros({base_numel});
                          return tensor_list{
                              flat.scatter_add(0, positions, g[0].reshape({-1})).view(base_sizes)};
                        });
  set_history(view, node);
}

}  // namespace ember::autograd
