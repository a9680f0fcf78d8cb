#pragma once
// MultiheadAttention, as torch::nn::MultiheadAttention (libtorch 1.13): inputs
// are sequence-first, query (L, N, E), key (S, N, kdim), value (S, N, vdim).
//   nn::MultiheadAttention attn(nn::MultiheadAttentionOptions(64, 8).dropout(0.1));
//   auto [out, weights] = attn(x, x, x);  // self-attention: out (L, N, E), weights (N, L, S)
// Each head h attends with q_h k_h^T / sqrt(E / num_heads), plus attn_mask,
// with key_padding_mask's keys left out, softmax over the keys, dropout, then
// the weighted sum of v_h; the heads are concatenated and go through out_proj
// (F::multi_head_attention_forward with the module's weights).
// Parameters carry PyTorch's names (in_proj_weight, or q/k/v_proj_weight when
// kdim or vdim differ from embed_dim; in_proj_bias, bias_k, bias_v, out_proj),
// so a PyTorch state_dict loads. Module hooks are not run (several inputs).
#include <ostream>
#include <tuple>

#include "ember/nn/module_holder.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/options/multihead_attention.h"

namespace ember::nn {

class MultiheadAttentionImpl : public Module {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);

  // key_padding_mask: (N, S), true (or -inf when floating) for keys to ignore.
  // attn_mask: (L, S) or (N * num_heads, L, S), bool (true = not allowed) or
  // floating (added to the scores). Returns the output (L, N, E) and, when
  // need_weights, the attention weights: (N, L, S) averaged over the heads, or
  // (N, num_heads, L, S); an undefined tensor otherwise.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {},
                                     bool need_weights = true, const Tensor& attn_mask = {},
                                     bool average_attn_weights = true);
  // PyTorch's initialization: xavier_uniform_ projections, zero biases,
  // xavier_normal_ bias_k and bias_v; out_proj's weight keeps Linear's.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim;
  int64_t head_dim;
  Tensor in_proj_weight;  // (3E, E) when kdim == vdim == E, else undefined
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;  // otherwise: (E, E), (E, kdim), (E, vdim)
  Tensor in_proj_bias;    // (3E), undefined with bias(false)
  Tensor bias_k, bias_v;  // (1, 1, E) with add_bias_kv
  Linear out_proj = nullptr;
};
EMBER_MODULE(MultiheadAttention);

}  // namespace ember::nn
