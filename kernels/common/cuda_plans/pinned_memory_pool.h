#pragma once
// PinnedBlockPool: the device-independent core of the pinned (page-locked)
// host allocator (kernels/cuda/pinned_memory.cpp). Blocks come from a
// BlockPool over cudaHostAlloc, so a loop that pins the same sizes every step
// stops calling cudaHostAlloc after its first step. What it adds is the rule
// for asynchronous copies: each copy that reads or writes a block records a
// completion event on it, and a block freed while one of its events has not
// completed waits on a pending list; it goes back to the free lists only once
// every event has completed. Events are polled (when blocks are allocated,
// the cache is emptied or the stats read), never waited on, so freeing never
// syncs the host.
// Built in every configuration: tests drive it with fake events on the CPU.
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/kernels/common/block_pool.h"

namespace ember {

// Completion markers queued on a device's stream: cudaEvent_t on a GPU, fakes in tests.
class CompletionEvents {
 public:
  using Event = void*;
  virtual ~CompletionEvents() = default;
  // An event queued now on `device`'s stream: it completes after the work queued before it.
  virtual Event record(int device) = 0;
  // Whether `event` has completed. Never waits.
  virtual bool query(Event event) = 0;
  // The pool is done with `event` (it may be recycled).
  virtual void release(Event event) = 0;
};

class PinnedBlockPool {
 public:
  // `raw` and `events` must outlive the pool; `name` ("pinned") starts the out-of-memory message.
  PinnedBlockPool(RawAllocator& raw, CompletionEvents& events, std::string name);
  PinnedBlockPool(const PinnedBlockPool&) = delete;
  PinnedBlockPool& operator=(const PinnedBlockPool&) = delete;

  // A block of at least `nbytes`. Pending blocks whose copies have all
  // completed are reclaimed first, so they can be reused.
  void* allocate(size_t nbytes);
  // Frees the block: at once when no recorded copy may still use it, else
  // once they have all completed.
  void deallocate(void* ptr);
  // Records that work queued from now on `device`'s stream reads or writes the
  // block starting at `ptr`. No-op for memory this pool did not hand out.
  void record_use(const void* ptr, int device);
  // Whether `ptr` starts a block this pool handed out and that is not freed.
  bool owns(const void* ptr);
  // Reclaims completed pending blocks, then returns every wholly free segment
  // to the raw allocator (blocks still waiting for their copies stay).
  void empty_cache();
  // Reclaims completed pending blocks, then the BlockPool's stats:
  // allocated_bytes includes the blocks still pending.
  MemoryStats stats();
  void reset_peak();
  // Freed blocks still waiting for their copies to complete.
  size_t pending_blocks();

 private:
  // Releases and drops the completed events of `events`; true when none is left.
  bool drop_completed_locked(std::vector<CompletionEvents::Event>& events);
  void reclaim_completed_locked();

  CompletionEvents& events_;
  BlockPool pool_;
  std::mutex mutex_;  // guards uses_ and pending_ (pool_ has its own)
  // Live blocks whose copies may still run, and freed ones waiting for theirs, by address.
  std::unordered_map<void*, std::vector<CompletionEvents::Event>> uses_;
  std::unordered_map<void*, std::vector<CompletionEvents::Event>> pending_;
};

}  // namespace ember
