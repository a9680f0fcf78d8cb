// The data loader's cost per batch on this thread (num_workers 0): 64
// Fashion-MNIST-sized images (1x28x28 bytes), shuffled, plain and with the
// trainer's augmentation (RandomCrop(28, 4), horizontal flip, Normalize).
// Median of whole epochs over 1000 synthetic images.
//
//   build/benchmarks/data_loader [--epochs N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <ember/ember.h>
#include <ember/nn/data/data_loader.h>

#include "bench_timing.h"

using namespace ember;
using namespace ember::data;

int main(int argc, char** argv) {
  int epochs = 9;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--epochs") == 0) epochs = std::atoi(argv[i + 1]);
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
  std::printf("ember data_loader: batch 64 of 1x28x28, num_workers 0, median of %d epochs\n",
              epochs);
  for (auto [name, loader] : {std::pair{"plain", &plain}, std::pair{"augmented", &augmented}}) {
    const double epoch_seconds = bench_timing::median_seconds(epochs, [&] {
      for (Batch& batch : *loader) (void)batch;
    });
    std::printf("%-10s %8.1f us per batch\n", name,
                1e6 * epoch_seconds / static_cast<double>(loader->size()));
  }
  return 0;
}
