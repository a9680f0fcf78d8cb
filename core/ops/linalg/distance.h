#pragma once
// Pairwise p-norm distances between rows, composed of ember ops (so they
// differentiate, twice, and run on CUDA without kernels of their own).
#include "ember/core/tensor.h"

namespace ember {

// x1: (B..., P, M), x2: (B..., R, M) -> (B..., P, R), the batch dims
// broadcast: out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p, p >= 0
// (inf: the largest |difference|). Builds the (B..., P, R, M) differences.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0);

// input: (N, M) -> (N (N - 1) / 2): the distances ||input[i] - input[j]||_p
// for i < j, in row-major order of (i, j).
Tensor pdist(const Tensor& input, double p = 2.0);

}  // namespace ember
