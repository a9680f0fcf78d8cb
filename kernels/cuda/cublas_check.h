#pragma once
// EMBER_CUBLAS_CHECK(call): every cuBLAS status is checked; a failure throws
// ember::Error naming the call, the status (CUBLAS_STATUS_...) and its file:line.
#include <cublas_v2.h>

#include "ember/core/error.h"

#define EMBER_CUBLAS_CHECK(call)                                                             \
  do {                                                                                       \
    const cublasStatus_t ember_cublas_status_ = (call);                                      \
    if (ember_cublas_status_ != CUBLAS_STATUS_SUCCESS) [[unlikely]]                          \
      ::ember::detail::throw_error(::ember::detail::str_cat(                                 \
          #call, ": ", cublasGetStatusName(ember_cublas_status_), " (",                      \
          cublasGetStatusString(ember_cublas_status_), ") (", __FILE__, ":", __LINE__, ")")); \
  } while (0)
