#include "opt/cse_key.h"

#include <functional>
#include <string>

#include "ir/shapes.h"

namespace shrew::opt {
namespace {

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

// A declared type that states more than inference found (Node::
// declared_adds_facts) is checked at run time on the node that carries it,
// so it is part of what the node is: `node a: Tensor<[2], f64> { op: relu(x); }`
// and `node b: Tensor<[3], f64> { op: relu(x); }` must both stay, or one of
// the checks is lost and b would report a's type. Nodes whose declarations
// add nothing key as before.
const ir::Type* CheckedDeclaredType(const ir::Node& node) {
  return node.declared_adds_facts && node.declared_type ? &*node.declared_type : nullptr;
}

bool SameCheckedDeclaredType(const ir::Node& x, const ir::Node& y) {
  const ir::Type* a = CheckedDeclaredType(x);
  const ir::Type* b = CheckedDeclaredType(y);
  return a == nullptr ? b == nullptr : b != nullptr && *a == *b;
}

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

}  // namespace

// `x + 1` and `z + 1` share a constant of the same provisional dtype now,
// but it adopts x's and z's dtypes at run time, which may differ.
bool IsCseEligible(const ir::Node& node, bool provisional) {
  if (node.is_source()) return false;
  if (provisional && ir::IsRetypedLiteral(node)) return false;
  return !ir::HasFlag(node.op, ir::kFlagNoCse | ir::kFlagStochastic);
}

// Same key (§6.5): everything but the node's identity.
bool SameCseKey(const ir::Node& x, const ir::Node& y) {
  return x.op == y.op && DTypeTag(x) == DTypeTag(y) && x.operands == y.operands &&
         x.callee == y.callee && AttrsEqual(x.attrs, y.attrs) && (!TypeInKey(x) || x.type == y.type) &&
         SameCheckedDeclaredType(x, y) && x.repeat_iteration == y.repeat_iteration;
}

uint64_t CseHash(const ir::Node& node) {
  uint64_t h = Mix(static_cast<uint64_t>(node.op), static_cast<uint64_t>(DTypeTag(node) + 2));
  for (ir::NodeId op : node.operands) h = Mix(h, static_cast<uint32_t>(op));
  h = Mix(h, std::hash<std::string>()(node.callee));
  if (TypeInKey(node)) h = Mix(h, std::hash<std::string>()(node.type.ToString()));
  if (const ir::Type* t = CheckedDeclaredType(node)) h = Mix(h, std::hash<std::string>()(t->ToString()));
  // A repeat's iteration carries a run-time check (Node::repeat_iteration):
  // merged into a plain node, the check would be gone.
  h = Mix(h, node.repeat_iteration ? 1 : 0);
  return Mix(h, HashAttrs(node.attrs));
}

}  // namespace shrew::opt
