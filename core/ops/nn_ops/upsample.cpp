// upsample_nearest2d and upsample_bilinear2d (declared in pooling.h): checks
// as PyTorch, kernels through the upsample table (kernels/common/
// upsample_kernels.h), derivatives as plane maps (Note [Plane maps] in
// plane_map.h).
#include "ember/core/ops/nn_ops/plane_map.h"
#include "ember/core/ops/nn_ops/pooling.h"
#include "ember/core/ops/nn_ops/upsample.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

namespace {

void check_output_size(const char* op, IntArrayRef output_size) {
  EMBER_CHECK(output_size.size() == 2 && output_size[0] > 0 && output_size[1] > 0, op,
              ": output_size must be two positive values (height, width), got ", output_size);
}

// The kernels of the plane maps through the upsample table, on the input's device.
void nearest2d_kernel(const Tensor& in, const Tensor& out) {
  kernels().upsample.nearest2d.on(in.device(), "upsample_nearest2d")(in, out);
}
void nearest2d_backward_kernel(const Tensor& in, const Tensor& out) {
  kernels().upsample.nearest2d_backward.on(in.device(), "upsample_nearest2d_backward")(in, out);
}
detail::PlaneMap::Kernel bilinear2d_kernel(bool align_corners) {
  return [align_corners](const Tensor& in, const Tensor& out) {
    kernels().upsample.bilinear2d.on(in.device(), "upsample_bilinear2d")(in, out, align_corners);
  };
}
detail::PlaneMap::Kernel bilinear2d_backward_kernel(bool align_corners) {
  return [align_corners](const Tensor& in, const Tensor& out) {
    kernels().upsample.bilinear2d_backward.on(in.device(), "upsample_bilinear2d_backward")(
        in, out, align_corners);
  };
}

}  // namespace

Tensor upsample_nearest2d(const Tensor& x, IntArrayRef output_size) {
  detail::check_planes_input("upsample_nearest2d", x);
  check_output_size("upsample_nearest2d", output_size);
  // derivative: UpsampleNearest2dBackward: d/dx = g summed over the output pixels each input pixel was copied to (the adjoint map); UpsampleNearest2dBackwardBackward: d/dg = upsample_nearest2d(gg)
  auto map = std::make_shared<const detail::PlaneMap>(detail::PlaneMap{
      "UpsampleNearest2dBackward", "UpsampleNearest2dBackwardBackward", x.size(-2), x.size(-1),
      output_size[0], output_size[1],
      nearest2d_kernel, nearest2d_backward_kernel});
  return detail::apply_plane_map(x, map, /*adjoint=*/false);
}

Tensor upsample_bilinear2d(const Tensor& x, IntArrayRef output_size, bool align_corners) {
  detail::check_planes_input("upsample_bilinear2d", x);
  check_output_size("upsample_bilinear2d", output_size);
  // derivative: UpsampleBilinear2dBackward: d/dx = g spread back with the interpolation weights (the adjoint map); UpsampleBilinear2dBackwardBackward: d/dg = upsample_bilinear2d(gg)
  auto map = std::make_shared<const detail::PlaneMap>(detail::PlaneMap{
      "UpsampleBilinear2dBackward", "UpsampleBilinear2dBackwardBackward", x.size(-2), x.size(-1),
      output_size[0], output_size[1], bilinear2d_kernel(align_corners),
      bilinear2d_backward_kernel(align_corners)});
  return detail::apply_plane_map(x, map, /*adjoint=*/false);
}

}  // namespace ember
