#include "opt/cse.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/shapes.h"
#include "opt/dce.h"

namespace shrew::opt {
namespace {

// `provisional`: the graph's types depend on its inputs, so a run re-infers
// the literals' dtypes: `x + 1` and `z + 1` share a constant of the same
// provisional dtype now, but it adopts x's and z's dtypes then, which differ.
bool IsEligible(const ir::Node& node, bool provisional) {
  if (node.is_source()) return false;
  if (provisional && ir::IsRetypedLiteral(node)) return false;
  return !ir::HasFlag(node.op, ir::kFlagNoCse | ir::kFlagStochastic);
}

// The dtype part of a constant's key: the resolved dtype, or -1 while the
// constant is still weak. Other ops get -2 (their dtype follows from the
// operands and attributes, which are already in the key).
int DTypeTag(const ir::Node& node) {
  if (node.op != ir::OpKind::kConstant) return -2;
  return node.type.is_tensor() ? static_cast<int>(node.type.dtype()) : -1;
}

// A `range` without operands takes its length from its declared type
// (OPS.md §3.14): the type is then part of what it computes, like an
// attribute, so `range()` of [3] and of [5] are different values.
bool TypeInKey(const ir::Node& node) { return node.op == ir::OpKind::kRange && node.operands.empty(); }

// 64-bit on every target (size_t is 32-bit in wasm32).
uint64_t Mix(uint64_t h, uint64_t v) {
  // boost::hash_combine's mixer: cheap and good enough for a hash table key.
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

uint64_t HashAttrs(const ir::Attrs& attrs) {
  // Order-insensitive (sum of entry hashes), matching AttrsEqual. The
  // printed form distinguishes values well; the kind separates Int(1) from
  // Float(1.0), which both print as "1".
  uint64_t sum = 0;
  std::hash<std::string> hs;
  for (const ir::Attrs::Entry& e : attrs.entries()) {
    uint64_t h = Mix(hs(e.first), static_cast<uint64_t>(e.second.kind()));
    sum += Mix(h, hs(e.second.ToString()));
  }
  return sum;
}

// Same set of (name, value) pairs, in any order. Attribute lists hold a
// handful of entries, so the quadratic lookup is cheaper than sorting.
bool AttrsEqual(const ir::Attrs& a, const ir::Attrs& b) {
  if (a.size() != b.size()) return false;
  for (const ir::Attrs::Entry& e : a.entries()) {
    const ir::AttrValue* other = b.Find(e.first);
    if (other == nullptr || !(*other == e.second)) return false;
  }
  return true;
}

// Same key (§6.5): everything but the node's identity.
bool SameKey(const ir::Node& x, const ir::Node& y) {
  return x.op == y.op && DTypeTag(x) == DTypeTag(y) && x.operands == y.operands &&
         x.callee == y.callee && AttrsEqual(x.attrs, y.attrs) && (!TypeInKey(x) || x.type == y.type);
}

uint64_t HashNode(const ir::Node& node) {
  uint64_t h = Mix(static_cast<uint64_t>(node.op), static_cast<uint64_t>(DTypeTag(node) + 2));
  for (ir::NodeId op : node.operands) h = Mix(h, static_cast<uint32_t>(op));
  h = Mix(h, std::hash<std::string>()(node.callee));
  if (TypeInKey(node)) h = Mix(h, std::hash<std::string>()(node.type.ToString()));
  return Mix(h, HashAttrs(node.attrs));
}

}  // namespace

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
    if (!IsEligible(node, provisional)) continue;
    const uint64_t h = HashNode(node);
    hashes[static_cast<size_t>(i)] = h;
    // Fibonacci hashing spreads the mixer's weak low bits over the table.
    size_t start = static_cast<size_t>((h * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
    for (size_t slot = start;; slot = (slot + 1) & mask) {
      ir::NodeId other = table[slot];
      if (other == ir::kNoNode) {
        table[slot] = i;
        break;
      }
      if (hashes[static_cast<size_t>(other)] == h && SameKey(graph.node(other), node)) {
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
