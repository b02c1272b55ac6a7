#include "opt/quiet_rounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/dump.h"
#include "ir/shapes.h"
#include "ir/validate.h"
#include "opt/cse.h"
#include "opt/fusion.h"
#include "opt/pipeline.h"
#include "opt_test_util.h"
#include "support/sanitizer.h"

namespace shrew::opt {
namespace {

using ir::AttrValue;
using ir::NodeId;
using ir::OpKind;
using shrew::testing::kTimeScale;
using testing::ExpectInvariants;
using testing::F32;
using testing::Render;

// What the oracle saw: rounds in which only folding and CSE changed the
// graph (after which the optimiser replays), those of them that folded, and
// rounds in which CSE and fusion changed it but not DCE or identity
// elimination (the replay's stop for a fusable pair looks like that).
struct RoundKinds {
  int quiet = 0;
  int quiet_folding = 0;
  int merge_and_fusion = 0;
};

// The optimiser as PIPELINE.md §6.1 states it, with nothing skipped: full
// rounds of the five passes until one changes nothing. The oracle.
OptStats OptimizeByRounds(ir::Graph& graph, const PassOptions& options, RoundKinds* kinds = nullptr) {
  const bool PassOptions::*switches[kNumPasses] = {&PassOptions::dce, &PassOptions::identity,
                                                    &PassOptions::const_fold, &PassOptions::cse,
                                                    &PassOptions::fusion};
  int OptStats::*counters[kNumPasses] = {&OptStats::dead_code_removed, &OptStats::identities_removed,
                                         &OptStats::constants_folded, &OptStats::cse_eliminated,
                                         &OptStats::ops_fused};
  OptStats stats;
  bool changed = true;
  while (changed) {
    changed = false;
    ++stats.rounds;
    int n[kNumPasses] = {};
    for (int k = 0; k < kNumPasses; ++k) {
      if (!(options.*switches[k])) continue;
      n[k] = RoundPasses()[k].run(graph);
      stats.*counters[k] += n[k];
      changed = changed || n[k] > 0;
    }
    if (kinds && n[0] == 0 && n[1] == 0) {
      if (n[4] == 0 && n[2] + n[3] > 0) ++kinds->quiet;
      if (n[4] == 0 && n[2] > 0) ++kinds->quiet_folding;
      if (n[4] > 0 && n[3] > 0) ++kinds->merge_and_fusion;
    }
  }
  return stats;
}

void Infer(ir::Graph& g) {
  diag::DiagnosticBag diags;
  ASSERT_TRUE(ir::ValidateGraph(g, nullptr, &diags)) << ir::DumpGraph(g);
  ASSERT_TRUE(ir::InferGraphTypes(&g, nullptr, &diags)) << ir::DumpGraph(g);
  ASSERT_FALSE(diags.has_errors());
}

// Two chains of `n` tanh from x, summed: CSE merges one level per round.
ir::Graph TwinChains(int n) {
  ir::Graph g("Twins");
  NodeId x = g.AddInput("x", F32({2, 2}));
  NodeId ends[2];
  for (int c = 0; c < 2; ++c) {
    NodeId prev = x;
    for (int i = 0; i < n; ++i) {
      prev = g.AddNode(std::string(c ? "b" : "a") + std::to_string(i), OpKind::kTanh, {prev});
    }
    ends[c] = prev;
  }
  g.AddOutput("y", g.AddNode("y", OpKind::kAdd, {ends[0], ends[1]}));
  Infer(g);
  return g;
}

// A random graph over [2, 2] tensors with the shapes CSE rounds care about:
// duplicated nodes, cloned runs of nodes (duplicate chains, merged a level
// per round), constants and constant arithmetic, identities, dead nodes,
// fusable matmul/add/sub/relu pairs, outputs inside duplicated runs, and
// names that fusion's renames collide with.
ir::Graph RandomGraph(std::mt19937& rng, bool untyped_input) {
  ir::Graph g("R");
  std::vector<NodeId> pool = {g.AddInput("x", F32({2, 2})),
                              g.AddInput("y", untyped_input ? ir::Type::Unknown() : F32({2, 2})),
                              g.AddParam("w", F32({2, 2})), g.AddParam("b", F32({2, 2}))};
  std::vector<NodeId> tensors = pool;  // [2, 2]: matmul operands
  auto pick = [&](const std::vector<NodeId>& from) {
    // Mostly recent nodes, so chains form.
    size_t n = from.size();
    size_t lo = (rng() % 4 != 0 && n > 6) ? n - 6 : 0;
    return from[lo + rng() % (n - lo)];
  };
  std::set<std::string> taken;
  auto name = [&]() {
    std::string s = "n" + std::to_string(g.num_nodes()) + "_fused";
    if (rng() % 12 != 0 || !taken.insert(s).second) s = "n" + std::to_string(g.num_nodes());
    return s;
  };
  const OpKind unary[] = {OpKind::kRelu, OpKind::kTanh, OpKind::kExp, OpKind::kNeg, OpKind::kIdentity};
  const OpKind binary[] = {OpKind::kAdd, OpKind::kSub, OpKind::kMul, OpKind::kMatmul, OpKind::kAdd};
  const OpKind arith[] = {OpKind::kAdd, OpKind::kSub, OpKind::kMul, OpKind::kDiv};
  std::vector<NodeId> computed;  // compute nodes, to clone
  std::vector<NodeId> scalars;   // constants and constant arithmetic
  std::vector<bool> scalar(4, false);
  auto add = [&](NodeId id, bool is_scalar) {
    scalar.resize(static_cast<size_t>(g.num_nodes()), false);
    scalar[static_cast<size_t>(id)] = is_scalar;
    pool.push_back(id);
    (is_scalar ? scalars : tensors).push_back(id);
    if (g.node(id).op != OpKind::kConstant) computed.push_back(id);
  };
  auto constant = [&]() {
    NodeId c = g.AddConstant(name(), AttrValue::Float(static_cast<double>(1 + rng() % 2)));
    add(c, true);
    return c;
  };
  const int steps = 10 + static_cast<int>(rng() % 60);
  for (int s = 0; s < steps; ++s) {
    int kind = static_cast<int>(rng() % 11);
    if (kind == 0) {
      // A chain of constant arithmetic (folds a level per round), maybe
      // read by a tensor op.
      NodeId prev = scalars.empty() || rng() % 2 ? constant() : pick(scalars);
      for (int k = static_cast<int>(rng() % 12); k >= 0; --k) {
        NodeId other = rng() % 2 ? constant() : pick(scalars);
        OpKind op = arith[rng() % 4];
        prev = g.AddNode(name(), op, rng() % 2 ? std::vector<NodeId>{prev, other} : std::vector<NodeId>{other, prev});
        add(prev, true);
      }
      if (rng() % 2) add(g.AddNode(name(), OpKind::kMul, {pick(tensors), prev}), false);
    } else if (kind <= 2 && !computed.empty()) {
      // Clone a run of recent nodes: operands inside the run map to clones.
      size_t len = 1 + rng() % std::min<size_t>(8, computed.size());
      size_t first = computed.size() - len - (rng() % 3 == 0 ? rng() % (computed.size() - len + 1) : 0);
      std::vector<std::pair<NodeId, NodeId>> map;
      for (size_t k = first; k < first + len; ++k) {
        const ir::Node& src = g.node(computed[k]);
        std::vector<NodeId> ops = src.operands;
        for (NodeId& op : ops) {
          for (const auto& [from, to] : map) {
            if (op == from) op = to;
          }
        }
        OpKind op = src.op;
        NodeId id = g.AddNode(name(), op, ops);
        map.emplace_back(computed[k], id);
      }
      for (const auto& [from, to] : map) add(to, scalar[static_cast<size_t>(from)]);
    } else if (kind == 3) {  // a fusable pair, to be cloned
      NodeId a = pick(tensors);
      NodeId p = g.AddNode(name(), binary[rng() % 4], {a, pick(tensors)});
      add(p, false);
      add(g.AddNode(name(), rng() % 3 ? OpKind::kRelu : OpKind::kTanh, {p}), false);
    } else if (kind <= 6) {
      add(g.AddNode(name(), unary[rng() % 5], {pick(tensors)}), false);
    } else {
      OpKind op = binary[rng() % 5];
      NodeId a = pick(tensors);
      NodeId b = op == OpKind::kMatmul || rng() % 4 != 0 || scalars.empty() ? pick(tensors) : pick(scalars);
      add(g.AddNode(name(), op, {a, b}), false);
    }
  }
  // The last node, and a few inside the graph (some inside cloned runs).
  g.AddOutput("out", pool.back());
  for (int k = static_cast<int>(rng() % 3); k > 0; --k) {
    g.AddOutput("o" + std::to_string(k), computed.empty() ? pool.back() : pick(computed));
  }
  if (rng() % 4 == 0 && !scalars.empty()) g.AddOutput("s", pick(scalars));
  Infer(g);
  return g;
}

TEST(QuietRoundsTest, TwinChainsMergeOneLevelPerRound) {
  ir::Graph g = TwinChains(50);
  ASSERT_EQ(RunCse(g), 1);  // the round the driver ran: b0 -> a0
  QuietRounds r = RunQuietRounds(g, {});
  EXPECT_EQ(r.merged, 49);
  EXPECT_EQ(r.rounds, 50);  // 49 merging rounds and the one that finds nothing
  EXPECT_FALSE(r.fusion_pending);
  EXPECT_EQ(g.num_nodes(), 52);
  EXPECT_EQ(g.FindNode("b7"), ir::kNoNode);
  EXPECT_EQ(g.node(g.outputs()[0].node).operands, (std::vector<NodeId>{50, 50}));
  ExpectInvariants(g);

  ir::Graph h = TwinChains(50);
  OptStats stats = Optimize(h);
  EXPECT_EQ(stats.ToString(), "OptStats { dce: 0, identity: 0, const_fold: 0, cse: 50, fusion: 0 }");
  EXPECT_EQ(stats.rounds, 51);
  EXPECT_EQ(Render(h), Render(g));
}

// The replay keys nodes as CSE does: a declared type checked at run time is
// part of the key (the table holds one node per key, so it must be).
TEST(QuietRoundsTest, CheckedDeclaredTypesKeepNodesApart) {
  ir::Graph g("G");
  NodeId x = g.AddInput("x", ir::Type::Unknown());
  const int64_t sizes[] = {2, 3, 2};
  const char* names[] = {"a", "b", "c"};
  for (int k = 0; k < 3; ++k) {
    NodeId id = g.AddNode(names[k], OpKind::kRelu, {x});
    g.node(id).declared_type = ir::Type::Tensor({ir::Dim::Fixed(sizes[k])}, ir::DType::kF64);
    g.AddOutput(names[k], id);
  }
  diag::DiagnosticBag diags;
  ASSERT_TRUE(ir::InferGraphTypes(&g, nullptr, &diags));
  QuietRounds r = RunQuietRounds(g, {});
  EXPECT_EQ(r.merged, 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a = relu(%0)\n"
            "%2 b = relu(%0)\n"
            "outputs: a=%1, b=%2, c=%1\n");
  ExpectInvariants(g);
}

TEST(QuietRoundsTest, StopsWhereAMergeMakesAPairFusable) {
  // relu(x + y) twice: round 1 merges the adds (the add then has two
  // readers, so nothing fuses), round 2 the relus, which leaves the add
  // with one reader: fusion (b) fuses it in that same round.
  ir::Graph g("G");
  NodeId x = g.AddInput("x", F32({2, 2}));
  NodeId y = g.AddInput("y", F32({2, 2}));
  NodeId s1 = g.AddNode("s1", OpKind::kAdd, {x, y});
  NodeId s2 = g.AddNode("s2", OpKind::kAdd, {x, y});
  NodeId r1 = g.AddNode("r1", OpKind::kRelu, {s1});
  NodeId r2 = g.AddNode("r2", OpKind::kRelu, {s2});
  g.AddOutput("out", g.AddNode("out", OpKind::kAdd, {r1, r2}));
  Infer(g);
  ir::Graph oracle = g;

  ASSERT_EQ(RunCse(g), 1);
  ASSERT_EQ(RunFusion(g), 0);
  QuietRounds r = RunQuietRounds(g, {});
  EXPECT_EQ(r.rounds, 1);
  EXPECT_EQ(r.merged, 1);
  EXPECT_TRUE(r.fusion_pending);
  EXPECT_EQ(RunFusion(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 y = input\n"
            "%2 r1_fused = fused_add_relu(%0, %1)\n"
            "%3 out = add(%2, %2)\n"
            "outputs: out=%3\n");

  // Fusion switched off: no candidate is looked for, the rounds run out.
  ir::Graph h = oracle;
  ASSERT_EQ(RunCse(h), 1);
  QuietRounds off = RunQuietRounds(h, {true, true, /*fusion=*/false});
  EXPECT_EQ(off.rounds, 2);
  EXPECT_FALSE(off.fusion_pending);

  ir::Graph fast = oracle;
  OptStats stats = Optimize(fast);
  OptStats want = OptimizeByRounds(oracle, {});
  EXPECT_EQ(stats, want);
  EXPECT_EQ(stats.ToString(), "OptStats { dce: 0, identity: 0, const_fold: 0, cse: 2, fusion: 1 }");
  EXPECT_EQ(stats.rounds, 3);
  EXPECT_EQ(ir::DumpGraph(fast), ir::DumpGraph(oracle));
}

TEST(QuietRoundsTest, AKeptNodeMeetsALaterUnchangedOneInALaterRound) {
  // The driver's round merges a2 into a; replayed round 1 merges b2 into b,
  // which rewires v to neg(b). In round 2 only v is re-keyed and u, with a
  // later id and unchanged since round 1, has its key: v is kept.
  ir::Graph g("G");
  NodeId x = g.AddInput("x", F32({2, 2}));
  NodeId a = g.AddNode("a", OpKind::kTanh, {x});
  NodeId a2 = g.AddNode("a2", OpKind::kTanh, {x});
  NodeId b = g.AddNode("b", OpKind::kExp, {a});
  NodeId b2 = g.AddNode("b2", OpKind::kExp, {a2});
  NodeId v = g.AddNode("v", OpKind::kNeg, {b2});
  NodeId u = g.AddNode("u", OpKind::kNeg, {b});
  g.AddOutput("u", u);
  g.AddOutput("v", v);
  Infer(g);
  ASSERT_EQ(RunCse(g), 1);
  QuietRounds r = RunQuietRounds(g, {});
  EXPECT_EQ(r.merged, 2);
  EXPECT_EQ(r.rounds, 3);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a = tanh(%0)\n"
            "%2 b = exp(%1)\n"
            "%3 v = neg(%2)\n"
            "outputs: u=%3, v=%3\n");
}

TEST(QuietRoundsTest, AnOutputFollowsAChainOfMerges) {
  // The driver's round merges a2 into a and od into o. Replayed round 1
  // merges o into o2 (both exp(a) now) and d into u (both neg(o)), which
  // rewires u to neg(o2); round 2 merges u into the earlier v: the output
  // on d follows d -> u -> v.
  ir::Graph g("G");
  NodeId x = g.AddInput("x", F32({2, 2}));
  NodeId a = g.AddNode("a", OpKind::kTanh, {x});
  NodeId a2 = g.AddNode("a2", OpKind::kTanh, {x});
  NodeId o2 = g.AddNode("o2", OpKind::kExp, {a});
  NodeId o = g.AddNode("o", OpKind::kExp, {a2});
  NodeId od = g.AddNode("od", OpKind::kExp, {a2});
  NodeId v = g.AddNode("v", OpKind::kNeg, {o2});
  NodeId u = g.AddNode("u", OpKind::kNeg, {o});
  NodeId d = g.AddNode("d", OpKind::kNeg, {od});
  g.AddOutput("d", d);
  g.AddOutput("u", u);
  g.AddOutput("v", v);
  Infer(g);
  ir::Graph oracle = g;
  ASSERT_EQ(RunCse(g), 2);
  QuietRounds r = RunQuietRounds(g, {});
  EXPECT_EQ(r.merged, 3);
  EXPECT_EQ(r.rounds, 3);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a = tanh(%0)\n"
            "%2 o2 = exp(%1)\n"
            "%3 v = neg(%2)\n"
            "outputs: d=%3, u=%3, v=%3\n");
  EXPECT_EQ(OptimizeByRounds(oracle, {}).cse_eliminated, 5);
  EXPECT_EQ(Render(oracle), Render(g));
}

TEST(QuietRoundsTest, FoldsAndMergesInterleave) {
  // y = x * ((1 + 1) * 2) + x * ((1 + 1) * 2), written out twice.
  // Round 1 (a full one) folds both sums to 2 and merges the four 2s into
  // the first; replayed round 2 folds both products to 4 and merges them;
  // round 3 merges the two x * 4; round 4 finds nothing.
  ir::Graph g("G");
  NodeId x = g.AddInput("x", F32({2, 2}));
  auto c = [&](std::string name, double v) { return g.AddConstant(std::move(name), AttrValue::Float(v)); };
  NodeId halves[2];
  for (int k = 0; k < 2; ++k) {
    std::string p = k ? "b" : "a";
    NodeId sum = g.AddNode(p + "1", OpKind::kAdd, {c(p + "k1", 1), c(p + "k2", 1)});
    NodeId prod = g.AddNode(p + "2", OpKind::kMul, {sum, c(p + "k3", 2)});
    halves[k] = g.AddNode("y" + p, OpKind::kMul, {x, prod});
  }
  g.AddOutput("out", g.AddNode("out", OpKind::kAdd, {halves[0], halves[1]}));
  Infer(g);
  ir::Graph oracle = g;
  OptStats stats = Optimize(g);
  EXPECT_EQ(stats.ToString(), "OptStats { dce: 0, identity: 0, const_fold: 4, cse: 5, fusion: 0 }");
  EXPECT_EQ(stats.rounds, 4);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a2 = constant[4:f32]\n"
            "%2 ya = mul(%0, %1)\n"
            "%3 out = add(%2, %2)\n"
            "outputs: out=%3\n");
  EXPECT_EQ(OptimizeByRounds(oracle, {}), stats);
  EXPECT_EQ(ir::DumpGraph(oracle), ir::DumpGraph(g));
}

TEST(QuietRoundsTest, LongConstantChainsOptimiseQuickly) {
  // x * (((1 + 1) + 1) + … + 1) through 20,000 named nodes: one level folds
  // per round, so 20,000 rounds; replayed, each costs its one fold.
  constexpr int kChain = 20000;
  ir::Graph g("Chain");
  NodeId x = g.AddInput("x", F32({2, 2}));
  // Typed f32 literals: weak ones would make shape inference re-type the
  // chain below each new node, quadratic in itself.
  auto one = [&](std::string name) {
    NodeId c = g.AddConstant(std::move(name), AttrValue::Float(1));
    g.node(c).declared_type = F32({});
    return c;
  };
  NodeId prev = one("c");
  for (int i = 0; i < kChain; ++i) prev = g.AddNode("s" + std::to_string(i), OpKind::kAdd, {prev, one("")});
  g.AddOutput("y", g.AddNode("y", OpKind::kMul, {x, prev}));
  Infer(g);
  const std::clock_t start = std::clock();
  OptStats stats = Optimize(g);
  const double ms = 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  EXPECT_EQ(stats.constants_folded, kChain);
  EXPECT_EQ(stats.rounds, kChain + 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 s19999 = constant[20001:f32]\n"
            "%2 y = mul(%0, %1)\n"
            "outputs: y=%2\n");
  EXPECT_LT(ms, 1000.0 * kTimeScale) << stats.ToString();
}

TEST(QuietRoundsTest, OptimizerMatchesPlainRoundsOnRandomGraphs) {
  std::mt19937 rng(20261201);
  int deep = 0;
  RoundKinds kinds;
  for (int t = 0; t < 600; ++t) {
    // One in seven has an input typed only at run time: literals are then
    // neither folded nor merged (their dtypes are provisional).
    ir::Graph g = RandomGraph(rng, t % 7 == 6);
    PassOptions options;
    switch (t % 6) {
      case 1: options.dce = false; break;
      case 2: options.fusion = false; break;
      case 3: options.const_fold = false; break;
      case 4: options.identity = false; break;
      default: break;
    }
    ir::Graph oracle = g;
    const std::string before = ir::DumpGraph(g);
    OptStats want = OptimizeByRounds(oracle, options, &kinds);
    OptStats got = Optimize(g, options);
    ASSERT_EQ(got, want) << "graph " << t << ": " << got.ToString() << " rounds " << got.rounds
                         << " vs " << want.ToString() << " rounds " << want.rounds << "\n" << before;
    ASSERT_EQ(ir::DumpGraph(g), ir::DumpGraph(oracle)) << "graph " << t << "\n" << before;
    ExpectInvariants(g);
    if (want.rounds >= 5) ++deep;
  }
  // The set exercises what it is for: replays, replays stopped by a
  // fusable pair, and long runs of rounds.
  EXPECT_GE(kinds.quiet, 300);
  EXPECT_GE(kinds.quiet_folding, 100);
  EXPECT_GE(kinds.merge_and_fusion, 20);
  EXPECT_GE(deep, 20);
  std::printf("[random] %d quiet rounds (%d folding), %d of CSE and fusion, %d graphs of 5+ rounds\n",
              kinds.quiet, kinds.quiet_folding, kinds.merge_and_fusion, deep);
}

TEST(QuietRoundsTest, LongTwinChainsOptimiseQuickly) {
  // 20,000 rounds: as full rounds over a 40,000-node graph, about a minute;
  // replayed, each costs what it merges. CPU time, for a loaded machine.
  constexpr int kChain = 20000;
  ir::Graph g = TwinChains(kChain);
  const std::clock_t start = std::clock();
  OptStats stats = Optimize(g);
  const double ms = 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  EXPECT_EQ(stats.cse_eliminated, kChain);
  EXPECT_EQ(stats.rounds, kChain + 1);
  EXPECT_EQ(g.num_nodes(), kChain + 2);
  EXPECT_LT(ms, 1000.0 * kTimeScale) << stats.ToString();
  ExpectInvariants(g);
}

}  // namespace
}  // namespace shrew::opt
