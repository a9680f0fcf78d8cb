#include "ember/distributed/store_client.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <thread>

#include "ember/core/error.h"

namespace ember::distributed::store {
namespace {

using std::chrono::milliseconds;

int ms_until(StoreClient::Clock::time_point deadline) {
  const auto left = std::chrono::ceil<milliseconds>(deadline - StoreClient::Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, INT_MAX));
}

// One connection attempt to one address, bounded by the deadline. Returns the
// connected socket, or an invalid one with *err set.
net::Fd try_connect(const addrinfo* a, StoreClient::Clock::time_point deadline, int* err) {
  net::Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol));
  if (!fd.valid()) {
    *err = errno;
    return {};
  }
  if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) == 0) return fd;
  if (errno != EINPROGRESS) {
    *err = errno;
    return {};
  }
  pollfd p{fd.get(), POLLOUT, 0};
  int ready;
  do {
    ready = ::poll(&p, 1, ms_until(deadline));
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) {
    *err = ready == 0 ? ETIMEDOUT : errno;
    return {};
  }
  int so_error = 0;
  socklen_t len = sizeof so_error;
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &len) != 0) so_error = errno;
  if (so_error != 0) {
    *err = so_error;
    return {};
  }
  return fd;
}

}  // namespace

StoreClient::StoreClient(std::string host, uint16_t port, milliseconds timeout)
    : host_(std::move(host)), port_(port), where_(net::endpoint(host_, port)) {
  EMBER_CHECK(port_ != 0, "TCPStore: a client needs the store's port (given 0 for ", host_, ")");
  connect(timeout);
}

void StoreClient::connect(milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  milliseconds backoff(10);
  std::string last = "no attempt";
  for (;;) {
    int gai = 0;
    const net::AddrInfo addrs = net::resolve(host_, port_, /*passive=*/false, &gai);
    if (!addrs) {
      // A name that does not exist will not appear by waiting; a failed look-up might.
      EMBER_CHECK(gai == EAI_AGAIN, "TCPStore: cannot connect to the store at ", where_, ": cannot resolve '",
                  host_, "': ", gai_strerror(gai));
      last = gai_strerror(gai);
    } else {
      for (const addrinfo* a = addrs.get(); a; a = a->ai_next) {
        int err = 0;
        net::Fd fd = try_connect(a, deadline, &err);
        if (fd.valid()) {
          net::set_nodelay(fd.get());
          fd_ = std::move(fd);
          Request hello;
          hello.op = Op::kHello;
          const Reply r = call(hello, timeout);
          EMBER_CHECK(r.status == Status::kOk, "TCPStore: the store at ", where_, " refused this client: ",
                      r.message);
          return;
        }
        last = net::errno_text(err);
      }
    }
    const Clock::time_point now = Clock::now();
    EMBER_CHECK(now < deadline, "TCPStore: cannot connect to the store at ", where_, " within ", timeout.count(),
                " ms (is rank 0 up and serving it?): ", last);
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff, deadline - now));
    backoff = std::min(backoff * 2, milliseconds(500));
  }
}

void StoreClient::lose(const char* op, const std::string& why) {
  lost_ = why;
  fd_.reset();
  EMBER_ERROR("TCPStore ", op, ": lost the connection to the store at ", where_, ": ", why);
}

bool StoreClient::await(short events, Clock::time_point deadline) {
  pollfd p{fd_.get(), events, 0};
  for (;;) {
    const int ready = ::poll(&p, 1, ms_until(deadline));
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) return true;  // let the send or recv report the error
  }
}

void StoreClient::send_all(const std::string& bytes, Clock::time_point deadline, const char* op) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd_.get(), bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n >= 0) {
      sent += static_cast<size_t>(n);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!await(POLLOUT, deadline)) lose(op, "the server took no data until the deadline");
    } else if (errno != EINTR) {
      lose(op, net::errno_text(errno));
    }
  }
}

std::string StoreClient::receive_frame(Clock::time_point deadline, const char* op) {
  char buf[64 << 10];
  for (;;) {
    if (std::optional<std::string> body = reader_.next()) return std::move(*body);
    if (!await(POLLIN, deadline)) lose(op, "no reply before the deadline");
    const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n == 0) lose(op, "the server closed the connection (did rank 0 exit?)");
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      lose(op, net::errno_text(errno));
    }
    try {
      reader_.feed(buf, static_cast<size_t>(n));
    } catch (const Error& e) {
      lose(op, e.what());
    }
  }
}

Reply StoreClient::call(const Request& request, milliseconds wait) {
  const char* op = op_name(request.op);
  const std::string bytes = encode(request);  // an oversized key or value fails here, connection intact
  std::lock_guard<std::mutex> lock(mu_);
  EMBER_CHECK(lost_.empty(), "TCPStore ", op, ": the connection to the store at ", where_, " was lost earlier: ",
              lost_);
  const Clock::time_point deadline = Clock::now() + wait;
  send_all(bytes, deadline, op);
  const std::string body = receive_frame(deadline, op);
  try {
    return decode_reply(body);
  } catch (const Error& e) {
    lose(op, e.what());
  }
}

}  // namespace ember::distributed::store
