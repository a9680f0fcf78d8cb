#include "ember/kernels/common/block_pool.h"

#include <tuple>
#include <vector>

#include "ember/core/error.h"

namespace ember {

// A run of bytes inside one segment. The blocks of a segment form a list in
// address order (prev/next); the segment's first block has prev == nullptr, so
// a block with neither neighbour is a whole segment.
struct BlockPool::Block {
  uintptr_t address;
  size_t size;
  StreamId stream;
  bool small;  // from a small segment: only ever handed out for small requests
  bool in_use = false;
  Block* prev = nullptr;
  Block* next = nullptr;

  bool whole_segment() const { return prev == nullptr && next == nullptr; }
};

bool BlockPool::ByStreamSizeAddress::operator()(const Block* a, const Block* b) const {
  return std::tie(a->stream, a->size, a->address) < std::tie(b->stream, b->size, b->address);
}

size_t BlockPool::round_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return (nbytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t BlockPool::segment_size(size_t block_size) {
  if (block_size <= kSmallSize) return kSmallSegment;
  if (block_size < kMinLargeAlloc) return kLargeSegment;
  return (block_size + kLargeRounding - 1) / kLargeRounding * kLargeRounding;
}

BlockPool::BlockPool(RawAllocator& raw, std::string name) : raw_(raw), name_(std::move(name)) {}

BlockPool::~BlockPool() {
  std::vector<Block*> blocks(small_free_.begin(), small_free_.end());
  blocks.insert(blocks.end(), large_free_.begin(), large_free_.end());
  for (const auto& [address, block] : in_use_) blocks.push_back(block);
  for (Block* b : blocks) {
    if (b->prev == nullptr) raw_.free(reinterpret_cast<void*>(b->address));
  }
  for (Block* b : blocks) delete b;
}

BlockPool::FreeList& BlockPool::free_list_for(size_t block_size) {
  return block_size <= kSmallSize ? small_free_ : large_free_;
}

void* BlockPool::allocate(size_t nbytes, StreamId stream) {
  // Beyond this the rounding would overflow; no device has that much anyway.
  EMBER_CHECK(nbytes <= (size_t(1) << 62), name_, ": out of memory: requested ", nbytes,
              " bytes, more than any device has");
  const size_t size = round_size(nbytes);
  std::lock_guard<std::mutex> lock(mutex_);
  FreeList& list = free_list_for(size);
  Block* block = take_best_fit(list, stream, size);
  if (block == nullptr) block = new_segment(size, stream, &list == &small_free_);
  if (block == nullptr) throw_out_of_memory(nbytes, size);
  split(block, size, list);
  block->in_use = true;
  in_use_.emplace(block->address, block);
  ++stats_.num_allocs;
  stats_.allocated_bytes += block->size;
  if (stats_.allocated_bytes > stats_.peak_allocated_bytes)
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  return reinterpret_cast<void*>(block->address);
}

// The smallest free block of `stream` that holds `size` bytes (lowest address on ties).
BlockPool::Block* BlockPool::take_best_fit(FreeList& list, StreamId stream, size_t size) {
  Block key{0, size, stream, false};
  auto it = list.lower_bound(&key);
  if (it == list.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  list.erase(it);
  return block;
}

// A fresh segment for a block of `size` bytes, or nullptr when the raw allocator
// is out of memory even after the cached segments went back to it.
BlockPool::Block* BlockPool::new_segment(size_t size, StreamId stream, bool small) {
  const size_t bytes = segment_size(size);
  void* ptr = raw_malloc_within_limit(bytes, stream);
  if (ptr == nullptr) {
    // Cached segments may be what fills the device: give them back and retry once.
    release_free_segments_locked();
    ptr = raw_malloc_within_limit(bytes, stream);
  }
  if (ptr == nullptr) return nullptr;
  ++stats_.num_system_allocs;
  stats_.reserved_bytes += bytes;
  return new Block{reinterpret_cast<uintptr_t>(ptr), bytes, stream, small};
}

// The raw allocator's segment, or nullptr when it is out of memory or the
// segment would take the reserved bytes past the limit.
void* BlockPool::raw_malloc_within_limit(size_t bytes, StreamId stream) {
  if (stats_.reserved_bytes > reserved_limit_ || bytes > reserved_limit_ - stats_.reserved_bytes)
    return nullptr;
  return raw_.malloc(bytes, stream);
}

// Cuts `block` down to `size` when the tail is worth keeping: any tail of a small
// segment, a tail over kSmallSize of a large one (smaller tails would strand
// slivers that no large request fits; the block keeps them instead).
void BlockPool::split(Block* block, size_t size, FreeList& list) {
  const size_t tail = block->size - size;
  if (block->small ? tail < kMinBlockSize : tail <= kSmallSize) return;
  auto* rest = new Block{block->address + size, tail, block->stream, block->small};
  rest->prev = block;
  rest->next = block->next;
  if (block->next != nullptr) block->next->prev = rest;
  block->next = rest;
  block->size = size;
  list.insert(rest);
}

void BlockPool::deallocate(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = in_use_.find(reinterpret_cast<uintptr_t>(ptr));
  EMBER_INTERNAL_ASSERT(it != in_use_.end(), name_, ": freeing ", ptr,
                        ", which this allocator did not hand out or already took back");
  Block* block = it->second;
  in_use_.erase(it);
  block->in_use = false;
  stats_.allocated_bytes -= block->size;
  FreeList& list = block->small ? small_free_ : large_free_;
  if (block->prev != nullptr && !block->prev->in_use) {
    Block* prev = block->prev;
    list.erase(prev);
    merge_into(prev, block);
    block = prev;
  }
  if (block->next != nullptr && !block->next->in_use) {
    list.erase(block->next);
    merge_into(block, block->next);
  }
  list.insert(block);
}

// `block` absorbs its free right-hand `neighbour`, which is off the free list.
void BlockPool::merge_into(Block* block, Block* neighbour) {
  block->size += neighbour->size;
  block->next = neighbour->next;
  if (neighbour->next != nullptr) neighbour->next->prev = block;
  delete neighbour;
}

bool BlockPool::owns(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_use_.count(reinterpret_cast<uintptr_t>(ptr)) != 0;
}

void BlockPool::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_free_segments_locked();
}

void BlockPool::release_free_segments_locked() {
  for (FreeList* list : {&small_free_, &large_free_}) {
    for (auto it = list->begin(); it != list->end();) {
      Block* block = *it;
      if (!block->whole_segment()) {
        ++it;
        continue;
      }
      raw_.free(reinterpret_cast<void*>(block->address));
      ++stats_.num_system_frees;
      stats_.reserved_bytes -= block->size;
      it = list->erase(it);
      delete block;
    }
  }
}

void BlockPool::throw_out_of_memory(size_t nbytes, size_t block_size) {
  EMBER_ERROR(name_, ": out of memory: requested ", nbytes, " bytes (a ", block_size,
              "-byte block in a ", segment_size(block_size),
              "-byte segment), even after returning all cached segments; allocated ",
              stats_.allocated_bytes, " bytes, reserved ", stats_.reserved_bytes,
              " bytes, peak allocated ", stats_.peak_allocated_bytes, " bytes, ",
              stats_.num_system_allocs, " raw allocations, ", stats_.num_system_frees,
              " raw frees",
              reserved_limit_ == kNoLimit
                  ? std::string()
                  : ::ember::detail::str_cat("; reserved limit ", reserved_limit_, " bytes"));
}

void BlockPool::set_reserved_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  reserved_limit_ = bytes;
}

size_t BlockPool::reserved_limit() {
  std::lock_guard<std::mutex> lock(mutex_);
  return reserved_limit_;
}

MemoryStats BlockPool::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void BlockPool::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
}

}  // namespace ember
