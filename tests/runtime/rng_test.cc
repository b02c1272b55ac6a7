#include "runtime/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace shrew::runtime {
namespace {

// Golden values from an independent Python implementation of OPS.md §5
// (arbitrary-precision integers masked to 64 bits; math.log for the normal).
// Seed 0's first output is also SplitMix64's published reference value.
TEST(RngTest, SplitMix64Bits) {
  Rng r0(0);
  EXPECT_EQ(r0.NextBits(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(r0.NextBits(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(r0.NextBits(), 0x06c45d188009454full);
  EXPECT_EQ(r0.NextBits(), 0xf88bb8a8724c81ecull);

  Rng r42(42);
  EXPECT_EQ(r42.NextBits(), 0xbdd732262feb6e95ull);
  EXPECT_EQ(r42.NextBits(), 0x28efe333b266f103ull);
  EXPECT_EQ(r42.NextBits(), 0x47526757130f9f52ull);
  EXPECT_EQ(r42.NextBits(), 0x581ce1ff0e4ae394ull);
}

TEST(RngTest, NegativeSeedIsModulo2To64) {
  Rng r = Rng::FromSignedSeed(-1);
  EXPECT_EQ(r.state(), 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(r.NextBits(), 0xe4d971771b652c20ull);
  EXPECT_EQ(r.NextBits(), 0xe99ff867dbf682c9ull);
  EXPECT_EQ(r.NextBits(), 0x382ff84cb27281e9ull);
}

TEST(RngTest, UniformGolden) {
  Rng r(42);
  EXPECT_EQ(r.NextUniform(), 0x1.7bae644c5fd6dp-1);
  EXPECT_EQ(r.NextUniform(), 0x1.477f199d93378p-3);
  EXPECT_EQ(r.NextUniform(), 0x1.1d499d5c4c3e6p-2);
  EXPECT_EQ(r.NextUniform(), 0x1.607387fc392b8p-2);
  // (bits >> 11) · 2⁻⁵³ by hand for the first draw of seed 42.
  EXPECT_EQ(Rng(42).NextUniform(), static_cast<double>(0xbdd732262feb6e95ull >> 11) / 9007199254740992.0);
}

TEST(RngTest, UniformRangeForm) {
  Rng a(9), b(9);
  for (int i = 0; i < 100; ++i) {
    const double u = a.NextUniform();
    EXPECT_EQ(b.NextUniform(-3.0, 5.0), -3.0 + 8.0 * u);
  }
}

TEST(RngTest, NormalGolden) {
  Rng r(42);
  EXPECT_EQ(r.NextNormal(), 0x1.f8c80e851c08cp-2);
  EXPECT_EQ(r.NextNormal(), -0x1.47f4af60c7f94p+0);
  EXPECT_EQ(r.NextNormal(), -0x1.342959c9fa344p-1);
  EXPECT_EQ(r.NextNormal(), -0x1.8ad8264f1e64dp+0);
  EXPECT_EQ(r.NextNormal(), -0x1.73962f43d35a8p+0);
  EXPECT_EQ(r.NextNormal(), 0x1.f0006370cf65ap+0);
  // Rejections consumed extra pairs: the state after six normals.
  EXPECT_EQ(r.state(), 12036054880848365904ull);

  Rng r7(7);
  EXPECT_DOUBLE_EQ(r7.NextNormal(), -0.04174152338145233);
  EXPECT_DOUBLE_EQ(r7.NextNormal(), 0.8764814690994567);
}

TEST(RngTest, UniformStaysInHalfOpenInterval) {
  Rng r(123);
  double lo = 1.0, hi = 0.0, sum = 0.0;
  constexpr int kN = 200000;
  for (int i = 0; i < kN; ++i) {
    const double u = r.NextUniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    sum += u;
  }
  EXPECT_LT(lo, 1e-4);
  EXPECT_GT(hi, 1 - 1e-4);
  EXPECT_NEAR(sum / kN, 0.5, 0.005);
}

// The integer form of NextUniform() >= p (dropout's keep test) agrees with
// the double comparison at and around each threshold, p tiny, p with more
// bits than 53 can hold at 2⁻⁵³ steps, and p next to 1.
TEST(RngTest, UniformThresholdIsTheDoubleComparison) {
  constexpr double kStep = 1.0 / 9007199254740992.0;  // 2⁻⁵³
  constexpr uint64_t kMax = (uint64_t{1} << 53) - 1;
  for (double p : {0.0, 1e-300, 1e-17, 0.1, 1.0 / 3, 0.5, 0.75, 0.9999999999999999, 1 - kStep}) {
    const uint64_t t = Rng::UniformThreshold(p);
    for (uint64_t k = t > 3 ? t - 3 : 0; k <= std::min(t + 3, kMax); ++k) {
      EXPECT_EQ(static_cast<double>(k) * kStep >= p, k >= t) << "p " << p << " k " << k;
    }
  }
  Rng rng(7);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t k = rng.NextBits() >> 11;
    const double p = static_cast<double>(i) / 10000;
    EXPECT_EQ(static_cast<double>(k) * kStep >= p, k >= Rng::UniformThreshold(p)) << p;
  }
}

TEST(RngTest, NormalMoments) {
  Rng r(5);
  constexpr int kN = 200000;
  double sum = 0, sq = 0;
  for (int i = 0; i < kN; ++i) {
    const double z = r.NextNormal();
    sum += z;
    sq += z * z;
  }
  const double mean = sum / kN;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(std::sqrt(sq / kN - mean * mean), 1.0, 0.01);
}

TEST(RngTest, StateRoundTrip) {
  Rng a(77);
  a.NextBits();
  Rng b(0);
  b.set_state(a.state());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.NextBits(), b.NextBits());
}

uint64_t Bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

TEST(RngTest, SkipsAdvanceLikeTheDraws) {
  Rng drawn(5), skipped(5);
  for (int i = 0; i < 1000; ++i) drawn.NextBits();
  skipped.SkipBits(1000);
  EXPECT_EQ(drawn.state(), skipped.state());
  skipped.SkipBits(0);
  EXPECT_EQ(drawn.state(), skipped.state());
  // Normals reject pairs at random: the skip must reject the same ones.
  for (int i = 0; i < 500; ++i) {
    drawn.NextNormal();
    skipped.SkipNormal();
    ASSERT_EQ(drawn.state(), skipped.state()) << "normal " << i;
  }
  EXPECT_EQ(drawn.NextBits(), skipped.NextBits());
}

TEST(PortableLogTest, SpecialValues) {
  EXPECT_EQ(PortableLog(1.0), 0.0);
  EXPECT_EQ(PortableLog(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(PortableLog(-0.0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(PortableLog(-1.0)));
  EXPECT_TRUE(std::isnan(PortableLog(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_EQ(PortableLog(std::numeric_limits<double>::infinity()), std::numeric_limits<double>::infinity());
  EXPECT_EQ(PortableLog(2.0), 0x1.62e42fefa39efp-1);  // ln 2 correctly rounded
  EXPECT_NEAR(PortableLog(std::numeric_limits<double>::denorm_min()), -744.4400719213812, 1e-12);
}

// fdlibm's log is within 1 ulp; glibc's is correctly rounded in practice, so
// the two differ by at most one ulp everywhere (about 4% of inputs differ).
TEST(PortableLogTest, WithinOneUlpOfLibm) {
  Rng r(1);
  int differing = 0;
  for (int i = 0; i < 100000; ++i) {
    const double x = i % 2 ? r.NextUniform() : std::ldexp(r.NextUniform() + 0.5, static_cast<int>(r.NextBits() % 200) - 100);
    if (x <= 0) continue;
    const double a = PortableLog(x), b = std::log(x);
    const int64_t ulps = static_cast<int64_t>(Bits(a)) - static_cast<int64_t>(Bits(b));
    ASSERT_LE(std::llabs(ulps), 1) << "x=" << x;
    differing += ulps != 0;
  }
  EXPECT_LT(differing, 10000);
}

}  // namespace
}  // namespace shrew::runtime
