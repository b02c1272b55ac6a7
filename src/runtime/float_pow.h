// Float pow as both executors compute it (OPS.md §3.4: the rules of C pow).
// The exponents models use most are exact operations, correctly rounded
// where C pow may be a unit in the last place off, and a vectorisable loop
// instead of a libm call per element (x ** 2 over 1M f32 took 12.5 ms, a
// plain JS loop 1.3 ms): x ** 2 is x·x, x ** 1 is x, x ** 0.5 is sqrt(x)
// with pow's +0 for −0 and +inf for −inf, x ** −0.5 and x ** 1.5 are
// 1 / sqrt(x) and x·sqrt(x) with pow's special values. An f32 to another integral power
// up to ±1024 (`x ** 3` in a hand-written GELU: 23-36x the cost of x·x·x as
// C pow) is square-and-multiply in double, rounded once: x is exact there
// and at most 2^11 units of 2^-53 of relative error accumulate, far below
// f32's half unit; C pow's rules hold (x ** 0 = 1 for NaN too, the sign of
// an odd power, 0 ** −k = ±inf, overflow to ±inf and ±0). Every other
// exponent is C pow.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace shrew::runtime {

inline constexpr float kMaxIntegralExponent = 1024.0f;

// The exponent as an integer when FloatPow takes the integral path for it.
inline bool IntegralExponent(float b, int32_t* k) {
  if (!(std::fabs(b) <= kMaxIntegralExponent) || std::trunc(b) != b) return false;  // NaN fails the first test
  *k = static_cast<int32_t>(b);
  return true;
}

// acc = x ** |k| by square-and-multiply from the lowest bit; the row loop in
// runtime/kernels/binary_rows.cc does the same multiplications in the same
// order, so both give the same bits.
inline float PowIntegral(float x, int32_t k) {
  double base = x, acc = 1.0;
  for (uint32_t m = static_cast<uint32_t>(k < 0 ? -k : k); m != 0; m >>= 1) {
    if (m & 1) acc *= base;
    base *= base;
  }
  return static_cast<float>(k < 0 ? 1.0 / acc : acc);
}

template <typename T>
inline T FloatPow(T a, T b) {
  if (b == T(2)) return a * a;
  if (b == T(1)) return a;
  constexpr T kInf = std::numeric_limits<T>::infinity();
  if (b == T(0.5)) return a == -kInf ? kInf : std::sqrt(a) + T(0);  // + 0: sqrt(−0) is −0, pow(−0, 0.5) is +0
  // 1 / sqrt(x) and x · sqrt(x) (an f32's in double, rounded once), with
  // pow's values at ±0 and −inf: a libm call each cost 20x sqrt.
  using D = std::conditional_t<std::is_same_v<T, float>, double, T>;
  if (b == T(-0.5)) {
    if (a == T(0)) return kInf;       // ±0
    if (a == -kInf) return T(0);      // 1 / sqrt(−inf) is NaN
    return static_cast<T>(D(1) / std::sqrt(static_cast<D>(a)));
  }
  if (b == T(1.5)) {
    if (a == -kInf) return kInf;      // −inf · NaN is NaN
    const D d = a;
    return static_cast<T>(d * std::sqrt(d));  // −0 · −0 is +0, as pow(−0, 1.5)
  }
  if constexpr (std::is_same_v<T, float>) {
    int32_t k = 0;
    if (IntegralExponent(b, &k)) return PowIntegral(a, k);
  }
  return static_cast<T>(std::pow(a, b));
}

}  // namespace shrew::runtime
