// The 16-bit floats and narrow integers on CUDA against the CPU (docs/dtypes.md): conversions
// bit for bit, every elementwise row through the index kernel's converting loads and stores,
// reductions, the compute-dtype copies, index ops with the 1- and 2-byte compare-and-swap
// atomics, cuBLAS in bfloat16/float16 and cuDNN convolution in them, and autocast on CUDA.
// Tolerances: integers exact; a bfloat16 (float16) result within 2^-7 (2^-10) of the CPU's
// relative to max(1, |cpu|): both compute in float32 and round once, and CUDA's libm may
// differ from the host's by an ulp of float32, which can move a rounding to the next 16-bit
// value; products and convolutions sum in another order, hence 2^-6 (2^-9).
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

double tol16(ScalarType t, int extra_bits = 0) {
  if (t == kBFloat16) return std::ldexp(1.0, -7 + extra_bits);
  if (t == kHalf) return std::ldexp(1.0, -10 + extra_bits);
  return 0;
}

}  // namespace

TEST_CASE("cuda converts between every pair of dtypes as the CPU does, bit for bit", "[cuda][dtype]") {
  const Tensor values = randn({4097}) * 1000;
  const ScalarType every[] = {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble};
  for (ScalarType from : every)
    for (ScalarType to : every) {
      INFO(from << " -> " << to);
      const Tensor src = values.to(from);
      check_same(src.to(kGpu).to(to), src.to(to));
      check_same(src.to(kGpu).t().to(to), src.t().to(to));  // strided: the index kernel
    }
}

TEST_CASE("cuda elementwise ops on the 16-bit floats and narrow integers match the CPU",
          "[cuda][dtype]") {
  for (ScalarType t : {kBFloat16, kHalf}) {
    INFO(t);
    const Tensor a = random_nonzero({33, 31}, kFloat).to(t), b = random_nonzero({33, 31}, kFloat, true).to(t);
    const Tensor ag = a.to(kGpu), bg = b.to(kGpu);
    check_same(ag + bg, a + b, tol16(t));
    check_same(ag * bg.t().t(), a * b, tol16(t));
    check_same(ag / bg, a / b, tol16(t));
    check_same(ag.exp(), a.exp(), tol16(t));
    check_same(bg.log(), b.log(), tol16(t));
    check_same(ag.sigmoid(), a.sigmoid(), tol16(t));
    check_same(ag.t().relu(), a.t().relu(), 0);
    check_same(ag > bg, a > b);
    check_same(where(ag > 0, ag, bg), where(a > 0, a, b));
    check_same(ag * 2.5, a * 2.5, tol16(t));
  }
  for (ScalarType t : {kByte, kChar, kShort, kInt}) {
    INFO(t);
    const Tensor a = randint(1, 100, {257}).to(t), b = randint(1, 100, {257}).to(t);
    const Tensor ag = a.to(kGpu), bg = b.to(kGpu);
    check_same(ag + bg, a + b);
    check_same(ag * bg, a * b);  // wraps alike
    check_same(ag.floor_divide(bg), a.floor_divide(b));
    check_same(ag.bitwise_xor(bg), a.bitwise_xor(b));
    check_same(ag.abs(), a.abs());
  }
}

TEST_CASE("cuda reductions and compute-dtype families on bfloat16 match the CPU", "[cuda][dtype]") {
  for (ScalarType t : {kBFloat16, kHalf}) {
    INFO(t);
    const Tensor x = random_nonzero({6, 300}, kFloat).to(t), xg = x.to(kGpu);
    check_same(xg.sum(1), x.sum(1), tol16(t, 1));
    check_same(xg.mean(), x.mean(), tol16(t, 1));
    check_same(xg.amax(0), x.amax(0));
    // The softmax family reads 16-bit elements itself on CUDA (rows and columns).
    check_same(xg.softmax(1), x.softmax(1), tol16(t));
    check_same(xg.log_softmax(1), x.log_softmax(1), tol16(t));
    check_same(xg.softmax(0), x.softmax(0), tol16(t));
    check_same(logsumexp(xg, {1}), logsumexp(x, {1}), tol16(t));
    check_same(xg.cumsum(1), x.cumsum(1), tol16(t, 2));
    check_same(std::get<0>(xg.sort(1)), std::get<0>(x.sort(1)));
    check_same(xg.argmax(1), x.argmax(1));
    const Tensor img = random_nonzero({2, 3, 9, 9}, kFloat).to(t);
    namespace F = nn::functional;
    check_same(F::max_pool2d(img.to(kGpu), F::MaxPool2dFuncOptions(2)),
               F::max_pool2d(img, F::MaxPool2dFuncOptions(2)));
    check_same(F::layer_norm(img.to(kGpu), F::LayerNormFuncOptions({9})),
               F::layer_norm(img, F::LayerNormFuncOptions({9})), tol16(t, 1));
  }
  const Tensor i = randint(-50, 50, {4, 100}).to(kInt);
  check_same(i.to(kGpu).sum(1), i.sum(1));  // int64, as PyTorch
  check_same(std::get<0>(i.to(kGpu).sort(1)), std::get<0>(i.sort(1)));
}

TEST_CASE("cuda index ops on the 1- and 2-byte dtypes, scatter_add's atomics included",
          "[cuda][dtype]") {
  for (ScalarType t : {kByte, kChar, kShort, kHalf, kBFloat16}) {
    INFO(t);
    const Tensor self = randint(1, 9, {4, 64}).to(t);
    const Tensor index = randint(0, 64, {4, 256});
    const Tensor src = ones({4, 256}, t);
    // Many adds meet at each position: the compare-and-swap on the shared word must lose none.
    check_same(self.to(kGpu).scatter_add(1, index.to(kGpu), src.to(kGpu)), self.scatter_add(1, index, src));
    check_same(self.to(kGpu).gather(1, index.to(kGpu)), self.gather(1, index));
    check_same(self.to(kGpu).index_select(1, index[0].to(kGpu)), self.index_select(1, index[0]));
    check_same(self.to(kGpu).scatter_reduce(1, index.to(kGpu), src.to(kGpu) * 20, "amax"),
               self.scatter_reduce(1, index, src * 20, "amax"));
  }
}

TEST_CASE("cuda matmul and conv2d in bfloat16/float16 match the CPU (cuBLAS, cuDNN)", "[cuda][dtype]") {
  for (ScalarType t : {kBFloat16, kHalf}) {
    INFO(t);
    const Tensor a = random_nonzero({70, 129}, kFloat).to(t), b = random_nonzero({129, 33}, kFloat).to(t);
    check_same(a.to(kGpu).matmul(b.to(kGpu)), a.matmul(b), tol16(t, 3) * 12);
    const Tensor x = random_nonzero({2, 3, 10, 10}, kFloat).to(t), w = random_nonzero({5, 3, 3, 3}, kFloat).to(t);
    check_same(conv2d(x.to(kGpu), w.to(kGpu), {}, 1, 1), conv2d(x, w, {}, 1, 1), tol16(t, 3) * 6);
  }
}

TEST_CASE("cuda autocast: products in float16, losses and softmax in float32", "[cuda][dtype]") {
  const Tensor m = randn({8, 8}, TensorOptions().device(kGpu));
  autocast::AutocastGuard guard(kCUDA, kHalf);
  CHECK(mm(m, m).scalar_type() == kHalf);
  CHECK(conv2d(m.view({1, 1, 8, 8}), m.narrow(0, 0, 3).narrow(1, 0, 3).reshape({1, 1, 3, 3}))
            .scalar_type() == kHalf);
  CHECK(conv_transpose2d(m.view({1, 1, 8, 8}), ones({1, 1, 3, 3}, TensorOptions().device(kGpu)))
            .scalar_type() == kHalf);
  CHECK(mv(m, m[0]).scalar_type() == kHalf);
  CHECK(m.to(kHalf).softmax(1).scalar_type() == kFloat);
  CHECK(nn::functional::mse_loss(m.to(kHalf), m.to(kHalf)).scalar_type() == kFloat);
  CHECK(cat({m.to(kHalf), m}).scalar_type() == kFloat);
  // CUDA's promote list: mixed operands meet in the widest dtype.
  const Tensor h = m.to(kHalf);
  CHECK(addcmul(h, h, m).scalar_type() == kFloat);
  CHECK(addcdiv(h, m, h.abs() + 1).scalar_type() == kFloat);
  CHECK(dot(h[0], m[0]).scalar_type() == kFloat);
  const Tensor index = zeros({1, 8}, TensorOptions(kLong).device(kGpu));
  CHECK(h.scatter_add(0, index, m.narrow(0, 0, 1)).scalar_type() == kFloat);
  // einsum in float16; prod in float32 (both devices' float32 list); the CPU's float32 list
  // (linear algebra) is not CUDA's.
  CHECK(einsum("ij,jk->ik", {m, m}).scalar_type() == kHalf);
  CHECK(prod(h).scalar_type() == kFloat);
  CHECK(trace(h).scalar_type() == kHalf);
  // CUDA's float32 list: the pointwise functions no composite of ember calls, and pdist,
  // cosine_similarity; the promote list also atan2, tensordot, linalg_cross, grid_sample.
  for (const Tensor& y : {h.tan(), h.asin(), h.acos(), h.sinh(), h.cosh(), h.log2(), h.log10(),
                          h.erfinv(), pdist(h), nn::functional::cosine_similarity(h, h)})
    CHECK(y.scalar_type() == kFloat);
  CHECK(atan2(h, m).scalar_type() == kFloat);
  CHECK(tensordot(h, m, {1}, {0}).scalar_type() == kFloat);  // its products as called
  CHECK(linalg_cross(h.narrow(1, 0, 3), m.narrow(1, 0, 3)).scalar_type() == kFloat);
}

TEST_CASE("cuda NormalizePixels: uint8 batches scaled on the device as on the CPU", "[cuda][dtype]") {
  const Tensor pixels = randint(0, 256, {3, 3, 5, 7}).to(kByte);
  const data::NormalizePixels normalize({0.49, 0.48, 0.45}, {0.25, 0.24, 0.26});
  const Tensor got = normalize(pixels.to(kGpu));
  CHECK(got.device() == kGpu);
  // The same float32 multiply and add on both devices (an FMA on one side: an ulp).
  check_same(got, normalize(pixels), 1e-6);
  check_same(normalize(pixels.to(kGpu)), got);  // the device's factors, made once, reused
}
