#include "ember/nn/serialize/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <numeric>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/shape.h"
#include "ember/core/atomic_file.h"
#include "ember/nn/serialize/json.h"

namespace ember {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host would need byte swaps");

namespace {

using serialize::JsonValue;

// The reference implementation refuses headers above 100 MB too.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

const char* safetensors_dtype(ScalarType t) {
  switch (t) {
    case kFloat: return "F32";
    case kDouble: return "F64";
    case kHalf: return "F16";
    case kBFloat16: return "BF16";
    case kLong: return "I64";
    case kInt: return "I32";
    case kShort: return "I16";
    case kChar: return "I8";
    case kByte: return "U8";
    case kBool: return "BOOL";
  }
  return "?";
}

std::optional<ScalarType> dtype_from_safetensors(const std::string& name) {
  static const std::pair<const char*, ScalarType> kNames[] = {
      {"F32", kFloat}, {"F64", kDouble}, {"F16", kHalf}, {"BF16", kBFloat16}, {"I64", kLong},
      {"I32", kInt},   {"I16", kShort},  {"I8", kChar},  {"U8", kByte},       {"BOOL", kBool}};
  for (const auto& [text, dtype] : kNames)
    if (name == text) return dtype;
  return std::nullopt;
}

bool is_valid_utf8(const std::string& s) {
  try {
    serialize::parse_json(serialize::json_quote(s));
    return true;
  } catch (const serialize::JsonError&) { return false; }
}

void put_u64_le(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

struct WriteEntry {
  const std::string* name;
  Tensor data;  // contiguous, on the CPU
  uint64_t begin = 0, end = 0;
};

// The JSON header, padded with spaces to a multiple of 8 bytes.
std::string make_header(const std::vector<WriteEntry>& entries,
                        const std::map<std::string, std::string>& metadata) {
  std::string header = "{";
  if (!metadata.empty()) {
    header += serialize::json_quote(kMetadataKey) + ":{";
    bool first = true;
    for (const auto& [key, value] : metadata) {
      if (!first) header += ',';
      first = false;
      header += serialize::json_quote(key) + ":" + serialize::json_quote(value);
    }
    header += '}';
  }
  for (const WriteEntry& e : entries) {
    if (header.size() > 1) header += ',';
    header += serialize::json_quote(*e.name);
    header += ":{\"dtype\":\"";
    header += safetensors_dtype(e.data.scalar_type());
    header += "\",\"shape\":[";
    for (int64_t d = 0; d < e.data.dim(); ++d) {
      if (d) header += ',';
      header += std::to_string(e.data.size(d));
    }
    header += "],\"data_offsets\":[" + std::to_string(e.begin) + "," + std::to_string(e.end);
    header += "]}";
  }
  header += '}';
  header.resize((header.size() + 7) / 8 * 8, ' ');
  return header;
}

}  // namespace

void save_safetensors(const std::string& path, const OrderedDict<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  NoGradGuard no_grad;
  std::vector<WriteEntry> entries;
  entries.reserve(tensors.size());
  for (const auto& item : tensors) {
    const std::string& name = item.key();
    EMBER_CHECK(name != kMetadataKey, "save_safetensors: '", path, "': the name '", kMetadataKey,
                "' is reserved for metadata");
    EMBER_CHECK(is_valid_utf8(name), "save_safetensors: '", path, "': tensor name '", name,
                "' is not valid UTF-8");
    EMBER_CHECK(item.value().defined(), "save_safetensors: '", path, "': tensor '", name,
                "' is undefined");
    entries.push_back({&name, item.value().detach().cpu().contiguous()});
  }
  for (const auto& [key, value] : metadata)
    EMBER_CHECK(is_valid_utf8(key) && is_valid_utf8(value), "save_safetensors: '", path,
                "': metadata entry '", key, "' is not valid UTF-8");

  // Data goes in order of falling element size, so each tensor starts aligned
  // to its element size in the file (as the reference writer does).
  std::vector<size_t> data_order(entries.size());
  std::iota(data_order.begin(), data_order.end(), 0);
  std::stable_sort(data_order.begin(), data_order.end(), [&](size_t a, size_t b) {
    return entries[a].data.element_size() > entries[b].data.element_size();
  });
  uint64_t offset = 0;
  for (const size_t i : data_order) {
    entries[i].begin = offset;
    offset += entries[i].data.nbytes();
    entries[i].end = offset;
  }

  const std::string header = make_header(entries, metadata);
  std::string prefix;
  put_u64_le(prefix, header.size());
  AtomicFileWriter file(path);
  file.write(prefix);
  file.write(header);
  for (const size_t i : data_order)
    file.write(entries[i].data.data_ptr(), entries[i].data.nbytes());
  file.commit();
}

namespace {

// Reads a safetensors file, checking each number of the header before using it.
class SafetensorsReader {
 public:
  explicit SafetensorsReader(std::string path) : path_(std::move(path)) {}
  ~SafetensorsReader() {
    if (fd_ >= 0) ::close(fd_);
  }

  SafetensorsFile read() {
    open_file();
    const uint64_t header_size = read_header_size();
    std::string header(header_size, '\0');
    read_exact(header.data(), header_size, 8);
    data_start_ = 8 + header_size;
    data_size_ = file_size_ - data_start_;

    JsonValue root;
    try {
      root = serialize::parse_json(header);
    } catch (const serialize::JsonError& e) { fail("invalid JSON header: ", e.what()); }
    if (root.kind != JsonValue::Kind::Object)
      fail("the header is a JSON ", serialize::json_kind_name(root.kind), ", not an object");

    SafetensorsFile out;
    std::vector<Entry> entries;
    for (const auto& [name, value] : root.object) {
      if (name == kMetadataKey)
        out.metadata = parse_metadata(value);
      else
        entries.push_back(parse_entry(name, value));
    }
    check_ranges_tile_data(entries);
    for (const Entry& e : entries) out.tensors.insert(e.name, read_tensor(e));
    return out;
  }

 private:
  struct Entry {
    std::string name;
    ScalarType dtype;
    std::vector<int64_t> shape;
    uint64_t begin, end;
  };

  template <typename... Args>
  [[noreturn]] void fail(const Args&... args) const {
    EMBER_ERROR("load_safetensors: '", path_, "': ", args...);
  }

  void open_file() {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot open: ", std::strerror(errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0) fail("cannot stat: ", std::strerror(errno));
    if (!S_ISREG(st.st_mode)) fail("not a regular file");
    file_size_ = static_cast<uint64_t>(st.st_size);
  }

  void read_exact(void* dst, uint64_t size, uint64_t offset) const {
    char* p = static_cast<char*>(dst);
    while (size > 0) {
      const ssize_t n = ::pread(fd_, p, size, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("read failed at byte ", offset, ": ", std::strerror(errno));
      if (n == 0) fail("file ended at byte ", offset, " while reading (was it truncated?)");
      p += n;
      size -= static_cast<uint64_t>(n);
      offset += static_cast<uint64_t>(n);
    }
  }

  uint64_t read_header_size() const {
    if (file_size_ < 8)
      fail("file is too short (", file_size_, " bytes) to hold the 8-byte header length");
    unsigned char bytes[8];
    read_exact(bytes, 8, 0);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
    if (n > kMaxHeaderBytes)
      fail("header length ", n, " is absurd (the limit is ", kMaxHeaderBytes,
           " bytes): not a safetensors file?");
    if (n > file_size_ - 8)
      fail("header length ", n, " exceeds the ", file_size_ - 8,
           " bytes after the length field (truncated file?)");
    return n;
  }

  std::map<std::string, std::string> parse_metadata(const JsonValue& v) const {
    if (v.kind != JsonValue::Kind::Object)
      fail("'", kMetadataKey, "' must be an object of strings, not a ",
           serialize::json_kind_name(v.kind));
    std::map<std::string, std::string> out;
    for (const auto& [key, value] : v.object) {
      if (value.kind != JsonValue::Kind::String)
        fail("metadata '", key, "' must be a string, not a ",
             serialize::json_kind_name(value.kind));
      out.emplace(key, value.text);
    }
    return out;
  }

  Entry parse_entry(const std::string& name, const JsonValue& v) const {
    if (v.kind != JsonValue::Kind::Object)
      fail("tensor '", name, "': expected an object, got a ", serialize::json_kind_name(v.kind));
    for (const auto& [key, value] : v.object)
      if (key != "dtype" && key != "shape" && key != "data_offsets")
        fail("tensor '", name, "': unknown field '", key, "'");
    const JsonValue* dtype = v.find("dtype");
    const JsonValue* shape = v.find("shape");
    const JsonValue* offsets = v.find("data_offsets");
    if (!dtype || !shape || !offsets)
      fail("tensor '", name, "': missing field '",
           !dtype   ? "dtype"
           : !shape ? "shape"
                    : "data_offsets",
           "'");

    Entry e{name, kFloat, {}, 0, 0};
    if (dtype->kind != JsonValue::Kind::String) fail("tensor '", name, "': dtype must be a string");
    const auto parsed_dtype = dtype_from_safetensors(dtype->text);
    if (!parsed_dtype)
      fail("tensor '", name, "': unsupported dtype '", dtype->text,
           "' (ember reads F32, F64, F16, BF16, I64, I32, I16, I8, U8, BOOL)");
    e.dtype = *parsed_dtype;

    if (shape->kind != JsonValue::Kind::Array) fail("tensor '", name, "': shape must be an array");
    for (const JsonValue& d : shape->array) {
      const auto size = d.as_uint64();
      if (!size || *size > static_cast<uint64_t>(INT64_MAX))
        fail("tensor '", name, "': shape entries must be non-negative integers");
      e.shape.push_back(static_cast<int64_t>(*size));
    }
    // A zero size must not hide an overflow of the others (Note [Checked sizes]).
    const std::optional<int64_t> numel = checked_numel(e.shape);
    if (!numel)
      fail("tensor '", name, "': shape ", IntArrayRef(e.shape),
           " overflows int64 (the product of its sizes, a zero counted as one)");
    const std::optional<uint64_t> nbytes =
        checked_mul(static_cast<uint64_t>(*numel), static_cast<uint64_t>(element_size(e.dtype)));
    if (!nbytes)
      fail("tensor '", name, "': the byte count of shape ", IntArrayRef(e.shape), " overflows");

    const auto begin = offsets->kind == JsonValue::Kind::Array && offsets->array.size() == 2
                           ? offsets->array[0].as_uint64()
                           : std::nullopt;
    const auto end = begin ? offsets->array[1].as_uint64() : std::nullopt;
    if (!begin || !end)
      fail("tensor '", name, "': data_offsets must be two non-negative integers [begin, end]");
    e.begin = *begin;
    e.end = *end;
    if (e.begin > e.end)
      fail("tensor '", name, "': data_offsets [", e.begin, ", ", e.end, "] are reversed");
    if (e.end > data_size_)
      fail("tensor '", name, "': data_offsets [", e.begin, ", ", e.end,
           "] run past the end of the data buffer (", data_size_, " bytes)");
    if (e.end - e.begin != *nbytes)
      fail("tensor '", name, "': data_offsets [", e.begin, ", ", e.end, "] hold ", e.end - e.begin,
           " bytes but dtype ", dtype->text, " and shape ", IntArrayRef(e.shape), " need ",
           *nbytes);
    return e;
  }

  // safetensors requires the ranges to cover the data buffer without gaps or overlaps.
  void check_ranges_tile_data(const std::vector<Entry>& entries) const {
    std::vector<const Entry*> sorted;
    for (const Entry& e : entries) sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) {
      return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    uint64_t covered = 0;
    const Entry* previous = nullptr;
    for (const Entry* e : sorted) {
      if (e->begin < covered)
        fail("data ranges of '", previous->name, "' [", previous->begin, ", ", previous->end,
             ") and '", e->name, "' [", e->begin, ", ", e->end, ") overlap");
      if (e->begin > covered)
        fail("bytes [", covered, ", ", e->begin, ") of the data buffer belong to no tensor");
      covered = e->end;
      previous = e;
    }
    if (covered != data_size_)
      fail("bytes [", covered, ", ", data_size_, ") of the data buffer belong to no tensor");
  }

  Tensor read_tensor(const Entry& e) const {
    Tensor t = empty(e.shape, e.dtype);
    read_exact(t.data_ptr(), e.end - e.begin, data_start_ + e.begin);
    if (e.dtype == kBool) {
      // Any byte but 0 or 1 would be an invalid C++ bool.
      const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
      for (int64_t i = 0; i < t.numel(); ++i)
        if (bytes[i] > 1)
          fail("tensor '", e.name, "': BOOL element ", i, " has the byte value ",
               static_cast<int>(bytes[i]), " (must be 0 or 1)");
    }
    return t;
  }

  std::string path_;
  int fd_ = -1;
  uint64_t file_size_ = 0;
  uint64_t data_start_ = 0;
  uint64_t data_size_ = 0;
};

}  // namespace

SafetensorsFile load_safetensors(const std::string& path) { return SafetensorsReader(path).read(); }

}  // namespace ember
