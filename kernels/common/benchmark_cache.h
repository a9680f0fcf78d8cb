#pragma once
// The benchmark-mode algorithm cache, shared by every backend that picks an
// algorithm by timing the candidates (CPU conv now, cuDNN conv later).
//
// Note [Benchmark cache]
// A `BenchmarkCache` serves one (backend, pass), e.g. CPU conv backward-data.
// It maps a key (everything that changes the answer: problem sizes, dtype,
// settings such as the thread count) to an immutable `CacheEntry`: the ranked
// results of one search. The first caller of a key runs the search; callers
// of the same key meanwhile wait for it, so a key is searched once per
// process. A `BenchmarkCacheSet` groups a backend's caches with what makes
// them persistent: a machine tag (ISA; compute capability + cuDNN version)
// that a saved entry must match to be loaded, and an environment variable
// naming a file that is loaded at first use and saved at exit.
// docs/benchmark-mode.md describes the file format and the choices.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/backends.h"

namespace ember::bench {

using backends::BenchmarkEntry;
using backends::BenchmarkStats;

// One successful run of one algorithm during a search.
struct AlgoResult {
  int algo = 0;
  int math_type = 0;  // cuDNN's math type (default/tensor-op/TF32); 0 on CPU
  size_t workspace_bytes = 0;
  double time_ms = 0;
  bool same_algo(const AlgoResult& o) const { return algo == o.algo && math_type == o.math_type; }
};

// Results within this fraction of the fastest count as equally fast, and the
// one with the smallest workspace among them is chosen.
inline constexpr double kEquallyFast = 0.05;

// The answer for one key. Immutable once published; a fallback publishes a
// new entry with the failed result marked.
struct CacheEntry {
  std::vector<AlgoResult> ranked;               // successful results, fastest first
  std::optional<AlgoResult> fastest_no_workspace;
  std::vector<bool> failed;                     // per ranked result: failed at run time
  size_t chosen = 0;                            // index into ranked
  const AlgoResult& choice() const { return ranked[chosen]; }
};

// Ranks `results` (fastest first) and chooses by the rule above. Expects at
// least one result.
CacheEntry make_entry(std::vector<AlgoResult> results);

// The index of the choice among the results not marked failed, or nullopt if
// all failed. `ranked` is sorted fastest first.
std::optional<size_t> select_result(const std::vector<AlgoResult>& ranked,
                                    const std::vector<bool>& failed);

class BenchmarkCache {
 public:
  using FindFn = std::function<std::vector<AlgoResult>()>;
  using EntryPtr = std::shared_ptr<const CacheEntry>;

  // name: the pass, as written in listings and files ("forward").
  explicit BenchmarkCache(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  // A hit returns the cached entry. A miss runs `find` (the search) exactly
  // once per key, also when several threads ask at once: the others wait for
  // it. If the search throws or returns no result, the key stays uncached,
  // the error goes to the caller that ran it and a waiter searches again.
  EntryPtr get_or_find(const std::string& key, const FindFn& find);
  EntryPtr lookup(const std::string& key) const;  // no search, no counting

  // The choice for `key` after running `failed` failed (e.g. out of memory):
  // the next result down the ranking, by the same rule. Never searches again.
  // nullopt when every result failed or the key is not cached. If another
  // thread already stepped past `failed`, returns the current choice.
  std::optional<AlgoResult> next_after_failure(const std::string& key, const AlgoResult& failed);

  // Inserts loaded results unless the key is cached already (the entry in
  // memory was measured in this process). Returns whether it was inserted.
  bool insert(const std::string& key, std::vector<AlgoResult> results);

  struct Snapshot {
    std::string key;
    EntryPtr entry;
  };
  std::vector<Snapshot> snapshot() const;  // cached keys, sorted
  BenchmarkStats stats() const;
  void clear();  // drops the entries and zeroes the counters

 private:
  struct Slot {
    EntryPtr entry;  // null while searching
    bool searching = false;
  };
  std::string name_;
  mutable std::mutex mutex_;
  std::condition_variable search_done_;
  std::unordered_map<std::string, Slot> slots_;
  BenchmarkStats stats_;  // entries is computed on demand
};

// Outcome of loading a cache file. A missing, corrupt or truncated file loads
// nothing: `ok` is false and `message` says why.
struct LoadStatus {
  bool ok = false;
  size_t loaded = 0;   // entries inserted
  size_t ignored = 0;  // entries for another machine, key format or cache, or invalid
  size_t kept = 0;     // entries already cached in memory, left as they were
  std::string message;
};

// A backend's caches (one per pass) and their persistence.
class BenchmarkCacheSet {
 public:
  using AlgoNameFn = std::function<std::string(size_t pass, int algo)>;
  using ResultCheck = std::function<bool(size_t pass, const AlgoResult& result)>;

  // backend: "cpu_conv", written in files so that one file holds one backend.
  // key_format: bumped when the keys' text changes meaning.
  // env_var: the file loaded at first use and saved at exit (unset: neither).
  // valid_result: whether a loaded result names an algorithm (and math type)
  // this build can run; an entry with any other is ignored (unset: all can).
  BenchmarkCacheSet(std::string backend, int key_format, std::vector<std::string> pass_names,
                    AlgoNameFn algo_name, std::string env_var, std::string machine_tag,
                    ResultCheck valid_result = {});
  ~BenchmarkCacheSet();  // a set destroyed before exit is not saved at exit
  BenchmarkCacheSet(const BenchmarkCacheSet&) = delete;
  BenchmarkCacheSet& operator=(const BenchmarkCacheSet&) = delete;

  // The cache for a pass; loads the file of env_var on first use.
  BenchmarkCache& cache(size_t pass);

  std::string machine_tag() const;
  // The CUDA backend sets it once it knows the device and cuDNN version.
  void set_machine_tag(std::string tag);

  BenchmarkStats stats();                  // summed over the passes
  std::vector<BenchmarkEntry> entries();   // every cached key, by pass then key
  // Writes all entries atomically (temp file in the same folder, fsync,
  // rename). Throws ember::Error naming the path when it cannot.
  void save(const std::string& path);
  LoadStatus load(const std::string& path);
  void clear();

 private:
  void load_env_file_once();
  std::string backend_;
  int key_format_;
  AlgoNameFn algo_name_;
  ResultCheck valid_result_;
  std::string env_var_;
  mutable std::mutex tag_mutex_;
  std::string machine_tag_;
  std::vector<std::unique_ptr<BenchmarkCache>> caches_;
  std::once_flag env_loaded_;
};

// The CPU's machine tag: the instruction set the kernels were built for.
std::string cpu_isa_tag();

// The cuDNN conv caches (forward, backward-data, backward-weight). Without
// the CUDA backend they stay empty. The machine tag starts as the current
// device's (the CUDA backend hook cudnn_current_machine_tag in
// core/cuda/backend.h; "no-cuda" without one); the first benchmark-mode conv
// sets it from its own device.
BenchmarkCacheSet& cudnn_conv_caches();

}  // namespace ember::bench
