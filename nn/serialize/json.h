#pragma once
// A small strict JSON (RFC 8259) reader and string quoting for the
// safetensors header. Strict: no trailing commas, comments, NaN, leading
// zeros or control characters in strings; invalid UTF-8 and duplicate object
// keys are errors; nesting is capped so a hostile header cannot overflow the stack.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ember::serialize {

struct JsonMember;  // an object's key and value, defined below JsonValue

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text;  // a String's value, or a Number's literal as written
  std::vector<JsonValue> array;
  // A named struct, not std::pair<std::string, JsonValue>: a pair cannot be
  // instantiated while JsonValue is still incomplete, which clang refuses.
  std::vector<JsonMember> object;  // in document order

  // A Number written as a non-negative integer that fits in uint64_t.
  std::optional<uint64_t> as_uint64() const;
  const JsonValue* find(std::string_view key) const;  // Object member, or nullptr
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

const char* json_kind_name(JsonValue::Kind kind);  // "object", "string", ...

// Thrown by parse_json with the byte offset of the problem in what().
class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses one JSON value; only whitespace may follow it.
JsonValue parse_json(std::string_view text);

// s as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

}  // namespace ember::serialize
