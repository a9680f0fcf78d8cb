// The TCP store end to end: rank 0's server and clients as threads of this
// process on 127.0.0.1 (the server runs on its own thread either way). Each
// test bounds what it waits for, so a hang fails as a timeout, not forever.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gloo/allreduce_ring.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <ember/core/error.h>
#include <ember/distributed/store_protocol.h>
#include <ember/distributed/tcp_store.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace ember;
using namespace std::chrono_literals;
using ember::distributed::TCPStore;
using Catch::Contains;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kHost = "127.0.0.1";

std::vector<char> bytes(const std::string& s) { return std::vector<char>(s.begin(), s.end()); }

// A socket bound to 127.0.0.1 on a free port (and listening, if asked).
struct BoundSocket {
  int fd = -1;
  uint16_t port = 0;
  explicit BoundSocket(bool listening) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port = ntohs(a.sin_port);
    if (listening) REQUIRE(::listen(fd, 4) == 0);
  }
  ~BoundSocket() { ::close(fd); }
};

uint16_t free_port() { return BoundSocket(false).port; }

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The message of the ember::Error that f raises ("" if none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("TCPStore: binary values round trip, between two clients", "[distributed][store]") {
  TCPStore server(kHost, 0, 2, true, 10s);
  REQUIRE(server.port() != 0);
  TCPStore client(kHost, server.port(), 2, false, 10s);
  const std::string key("bin\0key", 7);
  const std::vector<char> small = {'\0', 'a', '\0', '\xff', '\0'};
  std::vector<char> big(1 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i % 7 == 0 ? 0 : i * 31);
  server.set(key, small);
  client.set("big", big);
  CHECK(client.get(key) == small);
  CHECK(server.get("big") == big);
  CHECK(server.get(key) == small);
  CHECK(client.num_keys() == 2);
  server.set("empty", {});
  CHECK(client.get("empty").empty());
  CHECK(client.delete_key("empty"));
  CHECK_FALSE(client.delete_key("empty"));
  CHECK(server.address() == kHost + ":" + std::to_string(server.port()));
}

TEST_CASE("TCPStore: get blocks until another client sets the key", "[distributed][store]") {
  TCPStore server(kHost, 0, 2, true, 10s);
  const auto t0 = Clock::now();
  std::thread setter([port = server.port()] {
    TCPStore client(kHost, port, 2, false, 10s);
    std::this_thread::sleep_for(300ms);
    client.set("late", bytes("here"));
  });
  const std::vector<char> v = server.get("late");
  setter.join();
  CHECK(v == bytes("here"));
  CHECK(seconds_since(t0) >= 0.25);
  CHECK(seconds_since(t0) < 5);
}

TEST_CASE("TCPStore: a wait past its timeout names the keys, the timeout and the store",
          "[distributed][store]") {
  TCPStore server(kHost, 0, 1, true, 10s);
  server.set("a", bytes("1"));
  const std::string where = kHost + ":" + std::to_string(server.port());
  auto t0 = Clock::now();
  const std::string msg = error_of([&] { server.wait({"a", "b"}, 300ms); });
  CHECK(seconds_since(t0) >= 0.25);
  CHECK(seconds_since(t0) < 3);
  CHECK_THAT(msg, Contains("TCPStore wait: keys ['a', 'b'] were not all set within 300 ms") &&
                      Contains("store at " + where) && Contains("still missing: ['b']"));
  // get() waits the store's timeout.
  server.set_timeout(200ms);
  t0 = Clock::now();
  CHECK_THAT(error_of([&] { server.get("nope"); }),
             Contains("TCPStore get: key 'nope' was not set within 200 ms (store at " + where + ")"));
  CHECK(seconds_since(t0) < 3);
  // The connection is still good after a timeout, and a set key is waited for at once.
  server.wait({"a"});
  server.wait({});
}

TEST_CASE("TCPStore: add from 4 clients x 1000 is atomic", "[distributed][store]") {
  TCPStore server(kHost, 0, 4, true, 20s);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([port = server.port()] {
      TCPStore client(kHost, port, 4, false, 20s);
      for (int i = 0; i < 1000; ++i) client.add("counter", 1);
    });
  for (std::thread& t : threads) t.join();
  CHECK(server.add("counter", 0) == 4000);
  CHECK(server.get("counter") == bytes("4000"));
  CHECK(server.add("counter", -4001) == -1);
  server.set("text", bytes("x"));
  CHECK_THAT(error_of([&] { server.add("text", 1); }),
             Contains("TCPStore add (store at " + server.address() + "): ") &&
                 Contains("key 'text' (1 bytes) is not a decimal integer"));
  CHECK(server.add("fresh", 5) == 5);  // the connection survives a refused add
}

TEST_CASE("TCPStore: one object is shared by threads, one request at a time", "[distributed][store]") {
  TCPStore server(kHost, 0, 1, true, 20s);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&server, t] {
      for (int i = 0; i < 200; ++i) {
        server.add("shared", 1);
        server.set("t" + std::to_string(t), bytes(std::to_string(i)));
      }
    });
  for (std::thread& t : threads) t.join();
  CHECK(server.add("shared", 0) == 600);
  CHECK(server.get("t2") == bytes("199"));
}

TEST_CASE("TCPStore: check says whether all keys are set, without waiting", "[distributed][store]") {
  TCPStore server(kHost, 0, 1, true, 10s);
  CHECK(server.check({}));
  CHECK_FALSE(server.check({"x"}));
  server.set("x", {});
  CHECK(server.check({"x"}));
  CHECK_FALSE(server.check({"x", "y"}));
}

TEST_CASE("TCPStore: a client started before the server connects once it appears", "[distributed][store]") {
  const uint16_t port = free_port();
  const auto t0 = Clock::now();
  auto early = std::async(std::launch::async, [port] {
    TCPStore client(kHost, port, 2, false, 10s);
    return client.get("ready");
  });
  std::this_thread::sleep_for(400ms);
  TCPStore server(kHost, port, 2, true, 10s);
  server.set("ready", bytes("yes"));
  REQUIRE(early.wait_for(10s) == std::future_status::ready);
  CHECK(early.get() == bytes("yes"));
  CHECK(seconds_since(t0) < 5);
}

TEST_CASE("TCPStore: no server within the timeout names the address", "[distributed][store]") {
  const uint16_t port = free_port();
  const auto t0 = Clock::now();
  CHECK_THAT(error_of([&] { TCPStore(kHost, port, 2, false, 300ms); }),
             Contains("cannot connect to the store at 127.0.0.1:" + std::to_string(port) + " within 300 ms") &&
                 Contains("Connection refused"));
  CHECK(seconds_since(t0) >= 0.25);
  CHECK(seconds_since(t0) < 3);
}

TEST_CASE("TCPStore: a port in use is a named Error", "[distributed][store]") {
  BoundSocket taken(true);
  CHECK_THAT(error_of([&] { TCPStore(kHost, taken.port, 1, true, 1s); }),
             Contains("cannot serve on 127.0.0.1:" + std::to_string(taken.port)) &&
                 Contains("bind failed: Address already in use"));
}

TEST_CASE("TCPStore: a client waiting when the server goes gets a named Error, not a hang",
          "[distributed][store]") {
  auto server = std::make_unique<TCPStore>(kHost, 0, 2, true, 60s);
  const std::string where = server->address();
  TCPStore client(kHost, server->port(), 2, false, 60s);
  const auto t0 = Clock::now();
  auto waiting = std::async(std::launch::async, [&client] { return error_of([&] { client.get("never"); }); });
  std::this_thread::sleep_for(200ms);
  server.reset();
  REQUIRE(waiting.wait_for(10s) == std::future_status::ready);
  CHECK_THAT(waiting.get(), Contains("TCPStore get: lost the connection to the store at " + where) &&
                                Contains("the server closed the connection"));
  CHECK(seconds_since(t0) < 5);
  // Later requests say the connection is gone, at once.
  CHECK_THAT(error_of([&] { client.set("k", {}); }), Contains("was lost earlier"));
}

TEST_CASE("TCPStore: a too-large length field is refused, and the server goes on serving others",
          "[distributed][store]") {
  using namespace ember::distributed::store;
  TCPStore server(kHost, 0, 2, true, 10s);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(server.port());
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  const char huge[4] = {'\xff', '\xff', '\xff', '\xff'};  // 4 GiB - 1 announced
  REQUIRE(::send(fd, huge, 4, MSG_NOSIGNAL) == 4);
  // The server answers with an error frame, then closes the connection.
  FrameReader reader;
  std::optional<std::string> body;
  char buf[4096];
  ssize_t n;
  while (!body && (n = ::recv(fd, buf, sizeof buf, 0)) > 0) {
    reader.feed(buf, static_cast<size_t>(n));
    body = reader.next();
  }
  REQUIRE(body);
  const Reply reply = decode_reply(*body);
  CHECK(reply.status == Status::kError);
  CHECK_THAT(reply.message, Contains("announces 4294967295 bytes") && Contains("the server closed this connection"));
  CHECK(::recv(fd, buf, sizeof buf, 0) == 0);
  ::close(fd);
  // Others are served as before.
  TCPStore client(kHost, server.port(), 2, false, 10s);
  client.set("after", bytes("ok"));
  CHECK(server.get("after") == bytes("ok"));
}

TEST_CASE("TCPStore: a key over the protocol's limit is refused before sending", "[distributed][store]") {
  TCPStore server(kHost, 0, 1, true, 10s);
  CHECK_THAT(error_of([&] { server.set(std::string(70000, 'k'), {}); }),
             Contains("a key of 70000 bytes is over the limit of 65536 bytes"));
  server.set("fine", {});  // the connection is intact
  CHECK(server.check({"fine"}));
}

TEST_CASE("TCPStore: Gloo's rendezvous connects 3 ranks through it, and they allreduce",
          "[distributed][store]") {
  constexpr int kWorld = 3;
  TCPStore server(kHost, 0, kWorld, true, 20s);
  std::vector<float> results(kWorld, 0);
  // Each rank's context outlives every rank's allreduce: a rank that finished first and closed
  // its connections could otherwise cut off a peer still reading its last message.
  auto rank_main = [&](int rank) {
    TCPStore client(kHost, server.port(), kWorld, false, 20s);
    gloo::rendezvous::PrefixStore store("test", client);
    auto device = gloo::transport::tcp::CreateDevice(kHost.c_str());
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, kWorld);
    context->connectFullMesh(store, device);
    float value = float(rank + 1);
    gloo::AllreduceRing<float>(context, {&value}, 1).run();
    results[size_t(rank)] = value;
    return context;
  };
  std::vector<std::future<std::shared_ptr<gloo::rendezvous::Context>>> ranks;
  for (int r = 0; r < kWorld; ++r) ranks.push_back(std::async(std::launch::async, rank_main, r));
  std::vector<std::shared_ptr<gloo::rendezvous::Context>> contexts;
  for (auto& f : ranks) {
    REQUIRE(f.wait_for(20s) == std::future_status::ready);
    contexts.push_back(f.get());
  }
  CHECK(results == std::vector<float>(kWorld, 6.0f));
}
