// The CPU copy and fill kernels (kernels/cpu/copy.h): the elementwise loop of
// kernels/cpu/loops.h with a cast (contiguous 16-bit <-> float32 runs through
// the vectorized conversions), and std::fill on contiguous memory.
#include "ember/kernels/cpu/copy.h"

#include <algorithm>
#include <type_traits>

#include "ember/kernels/cpu/convert_16bit.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {

namespace {

template <typename T>
constexpr bool is_16bit_float = std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>;

}  // namespace

void copy_kernel(const Tensor& dst, const Tensor& src) {
  dispatch_storage(dst.scalar_type(), "copy_", [&]<typename Out>() {
    dispatch_storage(src.scalar_type(), "copy_", [&]<typename In>() {
      // Contiguous float32 <-> 16-bit copies (.to(), autocast's casts)
      // convert whole runs, vectorized (convert_16bit.h).
      constexpr bool widening = std::is_same_v<Out, float> && is_16bit_float<In>;
      constexpr bool narrowing = is_16bit_float<Out> && std::is_same_v<In, float>;
      if constexpr (widening || narrowing) {
        if (dst.is_contiguous() && src.is_contiguous() && dst.sizes() == src.sizes()) {
          const In* in = src.data_ptr<In>();
          Out* out = dst.data_ptr<Out>();
          parallel_for(0, dst.numel(), cpu::kGrainSize, [&](int64_t b, int64_t e) {
            if constexpr (widening)
              widen(in + b, out + b, e - b);
            else
              narrow(in + b, out + b, e - b);
          });
          return;
        }
      }
      cpu::elementwise<Out, In>(dst, {&src}, [](In v) { return convert_element<Out>(v); });
    });
  });
}

void fill_kernel(const Tensor& t, const Scalar& value) {
  dispatch_storage(t.scalar_type(), "fill_", [&]<typename T>() {
    const T v = value.to<T>();
    if (t.is_contiguous()) {
      T* p = t.data_ptr<T>();
      parallel_for(0, t.numel(), cpu::kGrainSize, [&](int64_t b, int64_t e) { std::fill(p + b, p + e, v); });
    } else {
      cpu::elementwise<T>(t, {}, [v]() { return v; });
    }
  });
}

}  // namespace ember::cpu
