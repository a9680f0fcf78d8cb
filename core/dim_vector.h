#pragma once
// DimVector: sizes or strides of one tensor. Up to kInline dims live inside the
// object, so making a tensor does not allocate for its shape (per-op overhead).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <ostream>

#include "ember/core/array_ref.h"

namespace ember {

class DimVector {
 public:
  static constexpr size_t kInline = 6;

  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { assign(n, value); }
  DimVector(IntArrayRef a) { assign(a.begin(), a.end()); }  // NOLINT
  DimVector(std::initializer_list<int64_t> l) { assign(l.begin(), l.end()); }
  DimVector(const DimVector& o) { assign(o.begin(), o.end()); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  DimVector(DimVector&& o) noexcept { *this = std::move(o); }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this == &o) return *this;
    if (o.heap_) {
      heap_ = std::move(o.heap_);
      capacity_ = o.capacity_;
      data_ = heap_.get();
    } else {
      heap_.reset();
      capacity_ = kInline;
      data_ = inline_;
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    }
    size_ = o.size_;
    o.size_ = 0;
    o.data_ = o.inline_;
    o.capacity_ = kInline;
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  int64_t* begin() { return data_; }
  int64_t* end() { return data_ + size_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  const int64_t& operator[](size_t i) const { return data_[i]; }
  int64_t& back() { return data_[size_ - 1]; }
  operator IntArrayRef() const { return IntArrayRef(data_, size_); }  // NOLINT
  IntArrayRef ref() const { return IntArrayRef(data_, size_); }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    auto grown = std::make_unique<int64_t[]>(n);
    std::copy(data_, data_ + size_, grown.get());
    heap_ = std::move(grown);
    data_ = heap_.get();
    capacity_ = n;
  }
  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  void push_back(int64_t v) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void insert(size_t pos, int64_t v) {
    push_back(0);
    std::copy_backward(data_ + pos, data_ + size_ - 1, data_ + size_);
    data_[pos] = v;
  }
  void erase(size_t pos) {
    std::copy(data_ + pos + 1, data_ + size_, data_ + pos);
    --size_;
  }
  template <typename It>
  void assign(It first, It last) {
    size_ = 0;
    reserve(static_cast<size_t>(last - first));
    for (; first != last; ++first) data_[size_++] = *first;
  }
  void assign(size_t n, int64_t value) {
    size_ = 0;
    resize(n, value);
  }

  friend bool operator==(const DimVector& a, const DimVector& b) { return a.ref() == b.ref(); }
  friend std::ostream& operator<<(std::ostream& os, const DimVector& v) { return os << v.ref(); }

 private:
  int64_t inline_[kInline];
  std::unique_ptr<int64_t[]> heap_;
  int64_t* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = kInline;
};

}  // namespace ember
