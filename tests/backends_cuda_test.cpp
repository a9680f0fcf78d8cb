// backends::cuda::allow_tf32: the matmul TF32 switch (a plain flag, so it is
// checked on the CPU; tests/cuda/matmul_test.cpp checks its effect on a device).
#include <catch2/catch.hpp>

#include <ember/core/backends.h>

using namespace ember;

TEST_CASE("backends::cuda::allow_tf32 is off by default, as PyTorch's matmul.allow_tf32",
          "[cuda_blas]") {
  CHECK_FALSE(backends::cuda::allow_tf32());
}

TEST_CASE("backends::cuda::set_allow_tf32 sets the flag and leaves cuDNN's own alone",
          "[cuda_blas]") {
  const bool cudnn_before = backends::cudnn::allow_tf32();
  backends::cuda::set_allow_tf32(true);
  CHECK(backends::cuda::allow_tf32());
  CHECK(backends::cudnn::allow_tf32() == cudnn_before);
  backends::cuda::set_allow_tf32(false);
  CHECK_FALSE(backends::cuda::allow_tf32());
  CHECK(backends::cudnn::allow_tf32() == cudnn_before);
}
