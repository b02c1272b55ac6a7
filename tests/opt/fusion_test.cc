#include "opt/fusion.h"

#include <gtest/gtest.h>

#include "diag/diagnostic.h"
#include "ir/shapes.h"
#include "opt/cse.h"
#include "opt_test_util.h"

namespace shrew::opt {
namespace {

using ir::OpKind;
using testing::ExpectInvariants;
using testing::F32;
using testing::Render;

// The `Four` graph of PIPELINE.md §6.6 as lowering builds it (anonymous
// nodes named `__anon_ID`).
ir::Graph FourGraph() {
  ir::Graph g("Four");
  ir::NodeId x = g.AddInput("x", F32({2, 3}));
  ir::NodeId w = g.AddParam("W", F32({3, 4}));
  ir::NodeId v = g.AddParam("V", F32({3, 4}));
  ir::NodeId b = g.AddParam("b", F32({4}));
  ir::NodeId mm1 = g.AddNode("", OpKind::kMatmul, {x, w});  // %4
  ir::NodeId add1 = g.AddNode("", OpKind::kAdd, {mm1, b});  // %5
  ir::NodeId h = g.AddNode("h", OpKind::kRelu, {add1});     // %6
  ir::NodeId mm2 = g.AddNode("", OpKind::kMatmul, {x, v});  // %7
  ir::NodeId m = g.AddNode("m", OpKind::kRelu, {mm2});      // %8
  ir::NodeId add2 = g.AddNode("", OpKind::kAdd, {h, m});    // %9
  ir::NodeId a = g.AddNode("a", OpKind::kRelu, {add2});     // %10
  ir::NodeId sub = g.AddNode("", OpKind::kSub, {a, b});     // %11
  ir::NodeId d = g.AddNode("d", OpKind::kRelu, {sub});      // %12
  g.AddOutput("d", d);
  return g;
}

TEST(FusionTest, SpecExampleAllFourPatterns) {
  ir::Graph g = FourGraph();
  EXPECT_EQ(g.node(5).name, "__anon_5");
  EXPECT_EQ(RunFusion(g), 4);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 W = param\n"
            "%2 V = param\n"
            "%3 b = param\n"
            "%4 __anon_5_fused_matmul_add = fused_matmul_add(%0, %1, %3)\n"
            "%5 h = relu(%4)\n"
            "%6 m_fused = fused_matmul_relu(%0, %2)\n"
            "%7 a_fused = fused_add_relu(%5, %6)\n"
            "%8 d_fused = fused_sub_relu(%7, %3)\n"
            "outputs: d=%8\n");
  ExpectInvariants(g);
  EXPECT_EQ(g.FindNode("d_fused"), 8);
  EXPECT_EQ(g.FindNode("d"), ir::kNoNode);
  EXPECT_EQ(RunFusion(g), 0);
}

TEST(FusionTest, SubPassesCountSeparately) {
  ir::Graph g = FourGraph();
  EXPECT_EQ(FuseMatmulAdd(g), 1);
  EXPECT_EQ(FuseAddSubRelu(g), 2);
  EXPECT_EQ(FuseMatmulRelu(g), 1);
}

TEST(FusionTest, FusedNodeKeepsTypeAndId) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 3}));
  ir::NodeId w = g.AddParam("w", F32({3, 4}));
  ir::NodeId mm = g.AddNode("mm", OpKind::kMatmul, {x, w});
  ir::NodeId r = g.AddNode("r", OpKind::kRelu, {mm});
  g.node(r).type = F32({2, 4});
  g.node(r).hints = {"fast"};
  g.AddOutput("out", r);
  EXPECT_EQ(RunFusion(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 w = param\n"
            "%2 r_fused = fused_matmul_relu(%0, %1)\n"
            "outputs: out=%2\n");
  EXPECT_EQ(g.node(2).type, F32({2, 4}));
  EXPECT_EQ(g.node(2).hints, std::vector<std::string>{"fast"});
}

// `node m: Tensor<[B, 4], f32> { op: matmul(x, w); }` with x: [?, 3]: m's
// declaration is checked (and names B) on m alone, so m is not absorbed.
// One that repeats the inferred type fuses as before.
TEST(FusionTest, ProducerWithACheckedDeclaredTypeIsNotFused) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", ir::Type::Tensor({ir::Dim::Dynamic(), ir::Dim::Fixed(3)}, ir::DType::kF32));
  ir::NodeId w = g.AddParam("w", F32({3, 4}));
  ir::NodeId m = g.AddNode("m", OpKind::kMatmul, {x, w});
  g.node(m).declared_type = ir::Type::Tensor({ir::Dim::Symbolic("B"), ir::Dim::Fixed(4)}, ir::DType::kF32);
  g.AddOutput("r", g.AddNode("r", OpKind::kRelu, {m}));
  ir::NodeId n = g.AddNode("n", OpKind::kMatmul, {x, w});
  g.node(n).declared_type = ir::Type::Tensor({ir::Dim::Dynamic(), ir::Dim::Fixed(4)}, ir::DType::kF32);
  g.AddOutput("s", g.AddNode("s", OpKind::kRelu, {n}));
  diag::DiagnosticBag diags;
  ASSERT_TRUE(ir::InferGraphTypes(&g, nullptr, &diags));
  EXPECT_EQ(RunFusion(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 w = param\n"
            "%2 m = matmul(%0, %1)\n"
            "%3 r = relu(%2)\n"
            "%4 s_fused = fused_matmul_relu(%0, %1)\n"
            "outputs: r=%3, s=%4\n");
  ExpectInvariants(g);
}

TEST(FusionTest, MatmulWithTwoConsumersIsNotFused) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 3}));
  ir::NodeId w = g.AddParam("w", F32({3, 4}));
  ir::NodeId b = g.AddParam("b", F32({4}));
  ir::NodeId mm = g.AddNode("mm", OpKind::kMatmul, {x, w});
  ir::NodeId s = g.AddNode("s", OpKind::kAdd, {mm, b});
  ir::NodeId r = g.AddNode("r", OpKind::kRelu, {mm});
  g.AddOutput("s", s);
  g.AddOutput("r", r);
  const std::string before = Render(g);
  EXPECT_EQ(RunFusion(g), 0);
  EXPECT_EQ(Render(g), before);
}

TEST(FusionTest, TwoReferencesFromOneConsumerCountTwice) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 2}));
  ir::NodeId mm = g.AddNode("mm", OpKind::kMatmul, {x, x});
  g.AddOutput("s", g.AddNode("s", OpKind::kAdd, {mm, mm}));
  EXPECT_EQ(RunFusion(g), 0);
}

TEST(FusionTest, MatmulOnTheRightOfAddIsNotFused) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 3}));
  ir::NodeId w = g.AddParam("w", F32({3, 4}));
  ir::NodeId b = g.AddParam("b", F32({4}));
  ir::NodeId mm = g.AddNode("mm", OpKind::kMatmul, {x, w});
  g.AddOutput("s", g.AddNode("s", OpKind::kAdd, {b, mm}));
  EXPECT_EQ(RunFusion(g), 0);
  EXPECT_EQ(g.node(4).op, OpKind::kAdd);
}

TEST(FusionTest, OutputProducerIsNotFused) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 3}));
  ir::NodeId w = g.AddParam("w", F32({3, 4}));
  ir::NodeId b = g.AddParam("b", F32({4}));
  ir::NodeId mm = g.AddNode("mm", OpKind::kMatmul, {x, w});
  ir::NodeId s = g.AddNode("s", OpKind::kAdd, {mm, b});
  ir::NodeId sum = g.AddNode("sum", OpKind::kAdd, {x, x});
  ir::NodeId r = g.AddNode("r", OpKind::kRelu, {sum});
  g.AddOutput("mm", mm);
  g.AddOutput("s", s);
  g.AddOutput("sum", sum);
  g.AddOutput("r", r);
  EXPECT_EQ(RunFusion(g), 0);
}

TEST(FusionTest, ConsumerThatIsAnOutputIsFusedAndOutputKeepsItsName) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId y = g.AddInput("y", F32({2}));
  ir::NodeId d = g.AddNode("d", OpKind::kSub, {x, y});
  g.AddOutput("result", g.AddNode("r", OpKind::kRelu, {d}));
  EXPECT_EQ(RunFusion(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 y = input\n"
            "%2 r_fused = fused_sub_relu(%0, %1)\n"
            "outputs: result=%2\n");
}

TEST(FusionTest, MatmulAddRunsBeforeAddRelu) {
  // relu(matmul(x, W) + b): (a) takes the add, (b) then finds no add.
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 3}));
  ir::NodeId w = g.AddParam("w", F32({3, 4}));
  ir::NodeId b = g.AddParam("b", F32({4}));
  ir::NodeId mm = g.AddNode("", OpKind::kMatmul, {x, w});
  ir::NodeId s = g.AddNode("lin", OpKind::kAdd, {mm, b});
  g.AddOutput("h", g.AddNode("h", OpKind::kRelu, {s}));
  EXPECT_EQ(RunFusion(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 w = param\n"
            "%2 b = param\n"
            "%3 lin_fused_matmul_add = fused_matmul_add(%0, %1, %2)\n"
            "%4 h = relu(%3)\n"
            "outputs: h=%4\n");
}

TEST(FusionTest, NameCollisionsGetNumericSuffixes) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId y = g.AddInput("y", F32({2}));
  ir::NodeId taken1 = g.AddNode("h_fused", OpKind::kExp, {x});
  ir::NodeId taken2 = g.AddNode("h_fused_2", OpKind::kExp, {y});
  ir::NodeId s = g.AddNode("s", OpKind::kAdd, {x, y});
  ir::NodeId h = g.AddNode("h", OpKind::kRelu, {s});
  ir::NodeId s2 = g.AddNode("s2", OpKind::kSub, {x, y});
  ir::NodeId k = g.AddNode("k", OpKind::kRelu, {s2});
  ir::NodeId taken3 = g.AddNode("k_fused", OpKind::kTanh, {x});
  g.AddOutput("out", g.AddNode("out", OpKind::kConcat, {taken1, taken2, h, k, taken3}));
  EXPECT_EQ(RunFusion(g), 2);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 y = input\n"
            "%2 h_fused = exp(%0)\n"
            "%3 h_fused_2 = exp(%1)\n"
            "%4 h_fused_3 = fused_add_relu(%0, %1)\n"
            "%5 k_fused_2 = fused_sub_relu(%0, %1)\n"
            "%6 k_fused = tanh(%0)\n"
            "%7 out = concat(%2, %3, %4, %5, %6)\n"
            "outputs: out=%7\n");
  ExpectInvariants(g);
}

TEST(FusionTest, RenamesInOnePassSeeEachOther) {
  // `a` becomes `a_fused`; then a node already called `a_fused` is renamed
  // `a_fused_fused` — uniqueness is checked at each rename.
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId s1 = g.AddNode("", OpKind::kAdd, {x, x});
  ir::NodeId a = g.AddNode("a", OpKind::kRelu, {s1});
  ir::NodeId s2 = g.AddNode("", OpKind::kAdd, {a, x});
  ir::NodeId af = g.AddNode("a_fused", OpKind::kRelu, {s2});
  g.AddOutput("out", af);
  EXPECT_EQ(FuseAddSubRelu(g), 2);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a_fused_2 = fused_add_relu(%0, %0)\n"
            "%2 a_fused_fused = fused_add_relu(%1, %0)\n"
            "outputs: out=%2\n");
  ExpectInvariants(g);
}

TEST(FusionTest, CseMergedMatmulBlocksBothFusions) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 3}));
  ir::NodeId w = g.AddParam("w", F32({3, 4}));
  ir::NodeId b = g.AddParam("b", F32({4}));
  ir::NodeId m1 = g.AddNode("m1", OpKind::kMatmul, {x, w});
  ir::NodeId s = g.AddNode("s", OpKind::kAdd, {m1, b});
  ir::NodeId m2 = g.AddNode("m2", OpKind::kMatmul, {x, w});
  ir::NodeId r = g.AddNode("r", OpKind::kRelu, {m2});
  g.AddOutput("s", s);
  g.AddOutput("r", r);
  EXPECT_EQ(RunCse(g), 1);
  EXPECT_EQ(RunFusion(g), 0);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 w = param\n"
            "%2 b = param\n"
            "%3 m1 = matmul(%0, %1)\n"
            "%4 s = add(%3, %2)\n"
            "%5 r = relu(%3)\n"
            "outputs: s=%4, r=%5\n");
}

TEST(FusionTest, FusedNodesAreNotFusedAgain) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2, 2}));
  ir::NodeId f = g.AddNode("f", OpKind::kFusedMatmulRelu, {x, x});
  g.AddOutput("out", g.AddNode("r", OpKind::kRelu, {f}));
  EXPECT_EQ(RunFusion(g), 0);
}

}  // namespace
}  // namespace shrew::opt
