#pragma once
// Packed variable-length sequences, as torch::nn::utils::rnn (libtorch 1.13).
//   auto packed = nn::utils::rnn::pack_padded_sequence(x, lengths, false, false);
//   auto [out, h_n] = rnn->forward_with_packed_input(packed);
//   auto [padded, out_lengths] = nn::utils::rnn::pad_packed_sequence(out);
// The packed layout: the batch sorted by length (longest first), then time
// step after time step, the rows of the sequences still running at that step:
//   data (sum(lengths), *), batch_sizes[t] = how many sequences are longer than t.
// Everything is made of index_select, cat and narrow, so gradients flow
// through packing and padding.
#include <cstdint>
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember::nn::utils::rnn {

// The inverse of a permutation p (1-D int64): q[p[i]] = i. Undefined in, undefined out.
Tensor invert_permutation(const Tensor& permutation);

class PackedSequence {
 public:
  // batch_sizes: 1-D int64 on the CPU, positive and non-increasing, summing
  // to data.size(0). sorted_indices[s]: the original batch index of sorted
  // position s (undefined when the batch was sorted already);
  // unsorted_indices: its inverse, computed when not given.
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {},
                          Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }

  // data converted by options; the indices follow it to its device (keeping
  // int64) and batch_sizes stays on the CPU. Returns *this when data is unchanged.
  PackedSequence to(const TensorOptions& options) const;
  PackedSequence cuda() const { return to(kCUDA); }
  PackedSequence cpu() const { return to(kCPU); }
  PackedSequence pin_memory() const;
  bool is_cuda() const { return data_.is_cuda(); }
  bool is_pinned() const { return data_.is_pinned(); }

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

// input: (T, B, *), or (B, T, *) with batch_first, padded past each length.
// lengths: B positive lengths, at most T (1-D integer tensor on the CPU);
// with enforce_sorted they must be non-increasing, otherwise the batch is
// sorted here and the order kept in sorted_indices.
PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths,
                                    bool batch_first = false, bool enforce_sorted = true);

// The inverse of pack_padded_sequence: (padded (T, B, *) or (B, T, *), lengths
// (B) int64 on the CPU), the batch in its original order, positions past each
// length equal to padding_value. T is the longest length, or total_length
// (which must be at least that).
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence,
                                               bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);

// Stacks sequences (L_i, *) into (max L_i, B, *), or (B, max L_i, *) with
// batch_first, padding the shorter ones with padding_value.
Tensor pad_sequence(TensorList sequences, bool batch_first = false, double padding_value = 0.0);

// pack_padded_sequence(pad_sequence(sequences), their lengths, false, enforce_sorted).
PackedSequence pack_sequence(TensorList sequences, bool enforce_sorted = true);

}  // namespace ember::nn::utils::rnn
