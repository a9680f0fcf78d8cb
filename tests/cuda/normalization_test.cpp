// The CUDA batch and layer norm kernels (kernels/cuda/normalization_kernels.cu)
// against the same ops on the CPU: outputs, the fused backward's dx, dweight
// and dbias, and batch norm's running statistics over several training
// steps, on random non-zero data with odd sizes (1, 7, 31, 1025 channels),
// per-channel reductions over N*H*W > 65535 (several chunks per channel), a
// channel-heavy 64x64x16x16 batch, N*H*W = 1 in eval, non-contiguous and
// broadcast inputs, with and without affine parameters; hand-derived values
// (PyTorch's running-statistics rule), a large mean (shifted sums), empty
// rows, gradients of gradients, and a steady step that neither waits for the
// device nor calls cudaMalloc. Tolerance, relative to
// max(1, |cpu value|): float32 1e-5 forward and 1e-4 backward (sums in
// another order, dx cancels terms of similar size); float64 1e-10.
#include <ember/kernels/cuda/cudnn_batch_norm.h>
#include <ember/core/cuda/memory.h>
#include <ember/core/cuda/sync_count.h>

#include <cmath>
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
// tol_scale: a multiple of the tolerances, for cuDNN's float32 batch norm
// (its sums are in float32, ours in double).
void compare_normalization(
    const std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>& op,
    const Layout& layout, IntArrayRef param_shape, bool affine, ScalarType t,
    double tol_scale = 1) {
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
  check_close(got, want.detach(), tol_scale * forward_tol(t), "output");
  if (x.numel() == 0) return;
  const Tensor grad = random_nonzero(want.sizes(), t);
  want.backward(grad);
  got.backward(grad.to(kGpu));
  check_close(xg.grad(), xc.grad(), tol_scale * backward_tol(t), "dx");
  if (!affine) return;
  check_close(wg.grad(), wc.grad(), tol_scale * backward_tol(t), "dweight");
  check_close(bg.grad(), bc.grad(), tol_scale * backward_tol(t), "dbias");
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
           [](const Tensor& v) { return v.slice(1, 0, 6, 2).slice(3, 0, 14, 2); }},
          dense({64, 64, 16, 16}),  // channel-heavy: 64 channels of 16384 values
          dense({5, 1025}),
          broadcast({4, 3, 1, 7}, 2, 5)};
}

int64_t channels_of(const Layout& l) {
  const Tensor probe = l.view(empty(l.base_shape));
  return probe.size(1);
}

// Training-mode batch norm on cuDNN's calls for a scope (backends::cudnn).
struct CudnnBatchNorm {
  CudnnBatchNorm() { backends::cudnn::set_batch_norm_enabled(true); }
  ~CudnnBatchNorm() { backends::cudnn::set_batch_norm_enabled(false); }
};

}  // namespace

// Training-mode batch_norm on every layout against the CPU, on our kernels
// or (via_cudnn) on cuDNN's calls, whose float32 sums are in float32.
void check_batch_norm_training(bool via_cudnn) {
  for (const Layout& l : batch_layouts())
    for (bool affine : {true, false})
      for (ScalarType t : {kFloat, kDouble}) {
        const int64_t c = channels_of(l);
        compare_normalization(
            [&](const Tensor& x, const Tensor& w, const Tensor& b) {
              const Tensor rm = zeros({c}, x.options().requires_grad(false));
              const Tensor rv = ones({c}, x.options().requires_grad(false));
              if (x.is_cuda()) CHECK(cuda::cudnn_batch_norm_applies(x, 1e-5, rm, rv) == via_cudnn);
              return batch_norm(x, w, b, rm, rv, /*training=*/true, 0.1, 1e-5);
            },
            l, {c}, affine, t, via_cudnn && t == kFloat ? 10 : 1);
      }
}

TEST_CASE("cuda normalization: batch_norm training output and fused gradients match the CPU",
          "[cuda_nn]") {
  manual_seed(41);
  check_batch_norm_training(false);
}

TEST_CASE("cuda normalization: batch_norm training on cuDNN's calls matches the CPU",
          "[cuda_nn]") {
  manual_seed(51);
  CudnnBatchNorm on;
  check_batch_norm_training(true);
}

// eps 0 and a constant channel: var + eps is 0, ember defines 1 / sqrt(0) as
// 0 there (the channel's output is its bias, its dx 0), where cuDNN would give
// NaN; with the cuDNN switch on, such an eps runs on ember's kernels too.
TEST_CASE("cuda normalization: batch_norm with eps 0 on a constant channel equals the CPU on "
          "both paths",
          "[cuda_nn]") {
  manual_seed(57);
  const auto check_both_dtypes = [](bool cudnn_on) {
    for (ScalarType t : {kFloat, kDouble}) {
      INFO("cuDNN switch " << cudnn_on << ", " << t);
      Tensor x = random_nonzero({4, 3, 5}, t);
      x.select(1, 1).fill_(0.7);  // channel 1 constant
      const Tensor w = random_nonzero({3}, t), b = random_nonzero({3}, t);
      const Tensor grad = random_nonzero({4, 3, 5}, t);
      const auto run = [&](Device d) {
        const auto leaf = [d](const Tensor& v) { return v.to(d).detach().requires_grad_(); };
        const Tensor xl = leaf(x), wl = leaf(w), bl = leaf(b);
        CHECK_FALSE(cuda::cudnn_batch_norm_applies(xl, 0.0, {}, {}));
        const Tensor y = batch_norm(xl, wl, bl, {}, {}, /*training=*/true, 0.1, /*eps=*/0.0);
        y.backward(grad.to(d));
        return std::vector<Tensor>{y.detach(), xl.grad(), wl.grad(), bl.grad()};
      };
      const std::vector<Tensor> want = run(kCPU), got = run(kGpu);
      CHECK(equal(want[0].select(1, 1), b.select(0, 1).expand({4, 5})));
      CHECK(equal(want[1].select(1, 1), zeros({4, 5}, t)));
      const char* names[] = {"output", "dx", "dweight", "dbias"};
      for (size_t i = 0; i < want.size(); ++i)
        check_close(got[i], want[i], i == 0 ? forward_tol(t) : backward_tol(t), names[i]);
    }
  };
  check_both_dtypes(false);
  CudnnBatchNorm on;
  check_both_dtypes(true);
}

TEST_CASE("cuda normalization: batch_norm eval output and gradients match the CPU",
          "[cuda_nn]") {
  manual_seed(42);
  std::vector<Layout> layouts = batch_layouts();
  layouts.push_back(dense({1, 3, 1, 1}));  // N*H*W = 1: allowed in eval only
  for (const Layout& l : layouts)
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

// The running statistics after three training steps of other shapes, in
// place (the version goes up), against the CPU's.
void check_running_statistics(double tol_scale) {
  for (ScalarType t : {kFloat, kDouble}) {
    INFO("dtype " << t);
    const int64_t c = 5;
    Tensor rm_cpu = zeros({c}, t), rv_cpu = ones({c}, t);
    Tensor rm_gpu = rm_cpu.to(kGpu), rv_gpu = rv_cpu.to(kGpu);
    for (const Layout& l : {dense({4, c, 7, 7}), dense({2, c, 31}), dense({3, c, 150, 150})}) {
      const Tensor x = random_nonzero(l.base_shape, t) * 3.0 + 2.0;
      batch_norm(x, {}, {}, rm_cpu, rv_cpu, true, 0.1, 1e-5);
      const uint32_t version = rm_gpu.impl()->version();
      batch_norm(x.to(kGpu), {}, {}, rm_gpu, rv_gpu, true, 0.1, 1e-5);
      CHECK(rm_gpu.impl()->version() > version);
      check_close(rm_gpu, rm_cpu, tol_scale * forward_tol(t), "running_mean after " + l.name);
      check_close(rv_gpu, rv_cpu, tol_scale * forward_tol(t), "running_var after " + l.name);
    }
  }
}

TEST_CASE("cuda normalization: running statistics after several training steps equal the CPU's",
          "[cuda_nn]") {
  manual_seed(43);
  check_running_statistics(1);
}

TEST_CASE("cuda normalization: cuDNN's running statistics after several steps equal the CPU's",
          "[cuda_nn]") {
  manual_seed(52);
  CudnnBatchNorm on;
  check_running_statistics(10);
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

TEST_CASE("cuda normalization: group_norm output and gradients match the CPU", "[cuda_nn]") {
  manual_seed(45);
  for (const Layout& l : batch_layouts()) {
    const int64_t c = channels_of(l);
    if (l.base_shape.size() < 3) continue;  // (N, C, *) with elements per channel
    for (bool affine : {true, false})
      for (ScalarType t : {kFloat, kDouble})
        compare_normalization(
            [&](const Tensor& x, const Tensor& w, const Tensor& b) {
              return group_norm(x, c % 3 == 0 ? 3 : 1, w, b, 1e-5);
            },
            l, {c}, affine, t);
  }
}

TEST_CASE("cuda normalization: batch_norm and layer_norm values and running statistics are "
          "PyTorch's, derived by hand",
          "[cuda_nn]") {
  for (ScalarType t : {kFloat, kDouble}) {
    INFO("dtype " << t);
    const TensorOptions on_gpu = TensorOptions().dtype(t).device(kGpu);
    // x (4, 1) = [1, 2, 3, 4]: mean 2.5, biased var 1.25, unbiased var 5/3.
    const Tensor x = (arange(4, on_gpu) + 1.0).view({4, 1});
    const Tensor rm = zeros({1}, on_gpu), rv = ones({1}, on_gpu);
    const double eps = 1e-5, inv = 1 / std::sqrt(1.25 + eps);
    const Tensor y = batch_norm(x, {}, {}, rm, rv, true, 0.1, eps);
    check_values(y, {-1.5 * inv, -0.5 * inv, 0.5 * inv, 1.5 * inv}, 1e-6, "training output");
    check_values(rm, {0.25}, 1e-6, "running_mean = 0.9 * 0 + 0.1 * 2.5");
    check_values(rv, {0.9 + 0.1 * 5.0 / 3.0}, 1e-6, "running_var = 0.9 * 1 + 0.1 * 5/3");
    // Eval with those statistics, weight 2 and bias 1.
    const Tensor w = full({1}, 2.0, on_gpu), b = ones({1}, on_gpu);
    const double inv_rv = 1 / std::sqrt(0.9 + 0.1 * 5.0 / 3.0 + eps);
    std::vector<double> want;
    for (double v : {1.0, 2.0, 3.0, 4.0}) want.push_back((v - 0.25) * inv_rv * 2 + 1);
    check_values(batch_norm(x, w, b, rm, rv, false, 0.1, eps), want, 1e-6, "eval output");
    // layer_norm over the 4 values of a row: the same normalization.
    check_values(layer_norm(x.view({1, 4}), {4}, {}, {}, eps),
                 {-1.5 * inv, -0.5 * inv, 0.5 * inv, 1.5 * inv}, 1e-6, "layer_norm output");
  }
}

TEST_CASE("cuda normalization: batch_norm training with one value per channel is an Error",
          "[cuda_nn]") {
  const Tensor x = ones({1, 3, 1, 1}, TensorOptions().device(kGpu));
  REQUIRE_THROWS_WITH(batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5),
                      Catch::Contains("expected more than 1 value per channel when training"));
}

TEST_CASE("cuda normalization: statistics of data with a large mean keep their precision "
          "(shifted sums)",
          "[cuda_nn]") {
  manual_seed(45);
  // float64, mean 1e6, std ~1: E[x^2] - E[x]^2 unshifted would lose ~1e-4.
  const Tensor x = random_nonzero({16, 3, 40, 40}, kDouble) + 1e6;
  const Tensor rm = zeros({3}, TensorOptions().dtype(kDouble).device(kGpu));
  const Tensor rv = zeros({3}, rm.options());
  const Tensor y = batch_norm(x.to(kGpu), {}, {}, rm, rv, true, 1.0, 1e-5);  // momentum 1
  const DimVector dims{0, 2, 3};
  const Tensor mean = x.mean(dims, true);
  const Tensor var = (x - mean).square().sum(dims) / double(16 * 40 * 40 - 1);  // two-pass
  check_close(rm, mean.view({3}), 1e-12, "running_mean");
  check_close(rv, var, 1e-9, "running_var (unbiased)");
  const Tensor y_ref = (x - mean) / (var.view({1, 3, 1, 1}) * (double(16 * 40 * 40 - 1) /
                                                                double(16 * 40 * 40)) +
                                     1e-5)
                                        .sqrt();
  check_close(y, y_ref, 1e-9, "output");
  const Tensor rows = random_nonzero({5, 300}, kDouble) + 1e6;
  const Tensor ln = layer_norm(rows.to(kGpu), {300}, {}, {}, 1e-5);
  const Tensor rmean = rows.mean({1}, true);
  const Tensor rvar = (rows - rmean).square().mean({1}, true);
  check_close(ln, (rows - rmean) / (rvar + 1e-5).sqrt(), 1e-9, "layer_norm output");
}

TEST_CASE("cuda normalization: layer_norm over no rows gives zero dweight and dbias",
          "[cuda_nn]") {
  for (const Device device : {Device(kCPU), kGpu}) {
    INFO("device " << device);
    const TensorOptions options = TensorOptions().device(device);
    { const Tensor junk = full({64}, 123.0, options); }  // leaves non-zero cached memory
    const Tensor x = empty({0, 7}, options).requires_grad_();
    const Tensor w = ones({7}, options).requires_grad_(), b = ones({7}, options).requires_grad_();
    const Tensor y = layer_norm(x, {7}, w, b, 1e-5);
    const tensor_list g = autograd::grad({y}, {x, w, b}, {empty({0, 7}, options)});
    CHECK(g[0].sizes() == IntArrayRef{0, 7});
    CHECK(values_of(g[1]) == std::vector<double>(7, 0.0));
    CHECK(values_of(g[2]) == std::vector<double>(7, 0.0));
  }
}

TEST_CASE("cuda normalization: gradients of gradients (create_graph) match the CPU", "[cuda_nn]") {
  manual_seed(46);
  const Tensor x = random_nonzero({4, 3, 5, 6}, kDouble);
  const Tensor w = random_nonzero({3}, kDouble), b = random_nonzero({3}, kDouble);
  const Tensor lw = random_nonzero({5, 6}, kDouble), lb = random_nonzero({5, 6}, kDouble);
  for (int which = 0; which < 3; ++which) {
    INFO((which == 0 ? "batch_norm training" : which == 1 ? "batch_norm eval" : "layer_norm"));
    const auto run = [&](const Device device) {
      const auto leaf = [&](const Tensor& v) { return v.to(device).clone().requires_grad_(); };
      const Tensor xl = leaf(x);
      const Tensor wl = leaf(which == 2 ? lw : w), bl = leaf(which == 2 ? lb : b);
      Tensor y;
      if (which == 2) {
        y = layer_norm(xl, {5, 6}, wl, bl, 1e-5);
      } else {
        const Tensor rm = full({3}, 0.5, TensorOptions().dtype(kDouble).device(device));
        const Tensor rv = full({3}, 2.0, rm.options());
        y = batch_norm(xl, wl, bl, rm, rv, which == 0, 0.1, 1e-5);
      }
      const tensor_list g = autograd::grad({(y * y * y).sum()}, {xl, wl}, {}, true, true);
      (g[0].square().sum() + g[1].square().sum()).backward();
      return tensor_list{g[0].detach(), g[1].detach(), xl.grad(), wl.grad(), bl.grad()};
    };
    const tensor_list want = run(Device(kCPU)), got = run(kGpu);
    const char* names[] = {"dx", "dweight", "d(dx, dweight)/dx", "d/dweight", "d/dbias"};
    for (size_t k = 0; k < want.size(); ++k) check_close(got[k], want[k], 1e-10, names[k]);
  }
}

TEST_CASE("cuda normalization: a steady forward and backward step neither waits for the device "
          "nor calls cudaMalloc",
          "[cuda_nn]") {
  manual_seed(47);
  const TensorOptions on_gpu = TensorOptions().device(kGpu);
  const Tensor x = random_nonzero({32, 64, 16, 16}, kFloat).to(kGpu).requires_grad_();
  const Tensor w = ones({64}, on_gpu).requires_grad_(), b = zeros({64}, on_gpu).requires_grad_();
  const Tensor rm = zeros({64}, on_gpu), rv = ones({64}, on_gpu);
  const Tensor lw = ones({16, 16}, on_gpu).requires_grad_();
  const auto step = [&] {
    const Tensor y = batch_norm(x, w, b, rm, rv, true, 0.1, 1e-5);
    const Tensor e = batch_norm(x, w, b, rm, rv, false, 0.1, 1e-5);
    const Tensor l = layer_norm(x, {16, 16}, lw, {}, 1e-5);
    return autograd::grad({(y * e).sum() + (l * y).sum()}, {x, w, b, lw});
  };
  for (int warm = 0; warm < 2; ++warm) step();
  const uint64_t mallocs = cuda::memory_stats().num_system_allocs;
  const uint64_t syncs = cuda::sync_count();
  for (int i = 0; i < 3; ++i) step();
  CHECK(cuda::sync_count() == syncs);
  CHECK(cuda::memory_stats().num_system_allocs == mallocs);
}

