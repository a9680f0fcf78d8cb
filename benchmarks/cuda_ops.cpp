// CUDA figures, each next to a reference measured in the same run: the host
// cost of one op, elementwise and reduction bandwidth next to a cudaMemcpy
// device-to-device of the same bytes, float32 matmul next to the same
// cublasGemmEx called directly, host<->device bandwidth pinned vs pageable,
// and what item() costs. Device times from cudaEvents on stream 0 (where ember
// runs); each figure is the median of several runs. Built only with CUDA;
// without a device it says so and exits 0.
//
//   build-*/benchmarks/cuda_ops [--reps N]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/kernels/cuda/cublas_check.h>
#include <ember/kernels/cuda/cuda_check.h>
#include <ember/core/cuda/sync_count.h>

#include "cuda_timing.h"

using namespace ember;
using bench_timing::median_device_seconds;
using bench_timing::median_seconds;

namespace {

const Device kGpu(kCUDA);

void report(const char* what, double value, const char* unit, const std::string& target) {
  std::printf("%-52s %10.3f %-8s %s\n", what, value, unit, target.c_str());
}

std::string ratio_target(double ratio, double want) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "(%.2fx; target >= %.2fx) %s", ratio, want,
                ratio >= want ? "ok" : "BELOW TARGET");
  return buf;
}

// GB/s of cudaMemcpy device-to-device of `bytes` (a read and a write of each byte).
double copy_bandwidth(size_t bytes, int reps) {
  const Tensor src = empty({int64_t(bytes)}, TensorOptions(kBool).device(kGpu));
  const Tensor dst = empty({int64_t(bytes)}, TensorOptions(kBool).device(kGpu));
  const double s = median_device_seconds(reps, [&] {
    EMBER_CUDA_CHECK(
        cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), bytes, cudaMemcpyDeviceToDevice, nullptr));
  });
  return 2.0 * double(bytes) / s / 1e9;
}

void per_op_overhead(int reps) {
  NoGradGuard no_grad;
  const Tensor a = ones({1}).to(kGpu), b = ones({1}).to(kGpu);
  constexpr int kOps = 20000;
  auto run = [&] {
    for (int i = 0; i < kOps; ++i) {
      const Tensor c = a + b;
    }
    cuda::synchronize();  // one sync at the end: the launches are what is timed
  };
  run();
  report("1-element add on CUDA, launch included", median_seconds(reps, run) / kOps * 1e6,
         "us/op", "(target < 3)");
}

void elementwise_bandwidth(int reps) {
  NoGradGuard no_grad;
  for (int64_t n : {int64_t(1) << 24, int64_t(1) << 26}) {
    const Tensor a = rand({n}).to(kGpu), b = rand({n}).to(kGpu);
    const size_t bytes = size_t(n) * sizeof(float);
    const double add = 3.0 * double(bytes) / median_device_seconds(reps, [&] {
      const Tensor c = a + b;
    }) / 1e9;
    const double copy = copy_bandwidth(bytes, reps);
    const std::string name = std::to_string(n >> 20) + "M float add (3 x " +
                             std::to_string(bytes >> 20) + " MiB moved)";
    report(name.c_str(), add, "GB/s", ratio_target(add / copy, 0.85));
    report("  cudaMemcpy D2D of the same bytes (2 x moved)", copy, "GB/s", "(reference)");
  }
}

void reduction_bandwidth(int reps) {
  NoGradGuard no_grad;
  constexpr int64_t kN = int64_t(1) << 26;
  const Tensor x = rand({kN}).to(kGpu);
  const size_t bytes = size_t(kN) * sizeof(float);
  const double gbs = double(bytes) / median_device_seconds(reps, [&] {
    const Tensor s = ember::sum(x);
  }) / 1e9;
  report("64M float sum (256 MiB read)", gbs, "GB/s",
         ratio_target(gbs / copy_bandwidth(bytes, reps), 0.85));
}

// C (n, n) = A @ B, row-major, as ember hands it to cuBLAS: C^T = B^T A^T.
void direct_gemm(cublasHandle_t handle, int n, const float* a, const float* b, float* c,
                 bool tf32) {
  const float one = 1, zero = 0;
  EMBER_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, CUDA_R_32F,
                                  n, a, CUDA_R_32F, n, &zero, c, CUDA_R_32F, n,
                                  tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
}

void matmul_throughput(int reps) {
  NoGradGuard no_grad;
  constexpr int kSize = 4096;
  const Tensor a = randn({kSize, kSize}).to(kGpu), b = randn({kSize, kSize}).to(kGpu);
  const Tensor c = empty({kSize, kSize}, TensorOptions(kFloat).device(kGpu));
  cublasHandle_t handle = nullptr;
  EMBER_CUBLAS_CHECK(cublasCreate(&handle));
  const std::unique_ptr<cublasContext, cublasStatus_t (*)(cublasHandle_t)> owner(handle,
                                                                                 cublasDestroy);
  EMBER_CUBLAS_CHECK(cublasSetStream(handle, nullptr));
  const double flop = 2.0 * kSize * kSize * double(kSize);
  const bool tf32_before = backends::cuda::allow_tf32();
  for (bool tf32 : {false, true}) {
    backends::cuda::set_allow_tf32(tf32);
    const double ours = flop / median_device_seconds(reps, [&] { const Tensor y = mm(a, b); });
    const double direct = flop / median_device_seconds(reps, [&] {
      direct_gemm(handle, kSize, a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(),
                  tf32);
    });
    report(tf32 ? "4096^3 float32 mm, TF32 on" : "4096^3 float32 mm, TF32 off", ours / 1e12,
           "TFLOP/s", ratio_target(ours / direct, 0.95));
    report("  cublasGemmEx called directly", direct / 1e12, "TFLOP/s", "(reference)");
  }
  backends::cuda::set_allow_tf32(tf32_before);
}

void transfer_bandwidth(int reps) {
  constexpr size_t kBytes = size_t(64) << 20;
  const Tensor device_buffer = empty({int64_t(kBytes)}, TensorOptions(kBool).device(kGpu));
  void* device = device_buffer.data_ptr();
  void* pinned = nullptr;
  EMBER_CUDA_CHECK(cudaHostAlloc(&pinned, kBytes, cudaHostAllocDefault));
  const std::unique_ptr<void, cudaError_t (*)(void*)> pinned_owner(pinned, cudaFreeHost);
  std::vector<char> pageable(kBytes, 1);
  std::memset(pinned, 1, kBytes);
  // Host wall time up to the bytes having landed: a pageable H2D cudaMemcpy
  // may return before its last staged chunk reaches the device, hence the sync.
  auto gbs = [&](void* dst, const void* src, cudaMemcpyKind kind) {
    auto copy = [&] {
      EMBER_CUDA_CHECK(cudaMemcpy(dst, src, kBytes, kind));
      EMBER_CUDA_CHECK(cudaDeviceSynchronize());
    };
    copy();  // warm-up
    return double(kBytes) / median_seconds(reps, copy) / 1e9;
  };
  const double h2d_pinned = gbs(device, pinned, cudaMemcpyHostToDevice);
  const double h2d_pageable = gbs(device, pageable.data(), cudaMemcpyHostToDevice);
  const double d2h_pinned = gbs(pinned, device, cudaMemcpyDeviceToHost);
  const double d2h_pageable = gbs(pageable.data(), device, cudaMemcpyDeviceToHost);
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "(%.2fx pageable; target > 1x)", h2d_pinned / h2d_pageable);
  report("H2D 64 MiB, pinned (cudaHostAlloc)", h2d_pinned, "GB/s", ratio);
  report("H2D 64 MiB, pageable", h2d_pageable, "GB/s", "(reference)");
  std::snprintf(ratio, sizeof ratio, "(%.2fx pageable; target > 1x)", d2h_pinned / d2h_pageable);
  report("D2H 64 MiB, pinned (cudaHostAlloc)", d2h_pinned, "GB/s", ratio);
  report("D2H 64 MiB, pageable", d2h_pageable, "GB/s", "(reference)");
}

// item() waits for the device and copies 4 bytes back; a training-like step
// (forward, backward, item of the loss) should sync once: for the item.
void item_cost(int reps) {
  const Tensor x = ones({1}).to(kGpu);
  constexpr int kCalls = 2000;
  const double s = median_seconds(reps, [&] {
    for (int i = 0; i < kCalls; ++i) (void)x.item<float>();
  });
  report("item() of an idle 1-element CUDA tensor", s / kCalls * 1e6, "us/call",
         "(one sync + 4-byte D2H each)");
  const Tensor w = randn({256, 256}).to(kGpu).requires_grad_(), in = randn({64, 256}).to(kGpu);
  auto step = [&] {
    const Tensor y = mm(in, w).reshape({-1});
    const Tensor loss = dot(y, y);
    loss.backward();
    (void)loss.item<float>();
  };
  step();
  const uint64_t before = cuda::sync_count();
  constexpr int kSteps = 10;
  for (int i = 0; i < kSteps; ++i) step();
  report("host syncs per step (mm, dot, backward, item)",
         double(cuda::sync_count() - before) / kSteps, "syncs", "(target 1: the item)");
}

// Runs one section; an Error (an op not yet on CUDA) is reported, not fatal.
template <typename F>
void section(const char* name, const F& f) {
  try {
    f();
  } catch (const std::exception& e) {
    std::printf("%-52s not run: %s\n", name, e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 9;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
  if (!cuda::is_available()) {
    std::printf("cuda_ops: no CUDA device (%s)\n", cuda::build_info().c_str());
    return 0;
  }
  std::printf("ember cuda_ops: %s; median of %d runs\n\n", cuda::build_info().c_str(), reps);
  section("per-op overhead", [&] { per_op_overhead(reps); });
  section("elementwise bandwidth", [&] { elementwise_bandwidth(reps); });
  section("sum reduction", [&] { reduction_bandwidth(reps); });
  section("matmul", [&] { matmul_throughput(reps); });
  section("host<->device transfers", [&] { transfer_bandwidth(reps); });
  section("item()", [&] { item_cost(reps); });
  return 0;
}
