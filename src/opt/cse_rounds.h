// The optimiser rounds that follow a round in which CSE was the only pass to
// change the graph (PIPELINE.md §6.1, §6.5), replayed without a pass over
// the whole graph per round.
//
// CSE merges one level of a duplicated expression per round, so two
// identical chains of n ops take n rounds, and full rounds cost O(n) each:
// O(n²) in all. Once a round has changed the graph through CSE alone, the
// following rounds' DCE, identity elimination and constant folding find
// nothing as long as only CSE rewrites: merging redirects a node to one of
// the same key (same op, attributes and operands), so nothing but the
// merged node becomes dead, no identity appears, and a folding candidate's
// operands stay constants of the same value. Fusion finds nothing either
// unless a merge leaves a node with a fusable first operand, which only the
// merge's survivors and the consumers it rewired can have.
//
// RunCseRounds replays those rounds. Each one merges exactly what RunCse
// would on the graph as it then is (the first node of a key is kept, keys
// from the operand lists at the round's start), but only nodes whose
// operands changed in the round before are re-keyed, against a table of the
// other nodes' keys kept across rounds; ids stay fixed while it runs and the
// graph is renumbered once at the end (renumbering keeps relative order, so
// keys compare alike either way). A round costs what it merges and rewires.
//
// Precondition: no enabled pass but CSE would change the graph now (as
// after a full round in which DCE, identity elimination, folding and fusion
// found nothing), and ids are a topological order.
#pragma once

#include "ir/graph.h"

namespace shrew::opt {

struct CseRounds {
  // Rounds replayed, the last one included (OptStats::rounds).
  int rounds = 0;
  // Nodes redirected over those rounds (OptStats::cse_eliminated).
  int merged = 0;
  // The last round merged nodes and left a fusion candidate behind: the
  // caller finishes that round with RunFusion and goes on with full rounds.
  // Otherwise the last round changed nothing and the graph is at the
  // optimiser's fixpoint.
  bool fusion_pending = false;
};

// `fusion`: whether the fusion pass is enabled (else candidates are not
// looked for).
CseRounds RunCseRounds(ir::Graph& graph, bool fusion);

}  // namespace shrew::opt
