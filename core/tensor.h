#pragma once
// Tensor: a cheap handle (a shared_ptr) to a TensorImpl. Copying a Tensor
// aliases it, as in libtorch; clone() copies the data.
//
// Methods are declared here and defined next to the op they forward to:
// metadata and autograd accessors in tensor.cpp, views in ops/views.cpp,
// arithmetic in ops/binary.cpp and ops/unary.cpp, reductions in ops/reduce.cpp,
// and so on. The free functions (ember::add, ember::matmul, ...) are in
// core/ops/*.h.
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ember/core/scalar.h"
#include "ember/core/tensor_impl.h"
#include "ember/core/tensor_options.h"

namespace ember {

namespace autograd {
class Node;
}
namespace indexing {
class TensorIndex;
}

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  // Assigning to a named tensor rebinds the handle; assigning to a temporary
  // (x[0] = y, x.select(1, 2) = 0) writes into the elements it views, as libtorch.
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor& src) && { return copy_(src); }
  Tensor& operator=(const Scalar& value) && { return fill_(value); }

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  long use_count() const { return impl_.use_count(); }

  // --- metadata (tensor.cpp) ---
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  int64_t size(int64_t dim) const;    // negative dims count from the end
  int64_t stride(int64_t dim) const;
  int64_t dim() const;
  int64_t ndimension() const { return dim(); }
  int64_t numel() const;
  ScalarType scalar_type() const;
  ScalarType dtype() const { return scalar_type(); }
  Device device() const;
  TensorOptions options() const;
  int64_t storage_offset() const;
  size_t element_size() const;
  size_t nbytes() const;  // numel * element_size
  bool is_contiguous() const;
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_floating_point() const;
  bool is_alias_of(const Tensor& other) const;  // same storage
  uint32_t _version() const;
  std::string toString() const;  // "float32 tensor [2, 3] on cpu"

  void* data_ptr() const;
  template <typename T>
  T* data_ptr() const;  // checks T matches the dtype
  template <typename T>
  T* mutable_data_ptr() const { return data_ptr<T>(); }

  // One element back to the host (syncs on CUDA). Error unless numel() == 1.
  Scalar item() const;
  template <typename T>
  T item() const { return item().to<T>(); }

  // --- conversion and copies (ops/copy.cpp) ---
  // non_blocking, as PyTorch: from pinned host memory to a device, the copy is
  // queued without a host wait; from a device to the CPU, the result is pinned
  // and the copy queued: synchronize (cuda::synchronize()) before reading it.
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  // x.to(kCUDA): a DeviceType converts to both Device and TensorOptions.
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false) const {
    return to(Device(type), non_blocking, copy);
  }
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor contiguous() const;
  Tensor clone() const;
  // non_blocking: a copy between pinned host memory and a device is queued
  // without waiting; the host must synchronize before it reads a pinned
  // destination or writes a pinned source (as PyTorch). Pageable memory is
  // copied as with non_blocking = false.
  Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  // A copy in pinned (page-locked) host memory of this CPU tensor (this one
  // when already pinned). Error for a tensor not on the CPU, or without a CUDA device.
  Tensor pin_memory() const;
  // Whether this tensor's memory comes from the pinned host allocator.
  bool is_pinned() const;

  // --- views: share storage (ops/views.cpp) ---
  Tensor view(IntArrayRef size) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor permute(IntArrayRef dims) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const;
  Tensor operator[](const Tensor& index) const;  // index({index})
  // libtorch's indexing (core/tensor_index.h): x.index({Slice(), 0}) is x[:, 0].
  // Integers, slices, None and Ellipsis give a view; tensors (int64 positions,
  // bool masks) gather a copy. index_put_ writes through the same indices.
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  // accumulate: values add up where positions repeat (ops/tensor_indexing.cpp).
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& value,
                     bool accumulate = false) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value,
                     bool accumulate = false) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& value) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) const;
  Tensor expand(IntArrayRef size) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor swapaxes(int64_t axis0, int64_t axis1) const;
  Tensor swapdims(int64_t dim0, int64_t dim1) const;

  // --- shape ops that copy (ops/shape_ops.cpp) ---
  Tensor flip(IntArrayRef dims) const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;

  // --- scatter and index writes (ops/scatter.cpp, ops/index_ops.cpp, ops/tensor_indexing.cpp) ---
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self = true) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                     const Scalar& alpha = 1) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor take(const Tensor& index) const;
  // libtorch's list form: a nullopt entry is a whole dim (":"); the
  // TensorIndex form above takes every index kind. Out of place: index_put.
  Tensor& index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                     bool accumulate = false) const;
  Tensor index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate = false) const;
  Tensor index_put(ArrayRef<indexing::TensorIndex> indices, const Tensor& values,
                   bool accumulate = false) const;
  Tensor index_put(std::initializer_list<indexing::TensorIndex> indices, const Tensor& values,
                   bool accumulate = false) const;

  // --- indexing (ops/indexing.cpp) ---
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  // New tensors with this one's dtype and device unless options say otherwise (ops/factory.cpp).
  Tensor new_empty(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_zeros(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_ones(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options = {}) const;
  Tensor type_as(const Tensor& other) const;  // to(other's device and dtype)
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor nonzero() const;

  // --- elementwise (ops/binary.cpp, ops/unary.cpp, ops/unary_math.cpp, ops/compare.cpp) ---
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(const Scalar& other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  // ops/binary_math.cpp
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(const Scalar& other) const;
  Tensor floor_divide(const Tensor& other) const;
  Tensor floor_divide(const Scalar& other) const;
  Tensor atan2(const Tensor& other) const;
  // ops/logical.cpp
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_xor(const Tensor& other) const;
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_and(const Scalar& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_or(const Scalar& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor bitwise_xor(const Scalar& other) const;
  Tensor bitwise_not() const;
  Tensor neg() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor abs() const;
  Tensor sign() const;
  Tensor relu() const;
  Tensor leaky_relu(const Scalar& negative_slope = 0.01) const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor gelu(const std::string& approximate = "none") const;
  Tensor square() const;
  Tensor reciprocal() const;
  Tensor clamp(std::optional<Scalar> min = std::nullopt, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor asin() const;
  Tensor acos() const;
  Tensor atan() const;
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor log2() const;
  Tensor log10() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor trunc() const;
  Tensor frac() const;
  Tensor hardshrink(const Scalar& lambd = 0.5) const;

  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor logical_not() const;

  // In place: each bumps the version counter (Note [Version counters]).
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& mul_(const Tensor& other) const;
  Tensor& mul_(const Scalar& other) const;
  Tensor& div_(const Tensor& other) const;
  Tensor& div_(const Scalar& other) const;
  Tensor& remainder_(const Tensor& other) const;
  Tensor& remainder_(const Scalar& other) const;
  Tensor& fmod_(const Tensor& other) const;
  Tensor& fmod_(const Scalar& other) const;
  Tensor& floor_divide_(const Tensor& other) const;
  Tensor& floor_divide_(const Scalar& other) const;
  Tensor& atan2_(const Tensor& other) const;
  Tensor& logical_and_(const Tensor& other) const;
  Tensor& logical_or_(const Tensor& other) const;
  Tensor& logical_xor_(const Tensor& other) const;
  Tensor& bitwise_and_(const Tensor& other) const;
  Tensor& bitwise_and_(const Scalar& other) const;
  Tensor& bitwise_or_(const Tensor& other) const;
  Tensor& bitwise_or_(const Scalar& other) const;
  Tensor& bitwise_xor_(const Tensor& other) const;
  Tensor& bitwise_xor_(const Scalar& other) const;
  Tensor& bitwise_not_() const;
  Tensor& clamp_(std::optional<Scalar> min = std::nullopt, std::optional<Scalar> max = std::nullopt) const;
  Tensor& relu_() const;
  Tensor& neg_() const;
  Tensor& exp_() const;
  Tensor& log_() const;
  Tensor& sqrt_() const;
  Tensor& abs_() const;
  Tensor& sigmoid_() const;
  Tensor& tanh_() const;
  Tensor& sin_() const;
  Tensor& cos_() const;
  Tensor& tan_() const;
  Tensor& asin_() const;
  Tensor& acos_() const;
  Tensor& atan_() const;
  Tensor& sinh_() const;
  Tensor& cosh_() const;
  Tensor& log1p_() const;
  Tensor& expm1_() const;
  Tensor& log2_() const;
  Tensor& log10_() const;
  Tensor& floor_() const;
  Tensor& ceil_() const;
  Tensor& round_() const;
  Tensor& trunc_() const;
  Tensor& frac_() const;
  Tensor& zero_() const;
  Tensor& fill_(const Scalar& value) const;
  Tensor& uniform_(double from = 0, double to = 1) const;
  Tensor& normal_(double mean = 0, double std = 1) const;

  // --- reductions (ops/reduce.cpp, ops/softmax.cpp) ---
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  // Sums this tensor down to `size`, which must broadcast to its shape (the
  // gradient of a broadcast); this tensor itself when the shapes match.
  Tensor sum_to_size(IntArrayRef size) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dim = {}, bool keepdim = false) const;  // dim empty: all dims
  Tensor amin(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  // unbiased must be a bool: an integer names a dim (x.var(1) is over dim 1), as libtorch.
  template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
  Tensor var(Bool unbiased) const { return var(IntArrayRef{}, unbiased); }
  Tensor var() const { return var(IntArrayRef{}); }
  Tensor var(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
  Tensor std(Bool unbiased) const { return std(IntArrayRef{}, unbiased); }
  Tensor std() const { return std(IntArrayRef{}); }
  Tensor std(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(std::optional<Scalar> p, IntArrayRef dim, bool keepdim = false) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor all() const;  // bool: every element nonzero
  Tensor any() const;  // bool: some element nonzero
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;

  // --- sorting and selection (ops/sort.cpp) ---
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1,
                                  bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(bool stable, int64_t dim = -1, bool descending = false) const;
  Tensor msort() const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;

  // --- pointwise extras and statistics (ops/special_math.cpp, ops/pointwise_extras.cpp,
  // ops/pointwise_binary.cpp, ops/pointwise_ternary.cpp, ops/statistics.cpp) ---
  Tensor erf() const;
  Tensor erfc() const;
  Tensor erfinv() const;
  Tensor lgamma() const;
  Tensor digamma() const;
  Tensor polygamma(int64_t n) const;
  Tensor exp2() const;
  Tensor sinc() const;
  Tensor logit(std::optional<double> eps = std::nullopt) const;
  Tensor nan_to_num(std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor isinf() const;
  Tensor isposinf() const;
  Tensor isneginf() const;
  Tensor signbit() const;
  Tensor hypot(const Tensor& other) const;
  Tensor xlogy(const Tensor& other) const;
  Tensor xlogy(const Scalar& other) const;
  Tensor copysign(const Tensor& other) const;
  Tensor copysign(const Scalar& other) const;
  Tensor logaddexp(const Tensor& other) const;
  Tensor logaddexp2(const Tensor& other) const;
  Tensor heaviside(const Tensor& values) const;
  Tensor isclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                 bool equal_nan = false) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logcumsumexp(int64_t dim) const;
  Tensor& erf_() const;
  Tensor& erfc_() const;
  Tensor& erfinv_() const;
  Tensor& lgamma_() const;
  Tensor& digamma_() const;
  Tensor& exp2_() const;
  Tensor& sinc_() const;
  Tensor& logit_(std::optional<double> eps = std::nullopt) const;
  Tensor& nan_to_num_(std::optional<double> nan = std::nullopt,
                      std::optional<double> posinf = std::nullopt,
                      std::optional<double> neginf = std::nullopt) const;
  Tensor& hypot_(const Tensor& other) const;
  Tensor& xlogy_(const Tensor& other) const;
  Tensor& xlogy_(const Scalar& other) const;
  Tensor& copysign_(const Tensor& other) const;
  Tensor& copysign_(const Scalar& other) const;
  Tensor& heaviside_(const Tensor& values) const;
  Tensor& lerp_(const Tensor& end, const Scalar& weight) const;
  Tensor& lerp_(const Tensor& end, const Tensor& weight) const;
  Tensor& addcmul_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor& addcdiv_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;

  // --- linear algebra (ops/matmul.cpp) ---
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;

  // --- diagonals and linear-algebra composites (ops/diagonal.cpp, ops/linalg.cpp) ---
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;  // a view
  Tensor diag(int64_t diagonal = 0) const;
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  Tensor trace() const;
  Tensor dot(const Tensor& other) const;
  Tensor vdot(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor outer(const Tensor& vec2) const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  Tensor addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                const Scalar& alpha = 1) const;
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
              const Scalar& alpha = 1) const;
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;
  Tensor kron(const Tensor& other) const;

  // --- solvers and factorizations (ops/linalg_solve.cpp, linalg_cholesky.cpp, ...) ---
  Tensor inverse() const;
  Tensor det() const;
  std::tuple<Tensor, Tensor> slogdet() const;
  Tensor logdet() const;
  Tensor cholesky(bool upper = false) const;
  Tensor cholesky_solve(const Tensor& input2, bool upper = false) const;
  Tensor cholesky_inverse(bool upper = false) const;
  std::tuple<Tensor, Tensor> triangular_solve(const Tensor& A, bool upper = true,
                                              bool transpose = false,
                                              bool unitriangular = false) const;
  Tensor lu_solve(const Tensor& LU_data, const Tensor& LU_pivots) const;

  // --- tensor extras (ops/splitting.cpp, calculus.cpp, shape_ops.cpp, statistics_extra.cpp) ---
  std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(IntArrayRef indices, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(const Tensor& tensor_indices_or_sections, int64_t dim = 0) const;
  std::vector<Tensor> hsplit(int64_t sections) const;
  std::vector<Tensor> hsplit(IntArrayRef indices) const;
  std::vector<Tensor> vsplit(int64_t sections) const;
  std::vector<Tensor> vsplit(IntArrayRef indices) const;
  std::vector<Tensor> dsplit(int64_t sections) const;
  std::vector<Tensor> dsplit(IntArrayRef indices) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor diff(int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = std::nullopt,
              const std::optional<Tensor>& append = std::nullopt) const;
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  Tensor cov(int64_t correction = 1, const std::optional<Tensor>& fweights = std::nullopt,
             const std::optional<Tensor>& aweights = std::nullopt) const;
  Tensor corrcoef() const;
  Tensor nansum(IntArrayRef dim = {}, bool keepdim = false,
                std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(IntArrayRef dim = {}, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt) const;
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor count_nonzero(IntArrayRef dim) const;
  Tensor count_nonzero(std::optional<int64_t> dim = std::nullopt) const;

  // --- writes into views, masked_scatter, fill_diagonal_ (ops/scatter_views.cpp) ---
  Tensor select_scatter(const Tensor& src, int64_t dim, int64_t index) const;
  Tensor slice_scatter(const Tensor& src, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
                       std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor diagonal_scatter(const Tensor& src, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source) const;
  Tensor& fill_diagonal_(const Scalar& fill_value, bool wrap = false) const;

  // --- quantiles (ops/quantile.cpp) ---
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;

  // --- counting (ops/bucketing.cpp) ---
  Tensor bincount(const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0) const;
  Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;

  // --- autograd (autograd/tensor_autograd.cpp) ---
  bool requires_grad() const;
  Tensor& requires_grad_(bool requires_grad = true) const;
  bool is_leaf() const;
  const Tensor& grad() const;  // undefined until a backward reaches this leaf
  Tensor& mutable_grad();
  void set_grad(const Tensor& grad);
  std::shared_ptr<autograd::Node> grad_fn() const;
  uint32_t output_nr() const;
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  void retain_grad() const;
  bool retains_grad() const;
  // fn(grad) runs when this tensor's gradient is computed; it may return a
  // replacement gradient (a Tensor) or nothing (void), told apart by its return
  // type as in libtorch. Returns a handle for remove_hook.
  template <typename Hook>
  unsigned register_hook(Hook&& fn) const {
    if constexpr (std::is_void_v<std::invoke_result_t<Hook&, const Tensor&>>)
      return register_observer_hook(std::function<void(const Tensor&)>(std::forward<Hook>(fn)));
    else
      return register_gradient_hook(std::function<Tensor(const Tensor&)>(std::forward<Hook>(fn)));
  }
  // fn(leaf) runs after backward has accumulated a gradient into this leaf's
  // .grad (PyTorch's register_post_accumulate_grad_hook): a leaf that
  // requires grad only. Returns a handle for remove_hook.
  unsigned register_post_accumulate_grad_hook(std::function<void(const Tensor&)> fn) const;
  void remove_hook(unsigned handle) const;
  // Same storage and version counter, no grad_fn, requires_grad false.
  Tensor detach() const;
  Tensor& detach_() const;

 private:
  unsigned register_gradient_hook(std::function<Tensor(const Tensor&)> fn) const;
  unsigned register_observer_hook(std::function<void(const Tensor&)> fn) const;

  std::shared_ptr<TensorImpl> impl_;
};

using TensorList = ArrayRef<Tensor>;
using tensor_list = std::vector<Tensor>;

// libtorch's operators: arithmetic, comparisons (bool tensors), unary minus.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Scalar& b);
// % is remainder; &, |, ^, ~ are bitwise (bool and integer tensors).
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Scalar& b);
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Scalar& b);
Tensor operator&(const Scalar& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Scalar& b);
Tensor operator|(const Scalar& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Scalar& b);
Tensor operator^(const Scalar& a, const Tensor& b);
Tensor operator~(const Tensor& a);
Tensor& operator&=(Tensor& a, const Tensor& b);
Tensor& operator&=(Tensor& a, const Scalar& b);
Tensor& operator|=(Tensor& a, const Tensor& b);
Tensor& operator|=(Tensor& a, const Scalar& b);
Tensor& operator^=(Tensor& a, const Tensor& b);
Tensor& operator^=(Tensor& a, const Scalar& b);

// Prints the values like PyTorch, then the shape, dtype and device (print.cpp).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace ember
