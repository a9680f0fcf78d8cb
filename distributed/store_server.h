#pragma once
// The TCPStore server: one background thread that poll()s the listening
// socket, a wake-up eventfd and every client connection (no thread per
// client), reads requests as they arrive, answers them from a StoreTable and
// writes the replies without blocking. A client waiting for keys is only an
// entry in the table: the others go on being served, and its reply goes out
// when the keys are set or its deadline passes. The thread runs until the
// server is destroyed, whatever the thread that owns it is doing.
#include <cstdint>
#include <memory>
#include <string>

namespace ember::distributed::store {

class StoreServer {
 public:
  // Binds host:port (port 0: a free port, see port()) with SO_REUSEADDR and
  // starts serving. Error naming host, port and the system's reason when the
  // address cannot be bound (in use, not this machine's).
  StoreServer(const std::string& host, uint16_t port, int backlog);
  // Wakes the thread, joins it, closes every connection: clients waiting see
  // the connection close.
  ~StoreServer();
  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;

  uint16_t port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::distributed::store
