// The NCCL process group with a world of one (one GPU: NCCL refuses two ranks
// on one device), against the CPU: each collective of one rank leaves its
// input as it was (AVG and the rest), and the errors name the op.
// Compiled empty unless ember_distributed has the NCCL backend (tests/cuda/CMakeLists.txt).
#ifdef EMBER_DISTRIBUTED_NCCL
#include <catch2/catch.hpp>
#include <ember/distributed/distributed.h>
#include <ember/ember.h>
#include <unistd.h>

#include <filesystem>

#include "cuda_test_helpers.h"

namespace dist = ember::distributed;
using cuda_test::kGpu;
using ember::ScalarType;

TEST_CASE("nccl: a world of one through file://, each collective against the CPU", "[cuda][distributed]") {
  const auto dir = std::filesystem::temp_directory_path() / ("ember_nccl_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  dist::init_process_group("nccl", "file://" + dir.string(), 1, 0);
  REQUIRE(dist::get_backend() == "nccl");
  for (ScalarType dtype : {ScalarType::Float, ScalarType::Double, ScalarType::Long}) {
    const ember::Tensor cpu = ember::arange(1, 8).to(dtype);
    for (auto op : {dist::ReduceOp::SUM, dist::ReduceOp::AVG, dist::ReduceOp::PRODUCT,
                    dist::ReduceOp::MIN, dist::ReduceOp::MAX}) {
      ember::Tensor gpu = cpu.to(kGpu);
      dist::all_reduce(gpu, op);
      REQUIRE(ember::equal(gpu.cpu(), cpu));
    }
    ember::Tensor gpu = cpu.to(kGpu);
    dist::broadcast(gpu, 0);
    REQUIRE(ember::equal(gpu.cpu(), cpu));
    std::vector<ember::Tensor> out{ember::zeros({7}, ember::TensorOptions().dtype(dtype).device(kGpu))};
    dist::all_gather(out, gpu);
    REQUIRE(ember::equal(out[0].cpu(), cpu));
  }
  dist::barrier();
  ember::Tensor on_cpu = ember::ones({2});
  REQUIRE_THROWS_WITH(dist::all_reduce(on_cpu), Catch::Contains("allreduce (nccl, rank 0)") &&
                                                    Catch::Contains("takes CUDA tensors"));
  dist::destroy_process_group();
  std::filesystem::remove_all(dir);
}
#endif
