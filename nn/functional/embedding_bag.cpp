#include "ember/nn/functional/embedding_bag.h"

#include <tuple>
#include <utility>
#include <vector>

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/index_ops.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/indexing/scatter.h"

namespace ember::nn::functional {

namespace {

// The bag of each position of a 1-D input from its offsets, and the number of
// bags. Positions after the last bag's end (include_last_offset) get bag B.
std::pair<Tensor, int64_t> bags_from_offsets(const Tensor& offsets, int64_t n,
                                             bool include_last_offset, Device device) {
  EMBER_CHECK(offsets.defined() && offsets.dim() == 1 && offsets.scalar_type() == kLong,
              "embedding_bag: a 1-D input needs 1-D int64 offsets, got ",
              offsets.defined() ? offsets.sizes() : IntArrayRef{}, " ",
              offsets.defined() ? offsets.scalar_type() : kLong);
  const Tensor host = offsets.cpu().contiguous();
  const int64_t* off = host.data_ptr<int64_t>();
  const int64_t count = host.numel();
  const int64_t b = include_last_offset ? count - 1 : count;
  EMBER_CHECK(b >= 0, "embedding_bag: include_last_offset needs at least one offset");
  EMBER_CHECK(count == 0 || off[0] == 0, "embedding_bag: offsets[0] must be 0, got ", off[0]);
  for (int64_t i = 1; i < count; ++i)
    EMBER_CHECK(off[i - 1] <= off[i] && off[i] <= n, "embedding_bag: offsets must be "
                "non-decreasing and at most the input's size ", n, ", got offsets[", i - 1,
                "] = ", off[i - 1], " and offsets[", i, "] = ", off[i]);
  const int64_t end = include_last_offset && count > 0 ? off[count - 1] : n;
  std::vector<int64_t> bag(static_cast<size_t>(n), b);
  for (int64_t k = 0; k < b; ++k) {
    const int64_t stop = k + 1 < count ? off[k + 1] : end;
    for (int64_t i = off[k]; i < stop; ++i) bag[static_cast<size_t>(i)] = k;
  }
  return {tensor(bag, kLong).to(device), b};
}

}  // namespace

Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const EmbeddingBagFuncOptions& options) {
  EMBER_CHECK(weight.dim() == 2 && is_floating_point(weight.scalar_type()),
              "embedding_bag: weight must be a 2-D floating point tensor (num_embeddings, dim), "
              "got ", weight.sizes(), " ", weight.scalar_type());
  EMBER_CHECK((input.dim() == 1 || input.dim() == 2) && input.scalar_type() == kLong,
              "embedding_bag: input must be 1-D or 2-D int64, got ", input.sizes(), " ",
              input.scalar_type());
  EMBER_CHECK(input.device() == weight.device(), "embedding_bag: input and weight must be on "
              "one device, got ", input.device(), " and ", weight.device());
  const auto mode = options.mode().kind();
  const Tensor& psw = options.per_sample_weights();
  if (psw.defined()) {
    EMBER_CHECK(mode == EmbeddingBagMode::Kind::Sum, "embedding_bag: per_sample_weights is only "
                "supported for mode kSum, got ", options.mode());
    EMBER_CHECK(psw.sizes() == input.sizes() && psw.scalar_type() == weight.scalar_type() &&
                    psw.device() == weight.device(),
                "embedding_bag: per_sample_weights must match input's shape ", input.sizes(),
                " and weight's dtype ", weight.scalar_type(), " and device, got ", psw.sizes(),
                " ", psw.scalar_type(), " on ", psw.device());
  }
  const int64_t n = input.numel(), dim = weight.size(1);
  Tensor bag;
  int64_t b = 0;
  if (input.dim() == 2) {
    EMBER_CHECK(!options.offsets().defined(),
                "embedding_bag: offsets must be undefined for a 2-D input ", input.sizes(),
                " (its rows are the bags)");
    EMBER_CHECK(!options.include_last_offset(),
                "embedding_bag: include_last_offset needs a 1-D input with offsets");
    b = input.size(0);
    bag = arange(b, input.options()).view({b, 1}).expand(input.sizes()).reshape({-1});
  } else {
    std::tie(bag, b) = bags_from_offsets(options.offsets(), n, options.include_last_offset(),
                                         input.device());
  }
  const Tensor indices = input.reshape({-1});
  if (options.padding_idx()) {
    int64_t padding_idx = *options.padding_idx();
    const int64_t num = weight.size(0);
    EMBER_CHECK(padding_idx >= -num && padding_idx < num, "embedding_bag: padding_idx ",
                padding_idx, " out of range for ", num, " embeddings");
    if (padding_idx < 0) padding_idx += num;
    bag = where(indices.eq(padding_idx), full({n}, b, input.options()), bag);
  }
  // Left-out positions go to an extra bag b, dropped at the end.
  Tensor rows = index_select(weight, 0, indices);  // (n, dim)
  const Tensor init = zeros({b + 1, dim}, weight.options());
  if (mode == EmbeddingBagMode::Kind::Max)
    return scatter_reduce(init, 0, bag.view({n, 1}).expand({n, dim}), rows, "amax",
                          /*include_self=*/false)
        .narrow(0, 0, b);
  if (psw.defined()) rows = rows * psw.reshape({n, 1});
  const Tensor sums = index_add(init, 0, bag, rows).narrow(0, 0, b);
  if (mode == EmbeddingBagMode::Kind::Sum) return sums;
  const Tensor counts =
      index_add(zeros({b + 1}, weight.options()), 0, bag, ones({n}, weight.options()));
  return sums / counts.narrow(0, 0, b).clamp_min(1).unsqueeze(1);
}

}  // namespace ember::nn::functional
