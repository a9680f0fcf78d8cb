// searchsorted, bucketize, bincount, histc: argument checks and layout here,
// the loops behind the bucketing table (kernels/common/bucketing_kernels.h).
#include "ember/core/ops/indexing/bucketing.h"

#include <cmath>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {
namespace {

void check_device(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.device() == b.device(), op, ": expected all tensors on the same device, got ",
              a.toString(), " and ", b.toString());
}

bool right_side(bool right, std::optional<std::string_view> side) {
  if (!side) return right;
  EMBER_CHECK(*side == "left" || *side == "right", "searchsorted: side must be 'left' or 'right', got '",
              std::string(*side), "'");
  EMBER_CHECK(!(right && *side == "left"),
              "searchsorted: side 'left' and right = true ask for opposite sides");
  return *side == "right";
}

void check_sorter(const Tensor& sorter, const Tensor& seq) {
  check_device("searchsorted", sorter, seq);
  EMBER_CHECK(sorter.scalar_type() == kLong, "searchsorted: sorter must be int64, got ",
              sorter.scalar_type());
  EMBER_CHECK(sorter.sizes() == seq.sizes(), "searchsorted: sorter of shape ", sorter.sizes(),
              " must have the shape of sorted_sequence ", seq.sizes());
  if (sorter.numel() == 0) return;
  NoGradGuard no_grad;
  EMBER_CHECK(amin(sorter).item<int64_t>() >= 0 && amax(sorter).item<int64_t>() < seq.size(-1),
              "searchsorted: sorter holds an index out of range [0, ", seq.size(-1), ")");
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  (void)out_int32;  // no int32 dtype in ember: always int64
  const Tensor& seq = sorted_sequence;
  EMBER_CHECK(seq.dim() >= 1, "searchsorted: expected sorted_sequence with at least 1 dim, got a 0-d tensor");
  check_device("searchsorted", seq, self);
  const bool to_right = right_side(right, side);
  int64_t seq_rows = 1;
  if (seq.dim() > 1) {
    bool leading_match = self.dim() == seq.dim();
    for (int64_t d = 0; leading_match && d + 1 < seq.dim(); ++d) leading_match = seq.size(d) == self.size(d);
    EMBER_CHECK(leading_match, "searchsorted: sorted_sequence of shape ", seq.sizes(),
                " must be 1-d or share all but its last dim with the values of shape ", self.sizes());
    for (int64_t d = 0; d + 1 < seq.dim(); ++d) seq_rows *= seq.size(d);
  }
  const bool has_sorter = sorter && sorter->defined();
  if (has_sorter) check_sorter(*sorter, seq);
  NoGradGuard no_grad;
  const ScalarType t = result_type(seq, self);
  const Tensor s = seq.to(t).contiguous(), v = self.to(t).contiguous();
  const Tensor order = has_sorter ? sorter->contiguous() : Tensor();
  Tensor out = empty(self.sizes(), TensorOptions(kLong).device(self.device()));
  kernels().bucketing.searchsorted.on(self.device(), "searchsorted")(out, s, v, order, seq_rows,
                                                                    seq.size(-1), to_right);
  return out;
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_CHECK(sorted_sequence.dim() == 1, "searchsorted: a scalar value needs a 1-d sorted_sequence, got shape ",
              sorted_sequence.sizes());
  const Tensor value = full({}, self, TensorOptions(result_type(sorted_sequence, self)).device(sorted_sequence.device()));
  return searchsorted(sorted_sequence, value, out_int32, right, side, sorter);
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "bucketize: boundaries must be 1-d, got shape ", boundaries.sizes());
  return searchsorted(boundaries, self, out_int32, right);
}

Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "bucketize: boundaries must be 1-d, got shape ", boundaries.sizes());
  return searchsorted(boundaries, self, out_int32, right);
}

Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  EMBER_CHECK(self.dim() == 1 && self.scalar_type() == kLong,
              "bincount: expected a 1-d int64 tensor of non-negative values, got ", self.scalar_type(),
              " of shape ", self.sizes());
  EMBER_CHECK(minlength >= 0, "bincount: minlength must be >= 0, got ", minlength);
  const bool weighted = weights && weights->defined();
  if (weighted) {
    check_device("bincount", self, *weights);
    EMBER_CHECK(weights->dim() == 1 && weights->numel() == self.numel(),
                "bincount: weights of shape ", weights->sizes(), " must be 1-d with one weight per input (",
                self.numel(), ")");
  }
  const ScalarType t = !weighted ? kLong : weights->scalar_type() == kFloat ? kFloat : kDouble;
  NoGradGuard no_grad;
  int64_t length = minlength;
  if (self.numel() > 0) {
    EMBER_CHECK(amin(self).item<int64_t>() >= 0, "bincount: expected non-negative values");
    length = std::max(length, amax(self).item<int64_t>() + 1);
  }
  Tensor out = zeros({length}, TensorOptions(t).device(self.device()));
  const Tensor x = self.contiguous(), w = weighted ? weights->to(t).contiguous() : Tensor();
  if (self.numel() == 0) return out;
  kernels().bucketing.bincount.on(self.device(), "bincount")(out, x, w);
  return out;
}

Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK(is_floating_point(self.scalar_type()), "histc: expected a float32 or float64 input, got ",
              self.scalar_type());
  EMBER_CHECK(bins > 0, "histc: bins must be > 0, got ", bins);
  double lo = min.toDouble(), hi = max.toDouble();
  EMBER_CHECK(lo <= hi, "histc: max (", hi, ") must be >= min (", lo, ")");
  NoGradGuard no_grad;
  if (lo == hi && self.numel() > 0) {
    lo = amin(self).item<double>();
    hi = amax(self).item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "histc: range of [", lo, ", ", hi,
              "] is not finite");
  Tensor out = zeros({bins}, self.options());
  if (self.numel() == 0) return out;
  const Tensor x = self.contiguous();
  kernels().bucketing.histc.on(self.device(), "histc")(out, x, lo, hi);
  return out;
}

Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return ember::bincount(*this, weights, minlength);
}
Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return ember::histc(*this, bins, min, max);
}

}  // namespace ember
