// The device queries of runtime.h, answered by the CUDA backend's hooks
// (Note [CUDA backend hooks] in backend.h).
#include "ember/core/cuda/runtime.h"

#include "ember/core/cuda/backend.h"

namespace ember::cuda {

int device_count() { return detail::backend().device_count(); }
bool is_available() { return device_count() > 0; }
void synchronize() { detail::backend().synchronize(); }
std::string build_info() { return detail::backend().build_info(); }
void check_index_errors() { detail::backend().check_index_errors(); }

}  // namespace ember::cuda
