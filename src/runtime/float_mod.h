// Float floored modulo as both executors compute it (OPS.md §3.4):
// r = fmod(a, b), then r + b when r ≠ 0 and r, b have opposite signs.
// fmod is exact, but libm's takes a step per bit of the exponents' distance
// (`t % 6.28` over 131k f32 with |t| near 6e6: 12 ms, a plain JS loop
// 2.4 ms). For f32 the same exact remainder comes from double arithmetic
// while |a / b| < 2^24: the double quotient then truncates to the exact
// quotient's integer part (a − k·b is a multiple of 2^min(exponents), too far
// from 0 for the quotient's rounding to cross an integer), k·b has at most
// 48 significant bits, and a − k·b is fmod's value, representable, so exact.
#pragma once

#include <cmath>
#include <type_traits>

namespace shrew::runtime {

// Out of line on purpose: inlined, fmod is LLVM's `frem`, which the loop
// vectoriser evaluates for every lane whatever the branch says.
template <typename T>
[[gnu::noinline]] T LibmFmod(T a, T b) {
  return std::fmod(a, b);
}

// fmod(a, b) for f32 when `exact` comes back true (|a / b| < 2^24; false
// for NaN and infinite quotients: b = 0, a = ±inf, NaN operands). No
// branches, so that a row of them vectorises; selects only.
inline float F32RemainderIfExact(float a, float b, bool* exact) {
  const double q = static_cast<double>(a) / static_cast<double>(b);
  *exact = std::fabs(q) < 0x1p24;
  const double k = std::trunc(q);
  // k = 0 means |a| < |b| (b = ±inf included, where 0·b would be NaN): a itself.
  const float r = k == 0 ? a : static_cast<float>(static_cast<double>(a) - k * static_cast<double>(b));
  return r == 0.0f ? std::copysign(0.0f, a) : r;  // fmod's zero has a's sign
}

// The floored result from the truncated remainder r of a by b.
template <typename T>
inline T FlooredFromTruncated(T r, T b) {
  return r != T(0) && ((r < T(0)) != (b < T(0))) ? r + b : r;
}

template <typename T>
inline T FloatMod(T a, T b) {
  if constexpr (std::is_same_v<T, float>) {
    bool exact = false;
    const float r = F32RemainderIfExact(a, b, &exact);
    if (exact) return FlooredFromTruncated(r, b);
  }
  return FlooredFromTruncated(LibmFmod(a, b), b);
}

}  // namespace shrew::runtime
