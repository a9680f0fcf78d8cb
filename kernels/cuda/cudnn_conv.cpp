// What the cuDNN benchmark cache hooks answer in a build without the CUDA
// backend: the cache set exists in every build (backends::cudnn reports it).
// The passes are in cudnn_conv.cu, built only with the backend; without it the
// conv table has no CUDA entries.
#include "ember/kernels/cuda/cudnn_conv.h"

namespace ember::cuda {

#ifndef EMBER_WITH_CUDA
std::string cudnn_current_machine_tag() { return "no-cuda"; }
void cudnn_set_machine_tag() {}
// Without cuDNN no algorithm can run: nothing loads.
bool cudnn_result_valid(size_t, const bench::AlgoResult&) { return false; }
#endif

}  // namespace ember::cuda
