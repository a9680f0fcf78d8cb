// The CUDA indexing ops (kernels/cuda/indexing*.{h,cpp,cu}) against the same
// ops on CPU tensors: gather, index_select, embedding, scatter_add(_),
// masked_fill, one_hot, forward and backward, on sizes 0, 1, 31, 1025 and one
// past 65535 * 256 elements (the grid-stride loop), on transposed and sliced
// inputs and indices, with repeated indices. Tolerances: gather, index_select,
// masked_fill and one_hot move values, so all dtypes are exact; scatter_add
// (and the backward passes built on it) adds with atomics in no fixed order:
// float32 within 1e-5 relative, float64 within 1e-12, int64 exact. Bad
// indices are reported asynchronously, once per report, with the fields of
// one bad thread (Note [Index error report] in kernels/cuda/indexing.cpp).
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

double add_tolerance(ScalarType t) { return t == kFloat ? 1e-5 : t == kDouble ? 1e-12 : 0; }

// Random non-zero CPU values of dtype t (bool: random signs).
Tensor random_values(IntArrayRef shape, ScalarType t) {
  const Tensor r = randn(shape, kDouble);
  if (t == kBool) return r > 0;
  if (t == kLong) return (r * 100).to(kLong) + 1000;
  return (r.abs() + 0.1).to(t);
}

const std::vector<ScalarType> kAll = {kBool, kLong, kFloat, kDouble};
const std::vector<ScalarType> kNumeric = {kLong, kFloat, kDouble};
const std::vector<int64_t> kRows = {0, 1, 31, 1025};

}  // namespace

TEST_CASE("cuda index: gather matches the CPU for every dtype, size and dim, on transposed and "
          "sliced inputs and indices", "[cuda][cuda_index]") {
  for (ScalarType t : kAll) {
    for (int64_t n : kRows) {
      INFO(t << ", rows " << n);
      const Tensor x = random_values({n, 7}, t);
      const Tensor i1 = randint(0, 7, {n, 5});  // along dim 1
      check_same(x.to(kGpu).gather(1, i1.to(kGpu)), x.gather(1, i1), 0);
      const Tensor i0 = randint(0, std::max<int64_t>(n, 1), {std::min<int64_t>(n, 3), 7});
      if (n > 0) check_same(x.to(kGpu).gather(0, i0.to(kGpu)), x.gather(0, i0), 0);
    }
    INFO(t << ", transposed self, transposed and sliced index");
    const Tensor xt = random_values({9, 31}, t).t();                 // (31, 9)
    const Tensor it = randint(0, 9, {6, 31}).t();                    // (31, 6)
    const Tensor is = randint(0, 9, {31, 12}).slice(1, 0, 12, 2);    // (31, 6)
    check_same(xt.to(kGpu).gather(1, it.to(kGpu)), xt.gather(1, it), 0);
    check_same(xt.to(kGpu).gather(1, is.to(kGpu)), xt.gather(1, is), 0);
    // Views on the device (not copies made contiguous by to()).
    const Tensor xg = random_values({9, 31}, t).to(kGpu);
    const Tensor ig = randint(0, 9, {6, 31}).to(kGpu);
    check_same(xg.t().gather(1, ig.t()), xg.cpu().t().gather(1, ig.cpu().t()), 0);
  }
}

TEST_CASE("cuda index: gather over more than 65535 * 256 positions (grid-stride loop)",
          "[cuda][cuda_index]") {
  const int64_t n = 65535LL * 256 + 1000;
  const Tensor x = randn({1000}, kFloat);
  const Tensor index = randint(0, 1000, {n});
  check_same(x.to(kGpu).gather(0, index.to(kGpu)), x.gather(0, index), 0);
}

TEST_CASE("cuda index: index_select and embedding match the CPU, with repeated and sliced "
          "indices and 0-d inputs", "[cuda][cuda_index]") {
  for (ScalarType t : kAll) {
    for (int64_t n : kRows) {
      INFO(t << ", rows " << n);
      const Tensor x = random_values({n, 33}, t);
      const Tensor cols = randint(0, 33, {40});  // repeats certain
      check_same(x.to(kGpu).index_select(1, cols.to(kGpu)), x.index_select(1, cols), 0);
      if (n > 0) {
        const Tensor rows = randint(0, n, {2 * n}).slice(0, 0, 2 * n, 2);  // sliced
        const Tensor rg = randint(0, n, {2 * n}).to(kGpu).slice(0, 0, 2 * n, 2);
        check_same(x.to(kGpu).index_select(0, rows.to(kGpu)), x.index_select(0, rows), 0);
        check_same(x.to(kGpu).index_select(0, rg), x.index_select(0, rg.cpu()), 0);
      }
    }
    const Tensor s = random_values({}, t), zero = zeros({}, kLong);
    check_same(s.to(kGpu).index_select(0, zero.to(kGpu)), s.index_select(0, zero), 0);
  }
  const Tensor w = randn({50, 16}, kFloat), ids = randint(0, 50, {4, 9});
  check_same(embedding(w.to(kGpu), ids.to(kGpu)), embedding(w, ids), 0);
  check_same(embedding(w.to(kGpu).t().contiguous().t(), ids.to(kGpu).t()),
             embedding(w, ids.t()), 0);
}

TEST_CASE("cuda index: scatter_add accumulates repeated indices with atomics as the CPU sums "
          "them", "[cuda][cuda_index]") {
  for (ScalarType t : kNumeric) {
    for (int64_t n : kRows) {
      INFO(t << ", rows " << n);
      const Tensor self = random_values({n, 6}, t);
      const Tensor index = randint(0, 6, {n, 20});  // ~3 adds per target
      const Tensor src = random_values({n, 25}, t);  // larger than index
      check_same(self.to(kGpu).scatter_add(1, index.to(kGpu), src.to(kGpu)),
                 self.scatter_add(1, index, src), add_tolerance(t));
    }
    INFO(t << ": many adds to one element, transposed src and index");
    const Tensor one = zeros({1}, t), all_zero = zeros({1 << 16}, kLong);
    const Tensor src = random_values({1 << 16}, t);
    check_same(one.to(kGpu).scatter_add(0, all_zero.to(kGpu), src.to(kGpu)),
               one.scatter_add(0, all_zero, src), add_tolerance(t) * 10);
    const Tensor st = random_values({8, 31}, t).t(), it = randint(0, 31, {8, 31}).t();
    const Tensor base = random_values({31, 8}, t);
    check_same(base.to(kGpu).scatter_add(0, it.to(kGpu), st.to(kGpu)),
               base.scatter_add(0, it, st), add_tolerance(t));
  }
}

TEST_CASE("cuda index: scatter_add_ writes in place on the device and bumps the version",
          "[cuda][cuda_index]") {
  const Tensor self0 = randn({5, 4}, kDouble), src = randn({5, 4}, kDouble);
  const Tensor index = randint(0, 5, {5, 4});
  Tensor self = self0.to(kGpu);
  const auto v = self._version();
  self.scatter_add_(0, index.to(kGpu), src.to(kGpu));
  CHECK(self._version() == v + 1);
  check_same(self, self0.scatter_add(0, index, src), 1e-12);
}

TEST_CASE("cuda index: gradients of gather, index_select, embedding and scatter_add equal the "
          "CPU gradients (repeated indices accumulate) and live on CUDA", "[cuda][cuda_index]") {
  const Tensor x0 = randn({31, 7}, kDouble);
  const Tensor gi = randint(0, 7, {31, 12});     // repeats in every row
  const Tensor si = randint(0, 31, {50});        // repeats
  const Tensor src0 = randn({31, 12}, kDouble);
  auto run = [&](Device d, int which) {
    const Tensor x = x0.to(d).detach().requires_grad_();
    const Tensor src = src0.to(d).detach().requires_grad_();
    Tensor y;
    if (which == 0) y = x.gather(1, gi.to(d));
    if (which == 1) y = x.index_select(0, si.to(d));
    if (which == 2) y = embedding(x, si.to(d).view({5, 10}));
    if (which == 3) y = x.scatter_add(1, gi.to(d), src);
    y.backward(randn(y.sizes(), kDouble).to(d));
    return std::vector<Tensor>{x.grad(), which == 3 ? src.grad() : Tensor()};
  };
  for (int which = 0; which < 4; ++which) {
    INFO("op " << which);
    manual_seed(5);
    const auto cpu = run(Device(kCPU), which);
    manual_seed(5);
    const auto gpu = run(kGpu, which);
    REQUIRE(gpu[0].device() == kGpu);
    check_same(gpu[0], cpu[0], 1e-12);
    if (which == 3) check_same(gpu[1], cpu[1], 1e-12);
  }
}

TEST_CASE("cuda index: masked_fill matches the CPU on broadcast masks and transposed inputs; "
          "its gradient is zero where filled", "[cuda][cuda_index]") {
  for (ScalarType t : kAll) {
    for (int64_t n : kRows) {
      INFO(t << ", rows " << n);
      const Tensor x = random_values({n, 33}, t), mask = randn({n, 33}) > 0;
      const Tensor row_mask = randn({33}) > 0;  // broadcast over rows
      check_same(x.to(kGpu).masked_fill(mask.to(kGpu), 1), x.masked_fill(mask, 1), 0);
      check_same(x.to(kGpu).masked_fill(row_mask.to(kGpu), 0), x.masked_fill(row_mask, 0), 0);
    }
    const Tensor xt = random_values({33, 31}, t).to(kGpu).t(), mt = randn({31, 33}) > 0;
    check_same(xt.masked_fill(mt.to(kGpu), 1), xt.cpu().masked_fill(mt, 1), 0);
  }
  const Tensor x0 = randn({31, 5}, kDouble), mask = randn({31, 5}) > 0, g = randn({31, 5}, kDouble);
  const Tensor x = x0.to(kGpu).requires_grad_();
  x.masked_fill(mask.to(kGpu), 2.5).backward(g.to(kGpu));
  check_same(x.grad(), g.masked_fill(mask, 0), 0);
}

TEST_CASE("cuda index: one_hot matches the CPU with a given and an inferred class count",
          "[cuda][cuda_index]") {
  for (int64_t n : {0, 1, 31, 1025}) {
    INFO("n " << n);
    const Tensor v = randint(0, 10, {n});
    check_same(one_hot(v.to(kGpu), 12), one_hot(v, 12), 0);
    if (n > 0) check_same(one_hot(v.to(kGpu)), one_hot(v), 0);
  }
  const Tensor v2 = randint(0, 4, {3, 5}).t();
  check_same(one_hot(v2.to(kGpu), 4), one_hot(v2, 4), 0);
  // A strided 1-d view on the device, which the kernel reads in place.
  const Tensor v3 = randint(0, 4, {9});
  check_same(one_hot(v3.to(kGpu).slice(0, 0, 9, 2), 4), one_hot(v3.slice(0, 0, 9, 2), 4), 0);
}

TEST_CASE("cuda index: an out-of-range index is reported by the next indexing call or "
          "check_index_errors, naming the op, value and range; the device stays usable",
          "[cuda][cuda_index]") {
  cuda::check_index_errors();  // nothing pending from earlier tests
  const Tensor x = randn({4, 5}, kFloat).to(kGpu);
  const Tensor bad = tensor({{0, 7}}, kLong).to(kGpu);
  const Tensor out = x.gather(1, bad);  // launches; the kernel writes 0 at the bad position
  REQUIRE_THROWS_WITH(cuda::check_index_errors(),
                      Catch::Contains("gather: index 7 is out of bounds for dimension 1 with "
                                      "size 5 (valid range [0, 4])") &&
                          Catch::Contains("reported asynchronously"));
  CHECK(out.cpu().data_ptr<float>()[1] == 0.0f);
  REQUIRE_NOTHROW(cuda::check_index_errors());  // the report was cleared

  (void)x.index_select(0, tensor({-2}, kLong).to(kGpu));
  cuda::synchronize();
  // The next indexing call raises it, before launching its own kernel.
  REQUIRE_THROWS_WITH(x.index_select(0, tensor({1}, kLong).to(kGpu)),
                      Catch::Contains("index_select: index -2 is out of bounds for dimension 0 "
                                      "with size 4"));
  (void)x.scatter_add(0, tensor({{9, 0, 0, 0, 0}}, kLong).to(kGpu), x);
  REQUIRE_THROWS_WITH(cuda::check_index_errors(),
                      Catch::Contains("scatter_add: index 9 is out of bounds"));
  (void)one_hot(tensor({1, 3}, kLong).to(kGpu), 3);
  REQUIRE_THROWS_WITH(cuda::check_index_errors(),
                      Catch::Contains("one_hot: index 3 is out of bounds for dimension 1 with "
                                      "size 3"));
  // The context is healthy: a good op still runs and matches the CPU.
  const Tensor good = tensor({{4, 0}}, kLong);
  check_same(x.gather(1, good.to(kGpu)), x.cpu().gather(1, good), 0);
  REQUIRE_NOTHROW(cuda::check_index_errors());
}

TEST_CASE("cuda index: mixed devices and a non-int64 index raise an Error naming the op",
          "[cuda][cuda_index]") {
  const Tensor x = randn({4, 5}).to(kGpu);
  REQUIRE_THROWS_WITH(x.gather(1, zeros({4, 1}, kLong)),
                      Catch::Contains("gather: expected all tensors on the same device"));
  REQUIRE_THROWS_WITH(x.index_select(0, zeros({2}, kLong)),
                      Catch::Contains("index_select: expected all tensors on the same device"));
  REQUIRE_THROWS_WITH(x.index_select(0, zeros({2}, kFloat).to(kGpu)),
                      Catch::Contains("index_select: expected an int64 index tensor"));
  REQUIRE_THROWS_WITH(x.masked_fill(zeros({4, 5}, kBool), 1),
                      Catch::Contains("masked_fill: expected all tensors on the same device"));
  REQUIRE_THROWS_WITH((x > 0).scatter_add(0, zeros({1, 5}, kLong).to(kGpu), x > 0),
                      Catch::Contains("scatter_add: dtype bool is not supported"));
}

TEST_CASE("cuda index: 0-d and empty operands of gather, scatter_add and masked_fill match the "
          "CPU", "[cuda][cuda_index]") {
  for (ScalarType t : kNumeric) {
    INFO(t);
    const Tensor s = random_values({}, t), zero = zeros({}, kLong);
    check_same(s.to(kGpu).gather(0, zero.to(kGpu)), s.gather(0, zero), 0);
    const Tensor v = random_values({}, t);
    check_same(s.to(kGpu).scatter_add(0, zero.to(kGpu), v.to(kGpu)), s.scatter_add(0, zero, v),
               add_tolerance(t));
    // A 0-d index into a 1-d self, and an empty index (nothing added, nothing read).
    const Tensor x = random_values({7}, t), three = full({}, 3, kLong);
    check_same(x.to(kGpu).gather(0, three.to(kGpu)), x.gather(0, three), 0);
    const Tensor none = zeros({0}, kLong), no_src = random_values({0}, t);
    check_same(x.to(kGpu).scatter_add(0, none.to(kGpu), no_src.to(kGpu)),
               x.scatter_add(0, none, no_src), 0);
    check_same(x.to(kGpu).gather(0, none.to(kGpu)), x.gather(0, none), 0);
    // An empty self with an empty index.
    const Tensor e = random_values({0, 4}, t), ei = zeros({0, 4}, kLong);
    check_same(e.to(kGpu).gather(1, ei.to(kGpu)), e.gather(1, ei), 0);
    check_same(e.to(kGpu).scatter_add(0, ei.to(kGpu), e.to(kGpu)), e.scatter_add(0, ei, e), 0);
    const Tensor m = full({}, true, kBool);
    check_same(s.to(kGpu).masked_fill(m.to(kGpu), 2), s.masked_fill(m, 2), 0);
  }
  // bool is refused as on the CPU, even with nothing to add.
  const Tensor b = zeros({3}, TensorOptions(kBool).device(kGpu));
  REQUIRE_THROWS_WITH(b.scatter_add(0, zeros({0}, TensorOptions(kLong).device(kGpu)),
                                    zeros({0}, TensorOptions(kBool).device(kGpu))),
                      Catch::Contains("scatter_add: dtype bool is not supported"));
}

TEST_CASE("cuda index: int64 scatter_add of large and negative values is exact (64-bit atomics)",
          "[cuda][cuda_index]") {
  const Tensor r = randn({4096}, kDouble);
  const Tensor src = (r * 3e11).to(kLong) - 7;  // |values| well past 2^32, both signs
  const Tensor index = randint(0, 5, {4096});    // ~800 adds per target
  const Tensor self = full({5}, int64_t(1) << 40, kLong);
  check_same(self.to(kGpu).scatter_add(0, index.to(kGpu), src.to(kGpu)),
             self.scatter_add(0, index, src), 0);
}

TEST_CASE("cuda index: index_select and scatter_add_ through device views (strided self and "
          "out) match the CPU", "[cuda][cuda_index]") {
  for (ScalarType t : kNumeric) {
    INFO(t);
    const Tensor xg = random_values({33, 31}, t).to(kGpu);
    const Tensor cols = randint(0, 33, {45}).to(kGpu);
    check_same(xg.t().index_select(1, cols), xg.cpu().t().index_select(1, cols.cpu()), 0);
    check_same(xg.slice(1, 0, 31, 3).index_select(0, cols),
               xg.cpu().slice(1, 0, 31, 3).index_select(0, cols.cpu()), 0);
    // In place into a transposed device view: the adds land through its strides.
    Tensor base = random_values({6, 31}, t).to(kGpu);
    Tensor want = base.cpu();
    const Tensor index = randint(0, 6, {31, 6}), src = random_values({31, 6}, t);
    base.t().scatter_add_(1, index.to(kGpu), src.to(kGpu));
    want.t().scatter_add_(1, index, src);
    check_same(base, want, add_tolerance(t));
  }
}

namespace {

// Runs f; returns the message of the ember::Error it raised, or "" if none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("cuda index: a launch with millions of bad indices raises its Error once, even when "
          "a later call finds the report while the kernel still runs", "[cuda][cuda_index]") {
  cuda::check_index_errors();
  const Tensor x = randn({1000}, kFloat).to(kGpu);
  const TensorOptions longs = TensorOptions(kLong).device(kGpu);
  const Tensor bad = full({65535LL * 256 * 2}, 5000, longs);  // every position out of range
  const Tensor good = zeros({1}, longs);
  std::vector<std::string> raised;
  (void)x.gather(0, bad);
  // Queued right behind: some of these may run while the gather's bad threads still report.
  for (int k = 0; k < 50; ++k) {
    const std::string e = error_of([&] { (void)x.index_select(0, good); });
    if (!e.empty()) raised.push_back(e);
  }
  const std::string last = error_of([] { cuda::check_index_errors(); });
  if (!last.empty()) raised.push_back(last);
  REQUIRE(raised.size() == 1);
  CHECK_THAT(raised[0], Catch::Contains("gather: index 5000 is out of bounds for dimension 0 "
                                        "with size 1000 (valid range [0, 999])"));
  REQUIRE_NOTHROW(cuda::check_index_errors());
  // The claim was freed: a new bad launch is reported again.
  (void)x.gather(0, full({3}, -1, longs));
  REQUIRE_THROWS_WITH(cuda::check_index_errors(), Catch::Contains("gather: index -1"));
}

TEST_CASE("cuda index: with two bad launches queued, the first one's report wins whole (op, "
          "value, dim and size of one launch)", "[cuda][cuda_index]") {
  cuda::check_index_errors();
  const Tensor x = randn({4, 5}, kFloat).to(kGpu);
  const TensorOptions longs = TensorOptions(kLong).device(kGpu);
  std::vector<std::string> raised;
  auto record = [&](auto&& f) {
    const std::string e = error_of(f);
    if (!e.empty()) raised.push_back(e);
  };
  record([&] { (void)x.gather(1, full({4, 3}, 7, longs)); });
  record([&] { (void)x.scatter_add(0, full({1, 5}, 9, longs), x); });
  record([] { cuda::check_index_errors(); });
  REQUIRE(raised.size() == 1);
  CHECK_THAT(raised[0], Catch::Contains("gather: index 7 is out of bounds for dimension 1 with "
                                        "size 5 (valid range [0, 4])"));
  REQUIRE_NOTHROW(cuda::check_index_errors());
}
