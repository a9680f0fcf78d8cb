// Fuzzes the TCPStore's wire protocol (distributed/store_protocol.h): the
// input is a byte stream as the server reads it from one connection. It is
// split into frames (in two pieces cut where the first byte says, so frames
// straddle reads), each frame decoded as a request and applied to a server
// table, and decoded as a reply as a client would. A frame that decodes must
// encode back to the same bytes: the codec has one spelling per message.
#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "fuzz_input.h"

#include <ember/distributed/store_protocol.h>
#include <ember/distributed/store_table.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember::distributed::store;
  const char* bytes = reinterpret_cast<const char*>(data);
  const size_t cut = size == 0 ? 0 : std::min<size_t>(data[0], size);
  const auto t0 = StoreTable::Clock::now();
  StoreTable table;
  FrameReader reader;
  int client = 0;
  ember::fuzz::expect_only_ember_errors([&] {
    for (const auto& [from, n] : {std::pair{size_t{0}, cut}, std::pair{cut, size - cut}}) {
      reader.feed(bytes + from, n);
      while (const std::optional<std::string> body = reader.next()) {
        ember::fuzz::expect_only_ember_errors([&] {
          const Request r = decode_request(*body);
          if (encode(r).substr(4) != *body) std::abort();
          // One client per frame: a waiting client never sends again.
          (void)table.handle(client++, r, t0);
          (void)table.take_woken();
        });
        ember::fuzz::expect_only_ember_errors([&] {
          const Reply r = decode_reply(*body);
          if (encode(r).substr(4) != *body) std::abort();
        });
      }
    }
  });
  (void)table.expire(t0 + std::chrono::hours(24 * 31));
  return 0;
}
