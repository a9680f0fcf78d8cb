// The replay driver: a main for the harnesses where libFuzzer is missing (GCC
// builds). It runs LLVMFuzzerTestOneInput once on every file named, or found
// below a folder named, in a fixed order. A crash aborts it, as under libFuzzer;
// naming no input at all is an error, so a replay cannot pass by running nothing.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include "fuzz_input.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      for (const auto& e : fs::recursive_directory_iterator(arg))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else if (fs::is_regular_file(arg)) {
      inputs.push_back(arg);
    } else {
      std::cerr << "replay: no such file or folder: " << arg.string() << "\n";
      return 2;
    }
  }
  if (inputs.empty()) {
    std::cerr << "replay: no inputs\n";
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path& p : inputs) {
    std::ifstream f(p, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "replay: " << inputs.size() << " inputs, no crash\n";
  return 0;
}
