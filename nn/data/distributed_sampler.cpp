#include "ember/nn/data/distributed_sampler.h"

#include <numeric>

#include "ember/core/error.h"
#include "ember/nn/data/example_rng.h"

namespace ember::data {

DistributedSampler::DistributedSampler(int64_t num_replicas, int64_t rank)
    : num_replicas_(num_replicas), rank_(rank) {
  EMBER_CHECK(num_replicas > 0, "DistributedSampler: num_replicas must be positive, got ",
              num_replicas);
  EMBER_CHECK(rank >= 0 && rank < num_replicas, "DistributedSampler: rank must be in [0, ",
              num_replicas, ") for num_replicas ", num_replicas, ", got ", rank);
}

int64_t DistributedSampler::num_samples(int64_t n) const {
  EMBER_CHECK(n >= 0, "DistributedSampler: the dataset size must be >= 0, got ", n);
  return drop_last_ ? n / num_replicas_ : (n + num_replicas_ - 1) / num_replicas_;
}

std::vector<int64_t> DistributedSampler::indices(int64_t n, uint64_t epoch) const {
  const int64_t per_rank = num_samples(n);
  std::vector<int64_t> order;
  if (shuffle_) {
    order = epoch_permutation(n, seed_, epoch);
  } else {
    order.resize(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t{0});
  }
  // Position p of the padded (or cut) order of length per_rank * R is
  // order[p % n]: padding repeats from the start, as often as it takes when
  // R exceeds n.
  std::vector<int64_t> mine(static_cast<size_t>(per_rank));
  for (int64_t k = 0; k < per_rank; ++k)
    mine[static_cast<size_t>(k)] = order[static_cast<size_t>((rank_ + k * num_replicas_) % n)];
  return mine;
}

}  // namespace ember::data
