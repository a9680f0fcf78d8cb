#pragma once
// EMBER_CUDA_CHECK(call): every CUDA runtime call and every kernel launch is
// checked; a failure throws ember::Error naming the call and its file:line.
#include <cuda_runtime.h>

#include "ember/core/error.h"

#define EMBER_CUDA_CHECK(call)                                                             \
  do {                                                                                     \
    const cudaError_t ember_cuda_err_ = (call);                                            \
    if (ember_cuda_err_ != cudaSuccess) [[unlikely]]                                       \
      ::ember::detail::throw_error(::ember::detail::str_cat(                               \
          #call, ": ", cudaGetErrorString(ember_cuda_err_), " (", __FILE__, ":", __LINE__, ")")); \
  } while (0)

// After a <<<...>>> launch: reports a bad launch configuration at its call site.
#define EMBER_CUDA_CHECK_LAUNCH() EMBER_CUDA_CHECK(cudaGetLastError())
