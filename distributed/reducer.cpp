#include "ember/distributed/reducer.h"

#include <algorithm>
#include <chrono>
#include <unordered_set>

#include "ember/autograd/accumulate_grad.h"
#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/distributed/bucket_plan.h"

namespace ember::distributed::detail {
namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool shares_memory(const Tensor& grad, const Tensor& view) {
  return grad.defined() && grad.data_ptr() == view.data_ptr();
}

// Parameters in reverse registration order: the last layer's gradients come first.
std::vector<size_t> reverse_order(size_t n) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = n - 1 - i;
  return order;
}

}  // namespace

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::string> names,
                 std::shared_ptr<ProcessGroup> group, ReducerOptions options)
    : params_(std::move(params)), names_(std::move(names)), group_(std::move(group)),
      options_(options) {
  EMBER_CHECK(group_ != nullptr, "DistributedDataParallel: no process group (call "
              "distributed::init_process_group first, or pass one in the options)");
  EMBER_CHECK(!params_.empty(), "DistributedDataParallel: the module has no parameter that "
              "requires grad, so there is nothing to reduce");
  EMBER_INTERNAL_ASSERT(names_.size() == params_.size(), "one name per parameter");
  const size_t n = params_.size();
  bucket_of_.resize(n);
  slot_of_.resize(n);
  ready_.assign(n, 0);
  used_.assign(n, 0);
  build_buckets(reverse_order(n));
  hooks_.reserve(n);
  for (size_t i = 0; i < n; ++i)
    hooks_.push_back(params_[i].register_post_accumulate_grad_hook(
        [this, i](const Tensor&) { mark_ready(i); }));
}

Reducer::~Reducer() {
  for (size_t i = 0; i < params_.size(); ++i) params_[i].remove_hook(hooks_[i]);
}

void Reducer::build_buckets(const std::vector<size_t>& order) {
  std::vector<BucketedParam> meta;
  meta.reserve(params_.size());
  for (const Tensor& p : params_) meta.push_back({p.numel(), p.scalar_type(), p.device()});
  const auto plan = plan_buckets(meta, order, options_.first_bucket_bytes, options_.bucket_bytes);

  NoGradGuard no_grad;
  buckets_.clear();
  buckets_.resize(plan.size());
  for (size_t b = 0; b < plan.size(); ++b) {
    Bucket& bucket = buckets_[b];
    bucket.params = plan[b];
    int64_t total = 0;
    for (size_t i : bucket.params) total += params_[i].numel();
    const Tensor& first = params_[bucket.params.front()];
    bucket.contents = zeros({total}, TensorOptions().dtype(first.scalar_type()).device(first.device()));
    int64_t offset = 0;
    for (size_t slot = 0; slot < bucket.params.size(); ++slot) {
      const size_t i = bucket.params[slot];
      bucket_of_[i] = b;
      slot_of_[i] = slot;
      Tensor view = bucket.contents.narrow(0, offset, params_[i].numel()).view(params_[i].sizes());
      offset += params_[i].numel();
      if (options_.gradient_as_bucket_view) {
        // .grad becomes the bucket's slice: backward accumulates into the
        // bucket directly and the reduced average lands in .grad with no copy.
        const Tensor& grad = params_[i].grad();
        if (grad.defined()) view.copy_(grad);
        params_[i].set_grad(view);
      }
      bucket.views.push_back(std::move(view));
    }
  }
  reset_step();
}

void Reducer::reset_step() {
  std::fill(ready_.begin(), ready_.end(), 0);
  std::fill(used_.begin(), used_.end(), 0);
  for (Bucket& b : buckets_) {
    b.pending = b.params.size();
    b.work = nullptr;
    b.launch_ns = 0;
  }
  next_to_launch_ = 0;
  in_backward_ = false;
  used_work_ = nullptr;
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  if (!sync_ || !options_.find_unused_parameters) return;
  // The leaves the outputs' graph reaches: their AccumulateGrad nodes.
  std::unordered_set<const TensorImpl*> reached;
  std::unordered_set<const autograd::Node*> seen;
  std::vector<autograd::Node*> stack;
  for (const Tensor& out : outputs) {
    if (!out.defined()) continue;
    if (auto fn = out.grad_fn(); fn && seen.insert(fn.get()).second) stack.push_back(fn.get());
    if (out.requires_grad() && out.is_leaf()) reached.insert(out.impl().get());
  }
  while (!stack.empty()) {
    autograd::Node* node = stack.back();
    stack.pop_back();
    if (node->is_accumulate_grad())
      reached.insert(static_cast<autograd::AccumulateGrad*>(node)->variable().impl().get());
    for (const autograd::Edge& e : node->next_edges())
      if (e.valid() && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  }
  for (size_t i = 0; i < params_.size(); ++i)
    if (!reached.count(params_[i].impl().get()) && !ready_[i]) mark_unused(i);
}

void Reducer::mark_ready(size_t index) {
  if (!sync_) return;  // no_sync(): the gradient stays in .grad, summed with the next ones
  if (!in_backward_) {
    in_backward_ = true;
    autograd::queue_callback([this] { finalize(); });
  }
  EMBER_CHECK(!ready_[index], "DistributedDataParallel: parameter '", names_[index],
              "' got its gradient twice in one synchronized backward (a second backward "
              "through the same forward?); run the extra backward passes under no_sync()");
  ready_[index] = 1;
  used_[index] = 1;
  if (!rebuilt_) ready_order_.push_back(index);
  Bucket& bucket = buckets_[bucket_of_[index]];
  const Tensor& view = bucket.views[slot_of_[index]];
  Tensor& param = params_[index];
  if (!shares_memory(param.grad(), view)) {
    NoGradGuard no_grad;
    view.copy_(param.grad());
    if (options_.gradient_as_bucket_view) param.set_grad(view);
  }
  if (--bucket.pending == 0) launch_ready_buckets();
}

void Reducer::mark_unused(size_t index) {
  ready_[index] = 1;
  Bucket& bucket = buckets_[bucket_of_[index]];
  {
    NoGradGuard no_grad;
    bucket.views[slot_of_[index]].zero_();
  }
  if (--bucket.pending == 0) launch_ready_buckets();
}

void Reducer::launch_ready_buckets() {
  // In index order on every rank: collectives must be issued in the same order.
  while (next_to_launch_ < buckets_.size() && buckets_[next_to_launch_].pending == 0) {
    Bucket& bucket = buckets_[next_to_launch_++];
    bucket.launch_ns = now_ns();
    std::vector<Tensor> tensors{bucket.contents};
    bucket.work = group_->allreduce(tensors, ReduceOp::SUM);
  }
}

void Reducer::finalize() {
  trace_.backward_end_ns = now_ns();
  in_backward_ = false;
  std::vector<size_t> missing;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (ready_[i]) continue;
    if (options_.find_unused_parameters) {
      mark_unused(i);
    } else {
      missing.push_back(i);
    }
  }
  if (!missing.empty()) {
    const size_t i = missing.front();
    std::string more;
    if (missing.size() > 1) more = ::ember::detail::str_cat(" (and ", missing.size() - 1, " more parameters)");
    reset_step();
    EMBER_ERROR("DistributedDataParallel (rank ", group_->rank(), "): parameter '", names_[i],
                "' (index ", i, ", shape ", params_[i].sizes(), ") received no gradient in this "
                "backward", more, ", so its bucket's allreduce cannot start. Construct "
                "DistributedDataParallel with find_unused_parameters(true) if some parameters "
                "may go unused in a step, or set requires_grad(false) on those never used");
  }
  collectives_of_finalize(/*shadow=*/false);
}

void Reducer::shadow_step() {
  NoGradGuard no_grad;
  for (Bucket& b : buckets_) {
    b.contents.zero_();
    b.pending = 0;
  }
  std::fill(ready_.begin(), ready_.end(), 1);
  launch_ready_buckets();
  collectives_of_finalize(/*shadow=*/true);
}

// The collectives after the buckets, identical on a training rank and a
// joined one: the used-parameter counts (find_unused_parameters), the waits,
// and once, the broadcast of the bucket order.
void Reducer::collectives_of_finalize(bool shadow) {
  if (options_.find_unused_parameters) {
    used_counts_ = zeros({static_cast<int64_t>(params_.size())},
                         TensorOptions().dtype(kLong).device(params_.front().device()));
    if (!shadow) {
      Tensor local = zeros({static_cast<int64_t>(params_.size())}, TensorOptions().dtype(kLong));
      int64_t* flags = local.data_ptr<int64_t>();
      for (size_t i = 0; i < params_.size(); ++i) flags[i] = used_[i];
      used_counts_.copy_(local);
    }
    std::vector<Tensor> tensors{used_counts_};
    used_work_ = group_->allreduce(tensors, ReduceOp::SUM);
  }
  wait_for_buckets();
  if (!shadow) copy_back();
  if (!rebuilt_) rebuild_from_ready_order();
  reset_step();
}

void Reducer::wait_for_buckets() {
  trace_.buckets.assign(buckets_.size(), {});
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    try {
      bucket.work->wait();
    } catch (const Error& e) {
      const int64_t numel = bucket.contents.numel();
      const ScalarType dtype = bucket.contents.scalar_type();
      reset_step();
      EMBER_ERROR(e.what(), "; in DistributedDataParallel's gradient bucket ", b, " of ",
                  buckets_.size(), " (", numel, " elements of ", dtype, ")");
    }
    trace_.buckets[b] = {bucket.contents.numel(), bucket.launch_ns, bucket.work->start_ns(),
                         bucket.work->end_ns()};
  }
  if (used_work_) used_work_->wait();
  NoGradGuard no_grad;
  const double world = group_->size();
  for (Bucket& bucket : buckets_) bucket.contents.div_(world);
}

void Reducer::copy_back() {
  NoGradGuard no_grad;
  Tensor used;
  if (options_.find_unused_parameters) used = used_counts_.cpu();
  for (size_t i = 0; i < params_.size(); ++i) {
    // A parameter no rank used keeps its .grad, as in a single process.
    if (used.defined() && used.data_ptr<int64_t>()[i] == 0) continue;
    const Tensor& view = buckets_[bucket_of_[i]].views[slot_of_[i]];
    Tensor& param = params_[i];
    if (shares_memory(param.grad(), view)) continue;
    if (options_.gradient_as_bucket_view) {
      param.set_grad(view);
    } else if (param.grad().defined()) {
      param.mutable_grad().copy_(view);
    } else {
      param.set_grad(view.clone());
    }
  }
}

// Once, after the first backward: buckets in the order gradients became ready
// on rank 0 (broadcast, so every rank builds the same buckets).
void Reducer::rebuild_from_ready_order() {
  rebuilt_ = true;
  const size_t n = params_.size();
  std::vector<char> seen(n, 0);
  std::vector<int64_t> order;
  order.reserve(n);
  for (size_t i : ready_order_)
    if (!seen[i]) order.push_back(static_cast<int64_t>(i)), seen[i] = 1;
  for (size_t i : reverse_order(n))
    if (!seen[i]) order.push_back(static_cast<int64_t>(i));
  ready_order_.clear();
  ready_order_.shrink_to_fit();

  Tensor local = zeros({static_cast<int64_t>(n)}, TensorOptions().dtype(kLong));
  std::copy(order.begin(), order.end(), local.data_ptr<int64_t>());
  std::vector<Tensor> tensors{local.to(params_.front().device())};
  group_->broadcast(tensors, /*src=*/0)->wait();
  Tensor agreed = tensors[0].cpu();
  std::vector<size_t> new_order(n);
  for (size_t k = 0; k < n; ++k) {
    const int64_t i = agreed.data_ptr<int64_t>()[k];
    EMBER_CHECK(i >= 0 && static_cast<size_t>(i) < n, "DistributedDataParallel (rank ",
                group_->rank(), "): rank 0's bucket order names parameter ", i, " of ", n,
                "; do all ranks wrap the same model?");
    new_order[k] = static_cast<size_t>(i);
  }
  build_buckets(new_order);
}

std::vector<std::vector<size_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const Bucket& b : buckets_) out.push_back(b.params);
  return out;
}

}  // namespace ember::distributed::detail
