// Unary elementwise kernels (neg relu gelu silu sigmoid tanh exp log sqrt)
// against hand-written double-precision formulas of OPS.md §3.3.
//
// Tolerance: 1e-5 relative / 1e-6 absolute for f32. XNNPACK's exp, sigmoid
// and tanh are polynomial/rational approximations measured at <= 3.1e-7
// relative (well inside OPS.md's 1e-6); gelu and silu inherit sigmoid's.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/xnn_unary.h"

namespace shrew::runtime::kernels {
namespace {

using testing::CreateAndRun;
using testing::MakeSpec;
using testing::RandomTensor;
using testing::RunOptions;
using K = ir::OpKind;

double Reference(K op, double x) {
  switch (op) {
    case K::kNeg:
      return -x;
    case K::kRelu:
      return x > 0 ? x : 0;
    case K::kGelu:
      // The tanh form 0.5·x·(1 + tanh u) as the identical x / (1 + e^(−2u)),
      // which does not cancel for negative x.
      return x / (1 + std::exp(-2 * 0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case K::kSilu:
      return x / (1 + std::exp(-x));
    case K::kSigmoid:
      return 1 / (1 + std::exp(-x));
    case K::kTanh:
      return std::tanh(x);
    case K::kExp:
      return std::exp(x);
    case K::kLog:
      return std::log(x);
    case K::kSqrt:
      return std::sqrt(x);
    default:
      return 0;
  }
}

class UnaryTester {
 public:
  UnaryTester& Op(K op) {
    op_ = op;
    return *this;
  }
  UnaryTester& InputShape(Shape s) {
    shape_ = std::move(s);
    return *this;
  }
  UnaryTester& DType(ir::DType d) {
    dtype_ = d;
    return *this;
  }
  UnaryTester& Range(double lo, double hi) {
    lo_ = lo;
    hi_ = hi;
    return *this;
  }
  UnaryTester& InPlace(bool v) {
    in_place_ = v;
    return *this;
  }
  UnaryTester& Tolerance(double rtol, double atol) {
    rtol_ = rtol;
    atol_ = atol;
    return *this;
  }

  void Test() const {
    SCOPED_TRACE(std::string(ir::OpName(op_)) + " " + ShapeToString(shape_) + " " + ir::DTypeName(dtype_) +
                 (in_place_ ? " in place" : ""));
    std::mt19937 rng(static_cast<unsigned>(shape_.size() * 131 + static_cast<int>(op_)));
    Tensor x = RandomTensor(dtype_, shape_, rng, lo_, hi_);
    Tensor expected = x;
    for (int64_t i = 0; i < x.num_elements(); ++i) expected.SetDouble(i, Reference(op_, x.GetDouble(i)));
    auto spec = MakeSpec(op_, {dtype_}, dtype_);
    RunOptions opt;
    opt.in_place = in_place_;
    Result<Tensor> y = CreateAndRun(spec->spec, {&x}, shape_, opt);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_TENSOR_NEAR(*y, expected, rtol_, atol_);
  }

 private:
  K op_ = K::kRelu;
  Shape shape_ = {4};
  ir::DType dtype_ = ir::DType::kF32;
  double lo_ = -4, hi_ = 4;
  bool in_place_ = false;
  double rtol_ = 1e-5, atol_ = 1e-6;
};

constexpr K kAllUnary[] = {K::kNeg, K::kRelu, K::kGelu, K::kSilu, K::kSigmoid, K::kTanh, K::kExp, K::kLog, K::kSqrt};

// log and sqrt get positive inputs here; their edge cases are tested below.
UnaryTester ForOp(K op) {
  UnaryTester t;
  t.Op(op);
  if (op == K::kLog || op == K::kSqrt) t.Range(1e-3, 50);
  if (op == K::kExp) t.Range(-20, 20);
  return t;
}

TEST(UnaryKernelTest, F32AllOpsAllShapes) {
  // Rank 0, size-1 dims, empty tensors and lengths around the 2048-element
  // chunk of gelu/silu.
  const Shape shapes[] = {{}, {1}, {7}, {3, 1, 5}, {2, 0}, {2048}, {2 * 2048 + 3}, {17, 33}};
  for (K op : kAllUnary) {
    for (const Shape& s : shapes) ForOp(op).InputShape(s).Test();
  }
}

TEST(UnaryKernelTest, F32InPlace) {
  for (K op : kAllUnary) ForOp(op).InputShape({5, 411}).InPlace(true).Test();
}

TEST(UnaryKernelTest, F64AllOps) {
  for (K op : kAllUnary) {
    ForOp(op).InputShape({3, 7}).DType(ir::DType::kF64).Tolerance(1e-12, 1e-14).Test();
    ForOp(op).InputShape({}).DType(ir::DType::kF64).Tolerance(1e-12, 1e-14).InPlace(true).Test();
  }
}

TEST(UnaryKernelTest, WideRangeActivations) {
  // Saturated regions: sigmoid/tanh/silu/gelu for |x| up to 30.
  for (K op : {K::kSigmoid, K::kTanh, K::kSilu, K::kGelu}) ForOp(op).InputShape({4001}).Range(-30, 30).Test();
}

TEST(UnaryKernelTest, GeluIsTheTanhFormNotErf) {
  // At x = 1 the tanh form gives 0.841191990..., the erf form 0.841344746...
  Tensor x = Tensor::Scalar<float>(1.0f);
  auto spec = MakeSpec(K::kGelu, {ir::DType::kF32}, ir::DType::kF32);
  Result<Tensor> y = CreateAndRun(spec->spec, {&x}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_NEAR(y->GetDouble(0), 0.8411919906082768, 2e-7);
}

TEST(UnaryKernelTest, LogAndSqrtEdgeCases) {
  const float inf = std::numeric_limits<float>::infinity();
  Result<Tensor> x = Tensor::FromVector<float>(ir::DType::kF32, {6}, {0.0f, -1.0f, 1.0f, inf, 1e-40f, 4.0f});
  ASSERT_TRUE(x.ok());
  auto log_spec = MakeSpec(K::kLog, {ir::DType::kF32}, ir::DType::kF32);
  Result<Tensor> lg = CreateAndRun(log_spec->spec, {&*x}, {6});
  ASSERT_TRUE(lg.ok()) << lg.status().ToString();
  EXPECT_EQ(lg->GetDouble(0), -inf);
  EXPECT_TRUE(std::isnan(lg->GetDouble(1)));
  EXPECT_EQ(lg->GetDouble(2), 0.0);
  EXPECT_EQ(lg->GetDouble(3), inf);
  EXPECT_NEAR(lg->GetDouble(4), std::log(1e-40), 1e-6 * 92.1);  // subnormal input
  EXPECT_NEAR(lg->GetDouble(5), std::log(4.0), 1e-7);
  auto sqrt_spec = MakeSpec(K::kSqrt, {ir::DType::kF32}, ir::DType::kF32);
  Result<Tensor> sq = CreateAndRun(sqrt_spec->spec, {&*x}, {6});
  ASSERT_TRUE(sq.ok()) << sq.status().ToString();
  EXPECT_EQ(sq->GetDouble(0), 0.0);
  EXPECT_TRUE(std::isnan(sq->GetDouble(1)));
  EXPECT_EQ(sq->GetDouble(5), 2.0);
}

TEST(UnaryKernelTest, LogIsWithinOneMillionthRelativeEverywhere) {
  // XNNPACK's rational log is ~1e-2 relative off near 1; ours must hold
  // 1e-6 relative (OPS.md §3.3) over the whole positive range.
  std::vector<float> xs;
  for (int i = -2000; i <= 2000; ++i) xs.push_back(1.0f + static_cast<float>(i) * 1e-6f);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> e(-37, 37);
  for (int i = 0; i < 20000; ++i) xs.push_back(static_cast<float>(std::pow(10.0, e(rng))));
  std::vector<float> ys(xs.size());
  LogF32(xs.data(), ys.data(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const double ref = std::log(static_cast<double>(xs[i]));
    ASSERT_LE(std::fabs(ys[i] - ref), 1e-6 * std::fabs(ref) + 1e-30) << "log(" << xs[i] << ")";
  }
}

// Runs `op` (f32) on `xs`; the result's values.
std::vector<float> RunF32(K op, const std::vector<float>& xs) {
  const Shape shape = {static_cast<int64_t>(xs.size())};
  Result<Tensor> x = Tensor::FromVector<float>(ir::DType::kF32, shape, xs);
  EXPECT_TRUE(x.ok());
  auto spec = MakeSpec(op, {ir::DType::kF32}, ir::DType::kF32);
  Result<Tensor> y = CreateAndRun(spec->spec, {&*x}, shape);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  return std::vector<float>(y->values<float>().begin(), y->values<float>().end());
}

TEST(UnaryKernelTest, ExpIsWithinOneMillionthRelativeDownToSubnormalResults) {
  // Ours (vector_math.h) replaced XNNPACK's, which returned 0 below e^-87.3.
  // Every 4099th f32 in [-110, 90]: within 1e-6 relative on normal results,
  // within one subnormal step (1.4e-45) below; 0 and inf past the ends.
  std::vector<float> xs;
  for (uint32_t b = 0; b < 0xff800000u; b += 4099) {
    float x;
    std::memcpy(&x, &b, sizeof x);
    if (x >= -110.0f && x <= 90.0f) xs.push_back(x), xs.push_back(-x);
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {0.0f, -0.0f, 88.72283f, 88.72284f, -87.33655f, -103.2789f, -103.9721f, -inf, inf, 1e-30f}) xs.push_back(x);
  std::vector<float> ys(xs.size());
  ExpF32(xs.data(), ys.data(), xs.size());
  constexpr double kMinNormal = 1.1754943508222875e-38, kSubnormalStep = 1.401298464324817e-45;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double ref = std::exp(static_cast<double>(xs[i]));
    if (ref > 3.4028234663852886e38) {
      ASSERT_EQ(ys[i], inf) << "exp(" << xs[i] << ")";
    } else if (ref >= kMinNormal) {
      ASSERT_LE(std::fabs(ys[i] - ref), 1e-6 * ref) << "exp(" << xs[i] << ")";
    } else {
      ASSERT_LE(std::fabs(ys[i] - ref), kSubnormalStep) << "exp(" << xs[i] << ")";
    }
  }
  std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN()};
  ExpF32(nan.data(), nan.data(), 1);
  EXPECT_TRUE(std::isnan(nan[0]));
  EXPECT_EQ(RunF32(K::kExp, {-90.0f})[0], static_cast<float>(std::exp(-90.0)));  // 8.2e-40, XNNPACK gave 0
}

TEST(UnaryKernelTest, SigmoidSiluGeluSaturateForHugeInputs) {
  // XNNPACK's sigmoid alone gave NaN for |x| in about [1e27, 3e38).
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> xs = {1e27f, -1e27f, 1e30f, -1e30f, 3e38f, -3e38f, 1e35f, -1e35f, inf, 200.0f, -200.0f};
  const std::vector<float> sig = RunF32(K::kSigmoid, xs);
  const std::vector<float> silu = RunF32(K::kSilu, xs);
  const std::vector<float> gelu = RunF32(K::kGelu, xs);
  ASSERT_EQ(sig.size(), xs.size());
  ASSERT_EQ(silu.size(), xs.size());
  ASSERT_EQ(gelu.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    SCOPED_TRACE(xs[i]);
    const bool pos = xs[i] > 0;
    EXPECT_EQ(sig[i], pos ? 1.0f : 0.0f);
    // x · sigmoid(x) and x · sigmoid(2c(x + 0.044715x³)): x, or (−)0.
    EXPECT_EQ(silu[i], pos ? xs[i] : 0.0f);
    EXPECT_EQ(gelu[i], pos ? xs[i] : 0.0f);
  }
}

TEST(UnaryKernelTest, SigmoidTailsBelowXnnpackFlushAreExact) {
  // XNNPACK's sigmoid gives 0 where its result is subnormal (x < −87.34),
  // so silu(−87.5) = −8.7e-37 and gelu(−10) = −1.2e-37 (normal floats)
  // came out 0. Within 1e-6 relative, or half a subnormal ulp, across a
  // chunk boundary, in place and not.
  const struct {
    K op;
    double lo, hi;
  } cases[] = {{K::kSigmoid, -110, -80}, {K::kSilu, -110, -80}, {K::kGelu, -10.8, -9.5}};
  for (const auto& c : cases) {
    for (bool in_place : {false, true}) {
      ForOp(c.op).InputShape({2100}).Range(c.lo, c.hi).Tolerance(1e-6, 0.71e-45).InPlace(in_place).Test();
    }
  }
}

TEST(UnaryKernelTest, GeluTailIsWithinOneMillionthRelative) {
  // sigmoid(t) ≈ e^t for negative t turns the f32 rounding of t (6e-8·|t|)
  // into relative error: 3e-6 at x = −6, 1e-5 at x = −9 before t was
  // computed in double and its rounding corrected. OPS.md §3.3: 1e-6.
  std::vector<float> xs;
  for (int i = 0; i <= 2000; ++i) xs.push_back(-10.0f + static_cast<float>(i) * 0.005f);
  const std::vector<float> y = RunF32(K::kGelu, xs);
  ASSERT_EQ(y.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const double ref = Reference(K::kGelu, xs[i]);
    if (std::fabs(ref) < 1.2e-38) continue;  // subnormal: tested above
    EXPECT_LE(std::fabs(y[i] - ref), 1e-6 * std::fabs(ref)) << "gelu(" << xs[i] << ")";
  }
}

TEST(UnaryKernelTest, GeluF64Tail) {
  // The tanh form in double had no correct digit below x ≈ −7.
  Result<Tensor> x = Tensor::FromVector<double>(ir::DType::kF64, {2}, {-8.0, -20.0});
  ASSERT_TRUE(x.ok());
  auto spec = MakeSpec(K::kGelu, {ir::DType::kF64}, ir::DType::kF64);
  Result<Tensor> y = CreateAndRun(spec->spec, {&*x}, {2});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  // By hand: u = c·(x + 0.044715x³) = −24.649909…, −8 / (1 + e^(−2u)).
  EXPECT_NEAR(y->GetDouble(0), -3.1077829375e-21, 3.1077829375e-21 * 1e-9);
  EXPECT_NEAR(y->GetDouble(1), -3.3754509563e-261, 3.3754509563e-261 * 1e-9);  // u = −301.377, not −0
}

TEST(UnaryKernelTest, TanhF64WithinTwoUlpsAcrossItsRange) {
  // vector_math_f64.h's tanh in two lanes (1.9 ulp of the exact function;
  // libm here within about 1): both lanes, the odd tail, ±0, saturation.
  std::vector<double> xs;
  for (int i = -2500; i <= 2500; ++i) xs.push_back(i * 0.00917);  // [-22.9, 22.9], an odd count
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.0, -0.0, 1e-310, -3e-20, 18.5, -19.5, 1e300, -inf, inf}) xs.push_back(x);
  Result<Tensor> x = Tensor::FromVector<double>(ir::DType::kF64, {static_cast<int64_t>(xs.size())}, xs);
  ASSERT_TRUE(x.ok());
  auto spec = MakeSpec(K::kTanh, {ir::DType::kF64}, ir::DType::kF64);
  Result<Tensor> y = CreateAndRun(spec->spec, {&*x}, {static_cast<int64_t>(xs.size())});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::tanh(xs[i]), got = y->GetDouble(static_cast<int64_t>(i));
    EXPECT_NEAR(got, want, std::fabs(want) * 4.5e-16) << "tanh(" << xs[i] << ")";
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << "tanh(" << xs[i] << ")";
  }
}

TEST(UnaryKernelTest, SqrtIsExactAtTheTopOfTheRange) {
  // sqrt is correctly rounded (IEEE-754); XNNPACK's gave NaN for +inf and
  // 2.77e19 for 3.4e38.
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> xs = {inf, 3.4e38f, 1e38f, 1e37f, 1e24f, 2.0f, 1e-30f};
  const std::vector<float> y = RunF32(K::kSqrt, xs);
  ASSERT_EQ(y.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_EQ(y[i], static_cast<float>(std::sqrt(static_cast<double>(xs[i])))) << "sqrt(" << xs[i] << ")";
  }
}

TEST(UnaryKernelTest, NegFlipsTheSignOfZero) {
  const std::vector<float> y = RunF32(K::kNeg, {0.0f, -0.0f, 1.5f});
  ASSERT_EQ(y.size(), 3u);
  EXPECT_TRUE(y[0] == 0.0f && std::signbit(y[0]));
  EXPECT_TRUE(y[1] == 0.0f && !std::signbit(y[1]));
  EXPECT_EQ(y[2], -1.5f);
}

TEST(UnaryKernelTest, ReluOfNegativeZeroIsPositiveZero) {
  // OPS.md: x if x > 0, else 0 (the interpreter's and f64's +0); XNNPACK's
  // clamp to [0, +inf) returned -0.
  const std::vector<float> y = RunF32(K::kRelu, {-0.0f, 0.0f, -2.0f, 3.0f, 1e-40f});
  ASSERT_EQ(y.size(), 5u);
  EXPECT_TRUE(y[0] == 0.0f && !std::signbit(y[0]));
  EXPECT_TRUE(y[1] == 0.0f && !std::signbit(y[1]));
  EXPECT_TRUE(y[2] == 0.0f && !std::signbit(y[2]));
  EXPECT_EQ(y[3], 3.0f);
  EXPECT_EQ(y[4], 1e-40f);
}

TEST(UnaryKernelTest, NegOnSignedIntegersWraps) {
  Result<Tensor> x = Tensor::FromVector<int64_t>(ir::DType::kI32, {4}, {5, -7, 0, std::numeric_limits<int64_t>::min()});
  ASSERT_TRUE(x.ok());
  auto spec = MakeSpec(K::kNeg, {ir::DType::kI32}, ir::DType::kI32);
  Result<Tensor> y = CreateAndRun(spec->spec, {&*x}, {4});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->GetInt64(0), -5);
  EXPECT_EQ(y->GetInt64(1), 7);
  EXPECT_EQ(y->GetInt64(2), 0);
  EXPECT_EQ(y->GetInt64(3), std::numeric_limits<int64_t>::min());
}

TEST(UnaryKernelTest, RejectsWrongDTypesAndShapes) {
  auto relu_int = MakeSpec(K::kRelu, {ir::DType::kI64}, ir::DType::kI64);
  EXPECT_EQ(CreateKernel(relu_int->spec).status().code(), StatusCode::kInvalidArgument);
  auto neg_unsigned = MakeSpec(K::kNeg, {ir::DType::kU32}, ir::DType::kU32);
  EXPECT_EQ(CreateKernel(neg_unsigned->spec).status().code(), StatusCode::kInvalidArgument);
  auto spec = MakeSpec(K::kTanh, {ir::DType::kF32}, ir::DType::kF32);
  Result<KernelPtr> k = CreateKernel(spec->spec);
  ASSERT_TRUE(k.ok());
  std::vector<Shape> in = {{2, 3}};
  Result<size_t> r = (*k)->Reshape(in, {3, 2});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("tanh"), std::string::npos) << r.status().message();
  std::vector<Shape> negative = {{-1}};
  EXPECT_FALSE((*k)->Reshape(negative, {-1}).ok());
}

TEST(UnaryKernelTest, ImplNames) {
  auto name = [](K op, ir::DType d) -> std::string {
    auto spec = MakeSpec(op, {d}, d);
    Result<KernelPtr> k = CreateKernel(spec->spec);
    return k.ok() ? k.value()->impl_name() : k.status().ToString();
  };
  EXPECT_EQ(name(K::kSigmoid, ir::DType::kF32), "xnn_unary");
  EXPECT_EQ(name(K::kGelu, ir::DType::kF32), "xnn_sigmoid+ref");
  EXPECT_EQ(name(K::kLog, ir::DType::kF32), "ref");
  EXPECT_EQ(name(K::kExp, ir::DType::kF32), "ref");
  EXPECT_EQ(name(K::kSigmoid, ir::DType::kF64), "ref");
}

}  // namespace
}  // namespace shrew::runtime::kernels
