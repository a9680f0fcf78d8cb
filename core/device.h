#pragma once
#include <cstdint>
#include <ostream>
#include <string>

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

// A device and its index; index -1 means "the current one" (cuda -> cuda:0 today).
struct Device {
  DeviceType type_ = kCPU;
  int8_t index_ = -1;

  Device() = default;
  Device(DeviceType type, int index = -1) : type_(type), index_(static_cast<int8_t>(index)) {}  // NOLINT
  explicit Device(const std::string& spec);  // "cpu", "cuda", "cuda:1"

  DeviceType type() const { return type_; }
  int index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == kCPU; }
  bool is_cuda() const { return type_ == kCUDA; }
  std::string str() const;
  friend bool operator==(const Device& a, const Device& b) {
    return a.type_ == b.type_ && (a.type_ == kCPU || a.index_ == b.index_ ||
                                  (a.index_ <= 0 && b.index_ <= 0));
  }
};

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace ember
