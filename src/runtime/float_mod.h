// Float floored modulo as both executors compute it (OPS.md §3.4):
// r = fmod(a, b), then r + b when r ≠ 0 and r, b have opposite signs.
// fmod is exact, but libm's takes a step per bit of the exponents' distance
// (`t % 6.28` over 131k f32 with |t| near 6e6: 12 ms, a plain JS loop
// 2.4 ms). For f32 the same exact remainder comes from double arithmetic
// while |a / b| < 2^24: the double quotient then truncates to the exact
// quotient's integer part (a − k·b is a multiple of 2^min(exponents), too far
// from 0 for the quotient's rounding to cross an integer), k·b has at most
// 48 significant bits, and a − k·b is fmod's value, representable, so exact.
// For f64 (`x % 3.0` over doubles in [-100, 100]: 29 ns an element through
// libm in wasm) a − k·b is taken exactly by Dekker's product (or one FMA
// where the hardware has it), while |a / b| < 2^52 and |b| lies within
// 2^±900; see F64RemainderIfExact.
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

namespace detail {

// x = hi + lo exactly, each half of at most 26 significant bits (Veltkamp's
// split; needs |x| < 2^996 and every operation rounded on its own).
inline void SplitDouble(double x, double* hi, double* lo) {
  const double c = 134217729.0 * x;  // 2^27 + 1
  *hi = c - (c - x);
  *lo = x - *hi;
}

// a − k·b for an integral k of at most 52 bits with a − k·b representable
// and a − k·b, a within a factor of 2 of k·b: exact. With hardware FMA (where
// compilers may also contract the products below into FMAs, which breaks
// Dekker's product: GCC's default -ffp-contract=fast does) one fused
// multiply-add gives it; without (wasm, baseline x86-64), Dekker's product
// k·b = p + e, then (a − p) − e, each step exact (a − p by Sterbenz).
inline double ExactRemainder(double a, double k, double b) {
#if defined(__FP_FAST_FMA) || defined(__FMA__) || defined(__ARM_FEATURE_FMA)
  return std::fma(-k, b, a);
#else
  double kh, kl, bh, bl;
  SplitDouble(k, &kh, &kl);
  SplitDouble(b, &bh, &bl);
  const double p = k * b;
  const double e = ((kh * bh - p) + kh * bl + kl * bh) + kl * bl;
  return (a - p) - e;
#endif
}

}  // namespace detail

// fmod(a, b) for f64 when `exact` comes back true; false for NaN and
// infinite quotients, |a / b| >= 2^52, |b| outside (2^-900, 2^900) (where
// the split's products could overflow or lose bits to underflow), and the
// rare quotient rounded up to the next integer. k = trunc(a / b) is then
// the exact quotient's integer part (rounding to nearest cannot fall below
// an integer the true quotient reaches), and a − k·b is fmod's value,
// representable, so detail::ExactRemainder gives it exactly. When the
// quotient rounded up, that r has the sign opposite to a's and is not
// used. No branches, so that a row of them vectorises.
inline double F64RemainderIfExact(double a, double b, bool* exact) {
  const double q = a / b;
  const double k = std::trunc(q);
  const double r = detail::ExactRemainder(a, k, b);
  const double mb = std::fabs(b);
  *exact = std::fabs(q) < 0x1p52 && mb > 0x1p-900 && mb < 0x1p900 && (r == 0 || (r < 0) == (a < 0));
  // k = 0 means |a| < |b|: a itself (its -0 too).
  const double v = k == 0 ? a : r;
  return v == 0 ? std::copysign(0.0, a) : v;  // fmod's zero has a's sign
}

inline float RemainderIfExact(float a, float b, bool* exact) { return F32RemainderIfExact(a, b, exact); }
inline double RemainderIfExact(double a, double b, bool* exact) { return F64RemainderIfExact(a, b, exact); }

// The floored result from the truncated remainder r of a by b.
template <typename T>
inline T FlooredFromTruncated(T r, T b) {
  return r != T(0) && ((r < T(0)) != (b < T(0))) ? r + b : r;
}

template <typename T>
inline T FloatMod(T a, T b) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    bool exact = false;
    const T r = RemainderIfExact(a, b, &exact);
    if (exact) return FlooredFromTruncated(r, b);
  }
  return FlooredFromTruncated(LibmFmod(a, b), b);
}

}  // namespace shrew::runtime
