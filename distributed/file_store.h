#pragma once
// The store of the file:// init method: Gloo's FileStore (one file per key in
// a directory shared by every rank of one machine) with two changes. Its
// waits without a timeout use the group's timeout instead of Gloo's fixed 30 s,
// and it can tell whether keys are set without waiting (Gloo's check is
// protected), which the timeout diagnosis needs (missing_ranks.h).
// Gloo's FileStore refuses to set a key twice: use a fresh directory per job.
#include <chrono>
#include <string>
#include <vector>

#include <gloo/rendezvous/file_store.h>

namespace ember::distributed {

class FileStore : public gloo::rendezvous::FileStore {
 public:
  // Creates the directory when it does not exist.
  FileStore(const std::string& directory, std::chrono::milliseconds timeout);

  using gloo::rendezvous::FileStore::wait;
  void wait(const std::vector<std::string>& keys) override;
  bool check_now(const std::vector<std::string>& keys) { return check(keys); }

 private:
  std::chrono::milliseconds timeout_;
};

}  // namespace ember::distributed
