#pragma once
// Note [Fusion in Sequential]
// Sequential runs two runs of its modules as one op, where the result is the
// same and nothing can tell the difference (none of the modules has a hook,
// and each is exactly the library's class, not a subclass):
//
// 1. Eval: Conv2d -> BatchNorm2d [-> ReLU] with grad mode off (NoGradGuard,
//    InferenceMode), the BatchNorm2d in eval mode with running statistics, the
//    conv padding with zeros by numbers. BatchNorm is then an affine map per
//    channel, y = (x - mean) * gamma / sqrt(var + eps) + beta, so it folds into
//    the conv's weight and bias:
//      scale = gamma / sqrt(var + eps)
//      w' = w * scale (per output channel),   b' = (b - mean) * scale + beta
//    and the ReLU runs in the conv's own output pass (ember::conv2d_relu). The
//    result equals the unfused one within float rounding (w * scale rounds once
//    more). The folded weight and bias are kept while the six tensors they come
//    from are the same ones, on the same storage, with the same version counter
//    (Note [Version counters]): an optimizer step, load_state_dict, copy_ or to()
//    changes one, and the next eval forward folds again. A kept w' also keeps
//    the Winograd algorithm's transformed weights valid (cached while the
//    weight compares equal).
// 2. Training: BatchNorm (1d or 2d) -> ReLU, in any grad mode, through
//    BatchNormImpl::forward_relu (ember::batch_norm_relu): one pass writes the
//    relu'd output, and backward recomputes relu's mask from the batch norm's
//    input instead of storing and reading the batch norm's output.
//
// set_sequential_fusion(false) turns both off for the process (to reproduce
// unfused numerics bit for bit); sequential_fusion_stats() counts them.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/nn/modules/container/any.h"

namespace ember::nn {

// On by default; process-wide.
void set_sequential_fusion(bool enabled);
bool sequential_fusion();

struct SequentialFusionStats {
  int64_t conv_bn_runs = 0;  // Conv2d -> BatchNorm2d [-> ReLU] runs executed as one conv (eval)
  int64_t folds = 0;         // folded weights computed (the first time, and after each change)
  int64_t bn_relu_runs = 0;  // BatchNorm -> ReLU pairs executed as batch_norm_relu
};
// Counts since the process started, over every Sequential.
SequentialFusionStats sequential_fusion_stats();

class SequentialFusion {
 public:
  // Runs the fusable run of modules starting at `first` on x into out and
  // returns how many modules it ran (2 or 3), or returns 0 when there is none.
  size_t run(const std::vector<AnyModule>& modules, size_t first, const Tensor& x, Tensor& out);

 private:
  size_t run_conv_bn(const std::vector<AnyModule>& modules, size_t first, const Tensor& x,
                     Tensor& out);

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
    // The source tensors themselves: held, their storage cannot be freed and
    // reused at the same address while the fold is compared against it.
    std::array<Tensor, 6> held;
    Tensor weight, bias;
  };
  std::mutex mutex_;  // eval forwards may run on several threads at once
  std::map<size_t, std::shared_ptr<const Folded>> folded_;  // by the conv's index
};

}  // namespace ember::nn
