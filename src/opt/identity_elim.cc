#include "opt/identity_elim.h"

#include <cstddef>
#include <vector>

#include "opt/dce.h"

namespace shrew::opt {
namespace {

// An identity whose declared type states more than its operand's type
// (`node y: Tensor<[2], f32> { op: x; }` with `x: ?`) is the only place that
// type is checked at run time (T6 when the graph is specialised), or the
// only source of a dimension name or dtype; bypassing it would silently drop
// that check or type, and optimisation must not change results (§4.1, §6).
bool IsBypassable(const ir::Node& node) {
  return node.role == ir::NodeRole::kCompute && node.op == ir::OpKind::kIdentity &&
         node.operands.size() == 1 && !node.declared_adds_facts;
}

}  // namespace

int RunIdentityElim(ir::Graph& graph) {
  const int n = graph.num_nodes();
  // source[i]: the node that replaces i. Ids are topological, so an
  // identity's operand is resolved before the identity itself and a chain
  // collapses in this single forward scan.
  std::vector<ir::NodeId> source(static_cast<size_t>(n));
  int bypassed = 0;
  for (ir::NodeId i = 0; i < n; ++i) {
    source[static_cast<size_t>(i)] = i;
    const ir::Node& node = graph.node(i);
    if (!IsBypassable(node)) continue;
    ir::NodeId op = node.operands[0];
    // A forward or out-of-range operand only occurs in invalid graphs; leave
    // such an identity alone rather than guess.
    if (!graph.HasNode(op) || op >= i) continue;
    source[static_cast<size_t>(i)] = source[static_cast<size_t>(op)];
    ++bypassed;
  }
  if (bypassed == 0) return 0;

  OrphanSweep sweep(graph);
  auto resolve = [&](ir::NodeId id) {
    return graph.HasNode(id) ? source[static_cast<size_t>(id)] : id;
  };
  for (ir::Node& node : graph.mutable_nodes()) {
    for (ir::NodeId& op : node.operands) op = resolve(op);
  }
  for (ir::GraphOutput& out : graph.mutable_outputs()) out.node = resolve(out.node);
  for (ir::NodeId i = 0; i < n; ++i) {
    if (source[static_cast<size_t>(i)] != i) sweep.Absorb(i);
  }
  sweep.Run(graph);
  return bypassed;
}

}  // namespace shrew::opt
