// The CUDA elementwise, reduce and scan kernels held to the dtype sets (the
// rows of kernels/common/elementwise_ops.h and reduce_ops.h) that the CPU
// kernels are held to in tests/kernel_table_test.cpp.
#include <catch2/catch.hpp>

#include "../elementwise_dtype_check.h"
#include "../reduce_dtype_check.h"
#include "../scan_dtype_check.h"

TEST_CASE("elementwise tables: each CUDA kernel takes exactly the dtypes of its op's row",
          "[cuda][kernel_table]") {
  ember::elementwise_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("reduce table: each CUDA kernel takes exactly the dtypes of its op's row",
          "[cuda][kernel_table]") {
  ember::reduce_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}

TEST_CASE("scan table: each CUDA kernel takes exactly its dtypes", "[cuda][kernel_table]") {
  ember::scan_dtype_check::check_device(ember::Device(ember::kCUDA, 0));
}
