// The sample trainer: a C++ port of a classic PyTorch CIFAR-10 training
// script, on Fashion-MNIST by default. `train --help` lists the flags.
#include <iostream>

#include "options.h"
#include "trainer.h"

int main(int argc, char** argv) {
  const train::Options options = train::parse_options(argc, argv);
  train::install_interrupt_handler();
  try {
    const train::RunResult result = train::run(options, std::cout);
    return result.interrupted ? 130 : 0;
  } catch (const std::exception& e) {
    std::cerr << "train: " << e.what() << "\n";
    return 1;
  }
}
