// The CUDA per-element losses (log_sigmoid, binary cross-entropy with and
// without logits): one case per row of EMBER_LOSS_OPS (kernels/common/
// elementwise_ops.h) over loops.cuh, for the floating dtypes.
#include <utility>

#include "ember/kernels/cuda/elementwise.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda {
namespace {

template <size_t, typename T>
using same_t = T;

// out = f(inputs...) with every operand of dtype T, N inputs.
template <typename T, size_t... K, typename F>
void launch_n(const ElementwiseLaunch& l, std::index_sequence<K...>, const F& f) {
  loops::launch<T, same_t<K, T>...>(l, f);
}

}  // namespace

void loss_kernel(const char* name, LossOp op, const Tensor& out,
                 std::initializer_list<const Tensor*> inputs) {
  if (out.numel() == 0) return;
  const ElementwiseLaunch l = plan_elementwise(name, out, inputs);
  using namespace functors;
  dispatch_compute<DtypeSet::kFloating>(l.out_dtype, name, [&]<typename T>() {
    switch (op) {
#define EMBER_CASE(op_name, arity, functor)                                               \
  case LossOp::k##op_name:                                                                \
    EMBER_INTERNAL_ASSERT(l.num_inputs == arity, name, ": ", l.num_inputs, " inputs");    \
    return launch_n<T>(l, std::make_index_sequence<arity>(), functor);
      EMBER_LOSS_OPS(EMBER_CASE)
#undef EMBER_CASE
    }
    EMBER_INTERNAL_ASSERT(false, name, ": unknown loss op ", static_cast<int>(op));
  });
}

}  // namespace ember::cuda
