// searchsorted, bincount and histc on the CPU: plain loops over contiguous
// data around the functors of kernels/common/bucketing_functors.h, each
// dispatching the dtype set of kernels/common/bucketing_kernels.h, as CUDA.
#include "ember/kernels/cpu/bucketing.h"

#include "ember/core/parallel.h"
#include "ember/kernels/common/bucketing_functors.h"

namespace ember::cpu {

void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, const Tensor& sorter,
                  int64_t seq_rows, int64_t n, bool right) {
  const int64_t total = values.numel();
  if (total == 0) return;
  const int64_t m = seq_rows == 1 ? total : total / seq_rows;  // values per row
  int64_t* o = out.data_ptr<int64_t>();
  const int64_t* s = sorter.defined() ? sorter.data_ptr<int64_t>() : nullptr;
  dispatch_dtypes<kSearchsortedDtypes>(seq.scalar_type(), "searchsorted", [&]<typename T>() {
    const T* q = seq.data_ptr<T>();
    const T* v = values.data_ptr<T>();
    parallel_for(0, total, 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t row = seq_rows == 1 ? 0 : i / m;
        o[i] = functors::search_sorted(q + row * n, s ? s + row * n : nullptr, n, v[i], right);
      }
    });
  });
}

void bincount(const Tensor& out, const Tensor& x, const Tensor& weights) {
  const int64_t* idx = x.data_ptr<int64_t>();
  dispatch_dtypes<kBincountDtypes>(out.scalar_type(), "bincount", [&]<typename T>() {
    T* o = out.data_ptr<T>();
    const T* w = weights.defined() ? weights.data_ptr<T>() : nullptr;
    for (int64_t i = 0; i < x.numel(); ++i) o[idx[i]] += w ? w[i] : T(1);
  });
}

void histc(const Tensor& out, const Tensor& x, double lo, double hi) {
  const int64_t bins = out.numel();
  dispatch_dtypes<kHistcDtypes>(x.scalar_type(), "histc", [&]<typename T>() {
    T* o = out.data_ptr<T>();
    const T* p = x.data_ptr<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t b = functors::histc_bin(p[i], static_cast<T>(lo), static_cast<T>(hi), bins);
      if (b >= 0) o[b] += T(1);
    }
  });
}

}  // namespace ember::cpu
