#pragma once
// A process-wide count of device->host synchronizations (item(), cpu(), ...),
// so a benchmark can show how many a training step makes. Compiled in every
// build; without CUDA nothing counts and it stays 0.
#include <cstdint>

namespace ember::cuda {

// Synchronizations counted so far; a benchmark reads it before and after a step.
uint64_t sync_count();

namespace detail {
// Called by each operation that makes the host wait for the device.
void count_sync();
}  // namespace detail

}  // namespace ember::cuda
