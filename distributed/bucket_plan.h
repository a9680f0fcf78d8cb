#pragma once
// Which gradients DistributedDataParallel reduces together (Note [Gradient
// buckets] in reducer.h). Plain data in, plain data out, so the rule is
// tested without a process group.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/dtype.h"

namespace ember::distributed::detail {

struct BucketedParam {
  int64_t numel = 0;
  ScalarType dtype = kFloat;
  Device device;
};

// Walks `order` (indices into params) and cuts it into buckets: a bucket is
// closed once it holds at least its cap in bytes (the first bucket
// first_cap_bytes, every later one cap_bytes), and a parameter of another
// dtype or device starts a new one. A parameter larger than the cap fills a
// bucket of its own. Every index of `order` lands in exactly one bucket.
std::vector<std::vector<size_t>> plan_buckets(const std::vector<BucketedParam>& params,
                                              const std::vector<size_t>& order,
                                              size_t first_cap_bytes, size_t cap_bytes);

}  // namespace ember::distributed::detail
