#pragma once
// Grad mode: whether ops record the graph. Thread-local, as in libtorch, so a
// data-loader thread's no-grad does not leak into the training thread.
namespace ember {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets grad mode for a scope and restores the previous value on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

// Under a NoGradGuard no op records a Node or saves a tensor. Nests.
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

// libtorch's guard for inference. Here it is grad mode off for the scope
// (InferenceMode(false) turns it back on); libtorch also skips version
// counting and marks the tensors made inside as inference tensors.
struct InferenceMode : AutoGradMode {
  explicit InferenceMode(bool enabled = true) : AutoGradMode(!enabled) {}
};

}  // namespace ember
