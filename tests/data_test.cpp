// The data pipeline (nn/data): reproducible shuffles, the image transforms
// against hand-computed values, the IDX (MNIST/Fashion-MNIST) and CIFAR-10
// readers on files written here (plain and gzip) including every bad-data
// error, TensorDataset, and the DataLoader: batches, order, epochs, workers,
// early exit, errors and the speed of its hot path.
#include <ember/nn/data/cifar10.h>
#include <ember/nn/data/data_loader.h>
#include <ember/nn/data/file_bytes.h>
#include <ember/nn/data/mnist.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "test_helpers.h"

using namespace ember;
using namespace ember::data;
using Catch::Contains;
using ember_test::require_values;
using ember_test::values;

namespace {

using Bytes = std::vector<uint8_t>;

// A fresh folder under the system temp dir, removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static std::atomic<int> counter{0};
    path = std::filesystem::temp_directory_path() /
           ("ember_data_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void put_be32(Bytes& b, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) b.push_back(static_cast<uint8_t>(v >> shift));
}

uint32_t crc32(const Bytes& data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (uint8_t byte : data) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// A valid gzip file holding `data` in stored (uncompressed) deflate blocks, so
// the test needs no zlib of its own (RFC 1951 section 3.2.4, RFC 1952).
Bytes gzip_stored(const Bytes& data) {
  Bytes out = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255};
  size_t at = 0;
  do {
    const size_t len = std::min<size_t>(65535, data.size() - at);
    const bool final_block = at + len == data.size();
    out.push_back(final_block ? 1 : 0);
    out.push_back(static_cast<uint8_t>(len));
    out.push_back(static_cast<uint8_t>(len >> 8));
    out.push_back(static_cast<uint8_t>(~len));
    out.push_back(static_cast<uint8_t>(~len >> 8));
    out.insert(out.end(), data.begin() + at, data.begin() + at + len);
    at += len;
  } while (at < data.size());
  for (uint32_t v : {crc32(data), static_cast<uint32_t>(data.size())})
    for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<uint8_t>(v >> shift));
  return out;
}

// IDX images: n images of rows x cols, pixel (i, y, x) = (7 * i + 3 * y + x) % 256.
Bytes idx_images(uint32_t n, uint32_t rows, uint32_t cols) {
  Bytes b;
  put_be32(b, 2051);
  put_be32(b, n);
  put_be32(b, rows);
  put_be32(b, cols);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t y = 0; y < rows; ++y)
      for (uint32_t x = 0; x < cols; ++x)
        b.push_back(static_cast<uint8_t>((7 * i + 3 * y + x) % 256));
  return b;
}

Bytes idx_labels(const Bytes& labels) {
  Bytes b;
  put_be32(b, 2049);
  put_be32(b, static_cast<uint32_t>(labels.size()));
  b.insert(b.end(), labels.begin(), labels.end());
  return b;
}

// One CIFAR-10 record: label, then channel c's pixel p = (label + 5 * c + p) % 256.
Bytes cifar_record(uint8_t label) {
  Bytes b{label};
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < 1024; ++p) b.push_back(static_cast<uint8_t>((label + 5 * c + p) % 256));
  return b;
}

// A (C, H, W) float image whose element i is `start + i`.
Tensor ramp_image(int64_t c, int64_t h, int64_t w, double start = 1) {
  return arange(start, start + c * h * w, TensorOptions(kFloat)).reshape({c, h, w});
}

}  // namespace

// ---- reproducible randomness ----

TEST_CASE("epoch_permutation is a permutation fixed by (seed, epoch) alone", "[data]") {
  const std::vector<int64_t> a = epoch_permutation(1000, 7, 3);
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 1000; ++i) REQUIRE(sorted[i] == i);
  REQUIRE(epoch_permutation(1000, 7, 3) == a);
  REQUIRE(epoch_permutation(1000, 7, 4) != a);
  REQUIRE(epoch_permutation(1000, 8, 3) != a);
  REQUIRE(epoch_permutation(0, 7, 3).empty());
  REQUIRE(epoch_permutation(1, 7, 3) == std::vector<int64_t>{0});
}

TEST_CASE("ExampleRng draws depend only on (seed, epoch, stream, index)", "[data]") {
  ExampleRng a(1, 2, RngStream::kTransform, 5), b(1, 2, RngStream::kTransform, 5);
  ExampleRng other_index(1, 2, RngStream::kTransform, 6),
      other_stream(1, 2, RngStream::kShuffle, 5);
  const uint64_t first = a.next_u64();
  REQUIRE(b.next_u64() == first);
  REQUIRE(other_index.next_u64() != first);
  REQUIRE(other_stream.next_u64() != first);
  for (int i = 0; i < 1000; ++i) {
    const double u = a.uniform();
    REQUIRE((u >= 0 && u < 1));
    const int64_t k = a.integer(9);
    REQUIRE((k >= 0 && k < 9));
  }
}

// ---- transforms ----

TEST_CASE("ToTensor scales bytes to [0, 1] and turns HWC into CHW", "[data]") {
  // 2 channels, 1 x 3 pixels, HWC: pixel p has channel values (10p, 255 - 10p).
  const uint8_t hwc[] = {0, 255, 10, 245, 20, 235};
  const Tensor chw = ToTensor(PixelLayout::kHWC)(hwc, {2, 1, 3});
  REQUIRE(chw.sizes() == IntArrayRef{2, 1, 3});
  require_values(chw, {0, 10 / 255.0, 20 / 255.0, 1, 245 / 255.0, 235 / 255.0}, 1e-6);
  // CHW input keeps its order.
  const Tensor same = ToTensor(PixelLayout::kCHW)(hwc, {2, 1, 3});
  require_values(same, {0, 1, 10 / 255.0, 245 / 255.0, 20 / 255.0, 235 / 255.0}, 1e-6);
}

TEST_CASE("Normalize subtracts the mean and divides by the std of each channel", "[data]") {
  ExampleRng rng(0, 0, RngStream::kTransform, 0);
  const Tensor x = ramp_image(2, 1, 2);  // channel 0: 1 2, channel 1: 3 4
  require_values(Normalize({1, 2}, {0.5, 4})(x, rng), {0, 2, 0.25, 0.5}, 1e-6);
  // One mean/std applies to every channel.
  require_values(Normalize({0.5}, {0.5})(x, rng), {1, 3, 5, 7}, 1e-6);
}

TEST_CASE("Normalize rejects a zero std and a channel count that does not match", "[data]") {
  REQUIRE_THROWS_WITH(Normalize({0.5}, {0}), Contains("Normalize: std must be nonzero"));
  REQUIRE_THROWS_WITH(Normalize({0.5, 0.5}, {1}), Contains("Normalize: got 2 means and 1 stds"));
  REQUIRE_THROWS_WITH(Normalize({0.5, 0.5, 0.5}, {1, 1, 1}).output_shape({1, 28, 28}),
                      Contains("Normalize: 3 means for an image of shape (1, 28, 28)"));
}

TEST_CASE("RandomCrop returns a window of the zero-padded image, every window in time", "[data]") {
  const int64_t c = 2, h = 3, w = 4, pad = 1, size = 3;
  const Tensor x = ramp_image(c, h, w);
  const std::vector<double> xv = values(x);
  // Window (top, left) of the padded image, built with a plain loop.
  auto window = [&](int64_t top, int64_t left) {
    std::vector<double> out;
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < size; ++y)
        for (int64_t xx = 0; xx < size; ++xx) {
          const int64_t sy = top + y - pad, sx = left + xx - pad;
          const bool inside = sy >= 0 && sy < h && sx >= 0 && sx < w;
          out.push_back(inside ? xv[(ch * h + sy) * w + sx] : 0.0);
        }
    return out;
  };
  const RandomCrop crop(size, pad);
  REQUIRE(crop.output_shape({c, h, w}) == ImageShape{c, size, size});
  std::set<std::pair<int64_t, int64_t>> seen;
  for (uint64_t index = 0; index < 200; ++index) {
    ExampleRng rng(3, 0, RngStream::kTransform, index);
    const std::vector<double> got = values(crop(x, rng));
    bool matched = false;
    for (int64_t top = 0; top <= h + 2 * pad - size; ++top)
      for (int64_t left = 0; left <= w + 2 * pad - size; ++left)
        if (got == window(top, left)) {
          seen.insert({top, left});
          matched = true;
        }
    REQUIRE(matched);
  }
  REQUIRE(seen.size() == 3 * 4);  // every (top, left) in [0, 2] x [0, 3] came up
}

TEST_CASE("RandomCrop with the image's own size and no padding is the identity", "[data]") {
  ExampleRng rng(0, 0, RngStream::kTransform, 0);
  const Tensor x = ramp_image(1, 3, 5);
  require_values(RandomCrop(3, 5, 0)(x, rng), values(x));
}

TEST_CASE("RandomCrop rejects a window larger than the padded image", "[data]") {
  REQUIRE_THROWS_WITH(RandomCrop(32, 1).output_shape({3, 28, 28}),
                      Contains("RandomCrop: crop (32, 32) is larger than the image (3, 28, 28) "
                               "padded by 1"));
  REQUIRE_THROWS_WITH(RandomCrop(0, 1), Contains("RandomCrop: size (0, 0) must be positive"));
}

TEST_CASE("RandomHorizontalFlip mirrors rows with probability p", "[data]") {
  const Tensor x = ramp_image(2, 2, 3);  // rows: 1 2 3 | 4 5 6 | 7 8 9 | 10 11 12
  ExampleRng rng(0, 0, RngStream::kTransform, 0);
  require_values(RandomHorizontalFlip(1.0)(x, rng), {3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10});
  require_values(RandomHorizontalFlip(0.0)(x, rng), values(x));
  int flipped = 0;
  for (uint64_t index = 0; index < 1000; ++index) {
    ExampleRng r(1, 0, RngStream::kTransform, index);
    flipped += values(RandomHorizontalFlip()(x, r))[0] == 3;
  }
  REQUIRE((flipped > 430 && flipped < 570));  // p = 0.5; 4.4 standard deviations either side
  REQUIRE_THROWS_WITH(RandomHorizontalFlip(1.5),
                      Contains("RandomHorizontalFlip: p must be in [0, 1]"));
}

TEST_CASE("Compose applies its transforms in order, drawing from one generator", "[data]") {
  const Tensor x = ramp_image(1, 4, 4);
  const Compose all(RandomCrop(3, 1), RandomHorizontalFlip(), Normalize({1}, {2}));
  REQUIRE(all.output_shape({1, 4, 4}) == ImageShape{1, 3, 3});
  for (uint64_t index = 0; index < 20; ++index) {
    ExampleRng a(5, 1, RngStream::kTransform, index), b(5, 1, RngStream::kTransform, index);
    const Tensor one_by_one =
        Normalize({1}, {2})(RandomHorizontalFlip()(RandomCrop(3, 1)(x, b), b), b);
    require_values(all(x, a), values(one_by_one));
  }
  // A Compose inside a Compose, and an empty one (a copy).
  ExampleRng a(5, 1, RngStream::kTransform, 0), b(5, 1, RngStream::kTransform, 0);
  const Compose nested(Compose(RandomCrop(3, 1), RandomHorizontalFlip()), Normalize({1}, {2}));
  require_values(nested(x, a), values(all(x, b)));
  require_values(Compose()(x, a), values(x));
}

TEST_CASE("Transform's tensor form rejects what is not a float32 or uint8 (C, H, W) image",
          "[data]") {
  ExampleRng rng(0, 0, RngStream::kTransform, 0);
  REQUIRE_THROWS_WITH(Normalize({0}, {1})(zeros({2, 3}), rng),
                      Contains("Transform: expected a float32 or uint8 (C, H, W) image on the "
                               "CPU, got float32 tensor [2, 3]"));
  REQUIRE_THROWS_WITH(Normalize({0}, {1})(zeros({1, 2, 3}, kDouble), rng),
                      Contains("got float64 tensor [1, 2, 3]"));
}

// ---- TensorDataset ----

TEST_CASE("TensorDataset hands out rows of data with their int64 labels", "[data]") {
  const Tensor data = arange(0, 12, TensorOptions(kDouble)).reshape({3, 2, 2});
  const TensorDataset ds(data, tensor({4, 5, 6}, kLong));
  REQUIRE(ds.size() == 3);
  REQUIRE(ds.example_shape() == DimVector{2, 2});
  const Example e = ds.get(1);
  REQUIRE(e.data.scalar_type() == kFloat);
  require_values(e.data, {4, 5, 6, 7});
  REQUIRE(e.target.dim() == 0);
  REQUIRE(e.target.item<int64_t>() == 5);
  // Non-contiguous data: a transposed view is read in its logical order.
  const TensorDataset t(data.transpose(1, 2), tensor({0, 1, 2}, kLong));
  require_values(t.get(2).data, {8, 10, 9, 11});
}

TEST_CASE("TensorDataset rejects mismatched or mistyped tensors and bad indices", "[data]") {
  REQUIRE_THROWS_WITH(TensorDataset(zeros({3, 2}), tensor({1, 2}, kLong)),
                      Contains("TensorDataset: data has 3 examples but targets has 2"));
  REQUIRE_THROWS_WITH(TensorDataset(zeros({3, 2}), zeros({3})),
                      Contains("TensorDataset: targets must be an int64 tensor (N), got float32"));
  REQUIRE_THROWS_WITH(TensorDataset(zeros({3}, kLong), tensor({1, 2, 3}, kLong)),
                      Contains("TensorDataset: data must be a floating tensor"));
  const TensorDataset ds(zeros({3, 2}), tensor({1, 2, 3}, kLong));
  REQUIRE_THROWS_WITH(
      ds.get(3), Contains("TensorDataset: index 3 is out of range for a dataset of 3 examples"));
  REQUIRE_THROWS_WITH(ds.get(-1), Contains("TensorDataset: index -1 is out of range"));
}

// ---- MNIST / Fashion-MNIST (IDX) ----

namespace {

// The expected float image of idx_images' image i.
std::vector<double> idx_pixels(uint32_t i, uint32_t rows, uint32_t cols) {
  std::vector<double> v;
  for (uint32_t y = 0; y < rows; ++y)
    for (uint32_t x = 0; x < cols; ++x) v.push_back(((7 * i + 3 * y + x) % 256) / 255.0);
  return v;
}

}  // namespace

TEST_CASE("MNIST reads plain IDX files into (1, H, W) images in [0, 1] and int64 labels",
          "[data]") {
  TempDir dir;
  write_file(dir.file("images"), idx_images(3, 4, 5));
  write_file(dir.file("labels"), idx_labels({7, 0, 9}));
  const MNIST ds = MNIST::from_files(dir.file("images"), dir.file("labels"));
  REQUIRE(ds.size() == 3);
  REQUIRE(ds.example_shape() == DimVector{1, 4, 5});
  for (uint32_t i = 0; i < 3; ++i) {
    const Example e = ds.get(i);
    REQUIRE(e.data.sizes() == IntArrayRef{1, 4, 5});
    require_values(e.data, idx_pixels(i, 4, 5), 1e-6);
    REQUIRE(e.target.scalar_type() == kLong);
    REQUIRE(e.target.dim() == 0);
  }
  REQUIRE(ds.get(0).target.item<int64_t>() == 7);
  REQUIRE(ds.get(2).target.item<int64_t>() == 9);
}

TEST_CASE("MNIST finds {train,t10k} files by name, plain or gzip", "[data]") {
  TempDir dir;
  write_file(dir.file("train-images-idx3-ubyte"), idx_images(2, 3, 3));
  write_file(dir.file("train-labels-idx1-ubyte"), idx_labels({1, 2}));
  // The test split gzipped; the images span several stored blocks (> 64 KiB).
  write_file(dir.file("t10k-images-idx3-ubyte.gz"), gzip_stored(idx_images(100, 28, 28)));
  write_file(dir.file("t10k-labels-idx1-ubyte.gz"), gzip_stored(idx_labels(Bytes(100, 3))));
  const MNIST train(dir.path.string(), Split::kTrain);
  REQUIRE(train.size() == 2);
  require_values(train.get(1).data, idx_pixels(1, 3, 3), 1e-6);
  if (!built_with_zlib()) {
    REQUIRE_THROWS_WITH(MNIST(dir.path.string(), Split::kTest),
                        Contains("is gzip-compressed, but ember was built without zlib"));
    return;
  }
  const MNIST test(dir.path.string(), Split::kTest);
  REQUIRE(test.size() == 100);
  require_values(test.get(99).data, idx_pixels(99, 28, 28), 1e-6);
  REQUIRE(test.get(99).target.item<int64_t>() == 3);
}

TEST_CASE("MNIST errors name the file and the byte offset of bad data", "[data]") {
  TempDir dir;
  const std::string images = dir.file("images"), labels = dir.file("labels");
  auto load = [&] { return MNIST::from_files(images, labels); };
  write_file(labels, idx_labels({1, 2}));

  SECTION("missing file") {
    REQUIRE_THROWS_WITH(load(), Contains("MNIST: cannot open " + images + ": No such file"));
    REQUIRE_THROWS_WITH(MNIST(dir.path.string()),
                        Contains("MNIST: missing file " + dir.file("train-images-idx3-ubyte") +
                                 " (nor " + dir.file("train-images-idx3-ubyte") + ".gz)"));
  }
  SECTION("wrong magic") {
    Bytes bad = idx_images(2, 3, 3);
    bad[3] = 0x01;  // 2049: a labels file given as images
    write_file(images, bad);
    REQUIRE_THROWS_WITH(load(), Contains("MNIST: " + images +
                                         ": wrong magic number 2049 at byte "
                                         "offset 0 (expected 2051 for an IDX images file)"));
    write_file(images, idx_images(2, 3, 3));
    write_file(labels, idx_images(2, 3, 3));
    REQUIRE_THROWS_WITH(load(), Contains("MNIST: " + labels +
                                         ": wrong magic number 2051 at byte "
                                         "offset 0 (expected 2049 for an IDX labels file)"));
  }
  SECTION("truncated header") {
    Bytes cut = idx_images(2, 3, 3);
    cut.resize(10);
    write_file(images, cut);
    REQUIRE_THROWS_WITH(load(), Contains("MNIST: " + images +
                                         " is truncated in its header: 10 "
                                         "bytes, the header ends at byte offset 16"));
    write_file(images, Bytes{0x00, 0x00});
    REQUIRE_THROWS_WITH(load(), Contains("MNIST: " + images +
                                         " is truncated: 2 bytes, the IDX "
                                         "magic number needs 4 at byte offset 0"));
  }
  SECTION("truncated pixels") {
    Bytes cut = idx_images(2, 3, 3);
    cut.resize(cut.size() - 4);  // 16 + 18 bytes promised, 30 present
    write_file(images, cut);
    REQUIRE_THROWS_WITH(load(), Contains("MNIST: " + images +
                                         " is truncated: its header promises "
                                         "pixels up to byte offset 34 but the data ends at byte "
                                         "offset 30"));
  }
  SECTION("extra bytes after the pixels") {
    Bytes longer = idx_images(2, 3, 3);
    longer.push_back(0);
    write_file(images, longer);
    REQUIRE_THROWS_WITH(load(), Contains("MNIST: " + images +
                                         " has 1 unexpected bytes after the "
                                         "pixels at byte offset 34"));
  }
  SECTION("absurd image size") {
    Bytes huge = idx_images(0, 3, 3);
    huge[9] = 0x10;  // rows = 2^20 + 3
    write_file(images, huge);
    REQUIRE_THROWS_WITH(load(),
                        Contains("image size 1048579x3 at byte offset 8 is not in 1..65536"));
  }
  SECTION("label out of range") {
    write_file(images, idx_images(2, 3, 3));
    write_file(labels, idx_labels({1, 10}));
    REQUIRE_THROWS_WITH(load(), Contains("MNIST: " + labels +
                                         ": label 10 at byte offset 9 is out "
                                         "of range [0, 10)"));
  }
  SECTION("image and label counts differ") {
    write_file(images, idx_images(3, 3, 3));
    REQUIRE_THROWS_WITH(
        load(), Contains("MNIST: " + images + " has 3 images but " + labels + " has 2 labels"));
  }
  SECTION("truncated gzip file") {
    Bytes gz = gzip_stored(idx_images(2, 3, 3));
    gz.resize(gz.size() - 20);
    write_file(images, gz);
    if (built_with_zlib())
      REQUIRE_THROWS_WITH(load(), Contains("MNIST: " + images +
                                           " is a damaged or truncated gzip "
                                           "file"));
    else
      REQUIRE_THROWS_WITH(load(), Contains("ember was built without zlib"));
  }
  SECTION("offsets in a gzip file count uncompressed bytes") {
    write_file(images, idx_images(2, 3, 3));
    write_file(labels, gzip_stored(idx_labels({11, 1})));
    if (built_with_zlib())
      REQUIRE_THROWS_WITH(load(), Contains("label 11 at byte offset 8 (uncompressed) is out of "
                                           "range"));
  }
}

TEST_CASE("FashionMNIST reads Debian's files: 60000 + 10000 labelled 28x28 images", "[data]") {
  const std::string root = FashionMNIST::kDefaultRoot;
  if (!std::filesystem::exists(root + "/train-labels-idx1-ubyte.gz") || !built_with_zlib()) {
    WARN("skipped: no Fashion-MNIST in " << root << " or no zlib");
    return;
  }
  const FashionMNIST train(root, Split::kTrain), test(root, Split::kTest);
  REQUIRE(train.size() == 60000);
  REQUIRE(test.size() == 10000);
  REQUIRE(train.example_shape() == DimVector{1, 28, 28});
  // The first training image is an ankle boot (label 9) whose pixels sum to
  // 76247, with 217 at the centre (28 * 14 + 14); read with Python's gzip.
  const Example e = train.get(0);
  REQUIRE(e.target.item<int64_t>() == 9);
  REQUIRE(std::string(FashionMNIST::class_name(9)) == "Ankle boot");
  const std::vector<double> v = values(e.data);
  double sum = 0;
  for (double p : v) sum += p * 255;
  REQUIRE(std::abs(sum - 76247) < 1e-2);
  REQUIRE(std::abs(v[14 * 28 + 14] * 255 - 217) < 1e-4);
  REQUIRE(test.get(1).target.item<int64_t>() == 2);
}

// ---- CIFAR-10 ----

TEST_CASE("CIFAR10 reads 3073-byte records into (3, 32, 32) CHW images", "[data]") {
  TempDir dir;
  Bytes file = cifar_record(6);
  const Bytes second = cifar_record(1);
  file.insert(file.end(), second.begin(), second.end());
  write_file(dir.file("batch.bin"), file);
  const CIFAR10 ds = CIFAR10::from_files({dir.file("batch.bin"), dir.file("batch.bin")});
  REQUIRE(ds.size() == 4);
  REQUIRE(ds.example_shape() == DimVector{3, 32, 32});
  const std::vector<double> v = values(ds.get(3).data);
  REQUIRE(ds.get(3).target.item<int64_t>() == 1);
  REQUIRE(ds.get(0).target.item<int64_t>() == 6);
  for (int c = 0; c < 3; ++c)
    for (int p : {0, 33, 1023})
      REQUIRE(std::abs(v[c * 1024 + p] * 255 - (1 + 5 * c + p) % 256) < 1e-4);
  REQUIRE(std::string(CIFAR10::class_name(6)) == "frog");
}

TEST_CASE("CIFAR10 finds its split's files in root or root/cifar-10-batches-bin", "[data]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path / "cifar-10-batches-bin");
  for (int i = 1; i <= 5; ++i)
    write_file(dir.file("cifar-10-batches-bin/data_batch_" + std::to_string(i) + ".bin"),
               cifar_record(static_cast<uint8_t>(i)));
  const CIFAR10 train(dir.path.string(), Split::kTrain);
  REQUIRE(train.size() == 5);
  REQUIRE(train.get(4).target.item<int64_t>() == 5);
  REQUIRE_THROWS_WITH(CIFAR10(dir.path.string(), Split::kTest),
                      Contains("CIFAR10: missing file " + dir.file("test_batch.bin")));
}

TEST_CASE("CIFAR10 errors name the file and the byte offset of bad data", "[data]") {
  TempDir dir;
  const std::string path = dir.file("test_batch.bin");
  Bytes file = cifar_record(2);
  SECTION("truncated record") {
    const Bytes second = cifar_record(3);
    file.insert(file.end(), second.begin(), second.begin() + 100);
    write_file(path, file);
    REQUIRE_THROWS_WITH(CIFAR10::from_files({path}),
                        Contains("CIFAR10: " + path +
                                 " ends in a truncated record at byte offset "
                                 "3073: 100 of 3073 bytes"));
  }
  SECTION("label out of range") {
    const Bytes second = cifar_record(10);
    file.insert(file.end(), second.begin(), second.end());
    write_file(path, file);
    REQUIRE_THROWS_WITH(CIFAR10::from_files({path}),
                        Contains("CIFAR10: " + path +
                                 ": label 10 at byte offset 3073 is out of "
                                 "range [0, 10)"));
  }
  SECTION("empty or missing file") {
    write_file(path, {});
    REQUIRE_THROWS_WITH(CIFAR10::from_files({path}), Contains("CIFAR10: " + path + " is empty"));
    REQUIRE_THROWS_WITH(CIFAR10::from_files({dir.file("nope.bin")}),
                        Contains("CIFAR10: cannot open " + dir.file("nope.bin")));
  }
}

// ---- DataLoader ----

namespace {

// n examples of shape (1, 2, 3); example i holds i * 10 + k in element k, label i % 10.
std::shared_ptr<const TensorDataset> numbered_dataset(int64_t n) {
  const Tensor k = arange(0, 6, TensorOptions(kFloat)).reshape({1, 1, 2, 3});
  const Tensor i = arange(0, n, TensorOptions(kFloat)).reshape({n, 1, 1, 1});
  std::vector<int64_t> labels;
  for (int64_t j = 0; j < n; ++j) labels.push_back(j % 10);
  return std::make_shared<const TensorDataset>(i * 10 + k, tensor(labels, kLong).reshape({n}));
}

// The dataset index each example of a batch came from (element 0 is index * 10).
std::vector<int64_t> batch_indices(const Batch& b) {
  std::vector<int64_t> out;
  const std::vector<double> v = values(b.data);
  const int64_t per = b.data.numel() / b.data.size(0);
  for (int64_t i = 0; i < b.data.size(0); ++i) out.push_back(static_cast<int64_t>(v[i * per] / 10));
  return out;
}

std::vector<Batch> epoch_batches(DataLoader& loader) {
  std::vector<Batch> out;
  for (Batch& b : loader) out.push_back(b);
  return out;
}

void require_same_batches(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("batch " << i);
    REQUIRE(a[i].data.sizes() == b[i].data.sizes());
    REQUIRE(values(a[i].data) == values(b[i].data));
    REQUIRE(values(a[i].target) == values(b[i].target));
  }
}

// A dataset whose example `bad` throws when read.
class FailingDataset : public Dataset {
 public:
  explicit FailingDataset(int64_t bad) : bad_(bad) {}
  int64_t size() const override { return 40; }
  Example get(int64_t index) const override {
    EMBER_CHECK(index != bad_, "FailingDataset: cannot read example ", index);
    return {full({2}, static_cast<double>(index)), full({}, 0, kLong)};
  }
  DimVector example_shape() const override { return {2}; }

 private:
  int64_t bad_;
};

}  // namespace

TEST_CASE("DataLoader without shuffle stacks examples in order, last batch partial", "[data]") {
  DataLoader loader(numbered_dataset(10), DataLoaderOptions().batch_size(4));
  REQUIRE(loader.size() == 3);
  const std::vector<Batch> batches = epoch_batches(loader);
  REQUIRE(batches.size() == 3);
  REQUIRE(batches[0].data.sizes() == IntArrayRef{4, 1, 2, 3});
  REQUIRE(batches[0].data.scalar_type() == kFloat);
  REQUIRE(batches[0].target.sizes() == IntArrayRef{4});
  REQUIRE(batches[0].target.scalar_type() == kLong);
  REQUIRE(batches[2].data.sizes() == IntArrayRef{2, 1, 2, 3});
  require_values(batches[1].data[0], {40, 41, 42, 43, 44, 45});
  require_values(batches[2].target, {8, 9});
  REQUIRE(batch_indices(batches[1]) == std::vector<int64_t>{4, 5, 6, 7});
}

TEST_CASE("DataLoader drop_last drops the partial batch; an empty dataset gives none", "[data]") {
  DataLoader loader(numbered_dataset(10), DataLoaderOptions().batch_size(4).drop_last(true));
  REQUIRE(loader.size() == 2);
  REQUIRE(epoch_batches(loader).size() == 2);
  DataLoader empty_loader(numbered_dataset(0), DataLoaderOptions().batch_size(4).num_workers(2));
  REQUIRE(empty_loader.size() == 0);
  REQUIRE(epoch_batches(empty_loader).empty());
}

TEST_CASE("DataLoader shuffle: epoch e's order depends only on (seed, e)", "[data]") {
  const auto ds = numbered_dataset(50);
  const auto options = DataLoaderOptions().batch_size(8).shuffle(true).seed(42);
  DataLoader a(ds, options), b(ds, options);
  const std::vector<Batch> a0 = epoch_batches(a), a1 = epoch_batches(a);  // epochs 0 and 1
  REQUIRE(a.epoch() == 2);
  // Every epoch visits every example once.
  for (const auto* epoch : {&a0, &a1}) {
    std::vector<int64_t> seen;
    for (const Batch& batch : *epoch)
      for (int64_t i : batch_indices(batch)) seen.push_back(i);
    std::sort(seen.begin(), seen.end());
    for (int64_t i = 0; i < 50; ++i) REQUIRE(seen[i] == i);
  }
  REQUIRE(batch_indices(a0[0]) != batch_indices(a1[0]));
  // A second loader resumed at epoch 1 sees epoch 1's batches.
  b.set_epoch(1);
  require_same_batches(epoch_batches(b), a1);
  // Another seed, another order.
  DataLoader c(ds, DataLoaderOptions().batch_size(8).shuffle(true).seed(43));
  REQUIRE(batch_indices(epoch_batches(c)[0]) != batch_indices(a0[0]));
}

TEST_CASE("DataLoader batches do not depend on num_workers, random transforms included", "[data]") {
  // 37 images (1, 6, 6), batch 5: uneven last batch, more batches than workers.
  const Tensor images = rand({37, 1, 6, 6});
  const auto ds = std::make_shared<const TensorDataset>(images, randint(10, {37}));
  const auto augment = std::make_shared<const Compose>(RandomCrop(5, 2), RandomHorizontalFlip(),
                                                       Normalize({0.5}, {0.25}));
  auto options = DataLoaderOptions().batch_size(5).shuffle(true).seed(9);
  DataLoader serial(ds, options, augment);
  DataLoader two(ds, DataLoaderOptions(options).num_workers(2), augment);
  DataLoader three(ds, DataLoaderOptions(options).num_workers(3), augment);
  for (int epoch = 0; epoch < 2; ++epoch) {
    const std::vector<Batch> want = epoch_batches(serial);
    REQUIRE(want.size() == 8);
    REQUIRE(want[0].data.sizes() == IntArrayRef{5, 1, 5, 5});
    require_same_batches(epoch_batches(two), want);
    require_same_batches(epoch_batches(three), want);
  }
}

TEST_CASE("DataLoader applies the transform to each example as the transform alone would",
          "[data]") {
  const auto ds = numbered_dataset(6);
  const Compose augment(RandomCrop(2, 1), RandomHorizontalFlip());
  DataLoader loader(ds, DataLoaderOptions().batch_size(6).seed(3), augment);
  loader.set_epoch(4);
  const Batch batch = *loader.begin();
  REQUIRE(batch.data.sizes() == IntArrayRef{6, 1, 2, 2});
  for (int64_t i = 0; i < 6; ++i) {
    ExampleRng rng(3, 4, RngStream::kTransform, static_cast<uint64_t>(i));
    require_values(batch.data[i], values(augment(ds->get(i).data, rng)));
  }
}

TEST_CASE("DataLoader stops its workers when the loop breaks early", "[data]") {
  const auto ds =
      std::make_shared<const TensorDataset>(zeros({4000, 1, 28, 28}), zeros({4000}, kLong));
  DataLoader loader(ds, DataLoaderOptions().batch_size(4).num_workers(3));
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 20; ++round) {
    int seen = 0;
    for (Batch& batch : loader) {
      REQUIRE(batch.data.size(0) == 4);
      if (++seen == 2) break;
    }
    REQUIRE(seen == 2);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(seconds < 5);  // 20 early exits; a hang would never get here
  REQUIRE(loader.epoch() == 20);
}

TEST_CASE("DataLoader rethrows a worker's error at the batch that failed", "[data]") {
  for (int workers : {0, 2}) {
    INFO(workers << " workers");
    DataLoader loader(std::make_shared<const FailingDataset>(13),
                      DataLoaderOptions().batch_size(4).num_workers(workers));
    int delivered = 0;
    REQUIRE_THROWS_WITH(
        [&] {
          for (Batch& batch : loader) {
            REQUIRE(batch.data.sizes() == IntArrayRef{4, 2});
            ++delivered;
          }
        }(),
        Contains("FailingDataset: cannot read example 13"));
    REQUIRE(delivered == 3);  // batches 0..2 arrive; batch 3 holds example 13
  }
}

TEST_CASE("DataLoader reports the time the consumer waited for data", "[data]") {
  DataLoader loader(numbered_dataset(64), DataLoaderOptions().batch_size(16).num_workers(1));
  REQUIRE(loader.wait_seconds() == 0);
  double sum = 0;
  for (Batch& batch : loader) {
    (void)batch;
    REQUIRE(loader.last_wait_seconds() >= 0);
    sum += loader.last_wait_seconds();
  }
  REQUIRE(loader.wait_seconds() > 0);
  REQUIRE(std::abs(loader.wait_seconds() - sum) < 1e-12);
}

TEST_CASE("DataLoader rejects bad options and transforms that do not fit the data", "[data]") {
  const auto ds = numbered_dataset(4);
  REQUIRE_THROWS_WITH(DataLoader(ds, DataLoaderOptions().batch_size(0)),
                      Contains("DataLoader: batch_size must be positive, got 0"));
  REQUIRE_THROWS_WITH(DataLoader(ds, DataLoaderOptions().num_workers(-1)),
                      Contains("DataLoader: num_workers must be >= 0, got -1"));
  REQUIRE_THROWS_WITH(DataLoader(ds, DataLoaderOptions(), Normalize({0, 0, 0}, {1, 1, 1})),
                      Contains("Normalize: 3 means for an image of shape (1, 2, 3)"));
  const auto flat = std::make_shared<const TensorDataset>(zeros({4, 5}), zeros({4}, kLong));
  REQUIRE_THROWS_WITH(DataLoader(flat, DataLoaderOptions(), RandomHorizontalFlip()),
                      Contains("DataLoader: transforms work on images (C, H, W), but the "
                               "dataset's examples have shape [5]"));
  DataLoader loader(ds, DataLoaderOptions());
  REQUIRE_THROWS_WITH(loader.set_epoch(-1), Contains("DataLoader::set_epoch: epoch must be >= 0"));
}

TEST_CASE("DataLoader builds whole epochs of 64-image batches, plain and augmented, with "
          "normalized values in [-1, 1]",
          "[data]") {
  // 1000 synthetic Fashion-MNIST-sized images. (How fast: build/benchmarks/data_loader.)
  ImageBytes bytes;
  bytes.shape = {1, 28, 28};
  bytes.pixels.resize(1000 * 784);
  for (size_t i = 0; i < bytes.pixels.size(); ++i) bytes.pixels[i] = static_cast<uint8_t>(i * 31);
  bytes.labels.assign(1000, 4);
  const auto ds = std::make_shared<const ImageDataset>("synthetic", PixelLayout::kCHW, bytes);
  const auto options = DataLoaderOptions().batch_size(64).shuffle(true).drop_last(true);
  DataLoader plain(ds, options);
  DataLoader augmented(ds, options,
                       Compose(RandomCrop(28, 4), RandomHorizontalFlip(), Normalize({0.5}, {0.5})));
  for (DataLoader* loader : {&plain, &augmented}) {
    for (int epoch = 0; epoch < 2; ++epoch) {
      int64_t batches = 0;
      for (Batch& batch : *loader) {
        REQUIRE(batch.data.sizes() == IntArrayRef{64, 1, 28, 28});
        REQUIRE(batch.data.scalar_type() == kFloat);
        REQUIRE(batch.target.eq(4).all().item<bool>());
        const double lo = loader == &plain ? 0.0 : -1.0;
        REQUIRE(batch.data.min().item<double>() >= lo);
        REQUIRE(batch.data.max().item<double>() <= 1.0);
        ++batches;
      }
      REQUIRE(batches == 1000 / 64);
    }
  }
}

// ---- uint8 batches ----

namespace {

// A CIFAR10 of n records (labels 0, 1, ...) in dir.
std::shared_ptr<const CIFAR10> small_cifar(const TempDir& dir, int n) {
  Bytes file;
  for (int i = 0; i < n; ++i) {
    const Bytes record = cifar_record(static_cast<uint8_t>(i % 10));
    file.insert(file.end(), record.begin(), record.end());
  }
  write_file(dir.file("batch.bin"), file);
  return std::make_shared<const CIFAR10>(CIFAR10::from_files({dir.file("batch.bin")}));
}

}  // namespace

TEST_CASE("DataLoader dtype(kByte): the pixels, cropped and flipped with the float batches' draws",
          "[data]") {
  TempDir dir;
  const auto ds = small_cifar(dir, 7);
  const auto augment = std::make_shared<const Compose>(RandomCrop(28, 4), RandomHorizontalFlip());
  const auto options = DataLoaderOptions().batch_size(3).shuffle(true).seed(5);
  DataLoader floats(ds, options, augment);
  DataLoader bytes(ds, DataLoaderOptions(options).dtype(kByte), augment);
  DataLoader bytes_two_workers(ds, DataLoaderOptions(options).dtype(kByte).num_workers(2), augment);
  const std::vector<Batch> f = epoch_batches(floats), b = epoch_batches(bytes);
  REQUIRE(b.size() == 3);
  for (size_t i = 0; i < b.size(); ++i) {
    INFO("batch " << i);
    REQUIRE(b[i].data.scalar_type() == kByte);
    REQUIRE(b[i].data.sizes() == f[i].data.sizes());
    REQUIRE(values(b[i].target) == values(f[i].target));
    // ToTensor's x * (1 / 255) in float32 against x / 255: within an ulp of values <= 1.
    require_values(b[i].data.to(kDouble) / 255, values(f[i].data), 1e-7);
  }
  require_same_batches(epoch_batches(bytes_two_workers), b);
  // Without transforms: the stored pixels themselves.
  DataLoader plain(ds, DataLoaderOptions().batch_size(7).dtype(kByte));
  const Batch all = *plain.begin();
  REQUIRE(all.data.sizes() == IntArrayRef{7, 3, 32, 32});
  for (int c = 0; c < 3; ++c)
    for (int p : {0, 33, 1023})
      REQUIRE(all.data[4][c].view({-1})[p].item<int64_t>() == (4 + 5 * c + p) % 256);
}

TEST_CASE("NormalizePixels is Normalize(ToTensor(x)) on the pixels' device, within a rounding",
          "[data]") {
  manual_seed(3);
  const std::vector<double> mean{0.4914, 0.4822, 0.4465}, std{0.247, 0.243, 0.261};
  const Tensor pixels = randint(0, 256, {4, 3, 5, 6}).to(kByte);
  const NormalizePixels normalize(mean, std);
  const Tensor got = normalize(pixels);
  REQUIRE(got.scalar_type() == kFloat);
  REQUIRE(got.sizes() == pixels.sizes());
  const std::vector<double> p = values(pixels), g = values(got);
  for (size_t i = 0; i < p.size(); ++i) {
    const size_t c = i / 30 % 3;
    const double want = (p[i] / 255 - mean[c]) / std[c];
    INFO("element " << i << ": " << g[i] << " vs " << want);
    REQUIRE(std::abs(g[i] - want) <= 1e-6 * std::max(1.0, std::abs(want)));
  }
  // A second call reuses the device's factors; one value applies to every channel.
  require_values(normalize(pixels), g);
  const NormalizePixels half({0.5}, {0.5});
  require_values(half(full({3, 1, 2}, 255, kByte)), std::vector<double>(6, 1.0));
  require_values(half(zeros({1, 1, 2}, kByte)), {-1.0, -1.0});
  REQUIRE_THROWS_WITH(half(zeros({1, 2, 2})),
                      Contains("NormalizePixels: expected uint8 pixels (N, C, H, W) or (C, H, W), "
                               "got float32 tensor [1, 2, 2]"));
  REQUIRE_THROWS_WITH(normalize(zeros({2, 1, 2, 2}, kByte)), Contains("Normalize: 3 means"));
}

TEST_CASE("uint8 batches: Normalize, datasets without bytes and other dtypes are errors",
          "[data]") {
  TempDir dir;
  const auto ds = small_cifar(dir, 2);
  DataLoader normalized(ds, DataLoaderOptions().dtype(kByte), Normalize({0.5}, {0.5}));
  REQUIRE_THROWS_WITH(normalized.begin(), Contains("apply data::NormalizePixels to the batch"));
  DataLoader tensors(numbered_dataset(3), DataLoaderOptions().dtype(kByte));
  REQUIRE_THROWS_WITH(tensors.begin(), Contains("this dataset has no uint8 images"));
  REQUIRE_THROWS_WITH(DataLoader(ds, DataLoaderOptions().dtype(kDouble)),
                      Contains("DataLoader: dtype must be float32 or uint8, got float64"));
}
