// The TCPStore's wire codec (Note [TCPStore wire protocol]): every message
// survives a round trip, and bad bytes are an Error before anything is sized
// by them.
#include <catch2/catch.hpp>

#include <ember/core/error.h>
#include <ember/distributed/store_protocol.h>
#include <ember/distributed/store_table.h>

#include <string>
#include <vector>

using namespace ember::distributed::store;
using Catch::Contains;

namespace {

std::string body_of(const std::string& frame) { return frame.substr(4); }

std::string le32(uint32_t n) {
  std::string s;
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(uint8_t(n >> (8 * i))));
  return s;
}

Request make(Op op, std::vector<std::string> keys = {}, int64_t number = 0) {
  Request r;
  r.op = op;
  r.keys = std::move(keys);
  r.number = number;
  return r;
}

}  // namespace

TEST_CASE("store protocol: every request and reply survives a round trip", "[distributed][store]") {
  const std::string binary_key("k\0\xff", 3);
  Request set = make(Op::kSet, {binary_key});
  set.value = {'a', '\0', 'b'};
  const std::vector<Request> requests = {make(Op::kHello),
                                         set,
                                         make(Op::kGet, {"g"}, 1500),
                                         make(Op::kWait, {"a", "", binary_key}, 7),
                                         make(Op::kAdd, {"n"}, -5),
                                         make(Op::kCheck, {}),
                                         make(Op::kDelete, {"d"}),
                                         make(Op::kNumKeys)};
  for (const Request& r : requests) {
    INFO(op_name(r.op));
    const Request back = decode_request(body_of(encode(r)));
    CHECK(back.op == r.op);
    CHECK(back.keys == r.keys);
    CHECK(back.value == r.value);
    CHECK(back.number == r.number);
  }
  Reply value;
  value.status = Status::kValue;
  value.value = {'\0', '\0'};
  Reply timeout;
  timeout.status = Status::kTimeout;
  timeout.keys = {"x", "y"};
  Reply error;
  error.status = Status::kError;
  error.message = "no";
  Reply integer;
  integer.status = Status::kInt;
  integer.number = INT64_MIN;
  for (const Reply& r : {Reply{}, value, timeout, error, integer}) {
    const Reply back = decode_reply(body_of(encode(r)));
    CHECK(back.status == r.status);
    CHECK(back.value == r.value);
    CHECK(back.keys == r.keys);
    CHECK(back.message == r.message);
    CHECK(back.number == r.number);
  }
}

TEST_CASE("store protocol: malformed bodies are named Errors", "[distributed][store]") {
  const std::string get = body_of(encode(make(Op::kGet, {"key"}, 5)));
  REQUIRE_THROWS_WITH(decode_request(get.substr(0, get.size() - 1)), Contains("ends inside its key"));
  REQUIRE_THROWS_WITH(decode_request(get + "x"), Contains("1 bytes left over"));
  REQUIRE_THROWS_WITH(decode_request(std::string(1, '\x63')), Contains("unknown request op 99"));
  REQUIRE_THROWS_WITH(decode_request(""), Contains("ends inside"));
  // A key length of 4 GiB - 1: refused by its limit, not by a failed allocation.
  REQUIRE_THROWS_WITH(decode_request(std::string(1, char(Op::kDelete)) + le32(0xffffffff)),
                      Contains("a key of 4294967295 bytes is over the limit of 65536 bytes"));
  // 65536 keys announced in a body with room for none.
  REQUIRE_THROWS_WITH(decode_request(std::string(1, char(Op::kCheck)) + le32(65536)),
                      Contains("65536 keys announced but only 0 bytes left"));
  REQUIRE_THROWS_WITH(decode_request(std::string(1, char(Op::kCheck)) + le32(70000)),
                      Contains("70000 keys, over the limit of 65536"));
  std::string hello = body_of(encode(make(Op::kHello)));
  hello[1] = 'X';
  REQUIRE_THROWS_WITH(decode_request(hello), Contains("not an ember TCPStore client"));
  REQUIRE_THROWS_WITH(decode_request(std::string(1, char(Op::kGet)) + std::string(8, '\xff')),
                      Contains("negative timeout"));
  REQUIRE_THROWS_WITH(decode_reply(std::string{char(Status::kBool), 2}), Contains("a boolean byte of 2"));
}

TEST_CASE("store protocol: the frame reader refuses a huge length before holding more than 4 bytes",
          "[distributed][store]") {
  FrameReader reader;
  const std::string header = le32(0xfffffff0);
  REQUIRE_THROWS_WITH(reader.feed(header.data(), header.size()),
                      Contains("announces 4294967280 bytes; the limit is 1 to"));
  REQUIRE(reader.buffered() == 4);
  FrameReader zero;
  REQUIRE_THROWS_WITH(zero.feed("\0\0\0\0", 4), Contains("announces 0 bytes"));
}

TEST_CASE("store protocol: frames split and joined at any byte", "[distributed][store]") {
  const std::string stream = encode(make(Op::kNumKeys)) + encode(make(Op::kGet, {"abc"}, 3)) +
                             encode(make(Op::kWait, {"x", "y"}, 9));
  FrameReader byte_by_byte;
  std::vector<std::string> bodies;
  for (char c : stream) {
    byte_by_byte.feed(&c, 1);
    while (auto b = byte_by_byte.next()) bodies.push_back(*b);
  }
  REQUIRE(bodies.size() == 3);
  CHECK(decode_request(bodies[2]).keys == std::vector<std::string>{"x", "y"});
  FrameReader at_once;
  at_once.feed(stream.data(), stream.size());
  int n = 0;
  while (at_once.next()) ++n;
  CHECK(n == 3);
  CHECK(at_once.buffered() == 0);
}

TEST_CASE("store table: waiters wake on set, expire at their deadline, and add checks its counter",
          "[distributed][store]") {
  StoreTable table;
  const auto t0 = StoreTable::Clock::now();
  REQUIRE_FALSE(table.handle(1, make(Op::kWait, {"a", "b"}, 100), t0));
  REQUIRE_FALSE(table.handle(2, make(Op::kGet, {"b"}, 50), t0));
  REQUIRE(table.next_deadline() == t0 + std::chrono::milliseconds(50));
  Request set = make(Op::kSet, {"a"});
  set.value = {'1'};
  REQUIRE(table.handle(3, set, t0)->status == Status::kOk);
  CHECK(table.take_woken().empty());  // client 1 still misses "b"
  const auto expired = table.expire(t0 + std::chrono::milliseconds(60));
  REQUIRE(expired.size() == 1);
  CHECK(expired[0].first == 2);
  CHECK(expired[0].second.status == Status::kTimeout);
  CHECK(expired[0].second.keys == std::vector<std::string>{"b"});
  set.keys = {"b"};
  table.handle(3, set, t0);
  const auto woken = table.take_woken();
  REQUIRE(woken.size() == 1);
  CHECK(woken[0].first == 1);
  CHECK(woken[0].second.status == Status::kOk);
  CHECK_FALSE(table.next_deadline());

  CHECK(table.handle(1, make(Op::kAdd, {"n"}, INT64_MAX), t0)->number == INT64_MAX);
  const Reply overflow = *table.handle(1, make(Op::kAdd, {"n"}, 1), t0);
  CHECK(overflow.status == Status::kError);
  CHECK_THAT(overflow.message, Contains("would overflow int64"));
  set.keys = {"text"};
  set.value = {'1', 'x'};
  table.handle(1, set, t0);
  CHECK_THAT(table.handle(1, make(Op::kAdd, {"text"}, 1), t0)->message, Contains("is not a decimal integer"));
}

TEST_CASE("store protocol: keys are quoted printable in messages", "[distributed][store]") {
  CHECK(quote_key(std::string("a\0'\n", 4)) == "'a\\x00\\x27\\x0a'");
  CHECK(quote_keys({"a", "b"}) == "['a', 'b']");
  CHECK_THAT(quote_keys(std::vector<std::string>(10, "k")), Contains("... and 2 more]"));
}
