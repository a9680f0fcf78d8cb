// Fuzzes the IDX reader of MNIST / Fashion-MNIST, plain and gzip. An input
// holds both files: a 4-byte little-endian length L, L bytes of the images
// file, then the labels file (make_fuzz_seeds writes seeds in this layout).
#include <cstring>

#include "fuzz_input.h"

#include <ember/nn/data/mnist.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember;
  if (size < 4) return 0;
  uint32_t images_size = 0;
  for (int i = 0; i < 4; ++i) images_size |= uint32_t(data[i]) << (8 * i);
  data += 4, size -= 4;
  if (images_size > size) images_size = static_cast<uint32_t>(size);
  const std::string images = fuzz::write_input_file("images-idx3-ubyte", data, images_size);
  const std::string labels =
      fuzz::write_input_file("labels-idx1-ubyte", data + images_size, size - images_size);
  fuzz::expect_only_ember_errors([&] {
    data::FashionMNIST set = data::FashionMNIST::from_files(images, labels);
    if (set.size() > 0) (void)set.get(set.size() - 1);
  });
  return 0;
}
