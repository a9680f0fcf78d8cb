#pragma once
// How a matrix product reads one operand without copying it: the decision both
// devices share (core/ops/linalg/matmul.cpp hands the result to the matmul table's
// gemm: cpu::gemm, or cuBLAS through kernels/common/cuda_plans/blas_plan.h). Plain C++ in
// every build.
#include <cstdint>
#include <optional>

namespace ember {

// A (rows, cols) matrix in memory: element (i, j) at i * ld + j (row-major) or
// i + j * ld (col_major). A transposed view of a row-major matrix is col_major.
struct GemmLayout {
  int64_t ld;
  bool col_major;
};

// The layout that reads a (rows, cols) matrix with element strides
// (row_stride, col_stride) in place, or nullopt when neither dim has a unit
// stride (or the other stride would overlap rows/columns): the caller copies it
// to a contiguous matrix first. Strides of size-1 dims are never followed, so
// they do not disqualify; ld is then at least max(1, rows or cols), as BLAS
// requires of a leading dimension.
std::optional<GemmLayout> gemm_layout(int64_t rows, int64_t cols, int64_t row_stride,
                                      int64_t col_stride);

// One operand as a product reads it: element (i, j) of batch b at
// data + b * batch_stride, then as `layout` says. `data` points at element 0
// (the tensor's data_ptr), in the output's dtype and on its device.
struct GemmOperandRef {
  const void* data;
  GemmLayout layout;
  int64_t batch_stride;  // 0 for a single matrix or an expanded batch
};

}  // namespace ember
