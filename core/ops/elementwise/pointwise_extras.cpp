// exp2, sinc, logit, nan_to_num and the predicates isinf, isposinf,
// isneginf, signbit: forward (functors in kernels/common/pointwise_functors.h),
// in-place forms, and derivatives written with ember ops.
#include "ember/core/ops/elementwise/pointwise_extras.h"

#include <limits>
#include <numbers>

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/logical.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/elementwise/unary_math.h"
#include "ember/core/ops/elementwise/unary_helpers.h"
#include "ember/kernels/common/pointwise_functors.h"

namespace ember {

using namespace unary_detail;

namespace {

Tensor exp2_grad(const Tensor& g, const Tensor& y) { return g * (y * std::numbers::ln2); }

// sinc'(x) = (cos(pi x) - sinc(x)) / x, 0 at x = 0. The 0 is put where x was,
// so that the branch not taken stays finite and double backward too.
Tensor sinc_grad(const Tensor& g, const Tensor& x) {
  const Tensor at_zero = x == 0;
  const Tensor safe = where(at_zero, 1.0, x);
  return g * where(at_zero, 0.0, (cos(safe * std::numbers::pi) - sinc(safe)) / safe);
}

// logit'(x) = 1 / (x (1 - x)); with eps, 0 where x was clamped; without, NaN
// outside [0, 1], as PyTorch.
struct LogitGrad {
  std::optional<double> eps;
  Tensor operator()(const Tensor& g, const Tensor& x) const {
    const Tensor d = g / (x * (1.0 - x));
    if (eps) return where(logical_or(x < *eps, x > 1.0 - *eps), 0.0, d);
    return where(logical_or(x < 0.0, x > 1.0), std::numeric_limits<double>::quiet_NaN(), d);
  }
};

// nan_to_num passes the gradient where x was finite and 0 where it replaced.
Tensor nan_to_num_grad(const Tensor& g, const Tensor& x) { return where(isfinite(x), g, 0.0); }

// The three replacement values in T: 0, T's largest and lowest finite values
// unless given.
template <typename T>
struct Replacements {
  T nan, posinf, neginf;
  // T computes for `dtype`: by default infinities become dtype's own extremes.
  Replacements(std::optional<double> n, std::optional<double> p, std::optional<double> m,
               ScalarType dtype)
      : nan(static_cast<T>(n.value_or(0))),
        posinf(static_cast<T>(p ? *p : extreme(dtype, true))),
        neginf(static_cast<T>(m ? *m : extreme(dtype, false))) {}
  static double extreme(ScalarType dtype, bool largest) {
    return dispatch_storage(dtype, "nan_to_num", [&]<typename S>() {
      return static_cast<double>(largest ? std::numeric_limits<S>::max() : std::numeric_limits<S>::lowest());
    });
  }
};

double logit_eps(std::optional<double> eps) { return eps ? *eps : -1.0; }  // < 0: no clamp

}  // namespace

Tensor exp2(const Tensor& x) {
  // derivative: d/dx = g·y·ln 2
  return floating_op<functors::Exp2>("exp2", "Exp2Backward", x, Save::kOutput, exp2_grad);
}
Tensor sinc(const Tensor& x) {
  // derivative: d/dx = g·(cos(pi·x) - sinc(x))/x, 0 at x = 0
  return floating_op<functors::Sinc>("sinc", "SincBackward", x, Save::kInput, sinc_grad);
}
Tensor logit(const Tensor& x, std::optional<double> eps) {
  const ScalarType t = floating_result_type(x);
  Tensor y = dispatch_compute<DtypeSet::kFloating>(t, "logit", [&]<typename T>() {
    return unary_kernel<functors::Logit, T>("logit", x, t, logit_eps(eps));
  });
  // derivative: d/dx = g/(x(1 - x)); 0 where eps clamped x, NaN outside [0, 1] without eps
  return record("LogitBackward", x, y, Save::kInput, LogitGrad{eps});
}
Tensor nan_to_num(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!x.is_floating_point()) return x.clone();
  Tensor y = dispatch_compute<DtypeSet::kFloating>(x.scalar_type(), "nan_to_num", [&]<typename T>() {
    const Replacements<T> r(nan, posinf, neginf, x.scalar_type());
    return unary_kernel<functors::NanToNum, T>("nan_to_num", x, x.scalar_type(), r.nan, r.posinf,
                                               r.neginf);
  });
  // derivative: d/dx = g where x is finite, 0 where it was replaced
  return record("NanToNumBackward", x, y, Save::kInput, nan_to_num_grad);
}
Tensor isinf(const Tensor& x) { return predicate<functors::IsInf>("isinf", x); }
Tensor isposinf(const Tensor& x) { return predicate<functors::IsPosInf>("isposinf", x); }
Tensor isneginf(const Tensor& x) { return predicate<functors::IsNegInf>("isneginf", x); }
Tensor signbit(const Tensor& x) { return predicate<functors::Signbit>("signbit", x); }

Tensor& Tensor::exp2_() const {
  return floating_op_<functors::Exp2>("exp2_", "Exp2Backward", *this, Save::kOutput, exp2_grad);
}
Tensor& Tensor::sinc_() const {
  return floating_op_<functors::Sinc>("sinc_", "SincBackward", *this, Save::kInput, sinc_grad);
}
Tensor& Tensor::logit_(std::optional<double> eps) const {
  return inplace_unary<functors::Logit>("logit_", "LogitBackward", *this,
                                        floating_result_type(*this), Save::kInput,
                                        LogitGrad{eps}, logit_eps(eps));
}
Tensor& Tensor::nan_to_num_(std::optional<double> nan, std::optional<double> posinf,
                            std::optional<double> neginf) const {
  if (!is_floating_point()) {  // nothing to replace, as PyTorch
    autograd::check_inplace(*this, "nan_to_num_");
    return const_cast<Tensor&>(*this);
  }
  return dispatch_compute<DtypeSet::kFloating>(scalar_type(), "nan_to_num_", [&]<typename T>() -> Tensor& {
    const Replacements<T> r(nan, posinf, neginf, scalar_type());
    return inplace_unary<functors::NanToNum>("nan_to_num_", "NanToNumBackward", *this,
                                             scalar_type(), Save::kInput, nan_to_num_grad, r.nan,
                                             r.posinf, r.neginf);
  });
}

Tensor Tensor::exp2() const { return ember::exp2(*this); }
Tensor Tensor::sinc() const { return ember::sinc(*this); }
Tensor Tensor::logit(std::optional<double> eps) const { return ember::logit(*this, eps); }
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}
Tensor Tensor::isinf() const { return ember::isinf(*this); }
Tensor Tensor::isposinf() const { return ember::isposinf(*this); }
Tensor Tensor::isneginf() const { return ember::isneginf(*this); }
Tensor Tensor::signbit() const { return ember::signbit(*this); }

}  // namespace ember
