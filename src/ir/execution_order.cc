#include "ir/execution_order.h"

namespace shrew::ir {

std::vector<NodeId> ExecutionOrder(const Graph& graph) {
  const int n = graph.num_nodes();
  std::vector<int> pending(static_cast<size_t>(n), 0);
  // consumers[v]: one entry per operand reference to v, in node-list order.
  std::vector<std::vector<NodeId>> consumers(static_cast<size_t>(n));
  for (const Node& node : graph.nodes()) {
    for (NodeId op : node.operands) {
      if (!graph.HasNode(op)) continue;
      ++pending[static_cast<size_t>(node.id)];
      consumers[static_cast<size_t>(op)].push_back(node.id);
    }
  }
  std::vector<NodeId> stack;
  for (NodeId id = 0; id < n; ++id) {
    if (pending[static_cast<size_t>(id)] == 0) stack.push_back(id);
  }
  std::vector<NodeId> order;
  order.reserve(static_cast<size_t>(n));
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    order.push_back(id);
    for (NodeId c : consumers[static_cast<size_t>(id)]) {
      if (--pending[static_cast<size_t>(c)] == 0) stack.push_back(c);
    }
  }
  return order;
}

}  // namespace shrew::ir
