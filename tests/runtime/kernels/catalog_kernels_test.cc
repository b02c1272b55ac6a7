// The catalog kernels (ref_reduce, ref_compare, ref_cast, ref_where,
// ref_concat_split, ref_embedding, ref_batch_norm, ref_loss, ref_range,
// attention) at the kernel interface: bad shapes and attributes are
// InvalidArgument naming the op at Reshape (never a crash), and a few values
// against hand-written loops, including in-place and workspace use.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::Attr;
using testing::MakeSpec;
using testing::RandomTensor;
using K = ir::OpKind;
constexpr ir::DType F = ir::DType::kF32;

// Creates the kernel and reshapes it; returns the Reshape status.
Status ReshapeStatus(const KernelSpec& spec, std::vector<Shape> in, const Shape& out) {
  Result<KernelPtr> k = CreateKernel(spec);
  if (!k.ok()) return k.status();
  Result<size_t> ws = (*k)->Reshape(in, out);
  return ws.ok() ? Status::Ok() : ws.status();
}

void ExpectInvalid(const Status& s, const std::string& fragment) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.ToString();
}

TEST(CatalogKernels, BadShapesAndAxesAreInvalidArgumentAtReshape) {
  auto sum = MakeSpec(K::kSum, {F}, F, Attr("dims", ir::AttrValue::IntList({3})));
  ExpectInvalid(ReshapeStatus(sum->spec, {{2, 3}}, {2}), "axis 3 is out of range for a rank-2 tensor");
  auto dup = MakeSpec(K::kMean, {F}, F, Attr("dims", ir::AttrValue::IntList({1, -1})));
  ExpectInvalid(ReshapeStatus(dup->spec, {{2, 3}}, {2}), "duplicate axis");
  auto out = MakeSpec(K::kSum, {F}, F);
  ExpectInvalid(ReshapeStatus(out->spec, {{2, 3}}, {2}), "sum");
  auto cmp = MakeSpec(K::kLess, {F, F}, ir::DType::kBool);
  ExpectInvalid(ReshapeStatus(cmp->spec, {{2, 3}, {4}}, {2, 3}), "cannot be broadcast");
  auto where = MakeSpec(K::kWhere, {ir::DType::kBool, F, F}, F);
  ExpectInvalid(ReshapeStatus(where->spec, {{5}, {2, 3}, {3}}, {2, 3}), "cannot be broadcast");
  auto cat = MakeSpec(K::kConcat, {F, F}, F, Attr("dim", ir::AttrValue::Int(-1)));
  ExpectInvalid(ReshapeStatus(cat->spec, {{2, 3}, {3, 3}}, {2, 6}), "concat operand 1 has shape [3, 3]");
  ir::Attrs split_attrs = Attr("chunks", ir::AttrValue::Int(4));
  split_attrs.Set("index", ir::AttrValue::Int(3));
  auto split = MakeSpec(K::kSplit, {F}, F, split_attrs);
  ExpectInvalid(ReshapeStatus(split->spec, {{5}}, {1}), "gives 3 chunks");
  auto emb = MakeSpec(K::kEmbedding, {ir::DType::kI64, F}, F);
  ExpectInvalid(ReshapeStatus(emb->spec, {{3}, {4, 2, 1}}, {3, 2}), "rank-2 table");
  auto bn = MakeSpec(K::kBatchNorm, {F, F, F}, F);
  ExpectInvalid(ReshapeStatus(bn->spec, {{2, 3, 4}, {4}, {3}}, {2, 3, 4}), "batch_norm weight has shape [4]");
  auto ce = MakeSpec(K::kCrossEntropy, {F, ir::DType::kI64}, F);
  ExpectInvalid(ReshapeStatus(ce->spec, {{4, 5}, {5}}, {}), "matches neither");
  auto mha = MakeSpec(K::kMultiHeadAttention, {F, F, F, F, F}, F, Attr("n_heads", ir::AttrValue::Int(3)));
  ExpectInvalid(ReshapeStatus(mha->spec, {{1, 2, 4}, {4, 4}, {4, 4}, {4, 4}, {4, 4}}, {1, 2, 4}), "not divisible");
  auto mha1 = MakeSpec(K::kMultiHeadAttention, {F}, F);
  EXPECT_EQ(CreateKernel(mha1->spec).status().code(), StatusCode::kFailedPrecondition);
}

TEST(CatalogKernels, ReduceMiddleAxesMatchesLoop) {
  std::mt19937 rng(1);
  Tensor x = RandomTensor(F, {3, 4, 5, 2}, rng);
  auto spec = MakeSpec(K::kVariance, {F}, F, Attr("dims", ir::AttrValue::IntList({1, -2})));
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, {3, 2});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int a = 0; a < 3; ++a) {
    for (int d = 0; d < 2; ++d) {
      double mean = 0, var = 0;
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 5; ++c) mean += x.values<float>()[static_cast<size_t>(((a * 4 + b) * 5 + c) * 2 + d)];
      mean /= 20;
      for (int b = 0; b < 4; ++b) {
        for (int c = 0; c < 5; ++c) {
          const double v = x.values<float>()[static_cast<size_t>(((a * 4 + b) * 5 + c) * 2 + d)] - mean;
          var += v * v;
        }
      }
      EXPECT_NEAR(y->values<float>()[static_cast<size_t>(a * 2 + d)], var / 20, 1e-6);
    }
  }
}

// The log-softmax is (x − m) − log Σ exp(x − m): with logits of 1e30 the
// max cancels exactly and the loss is log 2 (or log 3), not −0 as when m is
// added to log Σ first; 1e12 shows the rounding of that sum (4.6e-5 before).
TEST(CatalogKernels, CrossEntropyLargeLogitsKeepsLogSum) {
  auto ce = MakeSpec(K::kCrossEntropy, {F, ir::DType::kI64}, F);
  const struct {
    std::vector<float> logits;
    double want;
  } cases[] = {{{1e30f, 1e30f, 0}, std::log(2.0)}, {{1e12f, 1e12f, 0}, std::log(2.0)}, {{-1e20f, -1e20f, -1e20f}, std::log(3.0)}};
  for (const auto& c : cases) {
    Tensor x = Tensor::FromVector<float>(F, {1, 3}, c.logits).value();
    Tensor t = Tensor::FromVector<int64_t>(ir::DType::kI64, {1}, {0}).value();
    Result<Tensor> y = testing::CreateAndRun(ce->spec, {&x, &t}, {});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_NEAR(y->values<float>()[0], c.want, 1e-6 * c.want) << c.logits[0];
  }
}

// Rows of many classes take loss_rows.h's lanes (8 wide) and tail: the
// loss equals a plain log-softmax loop in double, for index and
// distribution targets; a row whose maximum sits in the tail or after a
// NaN-free lane, and a NaN logit, which makes the loss NaN.
TEST(CatalogKernels, CrossEntropyOfWideRowsMatchesAPlainLoop) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-20, 20);
  for (int64_t c : {8, 13, 100}) {
    SCOPED_TRACE(c);
    const int64_t rows = 37;
    std::vector<float> logits(static_cast<size_t>(rows * c));
    for (float& v : logits) v = u(rng);
    // Row 0: its maximum in the tail (or the last lane), far enough above the
    // rest that exp(x − m) overflows unless m is that maximum.
    logits[static_cast<size_t>(c - 1)] = 200;
    std::vector<int64_t> target(static_cast<size_t>(rows));
    std::vector<float> dist(logits.size(), 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
      target[static_cast<size_t>(r)] = (r * 7) % c;
      dist[static_cast<size_t>(r * c + (r * 7) % c)] = 0.75f;
      dist[static_cast<size_t>(r * c + (r * 3) % c)] += 0.25f;
    }
    double want_idx = 0, want_dist = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const float* x = logits.data() + r * c;
      double m = -INFINITY, sum = 0;
      for (int64_t j = 0; j < c; ++j) m = std::max(m, static_cast<double>(x[j]));
      for (int64_t j = 0; j < c; ++j) sum += std::exp(static_cast<double>(x[j]) - m);
      want_idx -= static_cast<double>(x[target[static_cast<size_t>(r)]]) - m - std::log(sum);
      for (int64_t j = 0; j < c; ++j) want_dist -= dist[static_cast<size_t>(r * c + j)] * (static_cast<double>(x[j]) - m - std::log(sum));
    }
    Tensor x = Tensor::FromVector<float>(F, {rows, c}, logits).value();
    Tensor t = Tensor::FromVector<int64_t>(ir::DType::kI64, {rows}, target).value();
    Tensor d = Tensor::FromVector<float>(F, {rows, c}, dist).value();
    auto by_index = MakeSpec(K::kCrossEntropy, {F, ir::DType::kI64}, F);
    auto by_dist = MakeSpec(K::kCrossEntropy, {F, F}, F);
    Result<Tensor> yi = testing::CreateAndRun(by_index->spec, {&x, &t}, {});
    Result<Tensor> yd = testing::CreateAndRun(by_dist->spec, {&x, &d}, {});
    ASSERT_TRUE(yi.ok() && yd.ok());
    EXPECT_NEAR(yi->values<float>()[0], want_idx / rows, 1e-6 * want_idx / rows);
    EXPECT_NEAR(yd->values<float>()[0], want_dist / rows, 1e-6 * want_dist / rows);
    logits[static_cast<size_t>(c + 2)] = NAN;
    Tensor xn = Tensor::FromVector<float>(F, {rows, c}, logits).value();
    Result<Tensor> yn = testing::CreateAndRun(by_index->spec, {&xn, &t}, {});
    ASSERT_TRUE(yn.ok());
    EXPECT_TRUE(std::isnan(yn->values<float>()[0]));
  }
}

TEST(CatalogKernels, MaxPropagatesNaN) {
  Tensor x = Tensor::FromVector<float>(F, {2, 9}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, NAN, 4, 5, 6, 7, 8, 0}).value();
  auto spec = MakeSpec(K::kMax, {F}, F, Attr("dims", ir::AttrValue::Int(-1)));
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, {2});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->values<float>()[0], 9.0f);
  EXPECT_TRUE(std::isnan(y->values<float>()[1]));
}

// Long rows go through the blocked path (64 running extremes, then the
// tail): every row is checked against a plain loop, with the extreme and
// a NaN placed inside a block, at a block's edge and in the tail.
template <typename T>
void CheckLongRowExtremes(ir::DType dt) {
  const int64_t n = 200;  // three blocks of 64 and a tail of 8
  const std::vector<int64_t> spots = {0, 63, 64, 130, 191, 192, 199};
  std::vector<T> v;
  for (size_t r = 0; r < 2 * spots.size(); ++r) {
    for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<T>(std::sin(0.37 * static_cast<double>(i + 11 * r)) * 50));
  }
  for (size_t k = 0; k < spots.size(); ++k) {
    v[k * n + static_cast<size_t>(spots[k])] = static_cast<T>(1000);                         // row k: the maximum here
    v[(spots.size() + k) * n + static_cast<size_t>(spots[k])] = std::numeric_limits<T>::quiet_NaN();  // row 7 + k: NaN here
  }
  v[3 * n + 5] = static_cast<T>(-1000);  // row 3: the minimum in the first block
  v[4 * n + 197] = static_cast<T>(-1000);  // row 4: the minimum in the tail
  const int64_t rows = static_cast<int64_t>(2 * spots.size());
  Tensor x = Tensor::FromVector<T>(dt, {rows, n}, v).value();
  for (K op : {K::kMax, K::kMin}) {
    auto spec = MakeSpec(op, {dt}, dt, Attr("dims", ir::AttrValue::Int(1)));
    Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, {rows});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    for (int64_t r = 0; r < rows; ++r) {
      bool nan = false;
      T m = v[static_cast<size_t>(r * n)];
      for (int64_t i = 0; i < n; ++i) {
        const T e = v[static_cast<size_t>(r * n + i)];
        nan |= std::isnan(e);
        m = op == K::kMax ? std::max(m, e) : std::min(m, e);
      }
      const T got = y->values<T>()[static_cast<size_t>(r)];
      SCOPED_TRACE(std::string(ir::OpName(op)) + " row " + std::to_string(r));
      if (nan) {
        EXPECT_TRUE(std::isnan(got)) << got;
      } else {
        EXPECT_EQ(got, m);
      }
    }
  }
}

TEST(CatalogKernels, MaxAndMinOfLongRowsMatchALoop) {
  CheckLongRowExtremes<float>(F);
  CheckLongRowExtremes<double>(ir::DType::kF64);
}

TEST(CatalogKernels, ZeroExtremeOfALongRowHasTheSignOfItsFirstZero) {
  // -0 and +0 compare equal: in order (the interpreter) the first zero is
  // kept. Row 0: -0 at 1 (block lane 1), +0 at 64 (lane 0, merged first);
  // row 1: +0 first, -0 later; row 2: both in the tail. The blocked path
  // gave +0 for row 0's max (1 / max was +inf, the interpreter's -inf).
  const int64_t n = 140;
  std::vector<float> v(static_cast<size_t>(3 * n), -1.0f);
  v[1] = -0.0f;
  v[64] = 0.0f;
  v[n + 2] = 0.0f;
  v[n + 65] = -0.0f;
  v[2 * n + 130] = -0.0f;
  v[2 * n + 135] = 0.0f;
  Tensor x = Tensor::FromVector<float>(F, {3, n}, v).value();
  std::vector<float> neg;
  for (float e : v) neg.push_back(-e);
  Tensor nx = Tensor::FromVector<float>(F, {3, n}, neg).value();
  for (K op : {K::kMax, K::kMin}) {
    SCOPED_TRACE(ir::OpName(op));
    auto spec = MakeSpec(op, {F}, F, Attr("dims", ir::AttrValue::Int(1)));
    Result<Tensor> y = testing::CreateAndRun(spec->spec, {op == K::kMax ? &x : &nx}, {3});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    const bool flip = op == K::kMin;  // min of -x: the first zero of -x
    EXPECT_EQ(std::signbit(y->values<float>()[0]), !flip);
    EXPECT_EQ(std::signbit(y->values<float>()[1]), flip);
    EXPECT_EQ(std::signbit(y->values<float>()[2]), !flip);
    for (int r = 0; r < 3; ++r) EXPECT_EQ(y->values<float>()[r], 0.0f);
  }
}

// Rows shorter than the 16 running extremes take a plain loop per row, in
// order: the first zero's sign, a NaN propagated, as the interpreter.
TEST(CatalogKernels, ExtremesOfShortRowsAreTakenInOrder) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::FromVector<float>(F, {4, 4}, {-1, -0.0f, 0.0f, -1,  //
                                                   -1, 0.0f, -0.0f, -1,  //
                                                   nan, 2, 7, 3,         //
                                                   -5, -3, -4, -9})
                 .value();
  auto max = MakeSpec(K::kMax, {F}, F, Attr("dims", ir::AttrValue::Int(-1)));
  Result<Tensor> y = testing::CreateAndRun(max->spec, {&x}, {4});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const std::span<const float> v = y->values<float>();
  EXPECT_EQ(v[0], 0.0f);
  EXPECT_TRUE(std::signbit(v[0]));
  EXPECT_FALSE(std::signbit(v[1]));
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(v[3], -3.0f);
  auto min = MakeSpec(K::kMin, {F}, F, Attr("dims", ir::AttrValue::Int(-1)));
  Result<Tensor> z = testing::CreateAndRun(min->spec, {&x}, {4});
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_TRUE(std::isnan(z->values<float>()[2]));
  EXPECT_EQ(z->values<float>()[3], -9.0f);
  EXPECT_EQ(z->values<float>()[0], -1.0f);
}

TEST(CatalogKernels, CastWrapsAndTruncatesAsTheSpecSays) {
  Tensor x = Tensor::FromVector<float>(F, {5}, {-1.9f, 2.9f, 300.0f, NAN, 0.0f}).value();
  auto to_i64 = MakeSpec(K::kCast, {F}, ir::DType::kI64, Attr("dtype", ir::AttrValue::String("i64")));
  Result<Tensor> i = testing::CreateAndRun(to_i64->spec, {&x}, {5});
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->values<int64_t>()[0], -1);
  EXPECT_EQ(i->values<int64_t>()[1], 2);
  EXPECT_EQ(i->values<int64_t>()[2], 300);
  auto to_u8 = MakeSpec(K::kCast, {F}, ir::DType::kU8, Attr("dtype", ir::AttrValue::String("u8")));
  Result<Tensor> u = testing::CreateAndRun(to_u8->spec, {&x}, {5});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->values<uint8_t>()[2], 300 % 256);
  auto to_bool = MakeSpec(K::kCast, {F}, ir::DType::kBool, Attr("dtype", ir::AttrValue::String("bool")));
  Result<Tensor> b = testing::CreateAndRun(to_bool->spec, {&x}, {5});
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->values<bool>()[3]);   // NaN is non-zero
  EXPECT_FALSE(b->values<bool>()[4]);
}

}  // namespace
}  // namespace shrew::runtime::kernels
