// The optimiser driver (PIPELINE.md §6.1).
//
//   opt::OptStats stats = opt::Optimize(program, opt::PassOptions{});
//   std::puts(stats.ToString().c_str());
//   // OptStats { dce: 1, identity: 1, const_fold: 1, cse: 1, fusion: 4 }
//
// One round runs DCE -> identity elimination -> constant folding -> CSE ->
// fusion; rounds repeat until one changes nothing. Each counter is the sum
// of that pass's own rewrites over all rounds (and graphs); the orphan
// sweeps the other passes run after themselves are not counted as DCE.
//
// Optimisation never fails. A graph whose ids are not a topological order
// is renumbered first (TopologicalRenumber); one that cannot be (a cycle, a
// dangling operand: it would not have passed validation) is left untouched.
//
// Cost: a full round is linear in the graph (CSE hashes). The number of
// rounds is 1 + the longest chain of rewrites that the spec spreads over
// rounds (folding does one level of a nested constant expression per round,
// CSE one level of a duplicated expression), usually 2 or 3. Rounds that
// only folding and CSE can change (after one in which they alone did: a
// long chain of constant arithmetic, duplicated chains) are replayed at the
// cost of what they rewrite (quiet_rounds.h), so such a chain of n ops
// takes n rounds but not n passes over the graph.
#pragma once

#include <array>
#include <string>

#include "ir/graph.h"
#include "opt/pass.h"

namespace shrew::opt {

// Which passes run. A disabled pass is skipped in every round; the others
// still run in the spec's order. Disabling DCE keeps dead code that was
// there before (the other passes only sweep what they orphan themselves).
struct PassOptions {
  bool dce = true;
  bool identity = true;
  bool const_fold = true;
  bool cse = true;
  bool fusion = true;

  static PassOptions None() { return {false, false, false, false, false}; }
  friend bool operator==(const PassOptions&, const PassOptions&) = default;
};

struct OptStats {
  int dead_code_removed = 0;
  int identities_removed = 0;
  int constants_folded = 0;
  int cse_eliminated = 0;
  int ops_fused = 0;
  // Rounds run, the last one (which changed nothing) included; summed over
  // graphs by Optimize(Program). Not part of the display form.
  int rounds = 0;

  int total() const {
    return dead_code_removed + identities_removed + constants_folded + cse_eliminated + ops_fused;
  }
  OptStats& operator+=(const OptStats& other);
  // `OptStats { dce: 0, identity: 1, const_fold: 1, cse: 0, fusion: 2 }`.
  std::string ToString() const;

  friend bool operator==(const OptStats&, const OptStats&) = default;
};

// The five passes of a round, in order; `name` is the display key.
inline constexpr int kNumPasses = 5;
const std::array<Pass, kNumPasses>& RoundPasses();

OptStats Optimize(ir::Graph& graph, const PassOptions& options = {});
OptStats Optimize(ir::Program& program, const PassOptions& options = {});

}  // namespace shrew::opt
