// Fusion (PIPELINE.md §6.6, OPS.md §3.18). Three sub-passes, in this order:
//
//   (a) add A(M, c), M = matmul(a, b)  ->  A' = fused_matmul_add(a, b, c)
//       named `<A>_fused_matmul_add`. Only the FIRST operand is looked at:
//       `c + matmul(a, b)` is not fused.
//   (b) relu R(S), S = add(a, b) / sub(a, b)
//       ->  R' = fused_add_relu(a, b) / fused_sub_relu(a, b), named `<R>_fused`
//   (c) relu R(M), M = matmul(a, b)  ->  R' = fused_matmul_relu(a, b),
//       named `<R>_fused`
//
// In each, the absorbed producer (M or S) must have exactly one consumer
// reference (an operand list naming it twice counts twice) and must not be
// a graph output. Each sub-pass takes its consumer counts and output set
// from the graph as it is when that sub-pass starts, rewrites the consumer
// in place (same id, same outputs, same type; new op, operands and name)
// and then sweeps the orphaned producers (OrphanSweep). So
// relu(matmul(x, W) + b) becomes fused_matmul_add followed by a plain relu.
//
// A new name that is already taken gets `_2`, `_3`, … (the first free one,
// checked against every node name at the moment of renaming).
//
// Returns the number of rewritten nodes over the three sub-passes.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace shrew::opt {

int RunFusion(ir::Graph& graph);

// The sub-passes alone, for tests; RunFusion runs (a), (b), (c).
int FuseMatmulAdd(ir::Graph& graph);
int FuseAddSubRelu(ir::Graph& graph);
int FuseMatmulRelu(ir::Graph& graph);

// Whether a sub-pass would rewrite node `consumer` now, given each node's
// consumer references and output flag (as ir::Graph::ConsumerCounts and the
// graph's outputs give them). RunFusion changes nothing exactly when no
// node is a candidate.
bool IsFusionCandidate(const ir::Graph& graph, ir::NodeId consumer,
                       const std::vector<int>& consumer_counts, const std::vector<bool>& is_output);

}  // namespace shrew::opt
