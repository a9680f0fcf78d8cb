// flip, roll, repeat, tril, triu, rot90 as compositions of differentiable ops, so
// each gets its gradient (and double backward) from the ops it calls.
#include "ember/core/ops/shape/shape_ops.h"

#include <vector>

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/shape/views.h"
#include "ember/core/shape.h"

namespace ember {
namespace {

int64_t wrap(int64_t d, const Tensor& x, const char* op) {
  EMBER_CHECK(d >= -x.dim() && d < x.dim(), op, ": dim ", d, " out of range for a tensor of shape ",
              x.sizes(), " (expected in [", -x.dim(), ", ", x.dim() - 1, "])");
  return d < 0 ? d + x.dim() : d;
}

// Where the triangle of the last two dims keeps its elements: col - row <= k
// (lower) or >= k (upper).
Tensor triangle_mask(const char* op, const Tensor& x, int64_t k, bool lower) {
  EMBER_CHECK(x.dim() >= 2, op, ": expected a tensor with at least 2 dims, got shape ", x.sizes());
  const TensorOptions index = TensorOptions(kLong).device(x.device());
  const Tensor row = arange(x.size(-2), index).unsqueeze(1), col = arange(x.size(-1), index);
  const Tensor offset = col - row;
  return lower ? offset <= k : offset >= k;
}

}  // namespace

Tensor flip(const Tensor& x, IntArrayRef dims) {
  std::vector<bool> seen(static_cast<size_t>(x.dim()), false);
  Tensor out = x;
  for (int64_t d : dims) {
    const int64_t w = wrap(d, x, "flip");
    EMBER_CHECK(!seen[w], "flip: dim ", d, " appears more than once in dims ", dims);
    seen[w] = true;
    const int64_t n = x.size(w);
    out = index_select(out, w, arange(n - 1, -1, -1, TensorOptions(kLong).device(x.device())));
  }
  return dims.empty() ? x.clone() : out;
}

Tensor roll(const Tensor& x, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, "roll: without dims, expected one shift, got ", shifts);
    return roll(x.flatten(), shifts, {0}).view(x.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "roll: shifts ", shifts, " and dims ", dims,
              " must have the same length");
  Tensor out = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap(dims[i], x, "roll"), n = x.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;  // the last s elements come first
    if (s != 0) out = cat({out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
  }
  return out.is_same(x) ? x.clone() : out;
}

Tensor repeat(const Tensor& x, IntArrayRef repeats) {
  const int64_t n = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(n >= x.dim(), "repeat: the number of repeats ", repeats,
              " can't be smaller than the number of dims of the tensor of shape ", x.sizes());
  for (int64_t r : repeats) EMBER_CHECK(r >= 0, "repeat: negative repeat in ", repeats);
  // x as (1, s0, 1, s1, ...) expanded to (r0, s0, r1, s1, ...), then merged pairwise.
  DimVector padded(static_cast<size_t>(n - x.dim()), 1);
  for (int64_t s : x.sizes()) padded.push_back(s);
  DimVector interleaved, expanded, result;
  for (int64_t i = 0; i < n; ++i) {
    interleaved.push_back(1);
    interleaved.push_back(padded[i]);
    expanded.push_back(repeats[i]);
    expanded.push_back(padded[i]);
    result.push_back(repeats[i] * padded[i]);
  }
  const Tensor out = x.reshape(interleaved).expand(expanded).reshape(result);
  return out.is_alias_of(x) ? out.clone() : out;  // a copy even when every repeat is 1
}

// The zero as a CPU scalar of x's dtype, so that a bool x stays bool.
Tensor tril(const Tensor& x, int64_t k) {
  return where(triangle_mask("tril", x, k, true), x, zeros({}, x.options().device(kCPU)));
}
Tensor triu(const Tensor& x, int64_t k) {
  return where(triangle_mask("triu", x, k, false), x, zeros({}, x.options().device(kCPU)));
}

Tensor rot90(const Tensor& x, int64_t k, IntArrayRef dims) {
  EMBER_CHECK(dims.size() == 2, "rot90: expected 2 dims, got ", dims);
  EMBER_CHECK(x.dim() >= 2, "rot90: expected a tensor with at least 2 dims, got shape ", x.sizes());
  const int64_t d0 = wrap(dims[0], x, "rot90"), d1 = wrap(dims[1], x, "rot90");
  EMBER_CHECK(d0 != d1, "rot90: the two dims must differ, got ", dims);
  switch (((k % 4) + 4) % 4) {
    case 1: return flip(x, {d1}).transpose(d0, d1);
    case 2: return flip(x, {d0, d1});
    case 3: return flip(x, {d0}).transpose(d0, d1);
    default: return x.clone();
  }
}

Tensor Tensor::flip(IntArrayRef dims) const { return ember::flip(*this, dims); }
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const { return ember::roll(*this, shifts, dims); }
Tensor Tensor::repeat(IntArrayRef repeats) const { return ember::repeat(*this, repeats); }
Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const { return ember::rot90(*this, k, dims); }

}  // namespace ember
