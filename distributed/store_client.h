#pragma once
// One client connection to a TCPStore server (Note [TCPStore wire protocol]).
// Connecting retries while the server is not there yet (rank 0 may start
// after the others); a request holds the connection's mutex until its reply
// is in, so threads sharing a client take turns. Once the connection is lost
// (the server closed it, a reset, no reply in time) every later request
// raises an Error saying so: the server's state died with it or the stream's
// position is unknown, and a new connection could not repair either.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "ember/distributed/socket.h"
#include "ember/distributed/store_protocol.h"

namespace ember::distributed::store {

class StoreClient {
 public:
  using Clock = std::chrono::steady_clock;

  // Connects to host:port and says hello, retrying refused connections with a
  // short backoff until `timeout` has passed. Error naming host:port, the
  // timeout and the last reason.
  StoreClient(std::string host, uint16_t port, std::chrono::milliseconds timeout);

  // Sends the request and returns its reply, waiting up to `wait` for it. A
  // kError reply is returned as it is. Error naming the op and the store's
  // host:port when the connection is lost or no reply comes in time.
  Reply call(const Request& request, std::chrono::milliseconds wait);

  // "host:port" of the store, for messages.
  const std::string& where() const { return where_; }

 private:
  void connect(std::chrono::milliseconds timeout);
  void send_all(const std::string& bytes, Clock::time_point deadline, const char* op);
  std::string receive_frame(Clock::time_point deadline, const char* op);
  // Waits for the socket to be ready for `events`; false when the deadline passed.
  bool await(short events, Clock::time_point deadline);
  [[noreturn]] void lose(const char* op, const std::string& why);

  std::string host_;
  uint16_t port_;
  std::string where_;
  std::mutex mu_;
  net::Fd fd_;
  FrameReader reader_;
  std::string lost_;  // why the connection was lost; empty while it works
};

}  // namespace ember::distributed::store
