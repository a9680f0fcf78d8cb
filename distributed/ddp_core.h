#pragma once
// The part of DistributedDataParallel that does not depend on the wrapped
// module's type: the model checks and broadcasts at construction, the
// buffers' broadcast before each forward, the reducer, and join().
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/distributed/reducer.h"
#include "ember/nn/module.h"

namespace ember::nn::parallel {

class DistributedDataParallelOptions {
 public:
  // Chained setters, as libtorch's options.
  // The size of every gradient bucket but the first (1 MiB, or the cap if
  // smaller), in MiB (PyTorch's 25).
  DistributedDataParallelOptions& bucket_cap_mb(double v) { bucket_cap_mb_ = v; return *this; }
  // Parameters the forward's outputs do not reach count as zero gradients
  // instead of raising at the end of backward (costs a graph walk per step).
  DistributedDataParallelOptions& find_unused_parameters(bool v) { find_unused_ = v; return *this; }
  // Rank 0's buffers (batch norm's running statistics) are copied to every
  // rank before each training forward.
  DistributedDataParallelOptions& broadcast_buffers(bool v) { broadcast_buffers_ = v; return *this; }
  // Each .grad is a view into its bucket: no copy in or out of the buckets.
  DistributedDataParallelOptions& gradient_as_bucket_view(bool v) { bucket_view_ = v; return *this; }
  // The group to reduce over; the default group when unset.
  DistributedDataParallelOptions& process_group(std::shared_ptr<distributed::ProcessGroup> g) {
    group_ = std::move(g);
    return *this;
  }
  double bucket_cap_mb() const { return bucket_cap_mb_; }
  bool find_unused_parameters() const { return find_unused_; }
  bool broadcast_buffers() const { return broadcast_buffers_; }
  bool gradient_as_bucket_view() const { return bucket_view_; }
  const std::shared_ptr<distributed::ProcessGroup>& process_group() const { return group_; }

 private:
  double bucket_cap_mb_ = 25;
  bool find_unused_ = false;
  bool broadcast_buffers_ = true;
  bool bucket_view_ = false;
  std::shared_ptr<distributed::ProcessGroup> group_;
};

namespace detail {

class DdpCore {
 public:
  DdpCore(std::shared_ptr<Module> module, const DistributedDataParallelOptions& options);

  // Around the wrapped module's forward.
  void before_forward();
  void after_forward(const std::vector<Tensor>& outputs);

  void set_sync(bool on) { reducer_->set_sync(on); }
  bool sync() const { return reducer_->sync(); }
  void join(const std::function<void()>& body);

  const distributed::detail::StepTrace& last_step_trace() const { return reducer_->last_trace(); }
  std::vector<std::vector<size_t>> bucket_indices() const { return reducer_->bucket_indices(); }
  const std::shared_ptr<distributed::ProcessGroup>& group() const { return group_; }

 private:
  void sync_buffers();
  void shadow_until_all_joined();

  std::shared_ptr<Module> module_;
  std::shared_ptr<distributed::ProcessGroup> group_;
  bool broadcast_buffers_;
  bool joining_ = false;  // inside join(): each training forward says "still active"
  std::unique_ptr<distributed::detail::Reducer> reducer_;
};

// Raises on every rank when the ranks' models differ (count, names, shapes or
// dtypes of the parameters), naming the first rank and parameter that differ
// from rank 0's: without it a mismatch hangs in the first bucket.
void check_same_model(distributed::ProcessGroup& group, const Module& module);

// Copies rank src's tensors to every rank in one collective per dtype.
void broadcast_coalesced(distributed::ProcessGroup& group, const std::vector<Tensor>& tensors, int src);

}  // namespace detail
}  // namespace ember::nn::parallel
