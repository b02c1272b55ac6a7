// vector_math.h: the four-lane forms (ExpRow, LogRow) give the scalar
// forms' bits in every lane, and both stay within OPS.md §3.3's 1e-6.
#include "runtime/kernels/vector_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace shrew::runtime::kernels {
namespace {

// Every `step`-th f32 bit pattern (both signs, NaNs and infinities
// included), then the special values.
std::vector<float> SampledFloats(uint32_t step) {
  std::vector<float> xs;
  for (uint64_t b = 0; b <= 0xffffffffu; b += step) xs.push_back(BitsToFloat(static_cast<uint32_t>(b)));
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1.0f, 1.41421356f, 1.41421366f,
                  0.70710677f, 1e-45f, 1.17549435e-38f, 88.72283f, 88.72284f, -87.33655f, -103.9721f, -104.5f, 89.5f}) {
    xs.push_back(x);
  }
  return xs;
}

void ExpectSameBits(const std::vector<float>& xs, const std::vector<float>& got, float (*one)(float), const char* name) {
  ASSERT_EQ(got.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    ASSERT_EQ(FloatToBits(got[i]), FloatToBits(one(xs[i]))) << name << "(" << xs[i] << ") at " << i;
  }
}

TEST(VectorMathTest, RowsGiveTheScalarBitsInEveryLane) {
  const std::vector<float> xs = SampledFloats(65537);
  std::vector<float> y(xs.size());
  ExpRow(xs.data(), y.data(), xs.size());
  ExpectSameBits(xs, y, ExpOne, "exp");
  LogRow(xs.data(), y.data(), xs.size());
  ExpectSameBits(xs, y, LogOne, "log");
  // In place, and every tail length past the last group of four.
  for (size_t n = 0; n <= 9; ++n) {
    std::vector<float> v(xs.begin() + 1000, xs.begin() + 1000 + static_cast<std::ptrdiff_t>(n));
    const std::vector<float> ref = v;
    ExpRow(v.data(), v.data(), n);
    ExpectSameBits(ref, v, ExpOne, "exp in place");
  }
}

TEST(VectorMathTest, ExpSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ExpOne(0.0f), 1.0f);
  EXPECT_EQ(ExpOne(-0.0f), 1.0f);
  EXPECT_EQ(ExpOne(inf), inf);
  EXPECT_EQ(ExpOne(-inf), 0.0f);
  EXPECT_EQ(ExpOne(89.0f), inf);
  EXPECT_EQ(ExpOne(-104.0f), 0.0f);
  EXPECT_TRUE(std::isnan(ExpOne(std::numeric_limits<float>::quiet_NaN())));
  // Subnormal results are rounded, not flushed: e^-103 = 1.29 · 2^-149.
  EXPECT_GT(ExpOne(-103.0f), 0.0f);
  EXPECT_NEAR(ExpOne(-103.0f), std::exp(-103.0), 1.401298464324817e-45);
}

TEST(VectorMathTest, LogIsWithinOneMillionthOnEverySampledPositiveFloat) {
  // Every 257th positive f32 (subnormals included) against double log.
  std::vector<float> xs;
  for (uint32_t b = 1; b < 0x7f800000u; b += 257) xs.push_back(BitsToFloat(b));
  std::vector<float> y(xs.size());
  LogRow(xs.data(), y.data(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const double ref = std::log(static_cast<double>(xs[i]));
    ASSERT_LE(std::fabs(y[i] - ref), 1e-6 * std::fabs(ref) + 1e-30) << "log(" << xs[i] << ")";
  }
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(LogOne(0.0f), -inf);
  EXPECT_EQ(LogOne(-0.0f), -inf);
  EXPECT_EQ(LogOne(inf), inf);
  EXPECT_EQ(LogOne(1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(LogOne(-1e-30f)));
  EXPECT_TRUE(std::isnan(LogOne(-inf)));
  EXPECT_TRUE(std::isnan(LogOne(std::numeric_limits<float>::quiet_NaN())));
}

}  // namespace
}  // namespace shrew::runtime::kernels
