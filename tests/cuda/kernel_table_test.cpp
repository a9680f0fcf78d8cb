// The CUDA elementwise and reduce kernels held to the rows of the op tables
// (kernels/common/elementwise_ops.h, reduce_ops.h) that the CPU kernels are
// held to in tests/kernel_table_test.cpp: each takes exactly its row's dtypes.
#include <catch2/catch.hpp>

#include "../elementwise_dtype_check.h"
#include "../reduce_dtype_check.h"

TEST_CASE("elementwise tables: each CUDA kernel takes exactly the dtypes of its op's row",
          "[cuda][kernel_table]") {
  ember::elementwise_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("reduce table: each CUDA kernel takes exactly the dtypes of its op's row",
          "[cuda][kernel_table]") {
  ember::reduce_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}
