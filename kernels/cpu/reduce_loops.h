#pragma once
// CPU reduction loops.
//
// reduce<In, Acc, Out>(out, in, out_sizes, ops) reduces `in` (any strides;
// expanded stride-0 dims are fine) into the contiguous buffer `out`, whose
// shape `out_sizes` has in's rank with size 1 at every reduced dim (the
// keepdim shape). Ops is one of kernels/common/reduce_functors.h.
//
// Note [Reduction layout]: the non-trivial dims of `in` are ordered by input
// stride, innermost first (stride-0 dims count as outermost), and neighbours
// of the same kind (reduced or kept) that step through memory as one dim are
// merged. Then, by the kind of the innermost dim:
//   - reduced ("inner" mode): each output element folds runs along the
//     innermost dim; a unit-stride run is spread over kLanes accumulators so
//     it vectorizes (x.sum(-1), all-reduces);
//   - kept ("outer" mode): a block of consecutive outputs is held in a
//     buffer and every reduced row is folded into it, again vectorized (sum
//     over dim 0 of (N, C), the bias gradient). Blocks are wide, so each row
//     is read in long runs that the hardware prefetcher follows.
// Threads split the outputs (inner) or the blocks (outer). When there are
// fewer of those than threads and the input is large, threads split the
// outermost reduced dim instead, each folding its part into partial
// accumulators that are combined at the end.
//
// arg_reduce(x, outer, n, inner, ...) finds the best element and its index
// along the middle dim of a contiguous (outer, n, inner) tensor (max/min with
// indices, argmax/argmin); ties keep the first index.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/core/shape.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/reduce_dims.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {

namespace reduce_detail {

constexpr int kLanes = 16;        // independent accumulators of a contiguous run
constexpr int64_t kBlock = 2048;  // outputs held in a buffer (outer mode, arg columns)

// Dims of one kind, innermost first; strides in elements.
struct DimList {
  DimVector size, in_stride, out_stride;
  size_t ndim() const { return size.size(); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : size) n *= s;
    return n;
  }
  void push(int64_t s, int64_t in_st, int64_t out_st) {
    size.push_back(s);
    in_stride.push_back(in_st);
    out_stride.push_back(out_st);
  }
};

struct ReduceLayout {
  DimList kept, reduced;
  bool inner_mode = true;
  // Independent pieces of work: outputs (inner mode) or blocks (outer mode).
  int64_t tasks() const {
    if (inner_mode) return kept.numel();
    return kept.numel() / kept.size[0] * ((kept.size[0] + kBlock - 1) / kBlock);
  }
};

// Note [Reduction layout]. `in` has at least one element.
inline ReduceLayout make_layout(const Tensor& in, IntArrayRef out_sizes) {
  ReduceLayout L;
  for (const ReduceDim& d : merged_reduce_dims(in.sizes(), in.strides(), out_sizes))
    (d.reduced ? L.reduced : L.kept).push(d.size, d.in_stride, d.out_stride);
  if (L.reduced.ndim() == 0)
    L.reduced.push(1, 0, 0);  // nothing reduced: each output reads one element
  L.inner_mode = L.kept.ndim() == 0 ||
                 reduce_order_key(L.reduced.in_stride[0]) < reduce_order_key(L.kept.in_stride[0]);
  return L;
}

// Folds n elements at p (stride in elements) into acc.
template <typename In, typename Acc, typename Ops>
Acc fold_run(Acc acc, const In* p, int64_t n, int64_t stride, const Ops& ops) {
  if (stride != 1) {
    for (int64_t i = 0; i < n; ++i) acc = ops.step(acc, p[i * stride]);
    return acc;
  }
  int64_t i = 0;
  if (n >= kLanes) {
    Acc lanes[kLanes];
    for (int j = 0; j < kLanes; ++j) lanes[j] = ops.identity();
    for (; i + kLanes <= n; i += kLanes) {
#pragma omp simd  // the lanes are independent; without it select-style steps (max) stay scalar
      for (int j = 0; j < kLanes; ++j) lanes[j] = ops.step(lanes[j], p[i + j]);
    }
    for (int j = 0; j < kLanes; ++j) acc = ops.combine(acc, lanes[j]);
  }
  for (; i < n; ++i) acc = ops.step(acc, p[i]);
  return acc;
}

// Advances a multi-index over dims [first, ndim) of `dims` (innermost first)
// by one, keeping the input and output offsets in step. False when it wraps.
inline bool advance(const DimList& dims, size_t first, DimVector& idx, int64_t& in_off,
                    int64_t& out_off) {
  for (size_t d = first; d < dims.ndim(); ++d) {
    in_off += dims.in_stride[d];
    out_off += dims.out_stride[d];
    if (++idx[d] < dims.size[d]) return true;
    in_off -= dims.in_stride[d] * dims.size[d];
    out_off -= dims.out_stride[d] * dims.size[d];
    idx[d] = 0;
  }
  return false;
}

// Sets idx to the multi-index of linear position `pos` over dims [first, ndim)
// and returns the matching input and output offsets.
inline void seek(const DimList& dims, size_t first, int64_t pos, DimVector& idx, int64_t& in_off,
                 int64_t& out_off) {
  idx.assign(dims.ndim(), 0);
  in_off = out_off = 0;
  for (size_t d = first; d < dims.ndim(); ++d) {
    idx[d] = pos % dims.size[d];
    pos /= dims.size[d];
    in_off += idx[d] * dims.in_stride[d];
    out_off += idx[d] * dims.out_stride[d];
  }
}

// Inner mode: outputs [begin, end) in kept order; sink(out_offset, acc).
template <typename In, typename Acc, typename Ops, typename Sink>
void reduce_inner(const ReduceLayout& L, const In* in, int64_t begin, int64_t end, const Ops& ops,
                  const Sink& sink) {
  const DimList& R = L.reduced;
  DimVector kidx, ridx(R.ndim(), 0);
  int64_t k_in = 0, k_out = 0;
  seek(L.kept, 0, begin, kidx, k_in, k_out);
  for (int64_t o = begin; o < end; ++o) {
    Acc acc = ops.identity();
    int64_t r_in = 0, unused = 0;
    do {
      acc = fold_run(acc, in + k_in + r_in, R.size[0], R.in_stride[0], ops);
    } while (advance(R, 1, ridx, r_in, unused));
    sink(k_out, acc);
    advance(L.kept, 0, kidx, k_in, k_out);
  }
}

// Outer mode: tasks [begin, end), each a block of up to kBlock outputs along
// the innermost kept dim, for one position of the other kept dims.
template <typename In, typename Acc, typename Ops, typename Sink>
void reduce_outer(const ReduceLayout& L, const In* in, int64_t begin, int64_t end, const Ops& ops,
                  const Sink& sink) {
  const DimList &K = L.kept, &R = L.reduced;
  const int64_t n0 = K.size[0], s0 = K.in_stride[0], os0 = K.out_stride[0];
  const int64_t blocks = (n0 + kBlock - 1) / kBlock;
  Acc acc[kBlock];
  DimVector kidx, ridx(R.ndim(), 0);
  for (int64_t t = begin; t < end; ++t) {
    int64_t k_in, k_out;
    seek(K, 1, t / blocks, kidx, k_in, k_out);
    const int64_t j0 = (t % blocks) * kBlock, len = std::min(kBlock, n0 - j0);
    for (int64_t j = 0; j < len; ++j) acc[j] = ops.identity();
    const In* base = in + k_in + j0 * s0;
    int64_t r_in = 0, unused = 0;
    do {
      for (int64_t r = 0; r < R.size[0]; ++r) {
        const In* row = base + r_in + r * R.in_stride[0];
        if (s0 == 1) {
          for (int64_t j = 0; j < len; ++j) acc[j] = ops.step(acc[j], row[j]);
        } else {
          for (int64_t j = 0; j < len; ++j) acc[j] = ops.step(acc[j], row[j * s0]);
        }
      }
    } while (advance(R, 1, ridx, r_in, unused));
    for (int64_t j = 0; j < len; ++j) sink(k_out + (j0 + j) * os0, acc[j]);
  }
}

// Runs the whole layout, threads splitting its tasks.
template <typename In, typename Acc, typename Ops, typename Sink>
void reduce_layout(const ReduceLayout& L, const In* in, const Ops& ops, const Sink& sink) {
  const int64_t per_task =
      L.reduced.numel() * (L.inner_mode ? 1 : std::min(kBlock, L.kept.size[0]));
  const int64_t grain = std::max<int64_t>(1, kGrainSize / per_task);
  parallel_for(0, L.tasks(), grain, [&](int64_t b, int64_t e) {
    if (L.inner_mode)
      reduce_inner<In, Acc>(L, in, b, e, ops, sink);
    else
      reduce_outer<In, Acc>(L, in, b, e, ops, sink);
  });
}

}  // namespace reduce_detail

template <typename In, typename Acc, typename Out, typename Ops>
void reduce(Out* out, const Tensor& in, IntArrayRef out_sizes, const Ops& ops) {
  using namespace reduce_detail;
  const int64_t num_out = compute_numel(out_sizes);
  if (num_out == 0) return;
  if (in.numel() == 0) {
    std::fill(out, out + num_out, ops.project(ops.identity()));
    return;
  }
  const ReduceLayout L = make_layout(in, out_sizes);
  const In* data = static_cast<const In*>(in.data_ptr());
  const int threads = get_num_threads();
  const size_t last = L.reduced.ndim() - 1;
  const int64_t outer_red = L.reduced.size[last];
  const int64_t chunks = std::min<int64_t>({threads, outer_red, in.numel() / kGrainSize});
  if (L.tasks() >= threads || chunks < 2 || ember::detail::in_parallel_region()) {
    reduce_layout<In, Acc>(L, data, ops, [&](int64_t o, Acc acc) { out[o] = ops.project(acc); });
    return;
  }
  // Few tasks, large input: chunk c folds its slice of the outermost reduced
  // dim into partial[c], then the partials are combined in order.
  // (A heap array, not std::vector: Acc may be bool.)
  std::unique_ptr<Acc[]> partial(new Acc[static_cast<size_t>(chunks * num_out)]);
  parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      const int64_t start = outer_red * c / chunks, stop = outer_red * (c + 1) / chunks;
      ReduceLayout part = L;
      part.reduced.size[last] = stop - start;
      Acc* dst = partial.get() + c * num_out;
      reduce_layout<In, Acc>(part, data + start * L.reduced.in_stride[last], ops,
                             [&](int64_t o, Acc acc) { dst[o] = acc; });
    }
  });
  for (int64_t o = 0; o < num_out; ++o) {
    Acc acc = partial[o];
    for (int64_t c = 1; c < chunks; ++c) acc = ops.combine(acc, partial[c * num_out + o]);
    out[o] = ops.project(acc);
  }
}

namespace reduce_detail {

// Best of x[0], x[stride], ..., x[(n-1)*stride]: (value, index), n > 0.
template <typename T, typename Ops>
std::pair<T, int64_t> arg_scan(const T* x, int64_t n, int64_t stride, const Ops& ops) {
  T best = x[0];
  int64_t at = 0;
  for (int64_t k = 1; k < n; ++k)
    if (ops.better(x[k * stride], best)) {
      best = x[k * stride];
      at = k;
    }
  return {best, at};
}

// arg_scan of a contiguous run: kLanes lanes each keep their first best, then
// the lanes are merged preferring the smaller index among equal values.
template <typename T, typename Ops>
std::pair<T, int64_t> arg_scan_contiguous(const T* x, int64_t n, const Ops& ops) {
  if (n < 2 * kLanes) return arg_scan(x, n, 1, ops);
  T best[kLanes];
  int64_t at[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    best[j] = x[j];
    at[j] = j;
  }
  int64_t i = kLanes;
  for (; i + kLanes <= n; i += kLanes) {
#pragma omp simd
    for (int j = 0; j < kLanes; ++j) {
      const bool b = ops.better(x[i + j], best[j]);
      best[j] = b ? x[i + j] : best[j];
      at[j] = b ? i + j : at[j];
    }
  }
  T v = best[0];
  int64_t a = at[0];
  for (int j = 1; j < kLanes; ++j) {
    const bool equal = !ops.better(best[j], v) && !ops.better(v, best[j]);
    if (ops.better(best[j], v) || (equal && at[j] < a)) {
      v = best[j];
      a = at[j];
    }
  }
  for (; i < n; ++i)  // later indices: only a strictly better value wins
    if (ops.better(x[i], v)) {
      v = x[i];
      a = i;
    }
  return {v, a};
}

}  // namespace reduce_detail

// x: contiguous (outer, n, inner), n > 0. values (may be null) and indices:
// contiguous (outer, inner).
template <typename T, typename Ops>
void arg_reduce(const T* x, int64_t outer, int64_t n, int64_t inner, T* values, int64_t* indices,
                const Ops& ops) {
  using namespace reduce_detail;
  const int64_t num_out = outer * inner;
  if (num_out == 0) return;
  const int threads = get_num_threads();
  const int64_t chunks = std::min<int64_t>(threads, n / kGrainSize);
  if (num_out == 1 && chunks >= 2 && !ember::detail::in_parallel_region()) {
    // One long scan: each thread scans a chunk; the earliest best wins.
    std::vector<std::pair<T, int64_t>> best(static_cast<size_t>(chunks));
    parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        const int64_t start = n * c / chunks, stop = n * (c + 1) / chunks;
        best[c] = arg_scan_contiguous(x + start, stop - start, ops);
        best[c].second += start;
      }
    });
    auto win = best[0];
    for (int64_t c = 1; c < chunks; ++c)
      if (ops.better(best[c].first, win.first)) win = best[c];
    if (values) values[0] = win.first;
    indices[0] = win.second;
    return;
  }
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const auto [v, at] = arg_scan_contiguous(x + o * n, n, ops);
        if (values) values[o] = v;
        indices[o] = at;
      }
    });
    return;
  }
  // Columns: for one outer position, a block of inner positions is updated
  // row by row, walking memory contiguously.
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  const int64_t width = std::min(kBlock, inner);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (width * n));
  parallel_for(0, outer * blocks, grain, [&](int64_t b, int64_t e) {
    std::unique_ptr<T[]> best_buf(new T[static_cast<size_t>(width)]);
    std::vector<int64_t> at(static_cast<size_t>(width));
    T* best = best_buf.get();
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / blocks, j0 = (t % blocks) * kBlock, len = std::min(kBlock, inner - j0);
      const T* col = x + o * n * inner + j0;
      for (int64_t j = 0; j < len; ++j) {
        best[j] = col[j];
        at[j] = 0;
      }
      for (int64_t k = 1; k < n; ++k) {
        const T* row = col + k * inner;
        for (int64_t j = 0; j < len; ++j) {
          const bool better = ops.better(row[j], best[j]);
          best[j] = better ? row[j] : best[j];
          at[j] = better ? k : at[j];
        }
      }
      for (int64_t j = 0; j < len; ++j) {
        if (values) values[o * inner + j0 + j] = best[j];
        indices[o * inner + j0 + j] = at[j];
      }
    }
  });
}

}  // namespace ember::cpu
