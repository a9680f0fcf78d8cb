#pragma once
// What every harness of tests/fuzz shares: the libFuzzer entry point's
// signature, the input written to a file (ember's loaders read paths), and the
// one rule of the harnesses: a bad file may raise ember::Error and nothing
// else. Any other exception escapes LLVMFuzzerTestOneInput, which aborts, and
// libFuzzer (or the replay driver) reports it as a crash with its input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <ember/core/error.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace ember::fuzz {

// Writes bytes to a file private to this process (under $TMPDIR, else /tmp),
// replacing what an earlier input wrote there; `name` tells the files of one
// input apart ("images", "labels"). Returns the path.
std::string write_input_file(std::string_view name, const uint8_t* data, size_t size);

// Runs load(); an ember::Error is the expected answer to a bad file.
template <typename Load>
void expect_only_ember_errors(Load&& load) {
  try {
    load();
  } catch (const ember::Error&) {
  }
}

}  // namespace ember::fuzz
