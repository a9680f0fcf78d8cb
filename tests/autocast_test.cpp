// Autocast (Note [Autocast], core/autocast.h): on the CPU, each listed op's output dtype as
// PyTorch 1.13's torch.autocast("cpu", dtype=torch.bfloat16) gives it (recorded on this
// machine with Debian's python3-torch: lower precision for mm, bmm, addmm, baddbmm, addbmm,
// matmul, linear, conv1d, conv2d; float32 for the losses, cdist, quantile, also from
// bfloat16 inputs, and the linear algebra, trace, prod, reflection/replication padding,
// grid_sample; the widest floating dtype for cat, stack, index_copy; the input's dtype
// for everything else, conv_transpose2d and mv included), regions that nest and restore,
// the cast cache, and float32 gradients for float32 parameters.
#include "test_helpers.h"

#include <ember/core/autocast.h>

using namespace ember;
namespace F = nn::functional;

TEST_CASE("autocast on the CPU: the lower-precision ops run in bfloat16", "[autocast]") {
  const Tensor m = randn({6, 6}), v = randn({6}), x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3});
  autocast::AutocastGuard guard(kCPU, kBFloat16);
  CHECK(mm(m, m).scalar_type() == kBFloat16);
  CHECK(bmm(m.unsqueeze(0), m.unsqueeze(0)).scalar_type() == kBFloat16);
  CHECK(addmm(m, m, m).scalar_type() == kBFloat16);
  CHECK(baddbmm(m.unsqueeze(0), m.unsqueeze(0), m.unsqueeze(0)).scalar_type() == kBFloat16);
  CHECK(addbmm(m, m.unsqueeze(0), m.unsqueeze(0)).scalar_type() == kBFloat16);
  CHECK(m.matmul(m).scalar_type() == kBFloat16);
  CHECK(linear(m, m, v).scalar_type() == kBFloat16);
  CHECK(conv2d(x, w).scalar_type() == kBFloat16);
  CHECK(conv2d_relu(x, w).scalar_type() == kBFloat16);  // ember's fused conv2d + relu
  CHECK(conv1d(x.select(2, 0), w.select(2, 0)).scalar_type() == kBFloat16);
  // Not on PyTorch 1.13's CPU list: they keep float32.
  CHECK(conv_transpose2d(x, w.transpose(0, 1)).scalar_type() == kFloat);
  CHECK(mv(m, v).scalar_type() == kFloat);
  // float64 is never cast; integers neither.
  CHECK(mm(m.to(kDouble), m.to(kDouble)).scalar_type() == kDouble);
  CHECK(mm(m.to(kLong), m.to(kLong)).scalar_type() == kLong);
  // Values: the product of the rounded operands.
  CHECK(equal(mm(m, m), mm(m.to(kBFloat16), m.to(kBFloat16))));
}

TEST_CASE("autocast on the CPU: losses and the float32 list compute in float32", "[autocast]") {
  const Tensor m = randn({6, 6}), logits = randn({4, 5});
  const Tensor labels = tensor({1, 2, 0, 4}, kLong);
  const Tensor b = m.to(kBFloat16), bl = logits.to(kBFloat16);
  autocast::AutocastGuard guard(kCPU, kBFloat16);
  CHECK(F::mse_loss(b, b).scalar_type() == kFloat);
  CHECK(F::l1_loss(b, b).scalar_type() == kFloat);
  CHECK(F::smooth_l1_loss(b, b).scalar_type() == kFloat);
  CHECK(F::huber_loss(b, b).scalar_type() == kFloat);
  CHECK(F::cross_entropy(bl, labels).scalar_type() == kFloat);
  CHECK(F::nll_loss(bl.log_softmax(1), labels).scalar_type() == kFloat);
  CHECK(F::binary_cross_entropy_with_logits(b, b.sigmoid()).scalar_type() == kFloat);
  CHECK(F::binary_cross_entropy(b.sigmoid(), b.sigmoid()).scalar_type() == kFloat);
  CHECK(F::kl_div(b, b).scalar_type() == kFloat);
  CHECK(F::soft_margin_loss(b, b.sign()).scalar_type() == kFloat);
  CHECK(F::margin_ranking_loss(b[0], b[1], b[2].sign()).scalar_type() == kFloat);
  CHECK(F::hinge_embedding_loss(b, b.sign()).scalar_type() == kFloat);
  CHECK(F::cosine_embedding_loss(b, b, b[0].sign()).scalar_type() == kFloat);
  CHECK(F::multi_margin_loss(bl, labels).scalar_type() == kFloat);
  CHECK(F::triplet_margin_loss(b, b, b).scalar_type() == kFloat);
  CHECK(F::poisson_nll_loss(b, b.abs()).scalar_type() == kFloat);
  CHECK(cdist(b, b).scalar_type() == kFloat);
  CHECK(quantile(b.flatten(), 0.5).scalar_type() == kFloat);
  // Everything else keeps its input's dtype on the CPU, softmax included.
  CHECK(b.softmax(-1).scalar_type() == kBFloat16);
  CHECK(b.relu().scalar_type() == kBFloat16);
  CHECK(b.exp().scalar_type() == kBFloat16);
  CHECK(b.sum().scalar_type() == kBFloat16);
  CHECK(F::layer_norm(b, F::LayerNormFuncOptions({6})).scalar_type() == kBFloat16);
  CHECK(m.softmax(-1).scalar_type() == kFloat);
}

// PyTorch 1.13's CPU float32 list beyond the losses, as torch.autocast("cpu", bfloat16) gives
// each op from a bfloat16 input on this machine (python3-torch): the linear algebra, trace,
// prod, reflection and replication padding, grid_sample; the ones next to them that are not
// listed (vector norms, constant and circular padding, matrix_power, cross) keep bfloat16.
TEST_CASE("autocast on the CPU: linear algebra, trace, prod, padding, grid_sample in float32",
          "[autocast]") {
  const Tensor a = randn({4, 4});
  const Tensor spd = (a.matmul(a.t()) + eye(4) * 4).to(kBFloat16), b = a.to(kBFloat16);
  const Tensor img = randn({1, 2, 5, 5}).to(kBFloat16), vol = randn({1, 2, 3, 3, 3}).to(kBFloat16);
  autocast::AutocastGuard guard(kCPU, kBFloat16);
  CHECK(trace(b).scalar_type() == kFloat);
  CHECK(b.trace().scalar_type() == kFloat);
  CHECK(inverse(spd).scalar_type() == kFloat);
  CHECK(linalg_inv(spd).scalar_type() == kFloat);
  CHECK(std::get<0>(linalg_inv_ex(spd)).scalar_type() == kFloat);
  CHECK(cholesky(spd).scalar_type() == kFloat);
  CHECK(linalg_cholesky(spd).scalar_type() == kFloat);
  CHECK(std::get<0>(linalg_cholesky_ex(spd)).scalar_type() == kFloat);
  CHECK(cholesky_solve(spd, spd).scalar_type() == kFloat);
  CHECK(cholesky_inverse(spd).scalar_type() == kFloat);
  CHECK(linalg_solve(spd, spd).scalar_type() == kFloat);
  CHECK(std::get<0>(linalg_eigh(spd)).scalar_type() == kFloat);
  CHECK(linalg_eigvalsh(spd).scalar_type() == kFloat);
  CHECK(std::get<1>(linalg_svd(spd)).scalar_type() == kFloat);
  CHECK(linalg_svdvals(spd).scalar_type() == kFloat);
  CHECK(std::get<1>(svd(spd)).scalar_type() == kFloat);
  CHECK(std::get<0>(linalg_qr(spd)).scalar_type() == kFloat);
  CHECK(std::get<0>(qr(spd)).scalar_type() == kFloat);
  CHECK(std::get<0>(linalg_lstsq(spd, spd)).scalar_type() == kFloat);
  CHECK(linalg_matrix_norm(b).scalar_type() == kFloat);
  CHECK(linalg_matrix_norm(spd, "nuc").scalar_type() == kFloat);
  CHECK(prod(b).scalar_type() == kFloat);
  CHECK(prod(b, 0).scalar_type() == kFloat);
  CHECK(F::pad(img, F::PadFuncOptions({1, 1, 1, 1}).mode(kReflect)).scalar_type() == kFloat);
  CHECK(F::pad(img, F::PadFuncOptions({1, 1, 1, 1}).mode(kReplicate)).scalar_type() == kFloat);
  CHECK(F::pad(img[0], F::PadFuncOptions({1, 1}).mode(kReflect)).scalar_type() == kFloat);
  CHECK(F::pad(vol, F::PadFuncOptions({1, 1, 1, 1, 1, 1}).mode(kReplicate)).scalar_type() == kFloat);
  CHECK(F::grid_sample(img, zeros({1, 3, 3, 2}, kBFloat16), F::GridSampleFuncOptions().align_corners(false))
            .scalar_type() == kFloat);
  // Not listed: they keep bfloat16.
  CHECK(linalg_vector_norm(b).scalar_type() == kBFloat16);
  CHECK(F::pad(img, F::PadFuncOptions({1, 1, 1, 1})).scalar_type() == kBFloat16);
  CHECK(F::pad(img, F::PadFuncOptions({1, 1, 1, 1}).mode(kCircular)).scalar_type() == kBFloat16);
  CHECK(linalg_matrix_power(spd, 2).scalar_type() == kBFloat16);
  CHECK(linalg_cross(b.narrow(1, 0, 3), b.narrow(1, 0, 3)).scalar_type() == kBFloat16);
  // CUDA's float32 list is not the CPU's.
  CHECK(b.tan().scalar_type() == kBFloat16);
  CHECK(b.acos().scalar_type() == kBFloat16);
  CHECK(b.log2().scalar_type() == kBFloat16);
  CHECK(b.erfinv().scalar_type() == kBFloat16);
  CHECK(pdist(b).scalar_type() == kBFloat16);
  CHECK(F::cosine_similarity(b, b).scalar_type() == kBFloat16);
  // An explicit dtype is kept.
  CHECK(prod(b, 0, false, kBFloat16).scalar_type() == kBFloat16);
  // Values: the float32 op on the bfloat16 input's values.
  CHECK(equal(linalg_inv(spd), linalg_inv(spd.to(kFloat))));
}

TEST_CASE("autocast on the CPU: cat, stack and index_copy promote to the widest dtype", "[autocast]") {
  const Tensor m = randn({2, 3}), b = m.to(kBFloat16);
  autocast::AutocastGuard guard(kCPU, kBFloat16);
  CHECK(cat({b, m}).scalar_type() == kFloat);
  CHECK(stack({b, m}).scalar_type() == kFloat);
  CHECK(cat({b, b}).scalar_type() == kBFloat16);
  CHECK(m.index_copy(0, tensor({0}, kLong), b.narrow(0, 0, 1)).scalar_type() == kFloat);
}

TEST_CASE("autocast regions nest, restore the outer state and refuse dtypes the device lacks",
          "[autocast]") {
  const Tensor m = randn({3, 3});
  CHECK_FALSE(autocast::is_cpu_enabled());
  {
    autocast::AutocastGuard on(kCPU, kBFloat16);
    CHECK(autocast::is_cpu_enabled());
    CHECK(autocast::get_autocast_cpu_dtype() == kBFloat16);
    {
      autocast::AutocastGuard off(kCPU, std::nullopt, /*enabled=*/false);
      CHECK(mm(m, m).scalar_type() == kFloat);
    }
    CHECK(mm(m, m).scalar_type() == kBFloat16);
    {
      NoGradGuard no_grad;  // autocast does not depend on grad mode, as in PyTorch
      CHECK(mm(m, m).scalar_type() == kBFloat16);
    }
  }
  CHECK_FALSE(autocast::is_cpu_enabled());
  CHECK(mm(m, m).scalar_type() == kFloat);
  CHECK_THROWS_WITH(autocast::AutocastGuard(kCPU, kHalf), Catch::Contains("autocast: the CPU runs in bfloat16, got float16"));
  CHECK_THROWS_WITH(autocast::set_autocast_gpu_dtype(kFloat), Catch::Contains("float16 or bfloat16, got float32"));
  CHECK_FALSE(autocast::is_enabled());  // CUDA's, untouched
}

TEST_CASE("autocast casts a parameter once per region and gives it a float32 gradient", "[autocast]") {
  const Tensor x = randn({8, 5});
  const Tensor w = randn({4, 5}).requires_grad_();
  Tensor y1, y2;
  {
    autocast::AutocastGuard guard(kCPU, kBFloat16);
    y1 = linear(x, w);
    y2 = linear(x, w);
    // One cached bfloat16 copy of w feeds every op of the region; w's in-place change
    // makes a new one.
    const Tensor first = autocast::cast(w, kBFloat16);
    CHECK(first.is_same(autocast::cast(w, kBFloat16)));
    CHECK_FALSE(autocast::cast(x, kBFloat16).is_same(autocast::cast(x, kBFloat16)));  // not a parameter
    {
      NoGradGuard no_grad;
      const Tensor w2 = randn({4, 5}).requires_grad_();
      const Tensor before = autocast::cast(w2, kBFloat16);
      w2.mul_(2);
      CHECK_FALSE(before.is_same(autocast::cast(w2, kBFloat16)));
    }
  }
  CHECK(y1.scalar_type() == kBFloat16);
  (y1.to(kFloat).sum() + y2.to(kFloat).sum()).backward();
  REQUIRE(w.grad().defined());
  CHECK(w.grad().scalar_type() == kFloat);
  // d/dw of sum(x w^T) twice: 2 * column sums of x, through bfloat16 rounding of x.
  const Tensor want = x.to(kBFloat16).to(kFloat).sum(0).expand({4, 5}) * 2;
  CHECK((w.grad() - want).abs().max().item<double>() < 0.1);
  // After the region the cache is empty: a new region casts afresh.
  Tensor outer;
  {
    autocast::AutocastGuard guard(kCPU, kBFloat16);
    outer = autocast::cast(w, kBFloat16);
  }
  autocast::AutocastGuard guard(kCPU, kBFloat16);
  CHECK_FALSE(outer.is_same(autocast::cast(w, kBFloat16)));
}
