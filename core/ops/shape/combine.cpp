// meshgrid is views (reshape + expand); cartesian_prod and block_diag are
// stacks and cats of them, so all three are differentiable on either device.
#include "ember/core/ops/shape/combine.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/shape/views.h"

namespace ember {

std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), "meshgrid: expected a non-empty list of tensors");
  EMBER_CHECK(indexing == "ij" || indexing == "xy",
              "meshgrid: indexing must be \"ij\" or \"xy\", got \"", indexing, "\"");
  const size_t n = tensors.size();
  for (size_t i = 0; i < n; ++i) {
    EMBER_CHECK(tensors[i].dim() <= 1, "meshgrid: expected 0-d or 1-d tensors, tensor ", i,
                " has shape ", tensors[i].sizes());
    EMBER_CHECK(tensors[i].scalar_type() == tensors[0].scalar_type() &&
                    tensors[i].device() == tensors[0].device(),
                "meshgrid: expected one dtype and device, tensor ", i, " is ",
                tensors[i].toString(), ", tensor 0 is ", tensors[0].toString());
  }
  const bool swap = indexing == "xy" && n >= 2;
  // dim_of[i]: the dim along which tensor i varies
  std::vector<int64_t> dim_of(n);
  DimVector shape(n);
  for (size_t i = 0; i < n; ++i) {
    dim_of[i] = swap && i < 2 ? 1 - static_cast<int64_t>(i) : static_cast<int64_t>(i);
    shape[static_cast<size_t>(dim_of[i])] = tensors[i].numel();
  }
  std::vector<Tensor> grids;
  for (size_t i = 0; i < n; ++i) {
    DimVector along(n, 1);
    along[static_cast<size_t>(dim_of[i])] = -1;
    grids.push_back(tensors[i].reshape(along).expand(shape));
  }
  return grids;
}

std::vector<Tensor> meshgrid(TensorList tensors) { return meshgrid(tensors, "ij"); }

Tensor cartesian_prod(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "cartesian_prod: expected a non-empty list of tensors");
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].dim() == 1, "cartesian_prod: expected 1-d tensors, tensor ", i,
                " has shape ", tensors[i].sizes());
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> columns;
  for (const Tensor& g : meshgrid(tensors, "ij")) columns.push_back(g.flatten());
  return stack(columns, 1);
}

// Each block padded with zeros to the full width, then the rows stacked.
Tensor block_diag(TensorList tensors) {
  std::vector<Tensor> blocks;
  int64_t cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2, "block_diag: expected tensors of at most 2 dims, tensor ", i,
                " has shape ", t.sizes());
    blocks.push_back(t.dim() == 2 ? t : t.reshape({1, -1}));
    cols += blocks.back().size(1);
  }
  if (blocks.empty()) return empty({1, 0});
  std::vector<Tensor> rows;
  int64_t left = 0;
  for (const Tensor& b : blocks) {
    const int64_t r = b.size(0), c = b.size(1);
    rows.push_back(
        cat({zeros({r, left}, b.options()), b, zeros({r, cols - left - c}, b.options())}, 1));
    left += c;
  }
  return cat(rows, 0);
}

}  // namespace ember
