#pragma once
// The one strided loop every CPU elementwise op runs on.
//
// elementwise<Out, In...>(out, {inputs...}, f) computes out[i] = f(in[i]...)
// over out's shape. Inputs must already have the dtypes In... and shapes that
// broadcast to out's (expand() strides of 0 are fine, so are transposes and
// slices). Dims are coalesced first, so contiguous tensors become one flat run.
// The innermost run is compiled once for every pattern of "input k repeats one
// value" (stride 0), so x + bias and x * 2 vectorize like x + y does.
#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "ember/core/parallel.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/broadcast_geometry.h"

namespace ember::cpu {

constexpr int64_t kGrainSize = 32768;

// Shape and byte strides of N operands (operand 0 is the output), merged as
// Note [Broadcast geometry] says.
template <size_t N>
struct StridedLayout {
  DimVector shape;
  std::array<DimVector, N> strides;
  std::array<char*, N> data;
  int64_t numel = 1;

  StridedLayout(const Tensor& out, const std::array<const Tensor*, N - 1>& inputs) {
    static_assert(N <= kMaxBroadcastOperands);
    std::array<IntArrayRef, N> operand_sizes, operand_strides;
    std::array<int64_t, N> element_bytes;
    for (size_t k = 0; k < N; ++k) {
      const TensorImpl& impl = *(k == 0 ? out : *inputs[k - 1]).unsafeGetTensorImpl();
      operand_sizes[k] = impl.sizes();
      operand_strides[k] = impl.strides();
      data[k] = static_cast<char*>(impl.data());
      element_bytes[k] = static_cast<int64_t>(element_size(impl.dtype()));
    }
    numel = out.numel();
    BroadcastGeometry g =
        broadcast_geometry(out.sizes(), operand_sizes.data(), operand_strides.data(), N);
    if (g.sizes.empty()) {  // a single element: one run of one
      shape = DimVector(1, 1);
      for (size_t k = 0; k < N; ++k) strides[k] = DimVector(1, 0);
      return;
    }
    shape = std::move(g.sizes);
    for (size_t k = 0; k < N; ++k) {
      strides[k] = std::move(g.strides[k]);
      for (size_t d = 0; d < shape.size(); ++d) strides[k][d] *= element_bytes[k];
    }
  }
};

namespace detail {

// Runs longer than this write their output with non-temporal stores: the
// output will not fit in the caches anyway, and streaming skips reading each
// line before overwriting it (a third of the memory traffic of c = a + b).
constexpr int64_t kStreamingBytes = int64_t(4) << 20;

#if defined(__AVX512F__) || defined(__AVX2__)
// One cache line of out from an aligned buffer, with non-temporal stores.
template <typename Out>
void stream_line(Out* out, const Out* line) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<Out, float>) _mm512_stream_ps(out, _mm512_load_ps(line));
  else _mm512_stream_pd(out, _mm512_load_pd(line));
#else
  if constexpr (std::is_same_v<Out, float>) {
    _mm256_stream_ps(out, _mm256_load_ps(line));
    _mm256_stream_ps(out + 8, _mm256_load_ps(line + 8));
  } else {
    _mm256_stream_pd(out, _mm256_load_pd(line));
    _mm256_stream_pd(out + 4, _mm256_load_pd(line + 4));
  }
#endif
}

// out[i] = value(i) with streaming stores of whole cache lines (float or
// double). The values are computed 4 lines at a time into a buffer that stays
// in L1, by a plain loop the compiler vectorizes, then streamed out: computed
// straight into the stores, the 16 values of each vector were scalar code, and
// one thread ran at 70% of the memory's speed.
template <typename Out, typename Value>
void streaming_run(Out* out, int64_t n, const Value& value) {
  constexpr int64_t kLine = 64 / sizeof(Out);
  constexpr int64_t kTile = 4 * kLine;
  int64_t i = 0;
  for (; i < n && reinterpret_cast<uintptr_t>(out + i) % 64 != 0; ++i) out[i] = value(i);
  alignas(64) Out tile[kTile];
  while (n - i >= kLine) {
    const int64_t m = std::min(kTile, (n - i) / kLine * kLine);
    for (int64_t j = 0; j < m; ++j) tile[j] = value(i + j);
    for (int64_t j = 0; j < m; j += kLine) stream_line(out + i + j, tile + j);
    i += m;
  }
  for (; i < n; ++i) out[i] = value(i);
  _mm_sfence();  // make the streamed lines visible before the op returns
}
#endif

// Input k of the run is at ptr[k] with a stride of sizeof or, when bit k of
// ScalarMask is set, 0. The output is contiguous.
template <unsigned ScalarMask, typename Out, typename... In, typename F, size_t... K>
void contiguous_run(Out* out, const std::tuple<const In*...>& in, int64_t n, const F& f,
                    std::index_sequence<K...>) {
  const auto value = [&](int64_t i) {
    return static_cast<Out>(f(std::get<K>(in)[(ScalarMask >> K) & 1u ? 0 : i]...));
  };
#if defined(__AVX512F__) || defined(__AVX2__)
  if constexpr (std::is_same_v<Out, float> || std::is_same_v<Out, double>) {
    if (n * static_cast<int64_t>(sizeof(Out)) >= kStreamingBytes) return streaming_run(out, n, value);
  }
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = value(i);
}

template <typename Out, typename... In, typename F, size_t... K>
void strided_run(char* out, int64_t out_stride, const std::array<char*, sizeof...(In)>& in,
                 const std::array<int64_t, sizeof...(In)>& in_strides, int64_t n, const F& f,
                 std::index_sequence<K...>) {
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<Out*>(out + i * out_stride) = static_cast<Out>(
        f(*reinterpret_cast<const In*>(in[K] + i * in_strides[K])...));
}

template <unsigned Mask, typename Out, typename... In, typename F>
void dispatch_mask(unsigned mask, Out* out, const std::tuple<const In*...>& in, int64_t n, const F& f) {
  constexpr unsigned kCases = 1u << sizeof...(In);
  if constexpr (Mask < kCases) {
    if (mask == Mask)
      contiguous_run<Mask, Out, In...>(out, in, n, f, std::index_sequence_for<In...>{});
    else
      dispatch_mask<Mask + 1, Out, In...>(mask, out, in, n, f);
  }
}

// One innermost run of n elements starting at ptrs with the given byte strides.
template <typename Out, typename... In, typename F>
void run(const std::array<char*, sizeof...(In) + 1>& ptrs,
         const std::array<int64_t, sizeof...(In) + 1>& strides, int64_t n, const F& f) {
  constexpr size_t NI = sizeof...(In);
  constexpr std::array<int64_t, NI + 1> sizes{static_cast<int64_t>(sizeof(Out)),
                                              static_cast<int64_t>(sizeof(In))...};
  bool contiguous = strides[0] == sizes[0];
  unsigned mask = 0;
  for (size_t k = 1; k <= NI; ++k) {
    if (strides[k] == 0) mask |= 1u << (k - 1);
    else if (strides[k] != sizes[k]) contiguous = false;
  }
  if (contiguous) {
    std::tuple<const In*...> in = [&]<size_t... K>(std::index_sequence<K...>) {
      return std::tuple<const In*...>(reinterpret_cast<const In*>(ptrs[K + 1])...);
    }(std::index_sequence_for<In...>{});
    dispatch_mask<0, Out, In...>(mask, reinterpret_cast<Out*>(ptrs[0]), in, n, f);
    return;
  }
  std::array<char*, NI> in_ptrs;
  std::array<int64_t, NI> in_strides;
  for (size_t k = 0; k < NI; ++k) {
    in_ptrs[k] = ptrs[k + 1];
    in_strides[k] = strides[k + 1];
  }
  strided_run<Out, In...>(ptrs[0], strides[0], in_ptrs, in_strides, n, f,
                          std::index_sequence_for<In...>{});
}

}  // namespace detail

// Visits [begin, end) of the layout's linear index space in innermost runs:
// run(ptrs, inner_strides, count).
template <size_t N, typename RunFn>
void for_each_run(const StridedLayout<N>& L, int64_t begin, int64_t end, const RunFn& run) {
  const size_t nd = L.shape.size();
  const int64_t inner = L.shape[nd - 1];
  std::array<int64_t, N> inner_strides;
  for (size_t k = 0; k < N; ++k) inner_strides[k] = L.strides[k][nd - 1];
  // Multi-index of `begin` over the outer dims.
  DimVector idx(nd, 0);
  int64_t rem = begin;
  for (size_t d = nd; d-- > 0;) {
    idx[d] = rem % L.shape[d];
    rem /= L.shape[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    std::array<char*, N> ptrs = L.data;
    for (size_t d = 0; d < nd; ++d)
      for (size_t k = 0; k < N; ++k) ptrs[k] += idx[d] * L.strides[k][d];
    const int64_t n = std::min(inner - idx[nd - 1], end - pos);
    run(ptrs, inner_strides, n);
    pos += n;
    idx[nd - 1] += n;
    for (size_t d = nd - 1; d > 0 && idx[d] == L.shape[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

namespace detail {
// The common case needs no layout: a contiguous output whose inputs are each
// contiguous with the same element count, or a single repeated element.
template <size_t NI>
bool flat_layout(const Tensor& out, const std::array<const Tensor*, NI>& inputs,
                 std::array<char*, NI + 1>& ptrs, std::array<int64_t, NI + 1>& strides) {
  const TensorImpl& o = *out.unsafeGetTensorImpl();
  if (!o.is_contiguous()) return false;
  ptrs[0] = static_cast<char*>(o.data());
  strides[0] = static_cast<int64_t>(element_size(o.dtype()));
  for (size_t k = 0; k < NI; ++k) {
    const TensorImpl& in = *inputs[k]->unsafeGetTensorImpl();
    if (in.numel() == 1) strides[k + 1] = 0;
    else if (in.is_contiguous() && in.numel() == o.numel()) strides[k + 1] = static_cast<int64_t>(element_size(in.dtype()));
    else return false;
    ptrs[k + 1] = static_cast<char*>(in.data());
  }
  return true;
}
}  // namespace detail

template <typename Out, typename... In, typename F>
void elementwise(const Tensor& out, const std::array<const Tensor*, sizeof...(In)>& inputs, const F& f) {
  constexpr size_t N = sizeof...(In) + 1;
  const int64_t numel = out.numel();
  if (numel == 0) return;
  std::array<char*, N> ptrs;
  std::array<int64_t, N> strides;
  if (detail::flat_layout(out, inputs, ptrs, strides)) {
    parallel_for(0, numel, kGrainSize, [&](int64_t begin, int64_t end) {
      std::array<char*, N> p = ptrs;
      for (size_t k = 0; k < N; ++k) p[k] += begin * strides[k];
      detail::run<Out, In...>(p, strides, end - begin, f);
    });
    return;
  }
  StridedLayout<N> layout(out, inputs);
  parallel_for(0, layout.numel, kGrainSize, [&](int64_t begin, int64_t end) {
    for_each_run(layout, begin, end, [&](const auto& ptrs, const auto& strides, int64_t n) {
      detail::run<Out, In...>(ptrs, strides, n, f);
    });
  });
}

}  // namespace ember::cpu
