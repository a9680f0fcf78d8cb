#pragma once
// libtorch's indexing vocabulary, for Tensor::index and Tensor::index_put_
// (core/ops/indexing/tensor_indexing.cpp):
//   using namespace ember::indexing;
//   x.index({Slice(), 0})                 x[:, 0]
//   x.index({Ellipsis, Slice(1, None, 2)}) x[..., 1::2]
//   x.index({None, idx})                  x[None, idx]   (idx: int64 tensor)
//   x.index_put_({mask}, 0)               x[mask] = 0    (mask: bool tensor)
#include <cstdint>
#include <optional>
#include <utility>

#include "ember/core/tensor.h"

namespace ember::indexing {

// None adds a dim of size 1; as an argument of Slice it means "from the start"
// or "to the end".
inline constexpr std::nullopt_t None = std::nullopt;

struct EllipsisIndexType {};
inline constexpr EllipsisIndexType Ellipsis{};

// start:stop:step; a missing bound is the whole dim, a negative one counts from the end.
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

// One entry of an index list: None, an integer, a bool, a Slice, Ellipsis (or
// "..."), or a tensor (int64 positions or a bool mask).
class TensorIndex {
 public:
  enum class Kind { kNone, kEllipsis, kInteger, kBoolean, kSlice, kTensor };

  TensorIndex(std::nullopt_t) : kind_(Kind::kNone) {}  // NOLINT: implicit as libtorch
  TensorIndex(EllipsisIndexType) : kind_(Kind::kEllipsis) {}  // NOLINT
  TensorIndex(const char* s);  // NOLINT: "..." only
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  TensorIndex(I i) : kind_(Kind::kInteger), integer_(static_cast<int64_t>(i)) {}  // NOLINT
  TensorIndex(bool b) : kind_(Kind::kBoolean), integer_(b) {}  // NOLINT
  TensorIndex(Slice s) : kind_(Kind::kSlice), slice_(std::move(s)) {}  // NOLINT
  TensorIndex(Tensor t) : kind_(Kind::kTensor), tensor_(std::move(t)) {}  // NOLINT

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return integer_ != 0; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
  Tensor tensor_;
};

}  // namespace ember::indexing
