#include "opt/fusion.h"

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "opt/dce.h"

namespace shrew::opt {
namespace {

using ir::NodeId;
using ir::OpKind;

// Which names are taken while fusion renames nodes. The graph's own name
// map is current when fusion starts; the changes since then (renames, and
// absorbed producers whose names the deferred sweep will free) are kept as
// a delta, so uniqueness is checked against the graph as it is at each
// rename without rebuilding the map after every one (that would be
// quadratic), nor hashing every name up front.
class NameTracker {
 public:
  explicit NameTracker(const ir::Graph& graph) : graph_(graph) {}

  bool Taken(const std::string& name) const {
    int count = graph_.FindNode(name) != ir::kNoNode ? 1 : 0;
    auto it = delta_.find(name);
    if (it != delta_.end()) count += it->second;
    return count > 0;
  }

  // `base`, or `base_2`, `base_3`, …: the first that no node has (the rule
  // of ir::Graph::UniqueName).
  std::string Unique(std::string_view base) const {
    std::string name(base);
    for (int k = 2; Taken(name); ++k) name = std::string(base) + "_" + std::to_string(k);
    return name;
  }

  void Rename(ir::Node& node, std::string_view base) {
    std::string name = Unique(base);
    Release(node.name);
    ++delta_[name];
    node.name = std::move(name);
  }

  void Release(const std::string& name) { --delta_[name]; }

 private:
  const ir::Graph& graph_;
  std::unordered_map<std::string, int> delta_;
};

// State shared by the sub-passes of one RunFusion call.
struct FusionRun {
  explicit FusionRun(const ir::Graph& graph) : sweep(graph), names(graph) {}
  OrphanSweep sweep;
  NameTracker names;
};

// What one sub-pass matches and produces.
struct Pattern {
  // The consumer being rewritten (add or relu) and its operand count; the
  // producer is always its first operand (`b + matmul(x, W)` never fuses).
  OpKind consumer;
  size_t consumer_arity;
  // Producer kinds accepted and the fused op each one yields.
  struct Producer {
    OpKind producer;
    OpKind fused;
  };
  Producer producers[2];
  int num_producers;
  const char* suffix;
};

// The fused op node `i` becomes under `pattern`, if its first operand is an
// accepted producer with one consumer reference and not an output.
std::optional<OpKind> FusedOpFor(const ir::Graph& graph, const Pattern& pattern, NodeId i,
                                  const std::vector<int>& consumers, const std::vector<bool>& is_output) {
  const ir::Node& c = graph.node(i);
  if (c.is_source() || c.op != pattern.consumer || c.operands.size() != pattern.consumer_arity) {
    return std::nullopt;
  }
  NodeId p = c.operands[0];
  if (!graph.HasNode(p) || p >= i) return std::nullopt;
  const ir::Node& prod = graph.node(p);
  if (prod.is_source() || prod.operands.size() != 2) return std::nullopt;
  if (consumers[static_cast<size_t>(p)] != 1 || is_output[static_cast<size_t>(p)]) return std::nullopt;
  // The producer disappears into the fused node, and with it the run-time
  // check of a declared type that states more than inference found (§4.1):
  // such a producer stays, as an output would.
  if (prod.declared_adds_facts) return std::nullopt;
  // A repeat's iteration is checked against its carried operand, operand 0
  // (Node::repeat_iteration): fusing would change that operand, or drop the
  // check with an absorbed producer.
  if (c.repeat_iteration || prod.repeat_iteration) return std::nullopt;
  for (int k = 0; k < pattern.num_producers; ++k) {
    if (prod.op == pattern.producers[k].producer) return pattern.producers[k].fused;
  }
  return std::nullopt;
}

// Runs one sub-pass: for every node C of kind `consumer` whose operand 0 is
// a producer P of an accepted kind with one consumer reference and not an
// output, C becomes fused(P.operands..., C.operands[1:]...).
//
// The orphan sweep is deferred to the caller. That is equivalent to the
// spec's sweep after each sub-pass: the only nodes a sub-pass orphans are
// its absorbed producers (their operands move to the fused node), whose
// names are released here, and a not-yet-swept producer cannot change the
// next sub-pass's matches: any node it references is also referenced by the
// fused node that replaced its consumer, which is no longer an add or a
// relu, so that node has two consumers either way.
int RunPattern(ir::Graph& graph, const Pattern& pattern, std::optional<FusionRun>& run) {
  const int n = graph.num_nodes();
  const std::vector<int> consumers = graph.ConsumerCounts();
  std::vector<bool> is_output(static_cast<size_t>(n), false);
  for (const ir::GraphOutput& out : graph.outputs()) {
    if (graph.HasNode(out.node)) is_output[static_cast<size_t>(out.node)] = true;
  }

  // Match first, on the unmodified graph, then rewrite: the spec computes
  // candidates from the graph as it is at the start of the sub-pass.
  struct Match {
    NodeId consumer;
    NodeId producer;
    OpKind fused;
  };
  std::vector<Match> matches;
  for (NodeId i = 0; i < n; ++i) {
    if (std::optional<OpKind> fused = FusedOpFor(graph, pattern, i, consumers, is_output)) {
      matches.push_back({i, graph.node(i).operands[0], *fused});
    }
  }
  if (matches.empty()) return 0;

  // Created at the first rewrite: the sweep must see the graph before it.
  if (!run) run.emplace(graph);
  for (const Match& m : matches) {
    // A producer has exactly one consumer reference, so it belongs to one
    // match, and producers are never consumers of the same pattern: the
    // rewrites are independent.
    const ir::Node& producer = graph.node(m.producer);
    std::vector<NodeId> operands = producer.operands;
    ir::Node& c = graph.node(m.consumer);
    // A unary consumer (relu) with no declared type to check cannot fail:
    // the fused op's failures are the producer's, and messages name it and
    // its place.
    if (pattern.consumer_arity == 1 && !c.declared_type) {
      c.fused_producer = ir::Node::FusedProducer{producer.name, producer.span};
    }
    for (size_t k = 1; k < c.operands.size(); ++k) operands.push_back(c.operands[k]);
    c.op = m.fused;
    c.operands = std::move(operands);
    run->names.Rename(c, c.name + pattern.suffix);
    run->sweep.Absorb(m.producer);
  }
  // The producers disappear at the sweep; their names are free from the
  // next sub-pass on, as after the spec's per-sub-pass sweep.
  for (const Match& m : matches) run->names.Release(graph.node(m.producer).name);
  return static_cast<int>(matches.size());
}

constexpr Pattern kMatmulAdd{
    OpKind::kAdd, 2, {{OpKind::kMatmul, OpKind::kFusedMatmulAdd}}, 1, "_fused_matmul_add"};
constexpr Pattern kAddSubRelu{
    OpKind::kRelu,
    1,
    {{OpKind::kAdd, OpKind::kFusedAddRelu}, {OpKind::kSub, OpKind::kFusedSubRelu}},
    2,
    "_fused"};
constexpr Pattern kMatmulRelu{
    OpKind::kRelu, 1, {{OpKind::kMatmul, OpKind::kFusedMatmulRelu}}, 1, "_fused"};

int RunPatterns(ir::Graph& graph, std::initializer_list<const Pattern*> patterns) {
  std::optional<FusionRun> run;
  int fused = 0;
  for (const Pattern* p : patterns) fused += RunPattern(graph, *p, run);
  // One sweep (and one renumbering) for all sub-passes; it also rebuilds
  // the name map after the renames.
  if (run && run->sweep.Run(graph) == 0) graph.RebuildNameMap();
  return fused;
}

}  // namespace

int FuseMatmulAdd(ir::Graph& graph) { return RunPatterns(graph, {&kMatmulAdd}); }
int FuseAddSubRelu(ir::Graph& graph) { return RunPatterns(graph, {&kAddSubRelu}); }
int FuseMatmulRelu(ir::Graph& graph) { return RunPatterns(graph, {&kMatmulRelu}); }

int RunFusion(ir::Graph& graph) {
  return RunPatterns(graph, {&kMatmulAdd, &kAddSubRelu, &kMatmulRelu});
}

bool IsFusionCandidate(const ir::Graph& graph, ir::NodeId consumer,
                       const std::vector<int>& consumer_counts, const std::vector<bool>& is_output) {
  for (const Pattern* p : {&kMatmulAdd, &kAddSubRelu, &kMatmulRelu}) {
    if (FusedOpFor(graph, *p, consumer, consumer_counts, is_output)) return true;
  }
  return false;
}

}  // namespace shrew::opt
