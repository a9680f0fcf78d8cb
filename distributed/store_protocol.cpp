#include "ember/distributed/store_protocol.h"

#include <algorithm>

#include "ember/core/error.h"

namespace ember::distributed::store {
namespace {

// ---- writing ----

void put_u8(std::string& out, uint8_t v) { out.push_back(static_cast<char>(v)); }

template <typename U>
void put_le(std::string& out, U v) {
  for (size_t i = 0; i < sizeof(U); ++i) out.push_back(static_cast<char>(uint8_t(v >> (8 * i))));
}

void put_bytes(std::string& out, const char* data, size_t size, size_t limit, const char* what) {
  EMBER_CHECK(size <= limit, "TCPStore: a ", what, " of ", size, " bytes is over the limit of ", limit,
              " bytes");
  put_le<uint32_t>(out, static_cast<uint32_t>(size));
  out.append(data, size);
}

void put_key(std::string& out, const std::string& key) {
  put_bytes(out, key.data(), key.size(), kMaxKeyBytes, "key");
}

void put_keys(std::string& out, const std::vector<std::string>& keys) {
  EMBER_CHECK(keys.size() <= kMaxKeys, "TCPStore: ", keys.size(), " keys in one request, over the limit of ",
              kMaxKeys);
  put_le<uint32_t>(out, static_cast<uint32_t>(keys.size()));
  for (const std::string& k : keys) put_key(out, k);
}

// Prefixes the body with its length.
std::string frame(const std::string& body) {
  EMBER_CHECK(body.size() <= kMaxFrameBytes, "TCPStore: a message of ", body.size(),
              " bytes is over the limit of ", kMaxFrameBytes, " bytes");
  std::string out;
  out.reserve(4 + body.size());
  put_le<uint32_t>(out, static_cast<uint32_t>(body.size()));
  out += body;
  return out;
}

void expect_one_key(const std::vector<std::string>& keys, Op op) {
  EMBER_CHECK(keys.size() == 1, "TCPStore: a ", op_name(op), " request names one key, not ", keys.size());
}

// ---- reading ----

// Reads fields off a body, each checked against the bytes left.
class Cursor {
 public:
  Cursor(std::string_view body, const char* what) : rest_(body), what_(what) {}

  uint8_t u8() { return static_cast<uint8_t>(take(1, "a byte")[0]); }
  template <typename U>
  U le(const char* field) {
    const std::string_view b = take(sizeof(U), field);
    U v = 0;
    for (size_t i = 0; i < sizeof(U); ++i) v |= U(uint8_t(b[i])) << (8 * i);
    return v;
  }
  int64_t i64(const char* field) { return static_cast<int64_t>(le<uint64_t>(field)); }

  std::string_view bytes(size_t limit, const char* field) {
    const uint32_t n = le<uint32_t>(field);
    EMBER_CHECK(n <= limit, "TCPStore: ", what_, ": a ", field, " of ", n, " bytes is over the limit of ",
                limit, " bytes");
    return take(n, field);
  }
  std::string key() {
    const std::string_view k = bytes(kMaxKeyBytes, "key");
    return std::string(k);
  }
  std::vector<std::string> keys() {
    const uint32_t n = le<uint32_t>("key count");
    EMBER_CHECK(n <= kMaxKeys, "TCPStore: ", what_, ": ", n, " keys, over the limit of ", kMaxKeys);
    // Each key takes at least its 4-byte length: no reserve beyond what the body can hold.
    EMBER_CHECK(n <= rest_.size() / 4, "TCPStore: ", what_, ": ", n, " keys announced but only ",
                rest_.size(), " bytes left");
    std::vector<std::string> out;
    out.reserve(n);
    for (uint32_t i = 0; i < n; ++i) out.push_back(key());
    return out;
  }
  void finish() {
    EMBER_CHECK(rest_.empty(), "TCPStore: ", what_, ": ", rest_.size(), " bytes left over after its fields");
  }

 private:
  std::string_view take(size_t n, const char* field) {
    EMBER_CHECK(n <= rest_.size(), "TCPStore: ", what_, " ends inside its ", field, " (", n,
                " bytes wanted, ", rest_.size(), " left)");
    const std::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }

  std::string_view rest_;
  const char* what_;
};

std::vector<char> to_vector(std::string_view b) { return std::vector<char>(b.begin(), b.end()); }

}  // namespace

const char* op_name(Op op) {
  switch (op) {
    case Op::kHello: return "hello";
    case Op::kSet: return "set";
    case Op::kGet: return "get";
    case Op::kWait: return "wait";
    case Op::kAdd: return "add";
    case Op::kCheck: return "check";
    case Op::kDelete: return "delete_key";
    case Op::kNumKeys: return "num_keys";
  }
  return "unknown op";
}

std::string encode(const Request& r) {
  std::string body;
  put_u8(body, static_cast<uint8_t>(r.op));
  switch (r.op) {
    case Op::kHello:
      put_le<uint32_t>(body, kMagic);
      put_le<uint16_t>(body, kVersion);
      break;
    case Op::kSet:
      expect_one_key(r.keys, r.op);
      put_key(body, r.keys[0]);
      put_bytes(body, r.value.data(), r.value.size(), kMaxValueBytes, "value");
      break;
    case Op::kGet:
      expect_one_key(r.keys, r.op);
      put_le<uint64_t>(body, static_cast<uint64_t>(r.number));
      put_key(body, r.keys[0]);
      break;
    case Op::kWait:
      put_le<uint64_t>(body, static_cast<uint64_t>(r.number));
      put_keys(body, r.keys);
      break;
    case Op::kAdd:
      expect_one_key(r.keys, r.op);
      put_key(body, r.keys[0]);
      put_le<uint64_t>(body, static_cast<uint64_t>(r.number));
      break;
    case Op::kCheck: put_keys(body, r.keys); break;
    case Op::kDelete:
      expect_one_key(r.keys, r.op);
      put_key(body, r.keys[0]);
      break;
    case Op::kNumKeys: break;
  }
  return frame(body);
}

std::string encode(const Reply& r) {
  std::string body;
  put_u8(body, static_cast<uint8_t>(r.status));
  switch (r.status) {
    case Status::kOk: break;
    case Status::kValue: put_bytes(body, r.value.data(), r.value.size(), kMaxValueBytes, "value"); break;
    case Status::kInt: put_le<uint64_t>(body, static_cast<uint64_t>(r.number)); break;
    case Status::kBool: put_u8(body, r.number != 0 ? 1 : 0); break;
    case Status::kTimeout: put_keys(body, r.keys); break;
    case Status::kError: {
      // An error message is cut to the limit rather than refused.
      const size_t n = std::min(r.message.size(), kMaxMessageBytes);
      put_bytes(body, r.message.data(), n, kMaxMessageBytes, "message");
      break;
    }
  }
  return frame(body);
}

Request decode_request(std::string_view body) {
  Cursor c(body, "request");
  Request r;
  const uint8_t op = c.u8();
  EMBER_CHECK(op >= uint8_t(Op::kHello) && op <= uint8_t(Op::kNumKeys), "TCPStore: unknown request op ",
              int(op));
  r.op = static_cast<Op>(op);
  switch (r.op) {
    case Op::kHello: {
      const uint32_t magic = c.le<uint32_t>("magic");
      EMBER_CHECK(magic == kMagic, "TCPStore: the peer is not an ember TCPStore client (magic 0x", std::hex,
                  magic, ")");
      const uint16_t version = c.le<uint16_t>("version");
      EMBER_CHECK(version == kVersion, "TCPStore: the client speaks protocol version ", version,
                  ", this server version ", kVersion);
      break;
    }
    case Op::kSet:
      r.keys.push_back(c.key());
      r.value = to_vector(c.bytes(kMaxValueBytes, "value"));
      break;
    case Op::kGet:
    case Op::kWait:
      r.number = c.i64("timeout");
      EMBER_CHECK(r.number >= 0, "TCPStore: a ", op_name(r.op), " request with a negative timeout (", r.number,
                  " ms)");
      if (r.op == Op::kGet) {
        r.keys.push_back(c.key());
      } else {
        r.keys = c.keys();
      }
      break;
    case Op::kAdd:
      r.keys.push_back(c.key());
      r.number = c.i64("delta");
      break;
    case Op::kCheck: r.keys = c.keys(); break;
    case Op::kDelete: r.keys.push_back(c.key()); break;
    case Op::kNumKeys: break;
  }
  c.finish();
  return r;
}

Reply decode_reply(std::string_view body) {
  Cursor c(body, "reply");
  Reply r;
  const uint8_t status = c.u8();
  EMBER_CHECK(status >= uint8_t(Status::kOk) && status <= uint8_t(Status::kError),
              "TCPStore: unknown reply status ", int(status));
  r.status = static_cast<Status>(status);
  switch (r.status) {
    case Status::kOk: break;
    case Status::kValue: r.value = to_vector(c.bytes(kMaxValueBytes, "value")); break;
    case Status::kInt: r.number = c.i64("integer"); break;
    case Status::kBool: {
      const uint8_t b = c.u8();
      EMBER_CHECK(b <= 1, "TCPStore: reply: a boolean byte of ", int(b));
      r.number = b;
      break;
    }
    case Status::kTimeout: r.keys = c.keys(); break;
    case Status::kError: r.message = std::string(c.bytes(kMaxMessageBytes, "message")); break;
  }
  c.finish();
  return r;
}

void FrameReader::check_header() const {
  if (buffered() < 4) return;
  uint32_t n = 0;
  for (size_t i = 0; i < 4; ++i) n |= uint32_t(uint8_t(buffer_[start_ + i])) << (8 * i);
  EMBER_CHECK(n >= 1 && n <= kMaxFrameBytes, "TCPStore: a message announces ", n,
              " bytes; the limit is 1 to ", kMaxFrameBytes);
}

void FrameReader::feed(const char* data, size_t size) {
  // Drop the frames already handed out before growing the buffer.
  if (start_ > 0 && (start_ == buffer_.size() || start_ >= (size_t{1} << 16))) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  check_header();
  buffer_.append(data, size);
  check_header();
}

std::optional<std::string> FrameReader::next() {
  if (buffered() < 4) return std::nullopt;
  check_header();
  uint32_t n = 0;
  for (size_t i = 0; i < 4; ++i) n |= uint32_t(uint8_t(buffer_[start_ + i])) << (8 * i);
  if (buffered() - 4 < n) return std::nullopt;
  std::string body = buffer_.substr(start_ + 4, n);
  start_ += 4 + size_t{n};
  check_header();  // the next frame's prefix may already be here
  return body;
}

std::string quote_key(std::string_view key) {
  constexpr size_t kShown = 100;
  std::string out = "'";
  for (size_t i = 0; i < key.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out.push_back(static_cast<char>(c));
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  if (key.size() > kShown) out += "...";
  return out + "'";
}

std::string quote_keys(const std::vector<std::string>& keys) {
  constexpr size_t kShown = 8;
  std::string out = "[";
  for (size_t i = 0; i < keys.size() && i < kShown; ++i) out += (i ? ", " : "") + quote_key(keys[i]);
  if (keys.size() > kShown) out += " ... and " + std::to_string(keys.size() - kShown) + " more";
  return out + "]";
}

}  // namespace ember::distributed::store
