#include "ember/autograd/anomaly_mode.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace ember::autograd {
namespace {
std::atomic<bool> anomaly{false};
std::atomic<bool>& trace_flag() {
  static std::atomic<bool> flag{[] {
    const char* v = std::getenv("EMBER_AUTOGRAD_TRACE");
    return v != nullptr && std::strcmp(v, "") != 0 && std::strcmp(v, "0") != 0;
  }()};
  return flag;
}
}  // namespace

bool AnomalyMode::is_enabled() { return anomaly.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled) { anomaly.store(enabled); }
void set_trace(bool enabled) { trace_flag().store(enabled); }
bool trace_enabled() { return trace_flag().load(std::memory_order_relaxed); }

}  // namespace ember::autograd
