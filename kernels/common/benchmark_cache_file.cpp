#include "ember/kernels/common/benchmark_cache_file.h"

#include <sys/stat.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

#include "ember/core/atomic_file.h"
#include "ember/core/error.h"

namespace ember::bench {
namespace {

constexpr const char* kMagic = "ember-benchmark-cache";
constexpr size_t kMaxFileBytes = 64u << 20;  // far above any real cache; guards against junk
constexpr size_t kMaxResults = 1024;

std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream is(line);
  for (std::string w; is >> w;) words.push_back(std::move(w));
  return words;
}

template <typename T>
bool parse_number(const std::string& s, T& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end;
}

// "<word> <value>" with the expected word; the value has no spaces.
bool parse_field(const std::string& line, const char* word, std::string& value) {
  const std::vector<std::string> w = split_words(line);
  if (w.size() != 2 || w[0] != word) return false;
  value = w[1];
  return true;
}

bool parse_entry(const std::string& line, CacheFile::Entry& e) {
  const std::vector<std::string> w = split_words(line);
  size_t n = 0;
  if (w.size() < 4 || w[0] != "entry" || !parse_number(w[3], n) || n == 0 || n > kMaxResults ||
      w.size() != 4 + 4 * n)
    return false;
  e.pass = w[1];
  e.key = w[2];
  e.results.resize(n);
  for (size_t i = 0; i < n; ++i) {
    AlgoResult& r = e.results[i];
    const std::string* f = &w[4 + 4 * i];
    if (!parse_number(f[0], r.algo) || !parse_number(f[1], r.math_type) ||
        !parse_number(f[2], r.workspace_bytes) || !parse_number(f[3], r.time_ms) ||
        r.algo < 0 || !std::isfinite(r.time_ms) || r.time_ms < 0)
      return false;
  }
  return true;
}

bool fail(std::string& error, std::string msg) {
  error = std::move(msg);
  return false;
}

bool is_word(const std::string& s) {
  return !s.empty() && s.find_first_of(" \t\r\n") == std::string::npos;
}

std::string format_file(const CacheFile& file) {
  EMBER_INTERNAL_ASSERT(is_word(file.backend) && is_word(file.machine_tag),
                        "benchmark cache backend and machine tag must be words: '", file.backend,
                        "', '", file.machine_tag, "'");
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os << kMagic << " " << kCacheFileVersion << "\n"
     << "backend " << file.backend << "\n"
     << "machine " << file.machine_tag << "\n"
     << "key-format " << file.key_format << "\n";
  os << std::setprecision(std::numeric_limits<double>::max_digits10);
  for (const CacheFile::Entry& e : file.entries) {
    EMBER_INTERNAL_ASSERT(is_word(e.pass) && is_word(e.key),
                          "benchmark cache pass and key must be words: '", e.pass, "', '", e.key,
                          "'");
    os << "entry " << e.pass << " " << e.key << " " << e.results.size();
    for (const AlgoResult& r : e.results)
      os << " " << r.algo << " " << r.math_type << " " << r.workspace_bytes << " " << r.time_ms;
    os << "\n";
  }
  os << "end " << file.entries.size() << "\n";
  return os.str();
}

}  // namespace

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool read_cache_file(const std::string& path, CacheFile& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(error, "cannot open it");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || static_cast<size_t>(size) > kMaxFileBytes)
    return fail(error, "unreadable or larger than 64 MiB");
  in.seekg(0);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));

  std::string version, key_format;
  if (lines.empty() || !parse_field(lines[0], kMagic, version))
    return fail(error, "not a benchmark cache (no 'ember-benchmark-cache' line)");
  if (version != std::to_string(kCacheFileVersion))
    return fail(error, "file format version " + version + ", this build reads version " +
                           std::to_string(kCacheFileVersion));
  if (lines.size() < 5 || !parse_field(lines[1], "backend", out.backend) ||
      !parse_field(lines[2], "machine", out.machine_tag) ||
      !parse_field(lines[3], "key-format", key_format) ||
      !parse_number(key_format, out.key_format))
    return fail(error, "corrupt header");
  out.entries.clear();
  for (size_t i = 4; i + 1 < lines.size(); ++i) {
    CacheFile::Entry e;
    if (!parse_entry(lines[i], e))
      return fail(error, "corrupt entry on line " + std::to_string(i + 1));
    out.entries.push_back(std::move(e));
  }
  std::string count;
  size_t n = 0;
  if (!parse_field(lines.back(), "end", count) || !parse_number(count, n) ||
      n != out.entries.size())
    return fail(error, "truncated (no matching 'end' line)");
  return true;
}

void write_cache_file_atomically(const std::string& path, const CacheFile& file) {
  const std::string text = format_file(file);
  try {
    write_file_atomically(path, text);
  } catch (const Error& e) {
    EMBER_ERROR("save_benchmark_cache: ", e.what());
  }
}

}  // namespace ember::bench
