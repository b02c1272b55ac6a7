// Execution order of a graph (PIPELINE.md §7.1): the tape runs its
// instructions in this order and the reference interpreter evaluates nodes in
// it too, so training-mode dropouts draw from the generator in the same order.
//
// Kahn's algorithm with a last-in-first-out work list: every node's count of
// operand references (a node used twice by one consumer counts twice); all
// nodes with count zero pushed in ascending id order; repeatedly pop the
// last pushed node, append it, and for each of its consumer references (in
// node-list order) decrement the consumer, pushing it when it reaches zero.
// The order is fixed by the spec so slots, frees, plans and dumps are
// reproducible; any topological order would compute the same values.
//
//   std::vector<NodeId> order = ExecutionOrder(graph);
//   // order[i] is the node whose value lives in logical slot i (§7.2).
#pragma once

#include <vector>

#include "ir/graph.h"

namespace shrew::ir {

// Every node exactly once when the graph is acyclic and its operand ids are
// valid (validation guarantees both). On a cycle the nodes on it are missing
// from the result; out-of-range operand ids are ignored.
std::vector<NodeId> ExecutionOrder(const Graph& graph);

}  // namespace shrew::ir
