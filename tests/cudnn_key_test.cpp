// The plain-C++ half of the cuDNN conv (kernels/cuda/cudnn_conv_plan.*),
// checked without a GPU: which fields change the benchmark-cache key, the
// math type asked for, the machine tag, which candidates may run, how a
// Find's allowed results are ranked and stepped down after an out-of-memory,
// and the workspace handed to Find. Without the CUDA backend the passes raise.
#include "test_helpers.h"

#include <ember/core/ops/nn_ops/conv.h>
#include <ember/kernels/common/benchmark_cache.h>
#include <ember/core/cuda/backend.h>
#include <ember/core/cuda/runtime.h>
#include <ember/kernels/common/kernel_registry.h>
#include <ember/kernels/common/cuda_plans/cudnn_conv_plan.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

using namespace ember;
using cuda::CudnnCandidate;
using cuda::CudnnConvSettings;
using cuda::CudnnMath;

namespace {

ConvParams base_params() {
  ConvParams p;
  p.n = 2, p.c = 6, p.h = 9, p.w = 11, p.k = 4, p.r = 3, p.s = 2, p.groups = 2;
  p.stride = {2, 1}, p.padding = {1, 0}, p.dilation = {1, 2};
  p.dtype = kFloat;
  return p;
}

CudnnConvSettings base_settings() {
  CudnnConvSettings s;
  s.deterministic = false;
  s.allow_tf32 = true;
  s.workspace_limit = size_t{1} << 30;
  s.compute_capability = 90;
  s.cudnn_version = 91900;
  return s;
}

std::string key_of(const ConvParams& p, const CudnnConvSettings& s) {
  return cuda::make_cudnn_conv_key(p, s).str();
}

}  // namespace

TEST_CASE("cudnn key: every field of the problem and the settings changes the key", "[cudnn]") {
  const std::string base = key_of(base_params(), base_settings());
  using ParamsEdit = std::function<void(ConvParams&)>;
  const std::vector<std::pair<std::string, ParamsEdit>> params_edits{
      {"batch", [](ConvParams& p) { p.n = 3; }},
      {"in channels", [](ConvParams& p) { p.c = 8; }},
      {"height", [](ConvParams& p) { p.h = 10; }},
      {"width", [](ConvParams& p) { p.w = 12; }},
      {"out channels", [](ConvParams& p) { p.k = 6; }},
      {"kernel height", [](ConvParams& p) { p.r = 2; }},
      {"kernel width", [](ConvParams& p) { p.s = 3; }},
      {"groups", [](ConvParams& p) { p.groups = 1; }},
      {"stride", [](ConvParams& p) { p.stride = {1, 1}; }},
      {"padding", [](ConvParams& p) { p.padding = {0, 1}; }},
      {"dilation", [](ConvParams& p) { p.dilation = {2, 2}; }},
      {"dtype", [](ConvParams& p) { p.dtype = kDouble; }},
  };
  for (const auto& [name, edit] : params_edits) {
    INFO(name);
    ConvParams p = base_params();
    edit(p);
    CHECK(key_of(p, base_settings()) != base);
  }
  using SettingsEdit = std::function<void(CudnnConvSettings&)>;
  const std::vector<std::pair<std::string, SettingsEdit>> settings_edits{
      {"deterministic", [](CudnnConvSettings& s) { s.deterministic = true; }},
      {"tf32", [](CudnnConvSettings& s) { s.allow_tf32 = false; }},
      {"workspace limit", [](CudnnConvSettings& s) { s.workspace_limit = 1 << 20; }},
      {"compute capability", [](CudnnConvSettings& s) { s.compute_capability = 80; }},
      {"cudnn version", [](CudnnConvSettings& s) { s.cudnn_version = 91002; }},
  };
  for (const auto& [name, edit] : settings_edits) {
    INFO(name);
    CudnnConvSettings s = base_settings();
    edit(s);
    CHECK(key_of(base_params(), s) != base);
  }
}

TEST_CASE("cudnn key: equal problems and settings give equal keys", "[cudnn]") {
  CHECK(key_of(base_params(), base_settings()) == key_of(base_params(), base_settings()));
}

TEST_CASE("cudnn key: holds contiguous sizes and strides, geometry, dtype, math and settings",
          "[cudnn]") {
  const cuda::CudnnConvKey k = cuda::make_cudnn_conv_key(base_params(), base_settings());
  CHECK(k.input_sizes == std::array<int64_t, 4>{2, 6, 9, 11});
  CHECK(k.input_strides == std::array<int64_t, 4>{594, 99, 11, 1});
  CHECK(k.weight_sizes == std::array<int64_t, 4>{4, 3, 3, 2});
  CHECK(k.weight_strides == std::array<int64_t, 4>{18, 6, 2, 1});
  CHECK(k.math == CudnnMath::kDefault);
  CHECK(k.str() ==
        "x2,6,9,11/594,99,11,1|w4,3,3,2/18,6,2,1|pad1x0,st2x1,dil1x2,g2|float32|"
        "math=default,det0,tf32=1,ws1073741824|sm90,cudnn91900");
}

TEST_CASE("cudnn math: FMA only for float32 without TF32, else default math", "[cudnn]") {
  CHECK(cuda::cudnn_requested_math(kFloat, true) == CudnnMath::kDefault);
  CHECK(cuda::cudnn_requested_math(kFloat, false) == CudnnMath::kFma);
  CHECK(cuda::cudnn_requested_math(kDouble, true) == CudnnMath::kDefault);
  CHECK(cuda::cudnn_requested_math(kBFloat16, false) == CudnnMath::kTensorOp);
  CHECK(cuda::cudnn_requested_math(kHalf, true) == CudnnMath::kTensorOp);
  CHECK(cuda::cudnn_requested_math(kDouble, false) == CudnnMath::kDefault);
  // FMA stays FMA whatever cuDNN reports; otherwise the result's own math type runs.
  CHECK(cuda::cudnn_run_math(CudnnMath::kDefault, CudnnMath::kFma) == CudnnMath::kFma);
  CHECK(cuda::cudnn_run_math(CudnnMath::kDefault, CudnnMath::kTensorOp) == CudnnMath::kDefault);
  CHECK(cuda::cudnn_run_math(CudnnMath::kTensorOp, CudnnMath::kTensorOp) ==
        CudnnMath::kTensorOp);
}

TEST_CASE("cudnn machine tag names the compute capability and the cuDNN version", "[cudnn]") {
  CHECK(cuda::cudnn_machine_tag(90, 91900) == "sm90-cudnn91900");
  CHECK(cuda::cudnn_machine_tag(80, 8907) == "sm80-cudnn8907");
}

TEST_CASE("cudnn candidates: only successful, deterministic when asked, within the limit",
          "[cudnn]") {
  CudnnConvSettings s = base_settings();
  s.workspace_limit = 1000;
  const std::vector<CudnnCandidate> cands{
      {1, true, false, CudnnMath::kTensorOp, 0, 0.5},   // fast, not deterministic
      {2, false, true, CudnnMath::kDefault, 0, 0.6},    // failed
      {3, true, true, CudnnMath::kDefault, 2000, 0.7},  // over the limit
      {4, true, true, CudnnMath::kFma, 1000, 0.8},      // exactly at the limit
      {5, true, true, CudnnMath::kTensorOp, 10, 0.9},
  };
  auto algos = [](const std::vector<bench::AlgoResult>& rs) {
    std::vector<int> out;
    for (const auto& r : rs) out.push_back(r.algo);
    return out;
  };
  CHECK(algos(cuda::cudnn_allowed_results(cands, CudnnMath::kTensorOp, s)) ==
        std::vector<int>{1, 4, 5});
  s.deterministic = true;
  CHECK(algos(cuda::cudnn_allowed_results(cands, CudnnMath::kTensorOp, s)) ==
        std::vector<int>{4, 5});
  // FMA asked for (float32, TF32 off): tensor-op results are dropped.
  CHECK(algos(cuda::cudnn_allowed_results(cands, CudnnMath::kFma, s)) == std::vector<int>{4});
  // Results keep the algorithm, math type, workspace and time.
  const auto rs = cuda::cudnn_allowed_results(cands, CudnnMath::kFma, s);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].math_type == static_cast<int>(CudnnMath::kFma));
  CHECK(rs[0].workspace_bytes == 1000);
  CHECK(rs[0].time_ms == 0.8);
}

TEST_CASE("cudnn candidates: no float32 to half down-conversion unless asked for", "[cudnn]") {
  const CudnnConvSettings s = base_settings();
  const std::vector<CudnnCandidate> cands{
      {1, true, true, CudnnMath::kTensorOpAllowConversion, 0, 0.1},
      {1, true, true, CudnnMath::kTensorOp, 0, 0.2},
      {2, true, true, CudnnMath::kDefault, 0, 0.3},
  };
  for (CudnnMath requested : {CudnnMath::kTensorOp, CudnnMath::kDefault}) {
    const auto rs = cuda::cudnn_allowed_results(cands, requested, s);
    REQUIRE(rs.size() == 2);
    CHECK(rs[0].math_type == static_cast<int>(CudnnMath::kTensorOp));
    CHECK(rs[1].algo == 2);
  }
  CHECK(cuda::cudnn_allowed_results(cands, CudnnMath::kTensorOpAllowConversion, s).size() == 3);
}

TEST_CASE("cudnn Find results: ranked by time, smaller workspace within 5%, stepped down on "
          "out-of-memory without a second Find",
          "[cudnn]") {
  CudnnConvSettings s = base_settings();
  s.workspace_limit = 1 << 20;
  // As Find lists them (fastest first); one algorithm twice, with two math types.
  const std::vector<CudnnCandidate> found{
      {6, true, true, CudnnMath::kTensorOp, 1 << 19, 1.00},
      {6, true, true, CudnnMath::kDefault, 1 << 10, 1.03},  // within 5%, less workspace
      {7, true, true, CudnnMath::kTensorOp, 1 << 22, 1.04},  // over the limit: dropped
      {1, true, true, CudnnMath::kTensorOp, 1 << 12, 1.50},
      {0, true, true, CudnnMath::kDefault, 0, 2.00},
      {2, false, true, CudnnMath::kDefault, 0, -1.0},  // failed: dropped
  };
  bench::BenchmarkCache cache("forward");
  int finds = 0;
  const auto entry = cache.get_or_find("k", [&] {
    ++finds;
    return cuda::cudnn_allowed_results(found, CudnnMath::kTensorOp, s);
  });
  REQUIRE(entry->ranked.size() == 4);
  REQUIRE(entry->fastest_no_workspace);
  CHECK(entry->fastest_no_workspace->algo == 0);
  const auto& c0 = entry->choice();
  CHECK(c0.algo == 6);
  CHECK(c0.math_type == static_cast<int>(CudnnMath::kDefault));
  CHECK(c0.workspace_bytes == (1 << 10));
  // Its workspace could not be allocated: the same algorithm with the other
  // math type is another result, and it is next.
  auto next = cache.next_after_failure("k", c0);
  REQUIRE(next);
  CHECK(next->algo == 6);
  CHECK(next->math_type == static_cast<int>(CudnnMath::kTensorOp));
  next = cache.next_after_failure("k", *next);
  REQUIRE(next);
  CHECK(next->algo == 1);
  next = cache.next_after_failure("k", *next);
  REQUIRE(next);
  CHECK(next->algo == 0);
  CHECK(next->workspace_bytes == 0);
  CHECK_FALSE(cache.next_after_failure("k", *next));
  CHECK(finds == 1);
  CHECK(cache.stats().fallbacks == 4);
}

TEST_CASE("cudnn caches are tagged with the current device from their first use", "[cudnn]") {
  const std::string tag = cuda::detail::backend().cudnn_current_machine_tag();
  CHECK(bench::cudnn_conv_caches().machine_tag() == tag);
  if (!cuda::is_available()) CHECK(tag == "no-cuda");
}

TEST_CASE("cudnn Find workspace: the largest request, capped by the limit", "[cudnn]") {
  CHECK(cuda::cudnn_find_workspace_bytes({}, 100) == 0);
  CHECK(cuda::cudnn_find_workspace_bytes({0, 30, 20}, 100) == 30);
  CHECK(cuda::cudnn_find_workspace_bytes({0, 300, 20}, 100) == 100);
  // After a failed allocation: the next smaller size asked for, then none.
  CHECK(cuda::cudnn_smaller_workspace_bytes({0, 300, 20, 30}, 100) == 30);
  CHECK(cuda::cudnn_smaller_workspace_bytes({0, 300, 20, 30}, 30) == 20);
  CHECK(cuda::cudnn_smaller_workspace_bytes({0, 300, 20, 30}, 20) == 0);
  CHECK(cuda::cudnn_smaller_workspace_bytes({}, 20) == 0);
}

#ifndef EMBER_WITH_CUDA
TEST_CASE("cudnn passes: without the CUDA backend the conv table has no CUDA kernels, and asking "
          "for one raises an Error naming the op",
          "[cudnn]") {
  const Device gpu(kCUDA, 0);
  const char* why = " has no CUDA kernel for a tensor on cuda:0 (ember was built without the "
                    "CUDA backend)";
  const ConvKernels& k = kernels().conv;
  REQUIRE_THROWS_WITH(k.forward.on(gpu, "conv2d"), Catch::Contains(std::string("conv2d") + why));
  REQUIRE_THROWS_WITH(k.backward_data.on(gpu, "conv_transpose2d"),
                      Catch::Contains(std::string("conv_transpose2d") + why));
  REQUIRE_THROWS_WITH(k.backward_weight.on(gpu, "conv2d"),
                      Catch::Contains(std::string("conv2d") + why));
}
#endif

// Note [Aligned cuDNN operands]: views at a storage offset of a 64-byte aligned
// CPU buffer stand for device views (the caching allocator's blocks are
// 512-byte aligned): an element offset is aligned when offset * itemsize is a
// multiple of 16.
TEST_CASE("cudnn alignment: views at element offsets 1 to 4 need a copy unless 16-byte aligned",
          "[cudnn]") {
  CHECK(cuda::kCudnnAlignment == 16);
  for (ScalarType t : {kFloat, kDouble}) {
    INFO(t);
    const Tensor base = zeros({64}, t);
    REQUIRE(reinterpret_cast<uintptr_t>(base.data_ptr()) % 64 == 0);
    CHECK_FALSE(cuda::cudnn_needs_aligned_copy(base.data_ptr()));
    const size_t item = t == kFloat ? 4 : 8;
    for (int64_t offset : {1, 2, 3, 4}) {
      INFO("offset " << offset);
      const Tensor view = base.slice(0, offset, 64);
      REQUIRE(view.is_contiguous());
      CHECK(cuda::cudnn_needs_aligned_copy(view.data_ptr()) == (offset * item % 16 != 0));
    }
  }
  // chunk(2, 0) of 5 images of 1x3x3 floats: the last 2 start at 3 * 36 = 108 bytes.
  const Tensor batch = zeros({5, 1, 3, 3}, kFloat);
  const Tensor second = batch.chunk(2, 0)[1];
  REQUIRE(second.size(0) == 2);
  REQUIRE(second.is_contiguous());
  CHECK(cuda::cudnn_needs_aligned_copy(second.data_ptr()));
  CHECK(cuda::cudnn_needs_aligned_copy(second.contiguous().data_ptr()));  // same view
  CHECK_FALSE(cuda::cudnn_needs_aligned_copy(second.clone().data_ptr()));
}
