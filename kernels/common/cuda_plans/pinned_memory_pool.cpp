#include "ember/kernels/common/cuda_plans/pinned_memory_pool.h"

#include <utility>

namespace ember {

namespace {
// Block pools key their free lists by stream; pinned blocks all share one list.
constexpr StreamId kHostStream = 0;
}  // namespace

PinnedBlockPool::PinnedBlockPool(RawAllocator& raw, CompletionEvents& events, std::string name)
    : events_(events), pool_(raw, std::move(name)) {}

void* PinnedBlockPool::allocate(size_t nbytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    reclaim_completed_locked();
  }
  return pool_.allocate(nbytes, kHostStream);
}

void PinnedBlockPool::deallocate(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto used = uses_.find(ptr);
  if (used == uses_.end()) return pool_.deallocate(ptr);
  std::vector<CompletionEvents::Event> events = std::move(used->second);
  uses_.erase(used);
  if (drop_completed_locked(events)) return pool_.deallocate(ptr);
  pending_.emplace(ptr, std::move(events));
}

void PinnedBlockPool::record_use(const void* ptr, int device) {
  void* block = const_cast<void*>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  if (pending_.count(block) != 0 || !pool_.owns(block)) return;
  std::vector<CompletionEvents::Event>& events = uses_[block];
  // A block reused by copy after copy (a staging buffer) keeps only the events still running.
  drop_completed_locked(events);
  events.push_back(events_.record(device));
}

bool PinnedBlockPool::owns(const void* ptr) {
  void* block = const_cast<void*>(ptr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pending_.count(block) != 0) return false;
  }
  return pool_.owns(block);
}

void PinnedBlockPool::empty_cache() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    reclaim_completed_locked();
  }
  pool_.empty_cache();
}

MemoryStats PinnedBlockPool::stats() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    reclaim_completed_locked();  // so blocks whose copies completed no longer count
  }
  return pool_.stats();
}

void PinnedBlockPool::reset_peak() { pool_.reset_peak(); }

size_t PinnedBlockPool::pending_blocks() {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_.size();
}

bool PinnedBlockPool::drop_completed_locked(std::vector<CompletionEvents::Event>& events) {
  size_t kept = 0;
  for (CompletionEvents::Event event : events) {
    if (events_.query(event))
      events_.release(event);
    else
      events[kept++] = event;
  }
  events.resize(kept);
  return kept == 0;
}

void PinnedBlockPool::reclaim_completed_locked() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (drop_completed_locked(it->second)) {
      pool_.deallocate(it->first);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace ember
