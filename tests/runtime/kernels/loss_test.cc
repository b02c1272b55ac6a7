// mse_loss (ref_loss.cc) against a long double sum of the squared
// differences, each difference rounded in the operands' type first (as the
// interpreter takes it): operands of the same shape (one contiguous row,
// summed in lanes, block by block past 4,096 elements) and broadcast ones
// (rows with a step of 0), f32 and f64, with an offset that makes the
// order of a plain double sum show. cross_entropy against a long double
// log-softmax: every class count up to past the short-row blocks, row counts
// around the block of 64, both target forms, and the first bad class index
// named.
#include <cmath>
#include <random>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/loss_rows.h"
#include "runtime/kernels/vector_math.h"
#include "runtime/kernels/vector_math_f64.h"
#include "runtime/row_sums.h"

namespace shrew::runtime::kernels {
namespace {

using testing::BroadcastOffset;
using testing::BroadcastShape;
using testing::MakeSpec;
using testing::RandomTensor;
using testing::Unravel;
using K = ir::OpKind;

template <typename T>
void CheckMse(const Shape& a_shape, const Shape& b_shape) {
  const ir::DType dtype = std::is_same_v<T, float> ? ir::DType::kF32 : ir::DType::kF64;
  SCOPED_TRACE(ShapeToString(a_shape) + " , " + ShapeToString(b_shape) + " " + ir::DTypeName(dtype));
  std::mt19937 rng(static_cast<unsigned>(a_shape.size() * 3 + b_shape.size()));
  Tensor a = RandomTensor(dtype, a_shape, rng, 1000, 1010), b = RandomTensor(dtype, b_shape, rng, -1, 1);
  const Shape out = BroadcastShape(a_shape, b_shape);
  long double sum = 0;
  int64_t count = 1;
  for (int64_t d : out) count *= d;
  for (int64_t i = 0; i < count; ++i) {
    const std::vector<int64_t> idx = Unravel(i, out);
    const T d = a.values<T>()[static_cast<size_t>(BroadcastOffset(idx, a_shape, out))] -
                b.values<T>()[static_cast<size_t>(BroadcastOffset(idx, b_shape, out))];
    sum += static_cast<long double>(d) * static_cast<long double>(d);
  }
  const double want = static_cast<double>(sum / static_cast<long double>(count));
  auto spec = MakeSpec(K::kMseLoss, {dtype, dtype}, dtype);
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&a, &b}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  // f32: the result's rounding; f64: a few ulp of the double sum.
  const double tolerance = std::is_same_v<T, float> ? 6e-8 : 1e-14;
  EXPECT_NEAR(y->GetDouble(0), want, tolerance * want);
  if (a_shape == b_shape) {
    // One row: RowSum's lanes over the differences, as the interpreter sums them, bit for bit.
    const T* av = a.values<T>().data();
    const T* bv = b.values<T>().data();
    const double lanes = LaneSum(static_cast<size_t>(count), [&](size_t i) {
      const T d = av[i] - bv[i];
      return static_cast<double>(d) * static_cast<double>(d);
    });
    EXPECT_EQ(y->values<T>()[0], static_cast<T>(lanes / static_cast<double>(count)));
  }
}

TEST(MseLossKernelTest, SameShapeAndBroadcastOperands) {
  for (const auto& [a, b] : std::vector<std::pair<Shape, Shape>>{
           {{7}, {7}}, {{100003}, {100003}}, {{300, 70}, {300, 70}}, {{300, 70}, {70}}, {{300, 1}, {300, 70}},
           // Short rows, in groups of rows (a repeated row, a column, one per plane).
           {{409, 10}, {10}}, {{2048, 2}, {2048, 1}}, {{1, 3}, {500, 1}}, {{64, 64, 4}, {64, 1, 4}}}) {
    CheckMse<float>(a, b);
    CheckMse<double>(a, b);
  }
}

// −(1/N) Σ_r Σ_j t_rj · log_softmax(x_r)_j in long double (exact exp and log);
// class indices as one-hot rows.
template <typename T>
double WantCrossEntropy(const Tensor& x, const std::vector<double>& t, int64_t n, int64_t c) {
  long double total = 0;
  for (int64_t r = 0; r < n; ++r) {
    const T* row = x.values<T>().data() + r * c;
    long double m = -INFINITY;
    for (int64_t j = 0; j < c; ++j) m = std::max<long double>(m, row[j]);
    long double sum = 0;
    for (int64_t j = 0; j < c; ++j) sum += std::exp(static_cast<long double>(row[j]) - m);
    for (int64_t j = 0; j < c; ++j) total += t[static_cast<size_t>(r * c + j)] * (row[j] - m - std::log(sum));
  }
  return static_cast<double>(-total / static_cast<long double>(n));
}

template <typename T>
void CheckCrossEntropy(int64_t n, int64_t c, bool indices) {
  const ir::DType dtype = std::is_same_v<T, float> ? ir::DType::kF32 : ir::DType::kF64;
  SCOPED_TRACE(std::to_string(n) + " rows of " + std::to_string(c) + (indices ? " indices " : " distribution ") +
               ir::DTypeName(dtype));
  std::mt19937 rng(static_cast<unsigned>(n * 31 + c));
  Tensor x = RandomTensor(dtype, {n, c}, rng, -8, 8);
  for (int64_t i = 0; i < n * c; i += 11) x.mutable_values<T>()[static_cast<size_t>(i)] = 60;  // a dominant class now and then
  std::vector<double> onehot(static_cast<size_t>(n * c), 0.0);
  std::uniform_int_distribution<int64_t> cls(0, c - 1);
  std::uniform_real_distribution<double> u(0, 1);
  Result<Tensor> t = indices ? Tensor::Zeros(ir::DType::kI64, {n}) : Tensor::Zeros(dtype, {n, c});
  ASSERT_TRUE(t.ok());
  for (int64_t r = 0; r < n; ++r) {
    if (indices) {
      const int64_t k = cls(rng);
      t->mutable_values<int64_t>()[static_cast<size_t>(r)] = k;
      onehot[static_cast<size_t>(r * c + k)] = 1;
    } else {
      for (int64_t j = 0; j < c; ++j) {
        const T p = static_cast<T>(u(rng));
        t->mutable_values<T>()[static_cast<size_t>(r * c + j)] = p;
        onehot[static_cast<size_t>(r * c + j)] = static_cast<double>(p);
      }
    }
  }
  auto spec = MakeSpec(K::kCrossEntropy, {dtype, indices ? ir::DType::kI64 : dtype}, dtype);
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x, &*t}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const double want = WantCrossEntropy<T>(x, onehot, n, c);
  // f32: exp within 1e-6 relative, then the result's rounding; f64: a few ulp.
  const double tolerance = std::is_same_v<T, float> ? 2e-6 : 1e-13;
  EXPECT_NEAR(y->GetDouble(0), want, tolerance * std::max(1.0, std::fabs(want)));
}

TEST(CrossEntropyKernelTest, ShortAndLongRowsInBlocksOfRows) {
  for (int64_t c : {1, 2, 3, 7, 8, 9, 15, 16, 17, 100}) {
    for (int64_t n : {1, 63, 64, 65, 200}) {
      for (bool indices : {true, false}) {
        CheckCrossEntropy<float>(n, c, indices);
        CheckCrossEntropy<double>(n, c, indices);
      }
    }
  }
}

// RowsLogSumExp's short rows go through planes; each row's maximum and
// log-sum must be the row-by-row formula's bits: the maximum from −inf,
// exp in the storage type (ExpOne: the lanes' bits), RowSum, log.
template <typename T>
void ExpectRowByRowBits(size_t rows, size_t n) {
  SCOPED_TRACE(std::to_string(rows) + " rows of " + std::to_string(n));
  std::mt19937 rng(static_cast<unsigned>(rows * 64 + n));
  std::uniform_real_distribution<double> u(-40, 40);
  std::vector<T> x(rows * n);
  for (T& v : x) v = static_cast<T>(u(rng));
  x[n / 2] = -INFINITY;  // passed over by the maximum
  if (rows > 2) x[2 * n] = NAN;
  std::vector<T> m(rows), scratch(LogSumExpScratch(n));
  std::vector<double> log_sum(rows);
  RowsLogSumExp(x.data(), rows, n, m.data(), log_sum.data(), scratch.data());
  for (size_t r = 0; r < rows; ++r) {
    T want_m = -INFINITY;
    for (size_t j = 0; j < n; ++j) want_m = x[r * n + j] > want_m ? x[r * n + j] : want_m;
    std::vector<T> e(n);
    for (size_t j = 0; j < n; ++j) e[j] = ExpOne(x[r * n + j] - want_m);
    const double want = std::log(RowSum(e.data(), n));
    ASSERT_EQ(m[r], want_m) << r;
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(log_sum[r])) << r;
    } else {
      ASSERT_EQ(log_sum[r], want) << r;
    }
  }
}

TEST(CrossEntropyKernelTest, ShortRowsInPlanesGiveTheRowByRowBits) {
  for (size_t n = 1; n <= 50; ++n) {
    for (size_t rows : {size_t{4}, size_t{37}, kLogSumExpRows}) {
      ExpectRowByRowBits<float>(rows, n);
      ExpectRowByRowBits<double>(rows, n);
    }
  }
}

// The whole target is checked before any arithmetic, and the error names
// the first bad index wherever it sits among the blocks of rows.
TEST(CrossEntropyKernelTest, TheFirstBadClassIndexIsNamed) {
  std::mt19937 rng(5);
  Tensor x = RandomTensor(ir::DType::kF32, {130, 3}, rng);
  auto spec = MakeSpec(K::kCrossEntropy, {ir::DType::kF32, ir::DType::kI64}, ir::DType::kF32);
  for (const auto& [at, bad, shown] : std::vector<std::tuple<int64_t, int64_t, std::string>>{
           {0, 3, "3"}, {64, -1, "-1"}, {129, INT64_MIN, std::to_string(INT64_MIN)}}) {
    Result<Tensor> t = Tensor::Zeros(ir::DType::kI64, {130});
    ASSERT_TRUE(t.ok());
    for (int64_t r = 0; r < 130; ++r) t->mutable_values<int64_t>()[static_cast<size_t>(r)] = r % 3;
    t->mutable_values<int64_t>()[static_cast<size_t>(at)] = bad;
    if (at != 129) t->mutable_values<int64_t>()[129] = 7;  // a later offender is not the one named
    Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x, &*t}, {});
    ASSERT_FALSE(y.ok());
    EXPECT_EQ(y.status().message(), "cross_entropy class index " + shown + " out of range for 3 classes (target #1, "
                                    "element " + std::to_string(at) + ")");
  }
  Result<Tensor> tf = Tensor::Zeros(ir::DType::kF32, {130});
  ASSERT_TRUE(tf.ok());
  auto fspec = MakeSpec(K::kCrossEntropy, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  for (const auto& [bad, want] : std::vector<std::pair<float, std::string>>{
           {NAN, "cross_entropy target nan is not an integral class index (target #1, element 70)"},
           {1.5f, "cross_entropy target 1.5 is not an integral class index (target #1, element 70)"},
           {3.0f, "cross_entropy class index 3 out of range for 3 classes (target #1, element 70)"}}) {
    tf->mutable_values<float>()[70] = bad;
    Result<Tensor> y = testing::CreateAndRun(fspec->spec, {&x, &*tf}, {});
    ASSERT_FALSE(y.ok());
    EXPECT_EQ(y.status().message(), want);
  }
}

}  // namespace
}  // namespace shrew::runtime::kernels
