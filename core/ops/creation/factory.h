#pragma once
// Tensor factories, as libtorch's: ember::zeros({2, 3}, ember::kFloat64).
#include <functional>
#include <initializer_list>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

Tensor empty(IntArrayRef size, const TensorOptions& options = {});
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options = {});
Tensor zeros(IntArrayRef size, const TensorOptions& options = {});
Tensor ones(IntArrayRef size, const TensorOptions& options = {});
Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options = {});
Tensor empty_like(const Tensor& t);
Tensor empty_like(const Tensor& t, const TensorOptions& options);
Tensor zeros_like(const Tensor& t);
Tensor zeros_like(const Tensor& t, const TensorOptions& options);
Tensor ones_like(const Tensor& t);
Tensor ones_like(const Tensor& t, const TensorOptions& options);
Tensor full_like(const Tensor& t, const Scalar& fill_value);
Tensor full_like(const Tensor& t, const Scalar& fill_value, const TensorOptions& options);

// [start, end) in steps; int64 when all arguments are integers, else float32.
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              const TensorOptions& options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options = {});
Tensor eye(int64_t n, const TensorOptions& options = {});

// Values for ember::tensor: a number or a (nested) braced list of them.
class TensorDataContainer {
 public:
  TensorDataContainer(double v) : scalar_(v), is_scalar_(true) {}   // NOLINT
  TensorDataContainer(float v) : scalar_(v), is_scalar_(true) {}    // NOLINT
  TensorDataContainer(bool v) : scalar_(v), is_scalar_(true) {}     // NOLINT
  TensorDataContainer(int v) : scalar_(v), is_scalar_(true) {}      // NOLINT
  TensorDataContainer(int64_t v) : scalar_(v), is_scalar_(true) {}  // NOLINT
  TensorDataContainer(std::initializer_list<TensorDataContainer> list);  // NOLINT
  template <typename T>
  TensorDataContainer(const std::vector<T>& v)  // NOLINT
      : TensorDataContainer(from_vector(v)) {}

  bool is_scalar() const { return is_scalar_; }
  const Scalar& scalar() const { return scalar_; }
  const std::vector<TensorDataContainer>& elements() const { return elements_; }
  DimVector sizes() const;
  // The dtype libtorch infers: bool < int64 < float32 (default float dtype).
  ScalarType inferred_dtype() const;

 private:
  TensorDataContainer() = default;
  template <typename T>
  static TensorDataContainer from_vector(const std::vector<T>& v) {
    TensorDataContainer c;
    for (const T& x : v) c.elements_.emplace_back(x);
    return c;
  }
  Scalar scalar_;
  bool is_scalar_ = false;
  std::vector<TensorDataContainer> elements_;
};

Tensor tensor(const TensorDataContainer& data, const TensorOptions& options);
Tensor tensor(const TensorDataContainer& data);

// A tensor over memory the caller owns (no copy). The memory must outlive the
// tensor, or pass a deleter that frees it when the last alias dies.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 const TensorOptions& options = {});

}  // namespace ember
