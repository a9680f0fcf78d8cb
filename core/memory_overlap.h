#pragma once
// Whether the tensors of an in-place op share memory in a way its kernels
// cannot handle, as PyTorch's checks (and with its rules):
//  - internal overlap: two elements of the written-to tensor are one memory
//    location (an expanded tensor): each would be written from its own old
//    value, in whatever order the threads run;
//  - partial overlap: an input and the written-to tensor share some memory
//    but are not the same elements in the same layout (x.sub_(x[0]),
//    y[1:].add_(y[:-1]), m.copy_(m.t())): an element could be read after it
//    was written.
// Both are decided exactly only for non-overlapping, dense tensors (any
// permutation of a contiguous layout); other layouts are "too hard" and let
// through, as PyTorch does.
#include "ember/core/tensor.h"

namespace ember {

enum class MemOverlap { kNo, kYes, kTooHard };
enum class MemOverlapStatus { kFull, kPartial, kNo, kTooHard };

// Some permutation of the dims makes (sizes, strides) contiguous.
bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);

MemOverlap has_internal_overlap(const Tensor& t);
MemOverlapStatus get_overlap_status(const Tensor& a, const Tensor& b);

// Raise an Error naming op, the shapes and strides, and the remedy (clone()).
void assert_no_internal_overlap(const char* op, const Tensor& t);
void assert_no_partial_overlap(const char* op, const Tensor& written, const Tensor& input);
// Also refuses full overlap: for ops (scatter) whose input must not be the
// written-to tensor itself, as an element may be read after it was written.
void assert_no_overlap(const char* op, const Tensor& written, const Tensor& input);

}  // namespace ember
