// The optimiser rounds in which only constant folding and CSE change the
// graph (PIPELINE.md §6.1, §6.4, §6.5), replayed without a pass over the
// whole graph per round.
//
// Folding does one level of a nested constant expression per round and CSE
// merges one level of a duplicated expression, so a chain of n constant
// operations, or two identical chains of n ops, take n rounds; full rounds
// cost O(graph) each: O(n²) in all. Once a round has changed the graph
// through folding and CSE alone, the following rounds' DCE and identity
// elimination find nothing as long as only those two rewrite (each sweeps
// what it orphans, and neither makes an identity), and neither does fusion
// unless a merge leaves a node with a fusable first operand: a folded node
// is a constant, never part of a pattern, and a merge only changes the
// reference counts around the node it keeps. A merge never makes a node
// foldable either: it replaces a constant operand by an equal constant.
//
// RunQuietRounds replays those rounds. Each one folds and merges exactly
// what RunConstFold and RunCse would on the graph as it then is, but only
// looks at the nodes a fold or a merge of the round before can have
// changed: the readers of folded nodes may fold, and folded nodes and
// rewired readers are re-keyed against a table of the other nodes' keys
// kept across rounds. Ids stay fixed while it runs and the graph is
// renumbered once at the end (renumbering keeps relative order, so keys
// compare alike either way). A round costs what it folds and merges.
//
// Precondition: no enabled pass but folding and CSE would change the graph
// now (as after a full round in which DCE, identity elimination and fusion
// found nothing), and ids are a topological order.
#pragma once

#include "ir/graph.h"

namespace shrew::opt {

// Which passes are enabled (pipeline.h's PassOptions).
struct QuietPasses {
  bool const_fold = true;
  bool cse = true;
  bool fusion = true;  // else fusion candidates are not looked for
};

struct QuietRounds {
  // Rounds replayed, the last one included (OptStats::rounds).
  int rounds = 0;
  // Nodes folded and merged over those rounds (OptStats::constants_folded,
  // OptStats::cse_eliminated).
  int folded = 0;
  int merged = 0;
  // The last round merged nodes and left a fusion candidate behind: the
  // caller finishes that round with RunFusion and goes on with full rounds.
  // Otherwise the last round changed nothing and the graph is at the
  // optimiser's fixpoint.
  bool fusion_pending = false;
};

QuietRounds RunQuietRounds(ir::Graph& graph, const QuietPasses& passes);

}  // namespace shrew::opt
