#include "ember/core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "ember/core/error.h"

namespace ember {
namespace {

std::function<void(const char*)>& hook() {
  static std::function<void(const char*)> h;
  return h;
}

void run_hook(const char* stage) {
  if (hook()) hook()(stage);
}

std::atomic<bool> named_only{false};

std::string directory_of(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

std::string next_temp_path(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

// The pid in a name "<base>.tmp.<pid>.<n>", or 0 when the name is not one.
pid_t temp_file_pid(std::string_view name, std::string_view base) {
  const std::string_view tag = ".tmp.";
  if (name.size() <= base.size() + tag.size() || name.substr(0, base.size()) != base ||
      name.substr(base.size(), tag.size()) != tag)
    return 0;
  const std::string_view rest = name.substr(base.size() + tag.size());
  pid_t pid = 0;
  const auto [after_pid, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
  if (ec != std::errc() || pid <= 0 || after_pid == rest.data() + rest.size() || *after_pid != '.')
    return 0;
  const std::string_view n = rest.substr(static_cast<size_t>(after_pid - rest.data()) + 1);
  const bool digits = !n.empty() && n.find_first_not_of("0123456789") == std::string_view::npos;
  return digits ? pid : 0;
}

// Best effort: a file that cannot be listed or removed is left alone.
void remove_stale_temp_files(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string base = fs::path(path).filename().string();
  std::error_code ec;
  for (fs::directory_iterator it(directory_of(path), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const pid_t pid = temp_file_pid(name, base);
    if (pid != 0 && ::kill(pid, 0) != 0 && errno == ESRCH) ::unlink(it->path().c_str());
  }
}

// The anonymous file works only where both O_TMPFILE and /proc/self/fd do.
bool can_name_anonymous_files() {
  static const bool proc = ::access("/proc/self/fd", X_OK) == 0;
  return proc && !named_only.load();
}

}  // namespace

namespace testing {
void set_atomic_write_hook(std::function<void(const char* stage)> h) { hook() = std::move(h); }
void force_named_temp_files(bool on) { named_only = on; }
}  // namespace testing

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  EMBER_CHECK(!path_.empty(), "cannot write a file with an empty path");
  remove_stale_temp_files(path_);
  // Mode 0666, not mkstemp's 0600 (which would outlive the rename): the umask
  // decides, as for any new file.
  if (can_name_anonymous_files()) {
    fd_ = ::open(directory_of(path_).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    anonymous_ = fd_ >= 0;
  }
  // No O_TMPFILE here (EOPNOTSUPP, EISDIR on old kernels), or the directory
  // refuses files: the named file's error, if any, is the one to report.
  if (!anonymous_) open_named_temp();
}

void AtomicFileWriter::open_named_temp() {
  // The pid and a counter keep concurrent writers apart.
  for (int attempt = 0; fd_ < 0; ++attempt) {
    temp_path_ = next_temp_path(path_);
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && (errno != EEXIST || attempt == 100)) {
      const int err = errno;
      temp_path_.clear();
      fail("cannot create a file next to it", err);
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

// linkat cannot replace the target, so the anonymous file gets a temporary
// name first; the rename then replaces the target atomically.
void AtomicFileWriter::name_anonymous_file() {
  const std::string fd_path = "/proc/self/fd/" + std::to_string(fd_);
  for (int attempt = 0; temp_path_.empty(); ++attempt) {
    temp_path_ = next_temp_path(path_);
    if (::linkat(AT_FDCWD, fd_path.c_str(), AT_FDCWD, temp_path_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      const int err = errno;
      temp_path_.clear();
      if (err != EEXIST || attempt == 100) fail("cannot link the new file into its directory", err);
    }
  }
}

void AtomicFileWriter::commit() {
  EMBER_CHECK(fd_ >= 0 && !committed_, "cannot write '", path_, "': the file is already closed");
  if (::fsync(fd_) != 0) fail("fsync failed", errno);
  if (anonymous_) name_anonymous_file();
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

}  // namespace ember
