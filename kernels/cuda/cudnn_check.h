#pragma once
// EMBER_CUDNN_CHECK(call): every cuDNN call is checked; a failure throws
// ember::Error naming the call, cuDNN's message and its file:line. CUDA builds only.
#include <cudnn.h>

#include "ember/core/error.h"

#define EMBER_CUDNN_CHECK(call)                                                               \
  do {                                                                                        \
    const cudnnStatus_t ember_cudnn_status_ = (call);                                         \
    if (ember_cudnn_status_ != CUDNN_STATUS_SUCCESS) [[unlikely]]                             \
      ::ember::detail::throw_error(::ember::detail::str_cat(                                  \
          #call, ": ", cudnnGetErrorString(ember_cudnn_status_), " (", __FILE__, ":", __LINE__, \
          ")"));                                                                              \
  } while (0)
