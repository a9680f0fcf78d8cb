#pragma once
// The gradient reducer behind DistributedDataParallel.
//
// Note [Gradient buckets]: averaging gradients one parameter at a time would
// cost one collective per parameter, and reducing them all after backward
// would leave the network idle while backward runs and backward idle while
// the network runs. So gradients are copied into a few flat buckets and each
// bucket is all-reduced as soon as its last gradient is ready, while backward
// goes on computing earlier layers' gradients:
//   - Buckets hold parameters in reverse registration order (the last layer's
//     gradients are ready first); the first bucket is small (1 MiB) so the
//     first collective starts early, the others 25 MiB. After the first
//     backward the buckets are rebuilt once from the order in which gradients
//     actually became ready (rank 0's order, broadcast, so every rank agrees).
//   - A post-accumulate hook on each parameter (Tensor::
//     register_post_accumulate_grad_hook) copies its .grad into its slot of
//     the bucket (nothing to copy with gradient_as_bucket_view, where .grad
//     is that slot) and, when the bucket is full, launches its allreduce.
//     Buckets launch in index order on every rank, since ranks must issue
//     collectives in the same order; a bucket ready early waits for the ones
//     before it.
//   - The first hook of a backward queues finalize() to run when backward
//     ends (autograd::queue_callback): it reports a parameter that got no
//     gradient (or, with find_unused_parameters, counts it as zero), waits for
//     every bucket, divides by the world size and copies the averages back to
//     each .grad.
// no_sync() turns the hooks off: gradients accumulate in .grad locally, and
// the next synchronized backward reduces their sum.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/distributed/process_group.h"

namespace ember::distributed::detail {

struct ReducerOptions {
  size_t first_bucket_bytes = size_t{1} << 20;
  size_t bucket_bytes = size_t{25} << 20;
  bool find_unused_parameters = false;
  bool gradient_as_bucket_view = false;
};

// When one step's collectives ran, in steady-clock ns (Work::start_ns), for
// tests and the benchmark: did communication overlap backward?
struct StepTrace {
  struct Bucket {
    int64_t numel = 0;
    int64_t launch_ns = 0, start_ns = 0, end_ns = 0;
  };
  std::vector<Bucket> buckets;
  int64_t backward_end_ns = 0;  // when the last node of backward had run
};

class Reducer {
 public:
  Reducer(std::vector<Tensor> params, std::vector<std::string> names,
          std::shared_ptr<ProcessGroup> group, ReducerOptions options);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // After the forward of a synchronized step, before its backward: with
  // find_unused_parameters, the parameters the outputs do not reach are
  // counted as ready with zero gradients now, so their buckets need not wait.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  // no_sync(): with sync off, backward only accumulates into .grad.
  void set_sync(bool on) { sync_ = on; }
  bool sync() const { return sync_; }

  // For join(): issue the collectives of one synchronized backward with zero
  // gradients and leave .grad alone, for a rank that has run out of data.
  void shadow_step();

  const StepTrace& last_trace() const { return trace_; }
  // Parameter indices of each bucket, in launch order.
  std::vector<std::vector<size_t>> bucket_indices() const;

 private:
  struct Bucket {
    std::vector<size_t> params;
    Tensor contents;              // 1-D, every parameter's gradient side by side
    std::vector<Tensor> views;    // contents' slice of each parameter, shaped as it
    size_t pending = 0;           // parameters not ready yet in this backward
    std::shared_ptr<Work> work;
    int64_t launch_ns = 0;
  };

  void build_buckets(const std::vector<size_t>& order);
  void mark_ready(size_t index);
  void mark_unused(size_t index);
  void launch_ready_buckets();
  void finalize();
  void collectives_of_finalize(bool shadow);
  void wait_for_buckets();
  void copy_back();
  void rebuild_from_ready_order();
  void reset_step();

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::shared_ptr<ProcessGroup> group_;
  ReducerOptions options_;
  std::vector<unsigned> hooks_;

  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_, slot_of_;  // per parameter
  std::vector<char> ready_;                  // per parameter, this backward
  std::vector<char> used_;                   // per parameter: a gradient arrived
  size_t next_to_launch_ = 0;
  bool sync_ = true;
  bool in_backward_ = false;
  bool rebuilt_ = false;
  std::vector<size_t> ready_order_;  // the first backward's, for the rebuild
  Tensor used_counts_;               // find_unused: ranks that used each parameter
  std::shared_ptr<Work> used_work_;
  StepTrace trace_;
};

}  // namespace ember::distributed::detail
