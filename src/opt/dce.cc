#include "opt/dce.h"

#include <cstddef>

namespace shrew::opt {

std::vector<bool> LiveNodes(const ir::Graph& graph) {
  const int n = graph.num_nodes();
  std::vector<bool> live(static_cast<size_t>(n), false);
  std::vector<ir::NodeId> stack;
  auto mark = [&](ir::NodeId id) {
    if (graph.HasNode(id) && !live[static_cast<size_t>(id)]) {
      live[static_cast<size_t>(id)] = true;
      stack.push_back(id);
    }
  };
  for (const ir::GraphOutput& out : graph.outputs()) mark(out.node);
  for (const ir::Param& p : graph.params()) mark(p.node);
  for (const ir::GraphInput& in : graph.inputs()) mark(in.node);
  // Explicit stack, not recursion: a 10^5-deep chain must not overflow the
  // (1 MB, in wasm) native stack.
  while (!stack.empty()) {
    ir::NodeId id = stack.back();
    stack.pop_back();
    for (ir::NodeId op : graph.node(id).operands) mark(op);
  }
  return live;
}

int RunDce(ir::Graph& graph) {
  std::vector<bool> live = LiveNodes(graph);
  int removed = 0;
  for (bool l : live) removed += l ? 0 : 1;
  if (removed > 0) graph.Compact(live);
  return removed;
}

namespace {

constexpr uint8_t kReferenced = 1;
constexpr uint8_t kAbsorbed = 2;

// Reference counts with every root (output, input, parameter) pinned by one
// extra count, so "count == 0" means "unreferenced and not a root".
std::vector<int> PinnedCounts(const ir::Graph& graph) {
  std::vector<int> counts = graph.ConsumerCounts();
  auto pin = [&](ir::NodeId id) {
    if (graph.HasNode(id)) ++counts[static_cast<size_t>(id)];
  };
  for (const ir::GraphOutput& out : graph.outputs()) pin(out.node);
  for (const ir::Param& p : graph.params()) pin(p.node);
  for (const ir::GraphInput& in : graph.inputs()) pin(in.node);
  return counts;
}

}  // namespace

OrphanSweep::OrphanSweep(const ir::Graph& graph) {
  std::vector<int> counts = PinnedCounts(graph);
  state_.resize(counts.size());
  for (size_t i = 0; i < counts.size(); ++i) state_[i] = counts[i] > 0 ? kReferenced : 0;
}

void OrphanSweep::Absorb(ir::NodeId id) {
  if (id >= 0 && static_cast<size_t>(id) < state_.size()) {
    state_[static_cast<size_t>(id)] |= kAbsorbed;
  }
}

int OrphanSweep::Run(ir::Graph& graph) {
  std::vector<int> counts = PinnedCounts(graph);
  std::vector<ir::NodeId> work;
  for (size_t i = 0; i < counts.size() && i < state_.size(); ++i) {
    if (counts[i] == 0 && state_[i] != 0) work.push_back(static_cast<ir::NodeId>(i));
  }
  if (work.empty()) return 0;
  // Removing a node releases its operands; one that drops to zero was
  // referenced (by this node) before, so it is an orphan too.
  std::vector<bool> keep(counts.size(), true);
  int removed = 0;
  while (!work.empty()) {
    ir::NodeId id = work.back();
    work.pop_back();
    keep[static_cast<size_t>(id)] = false;
    ++removed;
    for (ir::NodeId op : graph.node(id).operands) {
      if (graph.HasNode(op) && --counts[static_cast<size_t>(op)] == 0) work.push_back(op);
    }
  }
  graph.Compact(keep);
  return removed;
}

}  // namespace shrew::opt
