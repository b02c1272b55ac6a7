#include "opt/const_fold.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "diag/diagnostic.h"
#include "ir/shapes.h"
#include "opt_test_util.h"

namespace shrew::opt {
namespace {

using ir::AttrValue;
using ir::DType;
using ir::OpKind;
using testing::ExpectInvariants;
using testing::F32;
using testing::Render;

// `out = x * (a OP b)` with x: [2] of `dtype`. The constants and the inner
// node get `dtype` as a resolved rank-0 type when `resolved` (as shape
// inference leaves them), otherwise they stay weak.
struct Folded {
  ir::Graph graph{"G"};
  ir::NodeId inner = ir::kNoNode;
};

Folded Scaled(OpKind op, AttrValue a, AttrValue b, std::optional<DType> resolved) {
  Folded f;
  ir::Graph& g = f.graph;
  DType x_dtype = resolved.value_or(DType::kF32);
  ir::NodeId x = g.AddInput("x", ir::Type::Tensor({ir::Dim::Fixed(2)}, x_dtype));
  ir::NodeId ca = g.AddConstant("", a);
  ir::NodeId cb = g.AddConstant("", b);
  f.inner = g.AddNode("", op, {ca, cb});
  if (resolved) {
    for (ir::NodeId id : {ca, cb, f.inner}) g.node(id).type = ir::Type::Scalar(*resolved);
  }
  g.AddOutput("out", g.AddNode("out", OpKind::kMul, {x, f.inner}));
  return f;
}

// Folds and returns the folded constant's value (nullopt if not folded).
std::optional<AttrValue> FoldValue(OpKind op, AttrValue a, AttrValue b,
                                   std::optional<DType> resolved) {
  Folded f = Scaled(op, a, b, resolved);
  int n = RunConstFold(f.graph);
  ExpectInvariants(f.graph);
  if (n == 0) {
    EXPECT_EQ(f.graph.num_nodes(), 5);
    return std::nullopt;
  }
  EXPECT_EQ(n, 1);
  EXPECT_EQ(f.graph.num_nodes(), 3);
  const ir::Node& c = f.graph.node(1);
  EXPECT_EQ(c.op, OpKind::kConstant);
  EXPECT_TRUE(c.operands.empty());
  EXPECT_EQ(c.attrs.size(), 1u);
  return *c.attr("value");
}

TEST(ConstFoldTest, SpecExample) {
  // node c { op: x * (3 * 4); };  x: Tensor<[2], f32>, after shape inference.
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId three = g.AddConstant("", AttrValue::Int(3));
  ir::NodeId four = g.AddConstant("", AttrValue::Int(4));
  ir::NodeId prod = g.AddNode("", OpKind::kMul, {three, four});
  g.AddOutput("c", g.AddNode("c", OpKind::kMul, {x, prod}));
  diag::DiagnosticBag diags;
  ASSERT_TRUE(ir::InferGraphTypes(&g, nullptr, &diags));

  EXPECT_EQ(RunConstFold(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 __anon_3 = constant[12:f32]\n"
            "%2 c = mul(%0, %1)\n"
            "outputs: c=%2\n");
  EXPECT_EQ(g.node(1).type, ir::Type::Scalar(DType::kF32));
  EXPECT_EQ(RunConstFold(g), 0);
  ExpectInvariants(g);
}

TEST(ConstFoldTest, FloatDtypeComputesInTheNodeDtype) {
  EXPECT_EQ(FoldValue(OpKind::kDiv, AttrValue::Int(1), AttrValue::Int(2), DType::kF32),
            AttrValue::Float(0.5));
  EXPECT_EQ(FoldValue(OpKind::kAdd, AttrValue::Float(0.5), AttrValue::Float(4.0), DType::kF64),
            AttrValue::Float(4.5));
  // Each operand is rounded to f32 and the product computed in f32, as the
  // unfolded graph computes it (PIPELINE.md §6.4 said double, which changed
  // values: see the next three).
  EXPECT_EQ(FoldValue(OpKind::kMul, AttrValue::Float(0.1), AttrValue::Int(3), DType::kF32),
            AttrValue::Float(static_cast<double>(0.1f * 3.0f)));
  EXPECT_EQ(FoldValue(OpKind::kMul, AttrValue::Float(0.1), AttrValue::Int(3), DType::kF64),
            AttrValue::Float(0.1 * 3.0));
  // 1e-50 is 0 in f32 and 1e50 is inf: 0 * inf is NaN (double gave 1).
  std::optional<AttrValue> nan = FoldValue(OpKind::kMul, AttrValue::Float(1e-50), AttrValue::Float(1e50), DType::kF32);
  ASSERT_TRUE(nan.has_value());
  EXPECT_TRUE(std::isnan(nan->as_float()));
  // 16777217 is 16777216 in f32 (double gave 16777216 for the difference).
  EXPECT_EQ(FoldValue(OpKind::kSub, AttrValue::Int(16777217), AttrValue::Int(1), DType::kF32),
            AttrValue::Float(16777215.0));
  // 1e30 * 1e30 overflows f32.
  EXPECT_EQ(FoldValue(OpKind::kMul, AttrValue::Float(1e30), AttrValue::Float(1e30), DType::kF32),
            AttrValue::Float(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(FoldValue(OpKind::kSub, AttrValue::Bool(true), AttrValue::Float(0.25), DType::kF32),
            AttrValue::Float(0.75));
  // IEEE: division by zero folds to inf.
  EXPECT_EQ(FoldValue(OpKind::kDiv, AttrValue::Float(1.0), AttrValue::Float(0.0), DType::kF32),
            AttrValue::Float(std::numeric_limits<double>::infinity()));
}

TEST(ConstFoldTest, IntegerDtypeUsesWrappingInt64) {
  EXPECT_EQ(FoldValue(OpKind::kDiv, AttrValue::Int(7), AttrValue::Int(2), DType::kI32),
            AttrValue::Int(3));
  EXPECT_EQ(FoldValue(OpKind::kDiv, AttrValue::Int(-7), AttrValue::Int(2), DType::kI64),
            AttrValue::Int(-3));
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(FoldValue(OpKind::kAdd, AttrValue::Int(kMax), AttrValue::Int(1), DType::kI64),
            AttrValue::Int(kMin));
  EXPECT_EQ(FoldValue(OpKind::kDiv, AttrValue::Int(kMin), AttrValue::Int(-1), DType::kI64),
            AttrValue::Int(kMin));
  // An integral float literal adopted into an integer dtype.
  EXPECT_EQ(FoldValue(OpKind::kMul, AttrValue::Float(2.0), AttrValue::Int(5), DType::kI16),
            AttrValue::Int(10));
}

TEST(ConstFoldTest, IntegerDivisionByZeroIsLeftForRunTime) {
  EXPECT_EQ(FoldValue(OpKind::kDiv, AttrValue::Int(1), AttrValue::Int(0), DType::kI64),
            std::nullopt);
  EXPECT_EQ(FoldValue(OpKind::kDiv, AttrValue::Int(1), AttrValue::Int(0), std::nullopt),
            std::nullopt);
}

TEST(ConstFoldTest, WeakConstantsFollowTheLiteralKinds) {
  // Unresolved: int op int stays integer (1 / 2 = 0), any float -> double.
  EXPECT_EQ(FoldValue(OpKind::kDiv, AttrValue::Int(1), AttrValue::Int(2), std::nullopt),
            AttrValue::Int(0));
  EXPECT_EQ(FoldValue(OpKind::kDiv, AttrValue::Int(1), AttrValue::Float(2.0), std::nullopt),
            AttrValue::Float(0.5));
  EXPECT_EQ(FoldValue(OpKind::kAdd, AttrValue::Float(0.5), AttrValue::Float(4.0), std::nullopt),
            AttrValue::Float(4.5));
  // Bool literals are not arithmetic operands while weak.
  EXPECT_EQ(FoldValue(OpKind::kAdd, AttrValue::Bool(true), AttrValue::Int(1), std::nullopt),
            std::nullopt);
}

TEST(ConstFoldTest, WeakFoldedConstantStaysWeak) {
  Folded f = Scaled(OpKind::kMul, AttrValue::Int(3), AttrValue::Int(4), std::nullopt);
  EXPECT_EQ(RunConstFold(f.graph), 1);
  EXPECT_TRUE(f.graph.node(1).type.is_unknown());
  EXPECT_EQ(Render(f.graph),
            "%0 x = input\n"
            "%1 __anon_3 = constant[12]\n"
            "%2 out = mul(%0, %1)\n"
            "outputs: out=%2\n");
}

TEST(ConstFoldTest, LiteralsOfAGraphWithUntypedInputsAreNotFolded) {
  // `x * (1 / 2)` with `input x: ?`: the literals fell back to i64 (nothing
  // typed met them), but each run re-infers them with x's dtype, so with an
  // f32 x the quotient is 0.5; folding now would fix it at the i64 0.
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", ir::Type::Unknown());
  ir::NodeId one = g.AddConstant("", AttrValue::Int(1));
  ir::NodeId two = g.AddConstant("", AttrValue::Int(2));
  ir::NodeId half = g.AddNode("", OpKind::kDiv, {one, two});
  for (ir::NodeId id : {one, two, half}) g.node(id).type = ir::Type::Scalar(DType::kI64);
  g.AddOutput("out", g.AddNode("out", OpKind::kMul, {x, half}));
  EXPECT_EQ(RunConstFold(g), 0);
  EXPECT_EQ(g.num_nodes(), 5);

  // A constant with a declared type keeps it in every run: that one folds.
  ir::Graph h("H");
  ir::NodeId y = h.AddInput("y", ir::Type::Unknown());
  ir::NodeId a = h.AddConstant("a", AttrValue::Int(7));
  ir::NodeId b = h.AddConstant("b", AttrValue::Int(2));
  for (ir::NodeId id : {a, b}) h.node(id).declared_type = h.node(id).type = ir::Type::Scalar(DType::kI64);
  ir::NodeId q = h.AddNode("q", OpKind::kDiv, {a, b});
  h.node(q).type = ir::Type::Scalar(DType::kI64);
  h.AddOutput("out", h.AddNode("out", OpKind::kAdd, {y, q}));
  EXPECT_EQ(RunConstFold(h), 1);
  EXPECT_EQ(*h.node(h.FindNode("q")).attr("value"), AttrValue::Int(3));
}

TEST(ConstFoldTest, U8FoldsWrapAsARunDoes) {
  EXPECT_EQ(FoldValue(OpKind::kAdd, AttrValue::Int(200), AttrValue::Int(55), DType::kU8),
            AttrValue::Int(255));
  // u8 arithmetic wraps modulo 256 at run time, and so does the fold.
  EXPECT_EQ(FoldValue(OpKind::kAdd, AttrValue::Int(200), AttrValue::Int(100), DType::kU8),
            AttrValue::Int(44));
  EXPECT_EQ(FoldValue(OpKind::kSub, AttrValue::Int(3), AttrValue::Int(5), DType::kU8),
            AttrValue::Int(254));
}

TEST(ConstFoldTest, BoolAndComplexDtypesAreNotFolded) {
  EXPECT_EQ(FoldValue(OpKind::kAdd, AttrValue::Bool(true), AttrValue::Bool(true), DType::kBool),
            std::nullopt);
  EXPECT_EQ(FoldValue(OpKind::kAdd, AttrValue::Int(1), AttrValue::Int(1), DType::kComplex64),
            std::nullopt);
  // A float literal that is not integral cannot be an integer.
  EXPECT_EQ(FoldValue(OpKind::kAdd, AttrValue::Float(0.5), AttrValue::Int(1), DType::kI32),
            std::nullopt);
}

TEST(ConstFoldTest, OnlyAddSubMulDivAreFolded) {
  for (OpKind op : {OpKind::kMod, OpKind::kPow, OpKind::kLess, OpKind::kEqual, OpKind::kMatmul}) {
    EXPECT_EQ(FoldValue(op, AttrValue::Int(6), AttrValue::Int(4), DType::kF32), std::nullopt)
        << ir::OpName(op);
  }
  // Unary ops on a constant are not folded.
  ir::Graph g("G");
  ir::NodeId c = g.AddConstant("", AttrValue::Float(1.0));
  g.node(c).type = ir::Type::Scalar(DType::kF32);
  g.AddOutput("y", g.AddNode("y", OpKind::kNeg, {c}));
  EXPECT_EQ(RunConstFold(g), 0);
}

TEST(ConstFoldTest, NonConstantOperandsAndSourcesAreNotFolded) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({}));
  ir::NodeId w = g.AddParam("w", F32({}));
  ir::NodeId c = g.AddConstant("", AttrValue::Float(2.0));
  ir::NodeId a = g.AddNode("a", OpKind::kAdd, {x, c});
  ir::NodeId b = g.AddNode("b", OpKind::kMul, {w, c});
  g.AddOutput("y", g.AddNode("y", OpKind::kAdd, {a, b}));
  EXPECT_EQ(RunConstFold(g), 0);
  EXPECT_EQ(g.num_nodes(), 6);
}

TEST(ConstFoldTest, OneLevelPerPass) {
  // (1 + 2) * 3: the product waits for the next pass.
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId one = g.AddConstant("one", AttrValue::Int(1));
  ir::NodeId two = g.AddConstant("two", AttrValue::Int(2));
  ir::NodeId sum = g.AddNode("sum", OpKind::kAdd, {one, two});
  ir::NodeId three = g.AddConstant("three", AttrValue::Int(3));
  ir::NodeId prod = g.AddNode("prod", OpKind::kMul, {sum, three});
  g.AddOutput("y", g.AddNode("y", OpKind::kMul, {x, prod}));
  EXPECT_EQ(RunConstFold(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 sum = constant[3]\n"
            "%2 three = constant[3]\n"
            "%3 prod = mul(%1, %2)\n"
            "%4 y = mul(%0, %3)\n"
            "outputs: y=%4\n");
  EXPECT_EQ(RunConstFold(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 prod = constant[9]\n"
            "%2 y = mul(%0, %1)\n"
            "outputs: y=%2\n");
  EXPECT_EQ(RunConstFold(g), 0);
}

TEST(ConstFoldTest, SharedConstantOperandSurvives) {
  // `k` is still read by `y` after `s` folds: only `two` is orphaned.
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId k = g.AddConstant("k", AttrValue::Float(3.0));
  ir::NodeId two = g.AddConstant("two", AttrValue::Float(2.0));
  ir::NodeId s = g.AddNode("s", OpKind::kSub, {k, two});
  ir::NodeId y = g.AddNode("y", OpKind::kMul, {x, k});
  g.AddOutput("s", s);
  g.AddOutput("y", y);
  EXPECT_EQ(RunConstFold(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 k = constant[3]\n"
            "%2 s = constant[1]\n"
            "%3 y = mul(%0, %1)\n"
            "outputs: s=%2, y=%3\n");
  ExpectInvariants(g);
}

}  // namespace
}  // namespace shrew::opt
