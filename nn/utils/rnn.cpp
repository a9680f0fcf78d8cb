#include "ember/nn/utils/rnn.h"

#include <algorithm>
#include <numeric>

#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/reduction/sort.h"
#include "ember/core/ops/shape/views.h"

namespace ember::nn::utils::rnn {

namespace {

std::vector<int64_t> to_vector(const Tensor& t) {
  const Tensor c = t.to(kCPU).to(kLong).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

Tensor long_tensor(const std::vector<int64_t>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kLong);
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

// `sizes` with its first `drop` dims replaced by `lead`.
DimVector with_leading(IntArrayRef sizes, const DimVector& lead, size_t drop) {
  DimVector out(lead);
  for (size_t d = drop; d < sizes.size(); ++d) out.push_back(sizes[d]);
  return out;
}

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return {};
  return argsort(permutation);  // q[p[i]] = i
}

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices,
                               Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  EMBER_CHECK(data_.defined() && data_.dim() >= 1,
              "PackedSequence: data must have at least one dim");
  EMBER_CHECK(batch_sizes_.defined() && batch_sizes_.dim() == 1 &&
                  batch_sizes_.scalar_type() == kLong && batch_sizes_.device().is_cpu(),
              "PackedSequence: batch_sizes must be a 1-D int64 CPU tensor, got ",
              batch_sizes_.defined() ? batch_sizes_.sizes() : IntArrayRef{}, " ",
              batch_sizes_.defined() ? batch_sizes_.scalar_type() : kLong, " on ",
              batch_sizes_.defined() ? batch_sizes_.device() : Device(kCPU));
  const std::vector<int64_t> bs = to_vector(batch_sizes_);
  bool ordered = !bs.empty() && bs.back() > 0;
  for (size_t t = 1; t < bs.size(); ++t) ordered = ordered && bs[t] <= bs[t - 1];
  EMBER_CHECK(ordered && std::accumulate(bs.begin(), bs.end(), int64_t{0}) == data_.size(0),
              "PackedSequence: batch_sizes must be positive, non-increasing and sum to "
              "data.size(0) = ", data_.size(0), ", got ", batch_sizes_);
  if (sorted_indices_.defined())
    EMBER_CHECK(sorted_indices_.dim() == 1 && sorted_indices_.size(0) == bs[0] &&
                    sorted_indices_.scalar_type() == kLong,
                "PackedSequence: sorted_indices must be 1-D int64 with batch_sizes[0] = ", bs[0],
                " elements, got ", sorted_indices_.sizes(), " ", sorted_indices_.scalar_type());
  if (!unsorted_indices_.defined()) unsorted_indices_ = invert_permutation(sorted_indices_);
}

PackedSequence PackedSequence::to(const TensorOptions& options) const {
  const Tensor data = data_.to(options);
  if (data.is_same(data_)) return *this;
  auto follow = [&](const Tensor& t) { return t.defined() ? t.to(data.device()) : Tensor(); };
  return PackedSequence(data, batch_sizes_, follow(sorted_indices_), follow(unsorted_indices_));
}

PackedSequence PackedSequence::pin_memory() const {
  auto pin = [](const Tensor& t) { return t.defined() ? t.pin_memory() : Tensor(); };
  return PackedSequence(data_.pin_memory(), batch_sizes_, pin(sorted_indices_),
                        pin(unsorted_indices_));
}

PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first,
                                    bool enforce_sorted) {
  EMBER_CHECK(input.defined() && input.dim() >= 2,
              "pack_padded_sequence: input must have at least 2 dims (time and batch), got shape ",
              input.defined() ? input.sizes() : IntArrayRef{});
  EMBER_CHECK(lengths.defined() && lengths.dim() == 1 &&
                  is_integral(lengths.scalar_type(), /*include_bool=*/false),
              "pack_padded_sequence: lengths must be a 1-D integer tensor, got ",
              lengths.defined() ? lengths.sizes() : IntArrayRef{}, " ",
              lengths.defined() ? lengths.scalar_type() : kLong);
  const int64_t steps = input.size(batch_first ? 1 : 0), batch = input.size(batch_first ? 0 : 1);
  EMBER_CHECK(lengths.size(0) == batch && batch > 0,
              "pack_padded_sequence: expected len(lengths) to be equal to the batch size ", batch,
              " (input shape ", input.sizes(), ", batch_first ", batch_first, "), got ",
              lengths.size(0));
  std::vector<int64_t> len = to_vector(lengths);
  std::vector<int64_t> order(static_cast<size_t>(batch));
  std::iota(order.begin(), order.end(), int64_t{0});
  Tensor sorted_indices;
  if (enforce_sorted) {
    for (size_t b = 1; b < len.size(); ++b)
      EMBER_CHECK(len[b] <= len[b - 1],
                  "pack_padded_sequence: lengths must be sorted in decreasing order when "
                  "enforce_sorted is true (pass enforce_sorted=false to sort them), got ",
                  lengths.to(kCPU));
  } else {
    sorted_indices = argsort(long_tensor(len), /*dim=*/0, /*descending=*/true);
    order = to_vector(sorted_indices);
    std::vector<int64_t> sorted(len.size());
    for (size_t s = 0; s < len.size(); ++s) sorted[s] = len[static_cast<size_t>(order[s])];
    len = sorted;
  }
  EMBER_CHECK(len.back() > 0 && len.front() <= steps,
              "pack_padded_sequence: every length must be in [1, ", steps,
              "] (the input's sequence length), got ", lengths.to(kCPU));

  // Row (t, b) of the input flattened to (T * B, *) or (B * T, *).
  std::vector<int64_t> rows, batch_sizes;
  for (int64_t t = 0; t < len.front(); ++t) {
    int64_t running = 0;
    for (size_t s = 0; s < len.size() && len[s] > t; ++s, ++running)
      rows.push_back(batch_first ? order[s] * steps + t : t * batch + order[s]);
    batch_sizes.push_back(running);
  }
  const Tensor flat = input.reshape(with_leading(input.sizes(), {steps * batch}, 2));
  const Tensor data = flat.index_select(0, long_tensor(rows).to(input.device()));
  if (sorted_indices.defined()) sorted_indices = sorted_indices.to(input.device());
  return PackedSequence(data, long_tensor(batch_sizes), sorted_indices);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                               double padding_value,
                                               std::optional<int64_t> total_length) {
  const Tensor& data = sequence.data();
  const std::vector<int64_t> bs = to_vector(sequence.batch_sizes());
  const int64_t longest = static_cast<int64_t>(bs.size()), batch = bs.front();
  const int64_t steps = total_length.value_or(longest);
  EMBER_CHECK(steps >= longest,
              "pad_packed_sequence: expected total_length to be at least the length of the "
              "longest sequence (", longest, "), got ", steps);
  std::vector<int64_t> offsets(bs.size()), sorted_len(static_cast<size_t>(batch), 0);
  for (size_t t = 0; t < bs.size(); ++t) {
    offsets[t] = t == 0 ? 0 : offsets[t - 1] + bs[t - 1];
    for (int64_t s = 0; s < bs[t]; ++s) ++sorted_len[static_cast<size_t>(s)];
  }
  std::vector<int64_t> position(static_cast<size_t>(batch));  // original b -> sorted position
  if (sequence.unsorted_indices().defined())
    position = to_vector(sequence.unsorted_indices());
  else
    std::iota(position.begin(), position.end(), int64_t{0});

  // Every output row picks a row of data, or the padding row appended after it.
  const int64_t pad_row = data.size(0);
  std::vector<int64_t> rows, lengths(static_cast<size_t>(batch));
  rows.reserve(static_cast<size_t>(steps * batch));
  auto source = [&](int64_t t, int64_t b) {
    const int64_t s = position[static_cast<size_t>(b)];
    return t < sorted_len[static_cast<size_t>(s)] ? offsets[static_cast<size_t>(t)] + s : pad_row;
  };
  for (int64_t outer = 0; outer < (batch_first ? batch : steps); ++outer)
    for (int64_t inner = 0; inner < (batch_first ? steps : batch); ++inner)
      rows.push_back(batch_first ? source(inner, outer) : source(outer, inner));
  for (int64_t b = 0; b < batch; ++b)
    lengths[static_cast<size_t>(b)] = sorted_len[static_cast<size_t>(position[static_cast<size_t>(b)])];

  const Tensor padding = full(with_leading(data.sizes(), {1}, 1), padding_value, data.options());
  const Tensor picked =
      cat({data, padding}, 0).index_select(0, long_tensor(rows).to(data.device()));
  const DimVector lead = batch_first ? DimVector{batch, steps} : DimVector{steps, batch};
  return {picked.view(with_leading(data.sizes(), lead, 1)), long_tensor(lengths)};
}

Tensor pad_sequence(TensorList sequences, bool batch_first, double padding_value) {
  EMBER_CHECK(!sequences.empty(), "pad_sequence: received an empty list of sequences");
  const Tensor& first = sequences[0];
  int64_t longest = 0;
  for (size_t i = 0; i < sequences.size(); ++i) {
    const Tensor& s = sequences[i];
    const bool same_tail = s.dim() == first.dim() && s.dim() >= 1 &&
                           s.sizes().slice(1, s.dim() - 1) == first.sizes().slice(1, s.dim() - 1);
    EMBER_CHECK(same_tail && s.scalar_type() == first.scalar_type() &&
                    s.device() == first.device(),
                "pad_sequence: every sequence must be (L_i, *) with the same trailing sizes, "
                "dtype and device; sequence 0 is ", first.sizes(), " ", first.scalar_type(),
                " on ", first.device(), ", sequence ", i, " is ", s.sizes(), " ",
                s.scalar_type(), " on ", s.device());
    longest = std::max(longest, s.size(0));
  }
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences) {
    const int64_t missing = longest - s.size(0);
    padded.push_back(missing == 0 ? s
                                  : cat({s, full(with_leading(s.sizes(), {missing}, 1),
                                                 padding_value, s.options())},
                                        0));
  }
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(TensorList sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.dim() >= 1 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(sequences), long_tensor(lengths), false,
                              enforce_sorted);
}

}  // namespace ember::nn::utils::rnn
