#pragma once
// The TCPStore server's state without its sockets: the key-value map and the
// clients waiting for keys, each with a deadline. The server thread feeds it
// decoded requests and the clock; the fuzz harness does the same with bytes
// from libFuzzer. Clients are named by an id the caller chooses.
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/distributed/store_protocol.h"

namespace ember::distributed::store {

class StoreTable {
 public:
  using Clock = std::chrono::steady_clock;

  // The reply to the request, or nothing when the client waits for keys (a
  // kGet or kWait whose keys are not all set): its reply then comes from
  // take_woken() or expire(). A client has at most one request waiting; the
  // caller does not hand it another until then.
  std::optional<Reply> handle(int client, const Request& request, Clock::time_point now);
  // Replies for the waiters whose keys are all set now (after a set or add).
  std::vector<std::pair<int, Reply>> take_woken();
  // kTimeout replies for the waiters whose deadline is at or before now.
  std::vector<std::pair<int, Reply>> expire(Clock::time_point now);
  // Forgets a client's waiter (its connection closed).
  void drop(int client);
  // The earliest deadline of a waiter, to bound the server's poll.
  std::optional<Clock::time_point> next_deadline() const;
  bool waiting(int client) const { return waiters_.count(client) != 0; }
  size_t size() const { return map_.size(); }

 private:
  struct Waiter {
    Op op;  // kGet or kWait
    std::vector<std::string> keys;
    Clock::time_point deadline;
  };
  bool all_set(const std::vector<std::string>& keys) const;
  std::vector<std::string> missing(const std::vector<std::string>& keys) const;
  Reply answer(const Waiter& w) const;
  Reply add(const std::string& key, int64_t delta);

  std::unordered_map<std::string, std::vector<char>> map_;
  std::map<int, Waiter> waiters_;  // by client
  bool changed_ = false;           // a key was set since the last take_woken()
};

}  // namespace ember::distributed::store
