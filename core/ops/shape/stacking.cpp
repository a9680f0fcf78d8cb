// hstack, vstack, dstack, column_stack: views that add dims, then one cat.
#include "ember/core/ops/shape/stacking.h"

#include "ember/core/ops/shape/views.h"

namespace ember {
namespace {

template <typename Fn>
std::vector<Tensor> each(TensorList tensors, Fn fn) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(fn(t));
  return out;
}

void check_nonempty(const char* op, TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), op, ": expects a non-empty list of tensors");
}

}  // namespace

Tensor atleast_1d(const Tensor& x) { return x.dim() == 0 ? x.reshape({1}) : x; }

Tensor atleast_2d(const Tensor& x) {
  if (x.dim() == 0) return x.reshape({1, 1});
  return x.dim() == 1 ? x.unsqueeze(0) : x;
}

Tensor atleast_3d(const Tensor& x) {
  switch (x.dim()) {
    case 0: return x.reshape({1, 1, 1});
    case 1: return x.unsqueeze(0).unsqueeze(2);
    case 2: return x.unsqueeze(2);
    default: return x;
  }
}

std::vector<Tensor> atleast_1d(TensorList tensors) {
  return each(tensors, [](const Tensor& t) { return atleast_1d(t); });
}
std::vector<Tensor> atleast_2d(TensorList tensors) {
  return each(tensors, [](const Tensor& t) { return atleast_2d(t); });
}
std::vector<Tensor> atleast_3d(TensorList tensors) {
  return each(tensors, [](const Tensor& t) { return atleast_3d(t); });
}

Tensor hstack(TensorList tensors) {
  check_nonempty("hstack", tensors);
  const std::vector<Tensor> parts = atleast_1d(tensors);
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(TensorList tensors) {
  check_nonempty("vstack", tensors);
  return cat(atleast_2d(tensors), 0);
}

Tensor row_stack(TensorList tensors) {
  check_nonempty("row_stack", tensors);
  return cat(atleast_2d(tensors), 0);
}

Tensor dstack(TensorList tensors) {
  check_nonempty("dstack", tensors);
  return cat(atleast_3d(tensors), 2);
}

Tensor column_stack(TensorList tensors) {
  check_nonempty("column_stack", tensors);
  return cat(each(tensors, [](const Tensor& t) { return t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t; }),
             1);
}

}  // namespace ember
