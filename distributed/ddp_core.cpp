#include "ember/distributed/ddp_core.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/shape/views.h"
#include "ember/distributed/distributed.h"

namespace ember::nn::parallel::detail {
namespace {

using distributed::ProcessGroup;
using distributed::ReduceOp;

// One line per parameter: "name dtype [sizes]".
std::vector<std::string> describe_parameters(const Module& module) {
  std::vector<std::string> lines;
  for (const auto& item : module.named_parameters()) {
    std::ostringstream line;
    line << "'" << item.key() << "' " << item.value().scalar_type() << " " << item.value().sizes();
    lines.push_back(line.str());
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& line : lines) s += line + '\n';
  return s;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every rank's string (bytes carried one per int64 element: any backend
// handles int64, and a model's description is a few kilobytes).
std::vector<std::string> allgather_strings(ProcessGroup& group, const std::string& mine, Device device) {
  const auto opts = TensorOptions().dtype(kLong).device(device);
  auto gather = [&](const Tensor& local) {
    std::vector<std::vector<Tensor>> out(1);
    for (int r = 0; r < group.size(); ++r) out[0].push_back(zeros(local.sizes(), opts));
    std::vector<Tensor> in{local};
    group.allgather(out, in)->wait();
    std::vector<Tensor> cpu;
    for (const Tensor& t : out[0]) cpu.push_back(t.cpu());
    return cpu;
  };
  Tensor length = full({1}, static_cast<int64_t>(mine.size()), TensorOptions().dtype(kLong));
  int64_t longest = 0;
  std::vector<int64_t> lengths;
  for (const Tensor& t : gather(length.to(device))) {
    lengths.push_back(t.data_ptr<int64_t>()[0]);
    longest = std::max(longest, lengths.back());
  }
  Tensor bytes = zeros({std::max<int64_t>(longest, 1)}, TensorOptions().dtype(kLong));
  for (size_t k = 0; k < mine.size(); ++k)
    bytes.data_ptr<int64_t>()[k] = static_cast<unsigned char>(mine[k]);
  std::vector<std::string> all;
  const std::vector<Tensor> gathered = gather(bytes.to(device));
  for (size_t r = 0; r < gathered.size(); ++r) {
    std::string s(static_cast<size_t>(lengths[r]), '\0');
    for (size_t k = 0; k < s.size(); ++k) s[k] = static_cast<char>(gathered[r].data_ptr<int64_t>()[k]);
    all.push_back(std::move(s));
  }
  return all;
}

Device device_of(const Module& module) {
  const std::vector<Tensor> params = module.parameters();
  return params.empty() ? Device(kCPU) : params.front().device();
}

}  // namespace

void check_same_model(ProcessGroup& group, const Module& module) {
  const std::vector<std::string> all =
      allgather_strings(group, join_lines(describe_parameters(module)), device_of(module));
  const std::vector<std::string> reference = split_lines(all[0]);
  for (size_t r = 1; r < all.size(); ++r) {
    const std::vector<std::string> theirs = split_lines(all[r]);
    for (size_t k = 0; k < std::max(reference.size(), theirs.size()); ++k) {
      if (k < reference.size() && k < theirs.size() && reference[k] == theirs[k]) continue;
      auto describe = [&](const std::vector<std::string>& lines) {
        return k < lines.size() ? lines[k] : ::ember::detail::str_cat("nothing (", lines.size(),
                                                                      " parameters in all)");
      };
      EMBER_ERROR("DistributedDataParallel (rank ", group.rank(), "): rank ", r,
                  "'s model differs from rank 0's at parameter ", k, ": rank 0 has ",
                  describe(reference), ", rank ", r, " has ", describe(theirs),
                  "; every rank must wrap the same model");
    }
  }
}

void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors, int src) {
  NoGradGuard no_grad;
  std::vector<bool> done(tensors.size(), false);
  for (size_t first = 0; first < tensors.size(); ++first) {
    if (done[first]) continue;
    // Every tensor of this one's dtype and device, flattened into one.
    std::vector<size_t> members;
    std::vector<Tensor> flats;
    for (size_t k = first; k < tensors.size(); ++k) {
      if (done[k] || tensors[k].scalar_type() != tensors[first].scalar_type() ||
          tensors[k].device() != tensors[first].device())
        continue;
      members.push_back(k);
      flats.push_back(tensors[k].reshape({-1}));
      done[k] = true;
    }
    std::vector<Tensor> flat{cat(flats)};
    group.broadcast(flat, src)->wait();
    int64_t offset = 0;
    for (size_t k : members) {
      const Tensor& t = tensors[k];
      t.copy_(flat[0].narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

DdpCore::DdpCore(std::shared_ptr<Module> module, const DistributedDataParallelOptions& options)
    : module_(std::move(module)),
      group_(options.process_group() ? options.process_group() : distributed::default_group()),
      broadcast_buffers_(options.broadcast_buffers()) {
  EMBER_CHECK(module_ != nullptr, "DistributedDataParallel: no module to wrap");
  EMBER_CHECK(options.bucket_cap_mb() > 0, "DistributedDataParallel: bucket_cap_mb must be "
              "positive, got ", options.bucket_cap_mb());
  check_same_model(*group_, *module_);
  // Every rank starts from rank 0's weights and buffers.
  std::vector<Tensor> state = module_->parameters();
  for (const Tensor& b : module_->buffers()) state.push_back(b);
  broadcast_coalesced(*group_, state, /*src=*/0);

  std::vector<Tensor> params;
  std::vector<std::string> names;
  for (const auto& item : module_->named_parameters()) {
    if (!item.value().requires_grad()) continue;
    params.push_back(item.value());
    names.push_back(item.key());
  }
  distributed::detail::ReducerOptions reducer_options;
  reducer_options.bucket_bytes = static_cast<size_t>(options.bucket_cap_mb() * (1 << 20));
  // The first bucket is small so that the first collective starts early, but
  // never larger than the cap asked for.
  reducer_options.first_bucket_bytes =
      std::min(reducer_options.first_bucket_bytes, reducer_options.bucket_bytes);
  reducer_options.find_unused_parameters = options.find_unused_parameters();
  reducer_options.gradient_as_bucket_view = options.gradient_as_bucket_view();
  reducer_ = std::make_unique<distributed::detail::Reducer>(std::move(params), std::move(names),
                                                            group_, reducer_options);
}

void DdpCore::sync_buffers() {
  if (!broadcast_buffers_ || !module_->is_training()) return;
  const std::vector<Tensor> buffers = module_->buffers();
  if (!buffers.empty()) broadcast_coalesced(*group_, buffers, /*src=*/0);
}

// Note [Join]: under join(), every training forward first all-reduces
// (1, sync) from each rank still training; a rank whose data has run out
// answers (0, 0) and then mirrors the step's collectives (buffers, and the
// gradient buckets with zeros when the others synchronize), until the sum
// says no rank is left training. Gradients are still divided by the world
// size, as PyTorch's default.
void DdpCore::before_forward() {
  if (!GradMode::is_enabled()) return;  // evaluation: no collective at all
  if (joining_) {
    Tensor flags = zeros({2}, TensorOptions().dtype(kLong));
    flags.data_ptr<int64_t>()[0] = 1;
    flags.data_ptr<int64_t>()[1] = reducer_->sync() ? 1 : 0;
    std::vector<Tensor> t{flags.to(device_of(*module_))};
    group_->allreduce(t, ReduceOp::SUM)->wait();
  }
  sync_buffers();
}

void DdpCore::after_forward(const std::vector<Tensor>& outputs) {
  if (GradMode::is_enabled()) reducer_->prepare_for_backward(outputs);
}

void DdpCore::join(const std::function<void()>& body) {
  EMBER_CHECK(!joining_, "DistributedDataParallel::join: already inside join()");
  joining_ = true;
  struct Leave {
    bool& joining;
    ~Leave() { joining = false; }
  } leave{joining_};
  body();
  shadow_until_all_joined();
}

void DdpCore::shadow_until_all_joined() {
  for (;;) {
    std::vector<Tensor> t{zeros({2}, TensorOptions().dtype(kLong).device(device_of(*module_)))};
    group_->allreduce(t, ReduceOp::SUM)->wait();
    const Tensor flags = t[0].cpu();
    if (flags.data_ptr<int64_t>()[0] == 0) return;  // every rank has joined
    sync_buffers();
    if (flags.data_ptr<int64_t>()[1] > 0) reducer_->shadow_step();
  }
}

}  // namespace ember::nn::parallel::detail
