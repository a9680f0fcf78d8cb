#pragma once
// A CSV log of training scalars: a header "step,<columns...>" and one row per
// log() call, flushed at once so a crashed run keeps every row it logged.
// A column without a value in a row is left empty.
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace ember::utils {

class CsvLogger {
 public:
  // append = true continues an existing file (a resumed run); its header must
  // name the same columns. Otherwise the file is created or truncated.
  CsvLogger(const std::string& path, std::vector<std::string> columns, bool append = false);
  ~CsvLogger();
  CsvLogger(const CsvLogger&) = delete;
  CsvLogger& operator=(const CsvLogger&) = delete;

  // Error on a key that is not a column. Values print in the shortest form
  // that reads back to the same double.
  void log(int64_t step, const std::map<std::string, double>& values);

  const std::string& path() const { return path_; }
  const std::vector<std::string>& columns() const { return columns_; }

 private:
  void write_line(const std::string& line);

  std::string path_;
  std::vector<std::string> columns_;
  std::FILE* file_ = nullptr;
};

}  // namespace ember::utils
