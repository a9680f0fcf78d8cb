#include "ember/distributed/file_store.h"

#include <filesystem>
#include <system_error>

#include "ember/core/error.h"

namespace ember::distributed {

namespace {
// Runs before the base constructor, which needs the directory to exist.
const std::string& make_directory(const std::string& directory) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  EMBER_CHECK(!ec, "init_process_group(file://", directory, "): cannot create the directory: ",
              ec.message());
  return directory;
}
}  // namespace

FileStore::FileStore(const std::string& directory, std::chrono::milliseconds timeout)
    : gloo::rendezvous::FileStore(make_directory(directory)), timeout_(timeout) {}

void FileStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

}  // namespace ember::distributed
