#pragma once
// CopyGeometry: the shape and element strides of a strided copy (or fill) on
// the device, reduced to as few dims as possible and passed to the kernel by
// value. Plain C++ (built in every configuration, so it is tested on the CPU).
#include <cstdint>

#include "ember/core/dim_vector.h"
#include "ember/kernels/common/macros.h"

namespace ember::cuda {

// More dims than this after merging: the copy kernels refuse (an Error).
constexpr int kMaxCopyDims = 6;

struct CopyGeometry {
  int ndim = 0;  // 0: one element at offset 0 of each
  int64_t sizes[kMaxCopyDims] = {};
  int64_t dst_strides[kMaxCopyDims] = {};
  int64_t src_strides[kMaxCopyDims] = {};
};

// The geometry of dst[i] = src[i] over dst's shape, src broadcast to it
// (stride 0 on broadcast dims; no src dims at all for a fill). Size-1 dims
// are dropped and neighbours that both tensors step through as one run are
// merged, so a contiguous copy has one dim. Error naming `op` when more than
// kMaxCopyDims remain.
CopyGeometry make_copy_geometry(const char* op, IntArrayRef sizes, IntArrayRef dst_strides,
                                IntArrayRef src_sizes, IntArrayRef src_strides);

// The element offsets in dst and src of the element with row-major index i
// over g.sizes: the index math of the copy kernels, shared with the CPU tests.
EMBER_HOST_DEVICE void element_offsets(const CopyGeometry& g, int64_t i, int64_t& dst,
                                       int64_t& src) {
  dst = 0;
  src = 0;
  for (int k = g.ndim - 1; k >= 0; --k) {
    const int64_t idx = i % g.sizes[k];
    i /= g.sizes[k];
    dst += idx * g.dst_strides[k];
    src += idx * g.src_strides[k];
  }
}

}  // namespace ember::cuda
