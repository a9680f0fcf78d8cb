#pragma once
// The training program's body, callable from main() and from the tests.
#include <iosfwd>
#include <string>

#include "options.h"

namespace train {

struct EpochResult {
  int64_t epoch = 0;  // 1-based
  double train_loss = 0, test_loss = 0, test_accuracy = 0;
  double seconds = 0, images_per_second = 0, compute_efficiency = 0;
};

struct RunResult {
  // Those run by this call (after a resume: the rest). Under ember-run only
  // rank 0 evaluates: on the other ranks the test fields are 0.
  std::vector<EpochResult> epochs;
  bool interrupted = false;         // Ctrl-C: the checkpoint holds the step reached
};

// Trains as the options say, printing progress to `out`. Throws ember::Error
// for bad data, a missing or mismatched checkpoint, or an unavailable device.
// With WORLD_SIZE > 1 in the environment (ember-run) it is one rank of a
// data-parallel job (replicas.h): --batch-size is per rank, and only rank 0
// prints, logs, evaluates and checkpoints.
RunResult run(const Options& options, std::ostream& out);

// Makes the next SIGINT/SIGTERM ask run() to stop after the current step and
// save a checkpoint (a second one kills the program as usual).
void install_interrupt_handler();

}  // namespace train
