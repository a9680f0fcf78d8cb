#include "ember/kernels/common/benchmark_cache.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "ember/core/cuda/backend.h"
#include "ember/core/error.h"
#include "ember/kernels/common/benchmark_cache_file.h"

namespace ember::bench {

std::optional<size_t> select_result(const std::vector<AlgoResult>& ranked,
                                    const std::vector<bool>& failed) {
  std::optional<size_t> fastest;
  for (size_t i = 0; i < ranked.size() && !fastest; ++i)
    if (!failed[i]) fastest = i;
  if (!fastest) return std::nullopt;
  const double bound = ranked[*fastest].time_ms * (1 + kEquallyFast);
  size_t best = *fastest;
  for (size_t i = *fastest + 1; i < ranked.size() && ranked[i].time_ms <= bound; ++i)
    if (!failed[i] && ranked[i].workspace_bytes < ranked[best].workspace_bytes) best = i;
  return best;
}

CacheEntry make_entry(std::vector<AlgoResult> results) {
  EMBER_INTERNAL_ASSERT(!results.empty(), "a benchmark entry needs at least one result");
  // Stable: equal times keep the order the search listed them in.
  std::stable_sort(results.begin(), results.end(),
                   [](const AlgoResult& a, const AlgoResult& b) { return a.time_ms < b.time_ms; });
  CacheEntry e;
  e.ranked = std::move(results);
  e.failed.assign(e.ranked.size(), false);
  e.chosen = *select_result(e.ranked, e.failed);
  for (const AlgoResult& r : e.ranked)
    if (r.workspace_bytes == 0) {
      e.fastest_no_workspace = r;
      break;
    }
  return e;
}

// ---- BenchmarkCache ----

BenchmarkCache::EntryPtr BenchmarkCache::get_or_find(const std::string& key, const FindFn& find) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = slots_.find(key);
  if (it != slots_.end() && it->second.entry) {
    ++stats_.hits;
    return it->second.entry;
  }
  ++stats_.misses;
  // Wait while another thread searches this key. The slot is looked up again
  // after each wake-up: a failed search erases it, and clear() may too.
  for (;;) {
    it = slots_.find(key);
    if (it == slots_.end()) break;
    if (it->second.entry) return it->second.entry;
    search_done_.wait(lock);
  }
  slots_[key].searching = true;
  lock.unlock();

  const auto start = std::chrono::steady_clock::now();
  std::vector<AlgoResult> results;
  try {
    results = find();
    EMBER_INTERNAL_ASSERT(!results.empty(), "benchmark search for '", key, "' found nothing");
  } catch (...) {
    lock.lock();
    slots_.erase(key);
    search_done_.notify_all();
    throw;
  }
  auto entry = std::make_shared<const CacheEntry>(make_entry(std::move(results)));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  lock.lock();
  ++stats_.finds;
  stats_.find_seconds += seconds;
  Slot& slot = slots_[key];
  slot.entry = entry;
  slot.searching = false;
  search_done_.notify_all();
  return entry;
}

BenchmarkCache::EntryPtr BenchmarkCache::lookup(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = slots_.find(key);
  return it == slots_.end() ? nullptr : it->second.entry;
}

std::optional<AlgoResult> BenchmarkCache::next_after_failure(const std::string& key,
                                                             const AlgoResult& failed) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = slots_.find(key);
  if (it == slots_.end() || !it->second.entry) return std::nullopt;
  const CacheEntry& old = *it->second.entry;
  if (!old.failed[old.chosen] && !old.choice().same_algo(failed)) return old.choice();
  CacheEntry next = old;
  for (size_t i = 0; i < next.ranked.size(); ++i)
    if (next.ranked[i].same_algo(failed)) next.failed[i] = true;
  const std::optional<size_t> chosen = select_result(next.ranked, next.failed);
  ++stats_.fallbacks;
  if (chosen) next.chosen = *chosen;
  it->second.entry = std::make_shared<const CacheEntry>(std::move(next));
  if (!chosen) return std::nullopt;
  return it->second.entry->choice();
}

bool BenchmarkCache::insert(const std::string& key, std::vector<AlgoResult> results) {
  auto entry = std::make_shared<const CacheEntry>(make_entry(std::move(results)));
  std::lock_guard<std::mutex> lock(mutex_);
  Slot& slot = slots_[key];
  if (slot.entry || slot.searching) return false;
  slot.entry = std::move(entry);
  return true;
}

std::vector<BenchmarkCache::Snapshot> BenchmarkCache::snapshot() const {
  std::vector<Snapshot> out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    out.reserve(slots_.size());
    for (const auto& [key, slot] : slots_)
      if (slot.entry) out.push_back({key, slot.entry});
  }
  std::sort(out.begin(), out.end(),
            [](const Snapshot& a, const Snapshot& b) { return a.key < b.key; });
  return out;
}

BenchmarkStats BenchmarkCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  BenchmarkStats s = stats_;
  s.entries = 0;
  for (const auto& kv : slots_) s.entries += kv.second.entry != nullptr;
  return s;
}

void BenchmarkCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  // A search in flight keeps its slot: its thread publishes into it.
  for (auto it = slots_.begin(); it != slots_.end();)
    it = it->second.searching && !it->second.entry ? std::next(it) : slots_.erase(it);
  stats_ = BenchmarkStats{};
}

// ---- BenchmarkCacheSet ----

namespace {

// The sets to save at exit (those whose environment variable named a file).
std::mutex exit_mutex;
std::vector<std::pair<BenchmarkCacheSet*, std::string>>& sets_to_save() {
  static auto* sets = new std::vector<std::pair<BenchmarkCacheSet*, std::string>>();
  return *sets;
}

void save_sets_at_exit() {
  std::lock_guard<std::mutex> lock(exit_mutex);
  for (auto& [set, path] : sets_to_save()) {
    try {
      set->save(path);
    } catch (const std::exception& e) {
      std::cerr << "ember: warning: " << e.what() << "\n";
    }
  }
}

}  // namespace

BenchmarkCacheSet::BenchmarkCacheSet(std::string backend, int key_format,
                                     std::vector<std::string> pass_names, AlgoNameFn algo_name,
                                     std::string env_var, std::string machine_tag,
                                     ResultCheck valid_result)
    : backend_(std::move(backend)),
      key_format_(key_format),
      algo_name_(std::move(algo_name)),
      valid_result_(std::move(valid_result)),
      env_var_(std::move(env_var)),
      machine_tag_(std::move(machine_tag)) {
  for (std::string& name : pass_names)
    caches_.push_back(std::make_unique<BenchmarkCache>(std::move(name)));
}

BenchmarkCacheSet::~BenchmarkCacheSet() {
  std::lock_guard<std::mutex> lock(exit_mutex);
  auto& sets = sets_to_save();
  std::erase_if(sets, [this](const auto& s) { return s.first == this; });
}

BenchmarkCache& BenchmarkCacheSet::cache(size_t pass) {
  EMBER_INTERNAL_ASSERT(pass < caches_.size(), "no benchmark cache for pass ", pass);
  load_env_file_once();
  return *caches_[pass];
}

std::string BenchmarkCacheSet::machine_tag() const {
  std::lock_guard<std::mutex> lock(tag_mutex_);
  return machine_tag_;
}

void BenchmarkCacheSet::set_machine_tag(std::string tag) {
  std::lock_guard<std::mutex> lock(tag_mutex_);
  machine_tag_ = std::move(tag);
}

void BenchmarkCacheSet::load_env_file_once() {
  std::call_once(env_loaded_, [this] {
    const char* path = env_var_.empty() ? nullptr : std::getenv(env_var_.c_str());
    if (!path || !*path) return;
    // A missing file is the normal first run: it is written at exit.
    if (file_exists(path)) {
      // Ignored entries are reported too: the save at exit will drop them.
      const LoadStatus st = load(path);
      if (!st.ok || st.ignored > 0)
        std::cerr << "ember: warning: " << env_var_ << ": " << st.message << "\n";
    }
    std::lock_guard<std::mutex> lock(exit_mutex);
    if (sets_to_save().empty()) std::atexit(save_sets_at_exit);
    sets_to_save().emplace_back(this, path);
  });
}

BenchmarkStats BenchmarkCacheSet::stats() {
  load_env_file_once();
  BenchmarkStats total;
  for (const auto& c : caches_) {
    const BenchmarkStats s = c->stats();
    total.hits += s.hits;
    total.misses += s.misses;
    total.finds += s.finds;
    total.find_seconds += s.find_seconds;
    total.fallbacks += s.fallbacks;
    total.entries += s.entries;
  }
  return total;
}

std::vector<BenchmarkEntry> BenchmarkCacheSet::entries() {
  load_env_file_once();
  std::vector<BenchmarkEntry> out;
  for (size_t pass = 0; pass < caches_.size(); ++pass)
    for (const auto& snap : caches_[pass]->snapshot()) {
      const AlgoResult& r = snap.entry->choice();
      out.push_back({caches_[pass]->name(), snap.key, algo_name_(pass, r.algo), r.time_ms,
                     r.workspace_bytes});
    }
  return out;
}

void BenchmarkCacheSet::save(const std::string& path) {
  CacheFile file{backend_, machine_tag(), key_format_, {}};
  for (const auto& c : caches_)
    for (const auto& snap : c->snapshot())
      file.entries.push_back({c->name(), snap.key, snap.entry->ranked});
  write_cache_file_atomically(path, file);
}

LoadStatus BenchmarkCacheSet::load(const std::string& path) {
  LoadStatus st;
  CacheFile file;
  std::string error;
  if (!read_cache_file(path, file, error)) {
    st.message = "benchmark cache " + path + " ignored: " + error;
    return st;
  }
  st.ok = true;
  if (file.backend != backend_ || file.machine_tag != machine_tag() ||
      file.key_format != key_format_) {
    st.ignored = file.entries.size();
    st.message = "benchmark cache " + path + " is for " + file.backend + " on " +
                 file.machine_tag + " (key format " + std::to_string(file.key_format) +
                 "), not " + backend_ + " on " + machine_tag() + " (key format " +
                 std::to_string(key_format_) + "): entries ignored";
    return st;
  }
  size_t unknown_pass = 0, invalid = 0;
  for (CacheFile::Entry& e : file.entries) {
    auto c = std::find_if(caches_.begin(), caches_.end(),
                          [&](const auto& c) { return c->name() == e.pass; });
    const size_t pass = static_cast<size_t>(c - caches_.begin());
    if (c == caches_.end())
      ++unknown_pass;
    else if (valid_result_ &&
             !std::all_of(e.results.begin(), e.results.end(),
                          [&](const AlgoResult& r) { return valid_result_(pass, r); }))
      ++invalid;
    else if ((*c)->insert(e.key, std::move(e.results)))
      ++st.loaded;
    else
      ++st.kept;
  }
  st.ignored = unknown_pass + invalid;
  if (unknown_pass > 0)
    st.message = "benchmark cache " + path + ": " + std::to_string(unknown_pass) +
                 " entries for passes that " + backend_ + " does not have ignored";
  if (invalid > 0)
    st.message += std::string(st.message.empty() ? "benchmark cache " + path + ":" : ";") + " " +
                  std::to_string(invalid) + " entries naming an algorithm or math type that " +
                  backend_ + " does not have ignored";
  return st;
}

void BenchmarkCacheSet::clear() {
  for (const auto& c : caches_) c->clear();
}

// ---- the machine tags and the cuDNN set ----

std::string cpu_isa_tag() {
  // The kernels are compiled for one instruction set (-march=native); the
  // widest vector extension they may use names it.
#if defined(__AVX512F__)
  const char* isa = "avx512";
#elif defined(__AVX2__)
  const char* isa = "avx2";
#elif defined(__AVX__)
  const char* isa = "avx";
#elif defined(__ARM_NEON)
  const char* isa = "neon";
#elif defined(__SSE2__)
  const char* isa = "sse2";
#else
  const char* isa = "generic";
#endif
#if defined(__x86_64__)
  return std::string("x86_64-") + isa;
#elif defined(__aarch64__)
  return std::string("aarch64-") + isa;
#else
  return isa;
#endif
}

BenchmarkCacheSet& cudnn_conv_caches() {
  // Tagged with the current device from the start: any first use (stats,
  // entries, a conv) loads EMBER_CUDNN_CACHE, and under a placeholder tag the
  // file's entries would be ignored and then overwritten at exit.
  // Never destroyed: a set built after another set registered the exit save
  // would be destroyed before that save ran, and its file never written.
  static auto* set = new BenchmarkCacheSet(
      "cudnn_conv", 1, {"forward", "backward_data", "backward_weight"},
      [](size_t, int algo) { return "algo" + std::to_string(algo); }, "EMBER_CUDNN_CACHE",
      cuda::detail::backend().cudnn_current_machine_tag(),
      cuda::detail::backend().cudnn_result_valid);
  return *set;
}

}  // namespace ember::bench
