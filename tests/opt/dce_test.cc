#include "opt/dce.h"

#include <gtest/gtest.h>

#include "opt_test_util.h"

namespace shrew::opt {
namespace {

using ir::OpKind;
using testing::ExpectInvariants;
using testing::F32;
using testing::Render;

TEST(DceTest, SpecExample) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  g.AddNode("unused", OpKind::kNeg, {x});
  ir::NodeId y = g.AddNode("y", OpKind::kGelu, {x});
  g.AddOutput("y", y);

  EXPECT_EQ(RunDce(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 y = gelu(%0)\n"
            "outputs: y=%1\n");
  EXPECT_EQ(g.FindNode("unused"), ir::kNoNode);
  EXPECT_EQ(g.FindNode("y"), 1);
  ExpectInvariants(g);
}

TEST(DceTest, KeepsUnusedInputsInDeclarationOrder) {
  // Inputs are roots: dropping `b` would shift positional binding in calls.
  ir::Graph g("G");
  ir::NodeId a = g.AddInput("a", F32({2}));
  ir::NodeId b = g.AddInput("b", F32({2}), /*optional=*/true);
  g.AddNode("dead", OpKind::kExp, {b});
  ir::NodeId y = g.AddNode("y", OpKind::kRelu, {a});
  g.AddOutput("y", y);

  EXPECT_EQ(RunDce(g), 1);
  ASSERT_EQ(g.inputs().size(), 2u);
  EXPECT_EQ(g.node(g.inputs()[0].node).name, "a");
  EXPECT_EQ(g.node(g.inputs()[1].node).name, "b");
  EXPECT_TRUE(g.inputs()[1].optional);
  EXPECT_EQ(Render(g),
            "%0 a = input\n"
            "%1 b = input\n"
            "%2 y = relu(%0)\n"
            "outputs: y=%2\n");
  ExpectInvariants(g);
}

TEST(DceTest, KeepsUnusedParamsAndRemapsRecords) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  g.AddNode("dead1", OpKind::kExp, {x});
  g.AddParam("w", F32({2}));
  g.AddNode("dead2", OpKind::kTanh, {x});
  ir::NodeId y = g.AddNode("y", OpKind::kRelu, {x});
  g.AddOutput("y", y);

  EXPECT_EQ(RunDce(g), 2);
  ASSERT_EQ(g.params().size(), 1u);
  EXPECT_EQ(g.params()[0].node, 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 w = param\n"
            "%2 y = relu(%0)\n"
            "outputs: y=%2\n");
  ExpectInvariants(g);
}

TEST(DceTest, RemovesWholeDeadChainsAndRenumbers) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId d1 = g.AddNode("d1", OpKind::kExp, {x});
  ir::NodeId a = g.AddNode("a", OpKind::kRelu, {x});
  ir::NodeId d2 = g.AddNode("d2", OpKind::kAdd, {d1, a});
  g.AddNode("d3", OpKind::kNeg, {d2});
  ir::NodeId b = g.AddNode("b", OpKind::kMul, {a, a});
  g.AddOutput("first", a);
  g.AddOutput("second", b);

  EXPECT_EQ(RunDce(g), 3);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a = relu(%0)\n"
            "%2 b = mul(%1, %1)\n"
            "outputs: first=%1, second=%2\n");
  EXPECT_EQ(g.FindNode("b"), 2);
  ExpectInvariants(g);
}

TEST(DceTest, NothingDeadReturnsZeroAndChangesNothing) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  g.AddOutput("y", g.AddNode("y", OpKind::kRelu, {x}));
  const std::string before = Render(g);
  EXPECT_EQ(RunDce(g), 0);
  EXPECT_EQ(Render(g), before);
}

TEST(DceTest, LiveNodesFollowsOperandsFromAllRoots) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId w = g.AddParam("w", F32({2}));
  ir::NodeId dead = g.AddNode("dead", OpKind::kAdd, {x, w});
  ir::NodeId y = g.AddNode("y", OpKind::kRelu, {x});
  g.AddOutput("y", y);
  std::vector<bool> live = LiveNodes(g);
  EXPECT_TRUE(live[x]);
  EXPECT_TRUE(live[w]);
  EXPECT_FALSE(live[dead]);
  EXPECT_TRUE(live[y]);
}

TEST(OrphanSweepTest, RemovesOnlyWhatBecameDeadOrWasAbsorbed) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId already_dead = g.AddNode("already_dead", OpKind::kExp, {x});
  ir::NodeId dead_absorbed = g.AddNode("dead_absorbed", OpKind::kTanh, {x});
  ir::NodeId a = g.AddNode("a", OpKind::kNeg, {x});
  ir::NodeId b = g.AddNode("b", OpKind::kRelu, {a});
  g.AddOutput("y", b);
  (void)already_dead;

  OrphanSweep sweep(g);
  g.node(b).operands = {x};  // orphans `a`
  sweep.Absorb(dead_absorbed);
  EXPECT_EQ(sweep.Run(g), 2);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 already_dead = exp(%0)\n"
            "%2 b = relu(%0)\n"
            "outputs: y=%2\n");
  ExpectInvariants(g);
}

TEST(OrphanSweepTest, AbsorbedButStillReferencedNodeIsKept) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId a = g.AddNode("a", OpKind::kNeg, {x});
  g.AddOutput("y", g.AddNode("b", OpKind::kRelu, {a}));
  OrphanSweep sweep(g);
  sweep.Absorb(a);  // a misuse; must not leave a dangling operand
  EXPECT_EQ(sweep.Run(g), 0);
  EXPECT_EQ(g.num_nodes(), 3);
  ExpectInvariants(g);
}

TEST(OrphanSweepTest, CascadesThroughChainsAndRedirectedOutputs) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId a = g.AddNode("a", OpKind::kExp, {x});
  ir::NodeId b = g.AddNode("b", OpKind::kNeg, {a});
  ir::NodeId c = g.AddNode("c", OpKind::kAdd, {b, b});
  g.AddOutput("c", c);
  OrphanSweep sweep(g);
  g.mutable_outputs()[0].node = x;  // c, then b, then a lose their last reference
  EXPECT_EQ(sweep.Run(g), 3);
  EXPECT_EQ(Render(g), "%0 x = input\noutputs: c=%0\n");
}

TEST(OrphanSweepTest, NodeStillReadByOlderDeadCodeIsKept) {
  // With DCE switched off, `dead` reads `a`; when the live reader of `a`
  // goes away, `a` must stay or `dead` would get a dangling operand.
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId a = g.AddNode("a", OpKind::kExp, {x});
  g.AddNode("dead", OpKind::kTanh, {a});
  ir::NodeId y = g.AddNode("y", OpKind::kRelu, {a});
  g.AddOutput("y", y);
  OrphanSweep sweep(g);
  g.node(y).operands = {x};
  EXPECT_EQ(sweep.Run(g), 0);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a = exp(%0)\n"
            "%2 dead = tanh(%1)\n"
            "%3 y = relu(%0)\n"
            "outputs: y=%3\n");
  ExpectInvariants(g);
}

TEST(DceTest, DeepChainDoesNotRecurse) {
  // 200k nodes: a recursive walk would overflow the stack.
  ir::Graph g("G");
  ir::NodeId prev = g.AddInput("x", F32({2}));
  for (int i = 0; i < 200000; ++i) prev = g.AddNode("", OpKind::kRelu, {prev});
  g.AddOutput("y", prev);
  g.AddNode("dead", OpKind::kExp, {0});
  EXPECT_EQ(RunDce(g), 1);
  EXPECT_EQ(g.num_nodes(), 200001);
}

}  // namespace
}  // namespace shrew::opt
