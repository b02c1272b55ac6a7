#include "runtime/xnn_dense.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace shrew::runtime {
namespace {

std::vector<float> RefDense(const DenseShape& s, const std::vector<float>& x, const std::vector<float>& w,
                            const std::vector<float>& b) {
  std::vector<float> y(s.batch * s.out);
  for (size_t r = 0; r < s.batch; ++r)
    for (size_t o = 0; o < s.out; ++o) {
      double acc = b.empty() ? 0.0 : b[o];
      for (size_t i = 0; i < s.in; ++i) acc += double(x[r * s.in + i]) * w[o * s.in + i];
      y[r * s.out + o] = float(acc);
    }
  return y;
}

std::vector<float> Random(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& f : v) f = d(rng);
  return v;
}

TEST(DenseXnn, HandComputed) {
  // x = [[1, 2]], w = [[1, 0], [0, 1], [1, 1]], b = [0.5, -1, 0] -> [1.5, 1, 3]
  auto y = DenseXnn({1, 2, 3}, {1, 2}, {1, 0, 0, 1, 1, 1}, {0.5f, -1, 0});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(*y, (std::vector<float>{1.5f, 1.f, 3.f}));
}

TEST(DenseXnn, MatchesReferenceLoopOnRandomShapes) {
  std::mt19937 rng(7);
  const DenseShape shapes[] = {{1, 1, 1}, {3, 17, 5}, {8, 64, 33}, {64, 784, 10}, {5, 3, 129}};
  for (const DenseShape& s : shapes) {
    auto x = Random(s.batch * s.in, rng), w = Random(s.out * s.in, rng), b = Random(s.out, rng);
    auto y = DenseXnn(s, x, w, b);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    auto ref = RefDense(s, x, w, b);
    ASSERT_EQ(y->size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      EXPECT_NEAR((*y)[i], ref[i], 1e-4f * (1.f + std::fabs(ref[i]))) << "shape " << s.batch << "x" << s.in
                                                                        << "->" << s.out << " at " << i;
    }
  }
}

TEST(DenseXnn, WithoutBias) {
  auto y = DenseXnn({2, 2, 1}, {1, 2, 3, 4}, {10, 1}, {});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(*y, (std::vector<float>{12.f, 34.f}));
}

TEST(DenseXnn, RejectsMismatchedSizesWithClearError) {
  auto y = DenseXnn({2, 3, 4}, {1, 2, 3}, std::vector<float>(12), {});
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(y.status().message().find("x has 3 elements, expected 6"), std::string::npos);
}

}  // namespace
}  // namespace shrew::runtime
