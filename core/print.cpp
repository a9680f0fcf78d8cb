// operator<< for tensors: the values in nested brackets, like PyTorch, then a
// line with the shape, dtype and device.
#include <iomanip>
#include <ostream>

#include "ember/core/tensor.h"

namespace ember {
namespace {

constexpr int64_t kSummarizeAbove = 1000;  // print only the edges of larger tensors
constexpr int64_t kEdgeItems = 3;

template <typename T>
void print_value(std::ostream& os, T v) {
  if constexpr (std::is_same_v<T, bool>) os << (v ? "true" : "false");
  else if constexpr (std::is_integral_v<T>) os << v;
  else os << std::setw(10) << std::setprecision(4) << v;
}

template <typename T>
void print_dims(std::ostream& os, const Tensor& t, int64_t dim, const T* p, int indent, bool summarize) {
  if (t.dim() == 0) {
    print_value(os, *p);
    return;
  }
  const int64_t n = t.size(dim);
  os << '[';
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      os << (dim + 1 == t.dim() ? " ...," : "...,\n");
      i = n - kEdgeItems - 1;
      continue;
    }
    const T* q = p + i * t.stride(dim);
    if (dim + 1 == t.dim()) {
      print_value(os, *q);
    } else {
      if (i > 0) os << std::string(static_cast<size_t>(indent + 1), ' ');
      print_dims(os, t, dim + 1, q, indent + 1, summarize);
    }
    if (i + 1 < n) os << (dim + 1 == t.dim() ? ", " : ",\n");
  }
  os << ']';
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  const Tensor host = t.is_cpu() ? t : t.cpu();
  dispatch_all(host.scalar_type(), "print", [&]<typename T>() {
    print_dims(os, host, 0, static_cast<const T*>(host.data_ptr()), 0, host.numel() > kSummarizeAbove);
  });
  return os << "\n[ " << t.scalar_type() << ' ' << t.sizes() << " on " << t.device()
            << (t.requires_grad() ? ", requires_grad" : "") << " ]";
}

}  // namespace ember
