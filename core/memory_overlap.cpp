#include "ember/core/memory_overlap.h"

#include <algorithm>

#include "ember/core/error.h"

namespace ember {

bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  DimVector dims;  // the dims of size > 1, by stride (inline storage: no allocation)
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return true;  // no elements, nothing overlaps
    if (sizes[d] != 1) dims.push_back(static_cast<int64_t>(d));
  }
  std::sort(dims.begin(), dims.end(),
            [&](int64_t a, int64_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (int64_t d : dims) {
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

MemOverlap has_internal_overlap(const Tensor& t) {
  if (t.is_contiguous() || is_non_overlapping_and_dense(t.sizes(), t.strides()))
    return MemOverlap::kNo;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.stride(d) == 0 && t.size(d) > 1) return MemOverlap::kYes;
  return MemOverlap::kTooHard;
}

MemOverlapStatus get_overlap_status(const Tensor& a, const Tensor& b) {
  if (a.impl() == b.impl()) return MemOverlapStatus::kFull;
  if (a.numel() == 0 || b.numel() == 0) return MemOverlapStatus::kNo;
  if (a.impl()->storage() != b.impl()->storage()) return MemOverlapStatus::kNo;
  if (!is_non_overlapping_and_dense(a.sizes(), a.strides()) ||
      !is_non_overlapping_and_dense(b.sizes(), b.strides()))
    return MemOverlapStatus::kTooHard;
  // Dense: each one's elements fill the byte range from its first element on.
  const char* a_begin = static_cast<const char*>(a.data_ptr());
  const char* b_begin = static_cast<const char*>(b.data_ptr());
  const char* a_end = a_begin + a.numel() * element_size(a.scalar_type());
  const char* b_end = b_begin + b.numel() * element_size(b.scalar_type());
  if (a_begin == b_begin && a_end == b_end)
    return a.strides() == b.strides() ? MemOverlapStatus::kFull : MemOverlapStatus::kPartial;
  if (a_begin < b_end && b_begin < a_end) return MemOverlapStatus::kPartial;
  return MemOverlapStatus::kNo;
}

void assert_no_internal_overlap(const char* op, const Tensor& t) {
  EMBER_CHECK(has_internal_overlap(t) != MemOverlap::kYes, op,
              ": unsupported operation: more than one element of the written-to tensor (shape ",
              t.sizes(), ", strides ", t.strides(),
              ") refers to a single memory location; clone() it before the in-place op");
}

namespace {

[[noreturn]] void overlap_error(const char* op, const Tensor& written, const Tensor& input) {
  EMBER_ERROR(op, ": unsupported operation: some elements of the input (shape ", input.sizes(),
              ", strides ", input.strides(), ") and the written-to tensor (shape ",
              written.sizes(), ", strides ", written.strides(),
              ") refer to a single memory location; clone() the input first");
}

}  // namespace

void assert_no_partial_overlap(const char* op, const Tensor& written, const Tensor& input) {
  if (get_overlap_status(written, input) == MemOverlapStatus::kPartial)
    overlap_error(op, written, input);
}

void assert_no_overlap(const char* op, const Tensor& written, const Tensor& input) {
  const MemOverlapStatus s = get_overlap_status(written, input);
  if (s == MemOverlapStatus::kPartial || s == MemOverlapStatus::kFull)
    overlap_error(op, written, input);
}

}  // namespace ember
