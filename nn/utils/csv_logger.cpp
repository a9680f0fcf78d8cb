#include "ember/nn/utils/csv_logger.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <set>

#include "ember/core/error.h"

namespace ember::utils {
namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string format_double(double v) {
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, result.ptr);
}

std::string first_line(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

CsvLogger::CsvLogger(const std::string& path, std::vector<std::string> columns, bool append)
    : path_(path), columns_(std::move(columns)) {
  std::set<std::string> seen{"step"};
  for (const std::string& c : columns_)
    EMBER_CHECK(seen.insert(c).second, "CsvLogger: '", path_, "': column '", c, "' is given twice",
                c == "step" ? " ('step' is always the first column)" : "");
  std::string header = "step";
  for (const std::string& c : columns_) {
    header += ',';
    header += csv_field(c);
  }

  const std::string existing = append ? first_line(path_) : std::string();
  EMBER_CHECK(existing.empty() || existing == header, "CsvLogger: '", path_,
              "': cannot append, its header '", existing, "' differs from '", header, "'");
  file_ = std::fopen(path_.c_str(), append ? "ab" : "wb");
  EMBER_CHECK(file_ != nullptr, "CsvLogger: cannot open '", path_, "': ", std::strerror(errno));
  if (existing.empty()) {
    try {
      write_line(header);
    } catch (...) {
      std::fclose(file_);
      throw;
    }
  }
}

CsvLogger::~CsvLogger() {
  if (file_) std::fclose(file_);
}

void CsvLogger::log(int64_t step, const std::map<std::string, double>& values) {
  size_t used = 0;
  std::string line = std::to_string(step);
  for (const std::string& c : columns_) {
    line += ',';
    const auto it = values.find(c);
    if (it == values.end()) continue;
    line += format_double(it->second);
    ++used;
  }
  if (used != values.size()) {
    for (const auto& [key, value] : values) {
      bool known = false;
      for (const std::string& c : columns_) known = known || c == key;
      EMBER_CHECK(known, "CsvLogger: '", path_, "': '", key,
                  "' is not one of the columns given at construction");
    }
  }
  write_line(line);
}

void CsvLogger::write_line(const std::string& line) {
  const bool ok = std::fwrite(line.data(), 1, line.size(), file_) == line.size() &&
                  std::fputc('\n', file_) != EOF && std::fflush(file_) == 0;
  EMBER_CHECK(ok, "CsvLogger: cannot write '", path_, "': ", std::strerror(errno));
}

}  // namespace ember::utils
