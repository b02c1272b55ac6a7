// runtime/float_mod.h: the floored float modulo is fmod's exact value (with
// the divisor's sign), bit for bit, whichever way it is computed — double
// arithmetic for f32, Dekker's exact product for f64, libm's fmod for the
// rest — over operands of every magnitude, quotients just below and above
// integers and around the limits of the fast paths, zeros, infinities, NaN.
#include "runtime/float_mod.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace shrew::runtime {
namespace {

template <typename T>
T Want(T a, T b) {
  T r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

template <typename T>
bool SameBits(T x, T y) {
  if (std::isnan(x) && std::isnan(y)) return true;
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

template <typename T>
void ExpectFmod(const std::vector<std::pair<T, T>>& pairs) {
  int failures = 0;
  for (const auto& [a, b] : pairs) {
    const T got = FloatMod(a, b), want = Want(a, b);
    if (!SameBits(got, want) && ++failures <= 10) {
      ADD_FAILURE() << std::hexfloat << a << " % " << b << ": got " << got << ", want " << want;
    }
    // The fast path's own contract: when it says exact, fmod's value.
    bool exact = false;
    const T r = RemainderIfExact(a, b, &exact);
    if (exact && !SameBits(r, std::fmod(a, b)) && ++failures <= 10) {
      ADD_FAILURE() << std::hexfloat << "fmod(" << a << ", " << b << "): the fast path gave " << r;
    }
  }
  EXPECT_EQ(failures, 0);
}

template <typename T>
std::vector<std::pair<T, T>> Pairs(uint32_t seed, int min_exp, int max_exp) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<std::pair<T, T>> pairs;
  for (T a : {T(0), -T(0), T(1), T(-7), inf, -inf, nan, std::numeric_limits<T>::denorm_min()}) {
    for (T b : {T(0), -T(0), T(3), T(-3), inf, -inf, nan, std::numeric_limits<T>::denorm_min()}) {
      pairs.emplace_back(a, b);
    }
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(-2, 2);
  std::uniform_int_distribution<int> exp(min_exp, max_exp);
  for (int i = 0; i < 400000; ++i) {
    const T b = static_cast<T>(std::ldexp(mant(rng), exp(rng)));
    T a = static_cast<T>(std::ldexp(mant(rng), exp(rng)));
    switch (i % 4) {
      case 1: {  // a quotient at an integer, and a unit in the last place either side of it
        const T k = std::trunc(static_cast<T>(std::ldexp(mant(rng), exp(rng) % 60)));
        a = k * b;
        a = i % 8 == 1 ? std::nextafter(a, inf) : std::nextafter(a, -inf);
        break;
      }
      case 2:  // quotients around the fast paths' limits (2^24 for f32, 2^52 for f64)
        a = static_cast<T>(std::ldexp(mant(rng), std::numeric_limits<T>::digits - 2 + i % 5)) * b;
        break;
      default: break;
    }
    pairs.emplace_back(a, b);
  }
  return pairs;
}

TEST(FloatMod, F64IsFmodBitForBit) {
  ExpectFmod<double>(Pairs<double>(1, -60, 60));
  ExpectFmod<double>(Pairs<double>(2, -1074, 1023));
  ExpectFmod<double>(Pairs<double>(3, -910, -890));  // around the lower limit of |b|
  ExpectFmod<double>(Pairs<double>(4, 880, 1000));   // and the upper
}

TEST(FloatMod, F32IsFmodBitForBit) {
  ExpectFmod<float>(Pairs<float>(5, -30, 30));
  ExpectFmod<float>(Pairs<float>(6, -149, 127));
}

// The fast path is the one taken for ordinary operands (it would be no
// faster otherwise): exact, and then the same value.
TEST(FloatMod, OrdinaryF64OperandsTakeTheExactPath) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-100, 100);
  int exact_count = 0;
  for (int i = 0; i < 10000; ++i) {
    bool exact = false;
    const double a = u(rng), b = i % 2 == 0 ? 3.0 : u(rng);
    const double r = F64RemainderIfExact(a, b, &exact);
    exact_count += exact;
    if (exact) EXPECT_TRUE(SameBits(r, std::fmod(a, b))) << a << " % " << b;
  }
  EXPECT_GT(exact_count, 9990);
}

}  // namespace
}  // namespace shrew::runtime
