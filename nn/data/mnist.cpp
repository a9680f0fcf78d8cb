#include "ember/nn/data/mnist.h"

#include <filesystem>

#include "ember/core/error.h"
#include "ember/nn/data/file_bytes.h"

namespace ember::data {

namespace {

constexpr uint32_t kImagesMagic = 2051, kLabelsMagic = 2049;
constexpr int64_t kNumClasses = 10;

uint32_t read_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

const char* offset_kind(const FileBytes& f) { return f.gzipped ? " (uncompressed)" : ""; }

// Checks the magic and that the header (4 + 4 * dims bytes) is there; returns the dims.
std::vector<uint32_t> read_idx_header(const std::string& who, const FileBytes& f, uint32_t magic,
                                      int dims) {
  const size_t header = 4 + 4 * static_cast<size_t>(dims);
  EMBER_CHECK(f.bytes.size() >= 4, who, ": ", f.path, " is truncated: ", f.bytes.size(),
              " bytes, the IDX magic number needs 4 at byte offset 0");
  const uint32_t got = read_be32(f.bytes.data());
  EMBER_CHECK(got == magic, who, ": ", f.path, ": wrong magic number ", got,
              " at byte offset 0 (expected ", magic, " for an IDX ",
              magic == kImagesMagic ? "images" : "labels", " file)");
  EMBER_CHECK(f.bytes.size() >= header, who, ": ", f.path,
              " is truncated in its header: ", f.bytes.size(), " bytes", offset_kind(f),
              ", the header ends at byte offset ", header);
  std::vector<uint32_t> sizes;
  for (int d = 0; d < dims; ++d) sizes.push_back(read_be32(f.bytes.data() + 4 + 4 * d));
  return sizes;
}

// Checks that the payload after the header is exactly `payload` bytes.
void check_payload(const std::string& who, const FileBytes& f, size_t header, uint64_t payload,
                   const char* what) {
  const uint64_t want = header + payload;
  EMBER_CHECK(f.bytes.size() >= want, who, ": ", f.path, " is truncated: its header promises ",
              what, " up to byte offset ", want, offset_kind(f),
              " but the data ends at byte offset ", f.bytes.size());
  EMBER_CHECK(f.bytes.size() == want, who, ": ", f.path, " has ", f.bytes.size() - want,
              " unexpected bytes after the ", what, " at byte offset ", want, offset_kind(f));
}

std::string idx_path(const std::string& who, const std::string& root, Split split,
                     const char* kind) {
  const std::string base =
      root + "/" + (split == Split::kTrain ? "train" : "t10k") + "-" + kind + "-ubyte";
  if (std::filesystem::exists(base)) return base;
  if (std::filesystem::exists(base + ".gz")) return base + ".gz";
  EMBER_ERROR(who, ": missing file ", base, " (nor ", base, ".gz)");
}

ImageBytes read_idx_split(const std::string& who, const std::string& root, Split split) {
  const std::string images = idx_path(who, root, split, "images-idx3");
  return read_idx_files(who, images, idx_path(who, root, split, "labels-idx1"));
}

}  // namespace

ImageBytes read_idx_files(const std::string& who, const std::string& images_file,
                          const std::string& labels_file) {
  FileBytes images = read_file_bytes(images_file, who);
  const std::vector<uint32_t> dims = read_idx_header(who, images, kImagesMagic, 3);
  const uint64_t count = dims[0], rows = dims[1], cols = dims[2];
  // The bound keeps count * rows * cols within 64 bits for any header.
  EMBER_CHECK(rows >= 1 && rows <= 65536 && cols >= 1 && cols <= 65536, who, ": ", images_file,
              ": image size ", rows, "x", cols, " at byte offset 8 is not in 1..65536");
  check_payload(who, images, 16, count * rows * cols, "pixels");

  FileBytes labels = read_file_bytes(labels_file, who);
  const uint32_t label_count = read_idx_header(who, labels, kLabelsMagic, 1)[0];
  check_payload(who, labels, 8, label_count, "labels");
  EMBER_CHECK(label_count == count, who, ": ", images_file, " has ", count, " images but ",
              labels_file, " has ", label_count, " labels");
  for (size_t i = 8; i < labels.bytes.size(); ++i)
    EMBER_CHECK(labels.bytes[i] < kNumClasses, who, ": ", labels_file, ": label ",
                int(labels.bytes[i]), " at byte offset ", i, offset_kind(labels),
                " is out of range [0, ", kNumClasses, ")");

  ImageBytes out;
  out.shape = {1, static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
  // Drop the headers in place: no second 47 MB buffer.
  images.bytes.erase(images.bytes.begin(), images.bytes.begin() + 16);
  labels.bytes.erase(labels.bytes.begin(), labels.bytes.begin() + 8);
  out.pixels = std::move(images.bytes);
  out.labels = std::move(labels.bytes);
  return out;
}

MNIST::MNIST(const std::string& name, ImageBytes data)
    : ImageDataset(name, PixelLayout::kCHW, std::move(data)) {}

MNIST::MNIST(const std::string& root, Split split)
    : MNIST("MNIST", read_idx_split("MNIST", root, split)) {}

MNIST MNIST::from_files(const std::string& images_file, const std::string& labels_file) {
  return MNIST("MNIST", read_idx_files("MNIST", images_file, labels_file));
}

FashionMNIST::FashionMNIST(const std::string& root, Split split)
    : FashionMNIST(read_idx_split("FashionMNIST", root, split)) {}

FashionMNIST FashionMNIST::from_files(const std::string& images_file,
                                      const std::string& labels_file) {
  return FashionMNIST(read_idx_files("FashionMNIST", images_file, labels_file));
}

const char* FashionMNIST::class_name(int64_t label) {
  static const char* const kNames[kNumClasses] = {"T-shirt/top", "Trouser",   "Pullover", "Dress",
                                                  "Coat",        "Sandal",    "Shirt",    "Sneaker",
                                                  "Bag",         "Ankle boot"};
  EMBER_CHECK(label >= 0 && label < kNumClasses, "FashionMNIST::class_name: label ", label,
              " is out of range [0, ", kNumClasses, ")");
  return kNames[label];
}

}  // namespace ember::data
