// Fuzzes the cuDNN benchmark-cache file's loader (the same text format as the
// CPU cache's, its own validation of algorithm and math-type numbers). It
// needs no GPU: a file is parsed and checked before any device is asked.
#include "cache_fuzz.h"
#include "fuzz_input.h"

#include <ember/ember.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember;
  fuzz::silence_warnings();
  const std::string path = fuzz::write_input_file("cudnn-conv.cache", data, size);
  fuzz::expect_only_ember_errors([&] {
    backends::cudnn::load_benchmark_cache(path);
    (void)backends::cudnn::benchmark_entries();
  });
  backends::cudnn::clear_benchmark_cache();
  return 0;
}
