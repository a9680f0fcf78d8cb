#pragma once
// DistributedSampler: which examples of an epoch each rank of a data-parallel
// job reads, as PyTorch's torch.utils.data.DistributedSampler(dataset,
// num_replicas, rank, shuffle=True, seed=0, drop_last=False).
//   DataLoader loader(FashionMNIST(),
//                     DataLoaderOptions().batch_size(64).sampler(
//                         DistributedSampler(world_size, rank).seed(1)));
//   for (int64_t epoch = 0; epoch < epochs; ++epoch)
//     for (Batch& batch : loader) ...  // this rank's share of epoch `epoch`
//
// An epoch's order: every rank shuffles the whole dataset with the same
// permutation of (seed, epoch), the one DataLoader's shuffle uses
// (epoch_permutation, Note [Reproducible data order] in example_rng.h), or
// keeps 0..n-1 without shuffle. Then the order is made a multiple of
// num_replicas: padded by repeating its first indices (drop_last false, the
// default), or cut short of its tail (drop_last true). Rank r takes positions
// r, r + R, r + 2R, ... So each rank gets num_samples(n) examples, and the
// ranks are disjoint whenever R divides n (padding repeats a few otherwise).
// Example: n = 10, R = 3: padded to 12, 4 per rank; with drop_last 9, 3 per rank.
//
// The epoch is an argument, not state: the DataLoader passes its own epoch
// (set_epoch, or the count begin() advances), so PyTorch's
// `sampler.set_epoch(e)` is `loader.set_epoch(e)` here, and forgetting it
// cannot make every epoch repeat the first one's order.
//
// num_replicas and rank are plain arguments; no process group is needed.
#include <cstdint>
#include <vector>

namespace ember::data {

class DistributedSampler {
 public:
  // rank in [0, num_replicas); an Error otherwise.
  DistributedSampler(int64_t num_replicas, int64_t rank);

  // Chained setters, as DataLoaderOptions'.
  DistributedSampler& shuffle(bool v) {
    shuffle_ = v;
    return *this;
  }
  DistributedSampler& seed(uint64_t v) {
    seed_ = v;
    return *this;
  }
  DistributedSampler& drop_last(bool v) {
    drop_last_ = v;
    return *this;
  }
  int64_t num_replicas() const { return num_replicas_; }
  int64_t rank() const { return rank_; }
  bool shuffle() const { return shuffle_; }
  uint64_t seed() const { return seed_; }
  bool drop_last() const { return drop_last_; }

  // Examples per rank for a dataset of n: ceil(n / R), or floor(n / R) with drop_last.
  int64_t num_samples(int64_t n) const;
  // The dataset indices this rank reads in epoch `epoch`, in order.
  std::vector<int64_t> indices(int64_t n, uint64_t epoch) const;

 private:
  int64_t num_replicas_, rank_;
  bool shuffle_ = true;
  uint64_t seed_ = 0;
  bool drop_last_ = false;
};

}  // namespace ember::data
