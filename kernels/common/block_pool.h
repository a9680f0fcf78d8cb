#pragma once
// BlockPool: the device-independent core of the CUDA caching allocator (see
// docs/cuda-memory.md). It asks a RawAllocator for large segments, cuts them
// into blocks, and keeps freed blocks on best-fit free lists keyed by
// (stream, size), so a loop that allocates the same sizes every step stops
// calling the raw allocator (cudaMalloc) after its first step. It never touches
// the memory it hands out, so tests drive it with a fake raw allocator on the CPU.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

#include "ember/core/allocator.h"

namespace ember {

// A stream as an opaque integer (a cudaStream_t cast to one); 0 is the default stream.
using StreamId = uintptr_t;

// Where segments come from: cudaMalloc / cudaFree on a device, host memory in tests.
class RawAllocator {
 public:
  virtual ~RawAllocator() = default;
  // `nbytes` of fresh memory for use on `stream`, or nullptr when out of memory
  // (any other failure throws).
  virtual void* malloc(size_t nbytes, StreamId stream) = 0;
  virtual void free(void* ptr) = 0;
};

class BlockPool {
 public:
  // Sizes of the rounding rule (docs/cuda-memory.md).
  static constexpr size_t kMinBlockSize = 512;          // every block is a multiple of this
  static constexpr size_t kSmallSize = 1 << 20;         // blocks <= 1 MiB come from small segments
  static constexpr size_t kSmallSegment = 2 << 20;      // one small segment holds many blocks
  static constexpr size_t kMinLargeAlloc = 10 << 20;    // large blocks under 10 MiB ...
  static constexpr size_t kLargeSegment = 20 << 20;     // ... share a 20 MiB segment
  static constexpr size_t kLargeRounding = 2 << 20;     // bigger ones get their own 2 MiB multiple

  // The block size a request of `nbytes` gets: a multiple of kMinBlockSize, at least one.
  static size_t round_size(size_t nbytes);
  // The segment the raw allocator is asked for when no cached block fits `block_size`.
  static size_t segment_size(size_t block_size);

  // `name` ("cuda:0") starts the out-of-memory message. `raw` must outlive the pool.
  BlockPool(RawAllocator& raw, std::string name);
  // Returns every segment to the raw allocator (blocks still in use included).
  ~BlockPool();
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  // A block of at least `nbytes` for work ordered on `stream`. When the raw
  // allocator is out of memory, frees the cached segments and retries once,
  // then throws ember::Error with the request and the stats.
  void* allocate(size_t nbytes, StreamId stream);
  // Puts the block back on its stream's free list, merged with free neighbours.
  void deallocate(void* ptr);
  // Whether `ptr` is a block this pool handed out and that is not freed yet.
  bool owns(void* ptr);
  // Returns every wholly free segment to the raw allocator.
  void empty_cache();

  // The most bytes the pool may reserve (segments in use or cached); a new
  // segment beyond it is out of memory as if the raw allocator had run out
  // (the cached segments go back first, then allocate raises). No limit by
  // default. A limit under what is reserved now frees nothing: it only
  // refuses new segments. Tests use it to force the out-of-memory paths.
  static constexpr size_t kNoLimit = SIZE_MAX;
  void set_reserved_limit(size_t bytes);
  size_t reserved_limit();

  // allocated_bytes counts whole blocks (rounded, plus an unsplit tail);
  // num_system_allocs / num_system_frees count raw allocator calls.
  MemoryStats stats();
  void reset_peak();

 private:
  struct Block;
  struct ByStreamSizeAddress {
    bool operator()(const Block* a, const Block* b) const;
  };
  using FreeList = std::set<Block*, ByStreamSizeAddress>;

  FreeList& free_list_for(size_t block_size);
  Block* take_best_fit(FreeList& list, StreamId stream, size_t size);
  Block* new_segment(size_t size, StreamId stream, bool small);
  void split(Block* block, size_t size, FreeList& list);
  void merge_into(Block* block, Block* neighbour);
  void* raw_malloc_within_limit(size_t bytes, StreamId stream);
  void release_free_segments_locked();
  [[noreturn]] void throw_out_of_memory(size_t nbytes, size_t block_size);

  RawAllocator& raw_;
  const std::string name_;
  std::mutex mutex_;
  FreeList small_free_;
  FreeList large_free_;
  std::unordered_map<uintptr_t, Block*> in_use_;  // by address
  MemoryStats stats_;
  size_t reserved_limit_ = kNoLimit;
};

}  // namespace ember
