#include "opt/quiet_rounds.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "ir/shapes.h"
#include "opt/const_fold.h"
#include "opt/cse_key.h"
#include "opt/fusion.h"

namespace shrew::opt {
namespace {

using ir::NodeId;

constexpr NodeId kEmpty = ir::kNoNode;
constexpr NodeId kErased = -2;

// Open addressing from a key to the one node holding it: the nodes not
// being re-keyed have distinct keys (equal ones were merged in an earlier
// round). Erased entries leave tombstones; the table is rebuilt when
// entries and tombstones fill three quarters of it.
class KeyTable {
 public:
  KeyTable(const ir::Graph& graph, const std::vector<uint64_t>& hashes)
      : graph_(graph), hashes_(hashes), present_(static_cast<size_t>(graph.num_nodes()), false) {
    int bits = 4;
    while ((size_t{1} << bits) < 2 * static_cast<size_t>(graph.num_nodes())) ++bits;
    bits_ = bits;
    slots_.assign(size_t{1} << bits, kEmpty);
  }

  struct Probe {
    size_t slot;  // the match, or where `v` would go
    bool found;
  };

  // The entry with `v`'s key (hashes_[v] must be current).
  Probe Find(NodeId v) const {
    const uint64_t h = hashes_[static_cast<size_t>(v)];
    size_t insert = slots_.size();
    for (size_t s = Start(h);; s = (s + 1) & Mask()) {
      NodeId u = slots_[s];
      if (u == kEmpty) return {insert < slots_.size() ? insert : s, false};
      if (u == kErased) {
        if (insert == slots_.size()) insert = s;
        continue;
      }
      if (hashes_[static_cast<size_t>(u)] == h && SameCseKey(graph_.node(u), graph_.node(v))) {
        return {s, true};
      }
    }
  }

  NodeId At(size_t slot) const { return slots_[slot]; }

  // Stores `v` at a slot from Find (a match is replaced by `v`).
  void Put(size_t slot, NodeId v) {
    NodeId old = slots_[slot];
    if (old >= 0) present_[static_cast<size_t>(old)] = false;
    if (old == kEmpty) ++used_;
    slots_[slot] = v;
    present_[static_cast<size_t>(v)] = true;
    if (4 * used_ > 3 * slots_.size()) Rebuild();
  }

  // Removes `v` if present, under the hash it was stored with.
  void Erase(NodeId v) {
    if (!present_[static_cast<size_t>(v)]) return;
    for (size_t s = Start(hashes_[static_cast<size_t>(v)]);; s = (s + 1) & Mask()) {
      if (slots_[s] == v) {
        slots_[s] = kErased;
        present_[static_cast<size_t>(v)] = false;
        return;
      }
    }
  }

 private:
  size_t Mask() const { return slots_.size() - 1; }
  // Fibonacci hashing spreads the mixer's weak low bits over the table.
  size_t Start(uint64_t h) const { return static_cast<size_t>((h * 0x9e3779b97f4a7c15ULL) >> (64 - bits_)); }

  void Rebuild() {
    std::vector<NodeId> old = std::move(slots_);
    slots_.assign(old.size(), kEmpty);
    used_ = 0;
    for (NodeId u : old) {
      if (u < 0) continue;
      size_t s = Start(hashes_[static_cast<size_t>(u)]);
      while (slots_[s] != kEmpty) s = (s + 1) & Mask();
      slots_[s] = u;
      ++used_;
    }
  }

  const ir::Graph& graph_;
  const std::vector<uint64_t>& hashes_;
  std::vector<bool> present_;
  std::vector<NodeId> slots_;
  int bits_ = 4;
  size_t used_ = 0;  // slots not empty: entries and tombstones
};

// The replay's state. Ids are fixed until Finish(): merged and swept nodes
// stay in the graph, marked dead, and readers are rewired in place.
class Replay {
 public:
  Replay(ir::Graph& graph, const QuietPasses& passes)
      : graph_(graph),
        passes_(passes),
        provisional_(ir::TypesDependOnInputs(graph)),
        hashes_(static_cast<size_t>(graph.num_nodes()), 0),
        table_(graph, hashes_),
        alive_(static_cast<size_t>(graph.num_nodes()), true),
        into_(static_cast<size_t>(graph.num_nodes()), ir::kNoNode),
        counts_(graph.ConsumerCounts()),
        is_output_(static_cast<size_t>(graph.num_nodes()), false),
        rewired_head_(static_cast<size_t>(graph.num_nodes()), -1),
        stamp_(static_cast<size_t>(graph.num_nodes()), 0) {
    const size_t n = static_cast<size_t>(graph.num_nodes());
    for (const ir::GraphOutput& out : graph.outputs()) {
      if (graph.HasNode(out.node)) is_output_[static_cast<size_t>(out.node)] = true;
    }
    // Readers as a flat index (CSR): one allocation, not one per node.
    first_.assign(n + 1, 0);
    for (const ir::Node& node : graph.nodes()) {
      for (NodeId op : node.operands) ++first_[static_cast<size_t>(op) + 1];
    }
    for (size_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
    readers_.resize(static_cast<size_t>(first_[n]));
    std::vector<int> fill(first_.begin(), first_.end() - 1);
    for (const ir::Node& node : graph.nodes()) {
      for (NodeId op : node.operands) readers_[static_cast<size_t>(fill[static_cast<size_t>(op)]++)] = node.id;
    }
    // The first round looks at every node, as the passes do.
    for (const ir::Node& node : graph.nodes()) {
      fold_next_.push_back(node.id);
      cse_next_.push_back(node.id);
    }
  }

  // One round of folding, then CSE; returns whether it changed anything.
  bool Round() {
    ++round_;
    int folded = passes_.const_fold ? Fold() : 0;
    int merged = passes_.cse ? Cse() : 0;
    return folded + merged > 0;
  }

  // After a round: whether fusion would now rewrite a node. The graph had no
  // candidate before. Folding makes none: a folded node and the constants
  // it read are neither producers nor consumers of a pattern. A merge of d
  // into k changes two things fusion looks at. It lowers the reference
  // counts of d's operands, which are k's: a node left with one reference
  // is read by k alone, so k is the only new consumer to check. And it
  // rewires d's readers onto k, which then has d's references and output
  // flag on top of its own: a reader c that fuses with k now fused with d
  // before, which the fixpoint rules out.
  bool FusionPending() const {
    if (!passes_.fusion) return false;
    for (NodeId k : keepers_) {
      if (IsFusionCandidate(graph_, k, counts_, is_output_)) return true;
    }
    return false;
  }

  // Outputs follow their node's merges; merged and swept nodes go; ids are
  // renumbered in order (the name map is rebuilt).
  void Finish() {
    if (!changed_) return;
    for (ir::GraphOutput& out : graph_.mutable_outputs()) {
      while (graph_.HasNode(out.node) && !alive_[static_cast<size_t>(out.node)]) {
        out.node = into_[static_cast<size_t>(out.node)];
      }
    }
    graph_.Compact(alive_);
  }

  int folded() const { return folded_; }
  int merged() const { return merged_; }

 private:
  // Constant folding (const_fold.h) of the nodes that may have become
  // foldable: in the first round all, then the readers of the nodes folded
  // in the round before (a merge replaces a constant operand by an equal
  // one and a folded node's readers are the only ones to gain a constant).
  // Decided on the graph as it is at the start, then applied; the constants
  // a fold leaves unread are swept (they have no operands of their own).
  int Fold() {
    std::vector<NodeId> candidates = Pending(fold_next_);
    std::vector<std::pair<NodeId, ir::AttrValue>> folds;
    for (NodeId v : candidates) {
      if (std::optional<ir::AttrValue> value = FoldedValue(graph_, graph_.node(v), provisional_)) {
        folds.emplace_back(v, std::move(*value));
      }
    }
    if (folds.empty()) return 0;
    for (auto& [v, value] : folds) {
      ir::Node& node = graph_.node(v);
      const std::vector<NodeId> read = node.operands;
      MakeConstant(node, std::move(value));
      cse_next_.push_back(v);  // a new key
      for (NodeId op : read) {
        if (--counts_[static_cast<size_t>(op)] == 0 && !is_output_[static_cast<size_t>(op)]) {
          alive_[static_cast<size_t>(op)] = false;
          table_.Erase(op);
        }
      }
      ForEachReader(v, [&](NodeId c) { fold_next_.push_back(c); });
    }
    changed_ = true;
    folded_ += static_cast<int>(folds.size());
    return static_cast<int>(folds.size());
  }

  // CSE (cse.h) re-keying the nodes whose keys may have changed: in the
  // first round all, then those folded or rewired since the last CSE. The
  // others keep distinct keys (equal ones were merged), so the table holds
  // one node per key.
  int Cse() {
    std::vector<NodeId> dirty;
    for (NodeId v : Pending(cse_next_)) {
      if (IsCseEligible(graph_.node(v), provisional_)) dirty.push_back(v);
    }
    for (NodeId v : dirty) table_.Erase(v);
    for (NodeId v : dirty) hashes_[static_cast<size_t>(v)] = CseHash(graph_.node(v));
    // Keys from the operand lists at the pass's start; rewiring follows.
    // In ascending id order the first node of a key is kept; a table entry
    // later than `v` was not re-keyed this round and gives way to `v`.
    std::vector<std::pair<NodeId, NodeId>> merges;  // (merged, kept)
    for (NodeId v : dirty) {
      KeyTable::Probe p = table_.Find(v);
      if (!p.found) {
        table_.Put(p.slot, v);
        continue;
      }
      NodeId u = table_.At(p.slot);
      if (u < v) {
        merges.emplace_back(v, u);
      } else {
        merges.emplace_back(u, v);
        table_.Put(p.slot, v);
      }
    }
    keepers_.clear();
    if (merges.empty()) return 0;

    for (const auto& [merged, kept] : merges) {
      alive_[static_cast<size_t>(merged)] = false;
      into_[static_cast<size_t>(merged)] = kept;
      if (is_output_[static_cast<size_t>(merged)]) is_output_[static_cast<size_t>(kept)] = true;
      keepers_.push_back(kept);
    }
    // Rewire the surviving readers of merged nodes (a merged reader keeps
    // its operands: it is gone, and a node merged with it is rewired too).
    std::vector<NodeId> touched;
    for (const auto& [merged, kept] : merges) {
      ForEachReader(merged, [&](NodeId c) {
        if (alive_[static_cast<size_t>(c)] && stamp_[static_cast<size_t>(c)] != round_) {
          stamp_[static_cast<size_t>(c)] = round_;
          touched.push_back(c);
        }
      });
    }
    for (NodeId c : touched) {
      for (NodeId& op : graph_.node(c).operands) {
        if (alive_[static_cast<size_t>(op)]) continue;
        NodeId to = into_[static_cast<size_t>(op)];
        --counts_[static_cast<size_t>(op)];
        ++counts_[static_cast<size_t>(to)];
        AddReader(to, c);
        op = to;
      }
      cse_next_.push_back(c);
    }
    for (const auto& [merged, kept] : merges) {
      for (NodeId op : graph_.node(merged).operands) --counts_[static_cast<size_t>(op)];
    }
    changed_ = true;
    merged_ += static_cast<int>(merges.size());
    return static_cast<int>(merges.size());
  }

  // Takes a work list: its live nodes, ascending, each once.
  std::vector<NodeId> Pending(std::vector<NodeId>& list) const {
    std::vector<NodeId> out;
    out.swap(list);
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](NodeId v) { return !alive_[static_cast<size_t>(v)]; }),
              out.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  template <typename F>
  void ForEachReader(NodeId id, F&& f) const {
    for (int k = first_[static_cast<size_t>(id)]; k < first_[static_cast<size_t>(id) + 1]; ++k) {
      f(readers_[static_cast<size_t>(k)]);
    }
    for (int k = rewired_head_[static_cast<size_t>(id)]; k >= 0; k = rewired_[static_cast<size_t>(k)].next) {
      f(rewired_[static_cast<size_t>(k)].reader);
    }
  }

  void AddReader(NodeId id, NodeId reader) {
    rewired_.push_back({reader, rewired_head_[static_cast<size_t>(id)]});
    rewired_head_[static_cast<size_t>(id)] = static_cast<int>(rewired_.size()) - 1;
  }

  ir::Graph& graph_;
  const QuietPasses passes_;
  const bool provisional_;
  std::vector<uint64_t> hashes_;
  KeyTable table_;
  std::vector<bool> alive_;       // false once merged or swept
  std::vector<NodeId> into_;      // the node a merged node was redirected to
  std::vector<int> counts_;       // operand references from the nodes in the graph
  std::vector<bool> is_output_;
  std::vector<int> first_;        // readers_[first_[i] .. first_[i+1]) read node i
  std::vector<NodeId> readers_;   // as the graph was at the start (may repeat a reader)
  // Readers moved onto a node since: per node a list threaded through
  // rewired_, newest first (-1 ends it). Lists may name nodes that no
  // longer read it (folded since): looking at one again is harmless.
  struct Rewired {
    NodeId reader;
    int next;
  };
  std::vector<Rewired> rewired_;
  std::vector<int> rewired_head_;
  std::vector<NodeId> fold_next_;  // may fold in the next round
  std::vector<NodeId> cse_next_;   // to re-key at the next CSE
  std::vector<NodeId> keepers_;    // the last CSE's kept nodes
  std::vector<int> stamp_;
  int round_ = 0;
  bool changed_ = false;
  int folded_ = 0;
  int merged_ = 0;
};

}  // namespace

QuietRounds RunQuietRounds(ir::Graph& graph, const QuietPasses& passes) {
  QuietRounds result;
  Replay replay(graph, passes);
  for (;;) {
    ++result.rounds;
    if (!replay.Round()) break;
    if (replay.FusionPending()) {
      result.fusion_pending = true;
      break;
    }
  }
  result.folded = replay.folded();
  result.merged = replay.merged();
  replay.Finish();
  return result;
}

}  // namespace shrew::opt
