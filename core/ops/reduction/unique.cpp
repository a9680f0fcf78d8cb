// unique_consecutive and _unique2, composed from ember ops: a run starts where
// an element (or slice) differs from the one before it; the inverse is the
// running count of starts, the counts the gaps between starts. _unique2 runs
// this on the sorted elements and scatters the inverse back to input order.
#include "ember/core/ops/reduction/unique.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/reduction/reduce_helpers.h"
#include "ember/core/ops/reduction/scan.h"
#include "ember/core/ops/reduction/sort.h"
#include "ember/core/ops/shape/views.h"

namespace ember {
namespace {

// rows: (n, m). true where row i differs from row i - 1 (always at row 0);
// a NaN differs from everything.
Tensor run_starts(const Tensor& rows) {
  const int64_t n = rows.size(0);
  const Tensor first = ones({std::min<int64_t>(n, 1)}, rows.options().dtype(kBool));
  if (n <= 1) return first;
  const Tensor differs = ne(rows.narrow(0, 1, n - 1), rows.narrow(0, 0, n - 1)).sum(IntArrayRef{1});
  return cat({first, differs > 0});
}

struct Runs {
  Tensor starts;   // (n) bool
  Tensor inverse;  // (n) int64: the run of each row
  Tensor counts;   // (runs) int64
};

Runs runs_of(const Tensor& rows, bool want_inverse, bool want_counts) {
  Runs r;
  r.starts = run_starts(rows);
  const TensorOptions longs = rows.options().dtype(kLong);
  r.inverse = want_inverse ? cumsum(r.starts, 0) - 1 : empty({0}, longs);
  if (!want_counts) {
    r.counts = empty({0}, longs);
  } else {
    const Tensor begin = nonzero(r.starts).view({-1});
    const int64_t runs = begin.size(0);
    r.counts = runs == 0 ? begin
                         : cat({begin.narrow(0, 1, runs - 1), full({1}, rows.size(0), longs)}) - begin;
  }
  return r;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  NoGradGuard no_grad;
  const Tensor x = self.detach();
  if (!dim) {
    const Tensor flat = x.reshape({-1});
    Runs r = runs_of(flat.view({-1, 1}), return_inverse, return_counts);
    if (return_inverse) r.inverse = r.inverse.view(self.sizes());
    return {masked_select(flat, r.starts), r.inverse, r.counts};
  }
  EMBER_CHECK(x.dim() > 0, "unique_consecutive: dim ", *dim,
              " is given but the tensor is 0-d (pass no dim)");
  const int64_t d = detail::wrap_reduction_dim("unique_consecutive", x, *dim);
  const Tensor moved = x.movedim(d, 0);
  const int64_t n = moved.size(0);
  const Runs r = runs_of(moved.reshape({n, n == 0 ? 0 : moved.numel() / n}), return_inverse, return_counts);
  return {index_select(x, d, nonzero(r.starts).view({-1})), r.inverse, r.counts};
}

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool, bool return_inverse,
                                            bool return_counts) {
  NoGradGuard no_grad;
  auto [sorted, order] = sort(self.detach().reshape({-1}), 0);
  auto [values, sorted_inverse, counts] = unique_consecutive(sorted, return_inverse, return_counts);
  Tensor inverse = sorted_inverse;
  if (return_inverse)  // order is a permutation: inverse[order[j]] = sorted_inverse[j]
    inverse = zeros_like(sorted_inverse).scatter_add(0, order, sorted_inverse).view(self.sizes());
  return {values, inverse, counts};
}

}  // namespace ember
