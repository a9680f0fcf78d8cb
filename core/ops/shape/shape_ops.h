#pragma once
// Shape ops that copy, written with differentiable ops (index_select, cat,
// expand, reshape, where): flip, roll, repeat, tril, triu, rot90.
#include "ember/core/tensor.h"

namespace ember {

// Reverses the order of the elements along each of dims.
Tensor flip(const Tensor& x, IntArrayRef dims);
// Shifts along dims[i] by shifts[i], elements leaving one end coming back at the
// other; with dims empty, x is rolled as if flattened.
Tensor roll(const Tensor& x, IntArrayRef shifts, IntArrayRef dims = {});
// Tiles x repeats[i] times along dim i; repeats may have more dims than x (added in front).
Tensor repeat(const Tensor& x, IntArrayRef repeats);
// The lower (upper) triangle of the last two dims: elements with col - row <= k
// (>= k) kept, the others 0.
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
// Rotates by k quarter turns in the plane of dims, from dims[0] towards dims[1].
Tensor rot90(const Tensor& x, int64_t k = 1, IntArrayRef dims = {0, 1});

}  // namespace ember
