#include "opt/cse.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/shapes.h"
#include "opt/cse_key.h"
#include "opt/dce.h"

namespace shrew::opt {

int RunCse(ir::Graph& graph) {
  const int n = graph.num_nodes();
  std::vector<ir::NodeId> replacement(static_cast<size_t>(n));
  // Open addressing over node ids (kNoNode = empty slot), at most half
  // full: one allocation instead of one per node, which matters at 10^5.
  int bits = 4;
  while ((size_t{1} << bits) < 2 * static_cast<size_t>(n)) ++bits;
  const size_t mask = (size_t{1} << bits) - 1;
  std::vector<ir::NodeId> table(mask + 1, ir::kNoNode);
  std::vector<uint64_t> hashes(static_cast<size_t>(n), 0);
  int redirected = 0;
  const bool provisional = ir::TypesDependOnInputs(graph);
  for (ir::NodeId i = 0; i < n; ++i) {
    replacement[static_cast<size_t>(i)] = i;
    const ir::Node& node = graph.node(i);
    if (!IsCseEligible(node, provisional)) continue;
    const uint64_t h = CseHash(node);
    hashes[static_cast<size_t>(i)] = h;
    // Fibonacci hashing spreads the mixer's weak low bits over the table.
    size_t start = static_cast<size_t>((h * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
    for (size_t slot = start;; slot = (slot + 1) & mask) {
      ir::NodeId other = table[slot];
      if (other == ir::kNoNode) {
        table[slot] = i;
        break;
      }
      if (hashes[static_cast<size_t>(other)] == h && SameCseKey(graph.node(other), node)) {
        replacement[static_cast<size_t>(i)] = other;
        ++redirected;
        break;
      }
    }
  }
  if (redirected == 0) return 0;

  // Kept nodes map to themselves, so one lookup per reference suffices.
  OrphanSweep sweep(graph);
  auto resolve = [&](ir::NodeId id) {
    return graph.HasNode(id) ? replacement[static_cast<size_t>(id)] : id;
  };
  for (ir::Node& node : graph.mutable_nodes()) {
    for (ir::NodeId& op : node.operands) op = resolve(op);
  }
  for (ir::GraphOutput& out : graph.mutable_outputs()) out.node = resolve(out.node);
  for (ir::NodeId i = 0; i < n; ++i) {
    if (replacement[static_cast<size_t>(i)] != i) sweep.Absorb(i);
  }
  sweep.Run(graph);
  return redirected;
}

}  // namespace shrew::opt
