#include "ember/distributed/tcp_store.h"

#include <algorithm>
#include <atomic>

#include "ember/core/error.h"
#include "ember/distributed/socket.h"
#include "ember/distributed/store_client.h"
#include "ember/distributed/store_protocol.h"
#include "ember/distributed/store_server.h"

namespace ember::distributed {

using std::chrono::milliseconds;
using store::Reply;
using store::Request;
using store::Status;

namespace {

milliseconds clamp_timeout(milliseconds t) {
  return std::clamp(t, milliseconds(0), milliseconds(store::kMaxTimeoutMs));
}

Request request(store::Op op, std::vector<std::string> keys = {}) {
  Request r;
  r.op = op;
  r.keys = std::move(keys);
  return r;
}

}  // namespace

struct TCPStore::State {
  std::string host;
  uint16_t port = 0;
  std::string address;
  std::atomic<int64_t> timeout_ms{0};
  // Declared before the client, so destroyed after it: rank 0's own
  // connection closes before its server stops.
  std::unique_ptr<store::StoreServer> server;
  std::unique_ptr<store::StoreClient> client;

  milliseconds timeout() const { return milliseconds(timeout_ms.load()); }

  // Sends the request; the reply when its status is `want`, an Error otherwise.
  // A wait on the server gets `server_wait` more time for its reply.
  Reply call(const Request& r, Status want, milliseconds server_wait = milliseconds(0)) {
    const Reply reply = client->call(r, server_wait + timeout());
    const bool waits = r.op == store::Op::kGet || r.op == store::Op::kWait;
    if (reply.status == want || (waits && reply.status == Status::kTimeout)) return reply;
    const char* op = store::op_name(r.op);
    if (reply.status == Status::kError) EMBER_ERROR("TCPStore ", op, " (store at ", address, "): ", reply.message);
    EMBER_ERROR("TCPStore ", op, ": the store at ", address, " answered with status ", int(reply.status));
  }
};

TCPStore::TCPStore(std::string host, uint16_t port, int world_size, bool is_server, milliseconds timeout)
    : state_(std::make_unique<State>()) {
  EMBER_CHECK(world_size >= 1, "TCPStore: world_size must be at least 1, got ", world_size, " (store at ",
              net::endpoint(host, port), ")");
  State& s = *state_;
  s.host = std::move(host);
  s.timeout_ms = clamp_timeout(timeout).count();
  if (is_server) {
    // Every rank connects at about the same time: room for all of them in the backlog.
    s.server = std::make_unique<store::StoreServer>(s.host, port, std::max(world_size, 128));
    port = s.server->port();
  }
  s.port = port;
  s.address = net::endpoint(s.host, port);
  s.client = std::make_unique<store::StoreClient>(s.host, port, s.timeout());
}

TCPStore::~TCPStore() = default;

void TCPStore::set(const std::string& key, const std::vector<char>& value) {
  Request r = request(store::Op::kSet, {key});
  r.value = value;
  state_->call(r, Status::kOk);
}

std::vector<char> TCPStore::get(const std::string& key) {
  const milliseconds timeout = state_->timeout();
  Request r = request(store::Op::kGet, {key});
  r.number = timeout.count();
  Reply reply = state_->call(r, Status::kValue, timeout);
  EMBER_CHECK(reply.status != Status::kTimeout, "TCPStore get: key ", store::quote_key(key), " was not set within ",
              timeout.count(), " ms (store at ", state_->address, ")");
  return std::move(reply.value);
}

void TCPStore::wait(const std::vector<std::string>& keys) { wait(keys, state_->timeout()); }

void TCPStore::wait(const std::vector<std::string>& keys, const milliseconds& timeout) {
  const milliseconds t = clamp_timeout(timeout);
  Request r = request(store::Op::kWait, keys);
  r.number = t.count();
  const Reply reply = state_->call(r, Status::kOk, t);
  EMBER_CHECK(reply.status != Status::kTimeout, "TCPStore wait: keys ", store::quote_keys(keys),
              " were not all set within ", t.count(), " ms (store at ", state_->address, "); still missing: ",
              store::quote_keys(reply.keys));
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  Request r = request(store::Op::kAdd, {key});
  r.number = delta;
  return state_->call(r, Status::kInt).number;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  return state_->call(request(store::Op::kCheck, keys), Status::kBool).number != 0;
}

bool TCPStore::delete_key(const std::string& key) {
  return state_->call(request(store::Op::kDelete, {key}), Status::kBool).number != 0;
}

int64_t TCPStore::num_keys() { return state_->call(request(store::Op::kNumKeys), Status::kInt).number; }

uint16_t TCPStore::port() const { return state_->port; }

void TCPStore::set_timeout(milliseconds timeout) { state_->timeout_ms = clamp_timeout(timeout).count(); }

milliseconds TCPStore::timeout() const { return state_->timeout(); }

const std::string& TCPStore::address() const { return state_->address; }

}  // namespace ember::distributed
