// The CUDA kernels held to the dtype sets the CPU kernels are held to in
// tests/kernel_table_test.cpp: the elementwise and reduce ones to the rows of
// their op tables (kernels/common/elementwise_ops.h, reduce_ops.h), the scan,
// indexing, bucketing, cross-entropy, factory, random and nn families' to the
// dtypes their tables' headers name, the sort and copy families' to every dtype.
#include <catch2/catch.hpp>
#include <ember/core/ops/linalg/linalg_spectral.h>

#include "../bucketing_dtype_check.h"
#include "../copy_dtype_check.h"
#include "../elementwise_dtype_check.h"
#include "../factory_dtype_check.h"
#include "../indexing_dtype_check.h"
#include "../linalg_dtype_check.h"
#include "../matmul_dtype_check.h"
#include "../nn_kernels_dtype_check.h"
#include "../random_dtype_check.h"
#include "../reduce_dtype_check.h"
#include "../scan_dtype_check.h"
#include "../sort_dtype_check.h"

TEST_CASE("elementwise tables: each CUDA kernel takes exactly the dtypes of its op's row",
          "[cuda][kernel_table]") {
  ember::elementwise_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("pooling table: each CUDA kernel takes float32 and float64 only",
          "[cuda][kernel_table][pooling]") {
  ember::nn_kernels_dtype_check::check_pooling(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("upsample table: each CUDA kernel takes float32 and float64 only",
          "[cuda][kernel_table][upsample]") {
  ember::nn_kernels_dtype_check::check_upsample(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("pad table: each CUDA kernel takes float32 and float64 only",
          "[cuda][kernel_table][pad]") {
  ember::nn_kernels_dtype_check::check_pad(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("normalization table: each fused CUDA kernel takes float32 and float64 only",
          "[cuda][kernel_table][normalization]") {
  ember::nn_kernels_dtype_check::check_normalization(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("softmax table: each CUDA kernel takes float32 and float64 only",
          "[cuda][kernel_table][softmax]") {
  ember::nn_kernels_dtype_check::check_softmax(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("cross-entropy table: each CUDA kernel takes float32 and float64 only, and takes "
          "the scores as rows",
          "[cuda][kernel_table][cross_entropy]") {
  const ember::Device gpu(ember::kCUDA, 0);
  CHECK_FALSE(ember::kernels().cross_entropy.by_columns.on(gpu, "cross_entropy")());
  ember::nn_kernels_dtype_check::check_cross_entropy(gpu);
}

TEST_CASE("bucketing table: each CUDA kernel takes exactly the dtypes of its set",
          "[cuda][kernel_table][bucketing]") {
  ember::bucketing_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("reduce table: each CUDA kernel takes exactly the dtypes of its op's row",
          "[cuda][kernel_table]") {
  ember::reduce_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("scan table: each CUDA kernel takes exactly its dtypes", "[cuda][kernel_table]") {
  ember::scan_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("sort table: each CUDA kernel takes every dtype and writes (outer, m, inner)",
          "[cuda][kernel_table][sort]") {
  ember::sort_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("indexing table: each CUDA kernel takes exactly its dtypes",
          "[cuda][kernel_table][index]") {
  ember::indexing_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("indexing table: CUDA shows the host no bad index value (its kernels report it)",
          "[cuda][kernel_table][index]") {
  using namespace ember;
  const Device gpu(kCUDA, 0);
  const Tensor index = full({3}, 7, TensorOptions(kLong).device(gpu));
  CHECK(kernels().indexing.find_out_of_range.on(gpu, "gather")(index, 0, 5) == std::nullopt);
}

TEST_CASE("copy table: the CUDA copy takes every pair of dtypes and the fill every dtype",
          "[cuda][kernel_table][copy]") {
  ember::copy_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("factory table: each CUDA range kernel takes int64, float32 and float64 only",
          "[cuda][kernel_table][factory]") {
  ember::factory_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("random table: each CUDA kernel takes exactly its dtypes", "[cuda][kernel_table][random]") {
  ember::random_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("conv table: each cuDNN pass takes float32 and float64 only (cuDNN once read any "
          "other dtype as float32; the op checks it before)",
          "[cuda][kernel_table][conv]") {
  ember::nn_kernels_dtype_check::check_conv(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("matmul table: the cuBLAS gemm takes float32 and float64 only",
          "[cuda][kernel_table][matmul]") {
  ember::matmul_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("linalg table: each cuSOLVER/cuBLAS solver takes float32 and float64 only (they once "
          "read any other dtype as float32; the ops check it before)",
          "[cuda][kernel_table][linalg]") {
  ember::linalg_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("linalg ops: the decompositions of a CUDA tensor still say 'CUDA is not supported yet' "
          "(checked before the table, which has only the CPU's kernels for them)",
          "[cuda][kernel_table][linalg]") {
  using namespace ember;
  const Tensor a = eye(2, TensorOptions().device(Device(kCUDA, 0)));
  REQUIRE_THROWS_WITH(linalg_eigh(a), Catch::Contains("linalg.eigh: CUDA is not supported yet"));
  REQUIRE_THROWS_WITH(linalg_svd(a), Catch::Contains("linalg.svd: CUDA is not supported yet"));
  REQUIRE_THROWS_WITH(linalg_qr(a), Catch::Contains("linalg.qr: CUDA is not supported yet"));
}
