#include "ember/distributed/fingerprint.h"

#include <cstring>
#include <functional>
#include <sstream>

namespace ember::distributed {

FingerprintRecord make_fingerprint_record(const std::string& description) {
  FingerprintRecord record{};
  std::string text = description;
  if (text.size() >= kFingerprintBytes) {
    std::ostringstream hash;
    hash << " ...#" << std::hex << std::hash<std::string>{}(description);
    text = text.substr(0, kFingerprintBytes - 1 - hash.str().size()) + hash.str();
  }
  std::memcpy(record.data(), text.data(), text.size());
  return record;
}

std::string fingerprint_text(const FingerprintRecord& record) {
  return std::string(record.data(), strnlen(record.data(), record.size()));
}

std::optional<int> first_mismatch(const std::vector<FingerprintRecord>& records) {
  for (size_t r = 1; r < records.size(); ++r)
    if (records[r] != records[0]) return static_cast<int>(r);
  return std::nullopt;
}

}  // namespace ember::distributed
