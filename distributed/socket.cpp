#include "ember/distributed/socket.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/core/error.h"

namespace ember::distributed::net {

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.release();
  }
  return *this;
}

void Fd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string endpoint(const std::string& host, uint16_t port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string errno_text(int err) {
  char buf[256];
  // GNU strerror_r returns the text, which may or may not be buf.
  return ::strerror_r(err, buf, sizeof buf);
}

AddrInfo resolve(const std::string& host, uint16_t port, bool passive, int* gai_error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* out = nullptr;
  const std::string service = std::to_string(port);
  *gai_error = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &out);
  if (*gai_error != 0) return nullptr;
  return AddrInfo(out);
}

void set_nonblocking(int fd, bool on) {
  const int flags = ::fcntl(fd, F_GETFL);
  EMBER_CHECK(flags >= 0, "TCPStore: fcntl(F_GETFL) failed: ", errno_text(errno));
  const int want = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  EMBER_CHECK(::fcntl(fd, F_SETFL, want) == 0, "TCPStore: fcntl(F_SETFL) failed: ", errno_text(errno));
}

void set_nodelay(int fd) {
  const int one = 1;
  // Best effort: a socket without it is only slower.
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

uint16_t local_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  EMBER_CHECK(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0,
              "TCPStore: getsockname failed: ", errno_text(errno));
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
}

}  // namespace ember::distributed::net
