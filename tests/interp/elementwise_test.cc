// Elementwise ops of the reference interpreter (OPS.md §3.3–3.6, §3.17).
#include <cmath>
#include <limits>

#include "interp/interp_test_util.h"

namespace shrew::interp {
namespace {

using namespace shrew::interp::testing;  // NOLINT
using K = ir::OpKind;
using ir::AttrValue;
using ir::DType;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

double GeluRef(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
double SigmoidRef(double x) { return 1 / (1 + std::exp(-x)); }

TEST(RefUnaryTest, FloatFunctionsF32) {
  const std::vector<float> xs = {-3.0f, -0.5f, 0.0f, 0.25f, 1.0f, 2.5f};
  Tensor x = F32({2, 3}, xs);
  struct Case {
    K op;
    double (*f)(double);
  } cases[] = {
      {K::kRelu, [](double v) { return v > 0 ? v : 0.0; }},
      {K::kGelu, GeluRef},
      {K::kSilu, [](double v) { return v * SigmoidRef(v); }},
      {K::kSigmoid, SigmoidRef},
      {K::kTanh, [](double v) { return std::tanh(v); }},
      {K::kExp, [](double v) { return std::exp(v); }},
      {K::kNeg, [](double v) { return -v; }},
  };
  for (const Case& c : cases) {
    std::vector<float> want;
    for (float v : xs) want.push_back(static_cast<float>(c.f(v)));
    EXPECT_TRUE(Close(Eval(c.op, {&x}), F32({2, 3}, want), 1e-6, 1e-7)) << ir::OpName(c.op);
  }
  // Spot values computed by hand: gelu(1) = 0.841191990607…, the tanh form
  // (the erf form would give 0.841344746…).
  Result<Tensor> g = Eval(K::kGelu, {&x});
  ASSERT_TRUE(g.ok());
  EXPECT_NEAR(g->values<float>()[4], 0.8411919906, 1e-6);
}

// gelu's tanh form without the cancellation of 1 + tanh(u) for negative x:
// 0.5·(1 + tanh u) = 1 / (1 + e^(−2u)).
double StableGeluRef(double x) {
  return x / (1 + std::exp(-2 * 0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

// The oracle computes in double and rounds once: at x = -3 an f32
// evaluation of gelu's 1 + tanh(…) cancels and was about 1e-5 relative off.
TEST(RefUnaryTest, F32ResultsAreTheDoubleFormulaRoundedOnce) {
  std::vector<float> xs;
  for (int i = -90; i <= 60; ++i) xs.push_back(static_cast<float>(i) * 0.1f);
  Tensor x = F32({static_cast<int64_t>(xs.size())}, xs);
  struct Case {
    K op;
    double (*f)(double);
  } cases[] = {
      {K::kGelu, StableGeluRef},
      {K::kSilu, [](double v) { return v / (1 + std::exp(-v)); }},
      {K::kSigmoid, SigmoidRef},
      {K::kTanh, [](double v) { return std::tanh(v); }},
      {K::kExp, [](double v) { return std::exp(v); }},
  };
  for (const Case& c : cases) {
    Result<Tensor> y = Eval(c.op, {&x});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    for (size_t i = 0; i < xs.size(); ++i) {
      EXPECT_EQ(y->values<float>()[i], static_cast<float>(c.f(xs[i]))) << ir::OpName(c.op) << "(" << xs[i] << ")";
    }
  }
  // By hand: u = c·(x + 0.044715x³); gelu(−3) = −3 / (1 + e^(−2u)) =
  // −0.00363739208177…, gelu(−8) = −8 / (1 + e^(2·24.64991…)) = −3.10778e-21
  // (the tanh form evaluated in double has no correct digit there).
  Tensor tail = F32({2}, {-3.0f, -8.0f});
  Result<Tensor> g = Eval(K::kGelu, {&tail});
  ASSERT_TRUE(g.ok());
  EXPECT_NEAR(g->values<float>()[0], -0.0036373920817, 0.0036373920817 * 1e-7);
  EXPECT_NEAR(g->values<float>()[1], -3.10778e-21, 3.10778e-21 * 1e-5);
}

TEST(RefUnaryTest, LogSqrtCornerCases) {
  Tensor x = F64({4}, {0.0, -1.0, 4.0, std::exp(1.0)});
  Result<Tensor> l = Eval(K::kLog, {&x});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->values<double>()[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(l->values<double>()[1]));
  EXPECT_DOUBLE_EQ(l->values<double>()[2], std::log(4.0));
  EXPECT_DOUBLE_EQ(l->values<double>()[3], 1.0);
  Result<Tensor> s = Eval(K::kSqrt, {&x});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dtype(), DType::kF64);
  EXPECT_TRUE(std::isnan(s->values<double>()[1]));
  EXPECT_EQ(s->values<double>()[2], 2.0);
}

TEST(RefUnaryTest, SigmoidSiluSaturate) {
  Tensor x = F32({2}, {-100.0f, 100.0f});
  // 1 / (1 + e^100) = 3.72e-44 is a subnormal f32, not 0 (computed in double).
  EXPECT_TRUE(Same(Eval(K::kSigmoid, {&x}), F32({2}, {static_cast<float>(1 / (1 + std::exp(100.0))), 1.0f})));
  EXPECT_TRUE(Close(Eval(K::kSilu, {&x}), F32({2}, {0.0f, 100.0f})));
}

TEST(RefUnaryTest, RankZeroAndEmpty) {
  Tensor s = F32({}, {-2.0f});
  EXPECT_TRUE(Same(Eval(K::kRelu, {&s}), F32({}, {0.0f})));
  Tensor e = F32({0, 3}, {});
  Result<Tensor> r = Eval(K::kExp, {&e});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), (Shape{0, 3}));
}

TEST(RefUnaryTest, NegOnIntegers) {
  Tensor i = I64({3}, {5, -7, kMin64});
  EXPECT_TRUE(Same(Eval(K::kNeg, {&i}), I64({3}, {-5, 7, kMin64})));  // INT64_MIN wraps
  Tensor u = U8({1}, {3});
  EXPECT_TRUE(FailsWith(Eval(K::kNeg, {&u}), "neg requires a float or signed integer operand, got u8"));
  Tensor b = Bool({1}, {true});
  EXPECT_TRUE(FailsWith(Eval(K::kNeg, {&b}), "got bool"));
}

TEST(RefUnaryTest, FloatOnlyOps) {
  Tensor i = I64({1}, {1});
  EXPECT_TRUE(FailsWith(Eval(K::kRelu, {&i}), "node 'y' (relu): relu requires a float operand, got i64"));
  EXPECT_TRUE(FailsWith(Eval(K::kExp, {&i}), "exp requires a float operand"));
}

TEST(RefBinaryTest, BroadcastingF32) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor row = F32({3}, {10, 20, 30});
  EXPECT_TRUE(Same(Eval(K::kAdd, {&a, &row}), F32({2, 3}, {11, 22, 33, 14, 25, 36})));
  EXPECT_TRUE(Same(Eval(K::kSub, {&row, &a}), F32({2, 3}, {9, 18, 27, 6, 15, 24})));
  Tensor col = F32({2, 1}, {2, 3});
  Tensor r3 = F32({1, 3}, {1, 2, 4});
  EXPECT_TRUE(Same(Eval(K::kMul, {&col, &r3}), F32({2, 3}, {2, 4, 8, 3, 6, 12})));
  Tensor s = F32({}, {2});
  EXPECT_TRUE(Same(Eval(K::kDiv, {&a, &s}), F32({2, 3}, {0.5f, 1, 1.5f, 2, 2.5f, 3})));
  // Rank-0 with rank-0 stays rank 0.
  EXPECT_TRUE(Same(Eval(K::kMul, {&s, &s}), F32({}, {4})));
}

TEST(RefBinaryTest, BroadcastSizeZeroAndOne) {
  Tensor e = F32({0, 3}, {});
  Tensor row = F32({3}, {1, 2, 3});
  Result<Tensor> r = Eval(K::kAdd, {&e, &row});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), (Shape{0, 3}));
  Tensor one = F32({1, 1}, {5});
  Tensor e2 = F32({2, 0}, {});
  Result<Tensor> r2 = Eval(K::kAdd, {&one, &e2});
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->shape(), (Shape{2, 0}));
  // 3-D broadcast [2,1,2] x [3,1] -> [2,3,2] checked against a loop.
  Tensor a = F32({2, 1, 2}, {1, 2, 3, 4});
  Tensor b = F32({3, 1}, {10, 20, 30});
  std::vector<float> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) want.push_back(a.values<float>()[i * 2 + k] * b.values<float>()[j]);
  EXPECT_TRUE(Same(Eval(K::kMul, {&a, &b}), F32({2, 3, 2}, want)));
}

TEST(RefBinaryTest, BroadcastAndDtypeErrors) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = F32({2}, {1, 2});
  EXPECT_TRUE(FailsWith(Eval(K::kAdd, {&a, &b}), "shapes [2, 3] and [2] cannot be broadcast"));
  Tensor i = I64({3}, {1, 2, 3});
  EXPECT_TRUE(FailsWith(Eval(K::kAdd, {&a, &i}), "dtype mismatch: f32 and i64"));
  Tensor t = Bool({1}, {true});
  EXPECT_TRUE(FailsWith(Eval(K::kAdd, {&t, &t}), "add requires numeric operands, got bool"));
}

TEST(RefBinaryTest, FloatDivisionIeee) {
  Tensor a = F32({3}, {1, -1, 0});
  Tensor z = F32({3}, {0, 0, 0});
  Result<Tensor> r = Eval(K::kDiv, {&a, &z});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->values<float>()[0], kInf);
  EXPECT_EQ(r->values<float>()[1], -kInf);
  EXPECT_TRUE(std::isnan(r->values<float>()[2]));
}

TEST(RefBinaryTest, IntegerArithmetic) {
  Tensor a = I64({4}, {7, -7, 7, -7});
  Tensor b = I64({4}, {2, 2, -2, -2});
  EXPECT_TRUE(Same(Eval(K::kDiv, {&a, &b}), I64({4}, {3, -3, -3, 3})));  // truncation
  Tensor big = I64({2}, {kMax64, kMin64});
  Tensor one = I64({}, {1});
  EXPECT_TRUE(Same(Eval(K::kAdd, {&big, &one}), I64({2}, {kMin64, kMin64 + 1})));  // wraps
  Tensor m1 = I64({}, {-1});
  EXPECT_TRUE(Same(Eval(K::kDiv, {&big, &m1}), I64({2}, {-kMax64, kMin64})));  // INT64_MIN / -1
  Tensor two = I64({}, {2});
  EXPECT_TRUE(Same(Eval(K::kMul, {&big, &two}), I64({2}, {-2, 0})));
  Tensor zero = I64({}, {0});
  EXPECT_TRUE(FailsWith(Eval(K::kDiv, {&a, &zero}), "integer division by zero"));
  // Declared i32 is stored as i64 and keeps its dtype.
  Tensor i32 = Make(Tensor::FromVector<int64_t>(DType::kI32, {2}, {3, 4}));
  Result<Tensor> s = Eval(K::kAdd, {&i32, &i32});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dtype(), DType::kI32);
  EXPECT_EQ(s->values<int64_t>()[1], 8);
}

TEST(RefBinaryTest, U8Wraps) {
  Tensor a = U8({3}, {200, 5, 16});
  Tensor b = U8({3}, {100, 10, 16});
  EXPECT_TRUE(Same(Eval(K::kAdd, {&a, &b}), U8({3}, {44, 15, 32})));
  EXPECT_TRUE(Same(Eval(K::kSub, {&a, &b}), U8({3}, {100, 251, 0})));
  EXPECT_TRUE(Same(Eval(K::kMul, {&a, &b}), U8({3}, {32, 50, 0})));
  EXPECT_TRUE(Same(Eval(K::kDiv, {&a, &b}), U8({3}, {2, 0, 1})));
  EXPECT_TRUE(Same(Eval(K::kMod, {&a, &b}), U8({3}, {0, 5, 0})));
  Tensor e = U8({1}, {8});
  Tensor two = U8({1}, {2});
  EXPECT_TRUE(Same(Eval(K::kPow, {&two, &e}), U8({1}, {0})));  // 256 wraps to 0
}

TEST(RefBinaryTest, FlooredModIntegers) {
  Tensor a = I64({6}, {7, -7, 7, -7, 0, kMin64});
  Tensor b = I64({6}, {3, 3, -3, -3, 5, -1});
  EXPECT_TRUE(Same(Eval(K::kMod, {&a, &b}), I64({6}, {1, 2, -2, -1, 0, 0})));
  Tensor zero = I64({}, {0});
  EXPECT_TRUE(FailsWith(Eval(K::kMod, {&a, &zero}), "integer division by zero"));
}

TEST(RefBinaryTest, FlooredModFloats) {
  Tensor a = F64({6}, {5.5, -5.5, 5.5, 7, -7, 1});
  Tensor b = F64({6}, {2, 2, -2, 3, 3, 0});
  Result<Tensor> r = Eval(K::kMod, {&a, &b});
  ASSERT_TRUE(r.ok());
  std::span<const double> v = r->values<double>();
  EXPECT_EQ(v[0], 1.5);
  EXPECT_EQ(v[1], 0.5);
  EXPECT_EQ(v[2], -0.5);
  EXPECT_EQ(v[3], 1.0);
  EXPECT_EQ(v[4], 2.0);
  EXPECT_TRUE(std::isnan(v[5]));  // b = 0 gives NaN
}

TEST(RefBinaryTest, PowCornerCases) {
  // Corrected semantics (OPS.md §3.4): C pow, not exp(b·ln a).
  Tensor a = F32({7}, {-8, 0, -2, -2, 0, kNaN, 2});
  Tensor b = F32({7}, {1.0f / 3.0f, 0, 3, 2, -1, 0, 0.5f});
  Result<Tensor> r = Eval(K::kPow, {&a, &b});
  ASSERT_TRUE(r.ok());
  std::span<const float> v = r->values<float>();
  EXPECT_TRUE(std::isnan(v[0]));  // negative base, non-integral exponent
  EXPECT_EQ(v[1], 1.0f);          // 0**0
  EXPECT_EQ(v[2], -8.0f);
  EXPECT_EQ(v[3], 4.0f);
  EXPECT_EQ(v[4], kInf);  // 0**-1
  EXPECT_EQ(v[5], 1.0f);  // pow(x, 0) = 1 for every x
  EXPECT_FLOAT_EQ(v[6], std::sqrt(2.0f));
}

TEST(RefBinaryTest, IntegerPow) {
  Tensor a = I64({5}, {3, -2, 0, 2, 2});
  Tensor b = I64({5}, {4, 3, 0, 63, 64});
  EXPECT_TRUE(Same(Eval(K::kPow, {&a, &b}), I64({5}, {81, -8, 1, kMin64, 0})));  // wraps
  Tensor neg = I64({}, {-1});
  EXPECT_TRUE(FailsWith(Eval(K::kPow, {&a, &neg}), "negative integer exponent"));
}

TEST(RefCompareTest, ComparisonsAndNaN) {
  Tensor a = F32({4}, {1, 2, kNaN, 3});
  Tensor b = F32({4}, {1, 3, kNaN, 2});
  EXPECT_TRUE(Same(Eval(K::kEqual, {&a, &b}), Bool({4}, {true, false, false, false})));
  EXPECT_TRUE(Same(Eval(K::kNotEqual, {&a, &b}), Bool({4}, {false, true, true, true})));
  EXPECT_TRUE(Same(Eval(K::kLess, {&a, &b}), Bool({4}, {false, true, false, false})));
  EXPECT_TRUE(Same(Eval(K::kGreater, {&a, &b}), Bool({4}, {false, false, false, true})));
  EXPECT_TRUE(Same(Eval(K::kLessEqual, {&a, &b}), Bool({4}, {true, true, false, false})));
  EXPECT_TRUE(Same(Eval(K::kGreaterEqual, {&a, &b}), Bool({4}, {true, false, false, true})));
}

TEST(RefCompareTest, BroadcastIntAndBool) {
  Tensor a = I64({2, 1}, {1, 5});
  Tensor b = I64({3}, {0, 1, 9});
  EXPECT_TRUE(Same(Eval(K::kGreater, {&a, &b}), Bool({2, 3}, {true, false, false, true, true, false})));
  Tensor t = Bool({2}, {true, false});
  Tensor f = Bool({}, {false});
  EXPECT_TRUE(Same(Eval(K::kEqual, {&t, &f}), Bool({2}, {false, true})));
}

TEST(RefLogicalTest, AndOrNot) {
  Tensor a = F32({2, 2}, {0, 1, kNaN, -2});  // NaN counts as true
  Tensor b = F32({2}, {1, 0});
  EXPECT_TRUE(Same(Eval(K::kAnd, {&a, &b}), Bool({2, 2}, {false, false, true, false})));
  EXPECT_TRUE(Same(Eval(K::kOr, {&a, &b}), Bool({2, 2}, {true, true, true, true})));
  EXPECT_TRUE(Same(Eval(K::kNot, {&a}), Bool({2, 2}, {true, false, false, false})));
  Tensor i = I64({3}, {0, 3, -1});
  EXPECT_TRUE(Same(Eval(K::kNot, {&i}), Bool({3}, {true, false, false})));
  Tensor t = Bool({}, {true});
  EXPECT_TRUE(Same(Eval(K::kNot, {&t}), Bool({}, {false})));
  EXPECT_TRUE(FailsWith(Eval(K::kAnd, {&a, &i}), "dtype mismatch"));
}

TEST(RefWhereTest, BroadcastsAllThree) {
  Tensor c = Bool({2, 1}, {true, false});
  Tensor a = F32({3}, {1, 2, 3});
  Tensor b = F32({}, {-1});
  EXPECT_TRUE(Same(Eval(K::kWhere, {&c, &a, &b}), F32({2, 3}, {1, 2, 3, -1, -1, -1})));
  Tensor ci = I64({3}, {0, 2, 0});  // any dtype: non-zero selects a
  EXPECT_TRUE(Same(Eval(K::kWhere, {&ci, &a, &b}), F32({3}, {-1, 2, -1})));
  Tensor bi = I64({}, {0});
  EXPECT_TRUE(FailsWith(Eval(K::kWhere, {&c, &a, &bi}), "dtype mismatch: f32 and i64"));
}

ir::Attrs CastTo(const char* d) { return A({{"dtype", AttrValue::String(d)}}); }

TEST(RefCastTest, Conversions) {
  Tensor f = F32({5}, {-2.7f, 2.7f, 0.0f, kNaN, 1e3f});
  EXPECT_TRUE(Same(Eval(K::kCast, {&f}, CastTo("i64")), I64({5}, {-2, 2, 0, 0, 1000})));
  EXPECT_TRUE(Same(Eval(K::kCast, {&f}, CastTo("bool")), Bool({5}, {true, true, false, true, true})));
  Tensor i = I64({4}, {300, -1, 255, (int64_t{1} << 53) + 1});
  EXPECT_TRUE(Same(Eval(K::kCast, {&i}, CastTo("u8")), U8({4}, {44, 255, 255, 1})));
  Result<Tensor> to_f64 = Eval(K::kCast, {&i}, CastTo("f64"));
  ASSERT_TRUE(to_f64.ok());
  EXPECT_EQ(to_f64->values<double>()[3], 9007199254740992.0);  // rounds to nearest (even)
  Result<Tensor> to_i32 = Eval(K::kCast, {&i}, CastTo("i32"));
  ASSERT_TRUE(to_i32.ok());
  EXPECT_EQ(to_i32->dtype(), DType::kI32);
  EXPECT_EQ(to_i32->values<int64_t>()[0], 300);  // widths not enforced
  Tensor b = Bool({2}, {true, false});
  EXPECT_TRUE(Same(Eval(K::kCast, {&b}, CastTo("f32")), F32({2}, {1, 0})));
  Tensor d = F64({1}, {0.1});
  EXPECT_TRUE(Same(Eval(K::kCast, {&d}, CastTo("f32")), F32({1}, {0.1f})));
  Result<Tensor> half = Eval(K::kCast, {&d}, CastTo("f16"));
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->dtype(), DType::kF16);
  EXPECT_TRUE(FailsWith(Eval(K::kCast, {&d}, CastTo("complex64")), "not supported for execution"));
  EXPECT_TRUE(FailsWith(Eval(K::kCast, {&d}, CastTo("float")), "unknown dtype 'float'"));
  EXPECT_TRUE(FailsWith(Eval(K::kCast, {&d}), "missing required attribute 'dtype'"));
}

// A constant whose type shape inference never resolved adopts the other
// operand's dtype (OPS.md §1.3); a typed constant is used as typed.
TEST(RefConstantTest, WeakAndTypedConstants) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", ir::Type::Tensor({ir::Dim::Fixed(2)}, DType::kF64));
  ir::NodeId c = g.AddConstant("c", AttrValue::Int(3));
  ir::NodeId y = g.AddNode("y", K::kMul, {x, c});
  Tensor xv = F64({2}, {1.5, 2});
  EvalContext ctx;
  Result<Tensor> cv = EvalNode(g, g.node(c), {}, ctx);
  EXPECT_TRUE(Same(cv, I64({}, {3})));  // unadopted int literal: i64
  ASSERT_TRUE(cv.ok());
  std::vector<const Tensor*> ops = {&xv, &*cv};
  EXPECT_TRUE(Same(EvalNode(g, g.node(y), ops, ctx), F64({2}, {4.5, 6})));

  ir::NodeId half = g.AddConstant("h", AttrValue::Float(0.5));
  ir::NodeId i = g.AddInput("i", ir::Type::Tensor({ir::Dim::Fixed(1)}, DType::kI64));
  ir::NodeId z = g.AddNode("z", K::kAdd, {i, half});
  Tensor iv = I64({1}, {1});
  Result<Tensor> hv = EvalNode(g, g.node(half), {}, ctx);
  ASSERT_TRUE(hv.ok());
  std::vector<const Tensor*> ops2 = {&iv, &*hv};
  EXPECT_TRUE(FailsWith(EvalNode(g, g.node(z), ops2, ctx), "float literal 0.5 cannot be used with an integer operand"));

  g.node(c).type = ir::Type::Scalar(DType::kF32);
  EXPECT_TRUE(Same(EvalNode(g, g.node(c), {}, ctx), F32({}, {3})));
  ir::NodeId t = g.AddConstant("t", AttrValue::Bool(true));
  g.node(t).type = ir::Type::Scalar(DType::kF64);
  EXPECT_TRUE(Same(EvalNode(g, g.node(t), {}, ctx), F64({}, {1})));
  ctx.default_float_dtype = DType::kF64;
  EXPECT_TRUE(Same(EvalNode(g, g.node(half), {}, ctx), F64({}, {0.5})));
}

TEST(RefEvalTest, GenericChecks) {
  Tensor a = F32({1}, {1});
  // Wrong operand count.
  OneNode n(K::kAdd, {&a});
  EXPECT_TRUE(FailsWith(EvalNode(n.graph, n.n(), std::vector<const Tensor*>{&a}, {}), "add expects 2 operands, got 1"));
  // Inputs are bound, not evaluated.
  EXPECT_TRUE(FailsWith(EvalNode(n.graph, n.graph.node(0), {}, {}), "is an input"));
  // Custom ops have no kernel.
  OneNode c(K::kCustom, {&a});
  c.n().callee = "my_op";
  EXPECT_TRUE(FailsWith(EvalNode(c.graph, c.n(), std::vector<const Tensor*>{&a}, {}), "custom op 'my_op' has no kernel"));
  // Identity copies.
  EXPECT_TRUE(Same(Eval(K::kIdentity, {&a}), a));
}

}  // namespace
}  // namespace shrew::interp
