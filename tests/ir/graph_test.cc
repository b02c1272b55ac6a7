#include "ir/graph.h"

#include <gtest/gtest.h>

#include "ir_test_util.h"

namespace shrew::ir {
namespace {

using testing::T;

diag::Span At(uint32_t offset, uint32_t length) {
  diag::Span s;
  s.offset = offset;
  s.length = length;
  s.line = 1;
  s.column = offset + 1;
  return s;
}

// Diagnostics name a node the compiler named by the declared node whose
// statement holds it (they showed `[G::__anon_2]`, a name nobody wrote).
TEST(GraphTest, DiagnosticPrefixNamesWhatTheUserWrote) {
  Graph g("G");
  NodeId x = g.AddInput("x", T("[2, 3] f32"), false, At(0, 10));
  NodeId m = g.AddNode("", OpKind::kMatmul, {x, x}, At(30, 12));     // inside h's statement
  NodeId r = g.AddNode("", OpKind::kRelu, {m}, At(25, 18));          // so is this one
  NodeId h = g.AddNode("h", OpKind::kMul, {r, r}, At(20, 30));       // node h { op: ... };
  NodeId e = g.AddNode("", OpKind::kExp, {h}, At(60, 6));            // output exp(h);
  NodeId o = g.AddNode("__output_1", OpKind::kNeg, {e}, At(55, 14));
  NodeId n = g.AddNode("", OpKind::kNeg, {x});                       // no span
  EXPECT_EQ(g.DiagnosticPrefix(g.node(x)), "[G::x] ");
  EXPECT_EQ(g.DiagnosticPrefix(g.node(h)), "[G::h] ");
  EXPECT_EQ(g.DiagnosticPrefix(g.node(m)), "[G::h] ");
  EXPECT_EQ(g.DiagnosticPrefix(g.node(r)), "[G::h] ");
  EXPECT_EQ(g.DiagnosticPrefix(g.node(e)), "[G] ");
  EXPECT_EQ(g.DiagnosticPrefix(g.node(o)), "[G] ");
  EXPECT_EQ(g.DiagnosticPrefix(g.node(n)), "[G] ");
}

// An unrolled repeat's iterations but the last are named `h.iter0`, … by
// materialisation; messages named them so ("[G::blocks.iter0]").
TEST(GraphTest, RepeatIterationsAreNamedByTheirNodeAndIteration) {
  Graph g("G");
  NodeId x = g.AddInput("x", T("[2] f32"), false, At(0, 10));
  NodeId i0 = g.AddNode("h.iter0", OpKind::kRelu, {x}, At(20, 30));
  NodeId i1 = g.AddNode("h.iter1", OpKind::kRelu, {i0}, At(20, 30));
  NodeId last = g.AddNode("h", OpKind::kRelu, {i1}, At(20, 30));
  NodeId odd = g.AddNode("k.iterate", OpKind::kRelu, {last}, At(60, 5));  // no iteration
  // `node m { op: repeat(2) { relu(x) } * 2; }`: the repeat's iterations are compiler-named.
  NodeId a0 = g.AddNode("__anon_1.iter0", OpKind::kRelu, {x}, At(80, 20));
  NodeId m = g.AddNode("m", OpKind::kMul, {a0, a0}, At(75, 30));
  EXPECT_EQ(g.DiagnosticPrefix(g.node(i0)), "[G::h] ");
  EXPECT_EQ(g.NodeLabel(g.node(i0)), "node 'h' (relu, repeat iteration 1)");
  EXPECT_EQ(g.NodeLabel(g.node(i1)), "node 'h' (relu, repeat iteration 2)");
  EXPECT_EQ(g.ValueLabel(g.node(i1)), "'h'");
  EXPECT_EQ(g.NodeLabel(g.node(last)), "node 'h' (relu)");
  EXPECT_EQ(g.NodeLabel(g.node(odd)), "node 'k.iterate' (relu)");
  EXPECT_EQ(g.NodeLabel(g.node(a0)), "relu in node 'm' (repeat iteration 1)");
  EXPECT_EQ(g.DiagnosticPrefix(g.node(a0)), "[G::m] ");
  EXPECT_EQ(g.NodeLabel(g.node(m)), "node 'm' (mul)");
  // An unnamed output's repeat: no node to name, still its iteration.
  NodeId o0 = g.AddNode("__output_0.iter0", OpKind::kRelu, {x}, At(120, 10));
  EXPECT_EQ(g.NodeLabel(g.node(o0)), "relu (repeat iteration 1)");
}

// A fused relu cannot fail: its failures are its producer's, named and
// placed as the producer was (a matmul's error was marked on the relu's line).
TEST(GraphTest, AFusedNodeIsNamedAndPlacedByItsProducer) {
  Graph g("G");
  NodeId x = g.AddInput("x", T("[2, 3] f32"), false, At(0, 10));
  NodeId y = g.AddNode("y_fused", OpKind::kFusedMatmulRelu, {x, x}, At(40, 20));
  g.node(y).fused_producer = Node::FusedProducer{"m", At(20, 15)};
  EXPECT_EQ(g.NodeLabel(g.node(y)), "node 'm' (matmul + relu)");
  EXPECT_EQ(g.DiagnosticPrefix(g.node(y)), "[G::m] ");
  EXPECT_EQ(g.node(y).blame_span().offset, 20u);
  // Its value is the relu's, y (an operand label said 'm', whose values differ).
  EXPECT_EQ(g.ValueLabel(g.node(y)), "'y'");
  // A producer written inside the relu's statement: the statement's node, at the producer's place.
  NodeId z = g.AddNode("z_fused", OpKind::kFusedMatmulRelu, {x, x}, At(70, 30));
  g.node(z).fused_producer = Node::FusedProducer{"__anon_4", At(80, 12)};
  EXPECT_EQ(g.NodeLabel(g.node(z)), "node 'z' (matmul + relu)");
  EXPECT_EQ(g.node(z).blame_span().offset, 80u);
  EXPECT_EQ(g.node(x).blame_span().offset, 0u);
}

TEST(GraphTest, BuildersAssignIdsRolesAndNames) {
  Graph g("G");
  NodeId x = g.AddInput("x", T("[2, 3] f32"));
  NodeId w = g.AddParam("W", T("[3, 4] f32"), *ParseInit("xavier_uniform"));
  NodeId m = g.AddNode("", OpKind::kMatmul, {x, w});
  NodeId c = g.AddConstant("", AttrValue::Int(2));
  NodeId h = g.AddNode("h", OpKind::kMul, {m, c});
  g.AddOutput("h", h);
  EXPECT_EQ(x, 0);
  EXPECT_EQ(w, 1);
  EXPECT_EQ(g.num_nodes(), 5);
  EXPECT_EQ(g.node(m).name, "__anon_2");
  EXPECT_EQ(g.node(c).name, "__anon_3");
  EXPECT_TRUE(g.node(x).is_input());
  EXPECT_TRUE(g.node(w).is_param());
  EXPECT_FALSE(g.node(h).is_source());
  EXPECT_EQ(g.node(x).op, OpKind::kIdentity);
  EXPECT_EQ(g.node(c).attr("value")->as_int(), 2);
  EXPECT_TRUE(g.node(c).type.is_unknown());
  EXPECT_EQ(g.node(x).type.ToString(), "Tensor<[2, 3], f32>");
  ASSERT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.inputs()[0].node, x);
  ASSERT_EQ(g.params().size(), 1u);
  EXPECT_EQ(g.params()[0].name, "W");
  EXPECT_EQ(g.params()[0].init.kind, InitSpec::Kind::kXavierUniform);
  EXPECT_EQ(g.FindNode("h"), h);
  EXPECT_EQ(g.FindNode("nope"), kNoNode);
  EXPECT_EQ(g.FindOutput("h"), 0);
  EXPECT_EQ(g.FindParam("W"), 0);
  EXPECT_EQ(g.FindParam("x"), -1);
}

TEST(GraphTest, NameMapKeepsFirstOfDuplicates) {
  Graph g("G");
  NodeId a = g.AddInput("a", T("[1] f32"));
  g.AddNode("a", OpKind::kRelu, {a});
  EXPECT_EQ(g.FindNode("a"), a);
}

TEST(GraphTest, UniqueName) {
  Graph g("G");
  NodeId x = g.AddInput("x", T("[1] f32"));
  g.AddNode("h_fused", OpKind::kRelu, {x});
  EXPECT_EQ(g.UniqueName("y"), "y");
  EXPECT_EQ(g.UniqueName("h_fused"), "h_fused_2");
  g.AddNode("h_fused_2", OpKind::kRelu, {x});
  EXPECT_EQ(g.UniqueName("h_fused"), "h_fused_3");
}

TEST(GraphTest, ConsumerCountsAndReplaceAllUses) {
  Graph g("G");
  NodeId x = g.AddInput("x", T("[1] f32"));
  NodeId a = g.AddNode("a", OpKind::kIdentity, {x});
  NodeId b = g.AddNode("b", OpKind::kAdd, {a, a});
  g.AddOutput("alias", a);
  g.AddOutput("b", b);
  auto counts = g.ConsumerCounts();
  EXPECT_EQ(counts[static_cast<size_t>(x)], 1);
  EXPECT_EQ(counts[static_cast<size_t>(a)], 2);  // used twice by one consumer
  EXPECT_EQ(counts[static_cast<size_t>(b)], 0);
  g.ReplaceAllUsesWith(a, x);
  EXPECT_EQ(g.node(b).operands, (std::vector<NodeId>{x, x}));
  EXPECT_EQ(g.outputs()[0].node, x);
}

TEST(GraphTest, CompactRemapsEverything) {
  // The DCE example of PIPELINE.md §6.2.
  Graph g("G");
  NodeId x = g.AddInput("x", T("[2] f32"));
  NodeId w = g.AddParam("w", T("[2] f32"));
  g.AddNode("unused", OpKind::kNeg, {x});
  NodeId y = g.AddNode("y", OpKind::kGelu, {x});
  NodeId z = g.AddNode("z", OpKind::kAdd, {y, w});
  g.AddOutput("z", z);
  auto map = g.Compact({true, true, false, true, true});
  EXPECT_EQ(map, (std::vector<NodeId>{0, 1, kNoNode, 2, 3}));
  ASSERT_EQ(g.num_nodes(), 4);
  EXPECT_EQ(g.node(2).name, "y");
  EXPECT_EQ(g.node(2).id, 2);
  EXPECT_EQ(g.node(3).operands, (std::vector<NodeId>{2, 1}));
  EXPECT_EQ(g.outputs()[0].node, 3);
  EXPECT_EQ(g.params()[0].node, w);
  EXPECT_EQ(g.FindNode("z"), 3);
  EXPECT_EQ(g.FindNode("unused"), kNoNode);
  (void)y;
}

TEST(GraphTest, CompactDropsRemovedInputsAndParams) {
  Graph g("G");
  g.AddInput("x", T("[2] f32"));
  g.AddParam("w", T("[2] f32"));
  NodeId c = g.AddConstant("c", AttrValue::Int(1));
  g.AddOutput("c", c);
  g.Compact({false, false, true});
  EXPECT_TRUE(g.inputs().empty());
  EXPECT_TRUE(g.params().empty());
  EXPECT_EQ(g.outputs()[0].node, 0);
}

TEST(GraphTest, TopologicalRenumberFixesAppendedProducers) {
  Graph g("G");
  NodeId x = g.AddInput("x", T("[2] f32"));
  NodeId r = g.AddNode("r", OpKind::kRelu, {x});
  NodeId s = g.AddNode("s", OpKind::kSigmoid, {r});
  // A pass inserts a new producer at the end and rewires `s` to it.
  NodeId t = g.AddNode("t", OpKind::kTanh, {r});
  g.node(s).operands = {t};
  g.AddOutput("s", s);
  ASSERT_TRUE(g.TopologicalRenumber());
  EXPECT_EQ(g.node(0).name, "x");
  EXPECT_EQ(g.node(1).name, "r");
  EXPECT_EQ(g.node(2).name, "t");
  EXPECT_EQ(g.node(3).name, "s");
  EXPECT_EQ(g.node(3).operands, (std::vector<NodeId>{2}));
  EXPECT_EQ(g.outputs()[0].node, 3);
  EXPECT_EQ(g.FindNode("s"), 3);
  for (const Node& n : g.nodes()) {
    for (NodeId op : n.operands) EXPECT_LT(op, n.id);
  }
  (void)x;
}

TEST(GraphTest, TopologicalRenumberRefusesCyclesAndBadIds) {
  Graph g("G");
  NodeId x = g.AddInput("x", T("[2] f32"));
  NodeId a = g.AddNode("a", OpKind::kAdd, {x, x});
  NodeId b = g.AddNode("b", OpKind::kRelu, {a});
  g.node(a).operands[1] = b;
  EXPECT_FALSE(g.TopologicalRenumber());
  EXPECT_EQ(g.node(a).name, "a");  // unchanged
  g.node(a).operands[1] = 99;
  EXPECT_FALSE(g.TopologicalRenumber());
}

TEST(InitSpecTest, ParsesSpecStrings) {
  auto n = ParseInit("normal(0, 0.02)");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->kind, InitSpec::Kind::kNormal);
  EXPECT_EQ(n->a, 0.0);
  EXPECT_EQ(n->b, 0.02);
  EXPECT_EQ(n->text, "normal(0, 0.02)");
  auto u = ParseInit("uniform(-0.1,0.1)");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->kind, InitSpec::Kind::kUniform);
  EXPECT_EQ(u->a, -0.1);
  EXPECT_EQ(u->b, 0.1);
  auto e = ParseInit("normal(1e-2, .5)");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->a, 0.01);
  EXPECT_EQ(e->b, 0.5);
  EXPECT_EQ(ParseInit("uniform( -1 ,  2.5E1 )")->b, 25.0);
  EXPECT_EQ(ParseInit("zeros")->kind, InitSpec::Kind::kZeros);
  EXPECT_EQ(ParseInit("ones")->kind, InitSpec::Kind::kOnes);
  EXPECT_EQ(ParseInit("kaiming_normal")->kind, InitSpec::Kind::kKaimingNormal);
  EXPECT_EQ(ParseInit("xavier_normal")->kind, InitSpec::Kind::kXavierNormal);
  EXPECT_EQ(ParseInit("kaiming_uniform")->kind, InitSpec::Kind::kKaimingUniform);
  for (const char* bad : {"Zeros", "normal(0)", "normal(0, 1, 2)", "normal(a, 1)", "normal(0, 1",
                          "uniform()", "normal (0, 1)", "", "random", "normal(inf, 1)",
                          "normal(0x1, 1)", "normal(nan, 1)", "normal(1e, 1)", "normal(., 1)",
                          "normal(1 2, 3)", "uniform(-, 1)"}) {
    EXPECT_FALSE(ParseInit(bad).has_value()) << bad;
  }
  EXPECT_EQ(InitSpec{}.text, "zeros");
}

TEST(ProgramTest, FindGraphAndConfigValues) {
  Program p;
  p.graphs.emplace_back("A");
  p.graphs.emplace_back("B");
  EXPECT_EQ(p.FindGraphIndex("B"), 1);
  EXPECT_EQ(p.FindGraph("C"), nullptr);
  EXPECT_EQ(p.FindGraph("A")->name(), "A");
  EXPECT_EQ(ConfigValue::Float(1e-5).ToString(), "1e-05");
  EXPECT_EQ(ConfigValue::Int(256).ToString(), "256");
  EXPECT_EQ(ConfigValue::List({ConfigValue::Int(1), ConfigValue::Bool(true)}).ToString(),
            "[1, true]");
  EXPECT_EQ(ConfigValue::Opaque("f(x)").ToString(), "f(x)");
}

}  // namespace
}  // namespace shrew::ir
