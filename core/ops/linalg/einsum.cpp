// einsum as a composite of views (diagonal, permute, unsqueeze), sum, mul and
// bmm: autograd and CUDA come from those ops.
//
// Note [einsum's aligned operands]: every operand becomes a view with one dim
// per "global" dim, the ellipsis dims first (right-aligned across operands),
// then one per distinct letter in ASCII order; a dim the operand does not
// have is size 1. Operands are then contracted left to right, each pair with
// one bmm, summing each dim as soon as no later operand and not the output
// needs it.
#include "ember/core/autocast.h"
#include "ember/core/ops/linalg/einsum.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/shape/diagonal.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/shape.h"

namespace ember {

namespace {

constexpr int kNumLabels = 52;  // A-Z, then a-z: ASCII order

bool is_label(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
int label_index(char c) { return c <= 'Z' ? c - 'A' : 26 + (c - 'a'); }
char label_char(int l) { return static_cast<char>(l < 26 ? 'A' + l : 'a' + (l - 26)); }

// The letter whose global dim is g.
char label_of(const std::array<int64_t, kNumLabels>& position, int64_t g) {
  return label_char(
      static_cast<int>(std::find(position.begin(), position.end(), g) - position.begin()));
}

// One operand's (or the output's) subscripts.
struct Term {
  std::vector<int> labels;
  int ellipsis_at = -1;  // index into labels where "..." sits, -1 without one
};

// `what` names the term in messages: "operand 1" or "the output".
Term parse_term(std::string_view s, const std::string& what) {
  Term term;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      EMBER_CHECK(s.substr(i, 3) == "...", "einsum(): found '.' for ", what,
                  " that is not part of any ellipsis");
      EMBER_CHECK(term.ellipsis_at < 0, "einsum(): found more than one ellipsis for ", what);
      term.ellipsis_at = static_cast<int>(term.labels.size());
      i += 2;
      continue;
    }
    EMBER_CHECK(is_label(c), "einsum(): invalid subscript '", c, "' for ", what,
                ", subscripts must be in [a-zA-Z]");
    term.labels.push_back(label_index(c));
  }
  return term;
}

struct Equation {
  std::vector<Term> inputs;
  Term output;
  bool explicit_output = false;
};

Equation parse(std::string_view equation, size_t num_operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq.push_back(c);
  Equation parsed;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  if (arrow != std::string::npos) {
    parsed.explicit_output = true;
    parsed.output = parse_term(std::string_view(eq).substr(arrow + 2), "the output");
  }
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    const std::string what = "operand " + std::to_string(parsed.inputs.size());
    parsed.inputs.push_back(parse_term(std::string_view(lhs).substr(start, comma - start), what));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  EMBER_CHECK(parsed.inputs.size() == num_operands, "einsum(): the equation \"", equation,
              "\" has ", parsed.inputs.size(), " operand term(s) but ", num_operands,
              " operand(s) were given");
  return parsed;
}

// The product of a and b (aligned: Note [einsum's aligned operands]) summed
// over the dims d with sum[d], which keep size 1.
Tensor contract_pair(Tensor a, Tensor b, const std::vector<bool>& sum) {
  const int64_t nd = a.dim();
  DimVector batch, left, right, contracted, a_only, b_only, rest;
  for (int64_t d = 0; d < nd; ++d) {
    const bool in_a = a.size(d) != 1, in_b = b.size(d) != 1;
    if (sum[static_cast<size_t>(d)]) {
      if (in_a && in_b)
        contracted.push_back(d);
      else if (in_a)
        a_only.push_back(d);
      else if (in_b)
        b_only.push_back(d);
    } else if (in_a && in_b) {
      batch.push_back(d);
    } else if (in_a) {
      left.push_back(d);
    } else if (in_b) {
      right.push_back(d);
    }
    if (sum[static_cast<size_t>(d)] || (!in_a && !in_b)) rest.push_back(d);  // size 1 in the result
  }
  // A dim summed that only one side has is summed on that side first.
  if (!a_only.empty()) a = a.sum(a_only, /*keepdim=*/true);
  if (!b_only.empty()) b = b.sum(b_only, /*keepdim=*/true);
  // Nothing to contract: the broadcast product is exactly the result's size.
  if (contracted.empty()) return a * b;

  auto numel_of = [](const Tensor& t, const DimVector& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= t.size(d);
    return n;
  };
  auto concat = [](std::initializer_list<const DimVector*> parts) {
    DimVector out;
    for (const DimVector* p : parts)
      for (int64_t d : *p) out.push_back(d);
    return out;
  };
  // Dims not in a permutation's named groups are size 1 on that side: they go last.
  auto complete = [nd](DimVector perm) {
    std::vector<bool> seen(static_cast<size_t>(nd), false);
    for (int64_t d : perm) seen[static_cast<size_t>(d)] = true;
    for (int64_t d = 0; d < nd; ++d)
      if (!seen[static_cast<size_t>(d)]) perm.push_back(d);
    return perm;
  };
  const int64_t nb = numel_of(a, batch), nn = numel_of(a, left), nk = numel_of(a, contracted),
                nm = numel_of(b, right);
  // a: (batch, left, contracted) @ b: (batch, contracted, right) -> (batch, left, right)
  const Tensor a3 = a.permute(complete(concat({&batch, &left, &contracted}))).reshape({nb, nn, nk});
  const Tensor b3 =
      b.permute(complete(concat({&batch, &contracted, &right}))).reshape({nb, nk, nm});
  const Tensor c = bmm(a3, b3);
  // Back to the aligned layout: (batch..., left..., right..., 1 for the rest),
  // then each dim to its place.
  const DimVector order = concat({&batch, &left, &right, &rest});
  DimVector sizes, perm(static_cast<size_t>(nd));
  for (int64_t d : batch) sizes.push_back(a.size(d));
  for (int64_t d : left) sizes.push_back(a.size(d));
  for (int64_t d : right) sizes.push_back(b.size(d));
  sizes.resize(order.size(), 1);
  for (size_t i = 0; i < order.size(); ++i)
    perm[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  return c.view(sizes).permute(perm);
}

}  // namespace

Tensor einsum(std::string_view equation, TensorList tensors) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaLowerPrecisionOp, tensors))
    return einsum(equation, autocast::cast(tensors, *to));
  EMBER_CHECK(!tensors.empty(), "einsum(): must specify at least one operand");
  const Equation eq = parse(equation, tensors.size());
  const Tensor& first = tensors[0];
  for (size_t i = 1; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].device() == first.device(), "einsum(): operand ", i, " is on ",
                tensors[i].device(), " but operand 0 is on ", first.device());
    EMBER_CHECK(tensors[i].scalar_type() == first.scalar_type(), "einsum(): operand ", i,
                " has dtype ", tensors[i].scalar_type(), " but operand 0 has ",
                first.scalar_type());
  }

  // How many dims each operand's "..." covers, and the number of global ellipsis dims.
  std::vector<int64_t> ellipsis_dims(tensors.size(), 0);
  int64_t num_ellipsis = 0;
  std::array<int, kNumLabels> count{};  // occurrences over all operands
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Term& term = eq.inputs[i];
    const int64_t nl = static_cast<int64_t>(term.labels.size()), nd = tensors[i].dim();
    if (term.ellipsis_at < 0) {
      EMBER_CHECK(nl == nd, "einsum(): the number of subscripts in the equation (", nl,
                  ") does not match the number of dimensions (", nd, ") for operand ", i,
                  " (shape ", tensors[i].sizes(), ") and no ellipsis was given");
    } else {
      EMBER_CHECK(nl <= nd, "einsum(): the number of subscripts in the equation (", nl,
                  ") is more than the number of dimensions (", nd, ") for operand ", i, " (shape ",
                  tensors[i].sizes(), ")");
      ellipsis_dims[i] = nd - nl;
      num_ellipsis = std::max(num_ellipsis, nd - nl);
    }
    for (int l : term.labels) ++count[static_cast<size_t>(l)];
  }
  // Global dim of each used letter (Note [einsum's aligned operands]).
  std::array<int64_t, kNumLabels> position{};
  int64_t num_dims = num_ellipsis;
  for (int l = 0; l < kNumLabels; ++l)
    position[static_cast<size_t>(l)] = count[l] ? num_dims++ : -1;

  // The output's global dims, in output order.
  std::vector<int64_t> out_dims;
  auto push_ellipsis = [&] {
    for (int64_t d = 0; d < num_ellipsis; ++d) out_dims.push_back(d);
  };
  if (eq.explicit_output) {
    std::array<bool, kNumLabels> seen{};
    const Term& out = eq.output;
    for (size_t k = 0; k <= out.labels.size(); ++k) {
      if (static_cast<int>(k) == out.ellipsis_at) push_ellipsis();
      if (k == out.labels.size()) break;
      const int l = out.labels[k];
      EMBER_CHECK(!seen[static_cast<size_t>(l)], "einsum(): output subscript ", label_char(l),
                  " appears more than once in the output");
      EMBER_CHECK(count[static_cast<size_t>(l)] > 0, "einsum(): output subscript ", label_char(l),
                  " does not appear in the equation for any input operand");
      seen[static_cast<size_t>(l)] = true;
      out_dims.push_back(position[static_cast<size_t>(l)]);
    }
  } else {
    push_ellipsis();
    for (int l = 0; l < kNumLabels; ++l)
      if (count[static_cast<size_t>(l)] == 1) out_dims.push_back(position[static_cast<size_t>(l)]);
  }
  std::vector<bool> in_output(static_cast<size_t>(num_dims), false);
  for (int64_t d : out_dims) in_output[static_cast<size_t>(d)] = true;

  // Each operand aligned: diagonals of repeated letters, then its dims in
  // global order with size-1 dims for those it lacks.
  std::vector<Tensor> aligned;
  DimVector size_seen(static_cast<size_t>(num_dims), 1);
  std::vector<size_t> seen_in(static_cast<size_t>(num_dims), 0);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Term& term = eq.inputs[i];
    Tensor t = tensors[i];
    std::vector<int64_t> dims;  // global dim of each of t's dims
    for (size_t k = 0; k <= term.labels.size(); ++k) {
      if (static_cast<int>(k) == term.ellipsis_at)
        for (int64_t e = 0; e < ellipsis_dims[i]; ++e)
          dims.push_back(num_ellipsis - ellipsis_dims[i] + e);
      if (k < term.labels.size()) dims.push_back(position[static_cast<size_t>(term.labels[k])]);
    }
    for (size_t p = 0; p < dims.size(); ++p) {
      for (size_t q = p + 1; q < dims.size();) {
        if (dims[q] != dims[p]) {
          ++q;
          continue;
        }
        const int64_t sp = t.size(static_cast<int64_t>(p)), sq = t.size(static_cast<int64_t>(q));
        EMBER_CHECK(sp == sq, "einsum(): subscript ", label_of(position, dims[p]),
                    " is repeated for operand ", i, " but the sizes don't match, ", sp, " != ", sq);
        // The diagonal's dim goes last: keep `dims` in step.
        t = t.diagonal(0, static_cast<int64_t>(p), static_cast<int64_t>(q));
        const int64_t d = dims[p];
        dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(q));
        dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(p));
        dims.push_back(d);
        q = p + 1;
      }
    }
    DimVector perm;
    for (int64_t g = 0; g < num_dims; ++g)
      for (size_t k = 0; k < dims.size(); ++k)
        if (dims[k] == g) perm.push_back(static_cast<int64_t>(k));
    t = t.permute(perm);
    for (int64_t g = 0; g < num_dims; ++g) {
      const bool has = std::find(dims.begin(), dims.end(), g) != dims.end();
      if (!has) {
        t = t.unsqueeze(g);
        continue;
      }
      const int64_t s = t.size(g);
      int64_t& prev = size_seen[static_cast<size_t>(g)];
      if (s != 1 && prev != 1 && s != prev) {
        if (g < num_ellipsis)
          EMBER_ERROR("einsum(): dimension ", g - (num_ellipsis - ellipsis_dims[i]),
                      " covered by the ellipsis of operand ", i, " has size ", s,
                      ", which does not broadcast with size ", prev, " seen for it in operand ",
                      seen_in[static_cast<size_t>(g)]);
        EMBER_ERROR("einsum(): subscript ", label_of(position, g), " has size ", s, " for operand ",
                    i, " which does not broadcast with size ", prev, " seen for it in operand ",
                    seen_in[static_cast<size_t>(g)]);
      }
      if (s != 1) {
        prev = s;
        seen_in[static_cast<size_t>(g)] = i;
      }
    }
    aligned.push_back(t);
  }

  // Contract left to right; a dim is summed once neither the output nor a later operand has it.
  Tensor result = aligned[0];
  if (aligned.size() == 1) {
    DimVector summed;
    for (int64_t g = 0; g < num_dims; ++g)
      if (!in_output[static_cast<size_t>(g)] && result.size(g) != 1) summed.push_back(g);
    if (!summed.empty()) result = result.sum(summed, /*keepdim=*/true);
  }
  for (size_t i = 1; i < aligned.size(); ++i) {
    std::vector<bool> sum(static_cast<size_t>(num_dims));
    for (int64_t g = 0; g < num_dims; ++g) {
      bool later = in_output[static_cast<size_t>(g)];
      for (size_t j = i + 1; j < aligned.size() && !later; ++j) later = aligned[j].size(g) != 1;
      sum[static_cast<size_t>(g)] = !later;
    }
    result = contract_pair(result, aligned[i], sum);
  }

  // Drop the summed (now size-1) dims, then put the output's dims in its order.
  for (int64_t g = num_dims - 1; g >= 0; --g)
    if (!in_output[static_cast<size_t>(g)]) result = result.squeeze(g);
  DimVector kept;  // global dims left, ascending
  for (int64_t g = 0; g < num_dims; ++g)
    if (in_output[static_cast<size_t>(g)]) kept.push_back(g);
  DimVector perm;
  for (int64_t d : out_dims) perm.push_back(std::find(kept.begin(), kept.end(), d) - kept.begin());
  return result.permute(perm);
}

}  // namespace ember
