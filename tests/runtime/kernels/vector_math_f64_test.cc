// vector_math_f64.h: the two-lane forms give the scalar forms' bits in
// every lane; exp and tanh stay within their stated ulps of the exact
// function (long double) over samples of every binade, and their special
// values are IEEE's.
#include "runtime/kernels/vector_math_f64.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace shrew::runtime::kernels {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMinSubnormal = std::numeric_limits<double>::denorm_min();

// Half random bit patterns (every binade, both signs), half uniform in
// ±2^k for k < 12 (where exp and tanh are neither 0, 1 nor inf).
std::vector<double> SampledDoubles(size_t n) {
  std::mt19937_64 rng(1);
  std::vector<double> xs;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t b = rng();
    const double x = i % 2 != 0 ? lanes::FloatBits(b)
                                : std::ldexp(static_cast<double>(b >> 11) * 0x1p-52 - 1, static_cast<int>(i / 2 % 12));
    if (!std::isnan(x)) xs.push_back(x);
  }
  for (double x : {0.0, -0.0, kInf, -kInf, std::numeric_limits<double>::quiet_NaN(), 709.782712893384,
                   709.7827128933841, -745.1332191019411, -745.1332191019412, -708.4, 1e-320, -1e-320, 19.1, -22.0}) {
    xs.push_back(x);
  }
  return xs;
}

// |got − want| in units of the last place of want (a subnormal step
// below the normal range).
double Ulps(double got, long double want) {
  const double w = static_cast<double>(want);
  if (std::isinf(w) || std::isinf(got)) return w == got ? 0 : kInf;
  const double ulp = std::max(std::nextafter(std::fabs(w), kInf) - std::fabs(w), kMinSubnormal);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp);
}

void ExpectSameBits(const std::vector<double>& xs, const std::vector<double>& got, double (*one)(double),
                    const char* name) {
  ASSERT_EQ(got.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    ASSERT_EQ(lanes::IntBits(got[i]), lanes::IntBits(one(xs[i]))) << name << "(" << xs[i] << ") at " << i;
  }
}

TEST(VectorMathF64Test, LanesGiveTheScalarBits) {
  const std::vector<double> xs = SampledDoubles(200000);
  std::vector<double> y(xs.size());
  ExpRow(xs.data(), y.data(), xs.size());
  ExpectSameBits(xs, y, ExpOne, "exp");
  MapF64Lanes(xs.data(), y.data(), xs.size(), [](auto v, const auto& k) { return TanhOf(v, k); });
  ExpectSameBits(xs, y, TanhOne, "tanh");
  for (size_t n = 0; n <= 5; ++n) {  // in place, with and without a tail
    std::vector<double> v(xs.begin() + 100, xs.begin() + 100 + static_cast<std::ptrdiff_t>(n));
    const std::vector<double> ref = v;
    ExpRow(v.data(), v.data(), n);
    ExpectSameBits(ref, v, ExpOne, "exp in place");
  }
}

TEST(VectorMathF64Test, WithinTheirUlpsOfTheExactFunction) {
  if (std::numeric_limits<long double>::digits < 64) GTEST_SKIP() << "no extended long double here";
  double worst_exp = 0, worst_tanh = 0;
  for (double x : SampledDoubles(2000000)) {
    if (std::isnan(x)) continue;
    worst_exp = std::max(worst_exp, Ulps(ExpOne(x), std::exp(static_cast<long double>(x))));
    worst_tanh = std::max(worst_tanh, Ulps(TanhOne(x), std::tanh(static_cast<long double>(x))));
  }
  EXPECT_LE(worst_exp, 1.01);
  EXPECT_LE(worst_tanh, 1.9);
  EXPECT_GT(worst_exp, 0.5);  // the sample reaches the hard cases
}

TEST(VectorMathF64Test, SpecialValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ExpOne(0.0), 1.0);
  EXPECT_EQ(ExpOne(-0.0), 1.0);
  EXPECT_EQ(ExpOne(kInf), kInf);
  EXPECT_EQ(ExpOne(-kInf), 0.0);
  EXPECT_TRUE(std::isnan(ExpOne(nan)));
  EXPECT_TRUE(std::isfinite(ExpOne(709.782712893384)));  // near the last finite
  EXPECT_GT(ExpOne(709.782712893384), 1.7976931348622e308);
  EXPECT_EQ(ExpOne(709.7827128933841), kInf);
  EXPECT_EQ(ExpOne(-745.1332191019411), kMinSubnormal);  // the last non-zero, rounded once
  EXPECT_EQ(ExpOne(-745.1332191019412), 0.0);
  EXPECT_EQ(ExpOne(-740.0), std::exp(-740.0));  // subnormal: as exact as libm's

  EXPECT_EQ(TanhOne(0.0), 0.0);
  EXPECT_TRUE(std::signbit(TanhOne(-0.0)));
  EXPECT_EQ(TanhOne(kInf), 1.0);
  EXPECT_EQ(TanhOne(-kInf), -1.0);
  EXPECT_EQ(TanhOne(19.1), 1.0);
  EXPECT_EQ(TanhOne(-22.0), -1.0);
  EXPECT_EQ(TanhOne(1e-320), 1e-320);  // subnormal x: tanh x = x
  EXPECT_EQ(TanhOne(-3e-200), -3e-200);
  EXPECT_TRUE(std::isnan(TanhOne(nan)));
  EXPECT_LT(TanhOne(18.5), 1.0);  // not saturated early
  EXPECT_NEAR(TanhOne(0.5), 0.46211715726000974, 1e-16);
}

}  // namespace
}  // namespace shrew::runtime::kernels
