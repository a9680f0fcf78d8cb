#include "ember/nn/data/cifar10.h"

#include <filesystem>

#include "ember/core/error.h"
#include "ember/nn/data/file_bytes.h"

namespace ember::data {

namespace {

constexpr int64_t kNumClasses = 10;
constexpr int64_t kImageBytes = CIFAR10::kRecordBytes - 1;

std::vector<std::string> split_files(const std::string& root, Split split) {
  std::vector<std::string> names;
  if (split == Split::kTrain)
    for (int i = 1; i <= 5; ++i) names.push_back("data_batch_" + std::to_string(i) + ".bin");
  else
    names.push_back("test_batch.bin");
  // Use the folder that holds the first file: root itself or the tarball's subfolder.
  std::string dir = root;
  if (!std::filesystem::exists(dir + "/" + names[0]) &&
      std::filesystem::exists(root + "/cifar-10-batches-bin/" + names[0]))
    dir = root + "/cifar-10-batches-bin";
  std::vector<std::string> files;
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    EMBER_CHECK(std::filesystem::exists(path), "CIFAR10: missing file ", path);
    files.push_back(path);
  }
  return files;
}

ImageBytes read_records(const std::vector<std::string>& files) {
  EMBER_CHECK(!files.empty(), "CIFAR10: no files given");
  ImageBytes r;
  r.shape = {3, 32, 32};
  for (const std::string& path : files) {
    const FileBytes f = read_file_bytes(path, "CIFAR10");
    const char* kind = f.gzipped ? " (uncompressed)" : "";
    const size_t n = f.bytes.size();
    EMBER_CHECK(n > 0, "CIFAR10: ", path, " is empty");
    const size_t whole = n / CIFAR10::kRecordBytes * CIFAR10::kRecordBytes;
    EMBER_CHECK(whole == n, "CIFAR10: ", path, " ends in a truncated record at byte offset ", whole,
                kind, ": ", n - whole, " of ", CIFAR10::kRecordBytes, " bytes");
    r.pixels.reserve(r.pixels.size() + n / CIFAR10::kRecordBytes * kImageBytes);
    for (size_t at = 0; at < n; at += CIFAR10::kRecordBytes) {
      const uint8_t label = f.bytes[at];
      EMBER_CHECK(label < kNumClasses, "CIFAR10: ", path, ": label ", int(label),
                  " at byte offset ", at, kind, " is out of range [0, ", kNumClasses, ")");
      r.labels.push_back(label);
      r.pixels.insert(r.pixels.end(), f.bytes.begin() + at + 1,
                      f.bytes.begin() + at + CIFAR10::kRecordBytes);
    }
  }
  return r;
}

}  // namespace

CIFAR10::CIFAR10(const std::string& root, Split split)
    : CIFAR10(read_records(split_files(root, split))) {}

CIFAR10 CIFAR10::from_files(const std::vector<std::string>& files) {
  return CIFAR10(read_records(files));
}

const char* CIFAR10::class_name(int64_t label) {
  static const char* const kNames[kNumClasses] = {
      "airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
  EMBER_CHECK(label >= 0 && label < kNumClasses, "CIFAR10::class_name: label ", label,
              " is out of range [0, ", kNumClasses, ")");
  return kNames[label];
}

}  // namespace ember::data
