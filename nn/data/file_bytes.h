#pragma once
// Reads a whole data file into memory, gunzipping it when it starts with the
// gzip magic (zlib; without it such a file raises an Error). Offsets in the
// dataset errors count bytes of the uncompressed content.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::data {

struct FileBytes {
  std::string path;
  std::vector<uint8_t> bytes;  // uncompressed content
  bool gzipped = false;
};

// `who` names the caller in errors ("MNIST: cannot open ...").
FileBytes read_file_bytes(const std::string& path, const std::string& who);

// Whether this build of ember reads .gz files.
bool built_with_zlib();

}  // namespace ember::data
