#include "ember/nn/serialize/json.h"

#include <unordered_set>

#include "ember/core/shape.h"

namespace ember::serialize {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  JsonValue parse_document() {
    JsonValue v = parse_value(0);
    skip_whitespace();
    if (pos_ != s_.size()) fail("unexpected data after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw JsonError(what + " at byte " + std::to_string(pos_));
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }

  void skip_whitespace() {
    while (!at_end() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    if (peek() != c || at_end()) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  void expect_word(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) fail("invalid literal");
    pos_ += word.size();
  }

  JsonValue parse_value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
    skip_whitespace();
    if (at_end()) fail("unexpected end of input");
    JsonValue v;
    switch (s_[pos_]) {
      case '{': v.kind = JsonValue::Kind::Object; parse_object(v, depth); break;
      case '[': v.kind = JsonValue::Kind::Array; parse_array(v, depth); break;
      case '"': v.kind = JsonValue::Kind::String; v.text = parse_string(); break;
      case 't': expect_word("true"); v.kind = JsonValue::Kind::Bool; v.boolean = true; break;
      case 'f': expect_word("false"); v.kind = JsonValue::Kind::Bool; break;
      case 'n': expect_word("null"); break;
      default: v.kind = JsonValue::Kind::Number; v.text = parse_number(); break;
    }
    return v;
  }

  void parse_object(JsonValue& v, int depth) {
    expect('{');
    std::unordered_set<std::string> keys;
    skip_whitespace();
    if (peek() == '}' && !at_end()) {
      ++pos_;
      return;
    }
    while (true) {
      skip_whitespace();
      if (peek() != '"' || at_end()) fail("expected a string key");
      const size_t key_pos = pos_;
      std::string key = parse_string();
      if (!keys.insert(key).second) {
        pos_ = key_pos;
        fail("duplicate key " + json_quote(key));
      }
      skip_whitespace();
      expect(':');
      JsonValue member = parse_value(depth + 1);
      v.object.push_back({std::move(key), std::move(member)});
      skip_whitespace();
      if (peek() == ',' && !at_end()) {
        ++pos_;
        continue;
      }
      expect('}');
      return;
    }
  }

  void parse_array(JsonValue& v, int depth) {
    expect('[');
    skip_whitespace();
    if (peek() == ']' && !at_end()) {
      ++pos_;
      return;
    }
    while (true) {
      v.array.push_back(parse_value(depth + 1));
      skip_whitespace();
      if (peek() == ',' && !at_end()) {
        ++pos_;
        continue;
      }
      expect(']');
      return;
    }
  }

  std::string parse_number() {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (!at_end() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0' && !at_end()) {
      ++pos_;
      if (!at_end() && s_[pos_] >= '0' && s_[pos_] <= '9') fail("number with a leading zero");
    } else if (digits() == 0) {
      fail("invalid value");
    }
    if (peek() == '.' && !at_end()) {
      ++pos_;
      if (digits() == 0) fail("expected digits after '.'");
    }
    if ((peek() == 'e' || peek() == 'E') && !at_end()) {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) fail("expected digits in the exponent");
    }
    return std::string(s_.substr(start, pos_ - start));
  }

  unsigned hex4() {
    if (s_.size() - pos_ < 4) fail("truncated \\u escape");
    unsigned cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') cp |= c - '0';
      else if (c >= 'a' && c <= 'f') cp |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') cp |= c - 'A' + 10;
      else fail("invalid \\u escape");
    }
    return cp;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  void parse_escape(std::string& out) {
    if (at_end()) fail("unterminated string");
    const char c = s_[pos_++];
    switch (c) {
      case '"': out += '"'; return;
      case '\\': out += '\\'; return;
      case '/': out += '/'; return;
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'n': out += '\n'; return;
      case 'r': out += '\r'; return;
      case 't': out += '\t'; return;
      case 'u': break;
      default: --pos_; fail("invalid escape");
    }
    unsigned cp = hex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (s_.substr(pos_, 2) != "\\u") fail("high surrogate without its low half");
      pos_ += 2;
      const unsigned low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate without its low half");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, cp);
  }

  // One UTF-8 sequence starting at pos_ (a byte >= 0x80), copied to out.
  void copy_utf8_sequence(std::string& out) {
    const auto b0 = static_cast<unsigned char>(s_[pos_]);
    int length;
    unsigned cp;
    if (b0 >= 0xC2 && b0 <= 0xDF) { length = 2; cp = b0 & 0x1F; }
    else if (b0 >= 0xE0 && b0 <= 0xEF) { length = 3; cp = b0 & 0x0F; }
    else if (b0 >= 0xF0 && b0 <= 0xF4) { length = 4; cp = b0 & 0x07; }
    else fail("invalid UTF-8");
    if (s_.size() - pos_ < static_cast<size_t>(length)) fail("truncated UTF-8 sequence");
    for (int i = 1; i < length; ++i) {
      const auto b = static_cast<unsigned char>(s_[pos_ + i]);
      if ((b & 0xC0) != 0x80) fail("invalid UTF-8");
      cp = (cp << 6) | (b & 0x3F);
    }
    const bool overlong = (length == 3 && cp < 0x800) || (length == 4 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail("invalid UTF-8");
    out.append(s_.substr(pos_, length));
    pos_ += length;
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    while (true) {
      if (at_end()) fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c == '\\') {
        ++pos_;
        parse_escape(out);
      } else if (c < 0x20) {
        fail("control character in string");
      } else if (c >= 0x80) {
        copy_utf8_sequence(out);
      } else {
        out += static_cast<char>(c);
        ++pos_;
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<uint64_t> JsonValue::as_uint64() const {
  if (kind != Kind::Number || text.empty() || text[0] == '-') return std::nullopt;
  uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;  // a fraction or an exponent
    const uint64_t d = static_cast<uint64_t>(c - '0');
    const std::optional<uint64_t> tens = checked_mul(v, uint64_t{10});
    if (!tens || *tens > UINT64_MAX - d) return std::nullopt;
    v = *tens + d;
  }
  return v;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, v] : object)
    if (k == key) return &v;
  return nullptr;
}

const char* json_kind_name(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::Null: return "null";
    case JsonValue::Kind::Bool: return "boolean";
    case JsonValue::Kind::Number: return "number";
    case JsonValue::Kind::String: return "string";
    case JsonValue::Kind::Array: return "array";
    case JsonValue::Kind::Object: return "object";
  }
  return "value";
}

JsonValue parse_json(std::string_view text) { return Parser(text).parse_document(); }

std::string json_quote(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace ember::serialize
