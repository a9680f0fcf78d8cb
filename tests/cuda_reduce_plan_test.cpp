// The device-independent half of the CUDA reductions, checked on the CPU: the
// dims make_reduce_plan merges, the mode, block shape and two-pass split it
// picks, the index math the kernel walks (run here as the kernel would: every
// output, split and lane folding its elements, lanes then splits combined),
// and the row plan of the softmax kernels. With a device,
// tests/cuda/reduce_test.cpp checks the kernels against the CPU ops.
#include <catch2/catch.hpp>

#include <ember/core/ops/creation/factory.h>
#include <ember/core/ops/creation/random.h>
#include <ember/core/ops/shape/views.h>
#include <ember/kernels/common/reduce_functors.h>
#include <ember/kernels/common/cuda_plans/reduce_launch.h>
#include <ember/kernels/common/cuda_plans/reduce_plan.h>

#include <cmath>
#include <limits>
#include <vector>

#include "test_helpers.h"

using namespace ember;
using ember_test::require_values;
using ember_test::values;

namespace {

constexpr int kSms = 132;  // an H200

cuda::ReducePlan plan_of(const Tensor& x, IntArrayRef keep) {
  return cuda::make_reduce_plan("sum", x.sizes(), x.strides(), keep, kSms);
}

std::vector<int64_t> sizes_of(const cuda::ReduceDims& d) {
  return std::vector<int64_t>(d.sizes, d.sizes + d.ndim);
}
std::vector<int64_t> in_strides_of(const cuda::ReduceDims& d) {
  return std::vector<int64_t>(d.in_strides, d.in_strides + d.ndim);
}

// What the kernels compute, with the same plan and index math, on a float64
// CPU tensor: out (contiguous, keep shape) = Ops over x.
template <typename Acc, typename Ops, typename Write>
void reduce_as_the_kernels_do(const cuda::ReducePlan& p, const double* x, const Ops& ops,
                              const Write& write) {
  for (int64_t o = 0; o < p.num_outputs; ++o) {
    int64_t in_off, out_off;
    cuda::kept_offsets(p, o, in_off, out_off);
    Acc total = ops.identity();
    for (int64_t s = 0; s < p.splits; ++s) {
      const int64_t begin = s * p.split_size;
      const int64_t end = std::min(begin + p.split_size, p.reduce_count);
      Acc split = ops.identity();
      for (int lane = 0; lane < p.lanes; ++lane) {
        Acc acc = ops.identity();
        for (int64_t r = begin + lane; r < end; r += p.lanes) {
          const double v = x[in_off + cuda::reduced_offset(p, r)];
          if constexpr (requires { ops.step_at(acc, v, r); })
            acc = ops.step_at(acc, v, r);
          else
            acc = ops.step(acc, v);
        }
        split = ops.combine(split, acc);
      }
      total = ops.combine(total, split);
    }
    write(out_off, ops.project(total));
  }
}

// sum of x (float64 CPU, any strides) reduced to keep, as the kernels would.
Tensor kernel_sum(const Tensor& x, IntArrayRef keep) {
  const cuda::ReducePlan p = plan_of(x, keep);
  Tensor out = zeros(keep, kDouble);
  double* o = out.data_ptr<double>();
  reduce_as_the_kernels_do<double>(p, x.data_ptr<double>(),
                                   functors::SumOps<double, double, double>{},
                                   [&](int64_t off, double v) { o[off] = v; });
  return out;
}

// The same sum by a naive loop over keep's positions (x at most 3-d).
Tensor naive_sum(const Tensor& x, IntArrayRef keep) {
  DimVector x3(x.sizes()), k3(keep);
  while (x3.size() < 3) x3.insert(0, 1);
  while (k3.size() < 3) k3.insert(0, 1);
  const Tensor xc = x.contiguous();
  const double* src = xc.data_ptr<double>();
  Tensor out = zeros(k3, kDouble);
  double* dst = out.data_ptr<double>();
  for (int64_t i = 0; i < x3[0]; ++i)
    for (int64_t j = 0; j < x3[1]; ++j)
      for (int64_t k = 0; k < x3[2]; ++k) {
        const int64_t a = k3[0] == 1 ? 0 : i, b = k3[1] == 1 ? 0 : j, c = k3[2] == 1 ? 0 : k;
        dst[(a * k3[1] + b) * k3[2] + c] += src[(i * x3[1] + j) * x3[2] + k];
      }
  return out.view(keep);
}

void require_sum_matches(const Tensor& x, IntArrayRef keep) {
  const Tensor got = kernel_sum(x, keep), want = naive_sum(x, keep);
  REQUIRE(got.sizes() == want.sizes());
  require_values(got, values(want), 1e-12);
}

}  // namespace

TEST_CASE("cuda reduce plan: a full sum of a contiguous tensor is one inner-mode dim",
          "[cuda_reduce]") {
  const Tensor x = randn({4, 5}, kDouble);
  const cuda::ReducePlan p = plan_of(x, {1, 1});
  REQUIRE(p.kept.ndim == 0);
  REQUIRE(sizes_of(p.reduced) == std::vector<int64_t>{20});
  REQUIRE(in_strides_of(p.reduced) == std::vector<int64_t>{1});
  REQUIRE(p.inner_mode);
  REQUIRE(p.num_outputs == 1);
  REQUIRE(p.reduce_count == 20);
  REQUIRE(p.lanes == 32);  // a warp for a short reduction
  REQUIRE(p.slots == 8);
  REQUIRE(p.blocks == 1);
  REQUIRE_FALSE(p.two_pass());
  require_sum_matches(x, {1, 1});
}

TEST_CASE("cuda reduce plan: a last-dim sum is inner mode, lanes growing with the row",
          "[cuda_reduce]") {
  const Tensor x = randn({3, 1000}, kDouble);
  const cuda::ReducePlan p = plan_of(x, {3, 1});
  REQUIRE(p.inner_mode);
  REQUIRE(sizes_of(p.kept) == std::vector<int64_t>{3});
  REQUIRE(in_strides_of(p.kept) == std::vector<int64_t>{1000});
  REQUIRE(p.kept.out_strides[0] == 1);
  REQUIRE(p.lanes == 64);  // the first power of 2 from 32 with lanes * 16 >= 1000
  REQUIRE(p.slots == 4);
  REQUIRE(p.lanes * p.slots == cuda::kReduceThreads);
  REQUIRE_FALSE(p.two_pass());  // 1000 elements do not need a second pass
  require_sum_matches(x, {3, 1});
}

TEST_CASE("cuda reduce plan: a first-dim sum is outer mode, neighbouring outputs per warp",
          "[cuda_reduce]") {
  const Tensor x = randn({1000, 3}, kDouble);
  const cuda::ReducePlan p = plan_of(x, {1, 3});
  REQUIRE_FALSE(p.inner_mode);
  REQUIRE(sizes_of(p.kept) == std::vector<int64_t>{3});
  REQUIRE(in_strides_of(p.kept) == std::vector<int64_t>{1});
  REQUIRE(sizes_of(p.reduced) == std::vector<int64_t>{1000});
  REQUIRE(in_strides_of(p.reduced) == std::vector<int64_t>{3});
  REQUIRE(p.slots == 4);   // 3 outputs, rounded up to a power of 2
  REQUIRE(p.lanes == 64);  // the reduction shared by lanes along threadIdx.y
  REQUIRE(p.lanes * p.slots <= cuda::kReduceThreads);
  require_sum_matches(x, {1, 3});

  const Tensor wide = randn({40, 300}, kDouble);  // many outputs: a block of them
  const cuda::ReducePlan q = plan_of(wide, {1, 300});
  REQUIRE_FALSE(q.inner_mode);
  REQUIRE(q.lanes * q.slots == cuda::kReduceThreads);
  REQUIRE(q.slots >= 32);
  require_sum_matches(wide, {1, 300});
}

TEST_CASE("cuda reduce plan: a short last-dim sum gets one thread per output",
          "[cuda_reduce]") {
  const Tensor x = randn({1000, 4}, kDouble);
  const cuda::ReducePlan p = plan_of(x, {1000, 1});
  REQUIRE_FALSE(p.inner_mode);
  REQUIRE(p.lanes == 1);
  REQUIRE(p.slots == cuda::kReduceThreads);
  REQUIRE(p.blocks == 4);
  require_sum_matches(x, {1000, 1});
  REQUIRE(plan_of(randn({1000, 17}, kDouble), {1000, 1}).inner_mode);  // a warp per row again
}

TEST_CASE("cuda reduce plan: transposed, sliced and expanded inputs reduce by their strides",
          "[cuda_reduce]") {
  const Tensor t = randn({5, 7}, kDouble).t();  // (7, 5), strides (1, 7)
  const cuda::ReducePlan p = plan_of(t, {7, 1});
  REQUIRE_FALSE(p.inner_mode);  // the kept dim is the fast one
  require_sum_matches(t, {7, 1});
  require_sum_matches(t, {1, 5});
  require_sum_matches(t, {1, 1});

  const Tensor sliced = randn({6, 20}, kDouble).slice(1, 1, 20, 3);  // (6, 7), strides (20, 3)
  require_sum_matches(sliced, {6, 1});
  require_sum_matches(sliced, {1, 7});
  require_sum_matches(sliced, {1, 1});

  const Tensor expanded = randn({1, 5}, kDouble).expand({4, 5});  // strides (0, 1)
  const cuda::ReducePlan e = plan_of(expanded, {1, 5});
  REQUIRE(in_strides_of(e.reduced) == std::vector<int64_t>{0});
  REQUIRE_FALSE(e.inner_mode);
  require_sum_matches(expanded.contiguous(), {1, 5});
  Tensor got = kernel_sum(expanded, {1, 5});
  require_values(got.view({5}), values(naive_sum(expanded.contiguous(), {1, 5})), 1e-12);
}

TEST_CASE("cuda reduce plan: neighbouring dims of one kind merge, interleaved ones do not",
          "[cuda_reduce]") {
  const Tensor x = randn({2, 3, 4}, kDouble);
  const cuda::ReducePlan p = plan_of(x, {2, 1, 1});
  REQUIRE(sizes_of(p.reduced) == std::vector<int64_t>{12});
  require_sum_matches(x, {2, 1, 1});

  const Tensor y = randn({4, 3, 8}, kDouble);
  const cuda::ReducePlan q = plan_of(y, {1, 3, 1});
  REQUIRE(sizes_of(q.reduced) == std::vector<int64_t>{8, 4});
  REQUIRE(in_strides_of(q.reduced) == std::vector<int64_t>{1, 24});
  REQUIRE(sizes_of(q.kept) == std::vector<int64_t>{3});
  REQUIRE(q.inner_mode);
  require_sum_matches(y, {1, 3, 1});
  require_sum_matches(x, {1, 3, 1});
  require_sum_matches(x, {2, 3, 1});
  require_sum_matches(x, {2, 1, 4});
  require_sum_matches(x, {2, 3, 4});  // nothing reduced
  require_sum_matches(x.permute({2, 0, 1}), {4, 1, 3});
}

TEST_CASE("cuda reduce plan: a long reduction to few outputs runs in two passes",
          "[cuda_reduce]") {
  const int64_t n = (int64_t(1) << 24) + 3;
  const Tensor x = empty({n}, kDouble);
  const cuda::ReducePlan p = plan_of(x, {1});
  REQUIRE(p.inner_mode);
  REQUIRE(p.lanes == cuda::kReduceThreads);
  REQUIRE(p.two_pass());
  REQUIRE(p.splits == 528);  // 4 blocks per multiprocessor
  REQUIRE(p.split_size * p.splits >= n);
  REQUIRE(p.split_size * (p.splits - 1) < n);  // no empty split

  const Tensor small = randn({5000, 4}, kDouble);  // outer mode, 4 outputs of 5000
  const cuda::ReducePlan q = plan_of(small, {1, 4});
  REQUIRE_FALSE(q.inner_mode);
  REQUIRE(q.two_pass());
  REQUIRE(q.splits <= cuda::kMaxReduceSplits);
  require_sum_matches(small, {1, 4});
  const Tensor row = randn({1, 100000}, kDouble);
  REQUIRE(plan_of(row, {1, 1}).two_pass());
  require_sum_matches(row, {1, 1});
}

TEST_CASE("cuda reduce plan: empty reductions and empty outputs", "[cuda_reduce]") {
  const cuda::ReducePlan p = plan_of(empty({0, 4}, kDouble), {1, 4});
  REQUIRE(p.num_outputs == 4);
  REQUIRE(p.reduce_count == 0);  // each output is the identity
  REQUIRE_FALSE(p.two_pass());
  const Tensor got = kernel_sum(empty({0, 4}, kDouble), {1, 4});
  require_values(got.view({4}), {0.0, 0.0, 0.0, 0.0});
  REQUIRE(plan_of(empty({4, 0}, kDouble), {1, 0}).num_outputs == 0);
}

TEST_CASE("cuda reduce plan: more than 8 dims of a kind after merging is an error",
          "[cuda_reduce]") {
  const Tensor x = empty(DimVector(18, 2), kDouble);
  DimVector keep(18, 2);
  for (size_t d = 0; d < keep.size(); d += 2) keep[d] = 1;  // 9 reduced dims, none merge
  REQUIRE_THROWS_WITH(plan_of(x, keep), Catch::Contains("sum: a CUDA reduction supports at most 8"));
  REQUIRE_FALSE(cuda::try_make_reduce_plan("sum", x.sizes(), x.strides(), keep, kSms));
  // plan_reduce (kernels/common/cuda_plans/reduce_launch.cpp) then reduces a copy with the
  // reduced dims last: one dim of each kind.
  const cuda::ReduceLaunch l = cuda::plan_reduce("sum", x, keep, kSms);
  REQUIRE(l.input.data_ptr() != x.data_ptr());
  REQUIRE(l.input.is_contiguous());
  const cuda::ReducePlan& p = l.plan;
  REQUIRE(p.kept.ndim == 1);
  REQUIRE(p.reduced.ndim == 1);
  REQUIRE(p.num_outputs == 512);
  REQUIRE(p.reduce_count == 512);
}

TEST_CASE("cuda reduce plan: plan_reduce reads the input itself when its dims merge, and "
          "allocates the workspace of a two-pass plan",
          "[cuda_reduce]") {
  const Tensor small = empty({4, 3}, kDouble);
  const cuda::ReduceLaunch one_pass = cuda::plan_reduce("sum", small, {4, 1}, kSms);
  REQUIRE(one_pass.input.data_ptr() == small.data_ptr());
  REQUIRE_FALSE(one_pass.plan.two_pass());
  REQUIRE_FALSE(one_pass.workspace.defined());
  const Tensor long_line = empty({1 << 22}, kFloat);
  const cuda::ReduceLaunch two_pass = cuda::plan_reduce("sum", long_line, {1}, kSms);
  REQUIRE(two_pass.plan.two_pass());
  REQUIRE(two_pass.workspace.numel() ==
          two_pass.plan.splits * two_pass.plan.num_outputs * cuda::kReduceWorkspaceBytes);
}

TEST_CASE("cuda reduce plan: clip_grad_norm_'s float64 sums of |x|^p and max |x|",
          "[cuda_reduce]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = tensor({-3.0, 1.0, 2.0, -0.5}, TensorOptions(kDouble)).view({2, 2}).t();
  auto run = [&](const auto& ops) {
    double got = -1;
    reduce_as_the_kernels_do<double>(plan_of(x, {1, 1}), x.data_ptr<double>(), ops,
                                     [&](int64_t, double v) { got = v; });
    return got;
  };
  REQUIRE(run(functors::SquareSumOps<double, double, double>{}) == 9 + 1 + 4 + 0.25);
  REQUIRE(run(functors::Norm1Ops<double, double, double>{}) == 3 + 1 + 2 + 0.5);
  REQUIRE(run(functors::AbsPowSumOps<double, double, double>{{}, 3.0}) ==
          Approx(27 + 1 + 8 + 0.125).epsilon(1e-15));
  REQUIRE(run(functors::AbsMaxOps<double, double>{}) == 3);
  const functors::AbsMaxOps<double, double> abs_max;
  REQUIRE(abs_max.identity() == 0);  // an empty gradient's inf norm
  REQUIRE(std::isnan(abs_max.combine(abs_max.step(0, nan), 5.0)));  // NaN sticks
  REQUIRE(std::isnan(abs_max.combine(7.0, abs_max.step(0, nan))));
}

TEST_CASE("cuda reduce plan: arg folding keeps the first of equal values and the first NaN",
          "[cuda_reduce]") {
  using Ops = functors::ArgFoldOps<double, functors::ArgMaxOps<double>>;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Long enough for lanes and splits: ties at 7, 3000 and 90000; a NaN row.
  Tensor x = zeros({2, 100000}, kDouble);
  double* d = x.data_ptr<double>();
  d[7] = d[3000] = d[90000] = 5;
  d[100000 + 500] = nan;
  d[100000 + 40000] = nan;
  d[100000 + 10] = 9;
  const cuda::ReducePlan p = plan_of(x, {2, 1});
  REQUIRE(p.two_pass());
  std::vector<int64_t> index(2, -1);
  std::vector<double> value(2);
  reduce_as_the_kernels_do<functors::ArgAcc<double>>(
      p, d, Ops{}, [&](int64_t off, functors::ArgAcc<double> a) {
        value[off] = a.value;
        index[off] = a.index;
      });
  REQUIRE(index[0] == 7);
  REQUIRE(value[0] == 5);
  REQUIRE(index[1] == 500);
  REQUIRE(std::isnan(value[1]));
  // Along dim 0 (outer mode): column 7's tie between rows keeps row 0.
  Tensor y = zeros({3, 9}, kDouble);
  y.data_ptr<double>()[7] = y.data_ptr<double>()[9 + 7] = 1;
  const cuda::ReducePlan q = plan_of(y, {1, 9});
  std::vector<int64_t> cols(9, -1);
  reduce_as_the_kernels_do<functors::ArgAcc<double>>(
      q, y.data_ptr<double>(), Ops{},
      [&](int64_t off, functors::ArgAcc<double> a) { cols[off] = a.index; });
  REQUIRE(cols == std::vector<int64_t>(9, 0));
}

TEST_CASE("cuda reduce plan: rows get a warp when short, the block when long",
          "[cuda_reduce]") {
  const cuda::RowPlan s = cuda::make_row_plan(10, 100);
  REQUIRE(s.lanes == 32);
  REQUIRE(s.slots == 8);
  REQUIRE(s.blocks == 2);
  const cuda::RowPlan l = cuda::make_row_plan(10, 5000);
  REQUIRE(l.lanes == 256);
  REQUIRE(l.slots == 1);
  REQUIRE(l.blocks == 10);
  REQUIRE(cuda::make_row_plan(0, 5).blocks == 0);
}

TEST_CASE("cuda reduce plan: softmax runs by columns only with many lines along a wide dim",
          "[cuda_reduce]") {
  REQUIRE(cuda::softmax_by_columns(16, 1024));      // (16, n, 1024): 16384 lines
  REQUIRE_FALSE(cuda::softmax_by_columns(1, 5000)); // too few lines: transposed to rows
  REQUIRE_FALSE(cuda::softmax_by_columns(100000, 6));  // a narrow inner dim: rows
  REQUIRE_FALSE(cuda::softmax_by_columns(1000, 1));    // innermost already
}
