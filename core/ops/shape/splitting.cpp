// tensor_split and friends are narrow() views; repeat_interleave is an
// index_select (tensor repeats) or an expand + reshape (one count), so both
// get their gradients from the ops they call.
#include "ember/core/ops/shape/splitting.h"

#include <algorithm>

#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/shape.h"

namespace ember {
namespace {

int64_t split_dim(const char* op, const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, op, ": expected at least a 1-dimensional tensor, got shape ", self.sizes());
  return wrap_dim(dim, self.dim(), op);
}

// A Python slice bound: negative counts from the end, then clamped to [0, n].
int64_t clamp_bound(int64_t i, int64_t n) { return std::clamp(i < 0 ? i + n : i, int64_t{0}, n); }

std::vector<Tensor> split_even(const char* op, const Tensor& self, int64_t sections, int64_t dim,
                               int64_t min_dims) {
  EMBER_CHECK(self.dim() >= min_dims, op, ": expected a tensor with at least ", min_dims,
              " dims, got shape ", self.sizes());
  const int64_t n = self.size(dim);
  EMBER_CHECK(sections != 0 && n % sections == 0, op, ": dim ", dim, " of size ", n,
              " is not divisible into ", sections, " equal sections");
  return tensor_split(self, sections, dim);
}

std::vector<Tensor> split_at(const char* op, const Tensor& self, IntArrayRef indices, int64_t dim,
                             int64_t min_dims) {
  EMBER_CHECK(self.dim() >= min_dims, op, ": expected a tensor with at least ", min_dims,
              " dims, got shape ", self.sizes());
  return tensor_split(self, indices, dim);
}

int64_t hsplit_dim(const Tensor& self) { return self.dim() == 1 ? 0 : 1; }

}  // namespace

std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  dim = split_dim("tensor_split", self, dim);
  EMBER_CHECK(sections > 0, "tensor_split: number of sections must be positive, got ", sections);
  const int64_t n = self.size(dim), base = n / sections, longer = n % sections;
  std::vector<Tensor> parts;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < longer ? 1 : 0);
    parts.push_back(self.narrow(dim, start, len));
    start += len;
  }
  return parts;
}

std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  dim = split_dim("tensor_split", self, dim);
  const int64_t n = self.size(dim);
  const size_t k = indices.size();
  std::vector<Tensor> parts;
  for (size_t i = 0; i <= k; ++i) {  // part i is self[indices[i - 1] : indices[i]] along dim
    const int64_t start = i == 0 ? 0 : clamp_bound(indices[i - 1], n);
    const int64_t end = i == k ? n : clamp_bound(indices[i], n);
    parts.push_back(self.narrow(dim, start, std::max<int64_t>(end - start, 0)));
  }
  return parts;
}

std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections,
                                 int64_t dim) {
  const Tensor& t = tensor_indices_or_sections;
  EMBER_CHECK(t.device().is_cpu(), "tensor_split: tensor_indices_or_sections must be on the CPU, got ",
              t.device());
  EMBER_CHECK(t.scalar_type() == kLong, "tensor_split: tensor_indices_or_sections must be int64, got ",
              t.scalar_type());
  EMBER_CHECK(t.dim() <= 1, "tensor_split: tensor_indices_or_sections must be 0-d or 1-d, got shape ",
              t.sizes());
  if (t.dim() == 0) return tensor_split(self, t.item<int64_t>(), dim);
  const Tensor c = t.contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return tensor_split(self, IntArrayRef(p, static_cast<size_t>(c.numel())), dim);
}

std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  EMBER_CHECK(self.dim() >= 1, "hsplit: expected a tensor with at least 1 dims, got shape ", self.sizes());
  return split_even("hsplit", self, sections, hsplit_dim(self), 1);
}
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) {
  EMBER_CHECK(self.dim() >= 1, "hsplit: expected a tensor with at least 1 dims, got shape ", self.sizes());
  return split_at("hsplit", self, indices, hsplit_dim(self), 1);
}
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) {
  return split_even("vsplit", self, sections, 0, 2);
}
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) {
  return split_at("vsplit", self, indices, 0, 2);
}
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) {
  return split_even("dsplit", self, sections, 2, 3);
}
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) {
  return split_at("dsplit", self, indices, 2, 3);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave: repeats must be 1-d, got shape ", repeats.sizes());
  EMBER_CHECK(repeats.scalar_type() == kLong, "repeat_interleave: repeats must be int64, got ",
              repeats.scalar_type());
  const Tensor r = repeats.to(kCPU).contiguous();
  const int64_t* p = r.data_ptr<int64_t>();
  std::vector<int64_t> out;
  for (int64_t i = 0; i < r.numel(); ++i) {
    EMBER_CHECK(p[i] >= 0, "repeat_interleave: repeats can not be negative, got ", p[i], " at ", i);
    out.insert(out.end(), static_cast<size_t>(p[i]), i);
  }
  const int64_t total = static_cast<int64_t>(out.size());
  EMBER_CHECK(!output_size || *output_size == total, "repeat_interleave: output_size ", *output_size,
              " does not match the sum of repeats ", total);
  return tensor(out, kLong).to(repeats.device());
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  const Tensor input = dim ? self : self.flatten();
  const int64_t d = dim ? wrap_dim(*dim, std::max<int64_t>(input.dim(), 1), "repeat_interleave") : 0;
  EMBER_CHECK(repeats.dim() <= 1, "repeat_interleave: repeats must be 0-d or 1-d, got shape ",
              repeats.sizes());
  const Tensor x = input.dim() == 0 ? input.reshape({1}) : input;
  const int64_t n = x.size(d);
  Tensor counts = repeats.reshape({-1});
  if (counts.numel() == 1) counts = counts.expand({n}).contiguous();
  EMBER_CHECK(counts.numel() == n, "repeat_interleave: repeats of shape ", repeats.sizes(),
              " must have one count per element of dim ", d, " of size ", n, " (shape ", x.sizes(), ")");
  return index_select(x, d, repeat_interleave(counts, output_size).to(x.device()));
}

Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, "repeat_interleave: repeats can not be negative, got ", repeats);
  const Tensor input = dim ? self : self.flatten();
  const Tensor x = input.dim() == 0 ? input.reshape({1}) : input;
  const int64_t d = dim ? wrap_dim(*dim, x.dim(), "repeat_interleave") : 0;
  EMBER_CHECK(!output_size || *output_size == x.size(d) * repeats, "repeat_interleave: output_size ",
              *output_size, " does not match ", x.size(d), " * ", repeats);
  // (..., n, ...) -> (..., n, r, ...) expanded -> (..., n * r, ...)
  DimVector expanded(x.sizes()), merged(x.sizes());
  expanded.insert(static_cast<size_t>(d + 1), repeats);
  merged[d] *= repeats;
  return x.unsqueeze(d + 1).expand(expanded).reshape(merged);
}

std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t dim) const {
  return ember::tensor_split(*this, sections, dim);
}
std::vector<Tensor> Tensor::tensor_split(IntArrayRef indices, int64_t dim) const {
  return ember::tensor_split(*this, indices, dim);
}
std::vector<Tensor> Tensor::tensor_split(const Tensor& tensor_indices_or_sections, int64_t dim) const {
  return ember::tensor_split(*this, tensor_indices_or_sections, dim);
}
std::vector<Tensor> Tensor::hsplit(int64_t sections) const { return ember::hsplit(*this, sections); }
std::vector<Tensor> Tensor::hsplit(IntArrayRef indices) const { return ember::hsplit(*this, indices); }
std::vector<Tensor> Tensor::vsplit(int64_t sections) const { return ember::vsplit(*this, sections); }
std::vector<Tensor> Tensor::vsplit(IntArrayRef indices) const { return ember::vsplit(*this, indices); }
std::vector<Tensor> Tensor::dsplit(int64_t sections) const { return ember::dsplit(*this, sections); }
std::vector<Tensor> Tensor::dsplit(IntArrayRef indices) const { return ember::dsplit(*this, indices); }
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}

}  // namespace ember
