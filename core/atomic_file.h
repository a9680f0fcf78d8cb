#pragma once
// Note [Atomic file replacement]: the one writer behind every file ember saves
// (checkpoints, safetensors, the benchmark caches). A reader, or a crash at
// any moment, sees either the old file or the complete new one:
//  - the bytes go to an anonymous file in the target's directory (O_TMPFILE),
//    which a killed process cannot leave behind; where the file system has no
//    O_TMPFILE (or /proc is missing), to a named "<path>.tmp.<pid>.<n>";
//  - commit() fsyncs the file, gives the anonymous one that temporary name
//    (linkat through /proc/self/fd), renames it over the target and fsyncs
//    the directory, so the rename itself survives a power cut;
//  - each writer first removes the temporary files of its target left by
//    processes that no longer exist (kill(pid, 0) fails with ESRCH): a save
//    killed between creating and renaming its named file leaks nothing for
//    longer than until the next save. (A writer on another host sharing the
//    directory would look dead too: these are local files.)
// Errors name the target path, not the temporary file.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ember {

class AtomicFileWriter {
 public:
  // Cleans up stale temporary files of path, then opens the new file.
  // Error naming the path and the errno text.
  explicit AtomicFileWriter(std::string path);
  // Drops the new file unless commit() succeeded.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t size);
  void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
  // fsync, name, close, rename over the target, fsync the directory.
  void commit();

  const std::string& path() const { return path_; }
  // Whether the bytes go to an anonymous (O_TMPFILE) file.
  bool anonymous() const { return anonymous_; }

 private:
  [[noreturn]] void fail(const char* what, int err);
  void discard() noexcept;
  void open_named_temp();
  void name_anonymous_file();

  std::string path_;
  std::string temp_path_;  // empty while the file is anonymous
  int fd_ = -1;
  bool anonymous_ = false;
  bool committed_ = false;
};

// Replaces path with bytes atomically.
void write_file_atomically(const std::string& path, std::string_view bytes);

namespace testing {
// Called with "write" after each write() and with "rename" just before the
// rename; a hook that throws simulates a crash at that point. Empty: no hook.
void set_atomic_write_hook(std::function<void(const char* stage)> hook);
// Makes writers skip O_TMPFILE (true), to test the named-file fallback.
void force_named_temp_files(bool on);
}  // namespace testing

}  // namespace ember
