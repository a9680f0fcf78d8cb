// Fuzzes the strict JSON reader behind the safetensors header. Its own
// JsonError is the expected answer here (the safetensors loader turns it into
// an ember::Error naming the file); anything else is a defect.
#include <ember/nn/serialize/json.h>

#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember::serialize;
  try {
    const JsonValue v = parse_json({reinterpret_cast<const char*>(data), size});
    // Quoting is the writer's half: every string read must quote and read back equal.
    if (v.kind == JsonValue::Kind::String && parse_json(json_quote(v.text)).text != v.text)
      __builtin_trap();
  } catch (const JsonError&) {
  }
  return 0;
}
