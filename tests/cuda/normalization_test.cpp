// The CUDA batch and layer norm kernels (kernels/cuda/normalization_kernels.cu)
// against the same ops on the CPU: outputs, the fused backward's dx, dweight
// and dbias, and batch norm's running statistics over several training
// steps, on random non-zero data with odd sizes (1, 7, 31), per-channel
// reductions over N*H*W > 65535 (several chunks per channel), non-contiguous
// inputs, with and without affine parameters. Tolerance, relative to
// max(1, |cpu value|): float32 1e-5 forward and 1e-4 backward (sums in
// another order, dx cancels terms of similar size); float64 1e-10.
#include <string>
#include <vector>

#include "nn_compare.h"

using namespace ember;
using namespace nn_compare;

namespace {

double forward_tol(ScalarType t) { return t == kFloat ? 1e-5 : 1e-10; }
double backward_tol(ScalarType t) { return t == kFloat ? 1e-4 : 1e-10; }

// The op on CPU and CUDA copies of x (through `view`), weight and bias
// (undefined when !affine): output, then the gradients of all three.
void compare_normalization(
    const std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>& op,
    const Layout& layout, IntArrayRef param_shape, bool affine, ScalarType t) {
  INFO("layout " << layout.name << ", affine " << affine << ", dtype " << t);
  const Tensor x = random_nonzero(layout.base_shape, t);
  const Tensor w = affine ? random_nonzero(param_shape, t) : Tensor();
  const Tensor b = affine ? random_nonzero(param_shape, t) : Tensor();
  const auto leaf = [](const Tensor& v, bool gpu) {
    if (!v.defined()) return Tensor();
    return (gpu ? v.to(kGpu) : v.clone()).requires_grad_();
  };
  const Tensor xc = leaf(x, false), wc = leaf(w, false), bc = leaf(b, false);
  const Tensor xg = leaf(x, true), wg = leaf(w, true), bg = leaf(b, true);
  const Tensor want = op(layout.view(xc), wc, bc), got = op(layout.view(xg), wg, bg);
  check_close(got, want.detach(), forward_tol(t), "output");
  if (x.numel() == 0) return;
  const Tensor grad = random_nonzero(want.sizes(), t);
  want.backward(grad);
  got.backward(grad.to(kGpu));
  check_close(xg.grad(), xc.grad(), backward_tol(t), "dx");
  if (!affine) return;
  check_close(wg.grad(), wc.grad(), backward_tol(t), "dweight");
  check_close(bg.grad(), bc.grad(), backward_tol(t), "dbias");
}

std::vector<Layout> batch_layouts() {
  return {dense({2, 3}),
          dense({31, 7}),
          dense({2, 3, 1, 1}),
          dense({4, 3, 7, 7}),
          dense({2, 5, 31}),
          dense({3, 2, 31, 7}),
          dense({8, 3, 100, 100}),  // 80000 values per channel
          {"transposed", {4, 3, 31, 7}, [](const Tensor& v) { return v.transpose(2, 3); }},
          {"sliced", {4, 6, 7, 14},
           [](const Tensor& v) { return v.slice(1, 0, 6, 2).slice(3, 0, 14, 2); }}};
}

int64_t channels_of(const Layout& l) {
  const Tensor probe = l.view(empty(l.base_shape));
  return probe.size(1);
}

}  // namespace

TEST_CASE("cuda normalization: batch_norm training output and fused gradients match the CPU",
          "[cuda_nn]") {
  manual_seed(41);
  for (const Layout& l : batch_layouts())
    for (bool affine : {true, false})
      for (ScalarType t : {kFloat, kDouble}) {
        const int64_t c = channels_of(l);
        compare_normalization(
            [&](const Tensor& x, const Tensor& w, const Tensor& b) {
              const Tensor rm = zeros({c}, x.options().requires_grad(false));
              const Tensor rv = ones({c}, x.options().requires_grad(false));
              return batch_norm(x, w, b, rm, rv, /*training=*/true, 0.1, 1e-5);
            },
            l, {c}, affine, t);
      }
}

TEST_CASE("cuda normalization: batch_norm eval output and gradients match the CPU",
          "[cuda_nn]") {
  manual_seed(42);
  for (const Layout& l : batch_layouts())
    for (ScalarType t : {kFloat, kDouble}) {
      const int64_t c = channels_of(l);
      const Tensor rm = random_nonzero({c}, t), rv = random_nonzero({c}, t).abs() + 0.5;
      compare_normalization(
          [&](const Tensor& x, const Tensor& w, const Tensor& b) {
            const Tensor m = x.is_cuda() ? rm.to(kGpu) : rm, v = x.is_cuda() ? rv.to(kGpu) : rv;
            return batch_norm(x, w, b, m, v, /*training=*/false, 0.1, 1e-5);
          },
          l, {c}, true, t);
    }
}

TEST_CASE("cuda normalization: batch_norm on an empty batch in eval gives an empty output",
          "[cuda_nn]") {
  const Tensor x = empty({0, 3, 5}, TensorOptions().device(kGpu));
  const Tensor rm = zeros({3}, TensorOptions().device(kGpu)), rv = ones({3}, rm.options());
  const Tensor y = batch_norm(x, {}, {}, rm, rv, false, 0.1, 1e-5);
  CHECK(y.is_cuda());
  CHECK(y.sizes() == IntArrayRef{0, 3, 5});
}

TEST_CASE("cuda normalization: running statistics after several training steps equal the CPU's",
          "[cuda_nn]") {
  manual_seed(43);
  for (ScalarType t : {kFloat, kDouble}) {
    INFO("dtype " << t);
    const int64_t c = 5;
    Tensor rm_cpu = zeros({c}, t), rv_cpu = ones({c}, t);
    Tensor rm_gpu = rm_cpu.to(kGpu), rv_gpu = rv_cpu.to(kGpu);
    for (const Layout& l : {dense({4, c, 7, 7}), dense({2, c, 31}), dense({3, c, 150, 150})}) {
      const Tensor x = random_nonzero(l.base_shape, t) * 3.0 + 2.0;
      batch_norm(x, {}, {}, rm_cpu, rv_cpu, true, 0.1, 1e-5);
      batch_norm(x.to(kGpu), {}, {}, rm_gpu, rv_gpu, true, 0.1, 1e-5);
      check_close(rm_gpu, rm_cpu, forward_tol(t), "running_mean after " + l.name);
      check_close(rv_gpu, rv_cpu, forward_tol(t), "running_var after " + l.name);
    }
  }
}

TEST_CASE("cuda normalization: batch_norm with parameters on another device is an Error naming "
          "both devices",
          "[cuda_nn]") {
  const Tensor x = ones({2, 3, 4}, TensorOptions().device(kGpu));
  REQUIRE_THROWS_WITH(batch_norm(x, ones({3}), {}, {}, {}, true, 0.1, 1e-5),
                      Catch::Contains("batch_norm: weight is on cpu but the input is on cuda"));
  REQUIRE_THROWS_WITH(layer_norm(x, {4}, ones({4})),
                      Catch::Contains("layer_norm: weight is on cpu but the input is on cuda"));
}

TEST_CASE("cuda normalization: layer_norm output and fused gradients match the CPU",
          "[cuda_nn]") {
  manual_seed(44);
  struct Case {
    Layout layout;
    std::vector<int64_t> normalized_shape;
  };
  const std::vector<Case> cases{
      {dense({2, 3, 31}), {31}},
      {dense({2, 3, 31}), {3, 31}},
      {dense({7, 1}), {1}},
      {dense({1025, 7}), {7}},
      {dense({3, 1025}), {1025}},
      {dense({4, 5000}), {5000}},     // 512 threads, several values each
      {dense({70000, 3}), {3}},       // rows beyond 65535 blocks; column sums in chunks
      {dense({0, 7}), {7}},
      {{"transposed", {31, 2, 7}, [](const Tensor& v) { return v.transpose(0, 2); }}, {31}},
      {{"sliced", {2, 3, 62}, [](const Tensor& v) { return v.slice(2, 0, 62, 2); }}, {31}}};
  for (const Case& c : cases)
    for (bool affine : {true, false})
      for (ScalarType t : {kFloat, kDouble}) {
        INFO("normalized_shape of " << c.normalized_shape.size() << " dims");
        compare_normalization(
            [&](const Tensor& x, const Tensor& w, const Tensor& b) {
              return layer_norm(x, c.normalized_shape, w, b, 1e-5);
            },
            c.layout, c.normalized_shape, affine, t);
      }
}
