// matmul (OPS.md §3.7) and the fused operations (§3.18).
#include <limits>

#include "interp/interp_test_util.h"

namespace shrew::interp {
namespace {

using namespace shrew::interp::testing;  // NOLINT
using K = ir::OpKind;

// Straightforward batched matmul for [Bt, M, K] x [Bt, K, N] in double.
std::vector<float> Naive(const std::vector<float>& a, const std::vector<float>& b, int bt, int m, int k, int n,
                         bool a_shared = false, bool b_shared = false) {
  std::vector<float> out;
  for (int t = 0; t < bt; ++t)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double acc = 0;
        for (int p = 0; p < k; ++p) {
          acc += static_cast<double>(a[(a_shared ? 0 : t) * m * k + i * k + p]) * b[(b_shared ? 0 : t) * k * n + p * n + j];
        }
        out.push_back(static_cast<float>(acc));
      }
  return out;
}

TEST(RefMatmulTest, TwoByThreeTimesThreeByTwo) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  // [1·7+2·9+3·11, 1·8+2·10+3·12; 4·7+5·9+6·11, 4·8+5·10+6·12]
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&a, &b}), F32({2, 2}, {58, 64, 139, 154})));
}

// f32 products accumulate in double (OPS.md §3.7 allows it): a dot product
// of 2^20 terms 0.1f · 1 is the exact 104857.6015625, not the running f32
// sum's 105891.8; linear does the same.
TEST(RefMatmulTest, F32LongRowsAccumulateInDouble) {
  const int64_t k = int64_t{1} << 20;
  Tensor a = F32({1, k}, std::vector<float>(static_cast<size_t>(k), 0.1f));
  Tensor b = F32({k, 1}, std::vector<float>(static_cast<size_t>(k), 1.0f));
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&a, &b}), F32({1, 1}, {104857.6015625f})));
  Tensor w = F32({1, k}, std::vector<float>(static_cast<size_t>(k), 1.0f));
  EXPECT_TRUE(Same(Eval(K::kLinear, {&a, &w}, A({{"bias", ir::AttrValue::Bool(false)}})), F32({1, 1}, {104857.6015625f})));
}

TEST(RefMatmulTest, RankOneOperands) {
  Tensor v = F32({3}, {1, 2, 3});
  Tensor w = F32({3}, {4, 5, 6});
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&v, &w}), F32({}, {32})));  // dot product, rank 0
  Tensor m = F32({3, 2}, {1, 0, 0, 1, 1, 1});
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&v, &m}), F32({2}, {4, 5})));  // [K]·[K,N] -> [N]
  Tensor mt = F32({2, 3}, {1, 0, 1, 0, 1, 1});
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&mt, &v}), F32({2}, {4, 5})));  // [M,K]·[K] -> [M]
  Tensor batch = F32({2, 2, 3}, {1, 0, 1, 0, 1, 1, 2, 0, 0, 0, 0, 2});
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&batch, &v}), F32({2, 2}, {4, 5, 2, 6})));
}

TEST(RefMatmulTest, BatchedAndBroadcast) {
  std::vector<float> av, bv;
  for (int i = 0; i < 2 * 2 * 3; ++i) av.push_back(static_cast<float>(i % 5) - 1.5f);
  for (int i = 0; i < 3 * 4; ++i) bv.push_back(static_cast<float>(i % 7) * 0.25f);
  Tensor a = F32({2, 2, 3}, av);
  Tensor b = F32({3, 4}, bv);  // broadcast over the batch
  EXPECT_TRUE(Close(Eval(K::kMatmul, {&a, &b}), F32({2, 2, 4}, Naive(av, bv, 2, 2, 3, 4, false, true))));
  // [2,1,2,3] x [3,3,2] -> [2,3,2,2]: batch dims broadcast to [2,3].
  std::vector<float> cv, dv;
  for (int i = 0; i < 12; ++i) cv.push_back(static_cast<float>(i));
  for (int i = 0; i < 18; ++i) dv.push_back(static_cast<float>(i % 4) - 1);
  Tensor c = F32({2, 1, 2, 3}, cv);
  Tensor d = F32({3, 3, 2}, dv);
  std::vector<float> want;
  for (int x = 0; x < 2; ++x)
    for (int y = 0; y < 3; ++y) {
      std::vector<float> sub_a(cv.begin() + x * 6, cv.begin() + x * 6 + 6);
      std::vector<float> sub_b(dv.begin() + y * 6, dv.begin() + y * 6 + 6);
      for (float f : Naive(sub_a, sub_b, 1, 2, 3, 2)) want.push_back(f);
    }
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&c, &d}), F32({2, 3, 2, 2}, want)));
}

TEST(RefMatmulTest, Errors) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = F32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_TRUE(FailsWith(Eval(K::kMatmul, {&a, &b}), "matmul inner dimensions 3 and 4 differ"));
  Tensor s = F32({}, {1});
  EXPECT_TRUE(FailsWith(Eval(K::kMatmul, {&s, &a}), "rank >= 1"));
  Tensor i = I64({3, 1}, {1, 2, 3});
  EXPECT_TRUE(FailsWith(Eval(K::kMatmul, {&a, &i}), "dtype mismatch: f32 and i64"));
  Tensor t = Bool({1, 1}, {true});
  EXPECT_TRUE(FailsWith(Eval(K::kMatmul, {&t, &t}), "numeric"));
  Tensor b1 = F32({2, 3, 3}, std::vector<float>(18, 1));
  Tensor b2 = F32({3, 3, 2}, std::vector<float>(18, 1));
  EXPECT_TRUE(FailsWith(Eval(K::kMatmul, {&b1, &b2}), "matmul batch dimensions [2] and [3] cannot be broadcast (operands [2, 3, 3] and [3, 3, 2])"));
}

TEST(RefMatmulTest, EmptyInnerGivesZeros) {
  Tensor a = F32({2, 0}, {});
  Tensor b = F32({0, 3}, {});
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&a, &b}), F32({2, 3}, {0, 0, 0, 0, 0, 0})));
  Tensor c = F32({0, 2}, {});
  Tensor d = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Result<Tensor> r = Eval(K::kMatmul, {&c, &d});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), (Shape{0, 3}));
}

TEST(RefMatmulTest, IntegerAndF64) {
  Tensor a = I64({2, 2}, {1, std::numeric_limits<int64_t>::max(), 3, 4});
  Tensor b = I64({2, 1}, {2, 2});
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&a, &b}), I64({2, 1}, {0, 14})));  // 2 + 2·MAX wraps to 0
  Tensor u = U8({1, 2}, {16, 16});
  Tensor v = U8({2, 1}, {8, 8});
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&u, &v}), U8({1, 1}, {0})));  // 256 wraps
  Tensor x = F64({1, 2}, {0.1, 0.2});
  Tensor y = F64({2, 1}, {3, 4});
  EXPECT_TRUE(Same(Eval(K::kMatmul, {&x, &y}), F64({1, 1}, {0.1 * 3 + 0.2 * 4})));
}

TEST(RefFusedTest, EqualTheirCompositions) {
  Tensor a = F32({2, 2}, {1, -2, 3, -4});
  Tensor b = F32({2, 2}, {1, 1, -1, 1});
  Tensor c = F32({2}, {0.5f, -10});
  // matmul(a, b) = [[3, -1], [7, -1]]
  EXPECT_TRUE(Same(Eval(K::kFusedMatmulAdd, {&a, &b, &c}), F32({2, 2}, {3.5f, -11, 7.5f, -11})));
  EXPECT_TRUE(Same(Eval(K::kFusedMatmulRelu, {&a, &b}), F32({2, 2}, {3, 0, 7, 0})));
  EXPECT_TRUE(Same(Eval(K::kFusedAddRelu, {&a, &c}), F32({2, 2}, {1.5f, 0, 3.5f, 0})));
  EXPECT_TRUE(Same(Eval(K::kFusedSubRelu, {&a, &b}), F32({2, 2}, {0, 0, 4, 0})));
  Tensor i = I64({1, 1}, {2});
  EXPECT_TRUE(Same(Eval(K::kFusedMatmulAdd, {&i, &i, &i}), I64({1, 1}, {6})));
  EXPECT_TRUE(FailsWith(Eval(K::kFusedAddRelu, {&i, &i}), "relu requires a float operand"));
}

}  // namespace
}  // namespace shrew::interp
