#include "opt/pipeline.h"

#include <algorithm>
#include <iterator>

#include "opt/const_fold.h"
#include "opt/cse.h"
#include "opt/dce.h"
#include "opt/fusion.h"
#include "opt/identity_elim.h"
#include "opt/quiet_rounds.h"

namespace shrew::opt {
namespace {

// Pointers into OptStats / PassOptions, in RoundPasses() order, so the
// driver is one loop instead of five copies.
constexpr int OptStats::*kCounters[kNumPasses] = {
    &OptStats::dead_code_removed, &OptStats::identities_removed, &OptStats::constants_folded,
    &OptStats::cse_eliminated, &OptStats::ops_fused};
constexpr bool PassOptions::*kSwitches[kNumPasses] = {&PassOptions::dce, &PassOptions::identity,
                                                      &PassOptions::const_fold, &PassOptions::cse,
                                                      &PassOptions::fusion};

// Indices in RoundPasses().
constexpr int kConstFold = 2;
constexpr int kCse = 3;

// Every pass but folding and CSE found nothing this round.
bool OnlyFoldAndCseChanged(const int (&counts)[kNumPasses]) {
  for (int k = 0; k < kNumPasses; ++k) {
    if (k != kConstFold && k != kCse && counts[k] != 0) return false;
  }
  return true;
}

// Operand ids smaller than the node's own id, all in range.
bool IsTopological(const ir::Graph& graph) {
  for (const ir::Node& node : graph.nodes()) {
    for (ir::NodeId op : node.operands) {
      if (op < 0 || op >= node.id) return false;
    }
  }
  return true;
}

}  // namespace

const std::array<Pass, kNumPasses>& RoundPasses() {
  static constexpr std::array<Pass, kNumPasses> kPasses = {{
      {"dce", &RunDce},
      {"identity", &RunIdentityElim},
      {"const_fold", &RunConstFold},
      {"cse", &RunCse},
      {"fusion", &RunFusion},
  }};
  return kPasses;
}

OptStats& OptStats::operator+=(const OptStats& other) {
  for (int OptStats::*counter : kCounters) this->*counter += other.*counter;
  rounds += other.rounds;
  return *this;
}

std::string OptStats::ToString() const {
  std::string out = "OptStats { ";
  for (int k = 0; k < kNumPasses; ++k) {
    if (k) out += ", ";
    out += RoundPasses()[k].name;
    out += ": ";
    out += std::to_string(this->*kCounters[k]);
  }
  return out + " }";
}

OptStats Optimize(ir::Graph& graph, const PassOptions& options) {
  OptStats stats;
  if (!IsTopological(graph) && !graph.TopologicalRenumber()) return stats;
  // Every rewrite strictly shrinks the graph or turns a non-constant,
  // non-fused node into a constant or fused one, so rounds terminate; the
  // loop needs no cap.
  bool changed = true;
  while (changed) {
    ++stats.rounds;
    int counts[kNumPasses] = {};
    for (int k = 0; k < kNumPasses; ++k) {
      if (!(options.*kSwitches[k])) continue;
      counts[k] = RoundPasses()[k].run(graph);
      stats.*kCounters[k] += counts[k];
    }
    changed = std::any_of(std::begin(counts), std::end(counts), [](int n) { return n > 0; });
    // Folding and CSE alone changed the graph: the next rounds are theirs
    // until a merge makes something fusable (quiet_rounds.h), replayed at
    // the cost of what they rewrite instead of a pass over the graph each.
    if (changed && OnlyFoldAndCseChanged(counts)) {
      QuietRounds more = RunQuietRounds(graph, {options.const_fold, options.cse, options.fusion});
      stats.rounds += more.rounds;
      stats.constants_folded += more.folded;
      stats.cse_eliminated += more.merged;
      if (!more.fusion_pending) break;
      stats.ops_fused += RunFusion(graph);
    }
  }
  return stats;
}

OptStats Optimize(ir::Program& program, const PassOptions& options) {
  OptStats total;
  for (ir::Graph& graph : program.graphs) total += Optimize(graph, options);
  return total;
}

}  // namespace shrew::opt
