// Steps per run with calls and repeats unrolled (ir/run_steps.h), counted
// by hand for each program.
#include "ir/run_steps.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace shrew::ir {
namespace {

const Type kVec = Type::Tensor({Dim::Fixed(2)}, DType::kF32);

// A graph `name` with one input and `ops` relu nodes in a chain: 1 + ops steps.
Graph Leaf(const std::string& name, int ops) {
  Graph g(name);
  NodeId x = g.AddInput("x", kVec);
  for (int i = 0; i < ops; ++i) x = g.AddNode("", OpKind::kRelu, {x});
  g.AddOutput("y", x);
  return g;
}

NodeId AddCall(Graph& g, NodeId x, const std::string& callee) {
  NodeId c = g.AddNode("", OpKind::kCall, {x});
  g.node(c).callee = callee;
  return c;
}

NodeId AddRepeat(Graph& g, NodeId x, int64_t count, const std::string& callee) {
  NodeId r = g.AddNode("", OpKind::kRepeat, {x});
  g.node(r).attrs.Set("count", AttrValue::Int(count));
  RepeatBody body;
  body.op = callee.empty() ? OpKind::kRelu : OpKind::kCall;
  body.callee = callee;
  g.node(r).repeat_body = body;
  return r;
}

TEST(RunSteps, NodesCallsAndRepeatsUnrolled) {
  Program p;
  p.graphs.push_back(Leaf("L", 3));  // input + 3 relus: 4
  Graph m("M");
  NodeId x = m.AddInput("x", kVec);
  NodeId a = AddCall(m, x, "L");           // 1 + 4
  NodeId b = AddRepeat(m, a, 10, "L");     // 1 + 10 × (1 + 4)
  NodeId c = AddRepeat(m, b, 7, "");       // 1 + 7 × 1
  m.AddOutput("y", m.AddNode("", OpKind::kAdd, {b, c}));  // 1
  p.graphs.push_back(std::move(m));
  const std::vector<RunSteps> s = StepsPerRun(p);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].steps, 4u);
  EXPECT_EQ(s[0].heaviest_callee, -1);
  EXPECT_EQ(s[1].steps, 1u + 5u + 51u + 8u + 1u);
  EXPECT_EQ(s[1].heaviest_callee, 0);
  EXPECT_EQ(s[1].heaviest_times, 11u);  // once, then 10 times
  EXPECT_EQ(HeaviestCallChain(p, s, 1), "M calls L 11 times");
  EXPECT_EQ(HeaviestCallChain(p, s, 0), "");
}

// Each graph calls the next twice: 2^n leaf runs from a few lines; past 64
// levels the count saturates instead of wrapping. Callees come after their
// callers, as a chain of 70 on an explicit stack.
TEST(RunSteps, DoublingCallsSaturateAtTheTop) {
  Program p;
  const int levels = 70;
  for (int i = 0; i < levels; ++i) {
    Graph g("G" + std::to_string(i));
    NodeId x = g.AddInput("x", kVec);
    const std::string next = "G" + std::to_string(i + 1);
    g.AddOutput("y", g.AddNode("", OpKind::kAdd, {AddCall(g, x, next), AddCall(g, x, next)}));
    p.graphs.push_back(std::move(g));
  }
  p.graphs.push_back(Leaf("G" + std::to_string(levels), 0));  // 1 step
  const std::vector<RunSteps> s = StepsPerRun(p);
  // s(leaf) = 1; s(G) = 1 (input) + 2 × (1 + s(next)) + 1 (add) = 2 s(next) + 4.
  uint64_t want = 1;
  for (int i = levels - 1; i >= levels - 10; --i) {
    want = 2 * want + 4;
    EXPECT_EQ(s[static_cast<size_t>(i)].steps, want) << i;
  }
  EXPECT_EQ(s[0].steps, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(HeaviestCallChain(p, s, 0, 2), "G0 calls G1 2 times, G1 calls G2 2 times, …");
}

// Validation rejects call cycles; counted anyway, one is unbounded.
TEST(RunSteps, ACallCycleIsUnbounded) {
  Program p;
  for (const char* name : {"A", "B"}) {
    Graph g(name);
    NodeId x = g.AddInput("x", kVec);
    g.AddOutput("y", AddCall(g, x, name[0] == 'A' ? "B" : "A"));
    p.graphs.push_back(std::move(g));
  }
  const std::vector<RunSteps> s = StepsPerRun(p);
  EXPECT_EQ(s[0].steps, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(s[1].steps, std::numeric_limits<uint64_t>::max());
}

}  // namespace
}  // namespace shrew::ir
