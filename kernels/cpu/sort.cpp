// Per-row sorting and selection over index arrays: each row's positions
// 0..n-1 are reordered by std::sort / partial_sort / nth_element under the
// (value, index) order of kernels/common/sort_functors.h, rows in parallel.
#include "ember/kernels/cpu/sort.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/kernels/common/sort_functors.h"

namespace ember::cpu {
namespace {

// Calls select(v, idx) on each row, v the row's n values (contiguous), idx
// its positions 0..n-1; select reorders idx so that its first m entries are
// the row's answer, which is written to out's row.
template <typename T, typename Select>
void for_each_row(const Tensor& out, const Tensor& x, SortRows r, int64_t m, const Select& select) {
  const int64_t rows = r.outer * r.inner;
  if (rows == 0 || r.n == 0 || m == 0) return;
  const T* in = x.data_ptr<T>();
  int64_t* o = out.data_ptr<int64_t>();
  const int64_t grain = std::max<int64_t>(1, 32768 / r.n);  // rows cost about n log n
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    // A strided row (inner > 1) is copied so that the comparisons read contiguous memory.
    std::unique_ptr<T[]> row_copy(r.inner == 1 ? nullptr : new T[r.n]);
    std::unique_ptr<int64_t[]> idx(new int64_t[r.n]);
    for (int64_t row = begin; row < end; ++row) {
      const int64_t outer = row / r.inner, inner = row % r.inner;
      const T* v = in + outer * r.n * r.inner + inner;
      if (row_copy) {
        for (int64_t i = 0; i < r.n; ++i) row_copy[i] = v[i * r.inner];
        v = row_copy.get();
      }
      std::iota(idx.get(), idx.get() + r.n, int64_t(0));
      select(v, idx.get());
      int64_t* dst = o + outer * m * r.inner + inner;
      for (int64_t i = 0; i < m; ++i) dst[i * r.inner] = idx[i];
    }
  });
}

template <typename T>
auto order(const T* v, bool descending) {
  return [v, descending](int64_t a, int64_t b) {
    return functors::sort_before(v[a], a, v[b], b, descending);
  };
}

}  // namespace

void sort_indices(const Tensor& out, const Tensor& x, SortRows r, bool descending) {
  dispatch_all(x.scalar_type(), "sort", [&]<typename T>() {
    for_each_row<T>(out, x, r, r.n, [&](const T* v, int64_t* idx) {
      // (value, position) pairs side by side: the comparisons stay in cache
      // instead of reading v through idx.
      thread_local std::vector<std::pair<T, int64_t>> pairs;
      pairs.resize(r.n);
      for (int64_t i = 0; i < r.n; ++i) pairs[i] = {v[i], i};
      std::sort(pairs.begin(), pairs.end(), [descending](const auto& a, const auto& b) {
        return functors::sort_before(a.first, a.second, b.first, b.second, descending);
      });
      for (int64_t i = 0; i < r.n; ++i) idx[i] = pairs[i].second;
    });
  });
}

void topk_indices(const Tensor& out, const Tensor& x, SortRows r, int64_t k, bool largest,
                  bool sorted) {
  dispatch_all(x.scalar_type(), "topk", [&]<typename T>() {
    for_each_row<T>(out, x, r, k, [&](const T* v, int64_t* idx) {
      if (sorted)
        std::partial_sort(idx, idx + k, idx + r.n, order(v, largest));
      else if (k < r.n)
        std::nth_element(idx, idx + k, idx + r.n, order(v, largest));
    });
  });
}

void kth_indices(const Tensor& out, const Tensor& x, SortRows r, int64_t pos, bool nan_wins) {
  dispatch_all(x.scalar_type(), "kthvalue", [&]<typename T>() {
    for_each_row<T>(out, x, r, 1, [&](const T* v, int64_t* idx) {
      if (nan_wins) {
        const T* nan = std::find_if(v, v + r.n, [](T e) { return e != e; });
        if (nan != v + r.n) {
          idx[0] = nan - v;
          return;
        }
      }
      std::nth_element(idx, idx + pos, idx + r.n, order(v, false));
      idx[0] = idx[pos];
    });
  });
}

}  // namespace ember::cpu
