#include "ember/kernels/cuda/copy_geometry.h"

#include "ember/core/error.h"

namespace ember::cuda {

CopyGeometry make_copy_geometry(const char* op, IntArrayRef sizes, IntArrayRef dst_strides,
                                IntArrayRef src_sizes, IntArrayRef src_strides) {
  const size_t n = sizes.size();
  EMBER_INTERNAL_ASSERT(src_sizes.size() <= n && src_strides.size() == src_sizes.size(),
                        "copy geometry: src shape ", src_sizes, " vs dst shape ", sizes);
  // The dims kept, innermost first.
  DimVector kept_sizes, kept_dst, kept_src;
  const size_t lead = n - src_sizes.size();  // src dims align on the right
  for (size_t i = n; i-- > 0;) {
    if (sizes[i] == 1) continue;
    const bool broadcast = i < lead || src_sizes[i - lead] == 1;
    const int64_t dst = dst_strides[i], src = broadcast ? 0 : src_strides[i - lead];
    if (!kept_sizes.empty()) {
      const size_t in = kept_sizes.size() - 1;  // the dim just inside this one
      if (dst == kept_sizes[in] * kept_dst[in] && src == kept_sizes[in] * kept_src[in]) {
        kept_sizes[in] *= sizes[i];
        continue;
      }
    }
    kept_sizes.push_back(sizes[i]);
    kept_dst.push_back(dst);
    kept_src.push_back(src);
  }
  const int ndim = static_cast<int>(kept_sizes.size());
  EMBER_CHECK(ndim <= kMaxCopyDims, op, ": a CUDA copy over ", ndim, " dims that cannot be "
              "merged (shape ", sizes, ") is not yet supported (at most ", kMaxCopyDims, ")");
  CopyGeometry g;
  g.ndim = ndim;
  for (int k = 0; k < ndim; ++k) {  // back to outermost first
    g.sizes[k] = kept_sizes[ndim - 1 - k];
    g.dst_strides[k] = kept_dst[ndim - 1 - k];
    g.src_strides[k] = kept_src[ndim - 1 - k];
  }
  return g;
}

}  // namespace ember::cuda
