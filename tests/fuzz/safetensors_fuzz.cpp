// Fuzzes load_safetensors (the header's JSON, dtypes, shapes, offsets and the
// data they claim) and module loading: what loads goes into a module's
// load_state_dict, strict and not, then through a forward pass.
#include "fuzz_input.h"
#include "fuzz_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember;
  const std::string path = fuzz::write_input_file("model.safetensors", data, size);
  fuzz::expect_only_ember_errors([&] {
    const SafetensorsFile file = load_safetensors(path);
    for (const auto& item : file.tensors) (void)item.value().sum();  // touch every byte
  });
  fuzz::expect_only_ember_errors([&] {
    fuzz::Trainee t = fuzz::make_trainee();
    load(*t.model, path, /*strict=*/false);
    fuzz::train_step(t);
  });
  return 0;
}
