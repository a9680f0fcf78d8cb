#include "ember/core/backends.h"

#include <atomic>
#include <iostream>

#include "ember/core/cuda/backend.h"
#include "ember/kernels/common/benchmark_cache.h"
#include "ember/kernels/cpu/conv_algo_cache.h"

namespace ember::backends {
namespace {

bool load_and_report(bench::BenchmarkCacheSet& set, const std::string& path) {
  const bench::LoadStatus st = set.load(path);
  if (!st.ok || st.ignored > 0) std::cerr << "ember: warning: " << st.message << "\n";
  return st.ok;
}

}  // namespace

namespace cudnn {
namespace {
std::atomic<bool> benchmark_on{false};
std::atomic<bool> deterministic_on{false};
std::atomic<bool> tf32_on{true};
std::atomic<size_t> workspace_cap{size_t{1} << 30};
std::atomic<bool> batch_norm_on{false};
}  // namespace

void set_benchmark(bool on) { benchmark_on.store(on); }
bool benchmark() { return benchmark_on.load(std::memory_order_relaxed); }
void set_deterministic(bool on) { deterministic_on.store(on); }
bool deterministic() { return deterministic_on.load(std::memory_order_relaxed); }
void set_allow_tf32(bool on) { tf32_on.store(on); }
bool allow_tf32() { return tf32_on.load(std::memory_order_relaxed); }
void set_workspace_limit(size_t bytes) { workspace_cap.store(bytes); }
size_t workspace_limit() { return workspace_cap.load(std::memory_order_relaxed); }
void set_batch_norm_enabled(bool on) { batch_norm_on.store(on); }
bool batch_norm_enabled() { return batch_norm_on.load(std::memory_order_relaxed); }

BenchmarkStats benchmark_stats() { return bench::cudnn_conv_caches().stats(); }
std::vector<BenchmarkEntry> benchmark_entries() { return bench::cudnn_conv_caches().entries(); }
void save_benchmark_cache(const std::string& path) { bench::cudnn_conv_caches().save(path); }
bool load_benchmark_cache(const std::string& path) {
  // A file loaded before any conv must match the device.
  ember::cuda::detail::backend().cudnn_set_machine_tag();
  return load_and_report(bench::cudnn_conv_caches(), path);
}
void clear_benchmark_cache() { bench::cudnn_conv_caches().clear(); }
}  // namespace cudnn

namespace cpu {
namespace {
std::atomic<bool> benchmark_on{false};
std::atomic<bool> deterministic_on{false};
}  // namespace

void set_benchmark(bool on) { benchmark_on.store(on); }
bool benchmark() { return benchmark_on.load(std::memory_order_relaxed); }
void set_deterministic(bool on) { deterministic_on.store(on); }
bool deterministic() { return deterministic_on.load(std::memory_order_relaxed); }

BenchmarkStats benchmark_stats() { return ember::cpu::conv_benchmark_caches().stats(); }
std::vector<BenchmarkEntry> benchmark_entries() {
  return ember::cpu::conv_benchmark_caches().entries();
}
void save_benchmark_cache(const std::string& path) {
  ember::cpu::conv_benchmark_caches().save(path);
}
bool load_benchmark_cache(const std::string& path) {
  return load_and_report(ember::cpu::conv_benchmark_caches(), path);
}
void clear_benchmark_cache() { ember::cpu::conv_benchmark_caches().clear(); }
}  // namespace cpu

namespace cuda {
namespace {
std::atomic<bool> matmul_tf32_on{false};
}  // namespace

void set_allow_tf32(bool on) { matmul_tf32_on.store(on); }
bool allow_tf32() { return matmul_tf32_on.load(std::memory_order_relaxed); }
}  // namespace cuda

}  // namespace ember::backends
