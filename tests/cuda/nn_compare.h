#pragma once
// Shared by tests/cuda/{pooling,upsample,normalization,pad,ops_1d}_test.cpp: an op run on
// CUDA tensors against the same op on CPU tensors, forward and backward, on a
// dense or a non-contiguous view of the same random data.
#include <ember/ember.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "cuda_test_helpers.h"

namespace nn_compare {

using namespace ember;
using cuda_test::kGpu;
using cuda_test::random_nonzero;

// got (CUDA) equals want (CPU): dtype, shape, and every value within
// tol * max(1, |want|), integers exactly (one check over the whole tensor:
// sizes reach 10^7).
inline void check_close(const Tensor& got, const Tensor& want, double tol,
                        const std::string& what) {
  INFO(what);
  if (!want.is_floating_point()) tol = 0;
  REQUIRE(got.is_cuda());
  REQUIRE(got.scalar_type() == want.scalar_type());
  REQUIRE(got.sizes() == want.sizes());
  if (want.numel() == 0) return;
  const Tensor g = got.cpu().to(kDouble), w = want.to(kDouble);
  const double worst = ((g - w).abs() / w.abs().clamp_min(1.0)).max().item<double>();
  INFO("largest relative difference " << worst << ", bound " << tol);
  CHECK(worst <= tol);
}

// The values of t (any device and floating dtype) as doubles, row-major.
inline std::vector<double> values_of(const Tensor& t) {
  const Tensor c = t.detach().cpu().to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// got (CUDA) equals values derived by hand (as PyTorch gives them) within
// tol * max(1, |want|); a NaN matches only a NaN, an infinity only itself.
inline void check_values(const Tensor& got, const std::vector<double>& want, double tol,
                         const std::string& what) {
  INFO(what);
  REQUIRE(got.is_cuda());
  const std::vector<double> g = values_of(got);
  REQUIRE(g.size() == want.size());
  for (size_t i = 0; i < g.size(); ++i) {
    INFO("element " << i << ": got " << g[i] << ", want " << want[i]);
    CHECK(cuda_test::close_to(g[i], want[i], tol));
  }
}

// How the op's input is laid out: `view` of a dense base tensor of
// `base_shape` (identity, transposed, sliced, expanded).
struct Layout {
  std::string name;
  DimVector base_shape;
  std::function<Tensor(const Tensor&)> view;
};

inline Layout dense(IntArrayRef shape) {
  return {"dense", DimVector(shape), [](const Tensor& t) { return t; }};
}

// A broadcast input: dim `dim` of size 1 in the base, expanded (stride 0) to
// `size` in the op's input; the gradient sums back over it.
inline Layout broadcast(IntArrayRef base_shape, int64_t dim, int64_t size) {
  DimVector to(base_shape);
  to[static_cast<size_t>(dim)] = size;
  return {"broadcast (expanded dim " + std::to_string(dim) + ")", DimVector(base_shape),
          [to](const Tensor& t) { return t.expand(to); }};
}

// The op on CPU and CUDA copies of one random base, through the layout's
// view: outputs (every one `op` returns) within `forward_tol`, then the
// gradient a random grad of the first output sends to the base within
// `backward_tol`.
inline void compare_with_cpu(const std::function<tensor_list(const Tensor&)>& op,
                             const Layout& layout, ScalarType dtype, double forward_tol,
                             double backward_tol) {
  INFO("layout " << layout.name << ", dtype " << dtype);
  const Tensor base = random_nonzero(layout.base_shape, dtype);
  const Tensor cpu_leaf = base.clone().requires_grad_();
  const Tensor gpu_leaf = base.to(kGpu).requires_grad_();
  const tensor_list want = op(layout.view(cpu_leaf)), got = op(layout.view(gpu_leaf));
  REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k)
    check_close(got[k], want[k].detach(), forward_tol, "output " + std::to_string(k));
  if (base.numel() == 0) return;  // nothing flows back
  const Tensor grad = random_nonzero(want[0].sizes(), dtype);
  want[0].backward(grad);
  got[0].backward(grad.to(kGpu));
  check_close(gpu_leaf.grad(), cpu_leaf.grad(), backward_tol, "gradient of the input");
}

// With z = sum(op(x)^2) for x = base on each device: dz/dx (recorded, so it
// depends on x through op again) and the gradient of sum((dz/dx)^2) match the
// CPU's within 1e-12 (base is float64).
inline void compare_gradients_of_gradients(const std::function<Tensor(const Tensor&)>& op,
                                           const Tensor& base) {
  const Tensor xc = base.clone().requires_grad_(), xg = base.to(kGpu).requires_grad_();
  const auto grad_of = [&](const Tensor& x) {
    const Tensor y = op(x);
    return autograd::grad({(y * y).sum()}, {x}, {}, true, true)[0];
  };
  const Tensor gc = grad_of(xc), gg = grad_of(xg);
  check_close(gg, gc.detach(), 1e-12, "first gradient");
  (gc * gc).sum().backward();
  (gg * gg).sum().backward();
  check_close(xg.grad(), xc.grad(), 1e-12, "gradient of the gradient");
}

}  // namespace nn_compare
