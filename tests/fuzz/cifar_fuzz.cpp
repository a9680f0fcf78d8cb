// Fuzzes the CIFAR-10 binary reader (3073-byte records: label, then 3x32x32 pixels).
#include "fuzz_input.h"

#include <ember/nn/data/cifar10.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember;
  const std::string path = fuzz::write_input_file("data_batch_1.bin", data, size);
  fuzz::expect_only_ember_errors([&] {
    data::CIFAR10 set = data::CIFAR10::from_files({path});
    if (set.size() > 0) (void)set.get(set.size() - 1);
  });
  return 0;
}
