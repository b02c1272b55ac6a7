// Reductions (OPS.md §3.8) and softmax (§3.9).
#include <cmath>
#include <limits>

#include "interp/interp_test_util.h"

namespace shrew::interp {
namespace {

using namespace shrew::interp::testing;  // NOLINT
using ir::AttrValue;
using K = ir::OpKind;

ir::Attrs Dims(std::vector<int64_t> d, bool keep = false) {
  return A({{"dims", AttrValue::IntList(std::move(d))}, {"keepdim", AttrValue::Bool(keep)}});
}

// x[i,j,k] = i·100 + j·10 + k over [2, 3, 4].
Tensor Cube() {
  std::vector<float> v;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) v.push_back(static_cast<float>(i * 100 + j * 10 + k));
  return F32({2, 3, 4}, v);
}

TEST(RefReduceTest, SumAllDefault) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(Same(Eval(K::kSum, {&x}), F32({}, {21})));  // no dims: all axes, rank 0
  EXPECT_TRUE(Same(Eval(K::kSum, {&x}, A({{"keepdim", AttrValue::Bool(true)}})), F32({1, 1}, {21})));
  EXPECT_TRUE(Same(Eval(K::kSum, {&x}, A({{"dims", AttrValue::All()}})), F32({}, {21})));
}

TEST(RefReduceTest, SumAxes) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(Same(Eval(K::kSum, {&x}, Dims({1})), F32({2}, {6, 15})));
  // sum(x, dim: -1) removes only the last axis (the original reduced all).
  EXPECT_TRUE(Same(Eval(K::kSum, {&x}, Dims({-1})), F32({2}, {6, 15})));
  EXPECT_TRUE(Same(Eval(K::kSum, {&x}, Dims({0}, true)), F32({1, 3}, {5, 7, 9})));
  Tensor c = Cube();
  // dims [0, 2]: over i and k for each j: Σ_i Σ_k (100i + 10j + k) = 400 + 80j + 12.
  EXPECT_TRUE(Same(Eval(K::kSum, {&c}, Dims({0, -1})), F32({3}, {412, 492, 572})));
  EXPECT_TRUE(Same(Eval(K::kSum, {&c}, Dims({2, 0}, true)), F32({1, 3, 1}, {412, 492, 572})));
}

TEST(RefReduceTest, MeanMaxMin) {
  Tensor c = Cube();
  EXPECT_TRUE(Same(Eval(K::kMean, {&c}, Dims({1})), F32({2, 4}, {10, 11, 12, 13, 110, 111, 112, 113})));
  EXPECT_TRUE(Same(Eval(K::kMax, {&c}, Dims({-1}, true)), F32({2, 3, 1}, {3, 13, 23, 103, 113, 123})));
  EXPECT_TRUE(Same(Eval(K::kMin, {&c}, Dims({0, 1})), F32({4}, {0, 1, 2, 3})));
  EXPECT_TRUE(Same(Eval(K::kMax, {&c}), F32({}, {123})));
  Tensor neg = F64({3}, {-5, -1, -7});
  EXPECT_TRUE(Same(Eval(K::kMax, {&neg}), F64({}, {-1})));
  EXPECT_TRUE(Same(Eval(K::kMin, {&neg}), F64({}, {-7})));
}

TEST(RefReduceTest, VarianceIsPopulation) {
  Tensor x = F64({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  // mean 2.5, deviations² 2.25+0.25+0.25+2.25 = 5, / 4 (not 3).
  EXPECT_TRUE(Same(Eval(K::kVariance, {&x}, Dims({1})), F64({2}, {1.25, 0})));
  // Two-pass: large offset keeps precision (mean(x²) − mean² would lose it).
  Tensor big = F64({3}, {1e9 + 1, 1e9 + 2, 1e9 + 3});
  EXPECT_TRUE(Close(Eval(K::kVariance, {&big}), F64({}, {2.0 / 3.0}), 1e-12, 0));
}

// f32 reductions sum in double (as the JIT's kernels do): a running f32 sum
// of 2^20 copies of 0.1f drifts to 105891.8; the exact sum, 2^20 · 0.1f =
// 104857.6015625, is an f32 value. A large offset must not leak into the
// variance either (the f32 mean of 1e7 + {1..4} is off by 0.5).
TEST(RefReduceTest, F32SumsAccumulateInDouble) {
  const int64_t n = int64_t{1} << 20;
  Tensor tenths = F32({n}, std::vector<float>(static_cast<size_t>(n), 0.1f));
  EXPECT_TRUE(Same(Eval(K::kSum, {&tenths}), F32({}, {104857.6015625f})));
  EXPECT_TRUE(Same(Eval(K::kMean, {&tenths}), F32({}, {0.1f})));
  Tensor offset = F32({1, 4}, {10000001, 10000002, 10000003, 10000004});
  EXPECT_TRUE(Same(Eval(K::kVariance, {&offset}, Dims({1})), F32({1}, {1.25f})));
  EXPECT_TRUE(Same(Eval(K::kMean, {&offset}, Dims({1})), F32({1}, {10000002.5f})));
}

TEST(RefReduceTest, RankZeroAndEmpty) {
  Tensor s = F32({}, {4});
  EXPECT_TRUE(Same(Eval(K::kSum, {&s}), F32({}, {4})));
  EXPECT_TRUE(Same(Eval(K::kVariance, {&s}), F32({}, {0})));
  Tensor e = F32({0, 3}, {});
  EXPECT_TRUE(Same(Eval(K::kSum, {&e}, Dims({0})), F32({3}, {0, 0, 0})));
  Result<Tensor> m = Eval(K::kMean, {&e}, Dims({0}));
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(std::isnan(m->values<float>()[0]));  // 0/0
  EXPECT_TRUE(FailsWith(Eval(K::kMax, {&e}, Dims({0})), "max of an empty slice"));
  Result<Tensor> ok = Eval(K::kMax, {&e}, Dims({1}));  // no slices at all
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->shape(), (Shape{0}));
}

// An empty tensor with a huge other axis: no work (it looped over the
// 2^40 empty rows, hours).
TEST(RefSoftmaxTest, EmptyRowsOfAHugeAxisTakeNoTime) {
  Tensor e = F32({int64_t{1} << 40, 0}, {});
  for (int64_t dim : {-1, 0}) {
    Result<Tensor> r = Eval(K::kSoftmax, {&e}, A({{"dim", AttrValue::Int(dim)}}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->shape(), (Shape{int64_t{1} << 40, 0}));
  }
}

TEST(RefReduceTest, AxisErrors) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(FailsWith(Eval(K::kSum, {&x}, Dims({2})), "axis 2 is out of range for a rank-2 tensor"));
  EXPECT_TRUE(FailsWith(Eval(K::kSum, {&x}, Dims({-3})), "axis -3 is out of range"));
  EXPECT_TRUE(FailsWith(Eval(K::kSum, {&x}, Dims({1, -1})), "duplicate axis"));
  Tensor i = I64({2}, {1, 2});
  EXPECT_TRUE(FailsWith(Eval(K::kSum, {&i}), "sum requires a float operand, got i64"));
}

TEST(RefReduceTest, NaNPropagatesInMax) {
  Tensor x = F32({3}, {1, std::numeric_limits<float>::quiet_NaN(), 3});
  Result<Tensor> r = Eval(K::kMax, {&x});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(std::isnan(r->values<float>()[0]));
}

TEST(RefSoftmaxTest, LastAxisDefault) {
  Tensor x = F64({2, 3}, {1, 2, 3, 0, 0, 0});
  const double e1 = std::exp(-2.0), e2 = std::exp(-1.0), z = e1 + e2 + 1;
  EXPECT_TRUE(Close(Eval(K::kSoftmax, {&x}), F64({2, 3}, {e1 / z, e2 / z, 1 / z, 1.0 / 3, 1.0 / 3, 1.0 / 3}), 1e-15, 0));
}

TEST(RefSoftmaxTest, OtherAxesAndStability) {
  Tensor x = F32({2, 2}, {1000, 0, 1000, 0});
  // Along axis 0 each column is uniform; large values do not overflow.
  EXPECT_TRUE(Same(Eval(K::kSoftmax, {&x}, A({{"dim", AttrValue::Int(0)}})), F32({2, 2}, {0.5f, 0.5f, 0.5f, 0.5f})));
  EXPECT_TRUE(Same(Eval(K::kSoftmax, {&x}, A({{"dim", AttrValue::Int(-1)}})), F32({2, 2}, {1, 0, 1, 0})));
  // Rank 3, middle axis: every slice sums to 1.
  Tensor c = Cube();
  Result<Tensor> r = Eval(K::kSoftmax, {&c}, A({{"dim", AttrValue::Int(1)}}));
  ASSERT_TRUE(r.ok());
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) {
      double s = 0;
      for (int j = 0; j < 3; ++j) s += r->values<float>()[static_cast<size_t>(i * 12 + j * 4 + k)];
      EXPECT_NEAR(s, 1.0, 1e-6);
    }
  Tensor s = F32({}, {1});
  EXPECT_TRUE(FailsWith(Eval(K::kSoftmax, {&s}), "axis -1 is out of range for a rank-0 tensor"));
  EXPECT_TRUE(FailsWith(Eval(K::kSoftmax, {&x}, A({{"dim", AttrValue::Int(2)}})), "axis 2 is out of range"));
}

}  // namespace
}  // namespace shrew::interp
