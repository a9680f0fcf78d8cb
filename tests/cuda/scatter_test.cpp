// scatter, scatter_reduce, index_add / index_copy / index_fill, take and
// index_put on CUDA tensors against the same ops on the CPU, on random data
// with odd sizes, forward and backward. Where the result depends on which
// write lands (scatter, index_copy, index_put without accumulate), the
// indices are distinct. Tolerances: plain writes, prod/amax/amin of distinct
// positions and integer sums are exact up to float rounding order; sums by
// atomicAdd land in no fixed order: float32 within 1e-5 relative, float64 1e-12.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace ember::indexing;
using namespace cuda_test;

namespace {

// Per column, `rows` distinct values in [0, n): a duplicate-free scatter index along dim 0.
Tensor distinct_rows(int64_t rows, int64_t cols, int64_t n) {
  std::vector<Tensor> columns;
  for (int64_t j = 0; j < cols; ++j)
    columns.push_back(randperm(n).narrow(0, 0, rows).view({rows, 1}));
  return cat(columns, 1);
}

const std::vector<ScalarType> kNumeric = {kLong, kFloat, kDouble};

}  // namespace

TEST_CASE("cuda scatter: src and value forms match the CPU on every dtype, with a transposed "
          "self", "[cuda][cuda_scatter]") {
  manual_seed(21);
  for (ScalarType t : {kBool, kLong, kFloat, kDouble}) {
    for (int64_t n : {1, 33, 1025}) {
      INFO(t << ", rows " << n);
      const Tensor self = random_nonzero({n, 7}, t);
      const Tensor src = random_nonzero({n, 9}, t);
      const Tensor index = distinct_rows(std::min<int64_t>(n, 5), 7, n);
      check_same(self.to(kGpu).scatter(0, index.to(kGpu), src.to(kGpu)),
                 self.scatter(0, index, src));
      check_same(self.to(kGpu).scatter(0, index.to(kGpu), 1), self.scatter(0, index, 1));
      const Tensor st = random_nonzero({7, n}, t).to(kGpu).t();  // (n, 7) transposed on the device
      Tensor a = st.clone(), b = st.cpu();
      a.t().scatter_(1, index.t().to(kGpu), src.narrow(1, 0, 7).t().contiguous().to(kGpu));
      b.t().scatter_(1, index.t(), src.narrow(1, 0, 7).t().contiguous());
      check_same(a, b);
    }
  }
}

TEST_CASE("cuda scatter_reduce: every reduce, with and without self, repeated indices",
          "[cuda][cuda_scatter]") {
  manual_seed(22);
  for (ScalarType t : kNumeric) {
    const Tensor self = random_nonzero({5, 37}, t, /*positive=*/true);
    const Tensor src = random_nonzero({40, 37}, t, /*positive=*/true);
    const Tensor index = randint(0, 4, {40, 37});  // repeats; row 4 gets nothing
    for (bool include_self : {true, false}) {
      for (std::string reduce : {"sum", "prod", "mean", "amax", "amin"}) {
        INFO(t << ", " << reduce << ", include_self " << include_self);
        // prod of up to ~15 values of 0.1..3: float32 rounding order differs.
        const double tol = reduce == "amax" || reduce == "amin" ? 0 : tolerance(t, 1e-5);
        const Tensor s = reduce == "prod" ? (self * 0 + 1) : self;  // keep int64 prods small
        check_same(s.to(kGpu).scatter_reduce(0, index.to(kGpu), src.to(kGpu), reduce,
                                             include_self),
                   s.scatter_reduce(0, index, src, reduce, include_self), tol);
      }
    }
  }
}

TEST_CASE("cuda index_add, index_copy, index_fill and take match the CPU", "[cuda][cuda_scatter]") {
  manual_seed(23);
  for (ScalarType t : kNumeric) {
    INFO(t);
    const Tensor self = random_nonzero({31, 6}, t);
    const Tensor source = random_nonzero({31, 40}, t);
    const Tensor repeated = randint(0, 6, {40});
    const Tensor distinct = randperm(6).narrow(0, 0, 4);
    const Tensor g = self.to(kGpu);
    check_same(g.index_add(1, repeated.to(kGpu), source.to(kGpu), 2),
               self.index_add(1, repeated, source, 2), tolerance(t, 1e-5));
    check_same(g.index_copy(1, distinct.to(kGpu), source.narrow(1, 0, 4).to(kGpu)),
               self.index_copy(1, distinct, source.narrow(1, 0, 4)));
    check_same(g.index_fill(1, repeated.to(kGpu), 3), self.index_fill(1, repeated, 3));
    check_same(g.index_fill(0, repeated.to(kGpu), tensor(4, t).to(kGpu)),
               self.index_fill(0, repeated, tensor(4, t)));
    const Tensor flat = randint(-186, 186, {5, 9});
    check_same(g.take(flat.to(kGpu)), self.take(flat));
  }
}

TEST_CASE("cuda index_put(_): int64 indices, masks, accumulate, against the CPU",
          "[cuda][cuda_scatter]") {
  manual_seed(24);
  for (ScalarType t : kNumeric) {
    INFO(t);
    const Tensor x = random_nonzero({6, 5, 7}, t);
    const Tensor i0 = randperm(6).narrow(0, 0, 3), i2 = randperm(7).narrow(0, 0, 3);
    const Tensor vals = random_nonzero({5}, t);
    check_same(x.to(kGpu).index_put({i0.to(kGpu), Slice(), i2.to(kGpu)}, vals.to(kGpu)),
               x.index_put({i0, Slice(), i2}, vals));
    const Tensor rep = randint(0, 5, {50});
    const Tensor rvals = random_nonzero({6, 50, 1}, t);
    Tensor a = x.to(kGpu), b = x.clone();
    a.index_put_({Slice(), rep.to(kGpu)}, rvals.to(kGpu), /*accumulate=*/true);
    b.index_put_({Slice(), rep}, rvals, true);
    check_same(a, b, tolerance(t, 1e-5));
    const Tensor mask = randn({6, 5}) > 0;
    const Tensor mvals = random_nonzero({mask.sum().item<int64_t>(), 7}, t);
    check_same(x.to(kGpu).index_put({mask.to(kGpu)}, mvals.to(kGpu)), x.index_put({mask}, mvals));
  }
}

TEST_CASE("cuda scatter family gradients match the CPU's", "[cuda][cuda_scatter]") {
  manual_seed(25);
  const Tensor self = randn({9, 6}, kDouble), src = randn({12, 6}, kDouble);
  const Tensor w = randn({9, 6}, kDouble);
  const Tensor index = randint(0, 9, {12, 6}), distinct = distinct_rows(5, 6, 9);
  auto grads = [&](Device d, auto op) {
    const Tensor s = self.to(d).detach().requires_grad_(), v = src.to(d).detach().requires_grad_();
    (op(s, v) * w.to(d)).sum().backward();
    return std::make_pair(s.grad().cpu(), v.grad().cpu());
  };
  auto compare = [&](auto op) {
    const auto [gs, gv] = grads(kGpu, op);
    const auto [cs, cv] = grads(Device(kCPU), op);
    check_same(gs, cs, 1e-12);
    check_same(gv, cv, 1e-12);
  };
  compare([&](const Tensor& s, const Tensor& v) {
    return s.scatter(0, distinct.to(s.device()), v);
  });
  for (std::string reduce : {"sum", "mean", "amax", "amin"})
    for (bool include_self : {true, false}) {
      INFO(reduce << ", include_self " << include_self);
      compare([&](const Tensor& s, const Tensor& v) {
        return s.scatter_reduce(0, index.to(s.device()), v, reduce, include_self);
      });
    }
  compare([&](const Tensor& s, const Tensor& v) {
    return s.index_put({index.select(1, 0).to(s.device())}, v.narrow(0, 0, 1), true);
  });
}

TEST_CASE("cuda scatter and index_add report a bad index asynchronously, naming the op",
          "[cuda][cuda_scatter]") {
  cuda::check_index_errors();  // nothing pending from earlier tests
  const Tensor x = zeros({3, 4}, kGpu);
  (void)x.scatter(1, tensor({{0, 4}}).to(kGpu), 1.0);
  REQUIRE_THROWS_WITH(cuda::check_index_errors(),
                      Catch::Contains("scatter: index 4 is out of bounds for dimension 1 with "
                                      "size 4"));
  (void)x.scatter_reduce(0, tensor({{5, 0, 0, 0}}).to(kGpu), ones({1, 4}, kGpu), "amax");
  REQUIRE_THROWS_WITH(cuda::check_index_errors(),
                      Catch::Contains("index 5 is out of bounds for dimension 0 with size 3"));
  REQUIRE_NOTHROW(cuda::check_index_errors());
}
