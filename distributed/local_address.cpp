#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "ember/distributed/init_methods.h"

namespace ember::distributed {

namespace {
bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}
}  // namespace

// Connecting a UDP socket sends nothing; it only asks the kernel for the
// route, whose source address is the interface facing `host`. (MASTER_ADDR
// itself is the right address on rank 0's machine only.)
std::string local_address_towards(const std::string& host) {
  if (host.empty() || is_loopback(host)) return "127.0.0.1";
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  std::string result;
  if (getaddrinfo(host.c_str(), "9", &hints, &found) == 0) {
    for (addrinfo* a = found; a != nullptr && result.empty(); a = a->ai_next) {
      const int fd = socket(a->ai_family, SOCK_DGRAM, 0);
      if (fd < 0) continue;
      sockaddr_storage local{};
      socklen_t length = sizeof(local);
      char text[INET6_ADDRSTRLEN] = {};
      if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
          getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
        const void* address = local.ss_family == AF_INET6
                                  ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
                                  : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
        if (inet_ntop(local.ss_family, address, text, sizeof(text)) != nullptr) result = text;
      }
      close(fd);
    }
    freeaddrinfo(found);
  }
  return result.empty() ? host : result;
}

}  // namespace ember::distributed
