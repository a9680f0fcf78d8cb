#pragma once
// Note [Kernels run through compute-dtype copies]
// Most kernel families are written for the dtypes kernels compute in natively
// (compute_dtype: bool, int64, float32, float64). Registered as
//
//   r.pooling.max_pool2d.set(kCPU, &ThroughFloat32<&max_pool2d, 1>::call);
//   r.sort.sort.set(kCPU, &ThroughComputeDtype<&sort_indices>::call);
//
// such a kernel also takes bfloat16 and float16 (ThroughFloat32: the families
// that take floating dtypes only), or those and the narrow integers
// (ThroughComputeDtype): each tensor argument of such a dtype is copied into
// its compute dtype (float32 for the 16-bit floats, int64 for the narrow
// integers; other dtypes reach the kernel as they are, and its own dtype
// check names them), the kernel runs on
// the copies, and the arguments listed after the kernel (by position: the
// outputs, and the state it updates in place) are rounded back into their
// own dtype, once. So every step inside the kernel computes in float32 and
// the result rounds once, as the elementwise kernels do (Note
// [Reduced-precision floats are storage types]); mixed calls (a bfloat16 x
// with float32 batch-norm weights) work too. The cost is one conversion pass
// per converted tensor each way; a family that earns its own 16-bit kernels
// (the bfloat16 GEMM) registers them directly instead.
#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

template <bool Integers, auto Kernel, size_t... Outputs>
struct ThroughCopies;

template <bool Integers, typename R, typename... Args, R (*Kernel)(Args...), size_t... Outputs>
struct ThroughCopies<Integers, Kernel, Outputs...> {
  static_assert(((Outputs < sizeof...(Args)) && ...), "an output position beyond the arguments");

  static R call(Args... args) {
    std::array<Tensor, sizeof...(Args)> copies;  // undefined where the argument is used as is
    const bool converted = [&]<size_t... I>(std::index_sequence<I...>) {
      return (false | ... | convert<I>(args, copies));
    }(std::index_sequence_for<Args...>{});
    if (!converted) return Kernel(args...);
    auto run = [&]<size_t... I>(std::index_sequence<I...>) -> R {
      return Kernel(pick<I>(args, copies)...);
    };
    if constexpr (std::is_void_v<R>) {
      run(std::index_sequence_for<Args...>{});
      write_back(copies, args...);
    } else {
      R result = run(std::index_sequence_for<Args...>{});
      write_back(copies, args...);
      return result;
    }
  }

 private:
  template <typename A>
  static constexpr bool is_tensor = std::is_same_v<std::remove_cvref_t<A>, Tensor>;

  template <size_t I, typename A>
  static bool convert(const A& a, std::array<Tensor, sizeof...(Args)>& copies) {
    if constexpr (is_tensor<A>) {
      const ScalarType t = a.defined() ? a.scalar_type() : kFloat;
      if (is_reduced_floating_point(t) || (Integers && compute_dtype(t) != t)) {
        copies[I] = a.detach().to(compute_dtype(a.scalar_type()));
        return true;
      }
    }
    return false;
  }

  template <size_t I, typename A>
  static decltype(auto) pick(A&& a, const std::array<Tensor, sizeof...(Args)>& copies) {
    if constexpr (is_tensor<A>)
      return static_cast<const Tensor&>(copies[I].defined() ? copies[I] : a);
    else
      return std::forward<A>(a);
  }

  static void write_back(const std::array<Tensor, sizeof...(Args)>& copies, Args... args) {
    [[maybe_unused]] const auto originals = std::forward_as_tuple(args...);
    (write_back_one(std::get<Outputs>(originals), copies[Outputs]), ...);
  }

  template <typename A>
  static void write_back_one(const A& original, const Tensor& copy) {
    if constexpr (is_tensor<A>) {
      if (copy.defined()) kernels().copy.copy.on(original.device(), "copy_")(original, copy);
    }
  }
};

template <auto Kernel, size_t... Outputs>
using ThroughFloat32 = ThroughCopies<false, Kernel, Outputs...>;
template <auto Kernel, size_t... Outputs>
using ThroughComputeDtype = ThroughCopies<true, Kernel, Outputs...>;

}  // namespace ember
