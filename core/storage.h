#pragma once
// Storage: one block of device memory shared by a tensor and all its views.
// Note [Version counters]: the counter lives here, next to the data, because
// every alias of the memory (views, detach()) must see the same count. An
// in-place op bumps it; autograd records it when it saves a tensor and checks
// it again in backward, so reading a modified saved value is an error instead
// of a silently wrong gradient.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "ember/core/allocator.h"
#include "ember/core/device.h"

namespace ember {

class StorageImpl {
 public:
  // Memory from an allocator, returned to it when the storage dies.
  StorageImpl(size_t nbytes, Allocator* allocator)
      : data_(nbytes ? allocator->allocate(nbytes) : nullptr),
        nbytes_(nbytes), device_(allocator->device()), allocator_(allocator) {}
  // Memory the caller owns (from_blob); `deleter` (may be empty) runs at death.
  StorageImpl(void* data, size_t nbytes, Device device, std::function<void(void*)> deleter)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)) {}
  ~StorageImpl() {
    if (allocator_) allocator_->deallocate(data_, nbytes_);
    else if (deleter_) deleter_(data_);
  }
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  Allocator* allocator_ = nullptr;
  std::function<void(void*)> deleter_;
  std::atomic<uint32_t> version_{0};
};

}  // namespace ember
