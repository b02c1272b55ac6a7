// Shape inference: elementwise ops, broadcasting, comparisons, logical ops,
// cast, where, weak constants.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "ir/shapes.h"
#include "ir_test_util.h"

namespace shrew::ir {
namespace {

using testing::A;
using testing::GraphFixture;
using testing::T;

// Infers `op(a, b)` for two inputs of the given types.
struct Binary : GraphFixture {
  NodeId n;
  Binary(OpKind op, std::string_view a, std::string_view b) {
    NodeId x = In("a", a);
    NodeId y = In("b", b);
    n = Op(op, {x, y}, "n");
    Infer();
  }
  std::string Type() const { return TypeOf(n); }
};

TEST(BroadcastTest, StaticTableOfOpsSection14) {
  Dim one = Dim::Fixed(1), three = Dim::Fixed(3), four = Dim::Fixed(4);
  Dim s = Dim::Symbolic("S"), t = Dim::Symbolic("T"), q = Dim::Dynamic();
  auto bc = [](const Dim& a, const Dim& b) {
    Dim out;
    if (!BroadcastDim(a, b, &out)) return std::string("error");
    return out.ToString();
  };
  // Row `1`.
  EXPECT_EQ(bc(one, one), "1");
  EXPECT_EQ(bc(one, four), "4");
  EXPECT_EQ(bc(one, t), "T");
  EXPECT_EQ(bc(one, q), "?");
  // Row fixed a != 1.
  EXPECT_EQ(bc(three, one), "3");
  EXPECT_EQ(bc(three, three), "3");
  EXPECT_EQ(bc(three, four), "error");
  EXPECT_EQ(bc(three, t), "3");
  EXPECT_EQ(bc(three, q), "3");
  // Row symbolic S.
  EXPECT_EQ(bc(s, one), "S");
  EXPECT_EQ(bc(s, four), "4");
  EXPECT_EQ(bc(s, s), "S");
  EXPECT_EQ(bc(s, t), "?");
  EXPECT_EQ(bc(s, q), "?");
  // Row `?`.
  EXPECT_EQ(bc(q, one), "?");
  EXPECT_EQ(bc(q, four), "4");
  EXPECT_EQ(bc(q, t), "?");
  EXPECT_EQ(bc(q, q), "?");
}

TEST(BroadcastTest, AlignsOnTheRight) {
  auto dims = BroadcastDims({Dim::Fixed(2), Dim::Fixed(1), Dim::Fixed(4)}, {Dim::Fixed(3), Dim::Fixed(1)});
  ASSERT_TRUE(dims.has_value());
  EXPECT_EQ(DimsToString(*dims), "[2, 3, 4]");
  EXPECT_EQ(DimsToString(*BroadcastDims({}, {Dim::Fixed(5)})), "[5]");
  EXPECT_FALSE(BroadcastDims({Dim::Fixed(2), Dim::Fixed(3)}, {Dim::Fixed(2)}).has_value());
}

TEST(ShapesElementwiseTest, UnaryKeepsType) {
  for (OpKind op : {OpKind::kRelu, OpKind::kGelu, OpKind::kSilu, OpKind::kSigmoid, OpKind::kTanh,
                    OpKind::kExp, OpKind::kLog, OpKind::kSqrt, OpKind::kNeg}) {
    GraphFixture f;
    NodeId n = f.Op(op, {f.In("x", "[Batch, 3] f64")});
    EXPECT_TRUE(f.Infer()) << OpName(op) << f.Messages();
    EXPECT_EQ(f.TypeOf(n), "Tensor<[Batch, 3], f64>") << OpName(op);
  }
}

TEST(ShapesElementwiseTest, UnaryOnRankZero) {
  GraphFixture f;
  NodeId n = f.Op(OpKind::kExp, {f.In("x", "[] f32")});
  EXPECT_TRUE(f.Infer());
  EXPECT_EQ(f.TypeOf(n), "Tensor<[], f32>");
}

TEST(ShapesElementwiseTest, T7FloatOnlyUnary) {
  GraphFixture f;
  NodeId n = f.Op(OpKind::kRelu, {f.In("x", "[2] i64")}, "r");
  EXPECT_FALSE(f.Infer());
  ASSERT_EQ(f.OnlyError(), "E106");
  EXPECT_EQ(f.diags.all()[0].message, "[G::r] relu requires a float operand, got i64");
  EXPECT_EQ(f.diags.all()[0].span.line, f.g.node(n).span.line);
}

TEST(ShapesElementwiseTest, NegAcceptsSignedIntegersOnly) {
  GraphFixture ok;
  ok.Op(OpKind::kNeg, {ok.In("x", "[2] i32")});
  EXPECT_TRUE(ok.Infer());
  GraphFixture bad;
  bad.Op(OpKind::kNeg, {bad.In("x", "[2] u8")}, "n");
  EXPECT_FALSE(bad.Infer());
  EXPECT_EQ(bad.OnlyError(), "E106");
  EXPECT_EQ(bad.diags.all()[0].message, "[G::n] neg requires a float or signed integer operand, got u8");
}

TEST(ShapesElementwiseTest, ArithmeticBroadcasts) {
  EXPECT_EQ(Binary(OpKind::kAdd, "[2, 4] f32", "[4] f32").Type(), "Tensor<[2, 4], f32>");
  EXPECT_EQ(Binary(OpKind::kSub, "[Batch, 1] f32", "[1, 8] f32").Type(), "Tensor<[Batch, 8], f32>");
  EXPECT_EQ(Binary(OpKind::kMul, "[Batch, 8] f32", "[N, 8] f32").Type(), "Tensor<[?, 8], f32>");
  EXPECT_EQ(Binary(OpKind::kDiv, "[Batch, 8] f32", "[3, 8] f32").Type(), "Tensor<[3, 8], f32>");
  EXPECT_EQ(Binary(OpKind::kMod, "[] i64", "[5] i64").Type(), "Tensor<[5], i64>");
  EXPECT_EQ(Binary(OpKind::kPow, "[?, 2] f32", "[2] f32").Type(), "Tensor<[?, 2], f32>");
  EXPECT_EQ(Binary(OpKind::kAdd, "[1] f32", "[1] f32").Type(), "Tensor<[1], f32>");
}

TEST(ShapesElementwiseTest, T3BroadcastMismatch) {
  Binary b(OpKind::kAdd, "[2, 3] f32", "[4] f32");
  EXPECT_EQ(b.OnlyError(), "E102");
  EXPECT_EQ(b.diags.all()[0].message, "[G::n] shapes [2, 3] and [4] cannot be broadcast");
  EXPECT_EQ(b.diags.all()[0].span.line, b.g.node(b.n).span.line);
  EXPECT_EQ(b.Type(), "?");
}

TEST(ShapesElementwiseTest, T1DtypeMismatch) {
  Binary b(OpKind::kMul, "[2] f32", "[2] f64");
  EXPECT_EQ(b.OnlyError(), "E100");
  EXPECT_EQ(b.diags.all()[0].message, "[G::n] dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")");
}

TEST(ShapesElementwiseTest, T7ArithmeticOnBool) {
  Binary b(OpKind::kAdd, "[2] bool", "[2] bool");
  EXPECT_EQ(b.OnlyError(), "E106");
  EXPECT_EQ(b.diags.all()[0].message, "[G::n] add requires a numeric operand, got bool");
}

TEST(ShapesElementwiseTest, UnknownOperandGivesUnknownWithoutErrors) {
  Binary b(OpKind::kAdd, "?", "[2] f32");
  EXPECT_EQ(b.Type(), "?");
  EXPECT_TRUE(b.diags.all().empty());
}

TEST(ShapesElementwiseTest, ComparisonsGiveBool) {
  for (OpKind op : {OpKind::kEqual, OpKind::kNotEqual, OpKind::kLess, OpKind::kGreater,
                    OpKind::kLessEqual, OpKind::kGreaterEqual}) {
    Binary b(op, "[Time, 6] f32", "[6] f32");
    EXPECT_EQ(b.Type(), "Tensor<[Time, 6], bool>") << OpName(op);
    EXPECT_TRUE(b.diags.all().empty());
  }
  EXPECT_EQ(Binary(OpKind::kEqual, "[2] bool", "[2] bool").Type(), "Tensor<[2], bool>");
  EXPECT_EQ(Binary(OpKind::kLess, "[2] i64", "[2] f32").OnlyError(), "E100");
}

TEST(ShapesElementwiseTest, LogicalOps) {
  EXPECT_EQ(Binary(OpKind::kAnd, "[Time, 6] bool", "[6] bool").Type(), "Tensor<[Time, 6], bool>");
  EXPECT_EQ(Binary(OpKind::kOr, "[3] f32", "[3] f32").Type(), "Tensor<[3], bool>");
  EXPECT_EQ(Binary(OpKind::kOr, "[3] bool", "[3] f32").OnlyError(), "E100");
  GraphFixture f;
  NodeId n = f.Op(OpKind::kNot, {f.In("x", "[Time, 6] f32")});
  EXPECT_TRUE(f.Infer());
  EXPECT_EQ(f.TypeOf(n), "Tensor<[Time, 6], bool>");
}

TEST(ShapesElementwiseTest, Cast) {
  GraphFixture f;
  NodeId n = f.Op(OpKind::kCast, {f.In("x", "[Time, 6] bool")}, "c",
                  A({{"dtype", AttrValue::String("f32")}}));
  EXPECT_TRUE(f.Infer());
  EXPECT_EQ(f.TypeOf(n), "Tensor<[Time, 6], f32>");
  GraphFixture bad;
  bad.Op(OpKind::kCast, {bad.In("x", "[2] f32")}, "c", A({{"dtype", AttrValue::String("float")}}));
  EXPECT_FALSE(bad.Infer());
  EXPECT_EQ(bad.OnlyError(), "E046");
  GraphFixture missing;
  missing.Op(OpKind::kCast, {missing.In("x", "[2] f32")}, "c");
  EXPECT_FALSE(missing.Infer());
  EXPECT_EQ(missing.OnlyError(), "E048");
}

TEST(ShapesElementwiseTest, WhereBroadcastsAllThree) {
  GraphFixture f;
  NodeId c = f.In("c", "[Time, 1] bool");
  NodeId a = f.In("a", "[6] f32");
  NodeId b = f.In("b", "[] f32");
  NodeId n = f.Op(OpKind::kWhere, {c, a, b});
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(n), "Tensor<[Time, 6], f32>");
}

TEST(ShapesElementwiseTest, WhereBranchesMustShareDtype) {
  GraphFixture f;
  f.Op(OpKind::kWhere, {f.In("c", "[2] bool"), f.In("a", "[2] f32"), f.In("b", "[2] i64")});
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.OnlyError(), "E100");
}

// A condition of unknown type (`input c: ?`) leaves the result unknown, but
// the branches' dtype and shape conflicts are static errors at the where node
// all the same (OPS.md §1.3, §1.4); they used to surface only at run time.
struct WhereCase : GraphFixture {
  NodeId n;
  WhereCase(std::string_view c, std::string_view a, std::string_view b) {
    NodeId nc = In("c", c);
    NodeId na = In("a", a);
    NodeId nb = In("b", b);
    n = Op(OpKind::kWhere, {nc, na, nb}, "w");
    Infer();
  }
  // The only error's code, checked to point at the where node.
  std::string ErrorAtWhere() const {
    std::string code = OnlyError();
    if (code.size() == 4) {
      EXPECT_EQ(diags.all()[0].span.line, g.node(n).span.line);
      EXPECT_EQ(diags.all()[0].span.line, 4u);  // inputs c, a, b are lines 1-3
      EXPECT_EQ(diags.all()[0].span.column, 3u);
    }
    return code;
  }
  std::string Msg() const { return diags.all().empty() ? "" : diags.all()[0].message; }
};

TEST(ShapesElementwiseTest, WhereWithUnknownConditionChecksBranchDtypes) {
  WhereCase w("?", "[?] f32", "[?] f64");
  EXPECT_EQ(w.ErrorAtWhere(), "E100");
  EXPECT_EQ(w.Msg(), "[G::w] dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")");
  // The same message as with a known condition.
  WhereCase known("[?] bool", "[?] f32", "[?] f64");
  EXPECT_EQ(known.ErrorAtWhere(), "E100");
  EXPECT_EQ(known.Msg(), w.Msg());
}

TEST(ShapesElementwiseTest, WhereWithUnknownConditionChecksBranchShapes) {
  WhereCase fixed("?", "[2] f32", "[3] f32");
  EXPECT_EQ(fixed.ErrorAtWhere(), "E102");
  EXPECT_EQ(fixed.Msg(), "[G::w] shapes [2] and [3] cannot be broadcast");
  // Only some dims known: the fixed ones that meet still conflict.
  WhereCase partial("?", "[?, 4] f32", "[B, 3] f32");
  EXPECT_EQ(partial.ErrorAtWhere(), "E102");
  EXPECT_EQ(partial.Msg(), "[G::w] shapes [?, 4] and [B, 3] cannot be broadcast");
  WhereCase ranks("?", "[5, ?] f32", "[2, 3, ?] f32");
  EXPECT_EQ(ranks.ErrorAtWhere(), "E102");
}

TEST(ShapesElementwiseTest, WhereWithOneUnknownBranchChecksTheConditionAgainstTheOther) {
  // c and b cannot broadcast whatever a is.
  WhereCase b_known("[2] bool", "?", "[3] f32");
  EXPECT_EQ(b_known.ErrorAtWhere(), "E102");
  EXPECT_EQ(b_known.Msg(), "[G::w] shapes [2] and [3] cannot be broadcast");
  WhereCase a_known("[4, 2] bool", "[3, 1] f32", "?");
  EXPECT_EQ(a_known.ErrorAtWhere(), "E102");
}

TEST(ShapesElementwiseTest, WhereWithUnknownOperandsStillAcceptsValidGraphs) {
  for (auto [c, a, b] : std::vector<std::array<const char*, 3>>{
           {"?", "[?] f32", "[?] f32"},
           {"?", "[2, 1] f32", "[3] f32"},
           {"?", "[B, 3] f32", "[?, 1] f32"},
           {"?", "[2] f32", "?"},
           {"[2] bool", "?", "[1] f32"},
           {"[B] bool", "[5, 1] i64", "?"},
           {"?", "?", "?"}}) {
    WhereCase w(c, a, b);
    EXPECT_EQ(w.OnlyError(), "") << c << " " << a << " " << b << ": " << w.Messages();
    EXPECT_EQ(w.TypeOf(w.n), "?");
  }
  // A weak literal branch adopts the other branch's dtype, condition unknown or not.
  GraphFixture f;
  NodeId c = f.In("c", "?");
  NodeId x = f.In("x", "[3] i64");
  NodeId zero = f.Const(AttrValue::Int(0));
  f.Op(OpKind::kWhere, {c, x, zero});
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(zero), "Tensor<[], i64>");
}

// ---- weak constants (OPS.md §1.3)

TEST(WeakConstantTest, IntLiteralAdoptsFloatOperand) {
  // The §2.4 example: c = x * 2 with x f32.
  GraphFixture f;
  NodeId x = f.In("x", "[2, 3] f32");
  NodeId two = f.Const(AttrValue::Int(2));
  NodeId c = f.Op(OpKind::kMul, {x, two}, "c");
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(two), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(c), "Tensor<[2, 3], f32>");
}

TEST(WeakConstantTest, WeakOnTheLeftAdoptsToo) {
  GraphFixture f;
  NodeId half = f.Const(AttrValue::Float(0.5));
  NodeId x = f.In("x", "[4] f64");
  NodeId n = f.Op(OpKind::kSub, {half, x});
  EXPECT_TRUE(f.Infer());
  EXPECT_EQ(f.TypeOf(half), "Tensor<[], f64>");
  EXPECT_EQ(f.TypeOf(n), "Tensor<[4], f64>");
}

TEST(WeakConstantTest, WeakSubExpressionAdoptsTogether) {
  // x * (3 * 4) with x f32: the whole weak tree becomes f32.
  GraphFixture f;
  NodeId x = f.In("x", "[2] f32");
  NodeId three = f.Const(AttrValue::Int(3));
  NodeId four = f.Const(AttrValue::Int(4));
  NodeId prod = f.Op(OpKind::kMul, {three, four});
  NodeId c = f.Op(OpKind::kMul, {x, prod}, "c");
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(three), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(four), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(prod), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(c), "Tensor<[2], f32>");
}

TEST(WeakConstantTest, MixedWeakTreeAdoptsIntegerWhenIntegral) {
  // (1 + 2.0) + x with x i64: 2.0 is integral, so it may become i64.
  GraphFixture f;
  NodeId one = f.Const(AttrValue::Int(1));
  NodeId two = f.Const(AttrValue::Float(2.0));
  NodeId sum = f.Op(OpKind::kAdd, {one, two});
  NodeId x = f.In("x", "[3] i64");
  NodeId n = f.Op(OpKind::kAdd, {sum, x});
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(two), "Tensor<[], i64>");
  EXPECT_EQ(f.TypeOf(n), "Tensor<[3], i64>");
}

TEST(WeakConstantTest, NonIntegralFloatIntoIntegerIsAnError) {
  GraphFixture f;
  NodeId x = f.In("x", "[3] i32");
  NodeId lit = f.Const(AttrValue::Float(2.5), "lit");
  f.Op(OpKind::kAdd, {x, lit});
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.OnlyError(), "E100");
  EXPECT_EQ(f.diags.all()[0].message,
            "[G::lit] float literal 2.5 cannot be used with an integer operand");
  EXPECT_EQ(f.diags.all()[0].span.line, f.g.node(lit).span.line);
}

TEST(WeakConstantTest, UnadoptedLiteralsGetDefaults) {
  GraphFixture f;
  NodeId i = f.Const(AttrValue::Int(7));
  NodeId fl = f.Const(AttrValue::Float(0.5));
  NodeId b = f.Const(AttrValue::Bool(true));
  NodeId mixed = f.Op(OpKind::kAdd, {f.Const(AttrValue::Int(1)), f.Const(AttrValue::Float(1.5))});
  f.Out(i);
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(i), "Tensor<[], i64>");
  EXPECT_EQ(f.TypeOf(fl), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(b), "Tensor<[], bool>");
  EXPECT_EQ(f.TypeOf(mixed), "Tensor<[], f32>");
  InferOptions f64;
  f64.default_float = DType::kF64;
  GraphFixture g;
  NodeId c = g.Const(AttrValue::Float(0.5));
  EXPECT_TRUE(g.Infer(f64));
  EXPECT_EQ(g.TypeOf(c), "Tensor<[], f64>");
}

TEST(WeakConstantTest, ComparisonAndWhereAdopt) {
  GraphFixture f;
  NodeId x = f.In("readings", "[Time, 6] f32");
  NodeId low = f.Const(AttrValue::Float(-1.5));
  NodeId ge = f.Op(OpKind::kGreaterEqual, {x, low});
  NodeId zero = f.Const(AttrValue::Float(0.0));
  NodeId kept = f.Op(OpKind::kWhere, {ge, x, zero});
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(low), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(ge), "Tensor<[Time, 6], bool>");
  EXPECT_EQ(f.TypeOf(zero), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(kept), "Tensor<[Time, 6], f32>");
}

TEST(WeakConstantTest, BoolOperandAdoptsIntoLogical) {
  GraphFixture f;
  NodeId m = f.In("m", "[4] bool");
  NodeId t = f.Const(AttrValue::Int(1));
  NodeId n = f.Op(OpKind::kAnd, {m, t});
  EXPECT_TRUE(f.Infer());
  EXPECT_EQ(f.TypeOf(t), "Tensor<[], bool>");
  EXPECT_EQ(f.TypeOf(n), "Tensor<[4], bool>");
}

TEST(WeakConstantTest, NegAndIdentityOfWeakStayWeak) {
  GraphFixture f;
  NodeId two = f.Const(AttrValue::Int(2));
  NodeId neg = f.Op(OpKind::kNeg, {two});
  NodeId alias = f.Op(OpKind::kIdentity, {neg});
  NodeId x = f.In("x", "[2] f64");
  NodeId n = f.Op(OpKind::kMul, {x, alias});
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(two), "Tensor<[], f64>");
  EXPECT_EQ(f.TypeOf(neg), "Tensor<[], f64>");
  EXPECT_EQ(f.TypeOf(alias), "Tensor<[], f64>");
  EXPECT_EQ(f.TypeOf(n), "Tensor<[2], f64>");
}

TEST(WeakConstantTest, UnaryFunctionsOfWeakStayWeak) {
  // x * sqrt(2.0) with x f64: sqrt computes in f64 (it was "dtype mismatch: f64 and f32").
  GraphFixture f;
  NodeId two = f.Const(AttrValue::Float(2.0));
  NodeId root = f.Op(OpKind::kSqrt, {two});
  NodeId act = f.Op(OpKind::kRelu, {root});
  NodeId x = f.In("x", "[2] f64");
  NodeId n = f.Op(OpKind::kMul, {x, act});
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(two), "Tensor<[], f64>");
  EXPECT_EQ(f.TypeOf(root), "Tensor<[], f64>");
  EXPECT_EQ(f.TypeOf(act), "Tensor<[], f64>");
  EXPECT_EQ(f.TypeOf(n), "Tensor<[2], f64>");
}

TEST(WeakConstantTest, FloatOnlyFunctionOfWeakIntIsFloat) {
  // exp(1) alone computes in the default float dtype; beside an f64 it adopts f64.
  GraphFixture f;
  NodeId one = f.Const(AttrValue::Int(1));
  NodeId e = f.Op(OpKind::kExp, {one});
  f.Out(e);
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(one), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(e), "Tensor<[], f32>");
  GraphFixture g;
  NodeId x = g.In("x", "[3] f64");
  NodeId one64 = g.Const(AttrValue::Int(1));
  NodeId tanh = g.Op(OpKind::kTanh, {g.Op(OpKind::kAdd, {one64, g.Const(AttrValue::Int(2))})});
  NodeId sum = g.Op(OpKind::kAdd, {tanh, x});
  EXPECT_TRUE(g.Infer()) << g.Messages();
  EXPECT_EQ(g.TypeOf(one64), "Tensor<[], f64>");
  EXPECT_EQ(g.TypeOf(tanh), "Tensor<[], f64>");
  EXPECT_EQ(g.TypeOf(sum), "Tensor<[3], f64>");
  // Beside an integer operand the function is reported where it is: exp needs a float.
  GraphFixture h;
  NodeId y = h.In("y", "[3] i64");
  NodeId ex = h.Op(OpKind::kExp, {h.Const(AttrValue::Int(1))}, "ex");
  h.Op(OpKind::kAdd, {y, ex});
  EXPECT_FALSE(h.Infer());
  EXPECT_EQ(h.OnlyError(), "E106");
  EXPECT_EQ(h.diags.all()[0].message, "[G::ex] exp requires a float operand, got i64");
}

TEST(WeakConstantTest, ARepeatOfAFloatOnlyFunctionOfAWeakIntIsFloat) {
  // repeat(1) { exp(1) }: the body decides, as for exp(1) itself (it was exp on i64).
  GraphFixture f;
  NodeId one = f.Const(AttrValue::Int(1));
  NodeId rep = f.Op(OpKind::kRepeat, {one}, "r", A({{"count", AttrValue::Int(1)}}));
  f.g.node(rep).repeat_body = RepeatBody{OpKind::kExp, A({}), ""};
  f.Out(rep);
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(rep), "Tensor<[], f32>");
}

TEST(WeakConstantTest, NegOfAWeakBoolIsANumber) {
  // x * -true with x f64: the weak -true adopts f64 as 0 - true does (neg of bool was E106).
  GraphFixture f;
  NodeId t = f.Const(AttrValue::Bool(true));
  NodeId neg = f.Op(OpKind::kNeg, {t});
  NodeId x = f.In("x", "[2] f64");
  NodeId n = f.Op(OpKind::kMul, {x, neg});
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(neg), "Tensor<[], f64>");
  EXPECT_EQ(f.TypeOf(n), "Tensor<[2], f64>");
  GraphFixture g;  // alone: an integer, -1
  NodeId alone = g.Op(OpKind::kNeg, {g.Const(AttrValue::Bool(true))});
  g.Out(alone);
  EXPECT_TRUE(g.Infer()) << g.Messages();
  EXPECT_EQ(g.TypeOf(alone), "Tensor<[], i64>");
}

TEST(WeakConstantTest, NonAdoptingConsumerFinalisesDefault) {
  // matmul does not adopt: the literal becomes i64 and mismatches f32.
  GraphFixture f;
  NodeId x = f.In("x", "[2] f32");
  NodeId two = f.Const(AttrValue::Int(2));
  f.Op(OpKind::kMatmul, {x, two}, "m");
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.TypeOf(two), "Tensor<[], i64>");
  ASSERT_FALSE(f.diags.all().empty());
  EXPECT_EQ(f.diags.all()[0].message, "[G::m] dtype mismatch: f32 and i64; convert one with cast(..., dtype: \"f32\")");
}

TEST(WeakConstantTest, FirstAdopterWins) {
  GraphFixture f;
  NodeId c = f.Const(AttrValue::Int(1), "c");
  NodeId x = f.In("x", "[2] f32");
  NodeId y = f.In("y", "[2] i64");
  f.Op(OpKind::kAdd, {x, c});
  f.Op(OpKind::kAdd, {y, c}, "second");
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.TypeOf(c), "Tensor<[], f32>");
  EXPECT_EQ(f.OnlyError(), "E100");
  EXPECT_EQ(f.diags.all()[0].message, "[G::second] dtype mismatch: i64 and f32; convert one with cast(..., dtype: \"f32\")");
}

TEST(WeakConstantTest, DeclaredTypeAdoptsWeakNode) {
  GraphFixture f;
  NodeId c = f.Const(AttrValue::Int(3), "c");
  f.g.node(c).declared_type = T("[] f64");
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(c), "Tensor<[], f64>");
}

TEST(WeakConstantTest, ResolvedConstantIsNotReadopted) {
  // After a first inference (or folding), a typed constant keeps its dtype.
  GraphFixture f;
  NodeId c = f.Const(AttrValue::Int(3), "c");
  f.g.node(c).type = T("[] i64");
  NodeId x = f.In("x", "[2] f32");
  f.Op(OpKind::kAdd, {x, c}, "n");
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.OnlyError(), "E100");
}

TEST(WeakConstantTest, FusedOpsAdoptLikeTheAddOrSubTheyContain) {
  // OPS.md §3.18: `fused_add_relu(x, 1)` is `relu(x + 1)`, so the literal
  // takes x's dtype (it stayed i64: "dtype mismatch: f32 and i64; convert one with cast(..., dtype: \"f32\")"; after
  // fusion in a graph with `input x: ?`, every run failed that way).
  GraphFixture f;
  NodeId x = f.In("x", "[2, 4] f32");
  NodeId w = f.In("w", "[4, 3] f32");
  NodeId one = f.Const(AttrValue::Int(1));
  NodeId two = f.Const(AttrValue::Float(2.5));
  NodeId half = f.Const(AttrValue::Float(0.5));
  NodeId a = f.Op(OpKind::kFusedAddRelu, {x, one});
  NodeId b = f.Op(OpKind::kFusedSubRelu, {two, x});
  NodeId m = f.Op(OpKind::kFusedMatmulAdd, {x, w, half});
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(one), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(two), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(half), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(a), "Tensor<[2, 4], f32>");
  EXPECT_EQ(f.TypeOf(b), "Tensor<[2, 4], f32>");
  EXPECT_EQ(f.TypeOf(m), "Tensor<[2, 3], f32>");
}

TEST(ShapesElementwiseTest, FusedAddSubRelu) {
  EXPECT_EQ(Binary(OpKind::kFusedAddRelu, "[Rows, 8] f32", "[8] f32").Type(), "Tensor<[Rows, 8], f32>");
  EXPECT_EQ(Binary(OpKind::kFusedSubRelu, "[2, 8] f32", "[2, 1] f32").Type(), "Tensor<[2, 8], f32>");
  EXPECT_EQ(Binary(OpKind::kFusedAddRelu, "[2] i64", "[2] i64").OnlyError(), "E106");
  // One error for bool operands (the add's "requires a numeric operand" came too).
  EXPECT_EQ(Binary(OpKind::kFusedAddRelu, "[2] bool", "[2] bool").OnlyError(), "E106");
}

}  // namespace
}  // namespace shrew::ir
