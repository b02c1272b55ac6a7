// cross_entropy and mse_loss (OPS.md §3.13).
#include <cmath>

#include "interp/interp_test_util.h"

namespace shrew::interp {
namespace {

using namespace shrew::interp::testing;  // NOLINT
using K = ir::OpKind;

// −log softmax(row)[c] by hand.
double Nll(std::vector<double> row, int c) {
  double m = row[0];
  for (double v : row) m = std::max(m, v);
  double z = 0;
  for (double v : row) z += std::exp(v - m);
  return -(row[c] - m - std::log(z));
}

TEST(RefCrossEntropyTest, DistributionAndIndicesAgree) {
  Tensor logits = F64({2, 3}, {1, 2, 3, 0.5, -1, 2});
  const double want = (Nll({1, 2, 3}, 2) + Nll({0.5, -1, 2}, 0)) / 2;
  Tensor onehot = F64({2, 3}, {0, 0, 1, 1, 0, 0});
  EXPECT_TRUE(Close(Eval(K::kCrossEntropy, {&logits, &onehot}), F64({}, {want}), 1e-14, 0));
  Tensor idx = I64({2}, {2, 0});
  EXPECT_TRUE(Close(Eval(K::kCrossEntropy, {&logits, &idx}), F64({}, {want}), 1e-14, 0));
  Tensor fidx = F32({2}, {2, 0});  // float class indices of integral value
  EXPECT_TRUE(Close(Eval(K::kCrossEntropy, {&logits, &fidx}), F64({}, {want}), 1e-14, 0));
  // Soft targets.
  Tensor soft = F64({2, 3}, {0.5, 0.5, 0, 0, 0, 1});
  const double want_soft = (0.5 * Nll({1, 2, 3}, 0) + 0.5 * Nll({1, 2, 3}, 1) + Nll({0.5, -1, 2}, 2)) / 2;
  EXPECT_TRUE(Close(Eval(K::kCrossEntropy, {&logits, &soft}), F64({}, {want_soft}), 1e-14, 0));
}

TEST(RefCrossEntropyTest, StableAndHigherRank) {
  Tensor logits = F32({1, 2, 2}, {1000, 0, 0, 1000});  // rows [1000, 0], [0, 1000]
  Tensor idx = I64({1, 2}, {0, 1});
  EXPECT_TRUE(Close(Eval(K::kCrossEntropy, {&logits, &idx}), F32({}, {0}), 0, 1e-6));
  Tensor wrong = I64({1, 2}, {1, 0});
  EXPECT_TRUE(Close(Eval(K::kCrossEntropy, {&logits, &wrong}), F32({}, {1000}), 1e-6, 0));
}

TEST(RefCrossEntropyTest, Errors) {
  Tensor logits = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor idx = I64({2}, {0, 3});
  Result<Tensor> r = Eval(K::kCrossEntropy, {&logits, &idx});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(FailsWith(r, "class index 3 out of range for 3 classes (target 'a1', element 1)"));
  Tensor neg = I64({2}, {-1, 0});
  EXPECT_TRUE(FailsWith(Eval(K::kCrossEntropy, {&logits, &neg}), "class index -1"));
  Tensor frac = F32({2}, {0.5f, 1});
  EXPECT_TRUE(FailsWith(Eval(K::kCrossEntropy, {&logits, &frac}), "not an integral class index"));
  Tensor bad = F32({3}, {0, 0, 0});
  EXPECT_TRUE(FailsWith(Eval(K::kCrossEntropy, {&logits, &bad}), "matches neither"));
  Tensor v = F32({3}, {1, 2, 3});
  Tensor i0 = I64({}, {0});
  EXPECT_TRUE(FailsWith(Eval(K::kCrossEntropy, {&v, &i0}), "rank >= 2"));
  Tensor onehot_i = I64({2, 3}, {0, 0, 1, 1, 0, 0});
  EXPECT_TRUE(FailsWith(Eval(K::kCrossEntropy, {&logits, &onehot_i}), "dtype mismatch: f32 and i64"));
}

// Loss sums in double: over 2^18 rows of zero logits the mean is ln 2 to
// f32 precision, and the mean of 2^20 squared 0.3f is 0.3f² (an f32 running
// sum drifts to 0.0910 and 0.6886).
TEST(RefLossTest, LongSumsAccumulateInDouble) {
  const int64_t rows = int64_t{1} << 18;
  Tensor logits = F32({rows, 2}, std::vector<float>(static_cast<size_t>(rows * 2), 0.0f));
  Tensor classes = I64({rows}, std::vector<int64_t>(static_cast<size_t>(rows), 1));
  EXPECT_TRUE(Close(Eval(K::kCrossEntropy, {&logits, &classes}), F32({}, {static_cast<float>(std::log(2.0))}), 1e-7, 0));
  const int64_t n = int64_t{1} << 20;
  Tensor p = F32({n}, std::vector<float>(static_cast<size_t>(n), 0.3f));
  Tensor zero = F32({1}, {0});
  const double p2 = static_cast<double>(0.3f) * static_cast<double>(0.3f);
  EXPECT_TRUE(Close(Eval(K::kMseLoss, {&p, &zero}), F32({}, {static_cast<float>(p2)}), 1e-7, 0));
}

TEST(RefMseLossTest, MeanOfSquaredBroadcastDifference) {
  Tensor p = F32({2, 2}, {1, 2, 3, 4});
  Tensor t = F32({2, 2}, {1, 0, 0, 4});
  EXPECT_TRUE(Same(Eval(K::kMseLoss, {&p, &t}), F32({}, {(0 + 4 + 9 + 0) / 4.0f})));
  Tensor row = F32({2}, {1, 1});  // broadcast: (0,1,2,3)² mean = 14/4
  EXPECT_TRUE(Same(Eval(K::kMseLoss, {&p, &row}), F32({}, {3.5f})));
  Tensor d = F64({2}, {1, 1});
  EXPECT_TRUE(FailsWith(Eval(K::kMseLoss, {&p, &d}), "dtype mismatch"));
  Tensor i = I64({1}, {1});
  EXPECT_TRUE(FailsWith(Eval(K::kMseLoss, {&i, &i}), "mse_loss requires a float operand"));
}

}  // namespace
}  // namespace shrew::interp
