// The dtypes: names, PyTorch's promotion table, the 16-bit float conversions
// bit for bit against encoders written here from the formats' definitions,
// conversions between every pair of dtypes, fill ranges, printing and item().
#include "test_helpers.h"

#include <ember/kernels/cpu/convert_16bit.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

using namespace ember;

namespace {

const ScalarType kEvery[] = {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble};

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// binary16 by its definition: (-1)^s * 2^(e-15) * 1.m for 0 < e < 31,
// (-1)^s * 2^-14 * 0.m for e = 0, infinities and NaNs for e = 31.
double half_value(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  const double sign = s ? -1.0 : 1.0;
  if (e == 31) return m ? std::nan("") : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m / 1024.0, -14);
  return sign * std::ldexp(1.0 + m / 1024.0, e - 15);
}

// bfloat16 by its definition: (-1)^s * 2^(e-127) * 1.m with 7 mantissa bits,
// 2^-126 * 0.m for e = 0.
double bfloat16_value(uint16_t h) {
  const int s = h >> 15, e = (h >> 7) & 255, m = h & 127;
  const double sign = s ? -1.0 : 1.0;
  if (e == 255) return m ? std::nan("") : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m / 128.0, -126);
  return sign * std::ldexp(1.0 + m / 128.0, e - 127);
}

// Round-to-nearest-even into a 16-bit format whose non-negative finite codes
// 0..max_code increase with their value (both formats do): the two codes
// around |f|, the nearer one, the even one on a tie. Past the largest finite
// value the next code is the infinity, at the value the exponent would have
// had (IEEE 754's rule for overflow). NaN is not handled here.
template <typename Value>
uint16_t nearest_code(float f, uint16_t max_code, double beyond_max, Value value) {
  const double a = std::fabs(static_cast<double>(f));
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  uint16_t lo = 0, hi = max_code;  // find the largest code with value <= a
  if (a >= value(max_code)) {
    lo = max_code;
  } else {
    while (lo < hi) {
      const uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
      if (value(mid) <= a) lo = mid;
      else hi = static_cast<uint16_t>(mid - 1);
    }
  }
  const double below = value(lo);
  if (below == a) return sign | lo;
  const double above = lo == max_code ? beyond_max : value(static_cast<uint16_t>(lo + 1));
  const double d_below = a - below, d_above = above - a;
  const uint16_t next = static_cast<uint16_t>(lo + 1);  // max_code + 1 is the infinity
  if (d_below < d_above) return sign | lo;
  if (d_above < d_below) return sign | next;
  return sign | ((lo & 1) ? next : lo);
}

uint16_t reference_half(float f) {
  return nearest_code(f, 0x7bff, 65536.0, half_value);
}
uint16_t reference_bfloat16(float f) {
  return nearest_code(f, 0x7f7f, std::ldexp(1.0, 128), bfloat16_value);
}

// The floats to convert: every sign, exponent and top mantissa bits, with
// low bits at the rounding boundaries (ties, just below and above), and
// random ones.
std::vector<float> conversion_inputs() {
  std::vector<float> out;
  const uint32_t lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000,
                           0x7fff, 0x8000, 0x8001, 0xffff};
  for (uint32_t high = 0; high < 0x10000; ++high)
    for (uint32_t low : lows) out.push_back(float_of(high << 16 | low));
  std::mt19937 gen(24);
  for (int i = 0; i < 200000; ++i) out.push_back(float_of(static_cast<uint32_t>(gen())));
  return out;
}

}  // namespace

TEST_CASE("dtypes have libtorch's names and element sizes", "[dtype]") {
  const char* names[] = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                         "float32", "float64"};
  const size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  for (size_t i = 0; i < std::size(kEvery); ++i) {
    CHECK(std::string(dtype_name(kEvery[i])) == names[i]);
    std::ostringstream os;
    os << kEvery[i];
    CHECK(os.str() == names[i]);
    CHECK(element_size(kEvery[i]) == sizes[i]);
  }
  STATIC_REQUIRE(kUInt8 == kByte);
  STATIC_REQUIRE(kInt8 == kChar);
  STATIC_REQUIRE(kInt16 == kShort);
  STATIC_REQUIRE(kInt32 == kInt);
  STATIC_REQUIRE(kFloat16 == kHalf);
  STATIC_REQUIRE(is_floating_point(kBFloat16));
  STATIC_REQUIRE(is_floating_point(kHalf));
  STATIC_REQUIRE(is_integral(kByte, false));
  STATIC_REQUIRE(!is_signed(kByte));
  STATIC_REQUIRE(is_signed(kChar));
  STATIC_REQUIRE(sizeof(BFloat16) == 2);
  STATIC_REQUIRE(sizeof(Half) == 2);
}

TEST_CASE("promote_types is torch.promote_types", "[dtype]") {
  // torch.promote_types(row, column) in PyTorch 1.13, rows and columns in kEvery's order.
  const ScalarType B = kBool, U8 = kByte, I8 = kChar, I16 = kShort, I32 = kInt, I64 = kLong,
                   F16 = kHalf, BF = kBFloat16, F32 = kFloat, F64 = kDouble;
  const ScalarType table[10][10] = {
      {B, U8, I8, I16, I32, I64, F16, BF, F32, F64},
      {U8, U8, I16, I16, I32, I64, F16, BF, F32, F64},
      {I8, I16, I8, I16, I32, I64, F16, BF, F32, F64},
      {I16, I16, I16, I16, I32, I64, F16, BF, F32, F64},
      {I32, I32, I32, I32, I32, I64, F16, BF, F32, F64},
      {I64, I64, I64, I64, I64, I64, F16, BF, F32, F64},
      {F16, F16, F16, F16, F16, F16, F16, F32, F32, F64},
      {BF, BF, BF, BF, BF, BF, F32, BF, F32, F64},
      {F32, F32, F32, F32, F32, F32, F32, F32, F32, F64},
      {F64, F64, F64, F64, F64, F64, F64, F64, F64, F64},
  };
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) {
      INFO(kEvery[i] << " with " << kEvery[j]);
      CHECK(promote_types(kEvery[i], kEvery[j]) == table[i][j]);
    }
}

TEST_CASE("float16 decodes every bit pattern as binary16 defines it", "[dtype]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float got = Half(static_cast<uint16_t>(h), from_bits);
    const double want = half_value(static_cast<uint16_t>(h));
    INFO("half bits " << h);
    if (std::isnan(want)) {
      REQUIRE(std::isnan(got));
      REQUIRE(std::signbit(got) == bool(h & 0x8000));
    } else {
      REQUIRE(static_cast<double>(got) == want);
      REQUIRE(std::signbit(got) == bool(h & 0x8000));  // -0 stays -0
    }
  }
}

TEST_CASE("bfloat16 decodes every bit pattern as its definition says", "[dtype]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float got = BFloat16(static_cast<uint16_t>(h), from_bits);
    const double want = bfloat16_value(static_cast<uint16_t>(h));
    INFO("bfloat16 bits " << h);
    if (std::isnan(want)) REQUIRE(std::isnan(got));
    else REQUIRE(static_cast<double>(got) == want);
    REQUIRE(std::signbit(got) == bool(h & 0x8000));
  }
}

TEST_CASE("float -> float16 and bfloat16 round to nearest even, NaN stays NaN", "[dtype]") {
  size_t checked = 0;
  for (float f : conversion_inputs()) {
    const uint16_t half = Half(f).x, bf = BFloat16(f).x;
    INFO("float bits " << bits_of(f));
    if (std::isnan(f)) {
      REQUIRE(std::isnan(static_cast<float>(Half(half, from_bits))));
      REQUIRE(std::isnan(static_cast<float>(BFloat16(bf, from_bits))));
      REQUIRE(bool(half & 0x8000) == std::signbit(f));
      REQUIRE(bool(bf & 0x8000) == std::signbit(f));
      continue;
    }
    REQUIRE(half == reference_half(f));
    REQUIRE(bf == reference_bfloat16(f));
    ++checked;
  }
  CHECK(checked > 700000);
  // The boundaries by name: float16's largest finite value, the tie above it
  // (rounds to infinity), the smallest subnormal and the tie below it.
  CHECK(Half(65504.0f).x == 0x7bff);
  CHECK(Half(65519.0f).x == 0x7bff);
  CHECK(Half(65520.0f).x == 0x7c00);
  CHECK(Half(std::ldexp(1.0f, -24)).x == 0x0001);
  CHECK(Half(std::ldexp(1.0f, -25)).x == 0x0000);
  CHECK(Half(std::ldexp(1.5f, -25)).x == 0x0001);
  CHECK(BFloat16(1.0f + std::ldexp(1.0f, -8)).x == 0x3f80);  // a tie, to even
  CHECK(BFloat16(1.0f + std::ldexp(3.0f, -8)).x == 0x3f82);  // a tie, to even (up)
  CHECK(BFloat16(std::numeric_limits<float>::max()).x == 0x7f80);
}

TEST_CASE("the 16-bit floats' numeric_limits are their formats' values", "[dtype]") {
  using HL = std::numeric_limits<Half>;
  using BL = std::numeric_limits<BFloat16>;
  CHECK(static_cast<float>(HL::max()) == 65504.0f);
  CHECK(static_cast<float>(HL::lowest()) == -65504.0f);
  CHECK(static_cast<float>(HL::min()) == std::ldexp(1.0f, -14));
  CHECK(static_cast<float>(HL::epsilon()) == std::ldexp(1.0f, -10));
  CHECK(static_cast<float>(HL::denorm_min()) == std::ldexp(1.0f, -24));
  CHECK(std::isinf(static_cast<float>(HL::infinity())));
  CHECK(std::isnan(static_cast<float>(HL::quiet_NaN())));
  CHECK(static_cast<double>(BL::max()) == std::ldexp(255.0, 120));  // (2 - 2^-7) * 2^127
  CHECK(static_cast<float>(BL::min()) == std::numeric_limits<float>::min());
  CHECK(static_cast<float>(BL::epsilon()) == std::ldexp(1.0f, -7));
  CHECK(static_cast<float>(BL::denorm_min()) == std::ldexp(1.0f, -133));
  CHECK(std::isnan(static_cast<float>(BL::quiet_NaN())));
}

TEST_CASE("to() converts between every pair of dtypes, element for element", "[dtype]") {
  // Values every dtype holds exactly: through any chain they come back unchanged.
  const Tensor exact = tensor({0.0, 1.0, 2.0, 7.0, 100.0, 127.0}, kDouble);
  for (ScalarType from : kEvery) {
    for (ScalarType to : kEvery) {
      INFO(from << " -> " << to);
      const Tensor once = exact.to(from).to(to);
      REQUIRE(once.scalar_type() == to);
      const Tensor back = once.to(kDouble);
      const Tensor want = from == kBool || to == kBool ? exact.ne(0.0).to(kDouble) : exact;
      CHECK(ember_test::values(back) == ember_test::values(want));
    }
  }
  // Narrowing integers wrap as two's complement, floats truncate toward zero.
  CHECK(ember_test::values(tensor({300, -1, 255, 256}, kLong).to(kByte).to(kLong)) ==
        std::vector<double>{44, 255, 255, 0});
  CHECK(ember_test::values(tensor({200, 128, -129}, kLong).to(kChar).to(kLong)) ==
        std::vector<double>{-56, -128, 127});
  CHECK(ember_test::values(tensor({-2.7, 2.7, 65535.9}, kDouble).to(kInt).to(kDouble)) ==
        std::vector<double>{-2, 2, 65535});
  CHECK(ember_test::values(tensor({70000}, kLong).to(kShort).to(kLong)) == std::vector<double>{4464});
  // A float beyond a narrow integer's range goes through int64 and wraps, as PyTorch casts it
  // (the direct C++ conversion would be undefined): -2.0 -> 254, 300.7 -> 44, -300.7 -> 212.
  CHECK(ember_test::values(tensor({-2.0, 300.7, -300.7, 65504.0}, kDouble).to(kByte).to(kLong)) ==
        std::vector<double>{254, 44, 212, 224});
  CHECK(ember_test::values(tensor({-2.0f, 200.5f}).to(kBFloat16).to(kChar).to(kLong)) ==
        std::vector<double>{-2, -56});
}

TEST_CASE("to(bfloat16 / float16) rounds each element as the scalar conversion does", "[dtype]") {
  const std::vector<float> inputs = conversion_inputs();
  const int64_t n = static_cast<int64_t>(inputs.size());
  Tensor x = empty({n}, kFloat);
  std::copy(inputs.begin(), inputs.end(), x.data_ptr<float>());
  const Tensor bf = x.to(kBFloat16), half = x.to(kHalf);
  const Tensor bf_strided = x.view({n / 2, 2}).t().to(kBFloat16);  // the strided loop too
  for (int64_t i = 0; i < n; ++i) {
    const float f = inputs[static_cast<size_t>(i)];
    INFO("element " << i << ", float bits " << bits_of(f));
    if (std::isnan(f)) {  // the scalar rule's NaN: the high half, made quiet
      REQUIRE(bf.data_ptr<BFloat16>()[i].x == ((bits_of(f) >> 16) | 0x40));
      continue;
    }
    REQUIRE(bf.data_ptr<BFloat16>()[i].x == reference_bfloat16(f));
    REQUIRE(half.data_ptr<Half>()[i].x == reference_half(f));
  }
  for (int64_t i = 0; i < 1000; ++i)
    REQUIRE(bf_strided.contiguous().data_ptr<BFloat16>()[(i % 2) * (n / 2) + i / 2].x ==
            reference_bfloat16(inputs[static_cast<size_t>(i)]));
  // Widening back is exact.
  const Tensor wide = bf.to(kFloat);
  for (int64_t i = 0; i < 1000; ++i)
    if (!std::isnan(inputs[static_cast<size_t>(i)]))
      REQUIRE(wide.data_ptr<float>()[i] == static_cast<float>(BFloat16(reference_bfloat16(inputs[static_cast<size_t>(i)]), from_bits)));
}

TEST_CASE("fill values must fit the dtype, as PyTorch checks them", "[dtype]") {
  CHECK(ember_test::values(full({1}, -1, kByte).to(kLong)) == std::vector<double>{255});
  CHECK(ember_test::values(full({1}, -255, kByte).to(kLong)) == std::vector<double>{1});
  CHECK(ember_test::values(full({1}, 2.5, kInt).to(kLong)) == std::vector<double>{2});
  const auto overflows = Catch::Contains("overflow");
  CHECK_THROWS_WITH(full({1}, -256, kByte), overflows);
  CHECK_THROWS_WITH(full({1}, 256, kByte), overflows);
  CHECK_THROWS_WITH(full({1}, -1.0, kByte), overflows);
  CHECK_THROWS_WITH(full({1}, 128, kChar), overflows);
  CHECK_THROWS_WITH(full({1}, -129, kChar), overflows);
  CHECK_THROWS_WITH(full({1}, 70000, kShort), overflows);
  CHECK_THROWS_WITH(full({1}, 65519.0, kHalf), overflows);
  CHECK_THROWS_WITH(full({1}, 70000, kHalf), overflows);
  CHECK_THROWS_WITH(full({1}, 3.4e38, kBFloat16), overflows);
  CHECK_NOTHROW(full({1}, INFINITY, kHalf));
  CHECK_NOTHROW(full({1}, 65504, kHalf));
  CHECK(ember_test::values(zeros({2}, kBFloat16).fill_(1.5).to(kDouble)) == std::vector<double>{1.5, 1.5});
}

TEST_CASE("item() and printing read the new dtypes", "[dtype]") {
  CHECK(full({}, 0.1, kBFloat16).item<float>() == static_cast<float>(BFloat16(0.1f)));
  CHECK(full({}, 0.1, kHalf).item<double>() == static_cast<double>(static_cast<float>(Half(0.1f))));
  CHECK(full({}, 0.1, kBFloat16).item<BFloat16>().x == BFloat16(0.1f).x);
  CHECK(full({}, -3, kChar).item<int64_t>() == -3);
  CHECK(full({}, 200, kByte).item<int>() == 200);

  std::ostringstream os;
  os << tensor({-3, 100}, kLong).to(kChar);
  CHECK(os.str() == "[ -3, 100]\n[ int8 [2] on cpu ]");
  os.str("");
  os << tensor({1.123456, 2.0}, kDouble).to(kHalf);
  CHECK(os.str() == "[1.123,     2]\n[ float16 [2] on cpu ]");
  os.str("");
  os << tensor({1.0, 2.5}, kDouble).to(kBFloat16);
  CHECK(os.str() == "[  1, 2.5]\n[ bfloat16 [2] on cpu ]");
}

TEST_CASE("factories make the new dtypes: ranges, random draws in range", "[dtype]") {
  CHECK(ember_test::values(arange(5, kInt).to(kLong)) == std::vector<double>{0, 1, 2, 3, 4});
  CHECK(arange(5, kInt).scalar_type() == kInt);
  CHECK(ember_test::values(arange(0.0, 1.0, 0.25, kBFloat16).to(kDouble)) ==
        std::vector<double>{0, 0.25, 0.5, 0.75});
  CHECK(ember_test::values(linspace(0, 1, 5, kHalf).to(kDouble)) ==
        std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  manual_seed(7);
  for (ScalarType t : {kBFloat16, kHalf}) {
    INFO(t);
    // 2^-9 below 1 rounds up to 1 in bfloat16: draws must still stay below 1.
    const Tensor u = rand({200000}, t);
    CHECK(u.scalar_type() == t);
    CHECK(u.to(kDouble).max().item<double>() < 1.0);
    CHECK(u.to(kDouble).min().item<double>() >= 0.0);
    CHECK(std::abs(u.to(kDouble).mean().item<double>() - 0.5) < 0.01);
    const Tensor n = randn({200000}, t).to(kDouble);
    CHECK(std::abs(n.mean().item<double>()) < 0.02);
    CHECK(std::abs(n.std().item<double>() - 1.0) < 0.02);
    const Tensor v = empty({100000}, t).uniform_(-3.0, -1.0).to(kDouble);
    CHECK(v.max().item<double>() < -1.0);
    CHECK(v.min().item<double>() >= -3.0);
  }
  const Tensor bytes = randint(0, 256, {10000}, kByte);
  CHECK(bytes.scalar_type() == kByte);
  CHECK(bytes.to(kLong).max().item<int64_t>() == 255);
  CHECK(bytes.to(kLong).min().item<int64_t>() == 0);
  CHECK_THROWS_WITH(randint(0, 300, {3}, kByte), Catch::Contains("does not fit dtype uint8"));
  CHECK(randint(-5, 5, {100}, kChar).to(kLong).min().item<int64_t>() >= -5);
}

// The run conversions of kernels/cpu/convert_16bit.h (vectorized where the
// build targets AVX2/F16C) give the element conversions' bits: every 16-bit
// pattern widened, the conversion inputs above rounded, at every start offset
// and length around the vector width (the scalar tails). NaN: NaN of the same
// sign (a float16 signalling NaN may come back quiet).
TEST_CASE("run conversions between float32 and the 16-bit floats equal the element conversions",
          "[dtype]") {
  auto same = [](float got, float want) {
    return std::isnan(want) ? std::isnan(got) && std::signbit(got) == std::signbit(want)
                            : bits_of(got) == bits_of(want);
  };
  std::vector<BFloat16> bf(0x10000);
  std::vector<Half> half(0x10000);
  for (uint32_t b = 0; b < 0x10000; ++b) {
    bf[b] = BFloat16(static_cast<uint16_t>(b), from_bits);
    half[b] = Half(static_cast<uint16_t>(b), from_bits);
  }
  std::vector<float> wide(0x10000);
  cpu::widen(bf.data(), wide.data(), 0x10000);
  for (uint32_t b = 0; b < 0x10000; ++b) REQUIRE(same(wide[b], static_cast<float>(bf[b])));
  cpu::widen(half.data(), wide.data(), 0x10000);
  for (uint32_t b = 0; b < 0x10000; ++b) REQUIRE(same(wide[b], static_cast<float>(half[b])));

  const std::vector<float> in = conversion_inputs();
  std::vector<BFloat16> bf_out(in.size());
  std::vector<Half> half_out(in.size());
  cpu::narrow(in.data(), bf_out.data(), static_cast<int64_t>(in.size()));
  cpu::narrow(in.data(), half_out.data(), static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    INFO("float bits " << bits_of(in[i]));
    REQUIRE(same(static_cast<float>(bf_out[i]), static_cast<float>(BFloat16(in[i]))));
    REQUIRE(same(static_cast<float>(half_out[i]), static_cast<float>(Half(in[i]))));
    if (!std::isnan(in[i])) {
      REQUIRE(bf_out[i].x == BFloat16(in[i]).x);
      REQUIRE(half_out[i].x == Half(in[i]).x);
    }
  }
  // Offsets and lengths: each run's elements converted, nothing past its end.
  for (int64_t offset = 0; offset < 3; ++offset)
    for (int64_t n = 0; n <= 19; ++n) {
      std::vector<BFloat16> out(24, BFloat16(-1.0f));
      cpu::narrow(in.data() + 1000 + offset, out.data() + offset, n);
      for (int64_t i = 0; i < 24; ++i) {
        const bool inside = i >= offset && i < offset + n;
        const uint16_t want = inside ? BFloat16(in[1000 + i]).x : BFloat16(-1.0f).x;
        REQUIRE(out[i].x == want);
      }
    }
}
