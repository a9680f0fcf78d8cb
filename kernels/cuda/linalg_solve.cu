// cuSOLVER and cuBLAS behind the linalg_* ops on CUDA tensors. cuSOLVER and
// cuBLAS are column-major: a row-major matrix's memory is its transpose in
// column-major terms. getrf/getrs work on column-major copies; potrf reads
// the row-major lower triangle as the column-major upper one; trsm solves
// the transposed system X^T A^T = B^T in place. Built only with the CUDA
// backend.
#include "ember/kernels/cuda/linalg_solve.h"

#include <algorithm>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/shape/shape_ops.h"
#include "ember/kernels/cuda/copy.h"
#include "ember/kernels/cuda/cublas_check.h"
#include "ember/kernels/cuda/cublas_handle.h"
#include "ember/kernels/cuda/cusolver_check.h"
#include "ember/kernels/cuda/cusolver_handle.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"

namespace ember::cuda {

namespace {

cudaDataType data_type(const Tensor& t) {
  return t.scalar_type() == kDouble ? CUDA_R_64F : CUDA_R_32F;
}

// `bytes` of device memory from the caching allocator, held by a tensor.
Tensor device_buffer(size_t bytes, const Tensor& like) {
  return empty({static_cast<int64_t>(std::max<size_t>(bytes, 1))},
               TensorOptions().dtype(kBool).device(like.device()));
}

// Matrix i of a contiguous (B, r, c) batch.
void* matrix(const Tensor& t, int64_t i) {
  return static_cast<char*>(t.data_ptr()) + i * t.size(1) * t.size(2) * t.element_size();
}

// cuSOLVER's int32 infos (device) into info (CPU int64); waits for the
// device, counted as one synchronization by copy_device_to_host.
void copy_infos(const Tensor& device_infos, const Tensor& info) {
  std::vector<int> host(static_cast<size_t>(info.numel()));
  copy_device_to_host(host.data(), device_infos.data_ptr(), host.size() * sizeof(int),
                      detail::device_of(device_infos));
  int64_t* out = info.data_ptr<int64_t>();
  for (size_t i = 0; i < host.size(); ++i) out[i] = host[i];
}

struct Params {
  cusolverDnParams_t p = nullptr;
  Params() { EMBER_CUSOLVER_CHECK(cusolverDnCreateParams(&p)); }
  ~Params() { cusolverDnDestroyParams(p); }
  Params(const Params&) = delete;
  Params& operator=(const Params&) = delete;
};

// The linalg table's dtypes (linalg_kernels.h): float32 and float64, else
// dispatch_floating's Error naming the op (data_type would read any other
// dtype as float32).
void check_dtype(const Tensor& t, const char* op) {
  dispatch_floating(t.scalar_type(), op, [&]<typename>() {});
}

}  // namespace

void lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  check_dtype(lu, "lu_factor");
  const int64_t batch = lu.size(0), m = lu.size(1), n = lu.size(2), k = std::min(m, n);
  info.zero_();
  if (batch == 0 || k == 0) return;
  const int device = detail::device_of(lu);
  DeviceGuard guard(device);
  NoGradGuard no_grad;
  cusolverDnHandle_t handle = cusolver_handle(device);
  Params params;
  const cudaDataType type = data_type(lu);
  const Tensor cm = lu.transpose(1, 2).contiguous();  // (B, n, m): A column-major, lda = m
  size_t device_bytes = 0, host_bytes = 0;
  EMBER_CUSOLVER_CHECK(cusolverDnXgetrf_bufferSize(handle, params.p, m, n, type, cm.data_ptr(), m,
                                                   type, &device_bytes, &host_bytes));
  const Tensor work = device_buffer(device_bytes, lu);
  std::vector<char> host_work(std::max<size_t>(host_bytes, 1));
  const Tensor infos = device_buffer(static_cast<size_t>(batch) * sizeof(int), lu);
  for (int64_t i = 0; i < batch; ++i)
    EMBER_CUSOLVER_CHECK(cusolverDnXgetrf(
        handle, params.p, m, n, type, matrix(cm, i), m, pivots.data_ptr<int64_t>() + i * k, type,
        work.data_ptr(), device_bytes, host_work.data(), host_bytes,
        static_cast<int*>(infos.data_ptr()) + i));
  lu.copy_(cm.transpose(1, 2));
  copy_infos(infos, info);
}

void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
  check_dtype(b, "lu_solve");
  const int64_t batch = b.size(0), n = b.size(1), k = b.size(2);
  if (b.numel() == 0) return;
  const int device = detail::device_of(b);
  DeviceGuard guard(device);
  NoGradGuard no_grad;
  cusolverDnHandle_t handle = cusolver_handle(device);
  Params params;
  const cudaDataType type = data_type(b);
  const Tensor a_cm = lu.transpose(1, 2).contiguous();  // column-major LU, lda = n
  const Tensor b_cm = b.transpose(1, 2).contiguous();   // column-major B, ldb = n
  const Tensor infos = device_buffer(static_cast<size_t>(batch) * sizeof(int), b);
  for (int64_t i = 0; i < batch; ++i)
    EMBER_CUSOLVER_CHECK(cusolverDnXgetrs(handle, params.p, transpose ? CUBLAS_OP_T : CUBLAS_OP_N,
                                          n, k, type, matrix(a_cm, i), n,
                                          pivots.data_ptr<int64_t>() + i * n, type,
                                          matrix(b_cm, i), n, static_cast<int*>(infos.data_ptr()) + i));
  b.copy_(b_cm.transpose(1, 2));
  // getrs reports only invalid arguments, which would be an ember bug.
  const Tensor host_infos = empty({batch}, TensorOptions().dtype(kLong));
  copy_infos(infos, host_infos);
  for (int64_t i = 0; i < batch; ++i)
    EMBER_INTERNAL_ASSERT(host_infos.data_ptr<int64_t>()[i] == 0, "getrs info ",
                          host_infos.data_ptr<int64_t>()[i]);
}

void cholesky(const Tensor& a, const Tensor& info) {
  check_dtype(a, "cholesky");
  const int64_t batch = a.size(0), n = a.size(1);
  info.zero_();
  if (batch == 0 || n == 0) return;
  const int device = detail::device_of(a);
  DeviceGuard guard(device);
  NoGradGuard no_grad;
  cusolverDnHandle_t handle = cusolver_handle(device);
  Params params;
  const cudaDataType type = data_type(a);
  // The row-major lower triangle is the column-major upper one: potrf(UPPER)
  // gives A = U^T U there, U^T = L in row-major terms.
  size_t device_bytes = 0, host_bytes = 0;
  EMBER_CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(handle, params.p, CUBLAS_FILL_MODE_UPPER, n,
                                                   type, a.data_ptr(), n, type, &device_bytes,
                                                   &host_bytes));
  const Tensor work = device_buffer(device_bytes, a);
  std::vector<char> host_work(std::max<size_t>(host_bytes, 1));
  const Tensor infos = device_buffer(static_cast<size_t>(batch) * sizeof(int), a);
  for (int64_t i = 0; i < batch; ++i)
    EMBER_CUSOLVER_CHECK(cusolverDnXpotrf(handle, params.p, CUBLAS_FILL_MODE_UPPER, n, type,
                                          matrix(a, i), n, type, work.data_ptr(), device_bytes,
                                          host_work.data(), host_bytes,
                                          static_cast<int*>(infos.data_ptr()) + i));
  a.copy_(a.tril());
  copy_infos(infos, info);
}

void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool unitriangular) {
  check_dtype(b, "triangular_solve");
  const int64_t batch = b.size(0), n = b.size(1), k = b.size(2);
  if (b.numel() == 0) return;
  const int device = detail::device_of(b);
  DeviceGuard guard(device);
  cublasHandle_t handle = cublas_handle(device);
  // Row-major A X = B is column-major X^T A^T = B^T, A^T's triangle the other one.
  const cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  const cublasDiagType_t diag = unitriangular ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  for (int64_t i = 0; i < batch; ++i) {
    if (b.scalar_type() == kDouble) {
      const double one = 1;
      EMBER_CUBLAS_CHECK(cublasDtrsm(handle, CUBLAS_SIDE_RIGHT, fill, CUBLAS_OP_N, diag,
                                     static_cast<int>(k), static_cast<int>(n), &one,
                                     static_cast<const double*>(matrix(a, i)), static_cast<int>(n),
                                     static_cast<double*>(matrix(b, i)), static_cast<int>(k)));
    } else {
      const float one = 1;
      EMBER_CUBLAS_CHECK(cublasStrsm(handle, CUBLAS_SIDE_RIGHT, fill, CUBLAS_OP_N, diag,
                                     static_cast<int>(k), static_cast<int>(n), &one,
                                     static_cast<const float*>(matrix(a, i)), static_cast<int>(n),
                                     static_cast<float*>(matrix(b, i)), static_cast<int>(k)));
    }
  }
}

}  // namespace ember::cuda
