#pragma once
// Backend switches, as torch.backends: benchmark mode (time the algorithms of
// a conv shape once and cache the fastest), determinism and TF32, plus the
// statistics and persistence of the benchmark caches. Two switch sets: cuDNN
// (CUDA conv) and cpu (CPU conv), each with its own cache; see
// docs/benchmark-mode.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ember::backends {

// Counters of one backend's benchmark caches (all passes together).
struct BenchmarkStats {
  int64_t hits = 0;      // lookups answered from the cache
  int64_t misses = 0;    // lookups that found no answer (ran a search or waited for one)
  int64_t finds = 0;     // searches run
  double find_seconds = 0;  // wall time spent searching
  int64_t fallbacks = 0;    // steps down the ranking after a chosen algorithm failed
  int64_t entries = 0;      // keys cached now
};

// One cached key and its answer.
struct BenchmarkEntry {
  std::string pass;  // "forward", "backward_data", "backward_weight"
  std::string key;
  std::string algo;  // the chosen algorithm's name
  double time_ms = 0;
  size_t workspace_bytes = 0;
};

namespace cudnn {
// Defaults as PyTorch: benchmark off, deterministic off, TF32 on.
void set_benchmark(bool on);
bool benchmark();
void set_deterministic(bool on);
bool deterministic();
void set_allow_tf32(bool on);
bool allow_tf32();
// The most workspace a searched or chosen algorithm may use (default 1 GiB).
void set_workspace_limit(size_t bytes);
size_t workspace_limit();
// ember's own: whether training-mode batch_norm on CUDA runs on cuDNN's
// batch-norm calls instead of ember's kernels (default off; PyTorch has no
// such switch). benchmarks/cuda_nn_ops measures the two (docs/gpu.md).
void set_batch_norm_enabled(bool on);
bool batch_norm_enabled();

BenchmarkStats benchmark_stats();
std::vector<BenchmarkEntry> benchmark_entries();
// Written atomically; throws ember::Error when the file cannot be written.
void save_benchmark_cache(const std::string& path);
// Returns false (and warns on stderr) for a missing, corrupt or truncated
// file, which loads nothing. Entries for another device, cuDNN version or key
// format are skipped.
bool load_benchmark_cache(const std::string& path);
// Drops the cached entries and zeroes the statistics.
void clear_benchmark_cache();
}  // namespace cudnn

namespace cpu {
// Defaults: benchmark off (the fixed heuristic), deterministic off.
void set_benchmark(bool on);
bool benchmark();
void set_deterministic(bool on);
bool deterministic();

BenchmarkStats benchmark_stats();
std::vector<BenchmarkEntry> benchmark_entries();
void save_benchmark_cache(const std::string& path);
bool load_benchmark_cache(const std::string& path);
void clear_benchmark_cache();
}  // namespace cpu

namespace cuda {
// Whether float32 matmuls on CUDA (mm, bmm, addmm and the ops built on them)
// may use TF32 tensor cores: about 10 mantissa bits per product, roughly 1e-3
// relative error, several times faster. Default false, as PyTorch's
// torch.backends.cuda.matmul.allow_tf32. Read at each call; float64 ignores it.
void set_allow_tf32(bool on);
bool allow_tf32();
}  // namespace cuda

}  // namespace ember::backends
