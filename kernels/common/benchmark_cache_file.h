#pragma once
// The file format of the benchmark caches (Note [Benchmark cache] in
// benchmark_cache.h). Text, one entry a line:
//
//   ember-benchmark-cache 1
//   backend cpu_conv
//   machine x86_64-avx512
//   key-format 1
//   entry <pass> <key> <n> <algo> <math> <workspace bytes> <ms>  (n times)
//   end <number of entries>
//
// The end line detects a truncated file.
#include <string>
#include <vector>

#include "ember/kernels/common/benchmark_cache.h"

namespace ember::bench {

inline constexpr int kCacheFileVersion = 1;

struct CacheFile {
  struct Entry {
    std::string pass;
    std::string key;
    std::vector<AlgoResult> results;
  };
  std::string backend;
  std::string machine_tag;
  int key_format = 0;
  std::vector<Entry> entries;
};

bool file_exists(const std::string& path);

// Returns false with `error` set for a missing, unreadable, corrupt or
// truncated file (or another file version); `out` is then unspecified.
bool read_cache_file(const std::string& path, CacheFile& out, std::string& error);

// Replaces `path` atomically (Note [Atomic file replacement] in
// core/atomic_file.h): a reader sees the old file or the new one, never a
// part. Throws ember::Error naming the path and the system error.
void write_cache_file_atomically(const std::string& path, const CacheFile& file);

}  // namespace ember::bench
