// nn::MultiheadAttention (nn/modules/multihead_attention.cpp) and
// F::multi_head_attention_forward (nn/functional/attention.cpp), which the
// module calls, against the attention maths written out with loops on plain
// arrays below; PyTorch's parameter names, the masks, add_bias_kv /
// add_zero_attn, static_k / static_v, gradcheck, errors.
#include "test_helpers.h"

#include <ember/nn/nn.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace ember;
using ember_test::require_values;
using ember_test::values;
using Catch::Contains;

namespace {

struct Weights {
  std::vector<double> wq, wk, wv, bq, bk, bv, wo, bo;  // row-major, (out, in)
};

Weights weights_of(nn::MultiheadAttention& m) {
  const int64_t e = m->options.embed_dim();
  Weights w;
  if (m->_qkv_same_embed_dim) {
    w.wq = values(m->in_proj_weight.narrow(0, 0, e));
    w.wk = values(m->in_proj_weight.narrow(0, e, e));
    w.wv = values(m->in_proj_weight.narrow(0, 2 * e, e));
  } else {
    w.wq = values(m->q_proj_weight);
    w.wk = values(m->k_proj_weight);
    w.wv = values(m->v_proj_weight);
  }
  const std::vector<double> b = values(m->in_proj_bias);
  w.bq.assign(b.begin(), b.begin() + e);
  w.bk.assign(b.begin() + e, b.begin() + 2 * e);
  w.bv.assign(b.begin() + 2 * e, b.end());
  w.wo = values(m->out_proj->weight);
  w.bo = values(m->out_proj->bias);
  return w;
}

// y = W x + b for row `row` of a (len, N, in) array at batch n.
std::vector<double> project(const std::vector<double>& w, const std::vector<double>& b,
                            const std::vector<double>& x, int64_t batch, int64_t in,
                            int64_t pos, int64_t n) {
  const int64_t out = static_cast<int64_t>(b.size());
  std::vector<double> y(b);
  for (int64_t o = 0; o < out; ++o)
    for (int64_t i = 0; i < in; ++i) y[o] += w[o * in + i] * x[(pos * batch + n) * in + i];
  return y;
}

struct Reference {
  std::vector<double> out;      // (L, N, E)
  std::vector<double> weights;  // (N, L, S), averaged over heads
};

// For each batch n and head h (features [h*d, (h+1)*d) of the projections):
//   s_ij = q_i . k_j / sqrt(d) + mask_ij, and -inf where key j of n is padded
//   p_ij = exp(s_ij) / sum_j' exp(s_ij'),  o_i = sum_j p_ij v_j
//   out_i = Wo concat_h(o_i) + bo
Reference attention(const Weights& w, const std::vector<double>& query,
                    const std::vector<double>& key, const std::vector<double>& value, int64_t L,
                    int64_t S, int64_t N, int64_t E, int64_t kdim, int64_t vdim, int64_t heads,
                    const std::vector<double>& mask, const std::vector<bool>& padded) {
  const int64_t d = E / heads;
  Reference r{std::vector<double>(L * N * E), std::vector<double>(N * L * S)};
  for (int64_t n = 0; n < N; ++n) {
    std::vector<std::vector<double>> q, k, v;
    for (int64_t i = 0; i < L; ++i) q.push_back(project(w.wq, w.bq, query, N, E, i, n));
    for (int64_t j = 0; j < S; ++j) {
      k.push_back(project(w.wk, w.bk, key, N, kdim, j, n));
      v.push_back(project(w.wv, w.bv, value, N, vdim, j, n));
    }
    for (int64_t i = 0; i < L; ++i) {
      std::vector<double> concat(E);
      for (int64_t h = 0; h < heads; ++h) {
        std::vector<double> s(S);
        double top = -std::numeric_limits<double>::infinity(), total = 0;
        for (int64_t j = 0; j < S; ++j) {
          double dot = 0;
          for (int64_t f = h * d; f < (h + 1) * d; ++f) dot += q[i][f] * k[j][f];
          s[j] = dot / std::sqrt(static_cast<double>(d)) + (mask.empty() ? 0 : mask[i * S + j]);
          if (!padded.empty() && padded[n * S + j]) s[j] = -std::numeric_limits<double>::infinity();
          top = std::max(top, s[j]);
        }
        for (int64_t j = 0; j < S; ++j) total += s[j] = std::exp(s[j] - top);
        for (int64_t j = 0; j < S; ++j) {
          const double p = s[j] / total;
          r.weights[(n * L + i) * S + j] += p / heads;
          for (int64_t f = h * d; f < (h + 1) * d; ++f) concat[f] += p * v[j][f];
        }
      }
      const std::vector<double> o = project(w.wo, w.bo, concat, 1, E, 0, 0);
      for (int64_t f = 0; f < E; ++f) r.out[(i * N + n) * E + f] = o[f];
    }
  }
  return r;
}

Tensor random(IntArrayRef shape) { return randn(shape, kDouble); }

}  // namespace

TEST_CASE("MultiheadAttention has PyTorch's parameters, by name and shape", "[attention]") {
  // torch 1.13.1: nn.MultiheadAttention(8, 2).named_parameters() and with kdim=6, vdim=5,
  // add_bias_kv=True; bias=False drops in_proj_bias and out_proj.bias.
  nn::MultiheadAttention same(8, 2);
  REQUIRE(same->named_parameters().keys() ==
          std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight",
                                   "out_proj.bias"});
  REQUIRE(same->in_proj_weight.sizes() == IntArrayRef{24, 8});
  nn::MultiheadAttention apart(
      nn::MultiheadAttentionOptions(8, 2).kdim(6).vdim(5).add_bias_kv(true));
  REQUIRE(apart->named_parameters().keys() ==
          std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                   "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
                                   "out_proj.bias"});
  REQUIRE(apart->k_proj_weight.sizes() == IntArrayRef{8, 6});
  REQUIRE(apart->v_proj_weight.sizes() == IntArrayRef{8, 5});
  REQUIRE(apart->bias_k.sizes() == IntArrayRef{1, 1, 8});
  nn::MultiheadAttention no_bias(nn::MultiheadAttentionOptions(8, 2).bias(false));
  REQUIRE(no_bias->named_parameters().keys() ==
          std::vector<std::string>{"in_proj_weight", "out_proj.weight"});
  // Biases start at zero; the projections are xavier-uniform: |w| <= sqrt(6 / (8 + 24)).
  REQUIRE(values(same->in_proj_bias) == std::vector<double>(24, 0.0));
  REQUIRE(same->in_proj_weight.abs().max().item<double>() <= std::sqrt(6.0 / 32.0));
}

TEST_CASE("MultiheadAttention computes each head's softmax(q k^T / sqrt(d)) v", "[attention]") {
  manual_seed(3);
  const int64_t L = 3, S = 4, N = 2, E = 4, heads = 2;
  nn::MultiheadAttention m(E, heads);
  m->to(kDouble);
  NoGradGuard no_grad;
  Tensor(m->in_proj_bias).copy_(random({3 * E}));  // non-zero biases exercise their rows
  Tensor(m->out_proj->bias).copy_(random({E}));
  const Tensor q = random({L, N, E}), k = random({S, N, E}), v = random({S, N, E});
  const Weights w = weights_of(m);

  SECTION("no masks; the weights averaged over heads, or per head") {
    auto [out, weights] = m(q, k, v);
    const Reference r = attention(w, values(q), values(k), values(v), L, S, N, E, E, E, heads,
                                  {}, {});
    REQUIRE(out.sizes() == IntArrayRef{L, N, E});
    require_values(out, r.out, 1e-12);
    REQUIRE(weights.sizes() == IntArrayRef{N, L, S});
    require_values(weights, r.weights, 1e-12);
    auto [out2, per_head] = m(q, k, v, Tensor(), true, Tensor(), /*average_attn_weights=*/false);
    REQUIRE(per_head.sizes() == IntArrayRef{N, heads, L, S});
    require_values(per_head.mean({1}), r.weights, 1e-12);
    auto [out3, none] = m(q, k, v, Tensor(), /*need_weights=*/false);
    REQUIRE_FALSE(none.defined());
    require_values(out3, r.out, 1e-12);
  }
  SECTION("a float attn_mask is added; a bool one and key_padding_mask drop keys") {
    const std::vector<double> additive = {0.5, -1, 0, 2, 0, 0, -0.5, 1, 1, 0, 0, -2};
    const std::vector<bool> padded = {false, false, false, true, true, false, false, false};
    const Tensor kpm = tensor({false, false, false, true, true, false, false, false}).view({N, S});
    auto [out, weights] = m(q, k, v, kpm, true, tensor(additive, kDouble).view({L, S}));
    const Reference r = attention(w, values(q), values(k), values(v), L, S, N, E, E, E, heads,
                                  additive, padded);
    require_values(out, r.out, 1e-12);
    require_values(weights, r.weights, 1e-12);
    REQUIRE(weights[0].select(1, 3).abs().max().item<double>() == 0);  // padded key of batch 0
    // bool mask: true = not allowed, the same as adding -inf there.
    const Tensor banned = tensor({false, true, false, false, false, false, true, false, true,
                                  false, false, false}).view({L, S});
    std::vector<double> as_inf(L * S, 0.0);
    for (int64_t i = 0; i < L * S; ++i)
      if (values(banned.to(kDouble))[i] != 0) as_inf[i] = -std::numeric_limits<double>::infinity();
    auto [out_b, weights_b] = m(q, k, v, Tensor(), true, banned);
    const Reference rb = attention(w, values(q), values(k), values(v), L, S, N, E, E, E, heads,
                                   as_inf, {});
    require_values(out_b, rb.out, 1e-12);
    // A (N * heads, L, S) mask applies per batch and head.
    auto [out_3d, _] = m(q, k, v, Tensor(), true, banned.unsqueeze(0).expand({N * heads, L, S}));
    require_values(out_3d, rb.out, 1e-12);
  }
}

TEST_CASE("MultiheadAttention with kdim/vdim, add_bias_kv and add_zero_attn", "[attention]") {
  manual_seed(4);
  const int64_t L = 2, S = 3, N = 2, E = 6, heads = 3, kdim = 4, vdim = 5;
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions(E, heads).kdim(kdim).vdim(vdim));
  m->to(kDouble);
  const Tensor q = random({L, N, E}), k = random({S, N, kdim}), v = random({S, N, vdim});
  const Weights w = weights_of(m);
  {
    NoGradGuard no_grad;
    auto [out, weights] = m(q, k, v);
    const Reference r = attention(w, values(q), values(k), values(v), L, S, N, E, kdim, vdim,
                                  heads, {}, {});
    require_values(out, r.out, 1e-12);
    require_values(weights, r.weights, 1e-12);
  }
  // add_bias_kv appends one learned key and value (bias_k, bias_v) to every sequence;
  // add_zero_attn one all-zero key and value after the projections. Same module
  // weights: compare with a module without them and the extra key/value spelled out.
  nn::MultiheadAttention extra(nn::MultiheadAttentionOptions(E, E / 2).add_bias_kv(true).add_zero_attn(true));
  extra->to(kDouble);
  NoGradGuard no_grad;
  const Tensor qs = random({L, N, E}), ks = random({S, N, E}), vs = random({S, N, E});
  auto [out, weights] = extra(qs, ks, vs);
  REQUIRE(weights.sizes() == IntArrayRef{N, L, S + 2});
  const int64_t d = 2;  // head_dim
  const Tensor wq = extra->in_proj_weight.narrow(0, 0, E), bq = extra->in_proj_bias.narrow(0, 0, E);
  const Tensor wk = extra->in_proj_weight.narrow(0, E, E), bk = extra->in_proj_bias.narrow(0, E, E);
  const Tensor wv = extra->in_proj_weight.narrow(0, 2 * E, E);
  const Tensor bv = extra->in_proj_bias.narrow(0, 2 * E, E);
  const Tensor pq = matmul(qs, wq.t()) + bq;
  const Tensor pk = cat({matmul(ks, wk.t()) + bk, extra->bias_k.expand({1, N, E}),
                         zeros({1, N, E}, kDouble)});
  const Tensor pv = cat({matmul(vs, wv.t()) + bv, extra->bias_v.expand({1, N, E}),
                         zeros({1, N, E}, kDouble)});
  std::vector<double> heads_out(L * N * E);
  std::vector<double> avg(N * L * (S + 2));
  const std::vector<double> vq = values(pq), vk = values(pk), vv = values(pv);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t h = 0; h < E / d; ++h)
      for (int64_t i = 0; i < L; ++i) {
        std::vector<double> s(S + 2);
        double total = 0;
        for (int64_t j = 0; j < S + 2; ++j) {
          double dot = 0;
          for (int64_t f = h * d; f < (h + 1) * d; ++f)
            dot += vq[(i * N + n) * E + f] * vk[(j * N + n) * E + f];
          total += s[j] = std::exp(dot / std::sqrt(2.0));
        }
        for (int64_t j = 0; j < S + 2; ++j) {
          avg[(n * L + i) * (S + 2) + j] += s[j] / total / (E / d);
          for (int64_t f = h * d; f < (h + 1) * d; ++f)
            heads_out[(i * N + n) * E + f] += s[j] / total * vv[(j * N + n) * E + f];
        }
      }
  require_values(weights, avg, 1e-12);
  require_values(out, values(matmul(tensor(heads_out, kDouble).view({L, N, E}),
                                    extra->out_proj->weight.t()) + extra->out_proj->bias),
                 1e-12);
}

TEST_CASE("MultiheadAttention passes gradcheck in its inputs and weights", "[attention]") {
  manual_seed(5);
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(2).add_bias_kv(true));
  m->to(kDouble);
  const Tensor q = random({2, 2, 4}).requires_grad_(), k = random({3, 2, 3}).requires_grad_();
  const Tensor v = random({3, 2, 2}).requires_grad_();
  const Tensor kpm = tensor({false, true, false, false, false, false}).view({2, 3});
  tensor_list inputs = {q, k, v};  // and every parameter (gradcheck perturbs them in place)
  for (const Tensor& p : m->parameters()) inputs.push_back(p);
  const autograd::GradcheckFn run = [&m, &kpm](const tensor_list& in) {
    auto [out, weights] = m(in[0], in[1], in[2], kpm);
    return out.sum() + (weights * weights).sum();
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(run, inputs));
}

TEST_CASE("MultiheadAttention in training drops attention weights; errors name the shapes",
          "[attention]") {
  manual_seed(6);
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions(4, 2).dropout(0.5));
  const Tensor q = randn({5, 3, 4});
  m->eval();
  auto [eval_out, eval_w] = m(q, q, q);
  auto [eval_out2, eval_w2] = m(q, q, q);
  REQUIRE(values(eval_out) == values(eval_out2));  // no dropout in eval
  m->train();
  auto [train_out, train_w] = m(q, q, q);
  // Dropped weights are 0 and kept ones scaled by 2, so rows no longer sum to 1.
  const std::vector<double> row_sums = values(train_w.sum({-1}));
  bool any_off = false;
  for (double s : row_sums) any_off = any_off || std::abs(s - 1) > 1e-3;
  REQUIRE(any_off);

  REQUIRE_THROWS_WITH(nn::MultiheadAttention(6, 4), Contains("embed_dim (6)") &&
                                                       Contains("num_heads (4)"));
  REQUIRE_THROWS_WITH(m(q, randn({2, 3, 5}), q),
                      Contains("MultiheadAttention") && Contains("[2, 3, 5]"));
  REQUIRE_THROWS_WITH(m(q, q, q, Tensor(), true, zeros({5, 4})),
                      Contains("attn_mask must be (L, S) = [5, 5]") && Contains("[5, 4]"));
  REQUIRE_THROWS_WITH(m(q, q, q, zeros({3, 4}, kBool)),
                      Contains("key_padding_mask must be (N, S) = [3, 5]"));
}

// ------------------------------------------------------------------ F::multi_head_attention_forward

namespace {

namespace F = ember::nn::functional;

// The reference's weights from in_proj (3E, E) / bias (3E) and out_proj.
Weights weights_from(const Tensor& wq, const Tensor& wk, const Tensor& wv, const Tensor& b_in,
                     const Tensor& w_out, const Tensor& b_out) {
  const int64_t e = wq.size(0);
  return {values(wq), values(wk), values(wv), values(b_in.narrow(0, 0, e)),
          values(b_in.narrow(0, e, e)), values(b_in.narrow(0, 2 * e, e)), values(w_out),
          values(b_out)};
}

}  // namespace

TEST_CASE("F::multi_head_attention_forward attends with the weights passed in",
          "[mha_functional]") {
  manual_seed(31);
  const int64_t L = 3, S = 4, N = 2, E = 4, heads = 2;
  const Tensor w_in = random({3 * E, E}), b_in = random({3 * E});
  const Tensor w_out = random({E, E}), b_out = random({E});
  const Tensor q = random({L, N, E}), k = random({S, N, E}), v = random({S, N, E});
  const std::vector<double> additive = {0.5, -1, 0, 2, 0, 0, -0.5, 1, 1, 0, 0, -2};
  const std::vector<bool> padded = {false, true, false, false, false, false, false, true};
  const Tensor kpm = tensor({false, true, false, false, false, false, false, true}).view({N, S});
  auto options = F::MultiheadAttentionForwardFuncOptions(E, heads, w_in, b_in, {}, {}, false,
                                                         0.5, w_out, b_out)
                     .training(false)  // dropout_p applies in training only
                     .key_padding_mask(kpm)
                     .attn_mask(tensor(additive, kDouble).view({L, S}));
  auto [out, weights] = F::multi_head_attention_forward(q, k, v, options);
  const Reference r = attention(weights_from(w_in.narrow(0, 0, E), w_in.narrow(0, E, E),
                                             w_in.narrow(0, 2 * E, E), b_in, w_out, b_out),
                                values(q), values(k), values(v), L, S, N, E, E, E, heads,
                                additive, padded);
  require_values(out, r.out, 1e-12);
  require_values(weights, r.weights, 1e-12);
  auto [out_p, per_head] =
      F::multi_head_attention_forward(q, k, v, options.average_attn_weights(false));
  REQUIRE(per_head.sizes() == IntArrayRef{N, heads, L, S});
  require_values(per_head.mean({1}), r.weights, 1e-12);
  REQUIRE_FALSE(std::get<1>(F::multi_head_attention_forward(q, k, v, options.need_weights(false)))
                    .defined());

  // Separate projections for keys and values of other widths.
  const int64_t kdim = 3, vdim = 5;
  const Tensor wq = random({E, E}), wk = random({E, kdim}), wv = random({E, vdim});
  const Tensor k2 = random({S, N, kdim}), v2 = random({S, N, vdim});
  auto separate = F::MultiheadAttentionForwardFuncOptions(E, heads, {}, b_in, {}, {}, false, 0.0,
                                                          w_out, b_out)
                      .use_separate_proj_weight(true)
                      .q_proj_weight(wq)
                      .k_proj_weight(wk)
                      .v_proj_weight(wv);
  auto [out2, weights2] = F::multi_head_attention_forward(q, k2, v2, separate);
  const Reference r2 = attention(weights_from(wq, wk, wv, b_in, w_out, b_out), values(q),
                                 values(k2), values(v2), L, S, N, E, kdim, vdim, heads, {}, {});
  require_values(out2, r2.out, 1e-12);
  require_values(weights2, r2.weights, 1e-12);
}

TEST_CASE("F::multi_head_attention_forward uses static_k and static_v instead of projecting",
          "[mha_functional]") {
  manual_seed(32);
  const int64_t L = 2, S = 3, N = 2, E = 4, heads = 2, d = 2;
  const Tensor w_in = random({3 * E, E}), b_in = random({3 * E});
  const Tensor w_out = random({E, E}), b_out = random({E});
  const Tensor q = random({L, N, E}), k = random({S, N, E}), v = random({S, N, E});
  const Tensor other_k = random({S, N, E}), other_v = random({S, N, E});
  const auto options = F::MultiheadAttentionForwardFuncOptions(E, heads, w_in, b_in, {}, {},
                                                               false, 0.0, w_out, b_out);
  // other_k and other_v projected and split into heads by hand: (N * heads, S, d).
  auto heads_of = [&](const Tensor& x, int64_t part) {
    return F::linear(x, w_in.narrow(0, part * E, E), b_in.narrow(0, part * E, E))
        .reshape({S, N * heads, d})
        .transpose(0, 1);
  };
  auto fixed = options;
  fixed.static_k(heads_of(other_k, 1)).static_v(heads_of(other_v, 2));
  auto [out, weights] = F::multi_head_attention_forward(q, k, v, fixed);
  auto [want, want_weights] = F::multi_head_attention_forward(q, other_k, other_v, options);
  require_values(out, values(want), 1e-12);
  require_values(weights, values(want_weights), 1e-12);
}

TEST_CASE("F::multi_head_attention_forward passes gradcheck; bad weights are errors",
          "[mha_functional]") {
  manual_seed(33);
  const int64_t E = 4, heads = 2;
  const Tensor q = random({2, 2, E}).requires_grad_(), k = random({3, 2, E}).requires_grad_();
  const Tensor v = random({3, 2, E}).requires_grad_();
  const Tensor w_in = random({3 * E, E}).requires_grad_(), b_in = random({3 * E}).requires_grad_();
  const Tensor w_out = random({E, E}).requires_grad_(), b_out = random({E}).requires_grad_();
  const Tensor bias_k = random({1, 1, E}).requires_grad_(), bias_v = random({1, 1, E}).requires_grad_();
  const Tensor kpm = tensor({false, true, false, false, false, false}).view({2, 3});
  const Tensor mask = random({2, 3});
  const autograd::GradcheckFn run = [&](const tensor_list& in) {
    auto [out, weights] = F::multi_head_attention_forward(
        in[0], in[1], in[2],
        F::MultiheadAttentionForwardFuncOptions(E, heads, in[3], in[4], in[7], in[8], true, 0.0,
                                                in[5], in[6])
            .key_padding_mask(kpm)
            .attn_mask(mask));
    return out.sum() + (weights * weights).sum();
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(run, {q, k, v, w_in, b_in, w_out, b_out, bias_k, bias_v}));

  const Tensor x = random({2, 2, E});
  const auto good = F::MultiheadAttentionForwardFuncOptions(E, heads, random({3 * E, E}), {}, {},
                                                            {}, false, 0.0, w_out, {});
  auto short_in_proj = good;
  short_in_proj.in_proj_weight(random({2 * E, E}));
  REQUIRE_THROWS_WITH(F::multi_head_attention_forward(x, x, x, short_in_proj),
                      Contains("multi_head_attention_forward: in_proj_weight must be (3 * 4, 4), "
                               "got [8, 4]"));
  REQUIRE_THROWS_WITH(
      F::multi_head_attention_forward(x, random({2, 2, 3}), random({2, 2, 3}), good),
      Contains("the key projection weight must be (4, 3) for key [2, 2, 3], got [4, 4]"));
  auto bad_static = good;
  bad_static.static_k(random({4, 2, 3}));
  REQUIRE_THROWS_WITH(F::multi_head_attention_forward(x, x, x, bad_static),
                      Contains("static_k must be (N * num_heads, S, head_dim) = [4, S, 2]"));
  REQUIRE_THROWS_WITH(
      F::multi_head_attention_forward(x, x, x, F::MultiheadAttentionForwardFuncOptions(
          E, heads, random({3 * E, E}), {}, random({1, 1, E}), {}, false, 0.0, w_out, {})),
      Contains("bias_k and bias_v must be given together"));
  REQUIRE_THROWS_WITH(
      F::multi_head_attention_forward(x, x, x, F::MultiheadAttentionForwardFuncOptions(
          3, heads, random({9, 3}), {}, {}, {}, false, 0.0, w_out, {})),
      Contains("expected query (L, N, 3)"));
}
