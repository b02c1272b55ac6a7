// softmax on every axis (negative ones included) against a hand-written
// stable softmax in double. f32 tolerance 1e-5 relative / 1e-6 absolute:
// XNNPACK's softmax and our exp are within a few ulp.
#include <cmath>
#include <random>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/softmax_rows.h"
#include "runtime/kernels/vector_math.h"
#include "runtime/kernels/vector_math_f64.h"

namespace shrew::runtime::kernels {
namespace {

using testing::MakeSpec;
using testing::RandomTensor;
using K = ir::OpKind;

class SoftmaxTester {
 public:
  SoftmaxTester& InputShape(Shape s) {
    shape_ = std::move(s);
    return *this;
  }
  SoftmaxTester& Axis(int64_t a) {
    axis_ = a;
    return *this;
  }
  SoftmaxTester& DType(ir::DType d) {
    dtype_ = d;
    return *this;
  }
  SoftmaxTester& InPlace(bool v) {
    in_place_ = v;
    return *this;
  }
  SoftmaxTester& Range(double lo, double hi) {
    lo_ = lo;
    hi_ = hi;
    return *this;
  }
  SoftmaxTester& ExpectImpl(std::string s) {
    impl_ = std::move(s);
    return *this;
  }

  void Test() const {
    SCOPED_TRACE("softmax " + ShapeToString(shape_) + " dim=" + std::to_string(axis_) + " " + ir::DTypeName(dtype_));
    std::mt19937 rng(static_cast<unsigned>(shape_.size() * 11 + axis_ + 50));
    Tensor x = RandomTensor(dtype_, shape_, rng, lo_, hi_);
    const int rank = static_cast<int>(shape_.size());
    const int a = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    int64_t outer = 1, len = shape_[a], inner = 1;
    for (int i = 0; i < a; ++i) outer *= shape_[i];
    for (int i = a + 1; i < rank; ++i) inner *= shape_[i];
    Tensor expected = x;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        auto at = [&](int64_t l) { return (o * len + l) * inner + i; };
        double m = -INFINITY, sum = 0;
        for (int64_t l = 0; l < len; ++l) m = std::max(m, x.GetDouble(at(l)));
        for (int64_t l = 0; l < len; ++l) sum += std::exp(x.GetDouble(at(l)) - m);
        for (int64_t l = 0; l < len; ++l) expected.SetDouble(at(l), std::exp(x.GetDouble(at(l)) - m) / sum);
      }
    }
    auto spec = MakeSpec(K::kSoftmax, {dtype_}, dtype_, testing::Attr("dim", ir::AttrValue::Int(axis_)));
    Result<KernelPtr> k = CreateKernel(spec->spec);
    ASSERT_TRUE(k.ok()) << k.status().ToString();
    testing::RunOptions opt;
    opt.in_place = in_place_;
    Result<Tensor> y = testing::RunKernel(**k, {&x}, shape_, dtype_, opt);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    if (dtype_ == ir::DType::kF64) {
      EXPECT_TENSOR_NEAR(*y, expected, 1e-12, 1e-15);
    } else {
      EXPECT_TENSOR_NEAR(*y, expected, 1e-5, 1e-6);
    }
    if (!impl_.empty()) EXPECT_EQ((*k)->impl_name(), impl_);
  }

 private:
  Shape shape_ = {4};
  int64_t axis_ = -1;
  ir::DType dtype_ = ir::DType::kF32;
  bool in_place_ = false;
  double lo_ = -3, hi_ = 3;
  std::string impl_;
};

TEST(SoftmaxKernelTest, EveryAxisOfSeveralShapes) {
  const Shape shapes[] = {{1}, {7}, {3, 5}, {2, 3, 4}, {2, 1, 5, 3}, {1, 1, 1}, {300, 2}};
  for (const Shape& s : shapes) {
    const int r = static_cast<int>(s.size());
    for (int a = -r; a < r; ++a) {
      SoftmaxTester().InputShape(s).Axis(a).Test();
      SoftmaxTester().InputShape(s).Axis(a).DType(ir::DType::kF64).Test();
    }
  }
}

// Columns 16 wide or more run one row per chunk (no place arithmetic):
// 2, 3 and 33 rows of 16 to 300 columns, in place too.
TEST(SoftmaxKernelTest, WideColumnsOfFewRows) {
  for (const Shape& s : {Shape{2, 300}, Shape{3, 16}, Shape{2, 5, 40}, Shape{33, 17}}) {
    for (ir::DType d : {ir::DType::kF32, ir::DType::kF64}) {
      SoftmaxTester().InputShape(s).Axis(0).DType(d).Test();
      SoftmaxTester().InputShape(s).Axis(0).DType(d).InPlace(true).Test();
    }
  }
}

TEST(SoftmaxKernelTest, RandomShapesAndAxes) {
  std::mt19937 rng(8);
  for (int i = 0; i < 40; ++i) {
    const int r = static_cast<int>(1 + rng() % 4);
    Shape s(static_cast<size_t>(r));
    for (int64_t& d : s) d = static_cast<int64_t>(1 + rng() % 7);
    const int64_t axis = static_cast<int64_t>(rng() % static_cast<unsigned>(2 * r)) - r;
    SoftmaxTester().InputShape(s).Axis(axis).InPlace(i % 2 == 0).Test();
  }
}

TEST(SoftmaxKernelTest, ImplementationPerAxis) {
  SoftmaxTester().InputShape({4, 40}).Axis(-1).ExpectImpl("xnn_softmax").Test();
  SoftmaxTester().InputShape({4, 40}).Axis(1).ExpectImpl("xnn_softmax").Test();
  SoftmaxTester().InputShape({4, 40}).Axis(0).ExpectImpl("ref").Test();
  SoftmaxTester().InputShape({4, 40, 1}).Axis(1).ExpectImpl("xnn_softmax").Test();  // inner size 1
  // f32 rows of the last axis under 16, and f64 rows of the last axis, across rows; in place or not.
  SoftmaxTester().InputShape({4, 8}).Axis(-1).ExpectImpl("ref_rows").Test();
  SoftmaxTester().InputShape({4, 8, 1}).Axis(1).InPlace(true).ExpectImpl("ref_rows").Test();
  SoftmaxTester().InputShape({4, 9}).Axis(-1).ExpectImpl("ref_rows").Test();
  SoftmaxTester().InputShape({5, 15}).Axis(-1).ExpectImpl("ref_rows").Test();
  SoftmaxTester().InputShape({5, 16}).Axis(-1).ExpectImpl("xnn_softmax").Test();
  // Rows up to 16 long, 16,384 elements or more: through planes.
  SoftmaxTester().InputShape({2048, 12}).Axis(-1).ExpectImpl("ref_rows").Test();
  SoftmaxTester().InputShape({1024, 12}).Axis(-1).ExpectImpl("ref_rows").Test();
  SoftmaxTester().InputShape({1000, 16}).Axis(-1).ExpectImpl("xnn_softmax").Test();
  SoftmaxTester().InputShape({1024, 17}).Axis(-1).ExpectImpl("xnn_softmax").Test();
  SoftmaxTester().InputShape({4, 40}).Axis(-1).DType(ir::DType::kF64).ExpectImpl("ref_rows").Test();
  SoftmaxTester().InputShape({3, 5000}).Axis(-1).DType(ir::DType::kF64).InPlace(true).ExpectImpl("ref_rows").Test();
  SoftmaxTester().InputShape({4, 40}).Axis(0).DType(ir::DType::kF64).ExpectImpl("ref").Test();
  // Another axis with under 16 places after it, shorter than 4 chunks of
  // 32 elements (4 * ceil(32 / places)): each slice's columns as rows.
  for (ir::DType dtype : {ir::DType::kF32, ir::DType::kF64}) {
    SoftmaxTester().InputShape({50, 3, 2}).Axis(1).DType(dtype).ExpectImpl("ref_transposed_rows").Test();
    SoftmaxTester().InputShape({7, 10, 2, 2}).Axis(1).DType(dtype).InPlace(true).ExpectImpl("ref_transposed_rows").Test();
    SoftmaxTester().InputShape({3, 15, 8, 8}).Axis(2).DType(dtype).ExpectImpl("ref_transposed_rows").Test();
    SoftmaxTester().InputShape({63, 2}).Axis(0).DType(dtype).InPlace(true).ExpectImpl("ref_transposed_rows").Test();
    SoftmaxTester().InputShape({11, 15}).Axis(0).DType(dtype).InPlace(true).ExpectImpl("ref_transposed_rows").Test();
    SoftmaxTester().InputShape({64, 2}).Axis(0).DType(dtype).ExpectImpl("ref").Test();
    SoftmaxTester().InputShape({3, 8, 16, 8}).Axis(2).DType(dtype).ExpectImpl("ref").Test();
    SoftmaxTester().InputShape({2, 9, 16}).Axis(1).DType(dtype).ExpectImpl("ref").Test();
  }
}

// Softmax over a first or middle axis whose trailing size is under 16: the
// column passes a chunk of rows at a time (softmax_rows.h), for every
// width, lengths around a chunk (32 elements) and a block (32 rows), in
// place or not; a column holding +inf or NaN is all NaN, -inf gives 0.
TEST(SoftmaxKernelTest, NarrowColumnsChunkByChunk) {
  for (int64_t inner = 1; inner < 16; ++inner) {
    const int64_t g = (32 + inner - 1) / inner;
    for (int64_t len : {int64_t{1}, int64_t{2}, g - 1, g, g + 1, 2 * g + 3, int64_t{70}, int64_t{1000}}) {
      if (len < 1) continue;
      for (ir::DType d : {ir::DType::kF32, ir::DType::kF64}) {
        SoftmaxTester().InputShape({len, inner, 1}).Axis(0).DType(d).InPlace(len % 2 == 0).Test();
        SoftmaxTester().InputShape({2, len, inner}).Axis(1).DType(d).Test();
      }
    }
  }
  const double inf = INFINITY;
  for (ir::DType d : {ir::DType::kF32, ir::DType::kF64}) {
    Result<Tensor> x = Tensor::Zeros(d, {100, 3});
    ASSERT_TRUE(x.ok());
    for (int64_t i = 0; i < 300; ++i) x->SetDouble(i, std::sin(static_cast<double>(i)));
    x->SetDouble(50 * 3 + 0, inf);   // column 0: all NaN
    x->SetDouble(70 * 3 + 1, NAN);   // column 1: all NaN
    x->SetDouble(99 * 3 + 2, -inf);  // column 2: that element 0, the rest a softmax
    auto spec = MakeSpec(K::kSoftmax, {d}, d, testing::Attr("dim", ir::AttrValue::Int(0)));
    Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x}, {100, 3});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    double sum2 = 0;
    for (int64_t l = 0; l < 100; ++l) {
      EXPECT_TRUE(std::isnan(y->GetDouble(l * 3))) << l;
      EXPECT_TRUE(std::isnan(y->GetDouble(l * 3 + 1))) << l;
      sum2 += y->GetDouble(l * 3 + 2);
    }
    EXPECT_EQ(y->GetDouble(99 * 3 + 2), 0.0);
    EXPECT_NEAR(sum2, 1.0, 1e-6);
  }
}

// A probability under 2^-126 is kept in rows of 9-15 (XNNPACK's exp, which
// took them in wasm, flushed it to 0: log(softmax(x)) was -inf where the
// interpreter gives -95).
TEST(SoftmaxKernelTest, SubnormalProbabilitiesOfShortRowsAreKept) {
  for (int64_t len : {9, 12, 15}) {
    SCOPED_TRACE(len);
    Result<Tensor> x = Tensor::Zeros(ir::DType::kF32, {2, len});
    ASSERT_TRUE(x.ok());
    x->SetDouble(0, 95);
    x->SetDouble(len + 1, 95);
    auto spec = MakeSpec(K::kSoftmax, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("dim", ir::AttrValue::Int(-1)));
    Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x}, {2, len});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    const double tiny = std::exp(-95.0);  // 5.5e-42, of 1 + (len - 1) e^-95
    for (int64_t j = 1; j < len; ++j) EXPECT_NEAR(y->GetDouble(j), tiny, tiny * 1e-3) << j;
    EXPECT_NEAR(y->GetDouble(len), tiny, tiny * 1e-3);
    EXPECT_EQ(y->GetDouble(len + 1), 1.0);
  }
}

// Rows of the last axis computed across rows (f32 under 16 columns, f64 any):
// each row on its own, with its own maximum (±inf and NaN follow y =
// exp(x − max) / Σ: a row holding +inf or NaN is all NaN, -inf gives 0, a
// row of -inf is NaN), rows of 1, values far beyond exp's range, and many
// rows over several blocks (the exp pass runs in vectors), each fixed length.
TEST(SoftmaxKernelTest, ShortRowsFollowTheFormulaRowByRow) {
  const float inf = INFINITY, nan = NAN;
  for (ir::DType dtype : {ir::DType::kF32, ir::DType::kF64}) {
    SCOPED_TRACE(ir::DTypeName(dtype));
    const std::vector<double> v = {1, 2, 3,  -inf, 0, 0,  inf, 1, 2,  nan, 1, 2,  -inf, -inf, -inf,  900, 901, -900};
    Result<Tensor> x = Tensor::Zeros(dtype, {6, 3});
    ASSERT_TRUE(x.ok());
    for (int i = 0; i < 18; ++i) x->SetDouble(i, v[static_cast<size_t>(i)]);
    auto spec = MakeSpec(K::kSoftmax, {dtype}, dtype, testing::Attr("dim", ir::AttrValue::Int(-1)));
    Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x}, {6, 3});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    const double s = 1 + std::exp(-1.0) + std::exp(-2.0);
    const double want[] = {std::exp(-2.0) / s, std::exp(-1.0) / s, 1 / s, 0, 0.5, 0.5, nan, nan, nan,
                           nan, nan, nan, nan, nan, nan, std::exp(-1.0) / (1 + std::exp(-1.0)), 1 / (1 + std::exp(-1.0)), 0};
    for (int i = 0; i < 18; ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(y->GetDouble(i))) << i << ": " << y->GetDouble(i);
      } else {
        EXPECT_NEAR(y->GetDouble(i), want[i], 1e-6 * want[i]) << i;
      }
    }
    // Slices of 1, on the last axis or another: exp(0) / 1, NaN for ±inf and NaN.
    for (int64_t axis : {1, 2}) {
      const Shape shape = axis == 1 ? Shape{5, 1, 2} : Shape{5, 2, 1};
      Result<Tensor> ones = Tensor::Full(dtype, shape, -7.5);
      ASSERT_TRUE(ones.ok());
      ones->SetDouble(3, inf);
      ones->SetDouble(6, nan);
      auto spec1 = MakeSpec(K::kSoftmax, {dtype}, dtype, testing::Attr("dim", ir::AttrValue::Int(axis)));
      y = testing::CreateAndRun(spec1->spec, {&*ones}, shape);
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      for (int i = 0; i < 10; ++i) {
        if (i == 3 || i == 6) {
          EXPECT_TRUE(std::isnan(y->GetDouble(i))) << i;
        } else {
          EXPECT_EQ(y->GetDouble(i), 1.0) << i;
        }
      }
    }
  }
  for (int64_t len : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 31, 700, 3000}) {
    SoftmaxTester().InputShape({1001, len}).Axis(-1).Range(-20, 20).InPlace(len % 2 == 0)
        .ExpectImpl(len < 16 ? "ref_rows" : "xnn_softmax").Test();
    SoftmaxTester().InputShape({3, 7, len}).Axis(-1).DType(ir::DType::kF64).InPlace(len % 2 == 1)
        .ExpectImpl("ref_rows").Test();
  }
}

// Row by row, in the order softmax_rows.h states: the maximum from element
// 0 on (`>`), exp of x − max (f32: ExpOne), the sum from 0 in T, the
// reciprocal in double, each element times it.
template <typename T>
std::vector<T> SoftmaxRowByRow(const std::vector<T>& x, size_t len) {
  std::vector<T> y(x.size());
  for (size_t r = 0; r < x.size(); r += len) {
    T top = x[r];
    for (size_t j = 1; j < len; ++j) top = x[r + j] > top ? x[r + j] : top;
    T sum = 0;
    for (size_t j = 0; j < len; ++j) {
      y[r + j] = ExpOne(x[r + j] - top);  // vector_math.h's f32 or vector_math_f64.h's f64
      sum += y[r + j];
    }
    const T inv = static_cast<T>(1.0 / static_cast<double>(sum));
    for (size_t j = 0; j < len; ++j) y[r + j] *= inv;
  }
  return y;
}

template <typename T>
void ExpectShortRowsInPlanesAsRowByRow() {
  // 8,209 rows: past the planes' threshold (f32) for every length, the
  // last block partial; a few rows with infinities and a NaN. f64 rows go
  // row by row and must give the same formula's bits too.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-30, 30);
  for (size_t len = 2; len <= 17; ++len) {
    SCOPED_TRACE(len);
    std::vector<T> x(8209 * len);
    for (T& v : x) v = static_cast<T>(u(rng));
    x[5 * len] = INFINITY;
    x[7 * len + 1] = -INFINITY;
    x[4000 * len + len - 1] = NAN;
    for (size_t j = 0; j < len; ++j) x[6000 * len + j] = -INFINITY;
    const std::vector<T> want = SoftmaxRowByRow(x, len);
    std::vector<T> y(x.size());
    SoftmaxRows(x.data(), y.data(), x.size(), len);
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(want[i])) {
        ASSERT_TRUE(std::isnan(y[i])) << i;
      } else {
        ASSERT_EQ(y[i], want[i]) << i;
      }
    }
    SoftmaxRows(x.data(), x.data(), x.size(), len);  // in place
    for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) << i;
  }
}

TEST(SoftmaxKernelTest, ManyShortRowsGoThroughPlanesWithTheRowByRowBits) {
  ExpectShortRowsInPlanesAsRowByRow<float>();
  ExpectShortRowsInPlanesAsRowByRow<double>();
}

// Worst relative error of softmax(x) along `axis` of [outer, len, inner]
// against the exact softmax computed in double from the same f32 values.
double WorstRelativeError(const std::vector<float>& values, Shape shape, int64_t axis) {
  Result<Tensor> x = Tensor::FromVector<float>(ir::DType::kF32, shape, values);
  EXPECT_TRUE(x.ok());
  auto spec = MakeSpec(K::kSoftmax, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("dim", ir::AttrValue::Int(axis)));
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x}, shape);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return INFINITY;
  const int a = static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis);
  int64_t outer = 1, len = shape[static_cast<size_t>(a)], inner = 1;
  for (int i = 0; i < a; ++i) outer *= shape[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(a) + 1; i < shape.size(); ++i) inner *= shape[i];
  double worst = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t l) { return static_cast<size_t>((o * len + l) * inner + i); };
      double m = -INFINITY;
      for (int64_t l = 0; l < len; ++l) m = std::max(m, static_cast<double>(values[at(l)]));
      // Pairwise enough: a long double sum of positive terms is within 1e-13 here.
      long double sum = 0;
      for (int64_t l = 0; l < len; ++l) sum += std::exp(static_cast<long double>(values[at(l)]) - m);
      for (int64_t l = 0; l < len; ++l) {
        const double want = static_cast<double>(std::exp(static_cast<long double>(values[at(l)]) - m) / sum);
        worst = std::max(worst, std::abs(y->GetDouble(static_cast<int64_t>(at(l))) - want) / want);
      }
    }
  }
  return worst;
}

// A vocabulary-sized row: XNNPACK's softmax sums in f32 (1.3e-4 relative
// off over 1e5 elements in wasm, 7.5e-6 natively), and the passes along other
// axes did too (1.3e-3 over 1e5): long rows are now renormalised, and
// columns summed, in double.
TEST(SoftmaxKernelTest, LongRowsAreSummedWithoutLosingPrecision) {
  const int64_t n = 100000;
  std::vector<float> v(static_cast<size_t>(2 * n), 0.0f);
  v[5] = 10.0f;  // one large logit, the rest equal: the worst case for an f32 sum
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-4, 4);
  for (int64_t j = n; j < 2 * n; ++j) v[static_cast<size_t>(j)] = u(rng);
  // What remains is each exp's own rounding, and that of x − max (ulp(10) = 2^-20).
  EXPECT_LT(WorstRelativeError(v, {2, n}, -1), 1e-6);
  EXPECT_LT(WorstRelativeError(v, {n, 2}, 0), 1e-6);  // the same values, down columns
}

TEST(SoftmaxKernelTest, InPlaceLargeValuesAndEmpty) {
  for (int64_t a : {-1, 0, 1}) SoftmaxTester().InputShape({6, 33}).Axis(a == 1 ? 1 : a).InPlace(true).Test();
  // Stability: values far beyond exp's range.
  SoftmaxTester().InputShape({5, 40}).Axis(-1).Range(500, 1000).Test();
  SoftmaxTester().InputShape({5, 40}).Axis(0).Range(-1000, -500).Test();
  SoftmaxTester().InputShape({0, 4}).Axis(-1).Test();
  SoftmaxTester().InputShape({3, 0, 4}).Axis(0).Test();
}

TEST(SoftmaxKernelTest, RowsSumToOne) {
  std::mt19937 rng(9);
  Tensor x = RandomTensor(ir::DType::kF32, {3, 50, 2}, rng, -10, 10);
  auto spec = MakeSpec(K::kSoftmax, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("dim", ir::AttrValue::Int(-2)));
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, {3, 50, 2});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int o = 0; o < 3; ++o) {
    for (int i = 0; i < 2; ++i) {
      double s = 0;
      for (int l = 0; l < 50; ++l) s += y->GetDouble((o * 50 + l) * 2 + i);
      EXPECT_NEAR(s, 1.0, 1e-5);
    }
  }
}

TEST(SoftmaxKernelTest, OffTheLastAxisSubnormalProbabilitiesAreKept) {
  // exp(−90) = 8.2e-40 is a subnormal f32: off the last axis it is computed
  // (our exp), not flushed to 0. (XNNPACK's last-axis softmax still flushes
  // results below 1.2e-38, an absolute error under f32's normal range.)
  Result<Tensor> x = Tensor::FromVector<float>(ir::DType::kF32, {2, 3}, {0, 0, -50, -90, -103, -200});
  ASSERT_TRUE(x.ok());
  auto spec = MakeSpec(K::kSoftmax, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("dim", ir::AttrValue::Int(0)));
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x}, {2, 3});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const double want[] = {1, 1, 1 / (1 + std::exp(-150.0)), std::exp(-90.0), std::exp(-103.0), std::exp(-150.0)};
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(y->GetDouble(i), want[i], 1e-6 * want[i] + 1.4e-45) << i;
  }
  EXPECT_GT(y->GetDouble(3), 0.0);
}

TEST(SoftmaxKernelTest, AxisOutOfRangeIsAnError) {
  auto spec = MakeSpec(K::kSoftmax, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("dim", ir::AttrValue::Int(2)));
  Result<KernelPtr> k = CreateKernel(spec->spec);
  ASSERT_TRUE(k.ok());
  std::vector<Shape> in = {{3, 4}};
  Result<size_t> r = (*k)->Reshape(in, {3, 4});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("axis 2 is out of range for a rank-2 tensor"), std::string::npos)
      << r.status().message();
  std::vector<Shape> scalar = {{}};
  EXPECT_FALSE((*k)->Reshape(scalar, {}).ok());
  auto ints = MakeSpec(K::kSoftmax, {ir::DType::kI64}, ir::DType::kI64);
  EXPECT_EQ(CreateKernel(ints->spec).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shrew::runtime::kernels
