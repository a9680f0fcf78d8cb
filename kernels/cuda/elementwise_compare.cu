// The CUDA comparison kernels (bool result) and where: one case per row of
// EMBER_COMPARE_OPS (kernels/common/elementwise_ops.h) over loops.cuh, each
// instantiated for the dtypes of its row.
#include "ember/kernels/cuda/elementwise.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda {
namespace {

template <typename T>
struct Select {
  __device__ __forceinline__ T operator()(bool c, T x, T y) const { return c ? x : y; }
};

}  // namespace

void compare_kernel(const char* name, CompareOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, double rtol, double atol, bool equal_nan) {
  if (out.numel() == 0) return;
  const ElementwiseLaunch l = plan_elementwise(name, out, {&a, &b});
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, functor)                                                \
  case CompareOp::k##op_name:                                                               \
    return dispatch_compute<DtypeSet::dtypes>(l.input_dtypes[0], name, [&]<typename T>() {   \
      loops::launch<bool, T, T>(l, functor);                                                \
    });
    EMBER_COMPARE_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown comparison ", static_cast<int>(op));
}

void where_kernel(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
  if (out.numel() == 0) return;
  const ElementwiseLaunch l = plan_elementwise("where", out, {&condition, &a, &b});
  dispatch_compute<DtypeSet::kAll>(l.out_dtype, "where",
               [&]<typename T>() { loops::launch<T, bool, T, T>(l, Select<T>{}); });
}

}  // namespace ember::cuda
