#include "opt/cse.h"

#include <gtest/gtest.h>

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

TEST(CseTest, SpecExample) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId r1 = g.AddNode("r1", OpKind::kRelu, {x});
  ir::NodeId r2 = g.AddNode("r2", OpKind::kRelu, {x});
  g.AddOutput("out", g.AddNode("out", OpKind::kAdd, {r1, r2}));

  EXPECT_EQ(RunCse(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 r1 = relu(%0)\n"
            "%2 out = add(%1, %1)\n"
            "outputs: out=%2\n");
  ExpectInvariants(g);
}

TEST(CseTest, OutputsAreRedirectedAndKeepTheirNames) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId a = g.AddNode("a", OpKind::kTanh, {x});
  ir::NodeId b = g.AddNode("b", OpKind::kTanh, {x});
  g.AddOutput("a", a);
  g.AddOutput("b", b);
  EXPECT_EQ(RunCse(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a = tanh(%0)\n"
            "outputs: a=%1, b=%1\n");
}

TEST(CseTest, OperandOrderMatters) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId y = g.AddInput("y", F32({2}));
  ir::NodeId s1 = g.AddNode("s1", OpKind::kAdd, {x, y});
  ir::NodeId s2 = g.AddNode("s2", OpKind::kAdd, {y, x});
  g.AddOutput("out", g.AddNode("out", OpKind::kMul, {s1, s2}));
  EXPECT_EQ(RunCse(g), 0);
  EXPECT_EQ(g.num_nodes(), 5);
}

// Builds `x * c1 + x * c2` where the constants are given; returns the graph.
ir::Graph TwoScaled(AttrValue v1, std::optional<DType> t1, AttrValue v2, std::optional<DType> t2) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId c1 = g.AddConstant("c1", v1);
  if (t1) g.node(c1).type = ir::Type::Scalar(*t1);
  ir::NodeId c2 = g.AddConstant("c2", v2);
  if (t2) g.node(c2).type = ir::Type::Scalar(*t2);
  ir::NodeId m1 = g.AddNode("m1", OpKind::kMul, {x, c1});
  ir::NodeId m2 = g.AddNode("m2", OpKind::kMul, {x, c2});
  g.AddOutput("out", g.AddNode("out", OpKind::kAdd, {m1, m2}));
  return g;
}

TEST(CseTest, IntAndFloatConstantsAreNotMerged) {
  // Both print as `1`; the original merged them.
  ir::Graph g = TwoScaled(AttrValue::Int(1), std::nullopt, AttrValue::Float(1.0), std::nullopt);
  EXPECT_EQ(RunCse(g), 0);
  EXPECT_EQ(g.num_nodes(), 6);
}

TEST(CseTest, ConstantsOfDifferentResolvedDtypeAreNotMerged) {
  ir::Graph g = TwoScaled(AttrValue::Float(1.0), DType::kF32, AttrValue::Float(1.0), DType::kF64);
  EXPECT_EQ(RunCse(g), 0);
  ir::Graph weak =
      TwoScaled(AttrValue::Float(1.0), DType::kF32, AttrValue::Float(1.0), std::nullopt);
  EXPECT_EQ(RunCse(weak), 0);
}

TEST(CseTest, EqualConstantsMergeAndTheirUsersFollowNextRound) {
  ir::Graph g = TwoScaled(AttrValue::Float(0.5), DType::kF32, AttrValue::Float(0.5), DType::kF32);
  // Round 1: only the constants (the muls' operand lists still differ).
  EXPECT_EQ(RunCse(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 c1 = constant[0.5:f32]\n"
            "%2 m1 = mul(%0, %1)\n"
            "%3 m2 = mul(%0, %1)\n"
            "%4 out = add(%2, %3)\n"
            "outputs: out=%4\n");
  // Round 2: now the muls are duplicates.
  EXPECT_EQ(RunCse(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 c1 = constant[0.5:f32]\n"
            "%2 m1 = mul(%0, %1)\n"
            "%3 out = add(%2, %2)\n"
            "outputs: out=%3\n");
  EXPECT_EQ(RunCse(g), 0);
  ExpectInvariants(g);
}

TEST(CseTest, ZeroAndNegativeZeroAreDifferentConstants) {
  ir::Graph g = TwoScaled(AttrValue::Float(0.0), DType::kF32, AttrValue::Float(-0.0), DType::kF32);
  EXPECT_EQ(RunCse(g), 0);
}

TEST(CseTest, AllAttributesAreInTheKey) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 3}));
  ir::NodeId s1 = g.AddNode("s1", OpKind::kSoftmax, {x});
  g.node(s1).attrs.Set("dim", AttrValue::Int(-1));
  ir::NodeId s2 = g.AddNode("s2", OpKind::kSoftmax, {x});
  g.node(s2).attrs.Set("dim", AttrValue::Int(0));
  ir::NodeId s3 = g.AddNode("s3", OpKind::kSoftmax, {x});
  g.node(s3).attrs.Set("dim", AttrValue::Int(-1));
  // Same attributes inserted in a different order are the same key.
  ir::NodeId r1 = g.AddNode("r1", OpKind::kSum, {x});
  g.node(r1).attrs.Set("dims", AttrValue::IntList({0}));
  g.node(r1).attrs.Set("keepdim", AttrValue::Bool(true));
  ir::NodeId r2 = g.AddNode("r2", OpKind::kSum, {x});
  g.node(r2).attrs.Set("keepdim", AttrValue::Bool(true));
  g.node(r2).attrs.Set("dims", AttrValue::IntList({0}));
  ir::NodeId r3 = g.AddNode("r3", OpKind::kSum, {x});
  g.node(r3).attrs.Set("dims", AttrValue::IntList({0}));
  g.node(r3).attrs.Set("keepdim", AttrValue::Bool(false));
  ir::NodeId c = g.AddNode("c", OpKind::kConcat, {s1, s2, s3, r1, r2, r3});
  g.AddOutput("c", c);

  EXPECT_EQ(RunCse(g), 2);  // s3 -> s1, r2 -> r1
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 s1 = softmax[dim=-1](%0)\n"
            "%2 s2 = softmax[dim=0](%0)\n"
            "%3 r1 = sum[dims=[0], keepdim=true](%0)\n"
            "%4 r3 = sum[dims=[0], keepdim=false](%0)\n"
            "%5 c = concat(%1, %2, %1, %3, %3, %4)\n"
            "outputs: c=%5\n");
  ExpectInvariants(g);
}

TEST(CseTest, StochasticCallsCustomAndFusedAreNeverMerged) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 2}));
  ir::NodeId w = g.AddParam("w", F32({2, 2}));
  std::vector<ir::NodeId> all;
  for (int k = 0; k < 2; ++k) {
    all.push_back(g.AddNode("", OpKind::kDropout, {x}));
    ir::NodeId call = g.AddNode("", OpKind::kCall, {x});
    g.node(call).callee = "Sub";
    all.push_back(call);
    ir::NodeId custom = g.AddNode("", OpKind::kCustom, {x});
    g.node(custom).callee = "my_op";
    all.push_back(custom);
    all.push_back(g.AddNode("", OpKind::kFusedMatmulRelu, {x, w}));
    all.push_back(g.AddNode("", OpKind::kFusedAddRelu, {x, w}));
  }
  g.AddOutput("out", g.AddNode("out", OpKind::kConcat, all));
  EXPECT_EQ(RunCse(g), 0);
}

TEST(CseTest, SourcesAreNeverMerged) {
  ir::Graph g("G");
  ir::NodeId a = g.AddInput("a", F32({2}));
  ir::NodeId b = g.AddInput("b", F32({2}));
  ir::NodeId p = g.AddParam("p", F32({2}));
  ir::NodeId q = g.AddParam("q", F32({2}));
  g.AddOutput("out", g.AddNode("out", OpKind::kConcat, {a, b, p, q}));
  EXPECT_EQ(RunCse(g), 0);
  EXPECT_EQ(g.num_nodes(), 5);
}

TEST(CseTest, LiteralsOfAGraphWithUntypedInputsAreNotMerged) {
  // `x + 1` and `z + 1` with `input x: ?; input z: ?`: both literals fell
  // back to i64, but each run re-infers them with x's and z's dtypes (f32
  // and f64, say); one shared constant failed with "dtype mismatch".
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", ir::Type::Unknown());
  ir::NodeId z = g.AddInput("z", ir::Type::Unknown());
  ir::NodeId c1 = g.AddConstant("c1", AttrValue::Int(1));
  ir::NodeId c2 = g.AddConstant("c2", AttrValue::Int(1));
  for (ir::NodeId id : {c1, c2}) g.node(id).type = ir::Type::Scalar(DType::kI64);
  g.AddOutput("a", g.AddNode("a", OpKind::kAdd, {x, c1}));
  g.AddOutput("b", g.AddNode("b", OpKind::kAdd, {z, c2}));
  EXPECT_EQ(RunCse(g), 0);
  EXPECT_EQ(g.num_nodes(), 6);
}

TEST(CseTest, RangesWithoutOperandsOfDifferentLengthsAreNotMerged) {
  // `range()` takes its length from its declared type (OPS.md §3.14): a [3]
  // and a [5] range compute different values (merging them made the second
  // output [0, 1, 2]); two of the same length are one value.
  ir::Graph g("G");
  auto range = [&](const char* name, ir::Dim len) {
    ir::NodeId id = g.AddNode(name, OpKind::kRange, {});
    g.node(id).declared_type = ir::Type::Tensor({len}, DType::kI64);
    g.node(id).type = *g.node(id).declared_type;
    g.AddOutput(name, id);
  };
  range("a", ir::Dim::Fixed(3));
  range("b", ir::Dim::Fixed(5));
  range("c", ir::Dim::Fixed(3));
  range("n", ir::Dim::Symbolic("N"));
  range("m", ir::Dim::Symbolic("M"));
  EXPECT_EQ(RunCse(g), 1);
  EXPECT_EQ(Render(g),
            "%0 a = range\n"
            "%1 b = range\n"
            "%2 n = range\n"
            "%3 m = range\n"
            "outputs: a=%0, b=%1, c=%0, n=%2, m=%3\n");
  ExpectInvariants(g);
}

// `input x: ?; node a: Tensor<[2], f64> { op: relu(x); }; node b:
// Tensor<[3], f64> { op: relu(x); };`: each declaration is checked at run
// time on its own node. Merged, b's check was gone and b reported a's type
// (`output b: Tensor<[2], f64>`). Equal declarations are one check; plain
// duplicates merge as before.
TEST(CseTest, NodesWithDifferentCheckedDeclaredTypesAreNotMerged) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", ir::Type::Unknown());
  auto relu = [&](const char* name, int64_t n) {
    ir::NodeId id = g.AddNode(name, OpKind::kRelu, {x});
    g.node(id).declared_type = ir::Type::Tensor({ir::Dim::Fixed(n)}, DType::kF64);
    g.AddOutput(name, id);
  };
  relu("a", 2);
  relu("b", 3);
  relu("c", 2);
  g.AddOutput("e", g.AddNode("e", OpKind::kExp, {x}));
  g.AddOutput("f", g.AddNode("f", OpKind::kExp, {x}));
  diag::DiagnosticBag diags;
  ASSERT_TRUE(ir::InferGraphTypes(&g, nullptr, &diags));

  EXPECT_EQ(RunCse(g), 2);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a = relu(%0)\n"
            "%2 b = relu(%0)\n"
            "%3 e = exp(%0)\n"
            "outputs: a=%1, b=%2, c=%1, e=%3, f=%3\n");
  ASSERT_EQ(g.num_nodes(), 4);
  EXPECT_EQ(g.node(2).type.ToString(), "Tensor<[3], f64>");
  ExpectInvariants(g);
}

// A declaration that says no more than inference found is no reason to
// keep a duplicate.
TEST(CseTest, DeclaredTypesThatRepeatTheInferredOneDoNotBlockMerging) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId a = g.AddNode("a", OpKind::kRelu, {x});
  ir::NodeId b = g.AddNode("b", OpKind::kRelu, {x});
  g.node(b).declared_type = F32({2});
  g.AddOutput("a", a);
  g.AddOutput("b", b);
  diag::DiagnosticBag diags;
  ASSERT_TRUE(ir::InferGraphTypes(&g, nullptr, &diags));
  EXPECT_EQ(RunCse(g), 1);
  EXPECT_EQ(g.num_nodes(), 2);
}

TEST(CseTest, LargeGraphIsLinear) {
  // 100k nodes, every other one a duplicate: pairwise comparison would
  // take ~5e9 steps; hashing finishes instantly.
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  std::vector<ir::NodeId> keep;
  ir::NodeId prev = x;
  for (int i = 0; i < 50000; ++i) {
    ir::NodeId a = g.AddNode("", OpKind::kAdd, {prev, x});
    ir::NodeId b = g.AddNode("", OpKind::kAdd, {prev, x});
    prev = g.AddNode("", OpKind::kMul, {a, b});
  }
  g.AddOutput("out", prev);
  EXPECT_EQ(RunCse(g), 50000);
  EXPECT_EQ(g.num_nodes(), 1 + 2 * 50000);
  ExpectInvariants(g);
}

}  // namespace
}  // namespace shrew::opt
