#pragma once
// Unique elements: runs of equal neighbours (unique_consecutive) and, after a
// sort, distinct values (_unique2, libtorch's name for torch.unique). NaN
// equals nothing, so each NaN is its own element. The results record no
// gradient. A result not asked for (return_inverse, return_counts false) is
// an empty int64 tensor, as libtorch.
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

// Without dim: the first element of each run of equal elements of the
// flattened self (1-d), the run of each element (int64, self's shape), and the
// run lengths. With dim: runs of equal slices along dim, the inverse of shape
// (self.size(dim)).
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self,
                                                      bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);
// The distinct elements of self in ascending order (NaNs last; the order is
// ascending whatever `sorted` says), where each element went (int64, self's
// shape), and how often each occurs.
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted = true,
                                            bool return_inverse = false,
                                            bool return_counts = false);

}  // namespace ember
