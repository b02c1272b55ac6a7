#include "jit/transpose_fold.h"

#include <cstdint>

#include "ir/op.h"

namespace shrew::jit {
namespace {

using ir::Node;
using ir::NodeId;
using ir::OpKind;

// axis in [-rank, rank) as 0-based, else -1.
int64_t Normalized(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return -1;
  return axis < 0 ? axis + rank : axis;
}

}  // namespace

bool SwapsLastTwoAxes(const Node& node) {
  if (node.operands.size() != 1 || !node.type.is_tensor() || node.type.rank() < 2) return false;
  const int64_t rank = node.type.rank();
  if (node.op == OpKind::kTranspose) {
    const ir::AttrValue* d0 = ir::AttrOrDefault(node.op, node.attrs, "dim0");
    const ir::AttrValue* d1 = ir::AttrOrDefault(node.op, node.attrs, "dim1");
    if (d0 == nullptr || d1 == nullptr || !d0->is_int() || !d1->is_int()) return false;
    const int64_t a = Normalized(d0->as_int(), rank), b = Normalized(d1->as_int(), rank);
    return (a == rank - 2 && b == rank - 1) || (a == rank - 1 && b == rank - 2);
  }
  if (node.op == OpKind::kPermute) {
    const ir::AttrValue* dims = ir::AttrOrDefault(node.op, node.attrs, "dims");
    if (dims == nullptr || !dims->is_int_list()) return false;
    const std::vector<int64_t>& p = dims->as_int_list();
    if (static_cast<int64_t>(p.size()) != rank) return false;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t want = i == rank - 2 ? rank - 1 : i == rank - 1 ? rank - 2 : i;
      if (Normalized(p[static_cast<size_t>(i)], rank) != want) return false;
    }
    return true;
  }
  return false;
}

std::vector<NodeId> FindTransposedOperands(const ir::Graph& graph, const std::vector<int>& consumers,
                                           const std::vector<uint8_t>& is_output) {
  std::vector<NodeId> folded(static_cast<size_t>(graph.num_nodes()), ir::kNoNode);
  for (const Node& node : graph.nodes()) {
    if (node.is_source() || node.operands.size() < 2) continue;
    if (node.op != OpKind::kMatmul && node.op != OpKind::kFusedMatmulAdd && node.op != OpKind::kFusedMatmulRelu) {
      continue;
    }
    const NodeId t = node.operands[1];
    if (!graph.HasNode(t)) continue;
    const Node& tn = graph.node(t);
    if (tn.is_source() || consumers[static_cast<size_t>(t)] != 1 || is_output[static_cast<size_t>(t)] ||
        !SwapsLastTwoAxes(tn)) {
      continue;
    }
    folded[static_cast<size_t>(node.id)] = t;
  }
  return folded;
}

}  // namespace shrew::jit
