// Fuzzes load_checkpoint and a full resume from it: model, optimizer and
// scheduler state, RNG state, then one training step on what was restored
// (counters read back from the file are incremented there).
#include "fuzz_input.h"
#include "fuzz_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember;
  const std::string path = fuzz::write_input_file("train.ckpt", data, size);
  fuzz::expect_only_ember_errors([&] {
    const Checkpoint ck = load_checkpoint(path);
    fuzz::Trainee t = fuzz::make_trainee();
    fuzz::restore(t, ck, path);
    fuzz::train_step(t);
  });
  return 0;
}
