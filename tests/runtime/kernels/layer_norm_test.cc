// layer_norm over the last axis with and without weight/bias, broadcast
// affine parameters, against a two-pass double loop. f32 tolerance 1e-5
// relative / 1e-5 absolute: outputs are O(1) after normalisation and the
// float rounding of (x − μ)·rstd·w + b is a few ulp of O(1) values.
#include <cmath>
#include <optional>
#include <random>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::BroadcastOffset;
using testing::MakeSpec;
using testing::RandomTensor;
using testing::Unravel;
using K = ir::OpKind;

class LayerNormTester {
 public:
  LayerNormTester& InputShape(Shape s) {
    x_ = std::move(s);
    return *this;
  }
  LayerNormTester& Weight(Shape s) {
    w_ = std::move(s);
    return *this;
  }
  LayerNormTester& Bias(Shape s) {
    b_ = std::move(s);
    return *this;
  }
  LayerNormTester& Eps(double e) {
    eps_ = e;
    return *this;
  }
  LayerNormTester& DType(ir::DType d) {
    dtype_ = d;
    return *this;
  }
  LayerNormTester& InPlace(bool v) {
    in_place_ = v;
    return *this;
  }
  LayerNormTester& Offset(double o) {
    offset_ = o;
    return *this;
  }

  void Test() const {
    SCOPED_TRACE("layer_norm " + ShapeToString(x_) + (w_ ? " w" + ShapeToString(*w_) : "") +
                 (b_ ? " b" + ShapeToString(*b_) : ""));
    std::mt19937 rng(static_cast<unsigned>(x_.size() * 5 + (w_ ? 1 : 0) + (b_ ? 2 : 0)));
    Tensor x = RandomTensor(dtype_, x_, rng, offset_ - 2, offset_ + 2);
    std::optional<Tensor> w, b;
    if (w_) w = RandomTensor(dtype_, *w_, rng, 0.5, 1.5);
    if (b_) b = RandomTensor(dtype_, *b_, rng, -1, 1);
    Tensor expected = x;
    const int64_t d = x_.back(), rows = d == 0 ? 0 : x.num_elements() / d;
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < d; ++i) mean += x.GetDouble(r * d + i);
      mean /= static_cast<double>(d);
      for (int64_t i = 0; i < d; ++i) var += std::pow(x.GetDouble(r * d + i) - mean, 2);
      var /= static_cast<double>(d);
      for (int64_t i = 0; i < d; ++i) {
        const std::vector<int64_t> idx = Unravel(r * d + i, x_);
        const double wv = w ? w->GetDouble(BroadcastOffset(idx, *w_, x_)) : 1.0;
        const double bv = b ? b->GetDouble(BroadcastOffset(idx, *b_, x_)) : 0.0;
        expected.SetDouble(r * d + i, (x.GetDouble(r * d + i) - mean) / std::sqrt(var + eps_) * wv + bv);
      }
    }
    std::vector<ir::DType> dtypes = {dtype_};
    std::vector<const Tensor*> ops = {&x};
    if (w) dtypes.push_back(dtype_), ops.push_back(&*w);
    if (b) dtypes.push_back(dtype_), ops.push_back(&*b);
    auto spec = MakeSpec(K::kLayerNorm, dtypes, dtype_, testing::Attr("eps", ir::AttrValue::Float(eps_)));
    testing::RunOptions opt;
    opt.in_place = in_place_;
    Result<Tensor> y = testing::CreateAndRun(spec->spec, ops, x_, opt);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    if (dtype_ == ir::DType::kF64) {
      EXPECT_TENSOR_NEAR(*y, expected, 1e-11, 1e-12);
    } else {
      EXPECT_TENSOR_NEAR(*y, expected, 1e-5, 1e-5);
    }
  }

 private:
  Shape x_ = {2, 8};
  std::optional<Shape> w_, b_;
  double eps_ = 1e-5;
  ir::DType dtype_ = ir::DType::kF32;
  bool in_place_ = false;
  double offset_ = 0;
};

TEST(LayerNormKernelTest, WithAndWithoutAffine) {
  const Shape shapes[] = {{1}, {7}, {3, 5}, {2, 3, 64}, {4, 1}, {2, 3, 1000}};
  for (const Shape& s : shapes) {
    const Shape d = {s.back()};
    for (ir::DType dt : {ir::DType::kF32, ir::DType::kF64}) {
      LayerNormTester().InputShape(s).DType(dt).Test();
      LayerNormTester().InputShape(s).Weight(d).DType(dt).Test();
      LayerNormTester().InputShape(s).Weight(d).Bias(d).DType(dt).Test();
    }
  }
}

TEST(LayerNormKernelTest, BroadcastAffineParameters) {
  LayerNormTester().InputShape({2, 3, 6}).Weight({1, 6}).Bias({}).Test();
  LayerNormTester().InputShape({2, 3, 6}).Weight({3, 6}).Bias({3, 1}).Test();
  LayerNormTester().InputShape({2, 3, 6}).Weight({2, 1, 1}).Bias({1}).Test();
  LayerNormTester().InputShape({2, 3, 6}).Weight({2, 3, 6}).Bias({2, 3, 6}).Test();
}

TEST(LayerNormKernelTest, EpsInPlaceLargeOffsetAndEmpty) {
  LayerNormTester().InputShape({3, 16}).Eps(0.5).Weight({16}).Bias({16}).Test();
  LayerNormTester().InputShape({3, 16}).Weight({16}).InPlace(true).Test();
  // A large common offset: two-pass variance keeps full precision.
  LayerNormTester().InputShape({4, 256}).Offset(1e4).Test();
  LayerNormTester().InputShape({0, 4}).Weight({4}).Test();
  LayerNormTester().InputShape({3, 0}).Test();
}

TEST(LayerNormKernelTest, RowsPastOneStatisticsBlock) {
  // The statistics go 32 rows at a time: 77 rows (a partial last block),
  // in place; and 40 rows per weight row (a block boundary inside each).
  LayerNormTester().InputShape({77, 24}).Weight({24}).Bias({24}).InPlace(true).Test();
  LayerNormTester().InputShape({5, 40, 8}).Weight({5, 1, 8}).Bias({1, 40, 1}).Test();
  LayerNormTester().InputShape({70, 64}).DType(ir::DType::kF64).Weight({64}).Test();
}

TEST(LayerNormKernelTest, ConstantRowIsBias) {
  // σ² = 0: y = 0·w + b.
  Result<Tensor> x = Tensor::FromVector<float>(ir::DType::kF32, {1, 3}, {2, 2, 2});
  Result<Tensor> w = Tensor::FromVector<float>(ir::DType::kF32, {3}, {5, 5, 5});
  Result<Tensor> b = Tensor::FromVector<float>(ir::DType::kF32, {3}, {1, 2, 3});
  auto spec = MakeSpec(K::kLayerNorm, {ir::DType::kF32, ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x, &*w, &*b}, {1, 3});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->GetDouble(0), 1.0);
  EXPECT_EQ(y->GetDouble(1), 2.0);
  EXPECT_EQ(y->GetDouble(2), 3.0);
}

// A constant f64 row whose sum rounds (16 × 1e30 came out 1 ulp off, and
// σ² = n·ulp² swamped eps: every output ±1) still normalises to 0: the mean
// is corrected by what the centred values add up to.
TEST(LayerNormKernelTest, ConstantF64RowsOfLargeValuesAreZero) {
  for (double v : {1e30, -7.3e200, 0.1, 3.0e-300}) {
    for (int64_t d : {3, 16, 17, 100, 1000}) {
      SCOPED_TRACE(std::to_string(v) + " x " + std::to_string(d));
      Result<Tensor> x = Tensor::FromVector<double>(ir::DType::kF64, {3, d}, std::vector<double>(static_cast<size_t>(3 * d), v));
      auto spec = MakeSpec(K::kLayerNorm, {ir::DType::kF64}, ir::DType::kF64);
      Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x}, {3, d});
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      for (double e : y->values<double>()) ASSERT_EQ(e, 0.0);
    }
  }
}

// f64 deviations past ~1.3e154 square to inf: the row is scaled by its
// largest deviation first, as the interpreter does (it normalised to 0).
TEST(LayerNormKernelTest, F64RowsWhoseSquaresOverflowStillNormalise) {
  for (int64_t d : {4, 16, 64}) {
    std::vector<double> v;
    for (int64_t i = 0; i < d; ++i) v.push_back(i % 2 == 0 ? 1e200 : -1e200);
    for (int64_t i = 0; i < d; ++i) v.push_back(i % 4 == 0 ? 3e160 : i % 4 == 1 ? 1e160 : 2e160);
    Result<Tensor> x = Tensor::FromVector<double>(ir::DType::kF64, {2, d}, v);
    auto spec = MakeSpec(K::kLayerNorm, {ir::DType::kF64}, ir::DType::kF64);
    Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x}, {2, d});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    // Row 2: mean 2e160, deviations ±1e160 on half the values, σ = 1e160 / sqrt(2).
    for (int64_t i = 0; i < d; ++i) {
      EXPECT_NEAR(y->values<double>()[static_cast<size_t>(i)], i % 2 == 0 ? 1.0 : -1.0, 1e-14) << d << " " << i;
      const double want = i % 4 == 0 ? std::sqrt(2.0) : i % 4 == 1 ? -std::sqrt(2.0) : 0.0;
      EXPECT_NEAR(y->values<double>()[static_cast<size_t>(d + i)], want, 1e-14) << d << " " << i;
    }
  }
}

TEST(LayerNormKernelTest, RowsOfOneElementAreTheBias) {
  // Rows of 1: y = (x − x)·rstd·w + b = ±0·w + b, the zero negative only
  // for x = -0 (μ is +0 then: the sum starts at +0); NaN for a non-finite x
  // or w; a rstd beyond f32 (eps 1e-90) takes the double path, same values.
  const double inf = INFINITY;
  const std::vector<double> xs = {1.5, -0.0, 0.0, 3e38, -7.25, inf, NAN};
  for (ir::DType d : {ir::DType::kF32, ir::DType::kF64}) {
    for (double eps : {1e-5, 1e-90}) {
      for (auto [wv, bv] : std::vector<std::pair<double, double>>{{2.0, -0.0}, {-3.0, 0.0}, {inf, 1.0}, {0.5, 4.0}}) {
        SCOPED_TRACE(std::string(ir::DTypeName(d)) + " eps " + std::to_string(eps) + " w " + std::to_string(wv) +
                     " b " + std::to_string(bv));
        Result<Tensor> x = Tensor::Zeros(d, {7, 1});
        Result<Tensor> w = Tensor::Zeros(d, {1});
        Result<Tensor> b = Tensor::Zeros(d, {1});
        ASSERT_TRUE(x.ok() && w.ok() && b.ok());
        for (int i = 0; i < 7; ++i) x->SetDouble(i, xs[static_cast<size_t>(i)]);
        w->SetDouble(0, wv);
        b->SetDouble(0, bv);
        auto spec = MakeSpec(K::kLayerNorm, {d, d, d}, d, testing::Attr("eps", ir::AttrValue::Float(eps)));
        Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x, &*w, &*b}, {7, 1});
        ASSERT_TRUE(y.ok()) << y.status().ToString();
        for (int i = 0; i < 7; ++i) {
          const double in = x->GetDouble(i), got = y->GetDouble(i);
          if (!std::isfinite(in) || !std::isfinite(wv)) {
            EXPECT_TRUE(std::isnan(got)) << i;
            continue;
          }
          const double zero = in == 0 && std::signbit(in) ? -0.0 : 0.0;
          const double want = zero * wv + bv;
          EXPECT_EQ(got, want) << i;
          EXPECT_EQ(std::signbit(got), std::signbit(want)) << i;
        }
      }
    }
  }
}

// OPS.md §3.11.3 for one row, in long double, rounded to f32.
std::vector<float> LayerNormRowByHand(const std::vector<float>& x, double w) {
  long double mean = 0, var = 0;
  for (float v : x) mean += v;
  mean /= x.size();
  for (float v : x) var += (v - mean) * (v - mean);
  var /= x.size();
  std::vector<float> y;
  for (float v : x) y.push_back(static_cast<float>((v - mean) / std::sqrt(var + 1e-5L) * w));
  return y;
}

TEST(LayerNormKernelTest, RowsAtTheEdgesOfF32) {
  // A one-element weight whose product with 1/σ leaves f32's normal range
  // (rstd 6e-31 · w 1e-15 gave 0; 6e-21 · 1e-20 a subnormal, 4.7e-6 off),
  // and a row whose x − μ exceeds FLT_MAX though its outputs are about 4.7
  // (gave inf): every output is a normal f32 and must be within 1e-6.
  struct Case {
    std::vector<float> x;
    float w;
  };
  std::vector<float> wide(64, 0.0f);
  wide[0] = 3.4e38f;
  wide[1] = wide[2] = -3.4e38f;
  const std::vector<Case> cases = {{{1e30f, -1e30f, 3e30f, 0}, 1e-15f}, {{1e20f, -1e20f, 3e20f, 0}, 1e-20f}, {wide, 1}};
  for (const Case& c : cases) {
    const int64_t d = static_cast<int64_t>(c.x.size());
    SCOPED_TRACE("x[0] " + std::to_string(c.x[0]) + " w " + std::to_string(c.w));
    Result<Tensor> x = Tensor::FromVector<float>(ir::DType::kF32, {1, d}, c.x);
    Result<Tensor> w = Tensor::FromVector<float>(ir::DType::kF32, {1}, {c.w});
    ASSERT_TRUE(x.ok() && w.ok());
    auto spec = MakeSpec(K::kLayerNorm, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
    Result<Tensor> y = testing::CreateAndRun(spec->spec, {&*x, &*w}, {1, d});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    const std::vector<float> want = LayerNormRowByHand(c.x, c.w);
    for (int64_t i = 0; i < d; ++i) {
      const double expect = want[static_cast<size_t>(i)];
      EXPECT_NEAR(y->GetDouble(i), expect, std::fabs(expect) * 1e-6) << i;
    }
  }
}

TEST(LayerNormKernelTest, Errors) {
  auto spec = MakeSpec(K::kLayerNorm, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  Result<KernelPtr> k = CreateKernel(spec->spec);
  ASSERT_TRUE(k.ok());
  std::vector<Shape> bad_w = {{2, 4}, {3}};
  Result<size_t> r = (*k)->Reshape(bad_w, {2, 4});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("weight"), std::string::npos) << r.status().message();
  std::vector<Shape> scalar = {{}, {1}};
  EXPECT_FALSE((*k)->Reshape(scalar, {}).ok());
  auto bad_eps =
      MakeSpec(K::kLayerNorm, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("eps", ir::AttrValue::Float(0)));
  EXPECT_EQ(CreateKernel(bad_eps->spec).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shrew::runtime::kernels
