// STUB: replaced by the real implementation.
#include "ember/core/ops/reduce.h"
#include "ember/core/error.h"

namespace ember {

Tensor sum(const Tensor& x, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) { EMBER_ERROR("sum: not implemented yet"); }
Tensor mean(const Tensor& x, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) { EMBER_ERROR("mean: not implemented yet"); }
Tensor sum_to(const Tensor& x, IntArrayRef shape) { EMBER_ERROR("sum_to: not implemented yet"); }
Tensor max(const Tensor& x) { EMBER_ERROR("max: not implemented yet"); }
std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) { EMBER_ERROR("max: not implemented yet"); }
Tensor min(const Tensor& x) { EMBER_ERROR("min: not implemented yet"); }
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) { EMBER_ERROR("min: not implemented yet"); }
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { EMBER_ERROR("argmax: not implemented yet"); }
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { EMBER_ERROR("argmin: not implemented yet"); }
Tensor var(const Tensor& x, IntArrayRef dim, bool unbiased, bool keepdim) { EMBER_ERROR("var: not implemented yet"); }
Tensor std(const Tensor& x, IntArrayRef dim, bool unbiased, bool keepdim) { EMBER_ERROR("std: not implemented yet"); }
Tensor norm(const Tensor& x, std::optional<Scalar> p, IntArrayRef dim, bool keepdim) { EMBER_ERROR("norm: not implemented yet"); }
Tensor all(const Tensor& x) { EMBER_ERROR("all: not implemented yet"); }
Tensor any(const Tensor& x) { EMBER_ERROR("any: not implemented yet"); }
Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) { EMBER_ERROR("softmax: not implemented yet"); }
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) { EMBER_ERROR("log_softmax: not implemented yet"); }
Tensor logsumexp(const Tensor& x, IntArrayRef dim, bool keepdim) { EMBER_ERROR("logsumexp: not implemented yet"); }
Tensor Tensor::sum(std::optional<ScalarType> dtype) const { EMBER_ERROR("sum: not implemented yet"); }
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const { EMBER_ERROR("sum: not implemented yet"); }
Tensor Tensor::mean(std::optional<ScalarType> dtype) const { EMBER_ERROR("mean: not implemented yet"); }
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const { EMBER_ERROR("mean: not implemented yet"); }
Tensor Tensor::max() const { EMBER_ERROR("max: not implemented yet"); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { EMBER_ERROR("max: not implemented yet"); }
Tensor Tensor::min() const { EMBER_ERROR("min: not implemented yet"); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { EMBER_ERROR("min: not implemented yet"); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const { EMBER_ERROR("argmax: not implemented yet"); }
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const { EMBER_ERROR("argmin: not implemented yet"); }
Tensor Tensor::var(bool unbiased) const { EMBER_ERROR("var: not implemented yet"); }
Tensor Tensor::var(IntArrayRef dim, bool unbiased, bool keepdim) const { EMBER_ERROR("var: not implemented yet"); }
Tensor Tensor::std(bool unbiased) const { EMBER_ERROR("std: not implemented yet"); }
Tensor Tensor::std(IntArrayRef dim, bool unbiased, bool keepdim) const { EMBER_ERROR("std: not implemented yet"); }
Tensor Tensor::norm(const Scalar& p) const { EMBER_ERROR("norm: not implemented yet"); }
Tensor Tensor::norm(std::optional<Scalar> p, IntArrayRef dim, bool keepdim) const { EMBER_ERROR("norm: not implemented yet"); }
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const { EMBER_ERROR("softmax: not implemented yet"); }
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const { EMBER_ERROR("log_softmax: not implemented yet"); }
Tensor Tensor::all() const { EMBER_ERROR("all: not implemented yet"); }
Tensor Tensor::any() const { EMBER_ERROR("any: not implemented yet"); }
}  // namespace ember
