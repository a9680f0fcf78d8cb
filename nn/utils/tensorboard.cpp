#include "ember/nn/utils/tensorboard.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ember/core/error.h"
#include "ember/nn/utils/crc32c.h"

namespace ember::utils::tensorboard {
namespace {

// Protobuf wire types.
constexpr int kVarint = 0;
constexpr int kFixed64 = 1;
constexpr int kLengthDelimited = 2;
constexpr int kFixed32 = 5;

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
void put_key(std::string& out, int field, int wire_type) {
  put_varint(out, static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire_type));
}
template <typename T>
void put_fixed(std::string& out, T value) {  // little-endian, as protobuf and TFRecord want
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
}
void put_bytes(std::string& out, int field, const std::string& bytes) {
  put_key(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out += bytes;
}

// Event { double wall_time = 1; int64 step = 2; oneof { string file_version = 3; Summary summary =
// 5; } }
std::string event_header(double wall_time, int64_t step) {
  std::string event;
  put_key(event, 1, kFixed64);
  put_fixed(event, wall_time);
  put_key(event, 2, kVarint);
  put_varint(event, static_cast<uint64_t>(step));  // int64: negatives take 10 bytes
  return event;
}

// Summary { repeated Value value = 1; }  Value { string tag = 1; float simple_value = 2; }
std::string scalar_summary(const std::string& tag, float value) {
  std::string v;
  put_bytes(v, 1, tag);
  put_key(v, 2, kFixed32);
  put_fixed(v, value);
  std::string summary;
  put_bytes(summary, 1, v);
  return summary;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

SummaryWriter::SummaryWriter(const std::string& log_dir, double flush_secs)
    : log_dir_(log_dir),
      flush_interval_(flush_secs),
      last_flush_(std::chrono::steady_clock::now()) {
  std::error_code ec;
  std::filesystem::create_directories(log_dir_, ec);
  EMBER_CHECK(!ec, "SummaryWriter: cannot create log directory '", log_dir_, "': ", ec.message());
  const double start = now_seconds();
  const std::string base =
      (std::filesystem::path(log_dir_) /
       ("events.out.tfevents." + std::to_string(static_cast<int64_t>(start)) + "." + hostname()))
          .string();
  // A second writer in the same second gets ".1", ".2", ...: never append to another's file.
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    file_path_ = attempt == 0 ? base : base + "." + std::to_string(attempt);
    fd = ::open(file_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    EMBER_CHECK(fd >= 0 || errno == EEXIST, "SummaryWriter: cannot create '", file_path_,
                "': ", std::strerror(errno));
  }
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int err = errno;
    ::close(fd);
    EMBER_ERROR("SummaryWriter: cannot open '", file_path_, "': ", std::strerror(err));
  }
  std::string event = event_header(start, 0);
  put_bytes(event, 3, "brain.Event:2");
  try {
    write_record(event);
    flush_locked();
  } catch (...) {
    std::fclose(file_);
    throw;
  }
}

SummaryWriter::~SummaryWriter() {
  if (file_) std::fclose(file_);  // flushes; a destructor must not throw
}

void SummaryWriter::add_scalar(const std::string& tag, double value, int64_t step,
                               std::optional<double> wall_time) {
  std::string event = event_header(wall_time.value_or(now_seconds()), step);
  put_bytes(event, 5, scalar_summary(tag, static_cast<float>(value)));
  std::lock_guard<std::mutex> lock(mutex_);
  write_record(event);
  if (std::chrono::steady_clock::now() - last_flush_ >= flush_interval_) flush_locked();
}

void SummaryWriter::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  flush_locked();
}

void SummaryWriter::flush_locked() {
  EMBER_CHECK(std::fflush(file_) == 0, "SummaryWriter: cannot write '", file_path_,
              "': ", std::strerror(errno));
  last_flush_ = std::chrono::steady_clock::now();
}

// TFRecord: u64 length, u32 masked crc of the length's 8 bytes, data, u32 masked crc of data.
void SummaryWriter::write_record(const std::string& event) {
  std::string record;
  record.reserve(event.size() + 16);
  put_fixed(record, static_cast<uint64_t>(event.size()));
  put_fixed(record, mask_crc32c(crc32c(std::string_view(record.data(), 8))));
  record += event;
  put_fixed(record, mask_crc32c(crc32c(event)));
  EMBER_CHECK(std::fwrite(record.data(), 1, record.size(), file_) == record.size(),
              "SummaryWriter: cannot write '", file_path_, "': ", std::strerror(errno));
}

}  // namespace ember::utils::tensorboard
