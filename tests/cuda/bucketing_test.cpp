// searchsorted, bucketize, bincount and histc on CUDA
// (kernels/cuda/bucketing_kernels.cu) against the CPU: random data with ties
// and NaN, 1-d and row-wise sequences, sorters, odd and empty sizes.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

TEST_CASE("cuda searchsorted and bucketize match the CPU", "[cuda][cuda_bucketing]") {
  manual_seed(83);
  for (ScalarType t : {kLong, kFloat, kDouble})
    for (int64_t n : {0, 1, 7, 1000})
      for (bool right : {false, true}) {
        INFO(t << ", n " << n << ", right " << right);
        const Tensor seq = std::get<0>(sort(randint(0, 50, {n}).to(t)));  // ties
        Tensor vals = randint(-5, 55, {33, 5}).to(t);
        if (t != kLong) vals = masked_fill(vals, rand({33, 5}) < 0.1, std::numeric_limits<double>::quiet_NaN());
        check_same(searchsorted(seq.to(kGpu), vals.to(kGpu), false, right), searchsorted(seq, vals, false, right));
        check_same(bucketize(vals.to(kGpu).t(), seq.to(kGpu), false, right), bucketize(vals.t(), seq, false, right));
        // Row-wise sequences with a sorter over unsorted rows.
        const Tensor rows = randint(0, 50, {33, n + 1}).to(t);
        const Tensor order = argsort(rows);
        check_same(searchsorted(rows.to(kGpu), vals.to(kGpu), false, right, std::nullopt, order.to(kGpu)),
                   searchsorted(rows, vals, false, right, std::nullopt, order));
      }
}

TEST_CASE("cuda bincount and histc match the CPU", "[cuda][cuda_bucketing]") {
  manual_seed(89);
  for (int64_t count : {0, 1, 257, 100000}) {
    INFO("count " << count);
    const Tensor x = randint(0, 37, {count});
    check_same(bincount(x.to(kGpu), std::nullopt, 5), bincount(x, std::nullopt, 5));
    for (ScalarType t : {kFloat, kDouble}) {
      const Tensor w = rand({count}, t);
      const Tensor got = bincount(x.to(kGpu), w.to(kGpu)), want = bincount(x, w);
      check_each(got, want, [](double g, double c) { return close_to(g, c, 1e-4); });
      const Tensor data = randn({count}, t);
      check_same(histc(data.to(kGpu), 13, -2, 2), histc(data, 13, -2, 2));
      check_same(histc(data.to(kGpu), 7), histc(data, 7));
    }
  }
}
