#pragma once
// TensorBoard event files, as torch.utils.tensorboard.SummaryWriter writes
// them, so `tensorboard --logdir <log_dir>` shows ember's curves:
//   <log_dir>/events.out.tfevents.<unix time>.<hostname>
// holds TFRecords (u64 length, masked CRC-32C of the length, data, masked
// CRC-32C of the data), each an Event protobuf encoded by hand: the first
// carries file_version "brain.Event:2", the others one Summary.Value each.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace ember::utils::tensorboard {

class SummaryWriter {
 public:
  // Creates log_dir when missing. Buffered events reach the file at flush(),
  // at destruction, and whenever flush_secs have passed since the last flush.
  explicit SummaryWriter(const std::string& log_dir = "runs", double flush_secs = 10);
  ~SummaryWriter();
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  // wall_time in seconds since the Unix epoch; now when not given. Thread-safe.
  void add_scalar(const std::string& tag, double value, int64_t step,
                  std::optional<double> wall_time = std::nullopt);
  void flush();

  const std::string& log_dir() const { return log_dir_; }
  const std::string& file_path() const { return file_path_; }

 private:
  void write_record(const std::string& event);
  void flush_locked();

  std::string log_dir_;
  std::string file_path_;
  std::FILE* file_ = nullptr;
  std::chrono::duration<double> flush_interval_;
  std::chrono::steady_clock::time_point last_flush_;
  std::mutex mutex_;
};

}  // namespace ember::utils::tensorboard
