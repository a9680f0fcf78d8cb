// The API in this process: calls before init, init's argument errors, env://
// parsing, the fingerprint records, and a world of one through file:// with
// the inputs the gloo backend refuses.
#include <catch2/catch.hpp>
#include <ember/distributed/distributed.h>
#include <ember/distributed/fingerprint.h>
#include <ember/distributed/init_methods.h>
#include <ember/ember.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <unistd.h>

namespace dist = ember::distributed;
using Catch::Contains;
using ember::ScalarType;
using ember::Tensor;

namespace {

// A directory name under the system temp dir, not created; whatever init
// made there is removed when the test binary exits.
std::string fresh_store_dir() {
  struct Made {
    std::vector<std::filesystem::path> paths;
    ~Made() {
      for (const auto& p : paths) std::filesystem::remove_all(p);
    }
  };
  static Made made;
  static std::atomic<int> counter{0};
  auto path = std::filesystem::temp_directory_path() /
              ("ember_dist_api_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::remove_all(path);
  made.paths.push_back(path);
  return path.string();
}

dist::EnvLookup env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// A world of one through file://, destroyed at the end of the scope.
struct WorldOfOne {
  WorldOfOne() { dist::init_process_group("gloo", "file://" + fresh_store_dir(), 1, 0); }
  ~WorldOfOne() { dist::destroy_process_group(); }
};

}  // namespace

TEST_CASE("calls before init_process_group say to call it", "[distributed]") {
  REQUIRE_FALSE(dist::is_initialized());
  Tensor t = ember::ones({2});
  REQUIRE_THROWS_WITH(dist::get_rank(), Contains("get_rank") && Contains("call init_process_group first"));
  REQUIRE_THROWS_WITH(dist::all_reduce(t), Contains("all_reduce") && Contains("call init_process_group first"));
  REQUIRE_THROWS_WITH(dist::barrier(), Contains("call init_process_group first"));
  REQUIRE_THROWS_WITH(dist::destroy_process_group(), Contains("not initialized"));
}

TEST_CASE("init_process_group's argument errors", "[distributed]") {
  REQUIRE_THROWS_WITH(dist::init_process_group("mpi", "file://" + fresh_store_dir(), 1, 0), Contains("unknown backend 'mpi'"));
  if (!ember::cuda::is_available())
    REQUIRE_THROWS_WITH(dist::init_process_group("nccl", "file://" + fresh_store_dir(), 1, 0), Contains("nccl"));
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "tcp://1.2.3.4:5", 1, 0), Contains("unknown init_method"));
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "file://" + fresh_store_dir()),
                      Contains("needs world_size >= 1 and rank in [0, world_size)"));
  REQUIRE_FALSE(dist::is_initialized());
}

TEST_CASE("env:// reads MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK", "[distributed]") {
  std::map<std::string, std::string> vars = {{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"},
                                             {"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}};
  auto config = dist::parse_env_config(-1, -1, env_of(vars));
  REQUIRE(config.master_addr == "10.0.0.1");
  REQUIRE(config.master_port == 29500);
  REQUIRE(config.rank == 3);
  REQUIRE(config.world_size == 4);
  REQUIRE(config.local_rank == 1);

  // Explicit arguments win, and their variables need not be set.
  vars.erase("RANK");
  vars.erase("WORLD_SIZE");
  vars.erase("LOCAL_RANK");
  config = dist::parse_env_config(8, 5, env_of(vars));
  REQUIRE(config.rank == 5);
  REQUIRE(config.world_size == 8);
  REQUIRE(config.local_rank == 5);  // LOCAL_RANK unset: the rank

  for (const char* missing : {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"}) {
    std::map<std::string, std::string> some = {{"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"},
                                               {"RANK", "0"}, {"WORLD_SIZE", "1"}};
    some.erase(missing);
    REQUIRE_THROWS_WITH(dist::parse_env_config(-1, -1, env_of(some)),
                        Contains(std::string("variable ") + missing + " is not set"));
  }
  std::map<std::string, std::string> bad = {{"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"},
                                            {"RANK", "0"}, {"WORLD_SIZE", "1"}};
  REQUIRE_THROWS_WITH(dist::parse_env_config(-1, -1, env_of(bad)), Contains("MASTER_PORT='70000'"));
  bad["MASTER_PORT"] = "1";
  bad["RANK"] = "one";
  REQUIRE_THROWS_WITH(dist::parse_env_config(-1, -1, env_of(bad)), Contains("RANK='one' is not an integer"));
  bad["RANK"] = "2";
  REQUIRE_THROWS_WITH(dist::parse_env_config(-1, -1, env_of(bad)), Contains("rank 2 is not below the world size 1"));
}

TEST_CASE("init_process_group(env://) without MASTER_ADDR names it", "[distributed]") {
  if (std::getenv("MASTER_ADDR") != nullptr) {
    WARN("MASTER_ADDR is set in this environment: not tested");
    return;
  }
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo"), Contains("MASTER_ADDR is not set"));
  REQUIRE_FALSE(dist::is_initialized());
}

TEST_CASE("fingerprint records: fixed size, long ones hashed, the first differing rank", "[distributed]") {
  const auto a = dist::make_fingerprint_record("allreduce #0 SUM float32 [2]");
  REQUIRE(dist::fingerprint_text(a) == "allreduce #0 SUM float32 [2]");
  const std::string long_text(1000, 'x');
  const auto l1 = dist::make_fingerprint_record(long_text);
  const auto l2 = dist::make_fingerprint_record(long_text + "y");
  REQUIRE(dist::fingerprint_text(l1).size() < dist::kFingerprintBytes);
  REQUIRE(l1 != l2);  // the hash tells apart what the head does not
  const auto b = dist::make_fingerprint_record("allreduce #0 SUM float32 [3]");
  REQUIRE_FALSE(dist::first_mismatch({a, a, a}).has_value());
  REQUIRE(dist::first_mismatch({a, a, b, b}) == 2);
}

TEST_CASE("a world of one through file://: the collectives and the API", "[distributed]") {
  WorldOfOne world;
  REQUIRE(dist::is_initialized());
  REQUIRE(dist::get_rank() == 0);
  REQUIRE(dist::get_world_size() == 1);
  REQUIRE(dist::get_local_rank() == 0);
  REQUIRE(dist::get_backend() == "gloo");
  REQUIRE(dist::default_group()->timeout() == std::chrono::minutes(5));
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "file://" + fresh_store_dir(), 1, 0),
                      Contains("already initialized"));

  Tensor t = ember::arange(0, 4, ember::TensorOptions().dtype(ScalarType::Double));
  dist::all_reduce(t, dist::ReduceOp::AVG);
  REQUIRE(t.sum().item<double>() == 6.0);
  std::vector<Tensor> out{ember::zeros({4}, ember::TensorOptions().dtype(ScalarType::Double))};
  dist::all_gather(out, t);
  REQUIRE(ember::equal(out[0], t));
  dist::broadcast(t, 0);
  auto work = dist::barrier(/*async_op=*/true);
  work->wait();
  REQUIRE(work->is_completed());
  REQUIRE(work->start_ns() > 0);
  REQUIRE(work->end_ns() >= work->start_ns());
  REQUIRE(dist::default_group()->sequence_number() == 4);
}

TEST_CASE("the gloo backend's input errors name the op, dtype and shape", "[distributed]") {
  WorldOfOne world;
  const uint64_t issued = dist::default_group()->sequence_number();
  Tensor flags = ember::ones({3}).to(ScalarType::Bool);
  REQUIRE_THROWS_WITH(dist::all_reduce(flags),
                      Contains("allreduce (gloo, rank 0)") && Contains("unsupported dtype bool") &&
                          Contains("[3]"));
  Tensor strided = ember::ones({4, 3}).t();
  REQUIRE_THROWS_WITH(dist::broadcast(strided, 0), Contains("broadcast (gloo, rank 0)") &&
                                                       Contains("must be contiguous") && Contains("[3, 4]"));
  Tensor x = ember::ones({2});
  std::vector<Tensor> wrong_dtype{ember::zeros({2}, ember::TensorOptions().dtype(ScalarType::Double))};
  REQUIRE_THROWS_WITH(dist::all_gather(wrong_dtype, x),
                      Contains("allgather (gloo, rank 0)") && Contains("float32") && Contains("float64"));
  std::vector<Tensor> too_many{ember::zeros({2}), ember::zeros({2})};
  REQUIRE_THROWS_WITH(dist::all_gather(too_many, x), Contains("needs one output per rank (1), got 2"));
  REQUIRE_THROWS_WITH(dist::broadcast(x, 1), Contains("src 1 is not a rank"));
  if (ember::cuda::is_available()) {
    Tensor on_gpu = ember::ones({2}).cuda();
    REQUIRE_THROWS_WITH(dist::all_reduce(on_gpu), Contains("takes CPU tensors") && Contains("cuda"));
  } else {
    WARN("no CUDA device: the CUDA tensor error is not tested here");
  }
  // Refused calls take no sequence number, so the ranks stay in step.
  REQUIRE(dist::default_group()->sequence_number() == issued);
}
