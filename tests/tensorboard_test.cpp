// Logging (nn/utils): CRC-32C against its published check value, TensorBoard
// event files decoded by a TFRecord + protobuf reader written here (both CRCs,
// tags, steps, values), and the CSV logger's rows, flushing and errors.
#include "test_helpers.h"

#include <ember/nn/utils/crc32c.h>
#include <ember/nn/utils/csv_logger.h>
#include <ember/nn/utils/tensorboard.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace ember;
using namespace ember::utils;
namespace fs = std::filesystem;

namespace {


std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Bit-at-a-time CRC-32C, the definition itself: a reference for the table version.
uint32_t reference_crc32c(const std::string& s) {
  uint32_t crc = 0xFFFFFFFFu;
  for (const unsigned char byte : s) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
  }
  return ~crc;
}
uint32_t reference_masked(const std::string& s) {
  const uint32_t crc = reference_crc32c(s);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

template <typename T>
T read_le(const std::string& s, size_t pos) {
  REQUIRE(pos + sizeof(T) <= s.size());
  T v;
  std::memcpy(&v, s.data() + pos, sizeof(T));
  return v;
}

// The TFRecord payloads of a file, each CRC checked.
std::vector<std::string> read_records(const std::string& bytes) {
  std::vector<std::string> records;
  size_t pos = 0;
  while (pos < bytes.size()) {
    const uint64_t length = read_le<uint64_t>(bytes, pos);
    REQUIRE(read_le<uint32_t>(bytes, pos + 8) == reference_masked(bytes.substr(pos, 8)));
    REQUIRE(pos + 12 + length + 4 <= bytes.size());
    const std::string data = bytes.substr(pos + 12, length);
    REQUIRE(read_le<uint32_t>(bytes, pos + 12 + length) == reference_masked(data));
    records.push_back(data);
    pos += 12 + length + 4;
  }
  return records;
}

// One protobuf field: number, wire type, and its value (varint, fixed bits or bytes).
struct Field {
  int number;
  int wire_type;
  uint64_t scalar = 0;
  std::string bytes;
};

uint64_t read_varint(const std::string& s, size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    REQUIRE(pos < s.size());
    REQUIRE(shift < 64);
    const auto b = static_cast<unsigned char>(s[pos++]);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) return v;
  }
}

std::vector<Field> read_message(const std::string& s) {
  std::vector<Field> fields;
  size_t pos = 0;
  while (pos < s.size()) {
    const uint64_t key = read_varint(s, pos);
    Field f{static_cast<int>(key >> 3), static_cast<int>(key & 7)};
    switch (f.wire_type) {
      case 0: f.scalar = read_varint(s, pos); break;
      case 1:
        f.scalar = read_le<uint64_t>(s, pos);
        pos += 8;
        break;
      case 5:
        f.scalar = read_le<uint32_t>(s, pos);
        pos += 4;
        break;
      case 2: {
        const uint64_t n = read_varint(s, pos);
        REQUIRE(pos + n <= s.size());
        f.bytes = s.substr(pos, n);
        pos += n;
        break;
      }
      default: FAIL("unexpected wire type " << f.wire_type);
    }
    fields.push_back(f);
  }
  return fields;
}

const Field& field(const std::vector<Field>& fields, int number, int wire_type) {
  for (const Field& f : fields)
    if (f.number == number) {
      REQUIRE(f.wire_type == wire_type);
      return f;
    }
  FAIL("no field " << number);
  throw;
}

struct ScalarEvent {
  double wall_time;
  int64_t step;
  std::string tag;
  float value;
};

// Event{wall_time=1, step=2, summary=5{value=1{tag=1, simple_value=2}}}.
ScalarEvent decode_scalar_event(const std::string& record) {
  const auto event = read_message(record);
  ScalarEvent e;
  e.wall_time = std::bit_cast<double>(field(event, 1, 1).scalar);
  e.step = static_cast<int64_t>(field(event, 2, 0).scalar);
  const auto summary = read_message(field(event, 5, 2).bytes);
  REQUIRE(summary.size() == 1);
  const auto value = read_message(field(summary, 1, 2).bytes);
  e.tag = field(value, 1, 2).bytes;
  e.value = std::bit_cast<float>(static_cast<uint32_t>(field(value, 2, 5).scalar));
  return e;
}

std::vector<std::string> event_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("crc32c matches the CRC-32C check value and a bitwise reference", "[tensorboard]") {
  REQUIRE(crc32c("123456789") == 0xE3069283u);
  REQUIRE(crc32c("") == 0u);
  REQUIRE(crc32c(std::string(32, '\0')) == 0x8A9136AAu);  // RFC 3720 B.4: 32 zero bytes
  REQUIRE(crc32c("56789", crc32c("1234")) == 0xE3069283u);
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += static_cast<char>((i * 37 + 11) & 0xFF);
  REQUIRE(crc32c(bytes) == reference_crc32c(bytes));
  REQUIRE(mask_crc32c(0) == 0xa282ead8u);
  REQUIRE(mask_crc32c(0x00008000u) == 0xa282ead9u);  // bit 15 rotates to bit 0
}

TEST_CASE("SummaryWriter writes TFRecord-framed Event protobufs TensorBoard can read",
          "[tensorboard]") {
  ember_test::TempDir dir("tensorboard_test");
  const std::string log_dir = dir.file("run1");  // created by the writer
  std::string path;
  {
    tensorboard::SummaryWriter writer(log_dir);
    path = writer.file_path();
    writer.add_scalar("train/loss", 0.5, 1, 1000.25);
    writer.add_scalar("test/accuracy", 0.875, 2, 1001.5);
    writer.add_scalar("lr", 1e-3, 1234567890123LL, 1002.0);
    writer.add_scalar("delta", -2.0, -1, 1003.0);
  }  // the destructor flushes
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  const std::string name = fs::path(path).filename().string();
  REQUIRE(fs::path(path).parent_path() == fs::path(log_dir));
  REQUIRE(name.rfind("events.out.tfevents.", 0) == 0);
  REQUIRE(name.size() > std::string(host).size());
  REQUIRE(name.substr(name.size() - std::strlen(host)) == host);

  const std::vector<std::string> records = read_records(read_bytes(path));
  REQUIRE(records.size() == 5);
  const auto first = read_message(records[0]);
  REQUIRE(field(first, 3, 2).bytes == "brain.Event:2");
  REQUIRE(std::bit_cast<double>(field(first, 1, 1).scalar) > 1.6e9);  // a current Unix time

  const std::vector<ScalarEvent> want = {{1000.25, 1, "train/loss", 0.5f},
                                         {1001.5, 2, "test/accuracy", 0.875f},
                                         {1002.0, 1234567890123LL, "lr", 1e-3f},
                                         {1003.0, -1, "delta", -2.0f}};
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("event " << i + 1);
    const ScalarEvent got = decode_scalar_event(records[i + 1]);
    REQUIRE(got.wall_time == want[i].wall_time);
    REQUIRE(got.step == want[i].step);
    REQUIRE(got.tag == want[i].tag);
    REQUIRE(got.value == want[i].value);
  }
}

TEST_CASE("SummaryWriter flush() makes events readable while it stays open", "[tensorboard]") {
  ember_test::TempDir dir("tensorboard_test");
  tensorboard::SummaryWriter writer(dir.str(), /*flush_secs=*/3600);
  writer.add_scalar("loss", 2.5, 7);
  writer.flush();
  const auto records = read_records(read_bytes(writer.file_path()));
  REQUIRE(records.size() == 2);
  const ScalarEvent e = decode_scalar_event(records[1]);
  REQUIRE(e.step == 7);
  REQUIRE(e.value == 2.5f);
}

TEST_CASE("two SummaryWriters on one directory write separate files", "[tensorboard]") {
  ember_test::TempDir dir("tensorboard_test");
  tensorboard::SummaryWriter a(dir.str());
  tensorboard::SummaryWriter b(dir.str());
  REQUIRE(a.file_path() != b.file_path());
  REQUIRE(event_files(dir.str()).size() == 2);
}

TEST_CASE("SummaryWriter names a log directory it cannot create", "[tensorboard]") {
  ember_test::TempDir dir("tensorboard_test");
  std::ofstream(dir.file("plain_file")) << "x";
  REQUIRE_THROWS_WITH(tensorboard::SummaryWriter(dir.file("plain_file/run")),
                      Catch::Contains("SummaryWriter: cannot create log directory '" +
                                      dir.file("plain_file/run") + "'"));
}

TEST_CASE("CsvLogger writes a header and one flushed row per step, empty where missing",
          "[tensorboard]") {
  ember_test::TempDir dir("tensorboard_test");
  const std::string path = dir.file("log.csv");
  CsvLogger log(path, {"train_loss", "test_acc", "lr, peak"});
  log.log(1, {{"train_loss", 0.1}, {"lr, peak", 1e-5}});
  // Flushed: readable while the logger is open.
  REQUIRE(lines_of(path) ==
          std::vector<std::string>{"step,train_loss,test_acc,\"lr, peak\"", "1,0.1,,1e-05"});
  log.log(2, {{"test_acc", 0.875}, {"train_loss", std::nan("")}});
  log.log(3, {});
  REQUIRE(lines_of(path) == std::vector<std::string>{"step,train_loss,test_acc,\"lr, peak\"",
                                                     "1,0.1,,1e-05", "2,nan,0.875,", "3,,,"});
}

TEST_CASE("CsvLogger append continues a resumed run and checks its header", "[tensorboard]") {
  ember_test::TempDir dir("tensorboard_test");
  const std::string path = dir.file("log.csv");
  { CsvLogger(path, {"loss"}).log(1, {{"loss", 2.0}}); }
  { CsvLogger(path, {"loss"}, /*append=*/true).log(2, {{"loss", 1.5}}); }
  REQUIRE(lines_of(path) == std::vector<std::string>{"step,loss", "1,2", "2,1.5"});
  REQUIRE_THROWS_WITH(
      CsvLogger(path, {"acc"}, true),
      Catch::Contains("cannot append, its header 'step,loss' differs from 'step,acc'"));
  { CsvLogger(dir.file("new.csv"), {"loss"}, true).log(5, {{"loss", 0.25}}); }
  REQUIRE(lines_of(dir.file("new.csv")) == std::vector<std::string>{"step,loss", "5,0.25"});
}

TEST_CASE("CsvLogger errors name the file and the column", "[tensorboard]") {
  ember_test::TempDir dir("tensorboard_test");
  const std::string path = dir.file("log.csv");
  REQUIRE_THROWS_WITH(CsvLogger(path, {"a", "a"}), Catch::Contains("column 'a' is given twice"));
  REQUIRE_THROWS_WITH(CsvLogger(path, {"step"}),
                      Catch::Contains("'step' is always the first column"));
  CsvLogger log(path, {"loss"});
  REQUIRE_THROWS_WITH(
      log.log(1, {{"acc", 1.0}}),
      Catch::Contains("CsvLogger: '" + path + "': 'acc' is not one of the columns"));
  REQUIRE_THROWS_WITH(CsvLogger(dir.file("missing/log.csv"), {"loss"}),
                      Catch::Contains("CsvLogger: cannot open '" + dir.file("missing/log.csv") +
                                      "': No such file or directory"));
}
