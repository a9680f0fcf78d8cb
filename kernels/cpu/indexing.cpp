#include "ember/kernels/cpu/indexing.h"

#include <cstring>

#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {
namespace {

// A tensor over t's memory with the given sizes and strides (element units).
Tensor restrided(const Tensor& t, DimVector sizes, DimVector strides) {
  auto impl = std::make_shared<TensorImpl>(t.impl()->storage(), t.storage_offset(),
                                           std::move(sizes), std::move(strides), t.scalar_type());
  return Tensor(std::move(impl));
}

DimVector without_dim(IntArrayRef v, int64_t dim) {
  DimVector out;
  for (size_t d = 0; d < v.size(); ++d)
    if (static_cast<int64_t>(d) != dim) out.push_back(v[d]);
  return out;
}

// Walks the positions p of index: f(&self[p with p[dim] = index[p]], &other[p]).
// `other` is read or written over index's shape with its own strides (it may
// be larger). Positions that differ only along dim may hit one self element,
// so without `race_free` threads split the other dims and each walks dim
// whole.
template <typename T, typename F>
void index_walk(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& other,
                bool race_free, const F& f) {
  const int64_t n = index.numel();
  if (n == 0) return;
  const int64_t self_dim_bytes = self.stride(dim) * static_cast<int64_t>(sizeof(T));
  auto run = [&](const std::array<char*, 3>& ptrs, const std::array<int64_t, 3>& st, int64_t len) {
    for (int64_t i = 0; i < len; ++i) {
      const int64_t idx = *reinterpret_cast<const int64_t*>(ptrs[1] + i * st[1]);
      f(reinterpret_cast<T*>(ptrs[2] + i * st[2] + idx * self_dim_bytes),
        reinterpret_cast<T*>(ptrs[0] + i * st[0]));
    }
  };
  const int64_t rest = n / index.size(dim);
  if (race_free || rest < kGrainSize || get_num_threads() == 1) {
    // One layout over index's shape; self steps 0 along dim (the index moves it).
    DimVector self_strides(self.strides());
    self_strides[dim] = 0;
    const Tensor self_r = restrided(self, DimVector(index.sizes()), self_strides);
    const Tensor other_r = restrided(other, DimVector(index.sizes()), DimVector(other.strides()));
    StridedLayout<3> layout(other_r, {&index, &self_r});
    const int64_t grain = race_free ? kGrainSize : n;  // n: a single chunk, inline
    parallel_for(0, n, grain,
                 [&](int64_t begin, int64_t end) { for_each_run(layout, begin, end, run); });
    return;
  }
  // A layout over the other dims; each thread owns a range of them and loops over dim.
  const DimVector rest_sizes = without_dim(index.sizes(), dim);
  const Tensor self_r = restrided(self, rest_sizes, without_dim(self.strides(), dim));
  const Tensor index_r = restrided(index, rest_sizes, without_dim(index.strides(), dim));
  const Tensor other_r = restrided(other, rest_sizes, without_dim(other.strides(), dim));
  const StridedLayout<3> layout(other_r, {&index_r, &self_r});
  constexpr int64_t kIndexBytes = sizeof(int64_t), kValueBytes = sizeof(T);
  const std::array<int64_t, 3> dim_bytes{other.stride(dim) * kValueBytes,
                                         index.stride(dim) * kIndexBytes, 0};
  parallel_for(0, rest, kGrainSize, [&](int64_t begin, int64_t end) {
    StridedLayout<3> at_j = layout;
    for (int64_t j = 0; j < index.size(dim); ++j) {
      for (size_t k = 0; k < 3; ++k) at_j.data[k] = layout.data[k] + j * dim_bytes[k];
      for_each_run(at_j, begin, end, run);
    }
  });
}

}  // namespace

std::optional<int64_t> find_out_of_range(const Tensor& index, int64_t low, int64_t high) {
  if (index.numel() == 0) return std::nullopt;
  std::optional<int64_t> bad;
  const StridedLayout<1> layout(index, {});
  auto scan = [&](const std::array<char*, 1>& p, const std::array<int64_t, 1>& st, int64_t len) {
    for (int64_t i = 0; i < len && !bad; ++i) {
      const int64_t v = *reinterpret_cast<const int64_t*>(p[0] + i * st[0]);
      if (v < low || v >= high) bad = v;
    }
  };
  for_each_run(layout, 0, layout.numel, scan);
  return bad;
}

// gather and scatter only move elements: one instantiation per element size.
void gather(const char* /*op*/, const Tensor& out, const Tensor& self, int64_t dim,
            const Tensor& index) {
  dispatch_element_bits(self.scalar_type(), [&]<typename T>() {
    index_walk<T>(self, dim, index, out, /*race_free=*/true, [](const T* s, T* o) { *o = *s; });
  });
}

// Each add rounds to self's dtype, as T's own += does (bfloat16: in float).
void scatter_add(const char* /*op*/, const Tensor& self, int64_t dim, const Tensor& index,
                 const Tensor& src) {
  dispatch_numeric_storage(self.scalar_type(), "scatter_add", [&]<typename T>() {
    index_walk<T>(self, dim, index, src, /*race_free=*/false,
                  [](T* s, const T* v) { *s = static_cast<T>(*s + *v); });
  });
}

void scatter(const char* /*op*/, const Tensor& self, int64_t dim, const Tensor& index,
             const Tensor& src) {
  dispatch_element_bits(self.scalar_type(), [&]<typename T>() {
    index_walk<T>(self, dim, index, src, /*race_free=*/false, [](T* s, const T* v) { *s = *v; });
  });
}

void scatter_reduce(const char* /*op*/, const Tensor& self, int64_t dim, const Tensor& index,
                    const Tensor& src, functors::ScatterReduce reduce) {
  dispatch_numeric_storage(self.scalar_type(), "scatter_reduce", [&]<typename T>() {
    auto walk = [&](auto combine) {
      index_walk<T>(self, dim, index, src, /*race_free=*/false,
                    [combine](T* s, const T* v) { *s = combine(*s, *v); });
    };
    switch (reduce) {
      case functors::ScatterReduce::kProd: return walk(functors::ScatterProd<T>{});
      case functors::ScatterReduce::kAmax: return walk(functors::ScatterAmax<T>{});
      case functors::ScatterReduce::kAmin: return walk(functors::ScatterAmin<T>{});
    }
  });
}

void index_select(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
                  const Tensor& index) {
  const int64_t k = index.numel();
  if (out.numel() == 0) return;
  if (!self.is_contiguous()) {
    // As a gather whose index repeats along every other dim (stride 0).
    DimVector strides(out.dim(), 0);
    strides[dim] = index.stride(0);
    gather(op, out, self, dim, restrided(index, DimVector(out.sizes()), strides));
    return;
  }
  // self: (outer, n, inner) -> out: (outer, k, inner), copying inner-sized rows.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.size(d);
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  const int64_t n = self.size(dim);
  const size_t row_bytes = static_cast<size_t>(inner) * self.element_size();
  const char* src = static_cast<const char*>(self.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  const int64_t* idx = index.data_ptr<int64_t>();
  const int64_t istride = index.stride(0);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1));
  parallel_for(0, outer * k, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r / k, j = r % k;
      std::memcpy(dst + r * row_bytes, src + (o * n + idx[j * istride]) * row_bytes, row_bytes);
    }
  });
}

// One pass checks every value, with one_hot's messages, before the second writes.
void one_hot(const Tensor& out, const Tensor& indices) {
  const int64_t* v = indices.data_ptr<int64_t>();
  const int64_t n = indices.size(0), step = indices.stride(0), num_classes = out.size(1);
  for (int64_t i = 0; i < n; ++i) {
    EMBER_CHECK(v[i * step] >= 0, "one_hot: class values must be non-negative, got ", v[i * step]);
    EMBER_CHECK(v[i * step] < num_classes, "one_hot: class value ", v[i * step],
                " is out of range for ", num_classes, " classes (valid range [0, ",
                num_classes - 1, "])");
  }
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) o[i * num_classes + v[i * step]] = 1;
}

}  // namespace ember::cpu
