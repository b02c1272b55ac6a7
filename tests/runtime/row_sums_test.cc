// runtime/row_sums.h: row sums in double, in lanes and, past kRowSumBlock
// elements, block by block; against a long double sum of the same values.
#include "runtime/row_sums.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace shrew::runtime {
namespace {

// A 1e6-element row near 1000: in lanes alone each of the 8 took 125,000
// terms in turn and the sums were 7.3e-15 and 4.8e-15 relative off; block by
// block 6.7e-16 and 4.5e-16.
TEST(RowSums, LongRowsAreSummedBlockByBlock) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> x(1000000);
  for (double& v : x) v = 1000 + u(rng);
  long double sum = 0;
  for (double v : x) sum += v;
  const long double mean = sum / static_cast<long double>(x.size());
  long double sq = 0;
  for (double v : x) sq += (v - mean) * (v - mean);
  EXPECT_LT(std::fabs(static_cast<double>((RowSum(x.data(), x.size()) - sum) / sum)), 2e-15);
  EXPECT_LT(std::fabs(static_cast<double>((RowSquaredDeviation(x.data(), x.size(), static_cast<double>(mean)) - sq) / sq)),
            2e-15);
}

// Up to a block, the row's value is its lanes' as before (bit for bit the
// interpreter's batch_norm and the kernels' shared order): the same sum as a
// hand-written 8-lane loop.
TEST(RowSums, AShortRowIsItsLanesSum) {
  std::vector<float> x(kRowSumBlock);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * 1e3f;
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, kRowSumShortRow - 1, kRowSumShortRow, size_t{1001},
                   kRowSumBlock}) {
    double lane[8] = {};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      for (int l = 0; l < 8; ++l) lane[l] += static_cast<double>(x[i + static_cast<size_t>(l)]);
    }
    double s = 0;
    for (; i < n; ++i) s += static_cast<double>(x[i]);
    for (double l : lane) s += l;
    EXPECT_EQ(RowSum(x.data(), n), s) << n;
  }
  // From kRowSumShortRow on a one-block row is 0 + its sum: still +0, never -0, for a row of -0.
  const std::vector<float> zeros(kRowSumBlock, -0.0f);
  for (size_t n : {kRowSumShortRow - 1, kRowSumShortRow, kRowSumBlock}) {
    const double z = RowSum(zeros.data(), n);
    EXPECT_EQ(z, 0.0) << n;
    EXPECT_FALSE(std::signbit(z)) << n;
  }
}

// Under the lanes the row is summed in order with no fold of the zero
// lanes: the same value, sign of zero included, as folding them in (a sum
// that starts at +0 is never -0), for rows of zeros of either sign, NaN and
// infinities; the squared deviations likewise.
TEST(RowSums, RowsUnderTheLanesNeedNoFold) {
  const double inf = INFINITY;
  const std::vector<std::vector<double>> rows = {
      {}, {-0.0}, {-0.0, -0.0, -0.0}, {0.0, -0.0}, {-1.5, 1.5}, {1e308, 1e308, -1e308}, {NAN, 1},
      {inf, -inf}, {-inf, -2}, {3, -0.0, -3, -0.0, 1e-300, -1e-300, 7}};
  for (const std::vector<double>& x : rows) {
    ASSERT_LT(x.size(), static_cast<size_t>(kRowSumLanes));
    for (double mean : {0.0, -0.0, 1.5}) {
      double s = 0, q = 0;
      for (double v : x) {
        s += v;
        q += (v - mean) * (v - mean);
      }
      for (int l = 0; l < kRowSumLanes; ++l) {  // the zero lanes, folded in
        s += 0.0;
        q += 0.0;
      }
      const double got = RowSum(x.data(), x.size()), got_q = RowSquaredDeviation(x.data(), x.size(), mean);
      EXPECT_TRUE((std::isnan(s) && std::isnan(got)) || (got == s && std::signbit(got) == std::signbit(s)))
          << x.size() << ": " << got << " vs " << s;
      EXPECT_TRUE((std::isnan(q) && std::isnan(got_q)) || (got_q == q && std::signbit(got_q) == std::signbit(q)))
          << x.size() << ": " << got_q << " vs " << q;
    }
  }
}

// Rows held as planes (cross_entropy's short rows): each row's value is
// RowSum's, bit for bit, for lengths under, at and past the lanes' groups,
// with values whose sums show the order (1e16 against 1).
TEST(RowSums, RowsInPlanesAreEachRowsSum) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> pick(0, 3);
  const double kinds[] = {1e16, 1.0, -1e16, 0.375};
  for (size_t n = 1; n <= 50; ++n) {
    for (size_t rows : {size_t{1}, size_t{5}, size_t{64}}) {
      std::vector<double> x(rows * n), plane(rows * n);
      for (double& v : x) v = kinds[pick(rng)];
      for (size_t r = 0; r < rows; ++r) {
        for (size_t j = 0; j < n; ++j) plane[j * rows + r] = x[r * n + j];
      }
      std::vector<double> sums(rows);
      PlaneRowSums<64>(plane.data(), rows, n, sums.data());
      for (size_t r = 0; r < rows; ++r) EXPECT_EQ(sums[r], RowSum(x.data() + r * n, n)) << n << " " << r;
    }
  }
}

// AddShortRowSums adds each row's RowSum (RowSquaredDeviation) into its
// accumulator plane after plane: the row walk's values bit for bit, for
// every row length under the lanes and around them, -0 and mixed magnitudes
// included.
TEST(RowSums, ShortRowsAddedInMemoryOrderAreTheWalksSums) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 17, 64, 127, 300}) {
    const size_t outer = 5, k = 7;
    std::vector<double> x(outer * k * n);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = i % 11 == 0 ? -0.0 : u(rng) * std::pow(10.0, static_cast<int>(i % 7) * 3);
    }
    std::vector<double> mean(k);
    for (double& m : mean) m = u(rng);
    for (bool centred : {false, true}) {
      SCOPED_TRACE("n = " + std::to_string(n) + (centred ? " centred" : ""));
      std::vector<double> want(k, 0.0), got(k, 0.0);
      for (size_t o = 0; o < outer; ++o) {
        for (size_t j = 0; j < k; ++j) {
          const double* row = x.data() + (o * k + j) * n;
          want[j] += centred ? RowSquaredDeviation(row, n, mean[j]) : RowSum(row, n);
        }
      }
      AddShortRowSums(x.data(), outer, k, n, centred ? mean.data() : nullptr, got.data());
      for (size_t j = 0; j < k; ++j) EXPECT_EQ(std::signbit(got[j]), std::signbit(want[j])) << j;
      for (size_t j = 0; j < k; ++j) EXPECT_EQ(got[j], want[j]) << j;
    }
  }
}

}  // namespace
}  // namespace shrew::runtime
