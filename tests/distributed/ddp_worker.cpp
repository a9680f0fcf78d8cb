// One rank of a DistributedDataParallel scenario (spawn_ranks.h starts them;
// rank_main.h says how it reports). Models are float64 where results
// are compared with a single-process run, so the only difference is the
// order of a few additions.
#include <ember/distributed/distributed.h>
#include <ember/distributed/distributed_data_parallel.h>
#include <ember/ember.h>

#include "rank_main.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <thread>

namespace dist = ember::distributed;
namespace nn = ember::nn;
using ember::Tensor;
using nn::parallel::DistributedDataParallel;
using nn::parallel::DistributedDataParallelOptions;

using ember_test::CheckFailed;
using ember_test::init;
using ember_test::rank;
using ember_test::world;

namespace {

const auto kF64 = ember::TensorOptions().dtype(ember::kDouble);

// x -> fc2(relu(fc1(x))) (+ an optional branch the forward may skip).
struct MlpImpl : nn::Module {
  MlpImpl(int64_t in, int64_t hidden, int64_t out) : Module("Mlp") {
    fc1 = register_module("fc1", nn::Linear(in, hidden));
    fc2 = register_module("fc2", nn::Linear(hidden, out));
    extra = register_module("extra", nn::Linear(hidden, out));
    to(ember::kDouble);
  }
  Tensor forward(const Tensor& x) {
    Tensor h = ember::relu(fc1(x));
    return use_extra ? fc2(h) + extra(h) : fc2(h);
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, extra{nullptr};
  bool use_extra = true;
};
EMBER_MODULE(Mlp);

// The global batch of step s: every rank makes all of it, and uses rows
// [rank * n, (rank + 1) * n).
std::pair<Tensor, Tensor> global_batch(int step, int64_t rows, int64_t in, int64_t out) {
  ember::manual_seed(1000 + step);
  return {ember::randn({rows, in}, kF64), ember::randn({rows, out}, kF64)};
}

Tensor mse(const Tensor& a, const Tensor& b) { return (a - b).pow(2).mean(); }

// The largest |a - b| / (|b| + 1e-12) over two modules' parameters.
double max_relative_difference(const nn::Module& a, const nn::Module& b) {
  const auto pa = a.parameters(), pb = b.parameters();
  double worst = 0;
  for (size_t k = 0; k < pa.size(); ++k) {
    const Tensor rel = (pa[k] - pb[k]).abs() / (pb[k].abs() + 1e-12);
    worst = std::max(worst, rel.max().item<double>());
  }
  return worst;
}

// Whether every rank holds bit-identical parameters.
bool identical_across_ranks(const nn::Module& m) {
  for (const Tensor& p : m.parameters()) {
    std::vector<Tensor> all;
    for (int r = 0; r < world; ++r) all.push_back(ember::zeros_like(p));
    Tensor mine = p.detach().clone();
    dist::all_gather(all, mine);
    for (const Tensor& t : all)
      if (!ember::equal(t, all[0])) return false;
  }
  return true;
}

Mlp reference_copy(Mlp& model) {
  Mlp copy(6, 16, 3);
  ember::NoGradGuard no_grad;
  const auto from = model->parameters(), to = copy->parameters();
  for (size_t k = 0; k < from.size(); ++k) to[k].copy_(from[k]);
  copy->use_extra = model->use_extra;
  return copy;
}

// N steps of SGD under DDP match one process on the concatenated batch, and
// the ranks' weights stay bit-identical; rank-specific seeds do not matter,
// as construction broadcasts rank 0's weights.
void equivalence(bool bucket_view) {
  init();
  ember::manual_seed(100 + rank);
  Mlp model(6, 16, 3);
  DistributedDataParallel ddp(model, DistributedDataParallelOptions()
                                         .gradient_as_bucket_view(bucket_view)
                                         .bucket_cap_mb(0.0005));  // several buckets
  CHECK_THAT(identical_across_ranks(*model), "construction did not broadcast rank 0's weights");
  CHECK_THAT(ddp.bucket_indices().size() > 1, "expected several buckets");
  Mlp reference = reference_copy(model);
  ember::optim::SGD opt(ddp->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
  ember::optim::SGD ref_opt(reference->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
  const int64_t n = 4;
  for (int step = 0; step < 5; ++step) {
    auto [x, y] = global_batch(step, n * world, 6, 3);
    opt.zero_grad();
    mse(ddp(x.narrow(0, rank * n, n)), y.narrow(0, rank * n, n)).backward();
    opt.step();
    ref_opt.zero_grad();
    mse(reference(x), y).backward();
    ref_opt.step();
  }
  CHECK_THAT(identical_across_ranks(*model), "ranks' weights differ after training");
  const double diff = max_relative_difference(*model, *reference);
  CHECK_THAT(diff <= 1e-6, "DDP vs single process: relative difference " + std::to_string(diff));
}

// bfloat16 parameters: the gloo allreduce averages in float32 and rounds once, so each
// gradient is the mean of the ranks' own gradients rounded to bfloat16 (to one bfloat16
// step: the float32 mean may round differently from the exact one); training keeps the
// ranks' weights bit-identical.
void bfloat16_gradients() {
  init();
  ember::manual_seed(200 + rank);
  Mlp model(6, 16, 3);
  model->to(ember::kBFloat16);
  DistributedDataParallel ddp(model, DistributedDataParallelOptions().bucket_cap_mb(0.0005));
  Mlp local = reference_copy(model);  // rank 0's weights, as DDP broadcast them
  local->to(ember::kBFloat16);
  const int64_t n = 4;
  auto [x, y] = global_batch(0, n * world, 6, 3);
  const Tensor mine = x.narrow(0, rank * n, n).to(ember::kBFloat16);
  const Tensor target = y.narrow(0, rank * n, n).to(ember::kBFloat16);
  mse(ddp(mine), target).backward();
  mse(local(mine), target).backward();  // this rank's own gradient, not communicated
  const auto reduced = model->parameters(), own = local->parameters();
  for (size_t k = 0; k < own.size(); ++k) {
    CHECK_THAT(reduced[k].grad().scalar_type() == ember::kBFloat16, "gradient not bfloat16");
    std::vector<Tensor> all;
    for (int r = 0; r < world; ++r) all.push_back(ember::zeros_like(own[k], kF64));
    Tensor g = own[k].grad().to(ember::kDouble);
    dist::all_gather(all, g);
    Tensor mean = ember::zeros_like(g);
    for (const Tensor& t : all) mean = mean + t;
    mean = (mean / world).to(ember::kBFloat16).to(ember::kDouble);
    const Tensor got = reduced[k].grad().to(ember::kDouble);
    const double worst = ((got - mean).abs() - mean.abs() * std::ldexp(1.0, -7)).max().item<double>();
    CHECK_THAT(worst <= 0, "parameter " + std::to_string(k) + ": a reduced gradient is more than "
                           "one bfloat16 step from the mean of the ranks' gradients");
  }
  ember::optim::SGD opt(ddp->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 1; step < 4; ++step) {
    auto [bx, by] = global_batch(step, n * world, 6, 3);
    opt.zero_grad();
    mse(ddp(bx.narrow(0, rank * n, n).to(ember::kBFloat16)),
        by.narrow(0, rank * n, n).to(ember::kBFloat16))
        .backward();
    opt.step();
  }
  CHECK_THAT(identical_across_ranks(*model), "ranks' bfloat16 weights differ after training");
}

// The first bucket's allreduce starts before backward ends: communication
// overlaps the rest of backward.
void overlap() {
  init();
  ember::manual_seed(1);
  Mlp model(512, 1024, 512);  // the first layer's backward takes a while
  DistributedDataParallel ddp(model, DistributedDataParallelOptions().bucket_cap_mb(1));
  for (int step = 0; step < 3; ++step) {
    ember::manual_seed(step);
    Tensor x = ember::randn({64, 512}, kF64);
    model->zero_grad();
    ddp(x).pow(2).mean().backward();
  }
  const auto& trace = ddp.last_step_trace();
  CHECK_THAT(trace.buckets.size() > 1, "one bucket only");
  const auto& first = trace.buckets.front();
  std::cout << "first bucket start " << (trace.backward_end_ns - first.start_ns) / 1000
            << " us before the end of backward\n";
  CHECK_THAT(first.start_ns > 0 && first.start_ns < trace.backward_end_ns,
             "the first bucket started " + std::to_string(first.start_ns - trace.backward_end_ns) +
                 " ns after backward ended");
}

// Buffers: construction copies rank 0's, and each training forward again.
void buffers() {
  init();
  ember::manual_seed(7);
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(4).momentum(0.0));  // forward leaves the stats
  {
    ember::NoGradGuard no_grad;
    bn->running_mean.fill_(static_cast<double>(rank + 1));
  }
  DistributedDataParallel ddp(bn);
  CHECK_THAT(bn->running_mean.eq(1.0).all().item<bool>(), "construction: running_mean is not rank 0's");
  {
    ember::NoGradGuard no_grad;
    bn->running_mean.fill_(rank == 0 ? 5.0 : 9.0);
  }
  ddp(ember::randn({8, 4})).sum().backward();
  CHECK_THAT(bn->running_mean.eq(5.0).all().item<bool>(), "forward: running_mean is not rank 0's");
}

// no_sync: k micro-steps issue no collective; the next reduces the sum.
void no_sync() {
  init();
  ember::manual_seed(3);
  Mlp model(6, 16, 3);
  DistributedDataParallel ddp(model);
  Mlp reference = reference_copy(model);
  const int64_t n = 2;
  const int k = 3;
  model->zero_grad();
  const uint64_t before = ddp.process_group()->sequence_number();
  for (int m = 0; m < k; ++m) {
    auto guard = ddp.no_sync();
    auto [x, y] = global_batch(m, n * world, 6, 3);
    mse(ddp(x.narrow(0, rank * n, n)), y.narrow(0, rank * n, n)).backward();
  }
  CHECK_THAT(ddp.process_group()->sequence_number() == before,
             "no_sync issued " + std::to_string(ddp.process_group()->sequence_number() - before) +
                 " collectives");
  auto [x, y] = global_batch(k, n * world, 6, 3);
  mse(ddp(x.narrow(0, rank * n, n)), y.narrow(0, rank * n, n)).backward();
  // The reference: the sum over micro-steps of the mean over ranks.
  for (int m = 0; m <= k; ++m) {
    auto [gx, gy] = global_batch(m, n * world, 6, 3);
    for (int r = 0; r < world; ++r)
      (mse(reference(gx.narrow(0, r * n, n)), gy.narrow(0, r * n, n)) / world).backward();
  }
  const auto got = model->parameters(), want = reference->parameters();
  for (size_t p = 0; p < got.size(); ++p) {
    const double diff = ((got[p].grad() - want[p].grad()).abs().max() /
                         (want[p].grad().abs().max() + 1e-12)).item<double>();
    CHECK_THAT(diff <= 1e-9, "parameter " + std::to_string(p) + ": relative difference " + std::to_string(diff));
  }
}

// Different models: every rank raises, naming rank 1 and the parameter.
void mismatch() {
  init();
  Mlp model(6, rank == 1 ? 17 : 16, 3);
  try {
    DistributedDataParallel ddp(model);
  } catch (const ember::Error& e) {
    std::cout << "construction error: " << e.what() << "\n";
    return;
  }
  throw CheckFailed("construction did not raise");
}

// A parameter that gets no gradient: a named error without
// find_unused_parameters; zeros with it, and its .grad left alone.
void unused(bool find_unused) {
  init();
  ember::manual_seed(5);
  Mlp model(6, 16, 3);
  model->use_extra = false;
  DistributedDataParallel ddp(model, DistributedDataParallelOptions().find_unused_parameters(find_unused));
  for (int step = 0; step < 3; ++step) {
    auto [x, y] = global_batch(step, 4 * world, 6, 3);
    model->zero_grad();
    try {
      mse(ddp(x.narrow(0, rank * 4, 4)), y.narrow(0, rank * 4, 4)).backward();
    } catch (const ember::Error& e) {
      CHECK_THAT(!find_unused, std::string("unexpected error: ") + e.what());
      std::cout << "backward error: " << e.what() << "\n";
      return;
    }
    CHECK_THAT(!model->extra->weight.grad().defined(), "the unused parameter got a .grad");
    CHECK_THAT(model->fc1->weight.grad().defined(), "fc1.weight has no .grad");
  }
  CHECK_THAT(find_unused, "backward did not raise");
  CHECK_THAT(identical_across_ranks(*model), "ranks' weights differ");
}

// Uneven inputs: rank r has 2 + r batches; under join() every rank finishes.
void join() {
  init();
  ember::manual_seed(11);
  Mlp model(6, 16, 3);
  DistributedDataParallel ddp(model);
  ember::optim::SGD opt(ddp->parameters(), ember::optim::SGDOptions(0.05));
  int steps = 0;
  ddp.join([&] {
    for (int step = 0; step < 2 + rank; ++step) {
      auto [x, y] = global_batch(step, 4 * world, 6, 3);
      opt.zero_grad();
      mse(ddp(x.narrow(0, rank * 4, 4)), y.narrow(0, rank * 4, 4)).backward();
      opt.step();
      ++steps;
    }
  });
  std::cout << "trained " << steps << " steps\n";
  CHECK_THAT(steps == 2 + rank, "steps");
}

// A rank that stops coming: the others' error names the bucket and the rank.
void timeout() {
  init(std::chrono::seconds(2));
  ember::manual_seed(5);
  Mlp model(6, 16, 3);
  DistributedDataParallel ddp(model);
  auto [x, y] = global_batch(0, 4 * world, 6, 3);
  if (rank == world - 1) {
    std::this_thread::sleep_for(std::chrono::seconds(6));
    return;
  }
  try {
    mse(ddp(x.narrow(0, rank * 4, 4)), y.narrow(0, rank * 4, 4)).backward();
  } catch (const ember::Error& e) {
    std::cout << "timeout error: " << e.what() << "\n";
    return;
  }
  throw CheckFailed("backward did not time out");
}

}  // namespace

int main(int argc, char** argv) {
  ember::set_num_threads(1);
  return ember_test::rank_main(argc, argv, {
      {"ddp_equivalence", [] { equivalence(false); }},
      {"ddp_bucket_view", [] { equivalence(true); }},
      {"ddp_overlap", overlap},
      {"ddp_bfloat16", bfloat16_gradients},
      {"ddp_buffers", buffers},
      {"ddp_no_sync", no_sync},
      {"ddp_mismatch", mismatch},
      {"ddp_unused_error", [] { unused(false); }},
      {"ddp_find_unused", [] { unused(true); }},
      {"ddp_join", join},
      {"ddp_timeout", timeout},
  });
}
