#include "ember/kernels/common/gemm_operand.h"

#include <algorithm>

namespace ember {

std::optional<GemmLayout> gemm_layout(int64_t rows, int64_t cols, int64_t row_stride,
                                      int64_t col_stride) {
  const int64_t r1 = std::max<int64_t>(rows, 1), c1 = std::max<int64_t>(cols, 1);
  if ((cols <= 1 || col_stride == 1) && (rows <= 1 || row_stride >= c1))
    return GemmLayout{rows <= 1 ? c1 : row_stride, false};
  if ((rows <= 1 || row_stride == 1) && (cols <= 1 || col_stride >= r1))
    return GemmLayout{cols <= 1 ? r1 : col_stride, true};
  return std::nullopt;
}

}  // namespace ember
