// Benchmark mode (kernels/common/benchmark_cache.*, core/backends.*,
// kernels/cpu/conv_algo_select.cpp): the cache's selection rule, fallbacks,
// single search per key under concurrency, statistics, persistence (round
// trip, corrupt and foreign files, the environment variable), the switches'
// defaults, and the CPU conv choice.
#include "test_helpers.h"

#include <ember/core/backends.h>
#include <ember/core/cuda/backend.h>
#include <ember/core/ops/nn_ops/conv.h>
#include <ember/kernels/common/benchmark_cache.h>
#include <ember/kernels/common/conv_params.h>
#include <ember/kernels/common/kernel_registry.h>
#include <ember/kernels/cpu/conv.h>
#include <ember/kernels/cpu/conv_algo_cache.h>
#include <ember/kernels/cpu/conv_algo_select.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

using namespace ember;
using bench::AlgoResult;
using bench::BenchmarkCache;
using bench::BenchmarkCacheSet;

namespace {

namespace fs = std::filesystem;

BenchmarkCacheSet make_set(const std::string& machine = "test-machine", int key_format = 1,
                           const std::string& env_var = "") {
  return BenchmarkCacheSet(
      "test_conv", key_format, {"forward", "backward_data"},
      [](size_t pass, int algo) { return "p" + std::to_string(pass) + "a" + std::to_string(algo); },
      env_var, machine);
}

// A search that returns `results` and counts its runs.
BenchmarkCache::FindFn counting_find(std::atomic<int>& runs, std::vector<AlgoResult> results) {
  return [&runs, results] {
    ++runs;
    return results;
  };
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// What the CUDA entry of the normalization table answers for x: whether
// batch_norm would go to cuDNN. False where the build has no such entry.
bool cudnn_batch_norm_applies(const Tensor& x) {
  const auto& applies = kernels().normalization.cudnn_batch_norm_applies;
  return applies.has(kCUDA) && applies.on(Device(kCUDA, 0), "batch_norm")(x, 1e-5, {}, {});
}

const std::vector<AlgoResult> kThreeResults = {
    {0, 0, 4096, 2.0}, {1, 0, 0, 1.0}, {2, 1, 1 << 20, 1.5}};

}  // namespace

TEST_CASE("backends switches default to PyTorch's and can be set", "[bench_cache]") {
  CHECK_FALSE(backends::cudnn::benchmark());
  CHECK_FALSE(backends::cudnn::deterministic());
  CHECK(backends::cudnn::allow_tf32());
  CHECK(backends::cudnn::workspace_limit() == size_t{1} << 30);
  CHECK_FALSE(backends::cpu::benchmark());
  CHECK_FALSE(backends::cpu::deterministic());

  backends::cudnn::set_benchmark(true);
  backends::cudnn::set_allow_tf32(false);
  backends::cudnn::set_workspace_limit(123);
  backends::cpu::set_deterministic(true);
  CHECK(backends::cudnn::benchmark());
  CHECK_FALSE(backends::cudnn::allow_tf32());
  CHECK(backends::cudnn::workspace_limit() == 123);
  CHECK(backends::cpu::deterministic());
  CHECK_FALSE(backends::cpu::benchmark());  // the two backends' switches are separate
  backends::cudnn::set_benchmark(false);
  backends::cudnn::set_allow_tf32(true);
  backends::cudnn::set_workspace_limit(size_t{1} << 30);
  backends::cpu::set_deterministic(false);
}

TEST_CASE("cudnn batch norm: off by default, and never for CPU tensors", "[bench_cache]") {
  CHECK_FALSE(backends::cudnn::batch_norm_enabled());
  const Tensor x = ones({2, 3, 4});
  CHECK_FALSE(cudnn_batch_norm_applies(x));
  backends::cudnn::set_batch_norm_enabled(true);
  CHECK(backends::cudnn::batch_norm_enabled());
  CHECK_FALSE(cudnn_batch_norm_applies(x));
  // Without a device the op keeps to the CPU kernels: values as with the switch off.
  const Tensor y = batch_norm(x * arange(24, kFloat).view({2, 3, 4}), {}, {}, {}, {}, true, 0.1,
                              1e-5);
  backends::cudnn::set_batch_norm_enabled(false);
  const Tensor want = batch_norm(x * arange(24, kFloat).view({2, 3, 4}), {}, {}, {}, {}, true,
                                 0.1, 1e-5);
  CHECK(equal(y, want));
}

TEST_CASE("benchmark entry ranks results fastest first and keeps the fastest zero-workspace one",
          "[bench_cache]") {
  const bench::CacheEntry e = bench::make_entry(kThreeResults);
  REQUIRE(e.ranked.size() == 3);
  CHECK(e.ranked[0].algo == 1);
  CHECK(e.ranked[1].algo == 2);
  CHECK(e.ranked[2].algo == 0);
  CHECK(e.choice().algo == 1);
  REQUIRE(e.fastest_no_workspace);
  CHECK(e.fastest_no_workspace->algo == 1);

  const bench::CacheEntry none = bench::make_entry({{3, 0, 10, 1.0}, {4, 0, 20, 2.0}});
  CHECK_FALSE(none.fastest_no_workspace);
}

TEST_CASE("benchmark selection prefers the smallest workspace among results within 5%",
          "[bench_cache]") {
  // 1.04 is within 5% of 1.0 and needs less workspace; 1.06 is not within.
  const bench::CacheEntry e = bench::make_entry(
      {{0, 0, 1000, 1.0}, {1, 0, 500, 1.04}, {2, 0, 0, 1.06}, {3, 0, 800, 1.03}});
  CHECK(e.choice().algo == 1);
  CHECK(e.ranked[0].algo == 0);  // the ranking itself stays by time
  REQUIRE(e.fastest_no_workspace);
  CHECK(e.fastest_no_workspace->algo == 2);
}

TEST_CASE("benchmark cache: a new key runs one find, a repeated key is a hit", "[bench_cache]") {
  BenchmarkCache cache("forward");
  std::atomic<int> runs{0};
  auto a = cache.get_or_find("shape-a", counting_find(runs, kThreeResults));
  CHECK(runs == 1);
  CHECK(a->choice().algo == 1);
  auto again = cache.get_or_find("shape-a", counting_find(runs, kThreeResults));
  CHECK(runs == 1);
  CHECK(again == a);
  cache.get_or_find("shape-b", counting_find(runs, {{7, 0, 0, 3.0}}));
  CHECK(runs == 2);

  const backends::BenchmarkStats s = cache.stats();
  CHECK(s.hits == 1);
  CHECK(s.misses == 2);
  CHECK(s.finds == 2);
  CHECK(s.entries == 2);
  CHECK(s.find_seconds >= 0);
  CHECK(s.fallbacks == 0);

  cache.clear();
  const backends::BenchmarkStats cleared = cache.stats();
  CHECK(cleared.entries == 0);
  CHECK(cleared.finds == 0);
  CHECK(cleared.hits == 0);
  CHECK_FALSE(cache.lookup("shape-a"));
}

TEST_CASE("benchmark cache counts the seconds spent finding", "[bench_cache]") {
  BenchmarkCache cache("forward");
  cache.get_or_find("slow", [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    return std::vector<AlgoResult>{{0, 0, 0, 1.0}};
  });
  CHECK(cache.stats().find_seconds >= 0.025);
}

TEST_CASE("benchmark cache: concurrent first calls on one key run a single find",
          "[bench_cache]") {
  BenchmarkCache cache("forward");
  std::atomic<int> runs{0};
  std::atomic<bool> go{false};
  constexpr int kThreads = 8;
  std::vector<int> chosen(kThreads, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      while (!go) std::this_thread::yield();
      auto e = cache.get_or_find("shared", [&] {
        ++runs;
        // Long enough that the other threads arrive while it searches.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return kThreeResults;
      });
      chosen[t] = e->choice().algo;
    });
  go = true;
  for (auto& th : threads) th.join();
  CHECK(runs == 1);
  for (int c : chosen) CHECK(c == 1);
  const backends::BenchmarkStats s = cache.stats();
  CHECK(s.finds == 1);
  CHECK(s.hits + s.misses == kThreads);
  CHECK(s.entries == 1);
}

TEST_CASE("benchmark cache: a failed find leaves the key uncached and the next call searches",
          "[bench_cache]") {
  BenchmarkCache cache("forward");
  REQUIRE_THROWS_WITH(cache.get_or_find("k",
                                        []() -> std::vector<AlgoResult> {
                                          throw std::runtime_error("search broke");
                                        }),
                      Catch::Contains("search broke"));
  CHECK_FALSE(cache.lookup("k"));
  std::atomic<int> runs{0};
  cache.get_or_find("k", counting_find(runs, kThreeResults));
  CHECK(runs == 1);
  CHECK(cache.stats().finds == 1);
}

TEST_CASE("benchmark cache: next after failure steps down the ranking without a new find",
          "[bench_cache]") {
  BenchmarkCache cache("forward");
  std::atomic<int> runs{0};
  auto e = cache.get_or_find("k", counting_find(runs, kThreeResults));
  REQUIRE(e->choice().algo == 1);

  auto next = cache.next_after_failure("k", e->choice());
  REQUIRE(next);
  CHECK(next->algo == 2);  // the next fastest
  CHECK(cache.lookup("k")->choice().algo == 2);
  // A second thread reporting the same stale failure gets the current choice.
  auto stale = cache.next_after_failure("k", e->choice());
  REQUIRE(stale);
  CHECK(stale->algo == 2);
  CHECK(cache.stats().fallbacks == 1);

  next = cache.next_after_failure("k", *next);
  REQUIRE(next);
  CHECK(next->algo == 0);
  CHECK_FALSE(cache.next_after_failure("k", *next));  // every result failed
  CHECK(cache.stats().fallbacks == 3);
  CHECK(runs == 1);  // never searched again
  CHECK(cache.get_or_find("k", counting_find(runs, kThreeResults)));
  CHECK(runs == 1);
  CHECK_FALSE(cache.next_after_failure("unknown", kThreeResults[0]));
}

TEST_CASE("benchmark cache persistence round-trips: after a load the same keys make no find",
          "[bench_cache]") {
  ember_test::TempDir dir("bench_cache_test");
  const std::string path = dir.file("cache.txt");
  BenchmarkCacheSet first = make_set();
  std::atomic<int> runs{0};
  first.cache(0).get_or_find("n1,c3", counting_find(runs, kThreeResults));
  first.cache(1).get_or_find("n1,c3", counting_find(runs, {{5, 0, 0, 0.125}}));
  // A time that needs all 17 digits to come back equal.
  first.cache(1).get_or_find("n2,c3", counting_find(runs, {{6, 2, 77, 0.1 + 0.2}}));
  first.save(path);
  CHECK(read_text(path).rfind("ember-benchmark-cache 1\n", 0) == 0);

  BenchmarkCacheSet second = make_set();
  const bench::LoadStatus st = second.load(path);
  CHECK(st.ok);
  CHECK(st.loaded == 3);
  CHECK(st.ignored == 0);
  std::atomic<int> second_runs{0};
  auto e = second.cache(0).get_or_find("n1,c3", counting_find(second_runs, {}));
  second.cache(1).get_or_find("n1,c3", counting_find(second_runs, {}));
  auto e2 = second.cache(1).get_or_find("n2,c3", counting_find(second_runs, {}));
  CHECK(second_runs == 0);
  CHECK(second.stats().finds == 0);
  CHECK(second.stats().hits == 3);
  REQUIRE(e->ranked.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(e->ranked[i].algo == first.cache(0).lookup("n1,c3")->ranked[i].algo);
    CHECK(e->ranked[i].time_ms == first.cache(0).lookup("n1,c3")->ranked[i].time_ms);
    CHECK(e->ranked[i].workspace_bytes ==
          first.cache(0).lookup("n1,c3")->ranked[i].workspace_bytes);
  }
  CHECK(e2->choice().time_ms == 0.1 + 0.2);
  CHECK(e2->choice().math_type == 2);
  CHECK(e2->choice().workspace_bytes == 77);

  // Listing: pass, key, the chosen algorithm's name and time.
  const std::vector<backends::BenchmarkEntry> list = second.entries();
  REQUIRE(list.size() == 3);
  CHECK(list[0].pass == "forward");
  CHECK(list[0].key == "n1,c3");
  CHECK(list[0].algo == "p0a1");
  CHECK(list[0].time_ms == 1.0);
  CHECK(list[1].pass == "backward_data");
  CHECK(list[2].algo == "p1a6");

  // Keys measured in this process win over the file's.
  BenchmarkCacheSet third = make_set();
  third.cache(0).get_or_find("n1,c3", counting_find(runs, {{9, 0, 0, 9.0}}));
  const bench::LoadStatus st3 = third.load(path);
  CHECK(st3.loaded == 2);
  CHECK(st3.kept == 1);
  CHECK(third.cache(0).lookup("n1,c3")->choice().algo == 9);
}

TEST_CASE("benchmark cache save is atomic: no temporary file is left and a file is replaced",
          "[bench_cache]") {
  ember_test::TempDir dir("bench_cache_test");
  const std::string path = dir.file("cache.txt");
  write_text(path, "old contents\n");
  BenchmarkCacheSet set = make_set();
  std::atomic<int> runs{0};
  set.cache(0).get_or_find("k", counting_find(runs, kThreeResults));
  set.save(path);
  int files = 0;
  for (const auto& f : fs::directory_iterator(dir.path())) {
    ++files;
    CHECK(f.path().filename() == "cache.txt");
  }
  CHECK(files == 1);
  CHECK(make_set().load(path).loaded == 1);

  REQUIRE_THROWS_WITH(set.save(dir.file("no/such/dir/cache.txt")),
                      Catch::Contains("save_benchmark_cache: cannot write") &&
                          Catch::Contains("no/such/dir/cache.txt"));
}

TEST_CASE("benchmark cache: a corrupt, truncated or foreign-version file is reported and ignored",
          "[bench_cache]") {
  ember_test::TempDir dir("bench_cache_test");
  const std::string good = dir.file("good.txt");
  {
    BenchmarkCacheSet set = make_set();
    std::atomic<int> runs{0};
    set.cache(0).get_or_find("a", counting_find(runs, kThreeResults));
    set.cache(0).get_or_find("b", counting_find(runs, kThreeResults));
    set.save(good);
  }
  const std::string text = read_text(good);
  const std::string bad = dir.file("bad.txt");

  struct Case {
    std::string name, contents, message;
  };
  const std::string no_end = text.substr(0, text.rfind("end "));
  const std::string half = text.substr(0, text.size() / 2);
  std::string bad_number = text;
  bad_number.replace(bad_number.find(" 4096 "), 6, " 4x96 ");
  std::string wrong_count = text;
  wrong_count.replace(wrong_count.find("end 2"), 5, "end 3");
  std::string new_version = text;
  new_version.replace(0, text.find('\n'), "ember-benchmark-cache 2");
  const std::vector<Case> cases = {
      {"empty", "", "not a benchmark cache"},
      {"binary junk", std::string("\x00\xff\x13garbage\n\n", 12), "not a benchmark cache"},
      {"truncated before the end line", no_end, "truncated"},
      {"truncated in the middle", half, "ignored"},
      {"a field that is not a number", bad_number, "corrupt entry on line 5"},
      {"an end line with the wrong count", wrong_count, "truncated"},
      {"another file version", new_version, "file format version 2"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    write_text(bad, c.contents);
    BenchmarkCacheSet set = make_set();
    const bench::LoadStatus st = set.load(bad);
    CHECK_FALSE(st.ok);
    CHECK_THAT(st.message, Catch::Contains(c.message) && Catch::Contains(bad));
    CHECK(set.stats().entries == 0);  // nothing of a bad file is loaded
  }
  const bench::LoadStatus missing = make_set().load(dir.file("missing.txt"));
  CHECK_FALSE(missing.ok);
  CHECK_THAT(missing.message, Catch::Contains("cannot open"));
}

TEST_CASE("benchmark cache: entries for another machine or key format are ignored and counted",
          "[bench_cache]") {
  ember_test::TempDir dir("bench_cache_test");
  const std::string path = dir.file("cache.txt");
  BenchmarkCacheSet other_machine = make_set("other-isa");
  std::atomic<int> runs{0};
  other_machine.cache(0).get_or_find("a", counting_find(runs, kThreeResults));
  other_machine.cache(1).get_or_find("a", counting_find(runs, kThreeResults));
  other_machine.save(path);

  BenchmarkCacheSet here = make_set("test-machine");
  bench::LoadStatus st = here.load(path);
  CHECK(st.ok);  // a valid file, just not for us
  CHECK(st.loaded == 0);
  CHECK(st.ignored == 2);
  CHECK_THAT(st.message, Catch::Contains("other-isa") && Catch::Contains("test-machine"));
  CHECK(here.stats().entries == 0);

  BenchmarkCacheSet old_keys = make_set("test-machine", 1);
  old_keys.cache(0).get_or_find("a", counting_find(runs, kThreeResults));
  old_keys.save(path);
  st = make_set("test-machine", 2).load(path);
  CHECK(st.ok);
  CHECK(st.ignored == 1);
  CHECK(st.loaded == 0);
  CHECK_THAT(st.message, Catch::Contains("key format 1"));

  // The machine tag can be set once the device is known (the CUDA backend).
  BenchmarkCacheSet late_tag = make_set("unknown-yet");
  late_tag.set_machine_tag("test-machine");
  CHECK(late_tag.load(path).loaded == 1);

  // A pass this backend does not have.
  BenchmarkCacheSet two_passes = make_set();
  two_passes.cache(0).get_or_find("a", counting_find(runs, kThreeResults));
  two_passes.cache(1).get_or_find("a", counting_find(runs, kThreeResults));
  two_passes.save(path);
  BenchmarkCacheSet one_pass(
      "test_conv", 1, {"forward"}, [](size_t, int) { return std::string("x"); }, "",
      "test-machine");
  st = one_pass.load(path);
  CHECK(st.ok);
  CHECK(st.loaded == 1);
  CHECK(st.ignored == 1);
  CHECK_THAT(st.message, Catch::Contains("1 entries for passes that test_conv does not have"));
}

TEST_CASE("benchmark cache environment variable loads at first use and saves at exit",
          "[bench_cache]") {
  ember_test::TempDir dir("bench_cache_test");
  const std::string path = dir.file("env_cache.txt");
  const char* var = "EMBER_TEST_BENCH_CACHE_FILE";
  // The save happens in std::atexit, so it runs in a child process, which
  // must not print what this process has buffered.
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setenv(var, path.c_str(), 1);
    auto* set = new BenchmarkCacheSet(make_set("test-machine", 1, var));  // lives until exit
    set->cache(0).get_or_find("from-child", [] { return kThreeResults; });
    std::exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  REQUIRE(fs::exists(path));

  ::setenv(var, path.c_str(), 1);
  BenchmarkCacheSet set = make_set("test-machine", 1, var);
  std::atomic<int> runs{0};
  auto e = set.cache(0).get_or_find("from-child", counting_find(runs, {}));
  ::unsetenv(var);
  CHECK(runs == 0);
  CHECK(e->choice().algo == 1);
}

TEST_CASE("conv params key names every field that changes the answer", "[bench_cache]") {
  ConvParams p;
  p.n = 2, p.c = 3, p.h = 9, p.w = 8, p.k = 4, p.r = 3, p.s = 2, p.groups = 1;
  p.stride = {2, 1}, p.padding = {1, 0}, p.dilation = {1, 2};
  CHECK(p.key() == "n2,c3,h9,w8,k4,r3,s2,g1,st2x1,pad1x0,dil1x2,float32");
  std::vector<ConvParams> variants(11, p);
  variants[0].n = 3, variants[1].c = 6, variants[2].h = 10, variants[3].w = 9, variants[4].k = 5;
  variants[5].r = 1, variants[6].s = 1, variants[7].groups = 3, variants[8].stride = {1, 2};
  variants[9].padding = {0, 1}, variants[10].dilation = {2, 1};
  std::vector<std::string> keys{p.key()};
  for (const auto& v : variants) keys.push_back(v.key());
  ConvParams d = p;
  d.dtype = ScalarType::Double;
  keys.push_back(d.key());
  std::sort(keys.begin(), keys.end());
  CHECK(std::unique(keys.begin(), keys.end()) == keys.end());
  for (const auto& k : keys) CHECK(k.find_first_of(" \t\n") == std::string::npos);

  CHECK(std::string(cpu::conv_algo_name(cpu::ConvAlgo::kIm2colGemm)) == "im2col_gemm");
  CHECK(std::string(cpu::conv_algo_name(cpu::ConvAlgo::kGemm1x1)) == "gemm_1x1");
  CHECK(std::string(cpu::conv_algo_name(cpu::ConvAlgo::kDirect)) == "direct");
  CHECK(std::string(conv_pass_name(ConvPass::kBackwardWeight)) == "backward_weight");
}

TEST_CASE("cpu conv benchmark key holds the thread count and the set the ISA", "[bench_cache]") {
  ConvParams p;
  p.n = 1, p.c = 1, p.h = 3, p.w = 3, p.k = 1, p.r = 1, p.s = 1;
  const int threads = get_num_threads();
  const std::string key = cpu::conv_benchmark_key(p);
  CHECK(key == "threads=" + std::to_string(threads) + "|" + p.key());
  set_num_threads(threads + 1);
  CHECK(cpu::conv_benchmark_key(p) != key);
  set_num_threads(threads);
  CHECK(cpu::conv_benchmark_caches().machine_tag() == bench::cpu_isa_tag());
  CHECK_FALSE(bench::cpu_isa_tag().empty());
}

TEST_CASE("backends::cpu cache functions save, clear and load the CPU conv caches",
          "[bench_cache]") {
  ember_test::TempDir dir("bench_cache_test");
  const std::string path = dir.file("cpu.txt");
  backends::cpu::clear_benchmark_cache();
  std::atomic<int> runs{0};
  cpu::conv_benchmark_caches().cache(2).get_or_find("k-api", counting_find(runs, kThreeResults));
  CHECK(backends::cpu::benchmark_stats().finds == 1);
  REQUIRE(backends::cpu::benchmark_entries().size() == 1);
  CHECK(backends::cpu::benchmark_entries()[0].pass == "backward_weight");
  CHECK(backends::cpu::benchmark_entries()[0].algo == "gemm_1x1");
  backends::cpu::save_benchmark_cache(path);
  backends::cpu::clear_benchmark_cache();
  CHECK(backends::cpu::benchmark_stats().entries == 0);
  CHECK(backends::cpu::load_benchmark_cache(path));
  CHECK(backends::cpu::benchmark_stats().entries == 1);
  CHECK(backends::cpu::benchmark_stats().finds == 0);
  write_text(path, "junk");
  CHECK_FALSE(backends::cpu::load_benchmark_cache(path));
  // The cuDNN caches are separate and empty without the CUDA backend's use.
  CHECK(backends::cudnn::benchmark_entries().empty());
  backends::cpu::clear_benchmark_cache();
}

// ---- the CPU conv choice (kernels/cpu/conv_algo_select.cpp) ----


namespace {

// Turns CPU benchmark mode on with empty caches for one test, and off after.
struct CpuBenchmarkOn {
  CpuBenchmarkOn() {
    backends::cpu::clear_benchmark_cache();
    backends::cpu::set_benchmark(true);
  }
  ~CpuBenchmarkOn() {
    backends::cpu::set_benchmark(false);
    backends::cpu::set_deterministic(false);
    backends::cpu::clear_benchmark_cache();
  }
};

ConvParams conv_params(int64_t n, int64_t c, int64_t hw, int64_t k, int64_t rs,
                            int64_t stride = 1, int64_t pad = 0) {
  ConvParams p;
  p.n = n, p.c = c, p.h = hw, p.w = hw, p.k = k, p.r = rs, p.s = rs;
  p.stride = {stride, stride}, p.padding = {pad, pad};
  return p;
}

// The finds of one pass's cache.
int64_t pass_finds(ConvPass pass) {
  return cpu::conv_benchmark_caches().cache(static_cast<size_t>(pass)).stats().finds;
}

}  // namespace

TEST_CASE("cpu conv choice with benchmark off is the heuristic and touches no cache",
          "[bench_cache]") {
  backends::cpu::clear_benchmark_cache();
  const ConvParams p = conv_params(2, 3, 8, 4, 3);
  int runs = 0;
  const auto algo =
      cpu::choose_conv_algo(ConvPass::kForward, p, [&](cpu::ConvAlgo) { ++runs; });
  CHECK(algo == cpu::conv_heuristic_algo(ConvPass::kForward, p));
  CHECK(runs == 0);
  const backends::BenchmarkStats s = backends::cpu::benchmark_stats();
  CHECK(s.hits + s.misses + s.finds + s.entries == 0);
}

TEST_CASE("cpu conv choice times each supported algorithm once per shape, then hits",
          "[bench_cache]") {
  CpuBenchmarkOn on;
  const ConvParams p = conv_params(2, 3, 8, 4, 3);  // im2col and direct apply
  REQUIRE(cpu::conv_algo_supports(cpu::ConvAlgo::kDirect, ConvPass::kForward, p));
  REQUIRE_FALSE(cpu::conv_algo_supports(cpu::ConvAlgo::kGemm1x1, ConvPass::kForward, p));
  std::vector<int> runs(cpu::kNumConvAlgos, 0);
  const auto count = [&](cpu::ConvAlgo a) { ++runs[static_cast<int>(a)]; };

  const cpu::ConvAlgo first = cpu::choose_conv_algo(ConvPass::kForward, p, count);
  // Every supported candidate runs at least its warm-up; whether timed runs
  // follow depends on timing (a warm-up 3x slower than the best stops there).
  CHECK(runs[0] >= 1);
  CHECK(runs[2] >= 1);
  CHECK(runs[1] == 0);  // unsupported: never run
  CHECK(pass_finds(ConvPass::kForward) == 1);

  const std::vector<int> after_find = runs;
  CHECK(cpu::choose_conv_algo(ConvPass::kForward, p, count) == first);
  CHECK(runs == after_find);  // a hit runs nothing
  CHECK(pass_finds(ConvPass::kForward) == 1);
  CHECK(backends::cpu::benchmark_stats().hits == 1);

  // Each pass has its own cache; a new shape searches again.
  cpu::choose_conv_algo(ConvPass::kBackwardWeight, p, count);
  CHECK(pass_finds(ConvPass::kBackwardWeight) == 1);
  cpu::choose_conv_algo(ConvPass::kForward, conv_params(2, 3, 9, 4, 3), count);
  CHECK(pass_finds(ConvPass::kForward) == 2);
  CHECK(backends::cpu::benchmark_stats().entries == 3);
}

TEST_CASE("cpu conv choice with one candidate caches it without running the pass",
          "[bench_cache]") {
  CpuBenchmarkOn on;
  // Too many channels per group for direct; grouped, so not channels-last either; float64,
  // so not the implicit GEMM.
  ConvParams p = conv_params(1, 64, 6, 8, 3);
  p.groups = 2;
  p.dtype = ScalarType::Double;
  int runs = 0;
  const cpu::ConvAlgo algo =
      cpu::choose_conv_algo(ConvPass::kForward, p, [&](cpu::ConvAlgo) { ++runs; });
  CHECK(algo == cpu::ConvAlgo::kIm2colGemm);
  CHECK(runs == 0);
  CHECK(backends::cpu::benchmark_stats().finds == 1);
}

TEST_CASE("cpu conv choice skips an algorithm that runs out of memory", "[bench_cache]") {
  CpuBenchmarkOn on;
  const ConvParams p = conv_params(1, 2, 5, 2, 1);  // all three apply
  const auto algo = cpu::choose_conv_algo(ConvPass::kForward, p, [](cpu::ConvAlgo a) {
    if (a != cpu::ConvAlgo::kDirect) throw std::bad_alloc();
  });
  CHECK(algo == cpu::ConvAlgo::kDirect);
  REQUIRE(backends::cpu::benchmark_entries().size() == 1);
  CHECK(backends::cpu::benchmark_entries()[0].algo == "direct");

  // Every candidate out of memory: the error reaches the caller, nothing is cached.
  const ConvParams q = conv_params(1, 2, 6, 2, 1);
  CHECK_THROWS_AS(cpu::choose_conv_algo(ConvPass::kForward, q,
                                        [](cpu::ConvAlgo) { throw std::bad_alloc(); }),
                  std::bad_alloc);
  CHECK(backends::cpu::benchmark_stats().entries == 1);
}

TEST_CASE("cpu conv choice ignores a cached algorithm that does not apply to the shape",
          "[bench_cache]") {
  CpuBenchmarkOn on;
  const ConvParams p = conv_params(1, 2, 5, 2, 3);  // 3x3: not for gemm_1x1
  // As a file from another build could hold.
  cpu::conv_benchmark_caches().cache(0).insert(cpu::conv_benchmark_key(p),
                                               {{static_cast<int>(cpu::ConvAlgo::kGemm1x1), 0,
                                                 0, 0.5}});
  const auto algo = cpu::choose_conv_algo(ConvPass::kForward, p, [](cpu::ConvAlgo) {});
  CHECK(algo == cpu::conv_heuristic_algo(ConvPass::kForward, p));
}

TEST_CASE("cpu conv choice in deterministic mode keeps the heuristic", "[bench_cache]") {
  CpuBenchmarkOn on;
  backends::cpu::set_deterministic(true);
  const ConvParams p = conv_params(2, 3, 8, 4, 3);
  int runs = 0;
  CHECK(cpu::choose_conv_algo(ConvPass::kForward, p, [&](cpu::ConvAlgo) { ++runs; }) ==
        cpu::conv_heuristic_algo(ConvPass::kForward, p));
  CHECK(runs == 0);
  CHECK(backends::cpu::benchmark_stats().finds == 0);
}

namespace {

// Every algorithm that supports a pass of a 1x1 problem that all of them
// handle gives the result of the one benchmark mode chose.
template <typename T>
void check_every_algorithm_agrees(double tol) {
  // x: (2, 16, 7, 6), w: (6, 16, 1, 1): 1x1 with 16 channels, so every algorithm applies.
  ConvParams p = conv_params(2, 16, 7, 6, 1);
  p.w = 6;
  p.dtype = scalar_type_of<T>;
  manual_seed(5);
  const ScalarType dt = p.dtype;
  const Tensor x = randn({2, 16, 7, 6}, dt), w = randn({6, 16, 1, 1}, dt);
  const Tensor bias = randn({6}, dt), bias_c = randn({16}, dt);
  const Tensor gy = randn({2, 6, 7, 6}, dt);

  CpuBenchmarkOn on;
  const auto check_pass = [&](ConvPass pass, std::vector<int64_t> out_shape,
                              const std::function<void(cpu::ConvAlgo, T*)>& run) {
    INFO(conv_pass_name(pass) << " in " << dtype_name(dt));
    Tensor out = empty(out_shape, dt);
    const cpu::ConvAlgo chosen =
        cpu::choose_conv_algo(pass, p, [&](cpu::ConvAlgo a) { run(a, out.data_ptr<T>()); });
    run(chosen, out.data_ptr<T>());
    const std::vector<double> want = ember_test::values(out);
    int compared = 0;
    for (int a = 0; a < cpu::kNumConvAlgos; ++a) {
      const auto algo = static_cast<cpu::ConvAlgo>(a);
      if (!cpu::conv_algo_supports(algo, pass, p)) continue;
      INFO(cpu::conv_algo_name(algo));
      Tensor other = full(out_shape, 7.0, dt);  // every element must be overwritten
      run(algo, other.data_ptr<T>());
      ember_test::require_values(other, want, tol);
      ++compared;
    }
    // im2col, 1x1, direct and channels-last in every pass; the implicit GEMM too for a
    // float32 forward in a build with AVX-512 or AVX2.
    const bool implicit = pass == ConvPass::kForward && dt == kFloat &&
                          cpu::conv_implicit_gemm_available();
    CHECK(compared == (implicit ? 5 : 4));
  };
  check_pass(ConvPass::kForward, {2, 6, 7, 6}, [&](cpu::ConvAlgo a, T* y) {
    cpu::conv_forward<T>(a, p, {x.data_ptr<T>(), w.data_ptr<T>(), bias.data_ptr<T>(), y});
  });
  check_pass(ConvPass::kBackwardData, {2, 16, 7, 6}, [&](cpu::ConvAlgo a, T* gx) {
    cpu::conv_backward_data<T>(a, p, {gy.data_ptr<T>(), w.data_ptr<T>(), bias_c.data_ptr<T>(), gx});
  });
  check_pass(ConvPass::kBackwardWeight, {6, 16, 1, 1}, [&](cpu::ConvAlgo a, T* gw) {
    cpu::conv_backward_weight<T>(a, p, {x.data_ptr<T>(), gy.data_ptr<T>(), gw});
  });
  CHECK(backends::cpu::benchmark_stats().finds == 3);
}

}  // namespace

TEST_CASE("every cpu conv algorithm gives the chosen algorithm's result, in every pass",
          "[bench_cache]") {
  check_every_algorithm_agrees<double>(1e-12);
  check_every_algorithm_agrees<float>(1e-4);
}

TEST_CASE("conv2d with cpu benchmark on matches benchmark off and searches each pass once",
          "[bench_cache]") {
  manual_seed(11);
  // x: (3, 3, 9, 9), w: (5, 3, 3, 3): stride 2, padding 1, as the sample model's first conv.
  const Tensor x0 = randn({3, 3, 9, 9}), w0 = randn({5, 3, 3, 3}), b0 = randn({5});
  const auto step = [&](Tensor& gx, Tensor& gw) {
    const Tensor x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
    const Tensor y = conv2d(x, w, b0, 2, 1);
    (y * y).sum().backward();
    gx = x.grad(), gw = w.grad();
    return y;
  };
  Tensor gx_off, gw_off, gx_on, gw_on;
  backends::cpu::clear_benchmark_cache();
  const Tensor y_off = step(gx_off, gw_off);
  CHECK(backends::cpu::benchmark_stats().finds == 0);

  CpuBenchmarkOn on;
  const Tensor y_on = step(gx_on, gw_on);
  CHECK(pass_finds(ConvPass::kForward) == 1);
  CHECK(pass_finds(ConvPass::kBackwardData) == 1);
  CHECK(pass_finds(ConvPass::kBackwardWeight) == 1);
  ember_test::require_values(y_on, ember_test::values(y_off), 1e-4);
  ember_test::require_values(gx_on, ember_test::values(gx_off), 1e-4);
  ember_test::require_values(gw_on, ember_test::values(gw_off), 1e-4);

  step(gx_on, gw_on);  // the same shape again: three hits, no find
  const backends::BenchmarkStats s = backends::cpu::benchmark_stats();
  CHECK(s.finds == 3);
  CHECK(s.hits == 3);
  CHECK(s.misses == 3);
  CHECK(s.entries == 3);
  for (const backends::BenchmarkEntry& e : backends::cpu::benchmark_entries()) {
    INFO(e.pass << " " << e.key);
    CHECK_THAT(e.key, Catch::Contains("n3,c3,h9,w9,k5,r3,s3,g1,st2x2,pad1x1,dil1x1,float32"));
    // The candidates for 3 channels; the implicit GEMM only for the forward.
    CHECK((e.algo == "im2col_gemm" || e.algo == "direct" || e.algo == "winograd" ||
           (e.algo == "implicit_gemm" && e.pass == "forward")));
  }
}

// Run in a fresh process by the next test: the CPU set is built (and
// registers the save at exit) before the cuDNN set; both must be saved.
TEST_CASE("child: touches the CPU cache set, then the cuDNN one", "[.bench_cache_exit_child]") {
  (void)backends::cpu::benchmark_stats();
  (void)backends::cudnn::benchmark_stats();
  SUCCEED("the files are checked by the parent");
}

TEST_CASE("both process-wide cache sets are saved at exit, whichever was built first",
          "[bench_cache]") {
  ember_test::TempDir dir("bench_cache_exit_order");
  const std::string cpu_path = dir.file("cpu.txt"), cudnn_path = dir.file("cudnn.txt");
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // A new image of this test binary: the sets of this process are already built.
    ::setenv("EMBER_CPU_CONV_CACHE", cpu_path.c_str(), 1);
    ::setenv("EMBER_CUDNN_CACHE", cudnn_path.c_str(), 1);
    const int null_fd = ::open("/dev/null", O_WRONLY);
    ::dup2(null_fd, STDOUT_FILENO);
    ::execl("/proc/self/exe", "ember_tests", "[.bench_cache_exit_child]", nullptr);
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(fs::exists(cpu_path));
  CHECK(fs::exists(cudnn_path));
}

TEST_CASE("benchmark cache: entries naming an algorithm the backend does not have are ignored",
          "[bench_cache]") {
  ember_test::TempDir dir("bench_cache_invalid");
  const std::string path = dir.file("cache.txt");
  BenchmarkCacheSet writer = make_set();
  std::atomic<int> runs{0};
  writer.cache(0).get_or_find("good", counting_find(runs, {{1, 0, 0, 1.0}}));
  writer.cache(0).get_or_find("bad", counting_find(runs, {{1, 0, 0, 1.0}, {9, 0, 0, 2.0}}));
  writer.save(path);
  // This backend runs algorithms 0..4 only.
  BenchmarkCacheSet reader(
      "test_conv", 1, {"forward", "backward_data"}, [](size_t, int) { return std::string("x"); },
      "", "test-machine", [](size_t, const AlgoResult& r) { return r.algo < 5; });
  const bench::LoadStatus st = reader.load(path);
  CHECK(st.ok);
  CHECK(st.loaded == 1);
  CHECK(st.ignored == 1);
  CHECK_THAT(st.message, Catch::Contains("1 entries naming an algorithm or math type"));
  CHECK(reader.entries().size() == 1);
}

TEST_CASE("cudnn cache: loaded results must name an algorithm of their pass and a math type",
          "[bench_cache]") {
  const auto valid = cuda::detail::backend().cudnn_result_valid;
#ifdef EMBER_WITH_CUDA
  CHECK(valid(0, {0, 0, 0, 1.0}));
  CHECK(valid(2, {1, 3, 0, 1.0}));  // FMA math
  CHECK_FALSE(valid(0, {-1, 0, 0, 1.0}));
  CHECK_FALSE(valid(0, {1000, 0, 0, 1.0}));
  CHECK_FALSE(valid(1, {0, 7, 0, 1.0}));  // no such math type
  CHECK_FALSE(valid(3, {0, 0, 0, 1.0}));  // no such pass
#else
  CHECK_FALSE(valid(0, {0, 0, 0, 1.0}));  // nothing runs without cuDNN
#endif
}
