#pragma once
// EMBER_CUSOLVER_CHECK(call): every cuSOLVER status is checked; a failure
// throws ember::Error naming the call, the status and its file:line.
#include <cusolverDn.h>

#include "ember/core/error.h"

namespace ember::cuda {

// cuSOLVER has no status-to-string function: the names of cusolverStatus_t.
const char* cusolver_status_name(cusolverStatus_t status);

}  // namespace ember::cuda

#define EMBER_CUSOLVER_CHECK(call)                                                   \
  do {                                                                               \
    const cusolverStatus_t ember_cusolver_status_ = (call);                          \
    if (ember_cusolver_status_ != CUSOLVER_STATUS_SUCCESS) [[unlikely]]              \
      ::ember::detail::throw_error(::ember::detail::str_cat(                         \
          #call, ": ", ::ember::cuda::cusolver_status_name(ember_cusolver_status_), \
          " (", __FILE__, ":", __LINE__, ")"));                                      \
  } while (0)
