#pragma once
// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC'11): a counter-based generator. Number i of a draw depends only on
// (seed, counter), so every element can be computed independently, in any
// order, on any device: one seed gives the same uniform, integer and mask
// draws on CPU and CUDA; normals agree to a few ulps (log and cos come from
// each device's maths library).
//
// Stream layout used by every ember RNG op (see core/generator.h): a draw of n
// values at generator offset `o` takes value i from block (o + i / 4), lane i % 4
// for 32-bit uniforms; 64-bit uniforms and normals use one block per value.
#include <cmath>
#include <cstdint>

#include "ember/kernels/common/exact_math.h"
#include "ember/kernels/common/macros.h"

namespace ember::philox {

struct Block {
  uint32_t v[4];
};

EMBER_HOST_DEVICE void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

// The 4 words of block `counter` of the stream keyed by `seed`.
EMBER_HOST_DEVICE Block generate(uint64_t seed, uint64_t counter) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kM0, c0, hi0, lo0);
    mulhilo(kM1, c2, hi1, lo1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0; c1 = n1; c2 = n2; c3 = n3;
    k0 += kW0;
    k1 += kW1;
  }
  return Block{{c0, c1, c2, c3}};
}

// Uniform in [0, 1) from 24 (float) or 53 (double) random bits.
EMBER_HOST_DEVICE float to_float01(uint32_t x) { return (x >> 8) * (1.0f / 16777216.0f); }
EMBER_HOST_DEVICE double to_double01(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (static_cast<uint64_t>(hi) << 21) ^ (lo >> 11);
  return static_cast<double>(bits & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

}  // namespace ember::philox

namespace ember::philox {

// Blocks a draw of n values takes, and value i of it (see the stream layout above).
EMBER_HOST_DEVICE uint64_t blocks_for_uniform32(uint64_t n) { return (n + 3) / 4; }
EMBER_HOST_DEVICE uint64_t blocks_for_uniform64(uint64_t n) { return (n + 1) / 2; }
EMBER_HOST_DEVICE uint64_t blocks_for_normal(uint64_t n) { return n; }

EMBER_HOST_DEVICE float uniform_float(uint64_t seed, uint64_t base, uint64_t i) {
  return to_float01(generate(seed, base + i / 4).v[i % 4]);
}
EMBER_HOST_DEVICE double uniform_double(uint64_t seed, uint64_t base, uint64_t i) {
  const Block b = generate(seed, base + i / 2);
  const unsigned lane = 2 * static_cast<unsigned>(i % 2);
  return to_double01(b.v[lane], b.v[lane + 1]);
}
EMBER_HOST_DEVICE uint64_t bits64(uint64_t seed, uint64_t base, uint64_t i) {
  const Block b = generate(seed, base + i / 2);
  const unsigned lane = 2 * static_cast<unsigned>(i % 2);
  return (static_cast<uint64_t>(b.v[lane]) << 32) | b.v[lane + 1];
}
// Standard normal by Box-Muller from one block (u1 in (0, 1], so log is finite).
EMBER_HOST_DEVICE double normal(uint64_t seed, uint64_t base, uint64_t i) {
  const Block b = generate(seed, base + i);
  const double u1 = 1.0 - to_double01(b.v[0], b.v[1]);
  const double u2 = to_double01(b.v[2], b.v[3]);
  return ::sqrt(-2.0 * ::log(u1)) * ::cos(6.283185307179586 * u2);
}

}  // namespace ember::philox

namespace ember::philox {

// a + s * x rounded once on both devices (exact_math.h), so the CPU and
// CUDA values are the same bit for bit.
EMBER_HOST_DEVICE double affine(double a, double s, double x) { return exact::fma(s, x, a); }

// Per-block draws shared by the CPU loops (core/ops/creation/random.cpp, dropout.cpp)
// and the CUDA kernels (kernels/cuda/random.cu): a draw of n values reads
// blocks_for<Draw>(n) blocks, and value i is draw(block base + i / kPerBlock,
// lane i % kPerBlock), as the stream layout above says. One Philox call then
// serves kPerBlock values.
template <typename Draw>
EMBER_HOST_DEVICE uint64_t blocks_for(uint64_t n) {
  return (n + Draw::kPerBlock - 1) / Draw::kPerBlock;
}

// from + (to - from) * U[0, 1): 24-bit uniforms for float32 (four per
// block), 53-bit for float64 (two per block).
template <typename T>
struct UniformDraw {
  static constexpr int kPerBlock = sizeof(T) == 4 ? 4 : 2;
  double from, span;
  EMBER_HOST_DEVICE T operator()(const Block& b, int lane) const {
    if constexpr (kPerBlock == 4) {
      return static_cast<T>(affine(from, span, to_float01(b.v[lane])));
    } else {
      return static_cast<T>(affine(from, span, to_double01(b.v[2 * lane], b.v[2 * lane + 1])));
    }
  }
};

// mean + std * N(0, 1), Box-Muller from one block (u1 in (0, 1], so log is finite).
template <typename T>
struct NormalDraw {
  static constexpr int kPerBlock = 1;
  double mean, std;
  EMBER_HOST_DEVICE T operator()(const Block& b, int) const {
    const double u1 = 1.0 - to_double01(b.v[0], b.v[1]);
    const double u2 = to_double01(b.v[2], b.v[3]);
    const double z = ::sqrt(-2.0 * ::log(u1)) * ::cos(6.283185307179586 * u2);
    return static_cast<T>(affine(mean, std, z));
  }
};

// low + (64 random bits mod range): integers in [low, low + range), two per block.
template <typename T>
struct RandintDraw {
  static constexpr int kPerBlock = 2;
  int64_t low;
  uint64_t range;
  EMBER_HOST_DEVICE T operator()(const Block& b, int lane) const {
    const uint64_t bits = (static_cast<uint64_t>(b.v[2 * lane]) << 32) | b.v[2 * lane + 1];
    return static_cast<T>(low + static_cast<int64_t>(bits % range));
  }
};

// Dropout's scaled keep-mask: `scale` where a 24-bit uniform is below `keep`
// (1 - p), else 0; four per block whatever T.
template <typename T>
struct DropoutMaskDraw {
  static constexpr int kPerBlock = 4;
  float keep;
  T scale;
  EMBER_HOST_DEVICE T operator()(const Block& b, int lane) const {
    return to_float01(b.v[lane]) < keep ? scale : T(0);
  }
};

}  // namespace ember::philox
