#pragma once
// Options of Embedding / EmbeddingBag and F::embedding / F::embedding_bag, as
// libtorch's: EmbeddingBagOptions(10, 3).mode(ember::kMax).
#include <cstdint>
#include <optional>
#include <ostream>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/nn/options/arg.h"
#include "ember/nn/options/reduction.h"

namespace ember {

// A reduction by maximum, as libtorch's torch::kMax (EmbeddingBag's mode).
namespace enumtype {
struct kMax {};
}  // namespace enumtype
inline constexpr enumtype::kMax kMax{};

namespace nn {

// How EmbeddingBag reduces the rows of a bag: kSum, kMean or kMax.
class EmbeddingBagMode {
 public:
  enum class Kind { Sum, Mean, Max };
  EmbeddingBagMode(Reduction reduction)  // NOLINT: kSum or kMean
      : kind_(reduction == kSum ? Kind::Sum : Kind::Mean) {
    EMBER_CHECK(reduction != kNone, "EmbeddingBag: mode must be kSum, kMean or kMax, got ",
                reduction);
  }
  EmbeddingBagMode(enumtype::kMax) : kind_(Kind::Max) {}  // NOLINT
  Kind kind() const { return kind_; }
  friend bool operator==(EmbeddingBagMode a, EmbeddingBagMode b) { return a.kind_ == b.kind_; }
  friend std::ostream& operator<<(std::ostream& os, EmbeddingBagMode m) {
    return os << (m.kind_ == Kind::Sum ? "kSum" : m.kind_ == Kind::Mean ? "kMean" : "kMax");
  }

 private:
  Kind kind_;
};

// padding_idx: that row gets no gradient (and starts at zero); negative
// counts from the end.
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

// include_last_offset: offsets has one more entry, the end of the last bag.
// padding_idx: positions holding it are left out of their bag (and of its
// count for kMean); negative counts from the end.
struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(EmbeddingBagMode, mode) = kMean;
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {
struct EmbeddingFuncOptions {
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

// offsets: where each bag starts in a 1-D input (none for a 2-D input, whose
// rows are the bags). per_sample_weights: input's shape, scales each row (kSum only).
struct EmbeddingBagFuncOptions {
  EMBER_ARG(Tensor, offsets) = Tensor();
  EMBER_ARG(EmbeddingBagMode, mode) = kMean;
  EMBER_ARG(Tensor, per_sample_weights) = Tensor();
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
}  // namespace functional
}  // namespace nn
}  // namespace ember
