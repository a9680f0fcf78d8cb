// operator<< for tensors: the values in nested brackets, like PyTorch, right-
// aligned to the widest printed value, then a line with the shape, dtype and
// device.
#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {
namespace {

constexpr int64_t kSummarizeAbove = 1000;  // print only the edges of larger tensors
constexpr int64_t kEdgeItems = 3;

template <typename T>
std::string format_value(T v) {
  if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
  std::ostringstream os;
  if constexpr (std::is_integral_v<T>) os << static_cast<int64_t>(v);  // int8 is not a char here
  else os << std::setprecision(4) << static_cast<opmath_t<T>>(v);
  return os.str();
}

// Walks the printed elements (the edges only when summarizing) in order.
template <typename T, typename Visit>
void visit_elements(const Tensor& t, int64_t dim, const T* p, bool summarize, const Visit& visit) {
  if (t.dim() == 0) return visit(*p);
  const int64_t n = t.size(dim);
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) i = n - kEdgeItems;
    const T* q = p + i * t.stride(dim);
    if (dim + 1 == t.dim()) visit(*q);
    else visit_elements(t, dim + 1, q, summarize, visit);
  }
}

template <typename T>
void print_dims(std::ostream& os, const Tensor& t, int64_t dim, const T* p, bool summarize, size_t width) {
  auto print_value = [&](T v) {
    const std::string s = format_value(v);
    os << std::string(width - std::min(width, s.size()), ' ') << s;
  };
  if (t.dim() == 0) return print_value(*p);
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
      print_value(*q);
    } else {
      if (i > 0) os << std::string(static_cast<size_t>(dim + 1), ' ');
      print_dims(os, t, dim + 1, q, summarize, width);
    }
    if (i + 1 < n) os << (dim + 1 == t.dim() ? ", " : ",\n");
  }
  os << ']';
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  const Tensor host = t.is_cpu() ? t : t.cpu();
  dispatch_storage(host.scalar_type(), "print", [&]<typename T>() {
    const T* data = static_cast<const T*>(host.data_ptr());
    const bool summarize = host.numel() > kSummarizeAbove;
    size_t width = 0;
    if (host.numel() > 0)
      visit_elements(host, 0, data, summarize, [&](T v) { width = std::max(width, format_value(v).size()); });
    print_dims(os, host, 0, data, summarize, width);
  });
  return os << "\n[ " << t.scalar_type() << ' ' << t.sizes() << " on " << t.device()
            << (t.requires_grad() ? ", requires_grad" : "") << " ]";
}

}  // namespace ember
