#include "ember/kernels/common/broadcast_geometry.h"

#include "ember/core/error.h"

namespace ember {

BroadcastGeometry broadcast_geometry(IntArrayRef sizes, const IntArrayRef* operand_sizes,
                                     const IntArrayRef* operand_strides, int num_operands) {
  EMBER_INTERNAL_ASSERT(num_operands >= 1 && num_operands <= kMaxBroadcastOperands,
                        "broadcast geometry: ", num_operands, " operands");
  const size_t n = sizes.size();
  // The dims kept, innermost first, and each operand's strides on them.
  DimVector kept_sizes;
  std::array<DimVector, kMaxBroadcastOperands> kept;
  int64_t stride[kMaxBroadcastOperands];
  for (size_t i = n; i-- > 0;) {
    if (sizes[i] == 1) continue;
    for (int k = 0; k < num_operands; ++k) {
      const IntArrayRef s = operand_sizes[k];
      EMBER_INTERNAL_ASSERT(s.size() <= n && operand_strides[k].size() == s.size(),
                            "broadcast geometry: operand shape ", s, " vs shape ", sizes);
      const size_t lead = n - s.size();  // operand dims align on the right
      const bool broadcast = i < lead || s[i - lead] == 1;
      stride[k] = broadcast ? 0 : operand_strides[k][i - lead];
    }
    if (!kept_sizes.empty()) {
      const size_t in = kept_sizes.size() - 1;  // the dim just inside this one
      bool merges = true;
      for (int k = 0; k < num_operands; ++k)
        merges = merges && stride[k] == kept_sizes[in] * kept[k][in];
      if (merges) {
        kept_sizes[in] *= sizes[i];
        continue;
      }
    }
    kept_sizes.push_back(sizes[i]);
    for (int k = 0; k < num_operands; ++k) kept[k].push_back(stride[k]);
  }
  BroadcastGeometry g;
  const size_t ndim = kept_sizes.size();
  g.sizes = DimVector(ndim);
  for (int k = 0; k < num_operands; ++k) g.strides[k] = DimVector(ndim);
  for (size_t d = 0; d < ndim; ++d) {  // back to outermost first
    g.sizes[d] = kept_sizes[ndim - 1 - d];
    for (int k = 0; k < num_operands; ++k) g.strides[k][d] = kept[k][ndim - 1 - d];
  }
  return g;
}

}  // namespace ember
