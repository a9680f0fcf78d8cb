#pragma once
// Anomaly mode: backward checks every gradient a node returns for NaN/Inf and
// raises an Error naming the node and the forward op that recorded it.
namespace ember::autograd {

struct AnomalyMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

class DetectAnomalyGuard {
 public:
  DetectAnomalyGuard() : prev_(AnomalyMode::is_enabled()) { AnomalyMode::set_enabled(true); }
  ~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_); }
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_;
};

// EMBER_AUTOGRAD_TRACE=1 (read once at start) or set_trace(true): backward
// prints each node as it runs it, to stderr.
void set_trace(bool enabled);
bool trace_enabled();

}  // namespace ember::autograd
