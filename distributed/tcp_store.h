#pragma once
// TCPStore: the key-value store that ranks rendezvous through (env://, as
// torchrun's). Rank 0 serves it on MASTER_ADDR:MASTER_PORT from a background
// thread and is also a client of it; every rank connects as a client.
// Debian's Gloo has a file store and an in-memory one but no TCP store; this
// one plugs into Gloo's rendezvous as a gloo::rendezvous::Store.
//
// Every method may be called from several threads; each request waits for the
// one before it on this object's connection, so a thread blocked in wait()
// holds up the others' requests until it returns (use a second TCPStore
// object for a second connection). Errors are ember::Error naming the op, the
// keys and the store's host:port; the protocol is Note [TCPStore wire
// protocol] in distributed/store_protocol.h.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gloo/rendezvous/store.h>

namespace ember::distributed {

class TCPStore : public gloo::rendezvous::Store {
 public:
  // is_server: this process serves the store on host:port (port 0: the server
  // picks a free one, see port()) and is also a client of it.
  TCPStore(std::string host, uint16_t port, int world_size, bool is_server,
           std::chrono::milliseconds timeout = std::chrono::minutes(5));
  ~TCPStore() override;

  void set(const std::string& key, const std::vector<char>& value) override;
  // Waits up to the store's timeout for the key to be set.
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;
  // Atomically adds delta to the integer stored at key (0 when absent); returns the new value.
  int64_t add(const std::string& key, int64_t delta);
  // Whether every key is set now; never waits.
  bool check(const std::vector<std::string>& keys);
  uint16_t port() const;

  // Removes the key; whether it was set.
  bool delete_key(const std::string& key);
  // How many keys are set.
  int64_t num_keys();
  // The timeout of get(), wait(keys) and of waiting for any reply.
  void set_timeout(std::chrono::milliseconds timeout);
  std::chrono::milliseconds timeout() const;
  // "host:port", as the store's error messages name it.
  const std::string& address() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ember::distributed
