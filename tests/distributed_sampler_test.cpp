// DistributedSampler (nn/data/distributed_sampler.h): each rank's share of an
// epoch, PyTorch's padding and drop_last numbers, one permutation for all
// ranks, and the DataLoader reading only its rank's examples.
#include <ember/nn/data/data_loader.h>
#include <ember/nn/data/example_rng.h>

#include <algorithm>
#include <set>
#include <vector>

#include "test_helpers.h"

using namespace ember;
using namespace ember::data;
using Catch::Contains;
using Indices = std::vector<int64_t>;

namespace {

// Every rank's indices for one epoch.
std::vector<Indices> all_ranks(int64_t n, int64_t replicas, uint64_t epoch, bool shuffle,
                               bool drop_last, uint64_t seed = 0) {
  std::vector<Indices> out;
  for (int64_t r = 0; r < replicas; ++r)
    out.push_back(DistributedSampler(replicas, r)
                      .shuffle(shuffle)
                      .seed(seed)
                      .drop_last(drop_last)
                      .indices(n, epoch));
  return out;
}

// The global order the ranks took turns at: position p is rank p % R's (p / R)-th.
Indices interleave(const std::vector<Indices>& ranks) {
  Indices out;
  for (size_t k = 0; k < ranks[0].size(); ++k)
    for (const Indices& r : ranks) out.push_back(r[k]);
  return out;
}

// n examples; example i's data is the single value i, its label i % 10.
std::shared_ptr<const TensorDataset> counting_dataset(int64_t n) {
  Indices labels;
  for (int64_t i = 0; i < n; ++i) labels.push_back(i % 10);
  return std::make_shared<const TensorDataset>(arange(0, n, TensorOptions(kFloat)).reshape({n, 1}),
                                               tensor(labels, kLong).reshape({n}));
}

// The dataset indices of one epoch of the loader, batch by batch, with the labels checked.
std::vector<Indices> loader_epoch(DataLoader& loader) {
  std::vector<Indices> out;
  for (Batch& b : loader) {
    Indices batch;
    const std::vector<double> data = ember_test::values(b.data);
    const std::vector<int64_t> target = ember_test::int64_values(b.target);
    for (size_t i = 0; i < data.size(); ++i) {
      batch.push_back(static_cast<int64_t>(data[i]));
      REQUIRE(target[i] == batch.back() % 10);
    }
    out.push_back(batch);
  }
  return out;
}

}  // namespace

TEST_CASE("DistributedSampler: 10 examples on 3 ranks pad to 12 (4 each), drop_last cuts to 9 "
          "(3 each), as PyTorch",
          "[data][distributed]") {
  // Without shuffle the numbers are PyTorch's exactly: [0..9, 0, 1] dealt out in turn.
  REQUIRE(all_ranks(10, 3, 0, false, false) ==
          std::vector<Indices>{{0, 3, 6, 9}, {1, 4, 7, 0}, {2, 5, 8, 1}});
  REQUIRE(all_ranks(10, 3, 0, false, true) ==
          std::vector<Indices>{{0, 3, 6}, {1, 4, 7}, {2, 5, 8}});
  const DistributedSampler padded(3, 0), dropped = DistributedSampler(3, 0).drop_last(true);
  REQUIRE(padded.num_samples(10) == 4);
  REQUIRE(dropped.num_samples(10) == 3);
  // Shuffled: the same sizes; the union is the dataset plus the first two of the order again.
  for (bool drop_last : {false, true}) {
    INFO("drop_last " << drop_last);
    const std::vector<Indices> ranks = all_ranks(10, 3, 5, true, drop_last, 7);
    for (const Indices& r : ranks) REQUIRE(r.size() == (drop_last ? 3u : 4u));
    Indices order = epoch_permutation(10, 7, 5);
    if (drop_last) {
      order.resize(9);
    } else {
      order.push_back(order[0]);
      order.push_back(order[1]);
    }
    REQUIRE(interleave(ranks) == order);
  }
}

TEST_CASE("DistributedSampler: every rank cuts its share from the one permutation of "
          "(seed, epoch)",
          "[data][distributed]") {
  const int64_t n = 50, replicas = 4;
  const std::vector<Indices> e0 = all_ranks(n, replicas, 0, true, false, 42);
  // The same (seed, epoch) on another "machine": the same shares.
  REQUIRE(all_ranks(n, replicas, 0, true, false, 42) == e0);
  // Dealt out in turn they are the DataLoader's own shuffle, padded by its first two.
  Indices order = epoch_permutation(n, 42, 0);
  order.push_back(order[0]);
  order.push_back(order[1]);
  REQUIRE(interleave(e0) == order);
  // Each rank 13 examples; together every example, 0 and order[1] twice.
  std::multiset<int64_t> seen;
  for (const Indices& r : e0) {
    REQUIRE(r.size() == 13u);
    seen.insert(r.begin(), r.end());
  }
  for (int64_t i = 0; i < n; ++i)
    REQUIRE(seen.count(i) == ((i == order[0] || i == order[1]) ? 2u : 1u));
  // Another epoch or another seed: another order.
  REQUIRE(all_ranks(n, replicas, 1, true, false, 42) != e0);
  REQUIRE(all_ranks(n, replicas, 0, true, false, 43) != e0);
}

TEST_CASE("DistributedSampler: ranks are disjoint and cover the dataset when R divides it",
          "[data][distributed]") {
  for (bool shuffle : {false, true}) {
    INFO("shuffle " << shuffle);
    const std::vector<Indices> ranks = all_ranks(12, 4, 3, shuffle, false);
    std::set<int64_t> seen;
    for (const Indices& r : ranks) {
      REQUIRE(r.size() == 3u);
      for (int64_t i : r) REQUIRE(seen.insert(i).second);
    }
    REQUIRE(seen.size() == 12u);
    REQUIRE(all_ranks(12, 4, 3, shuffle, true) == ranks);  // nothing to drop
  }
}

TEST_CASE("DistributedSampler: more ranks than examples repeat them; none gives none",
          "[data][distributed]") {
  REQUIRE(all_ranks(2, 5, 0, false, false) == std::vector<Indices>{{0}, {1}, {0}, {1}, {0}});
  REQUIRE(all_ranks(2, 5, 0, false, true) == std::vector<Indices>(5));
  REQUIRE(DistributedSampler(3, 1).indices(0, 0).empty());
  REQUIRE(DistributedSampler(1, 0).shuffle(false).indices(4, 9) == Indices{0, 1, 2, 3});
}

TEST_CASE("DistributedSampler rejects a rank outside [0, num_replicas)", "[data][distributed]") {
  REQUIRE_THROWS_WITH(DistributedSampler(0, 0), Contains("num_replicas must be positive, got 0"));
  REQUIRE_THROWS_WITH(DistributedSampler(4, 4),
                      Contains("rank must be in [0, 4) for num_replicas 4, got 4"));
  REQUIRE_THROWS_WITH(DistributedSampler(4, -1), Contains("got -1"));
}

TEST_CASE("DataLoader with a DistributedSampler yields exactly its rank's examples, epoch by "
          "epoch",
          "[data][distributed]") {
  const auto ds = counting_dataset(10);
  const int workers = GENERATE(0, 2);
  INFO("num_workers " << workers);
  for (int64_t rank = 0; rank < 3; ++rank) {
    INFO("rank " << rank);
    const DistributedSampler sampler = DistributedSampler(3, rank).seed(9);
    DataLoader loader(ds, DataLoaderOptions().batch_size(3).num_workers(workers).sampler(sampler));
    REQUIRE(loader.size() == 2);  // 4 examples: a batch of 3 and one of 1
    for (uint64_t epoch : {0, 1}) {  // begin() advances the epoch
      const std::vector<Indices> batches = loader_epoch(loader);
      const Indices want = sampler.indices(10, epoch);
      REQUIRE(batches == std::vector<Indices>{{want[0], want[1], want[2]}, {want[3]}});
    }
    loader.set_epoch(7);  // PyTorch's sampler.set_epoch(7)
    const Indices want = sampler.indices(10, 7);
    REQUIRE(loader_epoch(loader) ==
            std::vector<Indices>{{want[0], want[1], want[2]}, {want[3]}});
  }
  // drop_last on the sampler and on the loader: 3 examples each, one full batch of 2.
  DataLoader loader(ds, DataLoaderOptions().batch_size(2).drop_last(true).sampler(
                            DistributedSampler(3, 2).drop_last(true).shuffle(false)));
  REQUIRE(loader.size() == 1);
  REQUIRE(loader_epoch(loader) == std::vector<Indices>{{2, 5}});
}

TEST_CASE("DataLoader: one shuffle only, the sampler's or the loader's", "[data][distributed]") {
  REQUIRE_THROWS_WITH(
      DataLoader(counting_dataset(4),
                 DataLoaderOptions().shuffle(true).sampler(DistributedSampler(2, 0))),
      Contains("shuffle(true) and a sampler exclude each other"));
  // One replica with the loader's seed is the loader's own shuffle.
  const auto ds = counting_dataset(20);
  DataLoader plain(ds, DataLoaderOptions().batch_size(20).shuffle(true).seed(3));
  DataLoader sampled(ds, DataLoaderOptions().batch_size(20).sampler(DistributedSampler(1, 0).seed(3)));
  REQUIRE(loader_epoch(plain) == loader_epoch(sampled));
}
