#pragma once
// The CUDA elementwise loop: out[i] = f(in_k[i]...) for 1 to 3 inputs of
// possibly different dtypes, as planned in an ElementwiseLaunch. Two kernels:
// - vector: every operand dense in out's shape (or a one-element scalar) and
//   aligned; each thread moves kVectorBytes of the widest operand per access,
//   the last numel % width elements one at a time;
// - index: the offsets of each operand from the merged geometry
//   (operand_offsets), for strided and broadcast operands, and for operands
//   whose dtype is not their compute type (bfloat16 and float16 read as
//   float, the narrow integers as int64; compute_dtype): each element is
//   converted on load and rounded once on store, the dtype a runtime value
//   that is the same for every thread.
// Out and In... are compute types, so an op is compiled once per compute
// type, not once per dtype.
// A host scalar (ElementwiseLaunch::input_by_value) rides in the parameters.
// Both are grid-stride loops on the legacy default stream (as the copies).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/elementwise_geometry.h"

namespace ember::cuda::loops {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;  // a grid-stride loop covers the rest

inline unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
}

template <typename T, int V>
struct alignas(sizeof(T) * V) Vector {
  T v[V];
};

// A tuple of one Vector per input, indexed at compile time (no std::tuple on the device).
template <size_t I, typename T>
struct Leaf {
  T value;
};
template <typename Seq, typename... T>
struct Pack;
template <size_t... I, typename... T>
struct Pack<std::index_sequence<I...>, T...> : Leaf<I, T>... {};
template <size_t I, typename T>
__device__ __forceinline__ T& get(Leaf<I, T>& leaf) {
  return leaf.value;
}

// The inputs, untyped: their dtypes are the kernel's template arguments. A
// by-value input (a host scalar) is read from `value`, not memory.
struct Inputs {
  const void* ptr[kMaxElementwiseInputs];
  bool scalar[kMaxElementwiseInputs];
  bool by_value[kMaxElementwiseInputs];
  ScalarBits value[kMaxElementwiseInputs];
};

// Input k's one value when it is a scalar.
template <typename T>
__device__ __forceinline__ T scalar_value(const Inputs& in, int k) {
  return in.by_value[k] ? in.value[k].as<T>() : *static_cast<const T*>(in.ptr[k]);
}

template <typename T, int V>
__device__ __forceinline__ Vector<T, V> load_vector(const Inputs& in, int k, int64_t base) {
  if (in.scalar[k]) {
    Vector<T, V> r;
    const T x = scalar_value<T>(in, k);
#pragma unroll
    for (int j = 0; j < V; ++j) r.v[j] = x;
    return r;
  }
  return *reinterpret_cast<const Vector<T, V>*>(static_cast<const T*>(in.ptr[k]) + base);
}

template <typename T>
__device__ __forceinline__ T load_one(const Inputs& in, int k, int64_t i) {
  return in.scalar[k] ? scalar_value<T>(in, k) : static_cast<const T*>(in.ptr[k])[i];
}

template <int V, typename Out, typename... In, typename F, size_t... I>
__device__ __forceinline__ void vector_step(const F& f, Out* out, const Inputs& in, int64_t base,
                                            std::index_sequence<I...>) {
  Pack<std::index_sequence<I...>, Vector<In, V>...> loaded;
  ((get<I>(loaded) = load_vector<In, V>(in, I, base)), ...);
  Vector<Out, V> result;
#pragma unroll
  for (int j = 0; j < V; ++j) result.v[j] = f(get<I>(loaded).v[j]...);
  *reinterpret_cast<Vector<Out, V>*>(out + base) = result;
}

template <typename Out, typename... In, typename F, size_t... I>
__device__ __forceinline__ void scalar_step(const F& f, Out* out, const Inputs& in, int64_t i,
                                            std::index_sequence<I...>) {
  out[i] = f(load_one<In>(in, I, i)...);
}

template <int V, typename F, typename Out, typename... In>
__global__ void vector_kernel(F f, Out* out, Inputs in, int64_t n) {
  using Seq = std::index_sequence_for<In...>;
  const int64_t first = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  const int64_t vectors = n / V;
  for (int64_t v = first; v < vectors; v += step)
    vector_step<V, Out, In...>(f, out, in, v * V, Seq{});
  for (int64_t i = vectors * V + first; i < n; i += step)  // the tail, under V elements
    scalar_step<Out, In...>(f, out, in, i, Seq{});
}

// Whether elements of storage type S compute in C (compute_dtype).
template <typename S, typename C>
constexpr bool computes_in =
    std::is_same_v<S, C> || std::is_same_v<opmath_t<S>, C> ||
    (std::is_same_v<C, int64_t> && std::numeric_limits<S>::is_integer && !std::is_same_v<S, bool>);

// Element `offset` of p, of dtype d, as its compute type C.
template <typename C>
__device__ __forceinline__ C load_as(const void* p, ScalarType d, int64_t offset) {
  switch (d) {
#define EMBER_LOAD_CASE(dtype, S) \
  case dtype:                     \
    if constexpr (computes_in<S, C>) return static_cast<C>(static_cast<const S*>(p)[offset]); \
    break;
    EMBER_LOAD_CASE(kBool, bool)
    EMBER_LOAD_CASE(kByte, uint8_t)
    EMBER_LOAD_CASE(kChar, int8_t)
    EMBER_LOAD_CASE(kShort, int16_t)
    EMBER_LOAD_CASE(kInt, int32_t)
    EMBER_LOAD_CASE(kLong, int64_t)
    EMBER_LOAD_CASE(kHalf, Half)
    EMBER_LOAD_CASE(kBFloat16, BFloat16)
    EMBER_LOAD_CASE(kFloat, float)
    EMBER_LOAD_CASE(kDouble, double)
#undef EMBER_LOAD_CASE
  }
  return C{};  // unreachable: the host checked every operand's dtype
}

// A host scalar's bytes, of dtype d, as its compute type C.
template <typename C>
__device__ __forceinline__ C value_as(const ScalarBits& bits, ScalarType d) {
  return load_as<C>(bits.bytes, d, 0);
}

// Element `offset` of p, of dtype d, = v rounded to d.
template <typename C>
__device__ __forceinline__ void store_as(void* p, ScalarType d, int64_t offset, C v) {
  switch (d) {
#define EMBER_STORE_CASE(dtype, S) \
  case dtype:                      \
    if constexpr (computes_in<S, C>) static_cast<S*>(p)[offset] = static_cast<S>(v); \
    return;
    EMBER_STORE_CASE(kBool, bool)
    EMBER_STORE_CASE(kByte, uint8_t)
    EMBER_STORE_CASE(kChar, int8_t)
    EMBER_STORE_CASE(kShort, int16_t)
    EMBER_STORE_CASE(kInt, int32_t)
    EMBER_STORE_CASE(kLong, int64_t)
    EMBER_STORE_CASE(kHalf, Half)
    EMBER_STORE_CASE(kBFloat16, BFloat16)
    EMBER_STORE_CASE(kFloat, float)
    EMBER_STORE_CASE(kDouble, double)
#undef EMBER_STORE_CASE
  }
}

// The operands' dtypes, for the index kernel.
struct Dtypes {
  ScalarType out;
  ScalarType in[kMaxElementwiseInputs];
};

template <typename Out, typename... In, typename F, size_t... I>
__device__ __forceinline__ void index_step(const F& f, void* out, const Inputs& in,
                                           const Dtypes& dt, const ElementwiseGeometry& g,
                                           int64_t i, std::index_sequence<I...>) {
  int64_t offsets[sizeof...(In) + 1];
  operand_offsets(g, i, offsets);
  const Out r = static_cast<Out>(f((in.by_value[I] ? value_as<In>(in.value[I], dt.in[I])
                                                   : load_as<In>(in.ptr[I], dt.in[I], offsets[I + 1]))...));
  store_as<Out>(out, dt.out, offsets[0], r);
}

template <typename F, typename Out, typename... In>
__global__ void index_kernel(F f, void* out, Inputs in, Dtypes dt, ElementwiseGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    index_step<Out, In...>(f, out, in, dt, g, i, std::index_sequence_for<In...>{});
}

// Launches out = f(inputs...) as `l` plans it; Out and In... are the compute
// types of l's operands (the caller dispatched on them).
template <typename Out, typename... In, typename F>
void launch(const ElementwiseLaunch& l, const F& f) {
  static_assert(sizeof...(In) >= 1 && sizeof...(In) <= kMaxElementwiseInputs);
  if (l.numel == 0) return;
  Inputs in{};
  Dtypes dt{l.out_dtype, {}};
  for (int k = 0; k < l.num_inputs; ++k) {
    in.ptr[k] = l.inputs[k];
    in.scalar[k] = l.input_is_scalar[k];
    in.by_value[k] = l.input_by_value[k];
    in.value[k] = l.input_values[k];
    dt.in[k] = l.input_dtypes[k];
  }
  const ScalarType native_in[] = {scalar_type_of<In>...};
  bool native = l.out_dtype == scalar_type_of<Out>;
  for (int k = 0; k < l.num_inputs; ++k) native = native && l.input_dtypes[k] == native_in[k];
  DeviceGuard guard(l.device);
  if (l.vectorized && native) {
    constexpr int kWidth = vector_width(std::max({sizeof(Out), sizeof(In)...}));
    vector_kernel<kWidth, F, Out, In...><<<grid_for((l.numel + kWidth - 1) / kWidth), kThreads>>>(
        f, static_cast<Out*>(l.out), in, l.numel);
  } else {
    index_kernel<F, Out, In...><<<grid_for(l.numel), kThreads>>>(f, l.out, in, dt, l.geometry, l.numel);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda::loops
