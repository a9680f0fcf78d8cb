#include "ember/core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "ember/core/error.h"

namespace ember::serialize {
namespace {

std::function<void(const char*)>& hook() {
  static std::function<void(const char*)> h;
  return h;
}

void run_hook(const char* stage) {
  if (hook()) hook()(stage);
}

std::string directory_of(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

namespace testing {
void set_atomic_write_hook(std::function<void(const char* stage)> h) { hook() = std::move(h); }
}  // namespace testing

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  EMBER_CHECK(!path_.empty(), "cannot write a file with an empty path");
  // Not mkstemp: its mode 0600 would outlive the rename; 0666 lets the umask decide, as
  // for any new file. The pid and a counter keep concurrent writers apart.
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; fd_ < 0; ++attempt) {
    temp_path_ = path_ + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && (errno != EEXIST || attempt == 100)) {
      const int err = errno;
      temp_path_.clear();
      fail("cannot create a temporary file next to it", err);
    }
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) discard();
}

void AtomicFileWriter::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
}

void AtomicFileWriter::fail(const char* what, int err) {
  discard();
  EMBER_ERROR("cannot write '", path_, "': ", what, ": ", std::strerror(err));
}

void AtomicFileWriter::write(const void* data, size_t size) {
  EMBER_CHECK(fd_ >= 0 && !committed_, "cannot write '", path_, "': the file is already closed");
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  try {
    run_hook("write");
  } catch (...) {
    discard();
    throw;
  }
}

void AtomicFileWriter::commit() {
  EMBER_CHECK(fd_ >= 0 && !committed_, "cannot write '", path_, "': the file is already closed");
  if (::fsync(fd_) != 0) fail("fsync failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close failed", errno);
  try {
    run_hook("rename");
  } catch (...) {
    discard();
    throw;
  }
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) fail("rename failed", errno);
  committed_ = true;
  // The rename is durable only once the directory entry is on disk.
  const std::string dir = directory_of(path_);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    EMBER_ERROR("cannot sync directory '", dir, "' of '", path_, "': ", std::strerror(errno));
  const int rc = ::fsync(dir_fd);
  const int err = errno;
  ::close(dir_fd);
  if (rc != 0)
    EMBER_ERROR("cannot sync directory '", dir, "' of '", path_, "': ", std::strerror(err));
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  AtomicFileWriter file(path);
  file.write(bytes);
  file.commit();
}

}  // namespace ember::serialize
