#pragma once
// The plain-C++ half of the cuDNN conv (kernels/cuda/cudnn_conv.cu): the
// math type asked of cuDNN, the benchmark-cache key, the machine tag and which
// of cuDNN's candidate algorithms may run. Built in every configuration, so
// the CPU tests (tests/cudnn_key_test.cpp) check it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ember/core/dtype.h"
#include "ember/kernels/common/benchmark_cache.h"
#include "ember/kernels/common/conv_params.h"

namespace ember::cuda {

// The values of cudnnMathType_t (checked against cudnn.h in cudnn_conv.cu).
enum class CudnnMath : int { kDefault = 0, kTensorOp = 1, kTensorOpAllowConversion = 2, kFma = 3 };
const char* cudnn_math_name(CudnnMath math);

// The math type the convolution descriptor asks for. float32: default math
// when TF32 is allowed (on Ampere and later it lets cuDNN use TF32 tensor
// cores; tensor-op math promises no down-conversion, so it is not asked for),
// else FMA only, as PyTorch sets its descriptors; float64: default; bfloat16
// and float16: tensor-op math (tensor cores, float32 accumulation).
CudnnMath cudnn_requested_math(ScalarType dtype, bool allow_tf32);

// The switches of backends::cudnn and the device, as they were for one call.
struct CudnnConvSettings {
  bool deterministic = false;
  bool allow_tf32 = true;
  size_t workspace_limit = 0;
  int compute_capability = 0;  // major * 10 + minor: 90 for an H100 / H200
  int64_t cudnn_version = 0;   // cudnnGetVersion(): 91900 for 9.19.0
};

// Everything that changes cuDNN's answer for one problem (issue #5): the
// layouts passed to cuDNN, the geometry, the dtype, the math type and the settings.
struct CudnnConvKey {
  std::array<int64_t, 4> input_sizes{}, input_strides{};    // (N, C, H, W)
  std::array<int64_t, 4> weight_sizes{}, weight_strides{};  // (K, C/groups, R, S)
  std::array<int64_t, 2> padding{}, stride{}, dilation{};
  int64_t groups = 1;
  ScalarType dtype = ScalarType::Float;
  CudnnMath math = CudnnMath::kDefault;
  CudnnConvSettings settings;
  // The cache's key text. Its format is key format 1 of bench::cudnn_conv_caches().
  std::string str() const;
};

// The key of problem p with contiguous input and weight: the layout cudnn_conv
// hands to cuDNN (it makes every operand contiguous first).
CudnnConvKey make_cudnn_conv_key(const ConvParams& p, const CudnnConvSettings& s);

// Note [Aligned cuDNN operands]
// cuDNN 9 refuses a data pointer that its kernels cannot load in 16-byte
// vectors (CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER): 16 bytes is the widest
// access its kernels make (4 floats or 2 doubles at once). cudaMalloc and the
// caching allocator's blocks are 512-byte aligned, so only a view at a storage
// offset can fall short, e.g. x.chunk(2, 0)[1] of an odd batch or a weight
// sliced from a flat buffer: contiguous, but 4- or 8-byte aligned. Such an
// operand is copied to a fresh buffer before cuDNN sees it (cudnn_conv.cu).
inline constexpr size_t kCudnnAlignment = 16;

// Whether an operand at `data` must be copied to an aligned buffer before
// cuDNN reads it: its address is not a multiple of kCudnnAlignment.
bool cudnn_needs_aligned_copy(const void* data);

// The strides of a contiguous (d0, d1, d2, d3) tensor.
std::array<int64_t, 4> cudnn_contiguous_strides(const std::array<int64_t, 4>& sizes);

// The machine tag of the cuDNN caches: "sm90-cudnn91900". A saved entry loads
// only on a machine with the same tag.
std::string cudnn_machine_tag(int compute_capability, int64_t cudnn_version);

// One algorithm that cuDNN proposed (heuristic list or Find), in plain terms.
struct CudnnCandidate {
  int algo = 0;
  bool succeeded = false;  // status == CUDNN_STATUS_SUCCESS
  bool deterministic = false;
  CudnnMath math = CudnnMath::kDefault;
  size_t workspace_bytes = 0;
  double time_ms = 0;  // Find's timing; the heuristic gives none
};

// Whether a candidate may run: it succeeded, it is deterministic when that is
// required, its workspace fits the limit, it does not use tensor-op math
// when the descriptor asked for FMA (float32 with TF32 off), and it does not
// down-convert float32 to half (tensor_op_conversion) unless that was asked for.
bool cudnn_candidate_allowed(const CudnnCandidate& c, CudnnMath requested,
                             const CudnnConvSettings& s);

// The allowed candidates as cache results, in cuDNN's order (Find: fastest
// first; heuristic: most promising first).
std::vector<bench::AlgoResult> cudnn_allowed_results(const std::vector<CudnnCandidate>& cands,
                                                     CudnnMath requested,
                                                     const CudnnConvSettings& s);

// The math type an allowed result runs with: FMA when FMA was asked for (a
// result reported with default math could then use TF32), else the result's.
CudnnMath cudnn_run_math(CudnnMath result, CudnnMath requested);

// The workspace handed to Find: what the most demanding algorithm asks for,
// at most the limit.
size_t cudnn_find_workspace_bytes(const std::vector<size_t>& asked, size_t limit);
// When `bytes` could not be allocated for Find: the largest size an algorithm
// asks for below it, 0 when none.
size_t cudnn_smaller_workspace_bytes(const std::vector<size_t>& asked, size_t bytes);

}  // namespace ember::cuda
