#include "ember/core/device.h"

#include "ember/core/error.h"

namespace ember {

Device::Device(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (kind == "cpu") {
    type_ = kCPU;
  } else if (kind == "cuda") {
    type_ = kCUDA;
  } else {
    EMBER_ERROR("Device: unknown device '", spec, "' (expected cpu, cuda or cuda:N)");
  }
  if (colon != std::string::npos) {
    const std::string idx = spec.substr(colon + 1);
    EMBER_CHECK(!idx.empty() && idx.find_first_not_of("0123456789") == std::string::npos,
                "Device: bad device index in '", spec, "'");
    index_ = static_cast<int8_t>(std::stoi(idx));
  }
}

std::string Device::str() const {
  if (type_ == kCPU) return "cpu";
  return index_ >= 0 ? "cuda:" + std::to_string(index_) : "cuda";
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
