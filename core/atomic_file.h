#pragma once
// Atomic file replacement: the bytes go to a temporary file in the target's
// directory, which is fsync'ed and then renamed over the target, and the
// directory is fsync'ed so the rename itself survives a power cut. A reader
// (or a crash at any moment) sees either the old file or the complete new one.
#include <functional>
#include <string>
#include <string_view>

namespace ember::serialize {

class AtomicFileWriter {
 public:
  // Creates "<path>.tmp.<pid>.<n>" next to path. Error naming the path and errno text.
  explicit AtomicFileWriter(std::string path);
  // Removes the temporary file unless commit() succeeded.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t size);
  void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
  // fsync, close, rename over the target, fsync the directory.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  [[noreturn]] void fail(const char* what, int err);
  void discard() noexcept;

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

// Replaces path with bytes atomically.
void write_file_atomically(const std::string& path, std::string_view bytes);

namespace testing {
// Called with "write" after each write() and with "rename" just before the
// rename; a hook that throws simulates a crash at that point. Empty: no hook.
void set_atomic_write_hook(std::function<void(const char* stage)> hook);
}  // namespace testing

}  // namespace ember::serialize
