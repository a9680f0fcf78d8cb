// The fuzzing regression inputs (tests/fuzz/regressions/README.md), each
// loaded as a user would and answered with the Error naming its defect, or,
// where the defect was in the computation, with the right value.
#include "test_helpers.h"

#include <ember/nn/serialize/checkpoint.h>
#include <ember/nn/serialize/safetensors.h>

#include <limits>
#include <string>

#include "fuzz/fuzz_model.h"

using namespace ember;
using Catch::Contains;

namespace {
const std::string kDir = EMBER_FUZZ_REGRESSIONS_DIR;
}

TEST_CASE("fuzz regressions: a zero size no longer hides an overflowing shape",
          "[serialize][fuzz]") {
  for (const char* name : {"zero-size-hides-overflow-2p40x2p40", "zero-size-hides-overflow-2p62x4"}) {
    INFO(name);
    REQUIRE_THROWS_WITH(load_safetensors(kDir + "/safetensors/" + name + ".safetensors"),
                        Contains("tensor 't': shape [0, ") && Contains("overflows int64"));
  }
}

TEST_CASE("fuzz regressions: an int64 sum past INT64_MAX wraps to INT64_MIN", "[serialize][fuzz]") {
  const SafetensorsFile f = load_safetensors(kDir + "/safetensors/int64-sum-overflows.safetensors");
  const Tensor t = *f.tensors.find("t");
  REQUIRE(t.scalar_type() == kLong);
  // INT64_MAX + 1 modulo 2^64, read as two's complement.
  REQUIRE(t.sum().item<int64_t>() == std::numeric_limits<int64_t>::min());
}

TEST_CASE("fuzz regressions: a counter of another dtype or with no room to step is refused",
          "[serialize][fuzz]") {
  const struct {
    const char* file;
    const char* field;
    const char* problem;
  } cases[] = {
      {"optimizer-step-f64-nan", "state.0.step", "has dtype float64"},
      {"scheduler-last-epoch-f64-1e300", "last_epoch", "has dtype float64"},
      {"optimizer-step-int64-max", "state.0.step", "value 9223372036854775807"},
      {"scheduler-last-epoch-int64-max", "last_epoch", "value 9223372036854775807"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const std::string path = kDir + "/checkpoint/" + c.file + ".ckpt";
    const Checkpoint ck = load_checkpoint(path);
    fuzz::Trainee t = fuzz::make_trainee();
    REQUIRE_THROWS_WITH(fuzz::restore(t, ck, path),
                        Contains(std::string("field '") + c.field + "'") && Contains(c.problem));
  }
}
