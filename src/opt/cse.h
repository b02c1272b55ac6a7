// Common-subexpression elimination (PIPELINE.md §6.5).
//
// Nodes are scanned in id order and keyed by: canonical operation, all
// attributes (compared kind-aware, so Int(1) != Float(1.0), and regardless
// of insertion order), the callee, for constants the resolved dtype (or
// "still weak"), and the operand id list in order (add(a, b) != add(b, a)).
// The first node of a key is kept; later ones are redirected to it
// (operands and outputs) and swept.
//
// Not eligible: inputs, parameters and every op flagged kFlagNoCse or
// kFlagStochastic (dropout, call, custom, repeat, the fused ops).
//
// Keys use the operand lists as they are when the pass starts and the
// redirections are applied after the scan, so a duplicate that only appears
// once its operands are merged is found in the next round (as the spec
// requires: the per-round counts depend on it).
//
// Hashing makes the pass linear in the number of nodes and attributes.
// Returns the number of nodes redirected.
#pragma once

#include "ir/graph.h"

namespace shrew::opt {

int RunCse(ir::Graph& graph);

}  // namespace shrew::opt
