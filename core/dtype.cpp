#include "ember/core/dtype.h"

namespace ember {

const char* dtype_name(ScalarType t) {
  switch (t) {
    case kBool: return "bool";
    case kByte: return "uint8";
    case kChar: return "int8";
    case kShort: return "int16";
    case kInt: return "int32";
    case kLong: return "int64";
    case kHalf: return "float16";
    case kBFloat16: return "bfloat16";
    case kFloat: return "float32";
    case kDouble: return "float64";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

void dtype_not_supported(const char* op, ScalarType t, const char* which) {
  EMBER_ERROR(op, ": dtype ", t, " is not supported (expected ", which, ")");
}

}  // namespace ember
