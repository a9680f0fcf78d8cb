#include "ember/distributed/store_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <map>
#include <thread>
#include <vector>

#include "ember/core/error.h"
#include "ember/distributed/socket.h"
#include "ember/distributed/store_protocol.h"
#include "ember/distributed/store_table.h"

namespace ember::distributed::store {
namespace {

using Clock = StoreTable::Clock;

struct Connection {
  net::Fd fd;
  FrameReader reader;
  std::string out;       // reply bytes not yet sent
  bool greeted = false;  // its hello came
  bool closing = false;  // a protocol error was answered: close once `out` is sent
  bool dead = false;     // close now
};

net::Fd listen_on(const std::string& host, uint16_t port, int backlog) {
  const std::string where = net::endpoint(host, port);
  int gai = 0;
  const net::AddrInfo addrs = net::resolve(host, port, /*passive=*/true, &gai);
  EMBER_CHECK(addrs, "TCPStore: cannot serve on ", where, ": cannot resolve '", host, "': ", gai_strerror(gai));
  int err = 0;
  const char* step = "";
  for (const addrinfo* a = addrs.get(); a; a = a->ai_next) {
    net::Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol));
    if (!fd.valid()) {
      err = errno, step = "socket";
      continue;
    }
    const int one = 1;
    // A restarted rank 0 can bind its port again while old connections linger in TIME_WAIT.
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0) {
      err = errno, step = "bind";
      continue;
    }
    if (::listen(fd.get(), backlog) != 0) {
      err = errno, step = "listen";
      continue;
    }
    return fd;
  }
  EMBER_ERROR("TCPStore: cannot serve on ", where, ": ", step, " failed: ", net::errno_text(err));
}

// Milliseconds from now to the deadline, rounded up, for poll().
int poll_timeout(std::optional<Clock::time_point> deadline) {
  if (!deadline) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, INT_MAX));
}

}  // namespace

struct StoreServer::Impl {
  std::string where;
  net::Fd listener;
  net::Fd wake;  // an eventfd the destructor writes to end the poll
  uint16_t port = 0;
  std::map<int, Connection> conns;  // by id; ids are never reused
  int next_id = 0;
  StoreTable table;
  std::atomic<bool> stop{false};
  std::thread thread;

  void run();
  void serve_once();
  void accept_all();
  void read_from(int id, Connection& c);
  void handle_frame(int id, Connection& c, const std::string& body);
  void queue(Connection& c, const Reply& r);
  void flush(Connection& c);
  void fail(Connection& c, const std::string& message);
  void deliver(std::vector<std::pair<int, Reply>> replies);
};

void StoreServer::Impl::accept_all() {
  for (;;) {
    net::Fd fd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!fd.valid()) {
      // EAGAIN: none left; anything else (ECONNABORTED, EMFILE) leaves the
      // listener as it was, and the next poll says whether to try again.
      return;
    }
    net::set_nodelay(fd.get());
    conns[next_id++].fd = std::move(fd);
  }
}

void StoreServer::Impl::queue(Connection& c, const Reply& r) {
  c.out += encode(r);
  flush(c);
}

void StoreServer::Impl::flush(Connection& c) {
  size_t sent = 0;
  while (sent < c.out.size()) {
    const ssize_t n = ::send(c.fd.get(), c.out.data() + sent, c.out.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      break;  // the rest when poll says POLLOUT
    } else {
      c.dead = true;  // EPIPE, ECONNRESET: the client is gone
      break;
    }
  }
  c.out.erase(0, sent);
}

// A peer that breaks the protocol gets one error reply, then its connection closes.
void StoreServer::Impl::fail(Connection& c, const std::string& message) {
  if (c.closing || c.dead) return;
  c.closing = true;
  Reply r;
  r.status = Status::kError;
  r.message = message + " (store at " + where + "; the server closed this connection)";
  queue(c, r);
}

void StoreServer::Impl::handle_frame(int id, Connection& c, const std::string& body) {
  if (table.waiting(id)) return fail(c, "TCPStore: a request arrived while this client's wait was pending");
  const Request r = decode_request(body);
  if (!c.greeted && r.op != Op::kHello)
    return fail(c, std::string("TCPStore: a ") + op_name(r.op) + " request before the hello");
  if (c.greeted && r.op == Op::kHello) return fail(c, "TCPStore: a second hello on one connection");
  c.greeted = true;
  if (std::optional<Reply> reply = table.handle(id, r, Clock::now())) queue(c, *reply);
}

void StoreServer::Impl::read_from(int id, Connection& c) {
  char buf[64 << 10];
  for (;;) {
    const ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (n == 0) {
      c.dead = true;  // the client closed its end
      return;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) c.dead = true;
      return;
    }
    try {
      c.reader.feed(buf, static_cast<size_t>(n));
      while (!c.closing && !c.dead) {
        const std::optional<std::string> body = c.reader.next();
        if (!body) break;
        handle_frame(id, c, *body);
      }
    } catch (const Error& e) {
      fail(c, e.what());
    } catch (const std::exception& e) {
      fail(c, std::string("TCPStore: the server could not handle a request: ") + e.what());
    }
    if (c.closing || c.dead) return;
  }
}

void StoreServer::Impl::deliver(std::vector<std::pair<int, Reply>> replies) {
  for (const auto& [id, reply] : replies) {
    const auto it = conns.find(id);
    if (it != conns.end() && !it->second.dead) queue(it->second, reply);
  }
}

void StoreServer::Impl::serve_once() {
  std::vector<pollfd> fds{{wake.get(), POLLIN, 0}, {listener.get(), POLLIN, 0}};
  std::vector<int> ids;
  for (const auto& [id, c] : conns) {
    const short events = static_cast<short>((c.closing ? 0 : POLLIN) | (c.out.empty() ? 0 : POLLOUT));
    fds.push_back({c.fd.get(), events, 0});
    ids.push_back(id);
  }
  const int ready = ::poll(fds.data(), fds.size(), poll_timeout(table.next_deadline()));
  if (ready < 0) {
    if (errno == EINTR) return;
    EMBER_ERROR("TCPStore: poll failed on the server at ", where, ": ", net::errno_text(errno));
  }
  if (fds[0].revents != 0) return;  // woken: stop is set
  if (fds[1].revents & POLLIN) accept_all();
  for (size_t i = 0; i < ids.size(); ++i) {
    const short ev = fds[i + 2].revents;
    Connection& c = conns.at(ids[i]);
    if (ev & POLLOUT) flush(c);
    if (!c.closing && (ev & (POLLIN | POLLHUP | POLLERR))) read_from(ids[i], c);
    if (c.closing && (ev & (POLLHUP | POLLERR))) c.dead = true;
  }
  const Clock::time_point now = Clock::now();
  deliver(table.expire(now));
  deliver(table.take_woken());
  for (auto it = conns.begin(); it != conns.end();) {
    Connection& c = it->second;
    if (c.dead || (c.closing && c.out.empty())) {
      table.drop(it->first);
      it = conns.erase(it);  // closes the socket
    } else {
      ++it;
    }
  }
}

void StoreServer::Impl::run() {
  try {
    while (!stop.load(std::memory_order_acquire)) serve_once();
  } catch (const std::exception& e) {
    // Nothing to throw to: the clients see their connections close.
    std::fprintf(stderr, "ember: %s; the store stops serving\n", e.what());
  }
  conns.clear();
}

StoreServer::StoreServer(const std::string& host, uint16_t port, int backlog) : impl_(std::make_unique<Impl>()) {
  impl_->listener = listen_on(host, port, backlog);
  impl_->port = net::local_port(impl_->listener.get());
  impl_->where = net::endpoint(host, impl_->port);
  impl_->wake = net::Fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  EMBER_CHECK(impl_->wake.valid(), "TCPStore: eventfd failed: ", net::errno_text(errno));
  impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

StoreServer::~StoreServer() {
  impl_->stop.store(true, std::memory_order_release);
  const uint64_t one = 1;
  // Cannot fail short of a full counter (2^64 - 2 wake-ups).
  (void)!::write(impl_->wake.get(), &one, sizeof one);
  impl_->thread.join();
}

uint16_t StoreServer::port() const { return impl_->port; }

}  // namespace ember::distributed::store
