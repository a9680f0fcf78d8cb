// The CPU copy and fill kernels (kernels/cpu/copy.h): the elementwise loop of
// kernels/cpu/loops.h with a cast, and std::fill on contiguous memory.
#include "ember/kernels/cpu/copy.h"

#include <algorithm>

#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {

void copy_kernel(const Tensor& dst, const Tensor& src) {
  dispatch_storage(dst.scalar_type(), "copy_", [&]<typename Out>() {
    dispatch_storage(src.scalar_type(), "copy_", [&]<typename In>() {
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
