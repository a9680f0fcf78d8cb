#pragma once
// The few socket helpers the TCPStore's client and server share: an owned file
// descriptor, name resolution, and errno as text. Every socket is opened
// close-on-exec (the launcher and the tests spawn processes) and every send
// passes MSG_NOSIGNAL (a peer gone is an error to report, never a SIGPIPE).
#include <netdb.h>

#include <cstdint>
#include <memory>
#include <string>

namespace ember::distributed::net {

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();

 private:
  int fd_ = -1;
};

// "host:port", with brackets around an IPv6 literal.
std::string endpoint(const std::string& host, uint16_t port);

// strerror of an errno value, thread-safe.
std::string errno_text(int err);

struct AddrInfoDeleter {
  void operator()(addrinfo* a) const { freeaddrinfo(a); }
};
using AddrInfo = std::unique_ptr<addrinfo, AddrInfoDeleter>;

// getaddrinfo for TCP. passive: addresses to bind (host may be empty: any).
// On failure returns null and sets *gai_error (EAI_*).
AddrInfo resolve(const std::string& host, uint16_t port, bool passive, int* gai_error);

// O_NONBLOCK on or off; TCP_NODELAY on (requests are small and each waits for its reply).
void set_nonblocking(int fd, bool on);
void set_nodelay(int fd);

// The port a bound socket got.
uint16_t local_port(int fd);

}  // namespace ember::distributed::net
