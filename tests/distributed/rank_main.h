#pragma once
// What every rank program of the multi-process tests shares (worker.cpp,
// ddp_worker.cpp): its place in the job, a check that fails the rank with a
// message, joining the group through the job's store directory, and main's
// body:  PROGRAM SCENARIO RANK WORLD_SIZE STORE_DIR  prints "OK SCENARIO" and
// exits 0, or prints what went wrong and exits 1 (a failed check) or 2 (an
// unexpected error).
#include <ember/distributed/distributed.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>

namespace ember_test {

inline int rank = 0, world = 1;
inline std::string store_dir;

struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

#define CHECK_THAT(cond, what)                                                                 \
  do {                                                                                         \
    if (!(cond)) throw ::ember_test::CheckFailed(std::string("check failed: ") + #cond + ": " + \
                                                 (what));                                      \
  } while (0)

inline void init(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  ember::distributed::init_process_group("gloo", "file://" + store_dir, world, rank, timeout);
}

inline int rank_main(int argc, char** argv, const std::map<std::string, std::function<void()>>& scenarios) {
  if (argc != 5 || !scenarios.count(argv[1])) {
    std::cerr << "usage: " << argv[0] << " SCENARIO RANK WORLD_SIZE STORE_DIR"
              << (argc >= 2 ? " (unknown scenario " + std::string(argv[1]) + ")" : "") << "\n";
    return 2;
  }
  const std::string scenario = argv[1];
  rank = std::atoi(argv[2]);
  world = std::atoi(argv[3]);
  store_dir = argv[4];
  try {
    scenarios.at(scenario)();
    if (ember::distributed::is_initialized()) ember::distributed::destroy_process_group();
  } catch (const CheckFailed& e) {
    std::cout << "rank " << rank << ": " << e.what() << std::endl;
    return 1;
  } catch (const std::exception& e) {
    std::cout << "rank " << rank << ": unexpected error: " << e.what() << std::endl;
    return 2;
  }
  std::cout << "OK " << scenario << std::endl;
  return 0;
}

}  // namespace ember_test
