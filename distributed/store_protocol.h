#pragma once
// Note [TCPStore wire protocol]: what a TCPStore client and its server say to
// each other over one TCP connection. Every message is a frame:
//
//   u32 length N, then N bytes of body          (integers little-endian)
//
// with 1 <= N <= kMaxFrameBytes, checked before anything is allocated for the
// body. A request body is a u8 op followed by its fields; a reply body is a
// u8 status followed by its fields. A key or a value is a u32 byte count and
// the bytes (any bytes: keys and values may hold zeros); a key list is a u32
// count and the keys. Each count is checked against its own limit and against
// the bytes left in the body, and a body must be used up exactly.
//
//   request                                         reply
//   kHello   u32 magic "EMBS", u16 version          kOk (the first request of a connection)
//   kSet     key, value                             kOk
//   kGet     i64 timeout_ms, key                    kValue value | kTimeout [key]
//   kWait    i64 timeout_ms, key list               kOk | kTimeout missing keys
//   kAdd     key, i64 delta                         kInt new value | kError
//   kCheck   key list                               kBool
//   kDelete  key                                    kBool (whether it was set)
//   kNumKeys                                        kInt
//
// A client sends one request and reads its reply before the next; kGet and
// kWait may wait on the server up to timeout_ms for the keys to be set, and
// the server then answers kTimeout with the keys still missing. kAdd keeps the
// integer as decimal text, so get() of a counter reads "42". A malformed frame
// or a request out of turn gets a kError reply and the server closes that
// connection; the other clients are not affected.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ember::distributed::store {

inline constexpr uint32_t kMagic = 0x53424d45;  // "EMBS" read as little-endian bytes
inline constexpr uint16_t kVersion = 1;

// Limits on what a peer may send. A frame holds at most one value, a key, and
// a few fixed fields; a key list is bounded by the frame size.
inline constexpr size_t kMaxKeyBytes = size_t{64} << 10;
inline constexpr size_t kMaxValueBytes = size_t{64} << 20;
inline constexpr size_t kMaxFrameBytes = kMaxValueBytes + kMaxKeyBytes + 64;
inline constexpr size_t kMaxKeys = size_t{1} << 16;
inline constexpr size_t kMaxMessageBytes = size_t{64} << 10;
// Server-side waits are capped (a peer's i64 must not overflow a deadline).
inline constexpr int64_t kMaxTimeoutMs = int64_t{30} * 24 * 3600 * 1000;

enum class Op : uint8_t { kHello = 1, kSet, kGet, kWait, kAdd, kCheck, kDelete, kNumKeys };
enum class Status : uint8_t { kOk = 1, kValue, kInt, kBool, kTimeout, kError };

const char* op_name(Op op);

struct Request {
  Op op = Op::kHello;
  std::vector<std::string> keys;  // one for kSet, kGet, kAdd, kDelete
  std::vector<char> value;        // kSet
  int64_t number = 0;             // kAdd: the delta; kGet, kWait: the timeout in ms
};

struct Reply {
  Status status = Status::kOk;
  std::vector<char> value;        // kValue
  int64_t number = 0;             // kInt; kBool: 0 or 1
  std::vector<std::string> keys;  // kTimeout: the keys still missing
  std::string message;            // kError
};

// A whole frame, length prefix included. Error when a field is over its limit.
std::string encode(const Request& r);
std::string encode(const Reply& r);

// Decodes one frame body (no length prefix). Error naming what is wrong:
// unknown op or status, a count over its limit or past the body's end,
// trailing bytes, a hello with another magic or version.
Request decode_request(std::string_view body);
Reply decode_reply(std::string_view body);

// Splits a byte stream into frame bodies as bytes arrive. The length prefix is
// checked as soon as its 4 bytes are in, so a peer announcing 4 GiB is refused
// before it sends (or we hold) more than the bytes it really sent.
class FrameReader {
 public:
  // Error when a frame's length is 0 or over kMaxFrameBytes.
  void feed(const char* data, size_t size);
  // The next complete body, in order.
  std::optional<std::string> next();
  // Bytes received that are not yet part of a complete frame handed out.
  size_t buffered() const { return buffer_.size() - start_; }

 private:
  void check_header() const;
  std::string buffer_;
  size_t start_ = 0;  // where the first frame not yet handed out begins
};

// A key as error messages quote it: printable ASCII as is, other bytes as
// \xNN, cut after 100 bytes.
std::string quote_key(std::string_view key);
// Up to 8 quoted keys, "['a', 'b', ... and 3 more]".
std::string quote_keys(const std::vector<std::string>& keys);

}  // namespace ember::distributed::store
