// The sample trainer: a C++ port of a classic PyTorch CIFAR-10 training
// script, on Fashion-MNIST by default. `train --help` lists the flags;
// `ember-run --nproc-per-node N train ...` trains on N processes.
#include <cstdlib>
#include <iostream>
#include <string>

#include "options.h"
#include "trainer.h"

namespace {
// "train: " alone, or "train (rank 1): " under ember-run, where every rank's
// errors reach the same terminal.
std::string error_prefix() {
  const char* rank = std::getenv("RANK");
  const char* world = std::getenv("WORLD_SIZE");
  if (!rank || !world || std::string(world) == "1") return "train: ";
  return std::string("train (rank ") + rank + "): ";
}
}  // namespace

int main(int argc, char** argv) {
  const train::Options options = train::parse_options(argc, argv);
  train::install_interrupt_handler();
  try {
    const train::RunResult result = train::run(options, std::cout);
    return result.interrupted ? 130 : 0;
  } catch (const std::exception& e) {
    std::cerr << error_prefix() << e.what() << "\n";
    return 1;
  }
}
