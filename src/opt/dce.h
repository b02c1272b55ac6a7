// Dead-code elimination (PIPELINE.md §6.2) and the orphan sweep the other
// passes run after themselves.
//
// Roots are every output node, every parameter node and every input node: an
// input nobody reads stays, because graph calls bind inputs by position.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace shrew::opt {

// live[id] is true when a root reaches node `id` by following operands.
// Out-of-range operand ids are ignored.
std::vector<bool> LiveNodes(const ir::Graph& graph);

// Removes every node that is not live; survivors keep their relative order
// and are renumbered 0..m-1 (operands, inputs, outputs, params and the name
// map are remapped). Returns the number of nodes removed.
int RunDce(ir::Graph& graph);

// The internal sweep of identity elimination, folding, CSE and fusion
// ("drop what they orphaned", §6.1). Construct it before rewriting: it
// records which nodes are referenced (by an operand or as an output) or are
// roots. Run() then removes, transitively, every non-root node that has
// lost all its references, plus the nodes the pass declared absorbed; a
// node still referenced by a survivor is always kept, so no operand dangles.
// Nodes that were already unreferenced are left alone, so switching DCE off
// in PassOptions really keeps dead code; with DCE on (the default) nothing
// is dead at that point and the sweep removes exactly what became dead.
// Removals are not counted in OptStats.
//
// Node ids must not change between construction and Run(). Linear time.
class OrphanSweep {
 public:
  explicit OrphanSweep(const ir::Graph& graph);

  // `id` was rewritten away by the pass (bypassed, merged, fused into its
  // consumer) and no reference to it remains. Absorbed nodes go even when
  // nothing referenced them before; otherwise a dead duplicate or identity
  // would be "rewritten" again every round and the driver would never
  // converge. An absorbed node that is still referenced is kept.
  void Absorb(ir::NodeId id);

  // Returns the number of nodes removed (for tests; passes do not count it).
  int Run(ir::Graph& graph);

 private:
  // 1: referenced or a root when the sweep was created; 2: absorbed.
  std::vector<uint8_t> state_;
};

}  // namespace shrew::opt
