#pragma once
// Note [Autocast]
// Automatic mixed precision, as torch.autocast: inside an autocast region of
// a device type, ops on that device run in the precision PyTorch 1.13's lists
// give them, whatever their inputs' dtypes. The ops that take part today:
//   - lower precision (the region's dtype: bfloat16 on the CPU, float16 or
//     bfloat16 on CUDA): mm, bmm, addmm, baddbmm, addbmm, matmul, linear,
//     conv1d, conv2d, conv2d_relu; on CUDA also mv, addmv, conv_transpose1d/2d,
//     einsum (the RNN cells are linear layers inside, so they follow);
//   - float32: every loss of nn::functional, cdist, prod; on CUDA also acos,
//     asin, cosh, sinh, tan, erfinv, log2, log10, pdist, cosine_similarity; on
//     the CPU quantile, nanquantile, trace, the linear algebra (inverse,
//     linalg_inv(_ex), cholesky, linalg_cholesky(_ex), cholesky_solve,
//     cholesky_inverse, linalg_solve, linalg_eigh, linalg_eigvalsh, svd,
//     linalg_svd, linalg_svdvals, qr, linalg_qr, linalg_lstsq,
//     linalg_matrix_norm), reflection and replication padding, grid_sample; on
//     CUDA softmax, log_softmax, logsumexp, layer_norm, group_norm;
//   - promote (to the widest floating dtype among the operands): cat, stack,
//     index_copy; on CUDA also addcmul, addcdiv, dot, scatter_add, index_put,
//     atan2, tensordot, linalg_cross, grid_sample (float32 on the CPU).
// Every other op keeps its inputs' dtypes (a bfloat16 activation through
// ReLU stays bfloat16). The listed composites that call listed ops inside
// (the linear algebra, pdist, cosine_similarity, tensordot) run them as called
// (autocast::Suspend), as PyTorch's autocast wrappers do: an inverse's
// products stay float32. Not routed from PyTorch's CUDA float32 list: exp,
// log, log1p, expm1, reciprocal, rsqrt, pow, softplus, sum, cumsum, cumprod
// and the norms, because ember's composites call them inside (on CUDA, where
// trace is not listed, a trace is a sum), and without a dispatcher that
// applies autocast at the outermost op only, they would turn those
// composites' results float32 too. The CPU
// lists are checked op by op against PyTorch 1.13's torch.autocast
// (tests/autocast_test.cpp), the CUDA ones by tests/cuda/dtype_test.cpp.
// Only floating tensors other than float64 are cast, and casts record
// autograd, so a float32 parameter gets a float32 gradient.
//
// Regions are thread-local and nest (AutocastGuard); grad mode does not
// matter. Within the outermost region, the lower-precision copy of a float32
// leaf that requires grad (a parameter) is made once and reused by every op
// that casts it (the cast cache), until the region ends or the parameter is
// modified in place.
//
// An op takes part with two lines at its top:
//   if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&a, &b}))
//     return mm(autocast::cast(a, *to), autocast::cast(b, *to));
// The call on the cast operands finds nothing left to cast and runs the op.
#include <cstdint>
#include <initializer_list>
#include <optional>

#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/tensor.h"

namespace ember::autocast {

// Whether autocast is on for tensors of device type t in this thread, and the
// lower-precision dtype it uses there (default bfloat16 on the CPU, float16 on
// CUDA, as PyTorch).
bool is_enabled(DeviceType t);
ScalarType lower_precision_dtype(DeviceType t);
// Errors: a dtype autocast does not use on t (the CPU takes bfloat16; CUDA
// float16 or bfloat16).
void set_enabled(DeviceType t, bool enabled);
void set_lower_precision_dtype(DeviceType t, ScalarType dtype);

// libtorch's names for the above (at::autocast): is_enabled()/set_enabled()
// are CUDA's, the *_cpu_* ones the CPU's.
inline bool is_enabled() { return is_enabled(DeviceType::CUDA); }
inline void set_enabled(bool enabled) { set_enabled(DeviceType::CUDA, enabled); }
inline bool is_cpu_enabled() { return is_enabled(DeviceType::CPU); }
inline void set_cpu_enabled(bool enabled) { set_enabled(DeviceType::CPU, enabled); }
inline ScalarType get_autocast_cpu_dtype() { return lower_precision_dtype(DeviceType::CPU); }
inline ScalarType get_autocast_gpu_dtype() { return lower_precision_dtype(DeviceType::CUDA); }
inline void set_autocast_cpu_dtype(ScalarType t) { set_lower_precision_dtype(DeviceType::CPU, t); }
inline void set_autocast_gpu_dtype(ScalarType t) { set_lower_precision_dtype(DeviceType::CUDA, t); }

// The cast cache of this thread (Note [Autocast]).
void clear_cache();
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);
// Region depth, as libtorch's: the cache is cleared when it returns to 0.
int increment_nesting();
int decrement_nesting();

// An autocast region: on (or off, enabled = false) for device type `device`
// with `dtype`, until the guard goes; the previous state comes back then.
class AutocastGuard {
 public:
  explicit AutocastGuard(DeviceType device, std::optional<ScalarType> dtype = std::nullopt,
                         bool enabled = true);
  explicit AutocastGuard(Device device, std::optional<ScalarType> dtype = std::nullopt,
                         bool enabled = true)
      : AutocastGuard(device.type(), dtype, enabled) {}
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceType device_;
  bool was_enabled_;
  ScalarType previous_dtype_;
};

// Autocast off for device type t while it lives, without ending the region
// (its cache stays): a composite op that PyTorch does not list runs its inner
// listed ops as called (mv is an mm inside, but stays float32 on the CPU).
class Suspend {
 public:
  explicit Suspend(DeviceType t) : device_(t), was_enabled_(is_enabled(t)) { set_enabled(t, false); }
  ~Suspend() { set_enabled(device_, was_enabled_); }
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  DeviceType device_;
  bool was_enabled_;
};

// ---- for ops ----

enum class Policy : uint8_t { kNone, kLowerPrecision, kFloat32, kPromote };

// An op's rule on each device type.
struct OpPolicy {
  Policy cpu, cuda;
};
inline constexpr OpPolicy kLowerPrecisionOp{Policy::kLowerPrecision, Policy::kLowerPrecision};
inline constexpr OpPolicy kCudaLowerPrecisionOp{Policy::kNone, Policy::kLowerPrecision};
inline constexpr OpPolicy kFloat32Op{Policy::kFloat32, Policy::kFloat32};
inline constexpr OpPolicy kCpuFloat32Op{Policy::kFloat32, Policy::kNone};
inline constexpr OpPolicy kCudaFloat32Op{Policy::kNone, Policy::kFloat32};
inline constexpr OpPolicy kPromoteOp{Policy::kPromote, Policy::kPromote};
inline constexpr OpPolicy kCudaPromoteOp{Policy::kNone, Policy::kPromote};

// The dtype an op with `policy` casts its floating operands to, when autocast
// is on for their device and that changes one of them; nullopt otherwise
// (the op runs as called). Undefined tensors are skipped.
std::optional<ScalarType> cast_dtype(OpPolicy policy, std::initializer_list<const Tensor*> operands);
std::optional<ScalarType> cast_dtype(OpPolicy policy, TensorList operands);

// t in `dtype` when autocast casts it (a defined floating tensor other than
// float64), else t; lower-precision copies of parameters come from the cache.
Tensor cast(const Tensor& t, ScalarType dtype);
std::vector<Tensor> cast(TensorList tensors, ScalarType dtype);

}  // namespace ember::autocast
