// The cuDNN conv passes: descriptors, the algorithm choice (heuristic, or the
// benchmark cache filled by cudnnFind*Ex), a workspace from the caching
// allocator, the out-of-memory fallback and the bias. Built only with the CUDA
// backend; cudnn_conv.cpp holds what a build without it answers.
#include "ember/kernels/cuda/cudnn_conv.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ember/core/backends.h"
#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/kernels/common/benchmark_cache.h"
#include "ember/kernels/cuda/cudnn_conv_passes.h"
#include "ember/kernels/common/cuda_plans/cudnn_conv_plan.h"
#include "ember/kernels/cuda/cudnn_handle.h"
#include "ember/core/cuda/runtime.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/elementwise.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/core/cuda/sync_count.h"

namespace ember::cuda {

static_assert(static_cast<int>(CudnnMath::kDefault) == CUDNN_DEFAULT_MATH &&
              static_cast<int>(CudnnMath::kTensorOp) == CUDNN_TENSOR_OP_MATH &&
              static_cast<int>(CudnnMath::kTensorOpAllowConversion) ==
                  CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION &&
              static_cast<int>(CudnnMath::kFma) == CUDNN_FMA_MATH);

namespace {

using bench::AlgoResult;
using detail::data_or_null;

int compute_capability(int device) {
  int major = 0, minor = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

CudnnConvSettings current_settings(int device) {
  CudnnConvSettings s;
  s.deterministic = backends::cudnn::deterministic();
  s.allow_tf32 = backends::cudnn::allow_tf32();
  s.workspace_limit = backends::cudnn::workspace_limit();
  s.compute_capability = compute_capability(device);
  s.cudnn_version = static_cast<int64_t>(cudnnGetVersion());
  return s;
}

// The first device a conv runs on names the machine (its key holds its own
// compute capability in any case).
void set_machine_tag_once(const CudnnConvSettings& s) {
  static std::once_flag once;
  std::call_once(once, [&] {
    bench::cudnn_conv_caches().set_machine_tag(
        cudnn_machine_tag(s.compute_capability, s.cudnn_version));
  });
}

// cuDNN's legacy API takes int sizes; several of its algorithms index with 32 bits.
void check_fits_cudnn(const char* op, const ConvParams& p) {
  const int64_t largest = std::max({p.n * p.c * p.h * p.w, p.n * p.k * p.out_h() * p.out_w(),
                                    p.k * (p.c / p.groups) * p.r * p.s});
  EMBER_CHECK(largest <= INT_MAX, op, ": a tensor of ", largest, " elements (problem ", p.key(),
              ") exceeds cuDNN's 2^31 - 1; split the batch");
  const int64_t geometry = std::max({p.padding[0], p.padding[1], p.stride[0], p.stride[1],
                                     p.dilation[0], p.dilation[1], p.groups});
  EMBER_CHECK(geometry <= INT_MAX, op, ": padding, stride, dilation or groups of problem ",
              p.key(), " exceed cuDNN's 2^31 - 1");
}

constexpr float kOneF = 1, kZeroF = 0;
constexpr double kOneD = 1, kZeroD = 0;
// cuDNN's scaling factors are double for double data, float otherwise.
const void* one(ScalarType t) { return t == ScalarType::Double ? (const void*)&kOneD : &kOneF; }
const void* zero(ScalarType t) { return t == ScalarType::Double ? (const void*)&kZeroD : &kZeroF; }

// cuDNN 9 splits CUDNN_STATUS_NOT_SUPPORTED into sub-codes (_SHAPE, _LAYOUT, ...).
bool is_not_supported(cudnnStatus_t status) {
#ifdef CUDNN_STATUS_CATEGORY
  return CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED;
#else
  return status == CUDNN_STATUS_NOT_SUPPORTED;
#endif
}

bool is_out_of_memory(const Error& e) {
  return std::string_view(e.what()).find("out of memory") != std::string_view::npos;
}

// Workspace bytes from the caching allocator (kBool: 1 byte an element);
// none for 0 bytes. Raises the allocator's out-of-memory Error.
Tensor allocate_workspace(size_t bytes, Device device) {
  if (bytes == 0) return {};
  return empty({static_cast<int64_t>(bytes)}, TensorOptions().dtype(kBool).device(device));
}

// Everything one pass call needs.
struct PassCall {
  const char* op;
  ConvParams p;
  Device device;
  cudnnHandle_t handle;
  CudnnConvSettings settings;
  CudnnMath requested;
  ConvDescriptors desc;
  ConvBuffers buffers;
  std::string key;
};

template <class Pass>
std::vector<CudnnCandidate> to_candidates(const typename Pass::Perf* perf, int n) {
  std::vector<CudnnCandidate> out;
  for (int i = 0; i < n; ++i)
    out.push_back({static_cast<int>(perf[i].algo), perf[i].status == CUDNN_STATUS_SUCCESS,
                   perf[i].determinism == CUDNN_DETERMINISTIC,
                   static_cast<CudnnMath>(perf[i].mathType), perf[i].memory,
                   static_cast<double>(perf[i].time)});
  return out;
}

// The length of a heuristic or Find list: cuDNN may list an algorithm once
// per math type, so it can exceed the number of algorithm ids; a shorter
// array would cut off its tail (slow, but maybe the only deterministic or
// workspace-free candidates).
template <class Pass>
size_t perf_capacity(cudnnHandle_t handle) {
  int n = 0;
  EMBER_CUDNN_CHECK(Pass::max_count(handle, &n));
  return static_cast<size_t>(std::max(n, Pass::kAlgoCount));
}

[[noreturn]] void no_algorithm(const PassCall& c, const char* how) {
  EMBER_ERROR(c.op, ": cuDNN's ", how, " offers no algorithm for problem ", c.p.key(),
              " within the workspace limit of ", c.settings.workspace_limit, " bytes",
              c.settings.deterministic ? " that is deterministic" : "",
              " (see backends::cudnn::set_workspace_limit and set_deterministic)");
}

// The heuristic's allowed list per key: the heuristic and workspace queries
// cost more than a small conv, so a key asks cuDNN once per process.
class HeuristicCache {
 public:
  using List = std::shared_ptr<const std::vector<AlgoResult>>;
  template <typename Make>
  List get(const std::string& key, const Make& make) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = lists_.find(key);
      if (it != lists_.end()) return it->second;
    }
    List list = std::make_shared<const std::vector<AlgoResult>>(make());
    std::lock_guard<std::mutex> lock(mutex_);
    return lists_.emplace(key, std::move(list)).first->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, List> lists_;
};

HeuristicCache& heuristic_cache(ConvPass pass) {
  static HeuristicCache caches[3];
  return caches[static_cast<int>(pass)];
}

// Off: cuDNN's v7 heuristic list, in its order, keeping the candidates that
// may run (cudnn_candidate_allowed).
template <class Pass>
std::vector<AlgoResult> heuristic_results(const PassCall& c) {
  std::vector<typename Pass::Perf> perf(perf_capacity<Pass>(c.handle));
  int n = 0;
  EMBER_CUDNN_CHECK(
      Pass::heuristic(c.handle, c.desc, static_cast<int>(perf.size()), &n, perf.data()));
  std::vector<CudnnCandidate> cands = to_candidates<Pass>(perf.data(), n);
  // The heuristic's memory field is an estimate: ask for each candidate's
  // workspace with the math type it would run with.
  for (CudnnCandidate& cand : cands) {
    if (!cand.succeeded) continue;
    set_math_type(c.desc.conv.get(), cudnn_run_math(cand.math, c.requested));
    cand.succeeded = Pass::workspace(c.handle, c.desc, cand.algo, &cand.workspace_bytes) ==
                     CUDNN_STATUS_SUCCESS;
  }
  set_math_type(c.desc.conv.get(), c.requested);
  return cudnn_allowed_results(cands, c.requested, c.settings);
}

// On, a cache miss: cudnnFind*Ex on the call's own buffers (it overwrites
// the output, which the chosen algorithm then writes again) with a workspace
// as large as the most demanding algorithm asks, within the limit. When that
// cannot be allocated, the next smaller size an algorithm asks for is tried,
// down to none: one greedy algorithm does not shut out all the others.
template <class Pass>
std::vector<AlgoResult> find_results(const PassCall& c) {
  std::vector<size_t> asked;
  for (int algo = 0; algo < Pass::kAlgoCount; ++algo) {
    size_t bytes = 0;
    if (Pass::workspace(c.handle, c.desc, algo, &bytes) == CUDNN_STATUS_SUCCESS)
      asked.push_back(bytes);
  }
  size_t bytes = cudnn_find_workspace_bytes(asked, c.settings.workspace_limit);
  Tensor workspace;
  while (bytes > 0) {
    try {
      workspace = allocate_workspace(bytes, c.device);
      break;
    } catch (const Error& e) {
      if (!is_out_of_memory(e)) throw;
      bytes = cudnn_smaller_workspace_bytes(asked, bytes);
    }
  }
  std::vector<typename Pass::Perf> perf(perf_capacity<Pass>(c.handle));
  int n = 0;
  EMBER_CUDNN_CHECK(Pass::find(c.handle, c.desc, c.buffers, static_cast<int>(perf.size()), &n,
                               perf.data(), data_or_null(workspace), bytes));
  detail::count_sync();  // Find times each algorithm: the host waits for the device
  std::vector<AlgoResult> results =
      cudnn_allowed_results(to_candidates<Pass>(perf.data(), n), c.requested, c.settings);
  if (results.empty()) no_algorithm(c, "Find");
  return results;
}

// The workspace a choice runs with: what cuDNN asks for it now (a cache entry
// loaded from a file holds the number measured then), at least what Find reported.
template <class Pass>
size_t run_workspace_bytes(const PassCall& c, const AlgoResult& r) {
  size_t bytes = 0;
  if (Pass::workspace(c.handle, c.desc, r.algo, &bytes) != CUDNN_STATUS_SUCCESS)
    return r.workspace_bytes;
  return std::max(bytes, r.workspace_bytes);
}

// Chooses the algorithm (benchmark cache or heuristic) and runs it. When its
// workspace cannot be allocated (the caching allocator raises only after
// returning its cached blocks and retrying), or cuDNN refuses it at run time
// (CUDNN_STATUS_NOT_SUPPORTED: the heuristic may list an algorithm that
// cannot run the problem), steps down the ranking; the benchmark cache
// records the failure and never searches again.
template <class Pass>
void run_pass(const PassCall& c) {
  bench::BenchmarkCache* cache = nullptr;
  HeuristicCache::List heuristic;
  AlgoResult choice;
  if (backends::cudnn::benchmark()) {
    set_machine_tag_once(c.settings);
    cache = &bench::cudnn_conv_caches().cache(static_cast<size_t>(Pass::kPass));
    choice = cache->get_or_find(c.key, [&] { return find_results<Pass>(c); })->choice();
  } else {
    heuristic =
        heuristic_cache(Pass::kPass).get(c.key, [&] { return heuristic_results<Pass>(c); });
    if (heuristic->empty()) no_algorithm(c, "heuristic");
    choice = heuristic->front();
  }
  size_t next_heuristic = 1;
  auto step_down = [&]() -> std::optional<AlgoResult> {
    if (cache) return cache->next_after_failure(c.key, choice);
    if (next_heuristic < heuristic->size()) return (*heuristic)[next_heuristic++];
    return std::nullopt;
  };
  for (;;) {
    set_math_type(c.desc.conv.get(),
                  cudnn_run_math(static_cast<CudnnMath>(choice.math_type), c.requested));
    const size_t bytes = run_workspace_bytes<Pass>(c, choice);
    Tensor workspace;
    try {
      workspace = allocate_workspace(bytes, c.device);
    } catch (const Error& e) {
      if (!is_out_of_memory(e)) throw;
      // Results asking for at least as much would fail the same way: each
      // failed try costs the allocator a release of its cache and a retry.
      std::optional<AlgoResult> next = step_down();
      while (next && next->workspace_bytes >= bytes) {
        choice = *next;
        next = step_down();
      }
      if (!next) throw;
      choice = *next;
      continue;
    }
    const cudnnStatus_t status = Pass::run(c.handle, c.desc, c.buffers, choice.algo,
                                           data_or_null(workspace), bytes, one(c.p.dtype),
                                           zero(c.p.dtype));
    if (is_not_supported(status)) {
      if (const std::optional<AlgoResult> next = step_down()) {
        choice = *next;
        continue;
      }
    }
    EMBER_CHECK(status == CUDNN_STATUS_SUCCESS, c.op, ": cuDNN algorithm ", choice.algo, " (",
                cudnn_math_name(static_cast<CudnnMath>(choice.math_type)),
                " math) failed on problem ", c.p.key(), ": ", cudnnGetErrorString(status));
    return;
  }
}

// out += bias on each channel. bias: (channels), out: c's x or y.
void add_bias(const PassCall& c, const Tensor& bias, cudnnTensorDescriptor_t out_desc,
              void* out) {
  const int64_t channels = bias.size(0);
  const TensorDescriptor bias_desc =
      make_tensor_descriptor(cudnn_data_type(c.p.dtype), {1, channels, 1, 1}, {channels, 1, 1, 1});
  EMBER_CUDNN_CHECK(cudnnAddTensor(c.handle, one(c.p.dtype), bias_desc.get(), bias.data_ptr(),
                                   one(c.p.dtype), out_desc, out));
}

// t itself, or a copy of it at an aligned address (Note [Aligned cuDNN
// operands] in cudnn_conv_plan.h). Copying, rather than adding the alignment
// to the cache key and stepping down on a misaligned pointer, keeps one key
// and one answer per problem: a Find done on aligned buffers stays right for
// every call, and the copy is paid only by the rare offset view.
Tensor aligned_for_cudnn(const Tensor& t) {
  if (!t.defined() || !cudnn_needs_aligned_copy(t.data_ptr())) return t;
  return t.clone();  // a fresh block of the caching allocator
}

// The outputs come from empty() in core/ops/nn_ops/conv.cpp: fresh blocks, aligned.
void check_output_aligned(const Tensor& out) {
  EMBER_INTERNAL_ASSERT(!cudnn_needs_aligned_copy(out.data_ptr()),
                        "cuDNN conv: an output at a misaligned address ", out.data_ptr());
}

// The caller holds a DeviceGuard of `device`.
PassCall make_call(const char* op, const ConvParams& table_p, Device device,
                   const ConvBuffers& buffers) {
  // cuDNN keeps nothing between calls: whether a forward records a graph
  // (p.inference, which the CPU's Winograd weight cache reads) changes neither
  // its problem nor the problem its messages name.
  ConvParams p = table_p;
  p.inference = false;
  check_fits_cudnn(op, p);
  const int index = std::max<int>(device.index(), 0);
  const CudnnConvSettings settings = current_settings(index);
  const CudnnMath requested = cudnn_requested_math(p.dtype, settings.allow_tf32);
  return {op,
          p,
          device,
          cudnn_handle(index),
          settings,
          requested,
          make_conv_descriptors(p, requested),
          buffers,
          make_cudnn_conv_key(p, settings).str()};
}

// The conv table's dtypes (conv_kernels.h): the floating ones, else
// dispatch_compute's Error naming the op (cudnn_data_type would read any
// other dtype as float32).
void check_dtype(const Tensor& t, const char* op) {
  dispatch_compute<DtypeSet::kFloating>(t.scalar_type(), op, [&]<typename>() {});
}

}  // namespace

void cudnn_conv_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y,
                        const ConvParams& p) {
  check_dtype(x, "conv2d");
  DeviceGuard guard(detail::device_of(x));
  check_output_aligned(y);
  const Tensor xa = aligned_for_cudnn(x), wa = aligned_for_cudnn(w), ba = aligned_for_cudnn(bias);
  const PassCall c = make_call("conv2d (cuDNN forward)", p, x.device(),
                               {xa.data_ptr(), wa.data_ptr(), y.data_ptr()});
  run_pass<CudnnForwardPass>(c);
  if (ba.defined()) add_bias(c, ba, c.desc.y.get(), c.buffers.y);
  // ConvParams::relu: one more pass over y, on the same stream (cuDNN's fused
  // bias-activation forward would save it; this path has not run on a GPU yet).
  if (p.relu) unary_kernel("relu", UnaryOp::kRelu, y, y, Scalar(), Scalar(), Scalar());
}

void cudnn_conv_backward_data(const Tensor& gy, const Tensor& w, const Tensor& bias,
                              const Tensor& gx, const ConvParams& p) {
  check_dtype(gy, "conv_transpose2d");
  DeviceGuard guard(detail::device_of(gy));
  check_output_aligned(gx);
  const Tensor gya = aligned_for_cudnn(gy), wa = aligned_for_cudnn(w),
               ba = aligned_for_cudnn(bias);
  const PassCall c = make_call("conv2d (cuDNN backward-data)", p, gy.device(),
                               {gx.data_ptr(), wa.data_ptr(), gya.data_ptr()});
  run_pass<CudnnBackwardDataPass>(c);
  if (ba.defined()) add_bias(c, ba, c.desc.x.get(), c.buffers.x);
}

void cudnn_conv_backward_weight(const Tensor& x, const Tensor& gy, const Tensor& gw,
                                const ConvParams& p) {
  check_dtype(x, "conv2d");
  DeviceGuard guard(detail::device_of(x));
  check_output_aligned(gw);
  const Tensor xa = aligned_for_cudnn(x), gya = aligned_for_cudnn(gy);
  const PassCall c = make_call("conv2d (cuDNN backward-weight)", p, x.device(),
                               {xa.data_ptr(), gw.data_ptr(), gya.data_ptr()});
  run_pass<CudnnBackwardFilterPass>(c);
}

std::string cudnn_current_machine_tag() {
  if (!is_available()) return "no-cuda";
  return cudnn_machine_tag(compute_capability(current_device()),
                           static_cast<int64_t>(cudnnGetVersion()));
}

void cudnn_set_machine_tag() {
  if (!is_available()) return;
  bench::cudnn_conv_caches().set_machine_tag(cudnn_current_machine_tag());
}

bool cudnn_result_valid(size_t pass, const bench::AlgoResult& r) {
  constexpr int kAlgoCounts[] = {CudnnForwardPass::kAlgoCount, CudnnBackwardDataPass::kAlgoCount,
                                 CudnnBackwardFilterPass::kAlgoCount};
  return pass < std::size(kAlgoCounts) && r.algo >= 0 && r.algo < kAlgoCounts[pass] &&
         r.math_type >= static_cast<int>(CudnnMath::kDefault) &&
         r.math_type <= static_cast<int>(CudnnMath::kFma);
}

}  // namespace ember::cuda
