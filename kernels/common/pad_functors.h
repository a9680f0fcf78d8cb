#pragma once
// Index maths of padding along one axis, shared by the CPU kernels
// (kernels/cpu/pad.cpp) and the CUDA kernels (kernels/cuda/pad_kernels.cu).
#include <cstdint>

#include "ember/core/ops/nn_ops/pad_mode.h"
#include "ember/kernels/common/macros.h"

namespace ember::functors {

// One axis of `in` elements padded to `out = before + in + after` (a negative
// pad crops). Output o sits at input position t = o - before.
struct PadAxis {
  int64_t in, out, before;
  PadMode mode;

  // The input element output o copies, or -1 where the constant goes. The op
  // checks the pads first: below the input size for kReflect, at most it for
  // kCircular, so one reflection or wrap lands inside.
  EMBER_HOST_DEVICE int64_t source(int64_t o) const {
    int64_t t = o - before;
    switch (mode) {
      case PadMode::Constant: return t >= 0 && t < in ? t : -1;
      case PadMode::Reflect:
        if (t < 0) t = -t;
        return t < in ? t : 2 * (in - 1) - t;
      case PadMode::Replicate: return t < 0 ? 0 : t < in ? t : in - 1;
      case PadMode::Circular: return (t % in + in) % in;
    }
    return -1;
  }

  // The outputs that copy input element i, as up to three runs [begin, end)
  // (one per side and the middle); the adjoint sums their gradients.
  struct Runs {
    int64_t begin[3], end[3];
    int count = 0;
    EMBER_HOST_DEVICE void add(int64_t b, int64_t e, int64_t limit) {
      if (b < 0) b = 0;
      if (e > limit) e = limit;
      if (b < e) {
        begin[count] = b;
        end[count] = e;
        ++count;
      }
    }
  };
  EMBER_HOST_DEVICE Runs outputs_of(int64_t i) const {
    Runs r;
    const int64_t mid = i + before;
    switch (mode) {
      case PadMode::Constant: r.add(mid, mid + 1, out); break;
      case PadMode::Reflect:
        r.add(mid, mid + 1, out);
        if (i > 0) r.add(before - i, before - i + 1, out);  // t = -i
        if (i < in - 1) {                                  // t = 2 (in - 1) - i
          const int64_t o = before + 2 * (in - 1) - i;
          r.add(o, o + 1, out);
        }
        break;
      case PadMode::Replicate:
        // t <= 0 copies element 0, t >= in - 1 the last; between, t = i.
        r.add(i == 0 ? 0 : mid, i == in - 1 ? out : mid + 1, out);
        break;
      case PadMode::Circular:
        // t = i - in, i and i + in (the pads are at most `in`).
        r.add(mid - in, mid - in + 1, out);
        r.add(mid, mid + 1, out);
        r.add(mid + in, mid + in + 1, out);
        break;
    }
    return r;
  }
};

}  // namespace ember::functors
