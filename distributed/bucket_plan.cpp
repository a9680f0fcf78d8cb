#include "ember/distributed/bucket_plan.h"

#include "ember/core/error.h"

namespace ember::distributed::detail {

std::vector<std::vector<size_t>> plan_buckets(const std::vector<BucketedParam>& params,
                                              const std::vector<size_t>& order,
                                              size_t first_cap_bytes, size_t cap_bytes) {
  std::vector<std::vector<size_t>> buckets;
  size_t bytes = 0;
  for (size_t index : order) {
    EMBER_INTERNAL_ASSERT(index < params.size(), "plan_buckets: index ", index, " of ",
                          params.size(), " parameters");
    const BucketedParam& p = params[index];
    const bool starts_new =
        buckets.empty() || bytes >= (buckets.size() == 1 ? first_cap_bytes : cap_bytes) ||
        params[buckets.back().front()].dtype != p.dtype ||
        params[buckets.back().front()].device != p.device;
    if (starts_new) {
      buckets.emplace_back();
      bytes = 0;
    }
    buckets.back().push_back(index);
    bytes += static_cast<size_t>(p.numel) * element_size(p.dtype);
  }
  return buckets;
}

}  // namespace ember::distributed::detail
