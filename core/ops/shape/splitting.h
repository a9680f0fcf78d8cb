#pragma once
// Splits into views (tensor_split, hsplit, vsplit, dsplit) and
// repeat_interleave. The Tensor methods of the same names are in core/tensor.h.
#include <optional>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// `sections` views along dim, the first size % sections of them one element
// longer than the others.
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
// Views between consecutive indices along dim (Python slice bounds: negative
// counts from the end, out of range clamps): [0, i0), [i0, i1), ..., [ik, end).
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0);
// An int64 CPU tensor: 0-d holds the sections, 1-d the indices.
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections,
                                 int64_t dim = 0);
// tensor_split along dim 1 (dim 0 for 1-d), dim 0, dim 2; `sections` must
// divide the dim's size.
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices);

// For a 1-d int64 `repeats`: 0, ..., n - 1 with i repeated repeats[i] times.
// output_size, when given, must equal the sum of repeats.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
// Each element (slice along dim) repeated repeats[i] times (one count, 0-d or
// 1 element, applies to all); without dim, self is flattened first.
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);

}  // namespace ember
