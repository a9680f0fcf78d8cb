// einsum (core/ops/linalg/einsum.cpp), diagonal/diag/diag_embed/trace
// (core/ops/shape/diagonal.cpp) and the products of core/ops/linalg/linalg.cpp: values
// against naive loops in this file, gradients by gradcheck, errors by message.
#include "test_helpers.h"

#include <ember/core/shape.h>

#include <map>
#include <string>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

// Distinct, non-zero values: x.flat[i] = 0.25 * (i + 1) * (-1)^i.
Tensor sample(IntArrayRef shape) {
  const Tensor i = arange(compute_numel(shape), kDouble);
  return ((i + 1.0) * 0.25 * (1.0 - 2.0 * remainder(i, 2.0))).reshape(shape);
}
Tensor leaf64(IntArrayRef shape) { return randn(shape, kDouble).requires_grad_(); }

// Einstein summation by brute force: every assignment of the letters, the
// product of the operands' elements (a size-1 dim reads index 0) added into
// the output's element. terms: one string of letters per operand.
std::vector<double> naive_einsum(const std::vector<std::string>& terms, const std::string& out,
                                 const std::vector<Tensor>& ops) {
  std::map<char, int64_t> size;
  for (size_t i = 0; i < terms.size(); ++i)
    for (size_t k = 0; k < terms[i].size(); ++k)
      size[terms[i][k]] = std::max(size[terms[i][k]], ops[i].size(static_cast<int64_t>(k)));
  std::vector<std::vector<double>> data;
  for (const Tensor& t : ops) data.push_back(values(t));
  int64_t out_numel = 1;
  for (char c : out) out_numel *= size[c];
  std::vector<double> result(static_cast<size_t>(out_numel), 0.0);
  std::vector<char> letters;
  for (const auto& [c, n] : size) letters.push_back(c);
  std::map<char, int64_t> at;
  for (char c : letters) at[c] = 0;
  while (true) {
    double p = 1;
    for (size_t i = 0; i < ops.size(); ++i) {
      int64_t flat = 0;
      for (size_t k = 0; k < terms[i].size(); ++k) {
        const int64_t n = ops[i].size(static_cast<int64_t>(k));
        flat = flat * n + (n == 1 ? 0 : at[terms[i][k]]);
      }
      p *= data[i][static_cast<size_t>(flat)];
    }
    int64_t o = 0;
    for (char c : out) o = o * size[c] + at[c];
    result[static_cast<size_t>(o)] += p;
    size_t j = letters.size();
    while (j > 0 && ++at[letters[j - 1]] == size[letters[j - 1]]) at[letters[--j]] = 0;
    if (j == 0) break;
  }
  return result;
}

}  // namespace

// ---- diagonal, diag, diag_embed, trace ----

TEST_CASE("diagonal picks x[..i..i+offset..] for any dims and offset, as a view", "[linalg]") {
  const Tensor x = sample({3, 4, 5});
  const std::vector<double> v = values(x);
  auto at = [&](int64_t i, int64_t j, int64_t k) { return v[static_cast<size_t>((i * 4 + j) * 5 + k)]; };
  // dims (0, 2): the result is (4, len) with len the diagonal's length.
  for (int64_t off : {-2, -1, 0, 1, 3}) {
    INFO("offset " << off);
    const Tensor d = x.diagonal(off, 0, 2);
    std::vector<double> want;
    int64_t len = 0;
    for (int64_t i = 0; i < 3; ++i)
      if (i + off >= 0 && i + off < 5) ++len;
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t i = 0; i < 3; ++i)
        if (i + off >= 0 && i + off < 5) want.push_back(at(i, j, i + off));
    REQUIRE(d.sizes() == IntArrayRef{4, len});
    require_values(d, want);
    REQUIRE(d.is_alias_of(x));
  }
  // dim1 = 2 (k), dim2 = 1 (j), offset -1: the elements with j = k - 1, k from 1.
  const Tensor e = diagonal(x, -1, -1, 1);
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t k = 1; k < 5; ++k)
      if (k - 1 < 4) want.push_back(at(i, k - 1, k));
  REQUIRE(e.sizes() == IntArrayRef{3, 4});
  require_values(e, want);
  REQUIRE(x.diagonal(5, 1, 2).sizes() == IntArrayRef{3, 0});
  REQUIRE(x.diagonal(-4, 1, 2).sizes() == IntArrayRef{3, 0});
  // A transposed input: the view follows its strides.
  require_values(x.select(0, 1).t().diagonal(), {at(1, 0, 0), at(1, 1, 1), at(1, 2, 2), at(1, 3, 3)});
}

TEST_CASE("writes through a diagonal view reach the base and bump its version", "[linalg]") {
  Tensor x = zeros({3, 3}, kDouble);
  const uint32_t before = x._version();
  x.diagonal().fill_(1.0);
  REQUIRE(x._version() == before + 1);
  require_values(x, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  x.diagonal(1).copy_(tensor({7.0, 8.0}, kDouble));
  require_values(x, {1, 7, 0, 0, 1, 8, 0, 0, 1});
}

TEST_CASE("a diagonal view made before an in-place op on its base sees the op", "[linalg]") {
  // Note [Views of a tensor changed in place]
  Tensor x = sample({3, 3}).requires_grad_();
  Tensor y = x * 1.0;
  Tensor v = y.diagonal();
  y.mul_(2.0);
  REQUIRE(v.grad_fn()->name() == "ViewOfBaseBackward");
  v.sum().backward();
  require_values(x.grad(), {2, 0, 0, 0, 2, 0, 0, 0, 2});

  Tensor w = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  Tensor base = ones({3, 3}, kDouble);
  Tensor d = base.diagonal();
  REQUIRE_FALSE(d.requires_grad());
  base.mul_(w);  // column j scaled by w[j]
  REQUIRE(d.requires_grad());
  (d * tensor({10.0, 100.0, 1000.0}, kDouble)).sum().backward();
  require_values(w.grad(), {10, 100, 1000});
}

TEST_CASE("diagonal gradients pass gradcheck and gradgradcheck", "[linalg]") {
  Tensor x = leaf64({3, 4, 5});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].diagonal(1, 0, 2); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].transpose(0, 1).diagonal(-1, 2, 1); }, {x}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) {
    return in[0].diagonal(0, 1, 2) * in[0].diagonal(1, 1, 2); }, {x}));
}

TEST_CASE("diag builds a matrix from a vector and copies a matrix's diagonal", "[linalg]") {
  const Tensor v = tensor({1.0, 2.0}, kDouble);
  require_values(diag(v), {1, 0, 0, 2});
  require_values(diag(v, 1), {0, 1, 0, 0, 0, 2, 0, 0, 0});
  require_values(v.diag(-1), {0, 0, 0, 1, 0, 0, 0, 2, 0});  // torch 1.13.1: diag([1, 2], -1)
  const Tensor m = sample({2, 3});  // 0.25, -0.5, 0.75 / -1, 1.25, -1.5
  require_values(diag(m), {0.25, 1.25});
  require_values(diag(m, 1), {-0.5, -1.5});
  require_values(diag(m, -1), {-1});
  REQUIRE_FALSE(diag(m).is_alias_of(m));
  REQUIRE_THROWS_WITH(diag(zeros({2, 2, 2})), Catch::Contains("diag") && Catch::Contains("[2, 2, 2]"));
  Tensor a = leaf64({4}), b = leaf64({3, 4});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return diag(in[0], -2); }, {a}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return diag(in[0], 1); }, {b}));
}

TEST_CASE("diag_embed places the last dim on a diagonal of the given dims", "[linalg]") {
  const Tensor x = sample({2, 3});
  const std::vector<double> v = values(x);
  // dims (0, 2), offset 1: out[i][r][i + 1] = x[r][i], shape (4, 2, 4) (torch 1.13.1 checked).
  const Tensor out = diag_embed(x, 1, 0, 2);
  REQUIRE(out.sizes() == IntArrayRef{4, 2, 4});
  std::vector<double> want(32, 0.0);
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t i = 0; i < 3; ++i) want[static_cast<size_t>((i * 2 + r) * 4 + i + 1)] = v[static_cast<size_t>(r * 3 + i)];
  require_values(out, want);
  // The default dims are the last two: a batch of diagonal matrices.
  const Tensor batch = x.diag_embed();
  REQUIRE(batch.sizes() == IntArrayRef{2, 3, 3});
  require_values(batch.select(0, 1), {v[3], 0, 0, 0, v[4], 0, 0, 0, v[5]});
  REQUIRE_THROWS_WITH(diag_embed(x, 0, 1, -2), Catch::Contains("diag_embed") && Catch::Contains("same dim"));
  Tensor a = leaf64({2, 3});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return diag_embed(in[0], -1, 2, 0); }, {a}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return diag_embed(in[0] * in[0], 1); }, {a}));
}

TEST_CASE("trace sums the main diagonal; integers give int64", "[linalg]") {
  REQUIRE(trace(sample({3, 3})).item<double>() == Approx(0.25 + 1.25 + 2.25));
  REQUIRE(sample({2, 3}).trace().item<double>() == Approx(0.25 + 1.25));
  const Tensor t = trace(arange(6, kLong).view({2, 3}));
  REQUIRE(t.scalar_type() == kLong);
  REQUIRE(t.item<int64_t>() == 4);  // torch 1.13.1: trace(arange(6).view(2, 3)) == 4
  REQUIRE_THROWS_WITH(trace(zeros({2, 2, 2})), Catch::Contains("trace: expected a matrix") && Catch::Contains("[2, 2, 2]"));
  REQUIRE_THROWS_WITH(trace(ones({2, 2}, kBool)), Catch::Contains("trace") && Catch::Contains("bool"));
  REQUIRE_THROWS_WITH(zeros({2, 3}).diagonal(0, 1, -1), Catch::Contains("diagonal") && Catch::Contains("same dim"));
  Tensor a = leaf64({3, 4});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return trace(in[0]); }, {a}));
}

// ---- einsum ----

TEST_CASE("einsum matches a brute-force sum for explicit equations", "[linalg]") {
  struct Case {
    const char* equation;
    std::vector<std::string> terms;
    std::string out;
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {"ij", "jk"}, "ik", {{2, 3}, {3, 4}}},
      {"bij,bjk->bik", {"bij", "bjk"}, "bik", {{2, 3, 4}, {2, 4, 5}}},
      {"i,j->ij", {"i", "j"}, "ij", {{3}, {4}}},
      {"ijk->i", {"ijk"}, "i", {{2, 3, 4}}},
      {"ijk->kji", {"ijk"}, "kji", {{2, 3, 4}}},
      {"ii->i", {"ii"}, "i", {{3, 3}}},
      {"ii->", {"ii"}, "", {{3, 3}}},
      {"iij->j", {"iij"}, "j", {{3, 3, 2}}},
      {"iji->ij", {"iji"}, "ij", {{3, 2, 3}}},
      {"ij,jk,kl->il", {"ij", "jk", "kl"}, "il", {{2, 3}, {3, 4}, {4, 5}}},
      {"ab,bc,cd,a->d", {"ab", "bc", "cd", "a"}, "d", {{2, 3}, {3, 2}, {2, 4}, {2}}},
      {"ij,ij->ij", {"ij", "ij"}, "ij", {{2, 3}, {2, 3}}},
      {"ij,ij->", {"ij", "ij"}, "", {{2, 3}, {2, 3}}},
      {"i,i->i", {"i", "i"}, "i", {{4}, {4}}},
      {"bij,bkj->bik", {"bij", "bkj"}, "bik", {{2, 3, 4}, {2, 5, 4}}},
      {"ijk,jl->lik", {"ijk", "jl"}, "lik", {{2, 3, 4}, {3, 2}}},
      {"Aa,aB->BA", {"Aa", "aB"}, "BA", {{2, 3}, {3, 4}}},
      {" i j , j k -> k i ", {"ij", "jk"}, "ki", {{2, 3}, {3, 2}}},
      // size-1 broadcasting of a shared letter
      {"bij,bjk->bik", {"bij", "bjk"}, "bik", {{1, 2, 3}, {4, 3, 2}}},
      {"ij,ij->i", {"ij", "ij"}, "i", {{2, 1}, {2, 3}}},
  };
  for (const Case& c : cases) {
    INFO(c.equation);
    std::vector<Tensor> ops;
    for (size_t i = 0; i < c.shapes.size(); ++i)
      ops.push_back(sample(c.shapes[i]) + 0.1 * static_cast<double>(i));
    require_values(einsum(c.equation, ops), naive_einsum(c.terms, c.out, ops), 1e-12);
  }
}

TEST_CASE("einsum's implicit output is the letters seen once, A-Z before a-z", "[linalg]") {
  const Tensor a = sample({4, 3}), b = sample({5, 4});
  // "ba,Ab": a and A once, b twice -> output "Aa" of shape (5, 3) (torch 1.13.1 checked).
  const Tensor r = einsum("ba,Ab", {a, b});
  REQUIRE(r.sizes() == IntArrayRef{5, 3});
  require_values(r, naive_einsum({"ba", "Ab"}, "Aa", {a, b}));
  require_values(einsum("ij,jk", {sample({2, 3}), sample({3, 2})}),
                 naive_einsum({"ij", "jk"}, "ik", {sample({2, 3}), sample({3, 2})}));
  REQUIRE(einsum("ii", {sample({3, 3})}).item<double>() == Approx(0.25 + 1.25 + 2.25));
  require_values(einsum("ji", {sample({2, 3})}), values(sample({2, 3}).t()));  // "ij" order
}

TEST_CASE("einsum's ellipsis covers broadcast batch dims", "[linalg]") {
  const Tensor x = sample({2, 3, 4});
  require_values(einsum("...ij->...ji", {x}), naive_einsum({"aij"}, "aji", {x}));
  require_values(einsum("i...->...", {x}), naive_einsum({"ijk"}, "jk", {x}));
  // implicit: the ellipsis dims first
  const Tensor v = sample({2});
  const Tensor r = einsum("i,...", {v, sample({3, 4})});
  REQUIRE(r.sizes() == IntArrayRef{3, 4, 2});
  require_values(r, naive_einsum({"i", "jk"}, "jki", {v, sample({3, 4})}));
  // different ranks under the ellipsis broadcast, right-aligned: (2, 1) with (5)
  const Tensor a = sample({2, 1, 3, 4}), b = sample({5, 4, 2});
  const Tensor m = einsum("...ij,...jk", {a, b});
  REQUIRE(m.sizes() == IntArrayRef{2, 5, 3, 2});
  require_values(m, naive_einsum({"xyij", "yjk"}, "xyik", {a, b}), 1e-12);
  // an ellipsis absent from an explicit output is summed
  require_values(einsum("...ij->ij", {x}), naive_einsum({"aij"}, "ij", {x}));
}

TEST_CASE("einsum over an empty contracted letter gives zeros of the output's shape", "[linalg]") {
  const Tensor r = einsum("ij,jk->ik", {ones({2, 0}, kDouble), ones({0, 3}, kDouble)});
  REQUIRE(r.sizes() == IntArrayRef{2, 3});
  require_values(r, std::vector<double>(6, 0.0));  // torch 1.13.1: zeros(2, 3)
  REQUIRE(einsum("i,j->ij", {ones({0}), ones({3})}).sizes() == IntArrayRef{0, 3});
}

TEST_CASE("einsum contracts through one bmm, not a broadcast product", "[linalg]") {
  Tensor a = sample({2, 3}).requires_grad_(), b = sample({3, 4}).requires_grad_();
  const std::string graph = autograd::to_dot(einsum("ij,jk->ik", {a, b}));
  REQUIRE(graph.find("BmmBackward") != std::string::npos);
  REQUIRE(graph.find("MulBackward") == std::string::npos);
}

TEST_CASE("einsum gradients pass gradcheck, and gradgradcheck for some", "[linalg]") {
  Tensor m = leaf64({3, 3}), a = leaf64({2, 3}), b = leaf64({3, 4}), c = leaf64({4, 2});
  Tensor v = leaf64({3}), w = leaf64({4});
  Tensor p = leaf64({2, 3, 4}), q = leaf64({2, 4, 3}), r = leaf64({4, 3});
  auto eq = [](const char* e) {
    return [e](const tensor_list& in) { return einsum(e, in); };
  };
  REQUIRE_GRADCHECK(gradcheck(eq("ii->i"), {m}));
  REQUIRE_GRADCHECK(gradcheck(eq("ii"), {m}));
  REQUIRE_GRADCHECK(gradcheck(eq("i,j->ij"), {v, w}));
  REQUIRE_GRADCHECK(gradcheck(eq("bij,bjk->bik"), {p, q}));
  REQUIRE_GRADCHECK(gradcheck(eq("...ij,...jk->...ik"), {p, r}));
  REQUIRE_GRADCHECK(gradcheck(eq("ij,jk,kl->il"), {a, b, c}));
  REQUIRE_GRADCHECK(gradcheck(eq("ij,jk,ki->"), {a, b, leaf64({4, 2})}));
  REQUIRE_GRADCHECK(gradgradcheck(eq("ij,jk->ik"), {a, b}));
  REQUIRE_GRADCHECK(gradgradcheck(eq("ii,i->i"), {m, v}));
  REQUIRE_GRADCHECK(gradgradcheck(eq("bij,bjk->bk"), {p, q}));
}

TEST_CASE("einsum rejects malformed equations and mismatched operands, naming them", "[linalg]") {
  const Tensor a = zeros({2, 3}), b = zeros({4, 5});
  REQUIRE_THROWS_WITH(einsum("i.j", {a}), Catch::Contains("not part of any ellipsis"));
  REQUIRE_THROWS_WITH(einsum("i......", {a}), Catch::Contains("more than one ellipsis"));
  REQUIRE_THROWS_WITH(einsum("ij->j->i", {a}), Catch::Contains("invalid subscript '-'"));
  REQUIRE_THROWS_WITH(einsum("i1", {a}), Catch::Contains("invalid subscript '1'"));
  REQUIRE_THROWS_WITH(einsum("ij", {a, b}), Catch::Contains("1 operand term(s) but 2 operand(s)"));
  REQUIRE_THROWS_WITH(einsum("ij,jk,k", {a, b}), Catch::Contains("3 operand term(s) but 2"));
  REQUIRE_THROWS_WITH(einsum("ij", std::vector<Tensor>{}), Catch::Contains("at least one operand"));
  REQUIRE_THROWS_WITH(einsum("ij,jk", {a, b}),
                      Catch::Contains("subscript j has size 4 for operand 1") && Catch::Contains("size 3"));
  REQUIRE_THROWS_WITH(einsum("ii", {a}), Catch::Contains("subscript i is repeated for operand 0") &&
                                             Catch::Contains("2 != 3"));
  REQUIRE_THROWS_WITH(einsum("ij->ii", {a}), Catch::Contains("output subscript i appears more than once"));
  REQUIRE_THROWS_WITH(einsum("ij->k", {a}), Catch::Contains("output subscript k does not appear"));
  REQUIRE_THROWS_WITH(einsum("ijk", {a}), Catch::Contains("(3) does not match the number of dimensions (2)"));
  REQUIRE_THROWS_WITH(einsum("ijk...", {a}), Catch::Contains("(3) is more than the number of dimensions (2)"));
  REQUIRE_THROWS_WITH(einsum("...,...", {zeros({2, 3}), zeros({4, 3})}),
                      Catch::Contains("ellipsis of operand 1 has size 4"));
  REQUIRE_THROWS_WITH(einsum("i,i", {zeros({2}), zeros({2}, kDouble)}),
                      Catch::Contains("operand 1 has dtype float64 but operand 0 has float32"));
}

// ---- tensordot, mv, vdot, the add* family ----

TEST_CASE("tensordot sums the given dim pairs; the free dims stay in order", "[linalg]") {
  const Tensor a = sample({2, 3, 4}), b = sample({4, 3, 5});
  const Tensor r = tensordot(a, b, {1, 2}, {1, 0});
  REQUIRE(r.sizes() == IntArrayRef{2, 5});
  require_values(r, naive_einsum({"ijk", "kjl"}, "il", {a, b}), 1e-12);
  // no dims: the outer product
  require_values(tensordot(sample({2}), sample({3}), {}, {}), naive_einsum({"i", "j"}, "ij", {sample({2}), sample({3})}));
  // a size 1 against 3 is summed alone (as libtorch)
  const Tensor c = sample({2, 3}), d = sample({1, 4});
  require_values(tensordot(c, d, {1}, {0}), naive_einsum({"ij", "jk"}, "ik", {c, d}), 1e-12);
  REQUIRE_THROWS_WITH(tensordot(a, b, {1}, {0}), Catch::Contains("tensordot") && Catch::Contains("size 3") &&
                                                     Catch::Contains("size 4"));
  REQUIRE_THROWS_WITH(tensordot(a, b, {1}, {0, 1}), Catch::Contains("same length"));
  REQUIRE_THROWS_WITH(tensordot(a, b, {2, 2}, {0, 0}), Catch::Contains("repeats"));
  Tensor x = leaf64({2, 3, 4}), y = leaf64({4, 3, 5});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return tensordot(in[0], in[1], {2, 1}, {0, 1}); }, {x, y}));
}

TEST_CASE("mv, vdot, dot and outer as loops; Tensor methods agree", "[linalg]") {
  const Tensor m = sample({3, 2}), v = sample({2}), u = sample({3});
  require_values(mv(m, v), naive_einsum({"ij", "j"}, "i", {m, v}));
  require_values(m.t().mv(u), naive_einsum({"ji", "j"}, "i", {m, u}));
  REQUIRE(vdot(u, u).item<double>() == Approx(0.0625 + 0.25 + 0.5625));
  REQUIRE(u.dot(u * 2.0).item<double>() == Approx(2 * (0.0625 + 0.25 + 0.5625)));
  REQUIRE(u.vdot(u).item<double>() == Approx(0.0625 + 0.25 + 0.5625));
  require_values(u.outer(v), naive_einsum({"i", "j"}, "ij", {u, v}));
  REQUIRE_THROWS_WITH(mv(m, u), Catch::Contains("mv") && Catch::Contains("2 vs 3"));
  REQUIRE_THROWS_WITH(vdot(m, m), Catch::Contains("vdot: expected 1-d"));
  Tensor a = leaf64({3, 2}), b = leaf64({2}), c = leaf64({2});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return mv(in[0], in[1]); }, {a, b}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return vdot(in[0], in[1]); }, {b, c}));
}

TEST_CASE("baddbmm, addbmm, addmv and addr are beta * self + alpha * product", "[linalg]") {
  const Tensor b1 = sample({2, 3, 4}), b2 = sample({2, 4, 2}) - 0.3;
  const Tensor s3 = sample({3, 2}) + 1.0;  // broadcast over the batch
  const std::vector<double> prod = naive_einsum({"bij", "bjk"}, "bik", {b1, b2});
  std::vector<double> want;
  const std::vector<double> sv = values(s3);
  for (size_t i = 0; i < prod.size(); ++i) want.push_back(0.5 * sv[i % 6] + 2.0 * prod[i]);
  require_values(baddbmm(s3, b1, b2, 0.5, 2.0), want, 1e-12);
  require_values(s3.baddbmm(b1, b2), [&] {
    std::vector<double> w;
    for (size_t i = 0; i < prod.size(); ++i) w.push_back(sv[i % 6] + prod[i]);
    return w;
  }());
  const std::vector<double> summed = naive_einsum({"bij", "bjk"}, "ik", {b1, b2});
  want.clear();
  for (size_t i = 0; i < 6; ++i) want.push_back(-1.0 * sv[i] + 3.0 * summed[i]);
  require_values(addbmm(s3, b1, b2, -1.0, 3.0), want, 1e-12);
  const Tensor m = sample({3, 4}), v = sample({4}), s1 = sample({3});
  const std::vector<double> mvp = naive_einsum({"ij", "j"}, "i", {m, v}), s1v = values(s1);
  require_values(s1.addmv(m, v, 2.0, 0.5), {2 * s1v[0] + 0.5 * mvp[0], 2 * s1v[1] + 0.5 * mvp[1],
                                            2 * s1v[2] + 0.5 * mvp[2]});
  const Tensor r = addr(s3, sample({3}), sample({2}));
  const std::vector<double> outer_v = naive_einsum({"i", "j"}, "ij", {sample({3}), sample({2})});
  want.clear();
  for (size_t i = 0; i < 6; ++i) want.push_back(sv[i] + outer_v[i]);
  require_values(r, want);
  // beta = 0: self's NaN does not leak into the result
  const Tensor nan_self = full({3}, std::nan(""), kDouble);
  require_values(addmv(nan_self, m, v, 0.0), mvp);
  // ... and gets a zero gradient, as libtorch (torch 1.13.1: addmv(s, m, v, beta=0) gives s.grad == 0)
  Tensor s_leaf = nan_self.clone().requires_grad_();
  Tensor y = addmv(s_leaf, m, v, 0.0);
  require_values(y, mvp);
  y.sum().backward();
  require_values(s_leaf.grad(), {0, 0, 0});
  REQUIRE_THROWS_WITH(addmv(zeros({4}, kDouble), m, v), Catch::Contains("addmv: self of shape [4]"));
  REQUIRE_THROWS_WITH(addbmm(zeros({3, 2}, kDouble), b1, sample({2, 3, 2})), Catch::Contains("addbmm"));
  REQUIRE_THROWS_WITH(baddbmm(zeros({3, 2}), b1, b2), Catch::Contains("baddbmm: expected one dtype"));
}

TEST_CASE("the add* family passes gradcheck and gradgradcheck", "[linalg]") {
  Tensor s = leaf64({3, 2}), b1 = leaf64({2, 3, 4}), b2 = leaf64({2, 4, 2});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return baddbmm(in[0], in[1], in[2], 0.5, 2.0); }, {s, b1, b2}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return addbmm(in[0], in[1], in[2], -1.0, 3.0); }, {s, b1, b2}));
  Tensor v3 = leaf64({3}), m = leaf64({3, 4}), v4 = leaf64({4}), v2 = leaf64({2});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return addmv(in[0], in[1], in[2], 2.0, 0.5); }, {v3, m, v4}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return addr(in[0], in[1], in[2], 2.0, -1.0); }, {s, v3, v2}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return addbmm(in[0], in[1], in[2]); }, {s, b1, b2}));
}

// ---- cross, kron ----

TEST_CASE("linalg_cross and cross compute a x b along a dim of size 3", "[linalg]") {
  const Tensor a = sample({2, 3}), b = sample({2, 3}) * -0.5 + 0.3;
  const std::vector<double> av = values(a), bv = values(b);
  auto cross3 = [](const double* x, const double* y) {
    return std::vector<double>{x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                               x[0] * y[1] - x[1] * y[0]};
  };
  std::vector<double> want = cross3(&av[0], &bv[0]), row1 = cross3(&av[3], &bv[3]);
  want.insert(want.end(), row1.begin(), row1.end());
  require_values(linalg_cross(a, b), want);
  require_values(cross(a, b, 1), want);
  require_values(a.cross(b), want);  // the first dim of size 3 is dim 1
  // along dim 0 of the transposed operands
  require_values(linalg_cross(a.t(), b.t(), 0).t(), want);
  // the other dims broadcast: b's row 0 against both rows of a
  require_values(linalg_cross(a, b.narrow(0, 0, 1)).select(0, 1), cross3(&av[3], &bv[0]));
  REQUIRE_THROWS_WITH(linalg_cross(zeros({4, 2}), zeros({4, 2})), Catch::Contains("linalg.cross") && Catch::Contains("size 3"));
  REQUIRE_THROWS_WITH(linalg_cross(zeros({4, 3}), zeros({3})), Catch::Contains("same number of dims"));
  REQUIRE_THROWS_WITH(linalg_cross(zeros({4, 3}), zeros({4, 3}, kDouble)), Catch::Contains("one dtype"));
  REQUIRE_THROWS_WITH(cross(zeros({4, 2}), zeros({4, 2})), Catch::Contains("no dim of size 3"));
  Tensor x = leaf64({3, 4}), y = leaf64({3, 4});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return cross(in[0], in[1]); }, {x, y}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return linalg_cross(in[0], in[1], 0); }, {x, y}));
}

TEST_CASE("kron multiplies every pair of blocks, padding the shorter shape", "[linalg]") {
  const Tensor a = sample({2, 3}), b = sample({4}) + 0.1;
  const Tensor k = kron(a, b);
  REQUIRE(k.sizes() == IntArrayRef{2, 12});
  const std::vector<double> av = values(a), bv = values(b), kv = values(k);
  for (size_t i = 0; i < 2; ++i)
    for (size_t j = 0; j < 12; ++j) REQUIRE(kv[i * 12 + j] == Approx(av[i * 3 + j / 4] * bv[j % 4]));
  const Tensor c = sample({2, 2}), d = sample({3, 2}) - 1.0;
  const std::vector<double> cv = values(c), dv = values(d), kd = values(c.kron(d));
  for (size_t i = 0; i < 6; ++i)
    for (size_t j = 0; j < 4; ++j)
      REQUIRE(kd[i * 4 + j] == Approx(cv[(i / 3) * 2 + j / 2] * dv[(i % 3) * 2 + j % 2]));
  REQUIRE(kron(arange(2, kLong), arange(3, kFloat)).scalar_type() == kFloat);  // promoted
  Tensor x = leaf64({2, 3}), y = leaf64({2, 1, 2});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return kron(in[0], in[1]); }, {x, y}));
}

// ---- meshgrid, cartesian_prod, block_diag, logspace, tril/triu_indices ----

TEST_CASE("meshgrid expands each tensor along its own dim; xy swaps the first two", "[linalg]") {
  const Tensor a = tensor({1.0, 2.0}, kDouble), b = tensor({3.0, 4.0, 5.0}, kDouble);
  const std::vector<Tensor> ij = meshgrid({a, b}, "ij");
  REQUIRE(ij[0].sizes() == IntArrayRef{2, 3});
  require_values(ij[0], {1, 1, 1, 2, 2, 2});
  require_values(ij[1], {3, 4, 5, 3, 4, 5});
  REQUIRE(ij[0].is_alias_of(a));  // views
  const std::vector<Tensor> xy = meshgrid({a, b}, "xy");
  REQUIRE(xy[0].sizes() == IntArrayRef{3, 2});
  require_values(xy[0], {1, 2, 1, 2, 1, 2});
  require_values(xy[1], {3, 3, 4, 4, 5, 5});
  const std::vector<Tensor> three = meshgrid({a, tensor(7.0, kDouble), b});
  REQUIRE(three[1].sizes() == IntArrayRef{2, 1, 3});
  require_values(three[1], {7, 7, 7, 7, 7, 7});
  REQUIRE_THROWS_WITH(meshgrid({a, b}, "ji"), Catch::Contains("meshgrid: indexing"));
  REQUIRE_THROWS_WITH(meshgrid({a, zeros({2, 2}, kDouble)}), Catch::Contains("tensor 1 has shape [2, 2]"));
  REQUIRE_THROWS_WITH(meshgrid({a, zeros({2})}), Catch::Contains("one dtype and device"));
  Tensor x = leaf64({2}), y = leaf64({3});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) {
    const auto g = meshgrid(in, "xy");
    return g[0] * g[1]; }, {x, y}));
}

TEST_CASE("cartesian_prod lists every combination, the first tensor slowest", "[linalg]") {
  const Tensor r = cartesian_prod({tensor({1, 2}, kLong), tensor({3, 4, 5}, kLong)});
  REQUIRE(r.sizes() == IntArrayRef{6, 2});
  require_values(r, {1, 3, 1, 4, 1, 5, 2, 3, 2, 4, 2, 5});  // torch 1.13.1
  const Tensor one = tensor({1, 2}, kLong);
  REQUIRE(cartesian_prod({one}).is_same(one));
  REQUIRE_THROWS_WITH(cartesian_prod({one, zeros({})}), Catch::Contains("cartesian_prod: expected 1-d"));
  Tensor x = leaf64({2}), y = leaf64({3});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return cartesian_prod(in); }, {x, y}));
}

TEST_CASE("block_diag places 0-d, 1-d and 2-d blocks on the diagonal", "[linalg]") {
  const Tensor r = block_diag({ones({2, 2}, kLong), tensor({3.0f, 4.0f}), tensor(5.0f)});
  REQUIRE(r.scalar_type() == kFloat);  // promoted
  REQUIRE(r.sizes() == IntArrayRef{4, 5});
  require_values(r, {1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 5});  // torch 1.13.1
  REQUIRE(block_diag(std::vector<Tensor>{}).sizes() == IntArrayRef{1, 0});
  REQUIRE_THROWS_WITH(block_diag({zeros({1, 1, 1})}), Catch::Contains("block_diag") && Catch::Contains("[1, 1, 1]"));
  Tensor x = leaf64({2, 3}), y = leaf64({2});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return block_diag(in); }, {x, y}));
}

TEST_CASE("logspace is base to the power of evenly spaced exponents", "[linalg]") {
  const Tensor t = logspace(0, 3, 4);
  REQUIRE(t.scalar_type() == kFloat);
  require_values(t, {1, 10, 100, 1000});
  require_values(logspace(-1, 1, 5, 3.0, kDouble),
                 {1 / 3.0, 1 / std::sqrt(3.0), 1, std::sqrt(3.0), 3});
  require_values(logspace(2, 0, 3, 2.0, kLong), {4, 2, 1});
  REQUIRE(logspace(0, 1, 0).numel() == 0);
  require_values(logspace(2, 5, 1, 10.0, kDouble), {100});
  REQUIRE_THROWS_WITH(logspace(0, 1, -1), Catch::Contains("logspace") && Catch::Contains("-1"));
}

TEST_CASE("tril_indices and triu_indices list a triangle's positions row by row", "[linalg]") {
  const Tensor l = tril_indices(3, 4, 1);
  REQUIRE(l.scalar_type() == kLong);
  // torch 1.13.1: tril_indices(3, 4, 1)
  require_values(l, {0, 0, 1, 1, 1, 2, 2, 2, 2, 0, 1, 0, 1, 2, 0, 1, 2, 3});
  require_values(triu_indices(3, 3, -1), {0, 0, 0, 1, 1, 1, 2, 2, 0, 1, 2, 0, 1, 2, 1, 2});
  REQUIRE(tril_indices(0, 3).sizes() == IntArrayRef{2, 0});
  REQUIRE(triu_indices(2, 2, 0, kDouble).scalar_type() == kDouble);
  REQUIRE_THROWS_WITH(tril_indices(-1, 2), Catch::Contains("tril_indices") && Catch::Contains("non-negative"));
}
