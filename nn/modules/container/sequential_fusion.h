#pragma once
// Note [Eval fusion of Conv2d, BatchNorm and ReLU]
// In evaluation, BatchNorm2d with running statistics is an affine map per
// channel, y = (x - mean) * gamma / sqrt(var + eps) + beta, so after a Conv2d
// it folds into the conv's weight and bias:
//   scale = gamma / sqrt(var + eps)
//   w' = w * scale (per output channel),   b' = (b - mean) * scale + beta
// and a ReLU right after it runs in the conv's own output pass
// (ember::conv2d_relu). Sequential does this for each Conv2d -> BatchNorm2d
// [-> ReLU] run of its modules when grad mode is off (NoGradGuard,
// InferenceMode), the BatchNorm2d is in eval mode with running statistics,
// the conv pads with zeros by numbers, and none of the modules has a hook
// (a hook must see the outputs in between). Elsewhere the modules run one by
// one, as before. The result equals the unfused one within float rounding
// (the product w * scale rounds once more).
//
// The folded weight and bias are kept and reused while the six tensors they
// come from are the same ones, on the same storage, with the same version
// counter (Note [Version counters]): an optimizer step, load_state_dict, a
// copy_ or to() changes one of them, and the next eval forward folds again.
// A kept w' also keeps the Winograd algorithm's transformed weights valid
// (they are cached while the weight compares equal).
//
// set_eval_fusion(false) turns it off for the process (to reproduce unfused
// numerics bit for bit); eval_fusion_stats() counts fused runs and folds.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/nn/modules/container/any.h"

namespace ember::nn {

// On by default; process-wide.
void set_eval_fusion(bool enabled);
bool eval_fusion();

struct EvalFusionStats {
  int64_t fused_runs = 0;  // Conv2d -> BatchNorm2d [-> ReLU] runs executed as one conv
  int64_t folds = 0;       // folded weights computed (the first time, and after each change)
};
// Counts since the process started, over every Sequential.
EvalFusionStats eval_fusion_stats();

class EvalFusion {
 public:
  // Runs the fusable run of modules starting at `first` on x into out and
  // returns how many modules it ran (2 or 3), or returns 0 when there is none.
  size_t run(const std::vector<AnyModule>& modules, size_t first, const Tensor& x, Tensor& out);

 private:
  // What a folded weight was computed from: each source tensor's storage,
  // offset and version, and the eps.
  struct Sources {
    std::array<const void*, 6> data{};
    std::array<uint32_t, 6> versions{};
    double eps = 0;
    bool operator==(const Sources&) const = default;
  };
  struct Folded {
    Sources sources;
    Tensor weight, bias;
  };
  std::mutex mutex_;  // eval forwards may run on several threads at once
  std::map<size_t, std::shared_ptr<const Folded>> folded_;  // by the conv's index
};

}  // namespace ember::nn
