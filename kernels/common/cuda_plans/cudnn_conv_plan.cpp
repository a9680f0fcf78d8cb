#include "ember/kernels/common/cuda_plans/cudnn_conv_plan.h"

#include <algorithm>
#include <sstream>

namespace ember::cuda {
namespace {

template <size_t N>
void write_list(std::ostream& os, const std::array<int64_t, N>& v, char sep) {
  for (size_t i = 0; i < N; ++i) {
    if (i) os << sep;
    os << v[i];
  }
}

bool is_tensor_op(CudnnMath m) {
  return m == CudnnMath::kTensorOp || m == CudnnMath::kTensorOpAllowConversion;
}

}  // namespace

const char* cudnn_math_name(CudnnMath math) {
  switch (math) {
    case CudnnMath::kDefault: return "default";
    case CudnnMath::kTensorOp: return "tensor_op";
    case CudnnMath::kTensorOpAllowConversion: return "tensor_op_conversion";
    case CudnnMath::kFma: return "fma";
  }
  return "unknown";
}

CudnnMath cudnn_requested_math(ScalarType dtype, bool allow_tf32) {
  if (is_reduced_floating_point(dtype)) return CudnnMath::kTensorOp;
  if (dtype != ScalarType::Float) return CudnnMath::kDefault;
  return allow_tf32 ? CudnnMath::kDefault : CudnnMath::kFma;
}

// e.g. x2,3,32,32/3072,1024,32,1|w8,3,3,3/27,9,3,1|pad1x1,st2x2,dil1x1,g1|float32|
//      math=fma,det0,tf32=0,ws1073741824|sm90,cudnn91900
std::string CudnnConvKey::str() const {
  std::ostringstream os;
  os << "x";
  write_list(os, input_sizes, ',');
  os << "/";
  write_list(os, input_strides, ',');
  os << "|w";
  write_list(os, weight_sizes, ',');
  os << "/";
  write_list(os, weight_strides, ',');
  os << "|pad";
  write_list(os, padding, 'x');
  os << ",st";
  write_list(os, stride, 'x');
  os << ",dil";
  write_list(os, dilation, 'x');
  os << ",g" << groups << "|" << dtype_name(dtype) << "|math=" << cudnn_math_name(math)
     << ",det" << settings.deterministic << ",tf32=" << settings.allow_tf32 << ",ws"
     << settings.workspace_limit << "|sm" << settings.compute_capability << ",cudnn"
     << settings.cudnn_version;
  return os.str();
}

CudnnConvKey make_cudnn_conv_key(const ConvParams& p, const CudnnConvSettings& s) {
  CudnnConvKey k;
  k.input_sizes = {p.n, p.c, p.h, p.w};
  k.input_strides = cudnn_contiguous_strides(k.input_sizes);
  k.weight_sizes = {p.k, p.c / p.groups, p.r, p.s};
  k.weight_strides = cudnn_contiguous_strides(k.weight_sizes);
  k.padding = p.padding;
  k.stride = p.stride;
  k.dilation = p.dilation;
  k.groups = p.groups;
  k.dtype = p.dtype;
  k.math = cudnn_requested_math(p.dtype, s.allow_tf32);
  k.settings = s;
  return k;
}

bool cudnn_needs_aligned_copy(const void* data) {
  return reinterpret_cast<uintptr_t>(data) % kCudnnAlignment != 0;
}

std::array<int64_t, 4> cudnn_contiguous_strides(const std::array<int64_t, 4>& sizes) {
  return {sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3], sizes[3], 1};
}

std::string cudnn_machine_tag(int compute_capability, int64_t cudnn_version) {
  return "sm" + std::to_string(compute_capability) + "-cudnn" + std::to_string(cudnn_version);
}

bool cudnn_candidate_allowed(const CudnnCandidate& c, CudnnMath requested,
                             const CudnnConvSettings& s) {
  return c.succeeded && (c.deterministic || !s.deterministic) &&
         c.workspace_bytes <= s.workspace_limit &&
         !(requested == CudnnMath::kFma && is_tensor_op(c.math)) &&
         !(c.math == CudnnMath::kTensorOpAllowConversion && requested != c.math);
}

std::vector<bench::AlgoResult> cudnn_allowed_results(const std::vector<CudnnCandidate>& cands,
                                                     CudnnMath requested,
                                                     const CudnnConvSettings& s) {
  std::vector<bench::AlgoResult> out;
  for (const CudnnCandidate& c : cands)
    if (cudnn_candidate_allowed(c, requested, s))
      out.push_back({c.algo, static_cast<int>(c.math), c.workspace_bytes, c.time_ms});
  return out;
}

CudnnMath cudnn_run_math(CudnnMath result, CudnnMath requested) {
  return requested == CudnnMath::kFma ? CudnnMath::kFma : result;
}

size_t cudnn_find_workspace_bytes(const std::vector<size_t>& asked, size_t limit) {
  const size_t largest = asked.empty() ? 0 : *std::max_element(asked.begin(), asked.end());
  return std::min(largest, limit);
}

size_t cudnn_smaller_workspace_bytes(const std::vector<size_t>& asked, size_t bytes) {
  size_t best = 0;
  for (size_t a : asked)
    if (a < bytes) best = std::max(best, a);
  return best;
}

}  // namespace ember::cuda
