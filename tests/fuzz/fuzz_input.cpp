#include "fuzz_input.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

namespace ember::fuzz {
namespace {

// The files this process wrote, removed when it exits normally.
std::set<std::string>& written_files() {
  static auto* files = [] {
    auto* s = new std::set<std::string>;
    std::atexit([] {
      for (const std::string& path : written_files()) std::remove(path.c_str());
    });
    return s;
  }();
  return *files;
}

}  // namespace

std::string write_input_file(std::string_view name, const uint8_t* data, size_t size) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/ember-fuzz-" +
                           std::to_string(::getpid()) + "-" + std::string(name);
  written_files().insert(path);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  f.close();
  if (!f) std::abort();  // the harness itself failed, not the loader: stop loudly
  return path;
}

}  // namespace ember::fuzz
