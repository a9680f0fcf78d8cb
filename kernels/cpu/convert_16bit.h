#pragma once
// Contiguous runs of the 16-bit floats widened to float32, and float32
// rounded to them: the same bits as the element conversions of
// core/reduced_float.h (round to nearest even, overflow to infinity, NaN kept
// NaN with its sign; a float16 signalling NaN may widen to a quiet one), eight
// elements at a time with AVX2 (and F16C for float16) where the build targets
// them, element by element otherwise. For the loops that convert whole runs:
// tensor copies, the op tables' tiles, the optimizer updates.
#include <cstdint>

#include "ember/core/reduced_float.h"

namespace ember::cpu {

void widen(const BFloat16* in, float* out, int64_t n);
void widen(const Half* in, float* out, int64_t n);
void narrow(const float* in, BFloat16* out, int64_t n);
void narrow(const float* in, Half* out, int64_t n);

}  // namespace ember::cpu
