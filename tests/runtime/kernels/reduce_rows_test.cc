// Reductions of the last axis into one value per row (ref_reduce.cc): rows
// under 128 run four at a time and must give RowSum's value (row_sums.h, as
// the one-row-at-a-time walk does) bit for bit, for each row length around
// the lanes (8) and a row count that leaves 1 to 3 rows over; columns
// reduced over a first or middle axis give the walk's values; and a
// reduction over size-1 axes only is each element itself, plus +0 for sum
// and mean (-0 gives +0, as the accumulator does), kept as is by max and
// min, NaN and inf included.
#include <cmath>
#include <cstring>
#include <random>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/row_sums.h"

namespace shrew::runtime::kernels {
namespace {

using testing::Attr;
using testing::MakeSpec;
using testing::RandomTensor;
using K = ir::OpKind;

template <typename T>
void CheckRows(K op, int64_t rows, int64_t n) {
  const ir::DType dtype = std::is_same_v<T, float> ? ir::DType::kF32 : ir::DType::kF64;
  SCOPED_TRACE(std::string(ir::OpName(op)) + " [" + std::to_string(rows) + ", " + std::to_string(n) + "] " +
               ir::DTypeName(dtype));
  std::mt19937 rng(static_cast<unsigned>(rows * 131 + n));
  Tensor x = RandomTensor(dtype, {rows, n}, rng, 100, 101);  // an offset: the order of the sum shows
  auto spec = MakeSpec(op, {dtype}, dtype, Attr("dims", ir::AttrValue::Int(-1)));
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, {rows});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x.values<T>().data() + r * n;
    const double sum = RowSum(row, static_cast<size_t>(n));
    double want = sum;
    if (op == K::kMean) want = sum / static_cast<double>(n);
    if (op == K::kVariance) {
      want = RowSquaredDeviation(row, static_cast<size_t>(n), sum / static_cast<double>(n)) / static_cast<double>(n);
    }
    const T got = y->values<T>()[static_cast<size_t>(r)];
    ASSERT_EQ(got, static_cast<T>(want)) << "row " << r;
  }
}

TEST(ReduceRowsTest, ShortRowsFourAtATimeGiveRowSumBitForBit) {
  for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 64, 127, 128, 300}) {
    for (int64_t rows : {1, 2, 3, 4, 5, 7, 41}) {
      for (K op : {K::kSum, K::kMean, K::kVariance}) {
        CheckRows<float>(op, rows, n);
        CheckRows<double>(op, rows, n);
      }
    }
  }
}

TEST(ReduceRowsTest, OverSizeOneAxesEachOutputIsItsElement) {
  const double inf = INFINITY;
  const std::vector<double> v = {1.5, -0.0, 0.0, NAN, inf, -inf, -2.25, 3e38};
  for (ir::DType dtype : {ir::DType::kF32, ir::DType::kF64}) {
    Result<Tensor> x = Tensor::Zeros(dtype, {4, 1, 2});
    ASSERT_TRUE(x.ok());
    for (int i = 0; i < 8; ++i) x->SetDouble(i, v[static_cast<size_t>(i)]);
    for (K op : {K::kSum, K::kMean, K::kMax, K::kMin, K::kVariance}) {
      SCOPED_TRACE(std::string(ir::OpName(op)) + " " + ir::DTypeName(dtype));
      auto spec = MakeSpec(op, {dtype}, dtype, Attr("dims", ir::AttrValue::Int(1)));
      Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x}, {4, 2});
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      for (int i = 0; i < 8; ++i) {
        const double in = x->GetDouble(i);  // as stored (3e38 rounds in f32)
        const double got = y->GetDouble(i);
        if (op == K::kVariance) {
          // (x − x)² / 1: 0, NaN for inf and NaN.
          if (std::isfinite(in)) {
            EXPECT_EQ(got, 0.0) << i;
            EXPECT_FALSE(std::signbit(got)) << i;
          } else {
            EXPECT_TRUE(std::isnan(got)) << i;
          }
        } else if (std::isnan(in)) {
          EXPECT_TRUE(std::isnan(got)) << i;
        } else {
          EXPECT_EQ(got, in) << i;
          const bool sum_like = op == K::kSum || op == K::kMean;
          EXPECT_EQ(std::signbit(got), sum_like && in == 0 ? false : std::signbit(in)) << i;  // -0 + 0 is +0
        }
      }
      // No accumulators: each output comes from its element alone.
      Result<KernelPtr> k = CreateKernel(spec->spec);
      ASSERT_TRUE(k.ok());
      const std::vector<Shape> in = {{4, 1, 2}};
      Result<size_t> workspace = (*k)->Reshape(in, {4, 2});
      ASSERT_TRUE(workspace.ok());
      EXPECT_EQ(*workspace, 0u);
    }
  }
}

// Reduced over a middle or first axis ([K, R, C] or [R, C]) into more than
// 65,536 outputs: columns go in blocks of 1,024 on the stack, each summed
// over the rows in order in double, exactly as the accumulator walk: the
// same values, for column counts around the block and an empty reduced axis
// (0 / 0 for mean and variance); smaller outputs, and rows of fewer than 8
// columns, take the walk (which needs its accumulators in the workspace:
// the blocks keep theirs on the stack).
template <typename T>
void CheckColumns(K op, const Shape& shape, int64_t axis) {
  const ir::DType dtype = std::is_same_v<T, float> ? ir::DType::kF32 : ir::DType::kF64;
  SCOPED_TRACE(std::string(ir::OpName(op)) + " " + ShapeToString(shape) + " over " + std::to_string(axis) + " " +
               ir::DTypeName(dtype));
  std::mt19937 rng(static_cast<unsigned>(shape.back() * 7 + shape[0]));
  Tensor x = RandomTensor(dtype, shape, rng, 100, 101);
  const int64_t outer = axis == 1 ? shape[0] : 1, rows = shape[static_cast<size_t>(axis)], cols = shape.back();
  Shape out = axis == 1 ? Shape{shape[0], cols} : Shape{cols};
  auto spec = MakeSpec(op, {dtype}, dtype, Attr("dims", ir::AttrValue::Int(axis)));
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, out);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const T* v = x.values<T>().data();
  for (int64_t k = 0; k < outer; ++k) {
    for (int64_t c = 0; c < cols; ++c) {
      double acc = 0.0;
      for (int64_t r = 0; r < rows; ++r) acc += static_cast<double>(v[(k * rows + r) * cols + c]);
      const double n = static_cast<double>(rows);
      T want = static_cast<T>(acc);
      if (op == K::kMax || op == K::kMin) {  // the values have no NaN
        want = v[k * rows * cols + c];
        for (int64_t r = 1; r < rows; ++r) {
          const T e = v[(k * rows + r) * cols + c];
          want = (op == K::kMax ? e > want : e < want) ? e : want;
        }
      }
      if (op == K::kMean) want = static_cast<T>(acc / n);
      if (op == K::kVariance) {
        const double m = acc / n;
        double sq = 0.0;
        for (int64_t r = 0; r < rows; ++r) {
          const double d = static_cast<double>(v[(k * rows + r) * cols + c]) - m;
          sq += d * d;
        }
        want = static_cast<T>(sq / n);
      }
      const T got = y->values<T>()[static_cast<size_t>(k * cols + c)];
      ASSERT_TRUE(got == want || (std::isnan(got) && std::isnan(want))) << k << ", " << c << ": " << got << " vs " << want;
    }
  }
}

TEST(ReduceRowsTest, ColumnsReducedOverFewRowsGoInBlocks) {
  for (K op : {K::kSum, K::kMean, K::kVariance}) {
    for (int64_t cols : {65537, 66559, 66560, 66561}) {  // 64 blocks and 1 column, and around 65 blocks
      CheckColumns<float>(op, {3, cols}, 0);
      CheckColumns<double>(op, {2, 2, cols}, 1);
    }
    CheckColumns<float>(op, {2, 7, 32769}, 1);  // 65,538 outputs in two planes
    CheckColumns<float>(op, {3, 600}, 0);       // the walk
    CheckColumns<float>(op, {0, 70000}, 0);
    CheckColumns<float>(op, {32769, 2, 2}, 1);  // 65,538 outputs in rows of 2: the walk
    CheckColumns<double>(op, {9000, 3, 8}, 1);  // 72,000 outputs in rows of 8: blocks
  }
}

// Which of the two a reduction takes shows in its workspace: the walk's
// double accumulators, one per output (two for variance), aligned, or none.
TEST(ReduceRowsTest, ColumnBlocksFromRowsOfEightColumnsOverMoreThan65536Outputs) {
  for (K op : {K::kSum, K::kVariance}) {
    const size_t per_output = op == K::kVariance ? 16 : 8;
    for (const auto& [shape, outputs, blocks] : std::vector<std::tuple<Shape, int64_t, bool>>{
             {{32769, 2, 2}, 65538, false}, {{9363, 2, 7}, 65541, false}, {{8193, 2, 8}, 65544, true},
             {{3, 65537}, 65537, true}, {{8192, 2, 8}, 65536, false}}) {
      SCOPED_TRACE(ShapeToString(shape));
      auto spec = MakeSpec(op, {ir::DType::kF32}, ir::DType::kF32,
                           Attr("dims", ir::AttrValue::Int(shape.size() == 3 ? 1 : 0)));
      Result<KernelPtr> k = CreateKernel(spec->spec);
      ASSERT_TRUE(k.ok());
      const Shape out = shape.size() == 3 ? Shape{shape[0], shape[2]} : Shape{shape[1]};
      ASSERT_EQ(NumElements(out), outputs);
      Result<size_t> ws = (*k)->Reshape(std::vector<Shape>{shape}, out);
      ASSERT_TRUE(ws.ok());
      if (blocks) {
        EXPECT_EQ(*ws, 0u);
      } else {
        EXPECT_GE(*ws, static_cast<size_t>(outputs) * per_output);  // plus alignment
      }
    }
  }
}

TEST(ReduceRowsTest, ShortColumnsOverTheFirstOrMiddleAxisRowAfterRow) {
  // Under 128 columns, the rows are added in a loop (AccumulateShortColumns)
  // instead of a walk call each: the same values, bit for bit.
  for (K op : {K::kSum, K::kMean, K::kVariance, K::kMax, K::kMin}) {
    for (int64_t cols : {2, 3, 4, 5, 31, 127, 128}) {
      for (int64_t rows : {2, 3, 300}) {
        CheckColumns<float>(op, {rows, cols}, 0);
        CheckColumns<double>(op, {rows, cols}, 0);
        CheckColumns<float>(op, {3, rows, cols}, 1);
        CheckColumns<double>(op, {2, rows, cols}, 1);
      }
    }
  }
}

// Columns of 2-4 keep their extremes in locals, chosen without a branch: a
// NaN anywhere in a column wins, and of -0 and +0 the first one stays.
TEST(ReduceRowsTest, ShortColumnExtremesKeepNaNAndTheFirstZero) {
  const double nan = NAN;
  for (int64_t cols : {2, 3, 4}) {
    for (K op : {K::kMax, K::kMin}) {
      SCOPED_TRACE(std::string(ir::OpName(op)) + " of " + std::to_string(cols) + " columns");
      // Column 0: a NaN in the middle; column 1: -0 then +0 among values of the other sign;
      // the rest: +0 then -0.
      const double other = op == K::kMax ? -1 : 1;
      std::vector<double> v;
      for (int64_t r = 0; r < 5; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          const double zero_first = c == 1 ? -0.0 : 0.0, zero_next = c == 1 ? 0.0 : -0.0;
          v.push_back(c == 0 ? (r == 2 ? nan : static_cast<double>(r)) : r == 1 ? zero_first : r == 3 ? zero_next : other);
        }
      }
      Tensor x = Tensor::Zeros(ir::DType::kF32, {5, cols}).value();
      for (size_t i = 0; i < v.size(); ++i) x.SetDouble(static_cast<int64_t>(i), v[i]);
      auto spec = MakeSpec(op, {ir::DType::kF32}, ir::DType::kF32, Attr("dims", ir::AttrValue::IntList({0})));
      Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, {cols});
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      EXPECT_TRUE(std::isnan(y->GetDouble(0)));
      for (int64_t c = 1; c < cols; ++c) {
        EXPECT_EQ(y->GetDouble(c), 0.0) << c;
        EXPECT_EQ(std::signbit(y->GetDouble(c)), c == 1) << c;
      }
    }
  }
}

// x: [A, K, h, w] reduced over [0, 2, 3] (variance over [0, 2, 3] of NCHW,
// batch_norm's statistics) with planes under 128 elements: each output is
// the sum over a of RowSum of the (a, k) plane, in order, as the row walk
// takes it — bit for bit, the variance from the centred second pass. The
// f64 outputs carry the check (f32 rounding hides most orders); planes of
// 128 and more are the walk itself, the boundary's other side.
template <typename T>
void CheckOuterAndInner(K op, int64_t a, int64_t k, int64_t h, int64_t w) {
  const ir::DType dtype = std::is_same_v<T, float> ? ir::DType::kF32 : ir::DType::kF64;
  SCOPED_TRACE(std::string(ir::OpName(op)) + " [" + std::to_string(a) + ", " + std::to_string(k) + ", " +
               std::to_string(h) + ", " + std::to_string(w) + "] " + ir::DTypeName(dtype));
  std::mt19937 rng(static_cast<unsigned>(a * 7919 + k * 131 + h * 17 + w));
  Tensor x = RandomTensor(dtype, {a, k, h, w}, rng, 100, 101);
  auto spec = MakeSpec(op, {dtype}, dtype, Attr("dims", ir::AttrValue::IntList({0, 2, 3})));
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, {k});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const size_t n = static_cast<size_t>(h * w);
  const double count = static_cast<double>(a) * static_cast<double>(n);
  for (int64_t j = 0; j < k; ++j) {
    auto row = [&](int64_t i) { return x.values<T>().data() + (i * k + j) * static_cast<int64_t>(n); };
    double sum = 0;
    for (int64_t i = 0; i < a; ++i) sum += RowSum(row(i), n);
    double want = op == K::kMean ? sum / count : sum;
    if (op == K::kVariance) {
      double sq = 0;
      for (int64_t i = 0; i < a; ++i) sq += RowSquaredDeviation(row(i), n, sum / count);
      want = sq / count;
    }
    ASSERT_EQ(y->values<T>()[static_cast<size_t>(j)], static_cast<T>(want)) << "output " << j;
  }
}

TEST(ReduceRowsTest, OuterAndInnerAxesOfSmallPlanesGiveTheWalksValues) {
  for (K op : {K::kSum, K::kMean, K::kVariance}) {
    for (const auto& [h, w] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 2}, {1, 3}, {2, 2}, {1, 5}, {7, 1}, {2, 4}, {3, 3}, {8, 8}, {1, 127}, {8, 16}, {3, 100}}) {
      for (int64_t a : {2, 37}) {
        CheckOuterAndInner<float>(op, a, 19, h, w);
        CheckOuterAndInner<double>(op, a, 5, h, w);
      }
    }
  }
}

}  // namespace
}  // namespace shrew::runtime::kernels
