#include "ember/distributed/store_table.h"

#include <algorithm>
#include <charconv>

namespace ember::distributed::store {
namespace {

Reply error(std::string message) {
  Reply r;
  r.status = Status::kError;
  r.message = std::move(message);
  return r;
}

Reply number(Status status, int64_t n) {
  Reply r;
  r.status = status;
  r.number = n;
  return r;
}

// The value of a counter: decimal text, as add() writes it.
std::optional<int64_t> parse_counter(const std::vector<char>& v) {
  int64_t n = 0;
  const char* end = v.data() + v.size();
  const auto [p, ec] = std::from_chars(v.data(), end, n);
  if (v.empty() || ec != std::errc() || p != end) return std::nullopt;
  return n;
}

}  // namespace

bool StoreTable::all_set(const std::vector<std::string>& keys) const {
  return std::all_of(keys.begin(), keys.end(), [&](const std::string& k) { return map_.count(k) != 0; });
}

std::vector<std::string> StoreTable::missing(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  for (const std::string& k : keys)
    if (map_.count(k) == 0) out.push_back(k);
  return out;
}

Reply StoreTable::answer(const Waiter& w) const {
  if (w.op == Op::kWait) return Reply{};
  Reply r;
  r.status = Status::kValue;
  r.value = map_.at(w.keys[0]);
  return r;
}

Reply StoreTable::add(const std::string& key, int64_t delta) {
  int64_t value = 0;
  const auto it = map_.find(key);
  if (it != map_.end()) {
    const std::optional<int64_t> old = parse_counter(it->second);
    if (!old)
      return error("TCPStore add: the value at key " + quote_key(key) + " (" +
                   std::to_string(it->second.size()) + " bytes) is not a decimal integer");
    value = *old;
  }
  if (__builtin_add_overflow(value, delta, &value))
    return error("TCPStore add: key " + quote_key(key) + " would overflow int64 (adding " +
                 std::to_string(delta) + ")");
  const std::string text = std::to_string(value);
  map_[key] = std::vector<char>(text.begin(), text.end());
  changed_ = true;
  return number(Status::kInt, value);
}

std::optional<Reply> StoreTable::handle(int client, const Request& r, Clock::time_point now) {
  switch (r.op) {
    case Op::kHello: return Reply{};
    case Op::kSet:
      map_[r.keys.at(0)] = r.value;
      changed_ = true;
      return Reply{};
    case Op::kGet:
    case Op::kWait: {
      Waiter w{r.op, r.keys, {}};
      if (all_set(w.keys)) return answer(w);
      const int64_t ms = std::clamp<int64_t>(r.number, 0, kMaxTimeoutMs);
      w.deadline = now + std::chrono::milliseconds(ms);
      if (ms == 0) {
        Reply t;
        t.status = Status::kTimeout;
        t.keys = missing(w.keys);
        return t;
      }
      waiters_[client] = std::move(w);
      return std::nullopt;
    }
    case Op::kAdd: return add(r.keys.at(0), r.number);
    case Op::kCheck: return number(Status::kBool, all_set(r.keys) ? 1 : 0);
    case Op::kDelete: return number(Status::kBool, map_.erase(r.keys.at(0)) != 0 ? 1 : 0);
    case Op::kNumKeys: return number(Status::kInt, static_cast<int64_t>(map_.size()));
  }
  return error("TCPStore: unknown request op");
}

std::vector<std::pair<int, Reply>> StoreTable::take_woken() {
  std::vector<std::pair<int, Reply>> out;
  if (!changed_) return out;
  changed_ = false;
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    if (all_set(it->second.keys)) {
      out.emplace_back(it->first, answer(it->second));
      it = waiters_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::vector<std::pair<int, Reply>> StoreTable::expire(Clock::time_point now) {
  std::vector<std::pair<int, Reply>> out;
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    if (it->second.deadline <= now) {
      Reply t;
      t.status = Status::kTimeout;
      t.keys = missing(it->second.keys);
      out.emplace_back(it->first, std::move(t));
      it = waiters_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

void StoreTable::drop(int client) { waiters_.erase(client); }

std::optional<StoreTable::Clock::time_point> StoreTable::next_deadline() const {
  std::optional<Clock::time_point> first;
  for (const auto& [client, w] : waiters_)
    if (!first || w.deadline < *first) first = w.deadline;
  return first;
}

}  // namespace ember::distributed::store
