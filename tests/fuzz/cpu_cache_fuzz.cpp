// Fuzzes the CPU conv benchmark-cache file: load it, then run the conv whose
// shape the seeds were made with in benchmark mode, so that an algorithm read
// from the file is the one that runs (the loader must refuse what cannot).
#include "cache_fuzz.h"
#include "fuzz_input.h"

#include <ember/ember.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember;
  fuzz::silence_warnings();
  const std::string path = fuzz::write_input_file("cpu-conv.cache", data, size);
  backends::cpu::clear_benchmark_cache();
  fuzz::expect_only_ember_errors([&] {
    backends::cpu::load_benchmark_cache(path);
    backends::cpu::set_benchmark(true);
    // x: (N=2, C=3, H=8, W=8), w: (K=4, C=3, R=3, S=3): the seeds' shape (make_fuzz_seeds).
    const Tensor x = ones({2, 3, 8, 8}).requires_grad_(true);
    const Tensor w = ones({4, 3, 3, 3}).requires_grad_(true);
    conv2d(x, w, {}, 1, 1).sum().backward();
  });
  backends::cpu::set_benchmark(false);
  return 0;
}
