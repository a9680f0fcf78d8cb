#include "ember/core/cuda/sync_count.h"

#include <atomic>

namespace ember::cuda {
namespace {
std::atomic<uint64_t> syncs{0};
}  // namespace

uint64_t sync_count() { return syncs.load(std::memory_order_relaxed); }

namespace detail {
void count_sync() { syncs.fetch_add(1, std::memory_order_relaxed); }
}  // namespace detail

}  // namespace ember::cuda
