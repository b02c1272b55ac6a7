// embedding, linear, layer_norm, batch_norm, dropout (OPS.md §3.11).
#include <cmath>

#include "interp/interp_test_util.h"
#include "runtime/rng.h"

namespace shrew::interp {
namespace {

using namespace shrew::interp::testing;  // NOLINT
using ir::AttrValue;
using K = ir::OpKind;

TEST(RefEmbeddingTest, GathersRows) {
  Tensor table = F32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  Tensor idx = I64({2, 2}, {3, 0, 1, 1});
  EXPECT_TRUE(Same(Eval(K::kEmbedding, {&idx, &table}), F32({2, 2, 2}, {30, 31, 0, 1, 10, 11, 10, 11})));
  Tensor scalar = I64({}, {2});
  EXPECT_TRUE(Same(Eval(K::kEmbedding, {&scalar, &table}), F32({2}, {20, 21})));
  Tensor fidx = F32({2}, {2.9f, 0.2f});  // float indices truncate
  EXPECT_TRUE(Same(Eval(K::kEmbedding, {&fidx, &table}), F32({2, 2}, {20, 21, 0, 1})));
  Tensor i32 = Make(Tensor::FromVector<int64_t>(ir::DType::kI32, {1}, {1}));
  EXPECT_TRUE(Same(Eval(K::kEmbedding, {&i32, &table}), F32({1, 2}, {10, 11})));
}

TEST(RefEmbeddingTest, RangeErrorsNameTheInput) {
  Tensor table = F32({4, 2}, std::vector<float>(8, 0));
  Tensor idx = I64({3}, {0, 4, 1});
  Result<Tensor> r = Eval(K::kEmbedding, {&idx, &table});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().message(),
            "node 'y' (embedding): embedding index 4 out of range for a table of 4 rows (indices 'a0', element 1)");
  Tensor neg = I64({1}, {-1});
  EXPECT_TRUE(FailsWith(Eval(K::kEmbedding, {&neg, &table}), "embedding index -1 out of range for a table of 4 rows"));
  Tensor fneg = F32({1}, {-0.5f});  // truncates to 0: valid
  EXPECT_TRUE(Eval(K::kEmbedding, {&fneg, &table}).ok());
  Tensor fbig = F32({1}, {4.0f});
  EXPECT_TRUE(FailsWith(Eval(K::kEmbedding, {&fbig, &table}), "embedding index 4 out of range"));
  // Swapped operands get a clear message.
  EXPECT_TRUE(FailsWith(Eval(K::kEmbedding, {&table, &idx}), "operands look swapped: expected (indices, table), got f32[4, 2] then i64[3]"));
  Tensor itab = I64({2, 2}, {1, 2, 3, 4});
  EXPECT_TRUE(FailsWith(Eval(K::kEmbedding, {&idx, &itab}), "table must have a float dtype"));
  Tensor bidx = Bool({1}, {true});
  EXPECT_TRUE(FailsWith(Eval(K::kEmbedding, {&bidx, &table}), "indices must have an integer dtype, got bool"));
  Tensor t1 = F32({4}, {1, 2, 3, 4});
  EXPECT_TRUE(FailsWith(Eval(K::kEmbedding, {&idx, &t1}), "rank-2 table"));
}

TEST(RefLinearTest, WeightIsOutIn) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor w = F32({2, 3}, {1, 0, 1, 0, 1, 0});  // [out=2, in=3]
  EXPECT_TRUE(Same(Eval(K::kLinear, {&x, &w}), F32({2, 2}, {4, 2, 10, 5})));
  Tensor b = F32({2}, {0.5f, -1});
  EXPECT_TRUE(Same(Eval(K::kLinear, {&x, &w, &b}), F32({2, 2}, {4.5f, 1, 10.5f, 4})));
  Tensor b2 = F32({1, 2}, {0.5f, -1});
  EXPECT_TRUE(Same(Eval(K::kLinear, {&x, &w, &b2}), F32({2, 2}, {4.5f, 1, 10.5f, 4})));
  Tensor v = F32({3}, {1, 1, 1});
  EXPECT_TRUE(Same(Eval(K::kLinear, {&v, &w}), F32({2}, {2, 1})));
  Tensor x3 = F32({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(Same(Eval(K::kLinear, {&x3, &w}), F32({2, 1, 2}, {4, 2, 10, 5})));
}

TEST(RefLinearTest, Errors) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor w = F32({2, 3}, {1, 0, 1, 0, 1, 0});
  Tensor b = F32({2}, {0, 0});
  EXPECT_TRUE(FailsWith(Eval(K::kLinear, {&x, &w, &b}, A({{"bias", AttrValue::Bool(false)}})), "bias: false"));
  Tensor wt = F32({3, 2}, {1, 0, 1, 0, 1, 0});
  EXPECT_TRUE(FailsWith(Eval(K::kLinear, {&x, &wt}), "input has 3 features but the weight has shape [3, 2]"));
  Tensor b3 = F32({3}, {0, 0, 0});
  EXPECT_TRUE(FailsWith(Eval(K::kLinear, {&x, &w, &b3}), "expected [2] or [1, 2]"));
  Tensor wd = F64({2, 3}, {1, 0, 1, 0, 1, 0});
  EXPECT_TRUE(FailsWith(Eval(K::kLinear, {&x, &wd}), "dtype mismatch: f32 and f64"));
}

// Layer norm over the last axis, computed by hand in double.
std::vector<double> LayerNormRef(const std::vector<double>& x, int d, double eps, const std::vector<double>& w,
                                 const std::vector<double>& b) {
  std::vector<double> y;
  for (size_t r = 0; r < x.size() / d; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < d; ++i) mean += x[r * d + i];
    mean /= d;
    for (int i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
    var /= d;
    for (int i = 0; i < d; ++i) {
      y.push_back((x[r * d + i] - mean) / std::sqrt(var + eps) * (w.empty() ? 1 : w[i]) + (b.empty() ? 0 : b[i]));
    }
  }
  return y;
}

TEST(RefLayerNormTest, OneTwoThreeOperands) {
  const std::vector<double> xv = {1, 2, 3, 4, -1, 0, 0, 5};
  Tensor x = F64({2, 4}, xv);
  Tensor w = F64({4}, {1, 2, 0.5, -1});
  Tensor b = F64({4}, {0, 1, 0, 10});
  EXPECT_TRUE(Close(Eval(K::kLayerNorm, {&x}), F64({2, 4}, LayerNormRef(xv, 4, 1e-5, {}, {})), 1e-14, 1e-14));
  EXPECT_TRUE(Close(Eval(K::kLayerNorm, {&x, &w}), F64({2, 4}, LayerNormRef(xv, 4, 1e-5, {1, 2, 0.5, -1}, {})), 1e-14, 1e-14));
  EXPECT_TRUE(Close(Eval(K::kLayerNorm, {&x, &w, &b}, A({{"eps", AttrValue::Float(0.1)}})),
                    F64({2, 4}, LayerNormRef(xv, 4, 0.1, {1, 2, 0.5, -1}, {0, 1, 0, 10})), 1e-14, 1e-14));
  // Hand value: row [1, 2, 3, 4]: mean 2.5, var 1.25, first = -1.5 / sqrt(1.25 + 1e-5).
  Result<Tensor> r = Eval(K::kLayerNorm, {&x});
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->values<double>()[0], -1.5 / std::sqrt(1.25 + 1e-5), 1e-15);
  Tensor xf = F32({1, 3}, {1, 1, 1});  // zero variance: 0 / sqrt(eps) = 0
  EXPECT_TRUE(Same(Eval(K::kLayerNorm, {&xf}), F32({1, 3}, {0, 0, 0})));
}

// f64 deviations past ~1.3e154 square to inf: the row is scaled by its
// largest deviation first (it normalised to 0). Rows [a, -a, a, -a] are ±1
// and [3c, c, 2c] ±sqrt(1.5), 0, as for small values.
TEST(RefLayerNormTest, F64RowsWhoseSquaresOverflowStillNormalise) {
  Tensor x = F64({3, 4}, {1e200, -1e200, 1e200, -1e200, 3e160, 1e160, 2e160, 2e160, 1, -1, 1, -1});
  Result<Tensor> r = Eval(K::kLayerNorm, {&x});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<double> want = {1, -1, 1, -1, std::sqrt(2.0), -std::sqrt(2.0), 0, 0};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(r->values<double>()[i], want[i], 1e-14) << i;
  EXPECT_NEAR(r->values<double>()[8], 1 / std::sqrt(1 + 1e-5), 1e-15);
}

// A constant f64 row whose sum rounds (16 × 1e30 here came out 1 ulp off)
// still has mean x and so normalises to 0, as on the tape (it gave -1).
TEST(RefLayerNormTest, ConstantF64RowsOfLargeValuesAreZero) {
  for (double v : {1e30, -7.3e200, 0.1, 3.0e-300}) {
    for (int64_t d : {3, 16, 17, 100, 1000}) {
      Tensor x = F64({2, d}, std::vector<double>(static_cast<size_t>(2 * d), v));
      Result<Tensor> y = Eval(K::kLayerNorm, {&x});
      ASSERT_TRUE(y.ok());
      for (double e : y->values<double>()) ASSERT_EQ(e, 0.0) << v << " x " << d;
    }
  }
}

// Statistics in double: rows far from zero still normalise to ±1.5, ±0.5
// over sqrt(σ² + eps) (in f32 the mean of 1e7 + {1..4} is off by 0.5).
TEST(RefLayerNormTest, F32RowsWithLargeOffset) {
  Tensor x = F32({1, 4}, {10000001, 10000002, 10000003, 10000004});
  const double s = std::sqrt(1.25 + 1e-5);
  const Tensor expected = F32({1, 4}, {static_cast<float>(-1.5 / s), static_cast<float>(-0.5 / s),
                                       static_cast<float>(0.5 / s), static_cast<float>(1.5 / s)});
  EXPECT_TRUE(Close(Eval(K::kLayerNorm, {&x}), expected, 1e-7, 0));
  // batch_norm over a batch of 4 with one channel: the same statistics.
  Tensor xb = F32({4, 1}, {10000001, 10000002, 10000003, 10000004});
  EXPECT_TRUE(Close(Eval(K::kBatchNorm, {&xb}), F32({4, 1}, std::vector<float>(expected.values<float>().begin(),
                                                                               expected.values<float>().end())),
                    1e-7, 0));
}

TEST(RefLayerNormTest, Errors) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor w = F32({2}, {1, 1});
  EXPECT_TRUE(FailsWith(Eval(K::kLayerNorm, {&x, &w}), "weight of shape [2] does not broadcast to the input shape [2, 3]"));
  Tensor big = F32({2, 2, 3}, std::vector<float>(12, 1));
  EXPECT_TRUE(FailsWith(Eval(K::kLayerNorm, {&x, &big}), "does not broadcast"));
  Tensor s = F32({}, {1});
  EXPECT_TRUE(FailsWith(Eval(K::kLayerNorm, {&s}), "rank >= 1"));
  EXPECT_TRUE(FailsWith(Eval(K::kLayerNorm, {&x}, A({{"eps", AttrValue::Float(0)}})), "eps must be > 0"));
}

TEST(RefBatchNormTest, PerChannelOverBatchAndSpatial) {
  // x: [N=2, C=2, L=2]; channel 0 = {1, 2, 3, 4}, channel 1 = {10, 10, 20, 20}.
  Tensor x = F64({2, 2, 2}, {1, 2, 10, 10, 3, 4, 20, 20});
  const double d0 = std::sqrt(1.25 + 1e-5), d1 = std::sqrt(25 + 1e-5);
  EXPECT_TRUE(Close(Eval(K::kBatchNorm, {&x}),
                    F64({2, 2, 2}, {-1.5 / d0, -0.5 / d0, -5 / d1, -5 / d1, 0.5 / d0, 1.5 / d0, 5 / d1, 5 / d1}), 1e-14,
                    1e-14));
  Tensor w = F64({2}, {2, -1});
  Tensor b = F64({2}, {1, 0});
  EXPECT_TRUE(Close(Eval(K::kBatchNorm, {&x, &w, &b}),
                    F64({2, 2, 2}, {-3 / d0 + 1, -1 / d0 + 1, 5 / d1, 5 / d1, 1 / d0 + 1, 3 / d0 + 1, -5 / d1, -5 / d1}),
                    1e-14, 1e-14));
  Tensor x2 = F32({2, 1}, {1, 3});  // rank 2: per column over rows
  EXPECT_TRUE(Close(Eval(K::kBatchNorm, {&x2}), F32({2, 1}, {-1 / std::sqrt(1 + 1e-5f), 1 / std::sqrt(1 + 1e-5f)})));
  Tensor v = F32({3}, {1, 2, 3});
  EXPECT_TRUE(FailsWith(Eval(K::kBatchNorm, {&v}), "rank >= 2"));
  Tensor w3 = F64({3}, {1, 1, 1});
  EXPECT_TRUE(FailsWith(Eval(K::kBatchNorm, {&x, &w3, &b}), "weight has shape [3], expected [2]"));
  EXPECT_TRUE(FailsWith(Eval(K::kBatchNorm, {&x, &w}), "expects 1 or 3 operands, got 2"));
}

TEST(RefDropoutTest, IdentityInEvaluation) {
  Tensor x = F32({3}, {1, 2, 3});
  EXPECT_TRUE(Same(Eval(K::kDropout, {&x}, A({{"p", AttrValue::Float(0.5)}})), x));
  EXPECT_TRUE(FailsWith(Eval(K::kDropout, {&x}, A({{"p", AttrValue::Float(1.0)}})), "outside [0, 1)"));
  EXPECT_TRUE(FailsWith(Eval(K::kDropout, {&x}, A({{"p", AttrValue::Float(-0.1)}})), "outside [0, 1)"));
}

TEST(RefDropoutTest, TrainingUsesGeneratorRowMajor) {
  std::vector<float> xv;
  for (int i = 0; i < 64; ++i) xv.push_back(static_cast<float>(i + 1));
  Tensor x = F32({8, 8}, xv);
  runtime::Rng rng(11);
  EvalContext ctx;
  ctx.training = true;
  ctx.rng = &rng;
  Result<Tensor> r = Eval(K::kDropout, {&x}, A({{"p", AttrValue::Float(0.25)}}), ctx);
  ASSERT_TRUE(r.ok());
  runtime::Rng ref(11);
  int kept = 0;
  for (size_t i = 0; i < 64; ++i) {
    const bool keep = ref.NextUniform() >= 0.25;
    kept += keep;
    EXPECT_EQ(r->values<float>()[i], keep ? xv[i] * static_cast<float>(1.0 / 0.75) : 0.0f) << i;
  }
  EXPECT_GT(kept, 30);
  EXPECT_LT(kept, 64);
  EXPECT_EQ(rng.state(), ref.state());  // exactly one draw per element
  // p = 0 in training: identity, no draws.
  const uint64_t before = rng.state();
  EXPECT_TRUE(Same(Eval(K::kDropout, {&x}, A({{"p", AttrValue::Float(0)}}), ctx), x));
  EXPECT_EQ(rng.state(), before);
  ctx.rng = nullptr;
  EXPECT_TRUE(FailsWith(Eval(K::kDropout, {&x}, A({{"p", AttrValue::Float(0.5)}}), ctx), "needs a random generator"));
}

}  // namespace
}  // namespace shrew::interp
