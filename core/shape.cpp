#include "ember/core/shape.h"

#include <algorithm>

#include "ember/core/error.h"

namespace ember {

std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::optional<int64_t> checked_numel(IntArrayRef sizes) {
  int64_t numel = 1, span = 1;
  for (int64_t s : sizes) {
    if (s < 0) return std::nullopt;
    const std::optional<int64_t> next = checked_mul(span, std::max<int64_t>(s, 1));
    if (!next) return std::nullopt;
    span = *next;
    numel *= s;  // <= span: cannot overflow
  }
  return numel;
}

namespace {

[[noreturn]] void invalid_shape(IntArrayRef sizes) {
  EMBER_ERROR("shape ", sizes, " is invalid: a size is negative, or the product of its sizes "
              "(a zero counted as one) overflows int64");
}

// Every tensor's shape passes here (TensorImpl counts its elements).
int64_t numel_or_error(IntArrayRef sizes) {
  const std::optional<int64_t> n = checked_numel(sizes);
  if (!n) invalid_shape(sizes);
  return *n;
}

}  // namespace

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  EMBER_CHECK(dim >= lo && dim <= hi, op, ": dimension ", dim, " out of range for a ", ndim,
              "-d tensor (expected in [", lo, ", ", hi, "])");
  return dim < 0 ? dim + (ndim == 0 ? 1 : ndim) : dim;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  // The running product is the span checked_numel checks: checked here in the
  // same pass, since every new tensor comes through (a separate checked_numel
  // pass showed in benchmarks/cpu_ops' per-op overhead).
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    if (sizes[i] < 0 || __builtin_mul_overflow(s, std::max<int64_t>(sizes[i], 1), &s))
      invalid_shape(sizes);
  }
  return strides;
}

int64_t compute_numel(IntArrayRef sizes) { return numel_or_error(sizes); }

bool is_contiguous_layout(IntArrayRef sizes, IntArrayRef strides) {
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 0) return true;
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1, op, ": shapes ", a, " and ", b,
                " cannot be broadcast (size ", da, " vs ", db, " at dimension ", i, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool is_expandable_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    if (f != t && f != 1) return false;
  }
  return true;
}

DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector out(shape);
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(!infer, op, ": only one dimension can be -1 in ", shape);
      infer = i;
    } else {
      EMBER_CHECK(shape[i] >= 0, op, ": invalid size ", shape[i], " in ", shape);
      known *= shape[i];
    }
  }
  if (infer) {
    EMBER_CHECK(known != 0 && numel % known == 0, op, ": shape ", shape,
                " is invalid for input of size ", numel);
    out[*infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, op, ": shape ", shape, " is invalid for input of size ", numel);
  }
  return out;
}

std::optional<DimVector> view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes) {
  DimVector out(new_sizes.size());
  if (compute_numel(sizes) == 0 || sizes.empty()) return contiguous_strides(new_sizes);
  // Walk old dims in chunks that are contiguous among themselves; each chunk
  // must map onto a run of new dims with the same element count.
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace ember
