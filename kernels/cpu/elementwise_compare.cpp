// The CPU comparison (bool result), three-operand, where and per-element loss
// kernels: one case per row of EMBER_COMPARE_OPS, EMBER_TERNARY_OPS and
// EMBER_LOSS_OPS, each instantiated for the dtypes of its row.
#include "ember/kernels/cpu/elementwise.h"
#include "ember/kernels/cpu/compute_loops.h"

namespace ember::cpu {

void compare_kernel(const char* name, CompareOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, double rtol, double atol, bool equal_nan) {
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, functor)                                           \
  case CompareOp::k##op_name:                                                          \
    return dispatch_compute<DtypeSet::dtypes>(a.scalar_type(), name, [&]<typename T>() { \
      compute_elementwise<bool, T, T>(out, {&a, &b}, functor);                                 \
    });
    EMBER_COMPARE_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown comparison ", static_cast<int>(op));
}

void ternary_kernel(const char* name, TernaryOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, const Tensor& c, const Scalar& value) {
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, functor)                                             \
  case TernaryOp::k##op_name:                                                            \
    return dispatch_compute<DtypeSet::dtypes>(out.scalar_type(), name, [&]<typename T>() { \
      compute_elementwise<T, T, T, T>(out, {&a, &b, &c}, functor);                               \
    });
    EMBER_TERNARY_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown ternary op ", static_cast<int>(op));
}

void where_kernel(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
  dispatch_compute<DtypeSet::kAll>(out.scalar_type(), "where", [&]<typename T>() {
    compute_elementwise<T, bool, T, T>(out, {&condition, &a, &b},
                               [](bool c, T x, T y) { return c ? x : y; });
  });
}

namespace {

template <size_t, typename T>
using same_t = T;

// out = f(inputs[0], ..., inputs[N - 1]), every operand of dtype T.
template <typename T, size_t... K, typename F>
void loss_loop(const Tensor& out, const Tensor* const* inputs, std::index_sequence<K...>,
               const F& f) {
  compute_elementwise<T, same_t<K, T>...>(out, {inputs[K]...}, f);
}

}  // namespace

void loss_kernel(const char* name, LossOp op, const Tensor& out,
                 std::initializer_list<const Tensor*> inputs) {
  using namespace functors;
  dispatch_compute<DtypeSet::kFloating>(out.scalar_type(), name, [&]<typename T>() {
    switch (op) {
#define EMBER_CASE(op_name, arity, functor)                                                   \
  case LossOp::k##op_name:                                                                    \
    EMBER_INTERNAL_ASSERT(inputs.size() == arity, name, ": ", inputs.size(), " inputs");      \
    return loss_loop<T>(out, inputs.begin(), std::make_index_sequence<arity>(), functor);
      EMBER_LOSS_OPS(EMBER_CASE)
#undef EMBER_CASE
    }
    EMBER_INTERNAL_ASSERT(false, name, ": unknown loss op ", static_cast<int>(op));
  });
}

}  // namespace ember::cpu
