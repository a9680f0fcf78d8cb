#include "ember/distributed/missing_ranks.h"

#include <exception>
#include <thread>

#include "ember/distributed/file_store.h"

namespace ember::distributed {

bool store_has_keys(gloo::rendezvous::Store& store, const std::vector<std::string>& keys) {
  if (auto* file_store = dynamic_cast<FileStore*>(&store)) return file_store->check_now(keys);
  try {
    store.wait(keys, std::chrono::milliseconds(1));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

Arrivals find_missing_ranks(gloo::rendezvous::Store& store, const std::string& prefix,
                            uint64_t sequence, int rank, int size, std::chrono::milliseconds grace) {
  auto key = [&](int r) {
    return prefix + "/timeout/" + std::to_string(sequence) + "/" + std::to_string(r);
  };
  Arrivals result;
  try {
    store.set(key(rank), std::vector<char>{'1'});
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (true) {
      result.missing.clear();
      for (int r = 0; r < size; ++r)
        if (r != rank && !store_has_keys(store, {key(r)})) result.missing.push_back(r);
      if (result.missing.empty() || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  } catch (const std::exception& e) {
    result.store_reachable = false;
    result.store_error = e.what();
    result.missing.clear();
  }
  return result;
}

}  // namespace ember::distributed
