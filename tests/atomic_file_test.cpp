// The atomic file writer (core/atomic_file.h) on its own: both ways of
// writing (anonymous O_TMPFILE file, named fallback), the removal of temporary
// files left by dead processes, and errors that name the target. Its use by
// checkpoints is tested in serialize_test.cpp and crash_consistency_test.cpp.
#include "test_helpers.h"

#include <ember/core/atomic_file.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace ember;
namespace fs = std::filesystem;

namespace {

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// The pid of a process that has exited and been reaped: kill(pid, 0) now
// fails with ESRCH (until the system reuses the number, far away in practice).
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  REQUIRE(pid > 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return pid;
}

// Undoes force_named_temp_files at the end of a test, even a failed one.
struct NamedTempFiles {
  explicit NamedTempFiles(bool on) { ember::testing::force_named_temp_files(on); }
  ~NamedTempFiles() { ember::testing::force_named_temp_files(false); }
};

}  // namespace

TEST_CASE("an atomic write replaces the file, anonymously or through a named file",
          "[atomic_file]") {
  for (const bool named : {false, true}) {
    INFO("named temp file: " << named);
    NamedTempFiles mode(named);
    ember_test::TempDir dir("atomic_file_test");
    const std::string path = dir.file("f.bin");
    write_file_atomically(path, "old");
    AtomicFileWriter w(path);
    if (named) REQUIRE_FALSE(w.anonymous());
    if (!named && !w.anonymous()) WARN("this file system has no O_TMPFILE: named files only");
    w.write("new ");
    w.write("contents");
    // Before commit the target is untouched; an anonymous file has no name yet.
    REQUIRE(read_text(path) == "old");
    REQUIRE(dir.entry_count() == (w.anonymous() ? 1 : 2));
    w.commit();
    REQUIRE(read_text(path) == "new contents");
    REQUIRE(dir.entry_count() == 1);
  }
}

TEST_CASE("a save removes the temporary files of its target left by dead processes only",
          "[atomic_file]") {
  ember_test::TempDir dir("atomic_file_test");
  const std::string path = dir.file("ckpt.bin");
  const std::string dead = std::to_string(dead_pid()), live = std::to_string(::getppid());
  const std::string stale = path + ".tmp." + dead + ".0";
  const std::string stale2 = path + ".tmp." + dead + ".17";
  const std::string alive = path + ".tmp." + live + ".0";   // another writer still at work
  const std::string other = dir.file("other.bin.tmp." + dead + ".0");  // another target's
  const std::string odd = path + ".tmp." + dead + ".x";     // not a name the writer makes
  for (const std::string& f : {stale, stale2, alive, other, odd}) write_text(f, "partial");
  write_file_atomically(path, "saved");
  CHECK_FALSE(fs::exists(stale));
  CHECK_FALSE(fs::exists(stale2));
  CHECK(fs::exists(alive));
  CHECK(fs::exists(other));
  CHECK(fs::exists(odd));
  CHECK(read_text(path) == "saved");
}

// A write beyond RLIMIT_FSIZE fails with EFBIG, as a full disk fails with
// ENOSPC: the error must name the file the user asked for.
TEST_CASE("a failed atomic write names the target, not the temporary file", "[atomic_file]") {
  for (const bool named : {false, true}) {
    INFO("named temp file: " << named);
    NamedTempFiles mode(named);
    ember_test::TempDir dir("atomic_file_test");
    const std::string path = dir.file("big.bin");
    write_file_atomically(path, "old");
    const std::string payload(1 << 20, 'x');
    rlimit previous{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &previous) == 0);
    const auto previous_handler = ::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of the signal
    rlimit small = previous;
    small.rlim_cur = 64 << 10;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    std::string message;
    try {
      write_file_atomically(path, payload);
    } catch (const Error& e) {
      message = e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &previous);
    ::signal(SIGXFSZ, previous_handler);
    REQUIRE_THAT(message,
                 Catch::Contains("cannot write '" + path + "': write failed: File too large"));
    REQUIRE_THAT(message, !Catch::Contains(".tmp."));
    REQUIRE(read_text(path) == "old");
    REQUIRE(dir.entry_count() == 1);
  }
}
