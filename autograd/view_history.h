#pragma once
// Note [Views of a tensor changed in place]: v = y.select(0, 0) records
// SelectBackward -> y's grad_fn at that moment. An in-place op on y afterwards
// (y.mul_(2)) gives y a new grad_fn, and v's values change with it, but v's
// recorded history still leads to y's old node: gradients through v would
// miss the in-place op. So each view remembers its base and an id of the
// base's history when the view was made; whenever autograd looks at the view
// (requires_grad, grad_fn, gradient_edge) and the base's history has changed
// since, the view gets a new grad_fn, ViewOfBaseBackward, that places the
// view's gradient at its elements' positions in the base (a scatter_add, so
// expanded views sum) and hands it to the base's current grad_fn. PyTorch does
// the same with AsStridedBackward.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::autograd {

// An id of t's history: its grad_fn's sequence number + 1, or 0 without one.
uint64_t history_id(const TensorImpl& t);

// Called by the view ops: view is made from source (which may itself be a view).
void record_view_base(TensorImpl& view, const Tensor& source);

// Gives `view` a history through its base's current grad_fn when that has
// changed since the view was made. Cheap when nothing changed.
void refresh_view_history(const Tensor& view);

}  // namespace ember::autograd
