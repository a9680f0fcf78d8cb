#include <catch2/catch.hpp>

#include <ember/ember.h>

TEST_CASE("cuda device: a device is counted, synchronize returns, build_info names it", "[cuda]") {
  REQUIRE(ember::cuda::is_available());
  const int n = ember::cuda::device_count();
  REQUIRE(n >= 1);
  REQUIRE_NOTHROW(ember::cuda::synchronize());
  const std::string info = ember::cuda::build_info();
  REQUIRE_THAT(info, Catch::Contains("CUDA runtime") && Catch::Contains("cuDNN") &&
                         Catch::Contains("devices: " + std::to_string(n)));
}
