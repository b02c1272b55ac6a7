// Shape inference driver: visiting order, weak constants, declared types
// (T6), the rule table, and the context helpers the rules share.
#include "ir/shapes.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "ir/node_diagnostic.h"
#include "ir/shapes_internal.h"

namespace shrew::ir {

using shapes_internal::ShapeContext;
using shapes_internal::ShapeRule;

namespace {

constexpr ShapeRule kRules[] = {
#define SHREW_OP(kind, name, arity, flags, rule) &shapes_internal::rule,
#include "ir/ops.def"
#undef SHREW_OP
};

}  // namespace

// ---------------------------------------------------------------- helpers

bool BroadcastDim(const Dim& a, const Dim& b, Dim* out) {
  if (a.is_one()) {
    *out = b;
    return true;
  }
  if (b.is_one()) {
    *out = a;
    return true;
  }
  if (a.is_fixed() && b.is_fixed()) {
    *out = a;
    return a.size() == b.size();
  }
  // A fixed size wins over an unknown one (the run only succeeds if they match).
  if (a.is_fixed()) {
    *out = a;
    return true;
  }
  if (b.is_fixed()) {
    *out = b;
    return true;
  }
  if (a.is_symbolic() && b.is_symbolic() && a.name() == b.name()) {
    *out = a;
    return true;
  }
  *out = Dim::Dynamic();
  return true;
}

std::optional<std::vector<Dim>> BroadcastDims(const std::vector<Dim>& a,
                                              const std::vector<Dim>& b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<Dim> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align on the right; missing leading axes count as 1.
    Dim da = i < rank - a.size() ? Dim::Fixed(1) : a[i - (rank - a.size())];
    Dim db = i < rank - b.size() ? Dim::Fixed(1) : b[i - (rank - b.size())];
    if (!BroadcastDim(da, db, &out[i])) return std::nullopt;
  }
  return out;
}

std::optional<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -static_cast<int64_t>(rank) || axis >= rank) return std::nullopt;
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

SplitChunks SplitChunksOf(int64_t length, int64_t chunks) {
  if (length == 0) return {0, 1};
  const int64_t c = length / chunks + (length % chunks != 0 ? 1 : 0);  // ceil(L/n) >= 1
  return {c, length / c + (length % c != 0 ? 1 : 0)};
}

std::optional<int64_t> SplitChunkSize(int64_t length, int64_t chunks, int64_t index) {
  if (chunks < 1 || length < 0 || index < 0) return std::nullopt;
  const SplitChunks split = SplitChunksOf(length, chunks);
  if (index >= split.produced) return std::nullopt;
  return std::min(split.size, length - index * split.size);
}

bool HasUntypedInputs(const Graph& graph) {
  for (const GraphInput& in : graph.inputs()) {
    if (graph.HasNode(in.node) && !graph.node(in.node).type.is_tensor()) return true;
  }
  return false;
}

bool TypesDependOnInputs(const Graph& graph) {
  if (HasUntypedInputs(graph)) return true;
  for (const Node& n : graph.nodes()) {
    if (n.op == OpKind::kCall && !n.is_source() && !n.type.is_tensor()) return true;
  }
  return false;
}

Graph WithInputTypes(const Graph& graph, const std::vector<std::optional<Type>>& input_types) {
  Graph g = graph;
  for (size_t i = 0; i < g.inputs().size() && i < input_types.size(); ++i) {
    if (!input_types[i]) continue;
    Node& n = g.node(g.inputs()[i].node);
    n.type = *input_types[i];
    n.declared_type = *input_types[i];
  }
  // Adopted literals adopt the same dtype again; the others now can.
  for (Node& n : g.mutable_nodes()) {
    if (IsRetypedLiteral(n)) n.type = Type::Unknown();
  }
  return g;
}

bool IsRetypedLiteral(const Node& node) {
  const AttrValue* v = node.op == OpKind::kConstant ? node.attr("value") : nullptr;
  return v != nullptr && (v->is_number() || v->is_bool()) && !node.declared_type && node.type.is_tensor() &&
         node.type.rank() == 0;
}

std::vector<NodeId> WeakConstants(const Graph& graph) {
  std::vector<NodeId> ids;
  for (const Node& n : graph.nodes()) {
    if (n.op == OpKind::kConstant && !n.type.is_tensor()) ids.push_back(n.id);
  }
  return ids;
}

// ---------------------------------------------------------------- context

namespace shapes_internal {

const char* ShapeContext::op_name() const { return OpName(node->op); }

void ShapeContext::Error(diag::Kind kind, const std::string& message) {
  had_error = true;
  AddNodeDiagnostic(*diags, *graph, *node, kind, message);
}

const AttrValue* ShapeContext::Attr(std::string_view name) const {
  if (const AttrValue* v = node->attrs.Find(name)) return v;
  const OpAttrSpec* spec = FindOpAttrSpec(node->op, name);
  if (spec && spec->has_default) return &spec->default_value;
  return nullptr;
}

namespace {
template <typename T, typename Check, typename Get>
std::optional<T> TypedAttr(ShapeContext& ctx, std::string_view name, const char* kind_text,
                           Check check, Get get) {
  const AttrValue* v = ctx.Attr(name);
  if (!v) {
    ctx.Error(diag::Kind::MissingAttribute,
              "missing attribute '" + std::string(name) + "' for " + ctx.op_name());
    return std::nullopt;
  }
  if (!check(*v)) {
    ctx.Error(diag::Kind::BadAttribute, "attribute '" + std::string(name) + "' of " +
                                            ctx.op_name() + " must be " + kind_text);
    return std::nullopt;
  }
  return get(*v);
}
}  // namespace

std::optional<int64_t> ShapeContext::IntAttr(std::string_view name) {
  return TypedAttr<int64_t>(
      *this, name, "an int", [](const AttrValue& v) { return v.is_int(); },
      [](const AttrValue& v) { return v.as_int(); });
}

std::optional<bool> ShapeContext::BoolAttr(std::string_view name) {
  return TypedAttr<bool>(
      *this, name, "a bool", [](const AttrValue& v) { return v.is_bool(); },
      [](const AttrValue& v) { return v.as_bool(); });
}

std::optional<double> ShapeContext::FloatAttr(std::string_view name) {
  return TypedAttr<double>(
      *this, name, "a number", [](const AttrValue& v) { return v.is_number(); },
      [](const AttrValue& v) { return v.as_float(); });
}

bool ShapeContext::RequireFloat(const Type& t) {
  if (t.is_unknown() || IsFloat(t.dtype())) return true;
  Error(diag::Kind::DtypeClass,
        std::string(op_name()) + " requires a float operand, got " + DTypeName(t.dtype()));
  return false;
}

bool ShapeContext::RequireNumeric(const Type& t) {
  if (t.is_unknown() || IsNumeric(t.dtype())) return true;
  Error(diag::Kind::DtypeClass,
        std::string(op_name()) + " requires a numeric operand, got " + DTypeName(t.dtype()));
  return false;
}

bool ShapeContext::SameDType(const Type& a, const Type& b) {
  if (a.is_unknown() || b.is_unknown() || a.dtype() == b.dtype()) return true;
  // Nothing converts implicitly (OPS.md §1.3); name the cast that would,
  // towards the float side when one is float.
  const DType to = IsFloat(b.dtype()) && !IsFloat(a.dtype()) ? b.dtype() : a.dtype();
  Error(diag::Kind::DtypeMismatch, std::string("dtype mismatch: ") + DTypeName(a.dtype()) + " and " +
                                       DTypeName(b.dtype()) + "; convert one with cast(..., dtype: \"" +
                                       DTypeName(to) + "\")");
  return false;
}

bool ShapeContext::RequireRankAtLeast(const Type& t, int r) {
  if (t.is_unknown() || t.rank() >= r) return true;
  Error(diag::Kind::RankMismatch, std::string(op_name()) + " expects rank >= " +
                                      std::to_string(r) + ", got rank " +
                                      std::to_string(t.rank()));
  return false;
}

bool ShapeContext::RequireRank(const Type& t, int r, const char* what) {
  if (t.is_unknown() || t.rank() == r) return true;
  std::string w = what ? std::string(what) + " " : std::string();
  Error(diag::Kind::RankMismatch, std::string(op_name()) + " expects " + w + "rank " +
                                      std::to_string(r) + ", got rank " +
                                      std::to_string(t.rank()));
  return false;
}

std::optional<std::vector<Dim>> ShapeContext::Broadcast(const std::vector<Dim>& a,
                                                        const std::vector<Dim>& b) {
  auto out = BroadcastDims(a, b);
  if (!out) {
    Error(diag::Kind::BroadcastMismatch,
          "shapes " + DimsToString(a) + " and " + DimsToString(b) + " cannot be broadcast");
  }
  return out;
}

std::optional<int> ShapeContext::Axis(int64_t axis, int rank) {
  auto out = NormalizeAxis(axis, rank);
  if (!out) {
    Error(diag::Kind::AxisOutOfRange, "axis " + std::to_string(axis) +
                                          " is out of range for a rank-" +
                                          std::to_string(rank) + " tensor");
  }
  return out;
}

Dim ShapeContext::BindDim(const Dim& d) const {
  return options->bindings ? d.Bind(*options->bindings) : d;
}

bool DimsDiffer(const Dim& a, const Dim& b) {
  return a.is_fixed() && b.is_fixed() && a.size() != b.size();
}

Dim MergeDim(const Dim& a, const Dim& b) {
  if (a.is_fixed()) return a;
  if (b.is_fixed()) return b;
  if (a.is_symbolic()) return a;
  return b;
}

}  // namespace shapes_internal

// ---------------------------------------------------------------- driver

namespace {

constexpr int8_t kNotWeak = -1;

// The unary elementwise operations (neg, relu … sqrt) are elementwise
// operations in OPS.md §1.3's sense: of weak operands they are weak, so
// `x * sqrt(2.0)` computes sqrt in x's dtype (it said "dtype mismatch: f64
// and f32" for an f64 x) and `x + exp(1)` takes exp of 1.0. `not` gives bool.
bool IsWeakUnary(OpKind op) { return HasFlag(op, kFlagElementwiseUnary) && !HasFlag(op, kFlagLogical); }

// relu(a + b) and relu(a - b) fused (PIPELINE.md §6.6): their literals take
// a dtype as the unfused pair's do (OPS.md §3.18), which a `?` graph's
// per-run typing sees after fusion.
bool IsFusedAddSubRelu(OpKind op) { return op == OpKind::kFusedAddRelu || op == OpKind::kFusedSubRelu; }

// Operand range [first, last) that shares the node's dtype and takes part in
// weak adoption; empty when the op does not adopt.
// A repeat applies its body operation to its operands (the carried value
// first), so the body's operation decides: `repeat(2) { x * 2 }` makes the 2
// x's dtype as `x * 2` does.
std::pair<int, int> WeakGroup(const Node& n) {
  int count = static_cast<int>(n.operands.size());
  const OpKind op = n.op == OpKind::kRepeat && n.repeat_body ? n.repeat_body->op : n.op;
  if (op == OpKind::kWhere) return {1, std::min(3, count)};
  if (HasFlag(op, kFlagAdoptsWeak)) return {0, count};
  if ((op == OpKind::kIdentity || IsWeakUnary(op)) && count == 1) return {0, 1};
  return {0, 0};
}

// Whether a node whose whole weak group is weak is weak itself (arithmetic,
// `where`, identity, the unary functions); comparisons and logical ops
// produce bool.
bool PreservesWeak(const Node& n) {
  return HasFlag(n.op, kFlagArithmetic) || n.op == OpKind::kWhere || n.op == OpKind::kIdentity ||
         IsWeakUnary(n.op) || IsFusedAddSubRelu(n.op);
}

}  // namespace

std::vector<bool> ProvisionalTypes(const Graph& graph) {
  std::vector<bool> provisional(static_cast<size_t>(graph.num_nodes()), false);
  if (!TypesDependOnInputs(graph)) return provisional;
  for (const Node& n : graph.nodes()) {  // operands before their users (id order)
    bool p = IsRetypedLiteral(n);
    if (!p && !n.declared_type && PreservesWeak(n)) {
      const auto [first, last] = WeakGroup(n);
      p = first < last;
      for (int k = first; p && k < last; ++k) {
        const NodeId op = n.operands[static_cast<size_t>(k)];
        p = graph.HasNode(op) && provisional[static_cast<size_t>(op)];
      }
    }
    provisional[static_cast<size_t>(n.id)] = p;
  }
  return provisional;
}

namespace {

std::optional<WeakKind> WeakKindOfValue(const AttrValue* v) {
  if (!v) return std::nullopt;
  if (v->is_bool()) return WeakKind::kBool;
  if (v->is_int()) return WeakKind::kInt;
  if (v->is_float()) return WeakKind::kFloat;
  return std::nullopt;
}

class GraphInferrer {
 public:
  GraphInferrer(Graph* g, const Program* p, diag::DiagnosticBag* d, const InferOptions& o)
      : graph_(*g), program_(p), diags_(d), options_(o),
        weak_(static_cast<size_t>(g->num_nodes()), kNotWeak),
        walked_(static_cast<size_t>(g->num_nodes()), false),
        settled_(static_cast<size_t>(g->num_nodes()), 0) {}

  void Run() {
    for (NodeId id = 0; id < graph_.num_nodes(); ++id) InferOne(id);
    CheckReturnType();
    // A declaration that gave a weak sub-expression its dtype is that dtype's
    // only source when a run re-types the literals (WithInputTypes), so it
    // must survive optimisation then. Otherwise the adopted dtype stays on
    // the constants and the declaration states nothing more.
    if (!weak_declared_.empty() && TypesDependOnInputs(graph_)) {
      for (NodeId id : weak_declared_) graph_.node(id).declared_adds_facts = true;
    }
  }

 private:
  Type Bound(const Type& t) const { return options_.bindings ? t.Bind(*options_.bindings) : t; }
  bool IsWeak(NodeId id) const { return weak_[static_cast<size_t>(id)] != kNotWeak; }

  // Gives `id` and the weak sub-expression under it `dtype`. With `keep_weak`
  // the nodes stay weak (an all-weak expression settling on a joint
  // provisional dtype) and take `kind`. Only operands with smaller ids are
  // followed, so malformed (cyclic) graphs terminate.
  //
  // A keep-weak walk skips a node that already has `dtype` and `kind` and
  // was walked since the last change to a walked node: everything under it
  // has them too. Without that, a chain of weak arithmetic (`c1 = 1 + 1;
  // c2 = c1 + 1; …`) re-walks the whole chain below every new node.
  void SetWeakDType(NodeId root, DType dtype, bool keep_weak, WeakKind kind) {
    // With each node: whether it is the operand of a neg (`x + -128`: the
    // literal 128 is written, -128 is what must fit i8).
    std::vector<std::pair<NodeId, bool>> stack{{root, false}};
    std::vector<NodeId> operations;  // the sub-expression's non-constant nodes
    std::vector<NodeId> walked;
    bool changed_walked = false;  // a node an earlier walk went through changed
    while (!stack.empty()) {
      const auto [id, negated] = stack.back();
      stack.pop_back();
      if (!graph_.HasNode(id) || !IsWeak(id)) continue;
      Node& n = graph_.node(id);
      const size_t i = static_cast<size_t>(id);
      const bool same = n.type.is_tensor() && n.type.dtype() == dtype &&
                        weak_[i] == (keep_weak ? static_cast<int8_t>(kind) : kNotWeak);
      if (keep_weak && same && settled_[i] == epoch_) continue;
      if (!same && walked_[i]) changed_walked = true;
      walked.push_back(id);
      if (n.op == OpKind::kConstant && !keep_weak) CheckLiteralFits(n, dtype, negated);
      if (n.op != OpKind::kConstant) operations.push_back(id);
      if (!same || !n.type.is_tensor()) {
        n.type = Type::Tensor(n.type.is_tensor() ? n.type.dims() : std::vector<Dim>{}, dtype);
      }
      weak_[i] = keep_weak ? static_cast<int8_t>(kind) : kNotWeak;
      auto [first, last] = WeakGroup(n);
      for (int k = first; k < last; ++k) {
        NodeId op = n.operands[static_cast<size_t>(k)];
        if (op < id) stack.push_back({op, n.op == OpKind::kNeg});
      }
    }
    // A change to a node some earlier walk went through may break what that
    // walk settled: start a new epoch (every earlier settlement lapses).
    if (changed_walked || !keep_weak) ++epoch_;
    for (NodeId id : walked) {
      walked_[static_cast<size_t>(id)] = true;
      settled_[static_cast<size_t>(id)] = keep_weak ? epoch_ : 0;
    }
    if (keep_weak) return;
    // The final dtype may not suit the sub-expression's operations (`-1` for
    // a u8 operand is neg on u8; `true + true` for a bool one is add on
    // bool): their rules run again, in order, and report it at the node.
    std::sort(operations.begin(), operations.end());
    for (NodeId id : operations) {
      const Type t = ApplyRule(id);
      if (t.is_tensor()) graph_.node(id).type = t;
    }
  }

  // Clears weakness of the sub-expression: the provisional dtype is final.
  void Finalize(NodeId root) {
    if (!graph_.HasNode(root) || !IsWeak(root)) return;
    finalizing_ = true;
    SetWeakDType(root, graph_.node(root).type.dtype(), false, WeakKind::kBool);
    finalizing_ = false;
  }

  // `negated`: the literal is the operand of a neg (`u + -1`), whose rule
  // reports a negative literal for an unsigned dtype itself.
  void CheckLiteralFits(const Node& n, DType dtype, bool negated) {
    const AttrValue* v = n.attr("value");
    auto kind = WeakKindOfValue(v);
    if (!kind) return;
    double f = v->is_float() ? v->as_float() : 0.0;
    const std::string written = (negated ? "-" : "") + v->ToString();
    const std::string kind_word = *kind == WeakKind::kInt ? "integer" : *kind == WeakKind::kBool ? "bool" : "float";
    // "float literal 0.5", or the config key the source wrote: "config key 'Scale' (float 0.5)".
    auto literal = [&](const std::string& word, const std::string& value) {
      const std::string* key = n.config_key();
      if (key == nullptr) return (word.empty() ? "" : word + " ") + "literal " + value;
      return "config key '" + *key + "' (" + (word.empty() ? "" : word + " ") + value + ")";
    };
    if (!WeakLiteralFits(*kind, f, dtype)) {
      // Its dtype comes from a node's declared type, or from an operand.
      std::string msg = adopting_declared_ != nullptr
                            ? literal(IsComplex(dtype) ? "" : "float", v->ToString()) +
                                  " does not fit the declared type " + adopting_declared_->ToString()
                        : IsComplex(dtype)
                            ? literal("", v->ToString()) + " cannot be used with a " + DTypeName(dtype) + " operand"
                        // Integral but past the i64 storage (9.3e18): its trouble is the size, not a fraction.
                        : std::isfinite(f) && std::trunc(f) == f
                            ? literal("float", written) + " does not fit " + DTypeName(dtype) +
                                  (dtype == DType::kU8 ? " (0 to 255)" : " (held as i64: -9223372036854775808 to 9223372036854775807)")
                            : literal("float", v->ToString()) + " cannot be used with an integer operand";
      if (!diags_->capped()) AddNodeDiagnostic(*diags_, graph_, n, diag::Kind::DtypeMismatch, msg);
      return;
    }
    // A finite literal that the dtype's storage rounds to inf (`cast(1e300,
    // dtype: "f64")`: the literal, unadopted, is f32) computes with inf: W005.
    if (IsFloat(dtype) && *kind != WeakKind::kBool) {
      const double x = *kind == WeakKind::kInt ? static_cast<double>(v->as_int()) : f;
      const bool in_f32 = StorageOf(dtype) == StorageType::kF32;
      if (in_f32 && std::isfinite(x) && std::isinf(static_cast<float>(x)) && !diags_->capped()) {
        AddNodeDiagnostic(*diags_, graph_, n, diag::Kind::LiteralOverflow,
                          literal(kind_word, written) + " is " + ((x < 0) != negated ? "-inf" : "inf") + " as " +
                              DTypeName(dtype) + " (held as f32, whose largest finite value is 3.4028235e+38)" +
                              (finalizing_ ? "; a literal no operation adopts takes the default dtype, " +
                                                 std::string(DTypeName(dtype)) + " (compile option defaultDtype)"
                                           : ""));
      }
      return;
    }
    // u8 is the one integer dtype stored narrower than i64 (OPS.md §1.3;
    // the others hold any i64, as their arithmetic does); an integral float
    // literal (`300.0`) is held to the same range.
    if (dtype == DType::kU8 && *kind != WeakKind::kBool && !negated) {
      const double value = *kind == WeakKind::kInt ? static_cast<double>(v->as_int()) : f;
      if ((value < 0 || value > 255) && !diags_->capped()) {
        AddNodeDiagnostic(*diags_, graph_, n, diag::Kind::DtypeMismatch,
                          literal(kind_word, v->ToString()) + " does not fit u8 (0 to 255)");
      }
      return;
    }
    // A negative value for the other unsigned dtypes, as neg's rule tells
    // `x + -2`: a config key holds one without a neg (`kn: -2;`).
    if (IsUnsignedInt(dtype) && *kind != WeakKind::kBool && !negated) {
      const double value = *kind == WeakKind::kInt ? static_cast<double>(v->as_int()) : f;
      if (value < 0 && !diags_->capped()) {
        AddNodeDiagnostic(*diags_, graph_, n, diag::Kind::DtypeMismatch,
                          literal(kind_word, v->ToString()) + " does not fit " + DTypeName(dtype) +
                              " (an unsigned dtype: no negative values)");
      }
    }
  }

  Type OperandType(NodeId self, NodeId op) const {
    // Forward references (malformed graphs) read as unknown.
    if (!graph_.HasNode(op) || op >= self) return Type::Unknown();
    return graph_.node(op).type;
  }

  // The node's shape rule on its operands' current types (diagnostics go to
  // the bag at the node).
  Type ApplyRule(NodeId id) {
    Node& n = graph_.node(id);
    ShapeContext ctx;
    ctx.graph = &graph_;
    ctx.node = &n;
    ctx.program = program_;
    ctx.options = &options_;
    ctx.diags = diags_;
    for (NodeId op : n.operands) ctx.in.push_back(OperandType(id, op));
    return kRules[static_cast<int>(n.op)](ctx);
  }

  void InferOne(NodeId id) {
    Node& n = graph_.node(id);
    n.declared_adds_facts = false;  // recomputed below: a previous result is never trusted
    if (n.is_source()) {
      if (n.declared_type) n.type = Bound(*n.declared_type);
      CheckOverflow(id);
      return;
    }
    // Embedding accepts (table, ids): swap into (ids, table) order (OPS.md §3.11.1).
    if (n.op == OpKind::kEmbedding && n.operands.size() == 2) {
      Type a = OperandType(id, n.operands[0]);
      Type b = OperandType(id, n.operands[1]);
      if (a.is_tensor() && b.is_tensor() && IsFloat(a.dtype()) && IsInteger(b.dtype())) {
        std::swap(n.operands[0], n.operands[1]);
        AddNodeDiagnostic(*diags_, graph_, n, diag::Kind::EmbeddingOperandsSwapped,
                          "embedding operands read as (indices, table): the first is " + a.ToString() +
                              " (a float table) and the second " + b.ToString() +
                              " (integer indices), so they were swapped; write embedding(indices, table)");
      }
    }

    std::optional<WeakKind> result_weak;
    if (n.op == OpKind::kConstant && n.type.is_unknown()) {
      result_weak = WeakKindOfValue(n.attr("value"));
    }
    ResolveWeakOperands(id, &result_weak);

    Type inferred = ApplyRule(id);
    // The rule may have swapped operands or changed nothing else; refetch.
    Node& node = graph_.node(id);
    node.type = inferred;
    if (result_weak && inferred.is_tensor()) weak_[static_cast<size_t>(id)] = static_cast<int8_t>(*result_weak);

    CheckRepeatIteration(node);
    if (node.declared_type && node.declared_type->is_tensor()) {
      Type declared = Bound(*node.declared_type);
      const bool adopted = IsWeak(id);
      if (adopted) {
        adopting_declared_ = &declared;
        SetWeakDType(id, declared.dtype(), false, WeakKind::kBool);
        adopting_declared_ = nullptr;
        inferred = node.type;
      }
      // Compared with what inference found (after a weak adoption, which the
      // declaration decided); bound, so a name fixed by the compile's dims
      // is a fact inference has too.
      node.declared_adds_facts = DeclaredTypeAddsFacts(declared, inferred);
      if (adopted && !node.declared_adds_facts) weak_declared_.push_back(id);
      const std::string clash = inferred.is_tensor() ? NamedSizeClash(declared, inferred) : "";
      if (!TypesCompatible(declared, inferred) || !clash.empty()) {
        if (!diags_->capped()) {
          AddNodeDiagnostic(*diags_, graph_, node, diag::Kind::DeclaredTypeMismatch,
                            "declared type " + declared.ToString() + " does not match inferred type " +
                                inferred.ToString() + clash);
        }
        node.type = declared;
      } else if (inferred.is_tensor()) {
        // Per dim, the more precise of the two: a declared `?` takes what
        // inference found, and so does a declared name where inference found
        // a fixed size (the node computes that size whatever the name says;
        // keeping the name would leave the node unplannable when nothing
        // binds it).
        Type merged = declared;
        for (int i = 0; i < merged.rank(); ++i) {
          const Dim& d = merged.dim(i);
          if (d.is_symbolic() && inferred.dim(i).is_fixed()) named_.emplace(d.name(), NamedSize{inferred.dim(i).size(), id});
          if (d.is_dynamic() || (d.is_symbolic() && inferred.dim(i).is_fixed())) {
            merged.mutable_dims()[static_cast<size_t>(i)] = inferred.dim(i);
          }
        }
        node.type = merged;
      } else {
        node.type = declared;
      }
    }
    CheckOverflow(id);
  }

  // A declared name whose fixed inferred size differs from the one an
  // earlier declaration gave it: ": dimension 0 is 3 but M is 2 (bound by
  // node 'y')"; empty when none does. It only finds errors: a type never
  // takes its size from another node's declaration, which optimisation may
  // remove (a dead node's).
  std::string NamedSizeClash(const Type& declared, const Type& inferred) const {
    if (inferred.rank() != declared.rank()) return "";
    for (int i = 0; i < declared.rank(); ++i) {
      const Dim& d = declared.dim(i);
      auto it = d.is_symbolic() ? named_.find(d.name()) : named_.end();
      if (it == named_.end() || !inferred.dim(i).is_fixed() || inferred.dim(i).size() == it->second.size) continue;
      return ": dimension " + std::to_string(i) + " is " + std::to_string(inferred.dim(i).size()) + " but " + d.name() +
             " is " + std::to_string(it->second.size) + " (bound by node '" + graph_.node(it->second.node).name + "')";
    }
    return "";
  }

  bool Overflows(const Type& t) const { return t.NumElements(options_.bindings).overflow(); }

  // A type whose element count does not fit in 64 bits is reported once, at
  // the first node that has it (not again at every consumer).
  void CheckOverflow(NodeId id) {
    const Node& n = graph_.node(id);
    if (!Overflows(n.type)) return;
    for (NodeId op : n.operands) {
      if (graph_.HasNode(op) && op < id && Overflows(graph_.node(op).type)) return;
    }
    if (!diags_->capped())
      AddNodeDiagnostic(*diags_, graph_, n, diag::Kind::ShapeOverflow,
                        "element count of " + n.type.ToString() + " is over 2^63 - 1 elements");
  }

  // An unrolled repeat's iteration gives its carried operand's type (OPS.md
  // §3.15). The repeat's own rule checked that as far as types were known;
  // a run's shapes decide the rest (a `?` dim, an input typed per run),
  // reported as the repeat's rule would.
  // Its type is then the carried one, as the repeat's was: where the body's
  // rule only finds `[?]` (`concat(x, x)` of `[N]`), or nothing (a call of a
  // graph typed per run; its kernel compares what the callee gives).
  void CheckRepeatIteration(Node& n) {
    if (!n.repeat_iteration || n.operands.empty()) return;
    const Type carried = OperandType(n.id, n.operands[0]);
    if (!carried.is_tensor()) return;
    if (!n.type.is_tensor() || TypesEqualWhereKnown(carried, n.type)) {
      n.type = carried;
      return;
    }
    if (!diags_->capped())
      AddNodeDiagnostic(*diags_, graph_, n, diag::Kind::RepeatTypeChange, RepeatChangesTypeMessage(carried, n.type));
  }

  // Applies OPS.md §1.3 to the operands of node `id` before its rule runs.
  void ResolveWeakOperands(NodeId id, std::optional<WeakKind>* result_weak) {
    const Node& n = graph_.node(id);
    auto [first, last] = WeakGroup(n);
    auto valid = [&](NodeId op) { return graph_.HasNode(op) && op < id; };
    // Operands outside the group are used as they are: their provisional
    // dtype becomes final.
    for (int i = 0; i < static_cast<int>(n.operands.size()); ++i) {
      if (i >= first && i < last) continue;
      NodeId op = n.operands[static_cast<size_t>(i)];
      if (valid(op)) Finalize(op);
    }
    if (first >= last) return;
    std::optional<DType> typed;
    bool all_weak = true;
    std::optional<WeakKind> joined;
    for (int i = first; i < last; ++i) {
      NodeId op = n.operands[static_cast<size_t>(i)];
      if (!valid(op) || graph_.node(op).type.is_unknown()) {
        all_weak = false;
        continue;
      }
      if (IsWeak(op)) {
        auto k = static_cast<WeakKind>(weak_[static_cast<size_t>(op)]);
        joined = joined ? JoinWeak(*joined, k) : k;
      } else {
        all_weak = false;
        if (!typed) typed = graph_.node(op).type.dtype();
      }
    }
    if (typed) {
      for (int i = first; i < last; ++i) {
        NodeId op = n.operands[static_cast<size_t>(i)];
        if (valid(op) && IsWeak(op)) SetWeakDType(op, *typed, false, WeakKind::kBool);
      }
      return;
    }
    if (!all_weak || !joined) return;  // some operand unknown: leave weak ones pending
    // A float-only function of weak integers (`exp(1)`) computes in the
    // default float dtype while nothing else gives it one, not in i64; neg
    // of a weak bool in i64 (`x * -true` on an f64 x is -x, as `0 - true`).
    // A repeat's body decides, as in WeakGroup (`repeat(1) { exp(1) }`).
    const OpKind op = n.op == OpKind::kRepeat && n.repeat_body ? n.repeat_body->op : n.op;
    if ((HasFlag(op, kFlagFloatOnly) && IsWeakUnary(op)) || IsFusedAddSubRelu(op)) {
      joined = JoinWeak(*joined, WeakKind::kFloat);
    }
    // Arithmetic of weak bools is of int kind, as neg's is: bool → number is
    // 0 or 1, so `x + (true + true)` on an f32 x is x + 2, and `true + true`
    // nothing adopts is 2 in i64, as `-true` is -1 and `true + 1` 2.
    if (op == OpKind::kNeg || HasFlag(op, kFlagArithmetic)) joined = JoinWeak(*joined, WeakKind::kInt);
    DType provisional = DefaultDTypeFor(*joined, options_.default_float);
    bool keep = PreservesWeak(n);
    for (int i = first; i < last; ++i) {
      SetWeakDType(n.operands[static_cast<size_t>(i)], provisional, keep, *joined);
    }
    if (keep) *result_weak = *joined;
  }

  void CheckReturnType() {
    if (!graph_.return_type() || graph_.outputs().empty()) return;
    const GraphOutput& out = graph_.outputs().front();
    if (!graph_.HasNode(out.node)) return;
    Type declared = Bound(*graph_.return_type());
    const Type& actual = graph_.node(out.node).type;
    if (TypesCompatible(declared, actual)) return;
    diag::Span span = out.span.valid() ? out.span : graph_.span();
    if (!diags_->capped()) {
      diags_->Add(diag::Kind::DeclaredTypeMismatch, span,
                  "[" + graph_.name() + "] the header declares -> " + declared.ToString() + " but its first output '" +
                      out.name + "' is " + actual.ToString());
    }
  }

  Graph& graph_;
  const Program* program_;
  diag::DiagnosticBag* diags_;
  const InferOptions& options_;
  std::vector<int8_t> weak_;  // kNotWeak or a WeakKind
  // While a node's declared type gives its weak sub-expression a dtype: that type, for the messages.
  const Type* adopting_declared_ = nullptr;
  bool finalizing_ = false;  // Finalize: literals take the default dtype, no operand's
  // SetWeakDType's memory: whether a walk went through a node, and the
  // epoch in which the last keep-weak walk through it ended (0: none).
  std::vector<bool> walked_;
  std::vector<uint32_t> settled_;
  uint32_t epoch_ = 1;
  // Nodes whose declared type adds nothing but a weak sub-expression's dtype.
  std::vector<NodeId> weak_declared_;
  // The sizes declared names took where inference found a fixed size
  // (`node y: Tensor<[M]>` of a `[2]`), and the node that declared each
  // first: a name is one size in a graph (LANGUAGE.md §4.1), so a later
  // declaration of M found another size is an error (NamedSizeClash).
  struct NamedSize {
    int64_t size;
    NodeId node;
  };
  std::map<std::string, NamedSize, std::less<>> named_;
};

}  // namespace

bool InferGraphTypes(Graph* graph, const Program* program, diag::DiagnosticBag* diags,
                     const InferOptions& options) {
  size_t before = diags->error_count();
  GraphInferrer(graph, program, diags, options).Run();
  return diags->error_count() == before;
}

bool SpecializeGraphTypes(Graph* graph, const Program* program, const DimBindings& bindings,
                          diag::DiagnosticBag* diags, InferOptions options) {
  options.bindings = &bindings;
  return InferGraphTypes(graph, program, diags, options);
}

bool InferProgramTypes(Program* program, diag::DiagnosticBag* diags,
                       const InferOptions& options) {
  size_t before = diags->error_count();
  const int n = static_cast<int>(program->graphs.size());
  // Post-order over the call graph: callees first. Iterative DFS; a graph on
  // the current path (recursion, reported by validation) is not re-entered.
  std::vector<std::vector<std::pair<int, diag::Span>>> callees(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) callees[static_cast<size_t>(i)] = program->CallsIn(program->graphs[static_cast<size_t>(i)]);
  std::vector<int8_t> state(static_cast<size_t>(n), 0);  // 0 new, 1 on path, 2 done
  std::vector<int> order;
  for (int root = 0; root < n; ++root) {
    if (state[static_cast<size_t>(root)]) continue;
    std::vector<std::pair<int, size_t>> stack{{root, 0}};
    state[static_cast<size_t>(root)] = 1;
    while (!stack.empty()) {
      auto& [g, next] = stack.back();
      const auto& cs = callees[static_cast<size_t>(g)];
      if (next < cs.size()) {
        int c = cs[next++].first;
        if (state[static_cast<size_t>(c)] == 0) {
          state[static_cast<size_t>(c)] = 1;
          stack.push_back({c, 0});
        }
        continue;
      }
      state[static_cast<size_t>(g)] = 2;
      order.push_back(g);
      stack.pop_back();
    }
  }
  for (int g : order) {
    InferGraphTypes(&program->graphs[static_cast<size_t>(g)], program, diags, options);
  }
  return diags->error_count() == before;
}

Status RunTimeShapeError(const Graph& graph, const diag::DiagnosticBag& diags) {
  for (const diag::Diagnostic& d : diags.all()) {
    if (d.severity != diag::Severity::Error) continue;
    // The node it is about, named as run-time errors name nodes ("node 'y'
    // (reshape)"), else the graph's own check ("[G] …", which names none).
    std::string text = d.message;
    if (d.node >= 0 && graph.HasNode(d.node)) {
      text = graph.NodeLabel(graph.node(d.node)) + ": " + text.substr(d.node_prefix);
    } else if (const std::string own = "[" + graph.name() + "] "; text.starts_with(own)) {
      text.erase(0, own.size());
    }
    text = "graph '" + graph.name() + "': " + text;
    return (d.kind == diag::Kind::ShapeOverflow ? ResourceExhausted(std::move(text)) : InvalidArgument(std::move(text)))
        .At(d.span);
  }
  return InvalidArgument("graph '" + graph.name() + "': shape inference failed");
}

}  // namespace shrew::ir
