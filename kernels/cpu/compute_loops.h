#pragma once
// compute_elementwise<Out, In...>(out, {inputs...}, f): out[i] = f(in[i]...)
// where Out and In... are compute types (bool, int64_t, float, double; see
// compute_dtype) and the tensors may hold any dtype that computes in them:
// bfloat16 and float16 compute in float, the narrow integers in int64_t.
//
// Operands already of their compute type run on loops.h's elementwise loop as
// they always did. Otherwise each innermost run goes through tiles: every
// input's elements are converted into a buffer of its compute type, f runs
// over the buffers (the same contiguous loop, vectorized), and the results
// are rounded once into the output's dtype (Note [Reduced-precision floats
// are storage types]). So an op is compiled once per compute type, not once
// per dtype, and the conversions are compiled once for all ops.
#include <algorithm>
#include <array>
#include <tuple>

#include "ember/kernels/cpu/convert_16bit.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {

namespace detail {

constexpr int64_t kConvertTile = 256;

// buf[j] = C(element j of n at p with a byte stride), the elements of dtype d.
template <typename C>
void load_converted(ScalarType d, const char* p, int64_t stride, int64_t n, C* buf) {
  dispatch_storage(d, "elementwise", [&]<typename S>() {
    if constexpr (std::is_same_v<opmath_t<S>, C> || std::is_same_v<S, C> ||
                  (std::is_same_v<C, int64_t> && std::numeric_limits<S>::is_integer &&
                   !std::is_same_v<S, bool>)) {
      if (stride == static_cast<int64_t>(sizeof(S))) {
        const S* s = reinterpret_cast<const S*>(p);
        if constexpr (std::is_same_v<C, float> &&
                      (std::is_same_v<S, BFloat16> || std::is_same_v<S, Half>))
          widen(s, buf, n);  // vectorized (convert_16bit.h)
        else
          for (int64_t j = 0; j < n; ++j) buf[j] = static_cast<C>(s[j]);
      } else {
        for (int64_t j = 0; j < n; ++j) buf[j] = static_cast<C>(*reinterpret_cast<const S*>(p + j * stride));
      }
    } else {
      EMBER_INTERNAL_ASSERT(false, "elementwise: dtype ", d, " does not compute in ",
                            scalar_type_of<C>);
    }
  });
}

// Element j of n at p (byte stride, dtype d) = buf[j], rounded to d.
template <typename C>
void store_converted(ScalarType d, char* p, int64_t stride, int64_t n, const C* buf) {
  dispatch_storage(d, "elementwise", [&]<typename S>() {
    if constexpr (std::is_same_v<opmath_t<S>, C> || std::is_same_v<S, C> ||
                  (std::is_same_v<C, int64_t> && std::numeric_limits<S>::is_integer &&
                   !std::is_same_v<S, bool>)) {
      if (stride == static_cast<int64_t>(sizeof(S))) {
        S* s = reinterpret_cast<S*>(p);
        if constexpr (std::is_same_v<C, float> &&
                      (std::is_same_v<S, BFloat16> || std::is_same_v<S, Half>))
          narrow(buf, s, n);  // vectorized (convert_16bit.h)
        else
          for (int64_t j = 0; j < n; ++j) s[j] = static_cast<S>(buf[j]);
      } else {
        for (int64_t j = 0; j < n; ++j) *reinterpret_cast<S*>(p + j * stride) = static_cast<S>(buf[j]);
      }
    } else {
      EMBER_INTERNAL_ASSERT(false, "elementwise: dtype ", d, " does not compute in ",
                            scalar_type_of<C>);
    }
  });
}

template <typename Out, typename... In, typename F, size_t... K>
void converted_run(const std::array<ScalarType, sizeof...(In) + 1>& dtypes,
                   const std::array<char*, sizeof...(In) + 1>& ptrs,
                   const std::array<int64_t, sizeof...(In) + 1>& strides, int64_t n, const F& f,
                   std::index_sequence<K...>) {
  std::tuple<std::array<In, kConvertTile>...> in;
  std::array<Out, kConvertTile> out;
  for (int64_t j = 0; j < n; j += kConvertTile) {
    const int64_t m = std::min(kConvertTile, n - j);
    (load_converted<In>(dtypes[K + 1], ptrs[K + 1] + j * strides[K + 1], strides[K + 1], m,
                        std::get<K>(in).data()),
     ...);
    for (int64_t i = 0; i < m; ++i) out[i] = static_cast<Out>(f(std::get<K>(in)[i]...));
    store_converted<Out>(dtypes[0], ptrs[0] + j * strides[0], strides[0], m, out.data());
  }
}

}  // namespace detail

template <typename Out, typename... In, typename F>
void compute_elementwise(const Tensor& out, const std::array<const Tensor*, sizeof...(In)>& inputs,
                         const F& f) {
  constexpr size_t N = sizeof...(In) + 1;
  std::array<ScalarType, N> dtypes{out.scalar_type()};
  for (size_t k = 0; k < N - 1; ++k) dtypes[k + 1] = inputs[k]->scalar_type();
  const std::array<ScalarType, N> native{scalar_type_of<Out>, scalar_type_of<In>...};
  if (dtypes == native) return elementwise<Out, In...>(out, inputs, f);
  if (out.numel() == 0) return;
  StridedLayout<N> layout(out, inputs);
  parallel_for(0, layout.numel, kGrainSize, [&](int64_t begin, int64_t end) {
    for_each_run(layout, begin, end, [&](const auto& ptrs, const auto& strides, int64_t n) {
      detail::converted_run<Out, In...>(dtypes, ptrs, strides, n, f, std::index_sequence_for<In...>{});
    });
  });
}

}  // namespace ember::cpu
