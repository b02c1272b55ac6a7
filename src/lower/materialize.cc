#include "lower/materialize.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "ir/attr.h"
#include "ir/node_diagnostic.h"

namespace shrew::lower {
namespace {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;

struct ImplicitParam {
  const char* suffix;
  enum class Shape : uint8_t { kD, kDD, kD4D, k4D, k4DD } shape;
  enum class Init : uint8_t { kOnes, kZeros, kInvSqrtD, kInvSqrt4D } init;
};

// OPS.md §3.12, in operand order.
constexpr ImplicitParam kAttentionParams[] = {
    {"w_q", ImplicitParam::Shape::kDD, ImplicitParam::Init::kInvSqrtD},
    {"w_k", ImplicitParam::Shape::kDD, ImplicitParam::Init::kInvSqrtD},
    {"w_v", ImplicitParam::Shape::kDD, ImplicitParam::Init::kInvSqrtD},
    {"w_o", ImplicitParam::Shape::kDD, ImplicitParam::Init::kInvSqrtD},
};
constexpr ImplicitParam kBlockParams[] = {
    {"ln1.weight", ImplicitParam::Shape::kD, ImplicitParam::Init::kOnes},
    {"ln1.bias", ImplicitParam::Shape::kD, ImplicitParam::Init::kZeros},
    {"attn.w_q", ImplicitParam::Shape::kDD, ImplicitParam::Init::kInvSqrtD},
    {"attn.w_k", ImplicitParam::Shape::kDD, ImplicitParam::Init::kInvSqrtD},
    {"attn.w_v", ImplicitParam::Shape::kDD, ImplicitParam::Init::kInvSqrtD},
    {"attn.w_o", ImplicitParam::Shape::kDD, ImplicitParam::Init::kInvSqrtD},
    {"ln2.weight", ImplicitParam::Shape::kD, ImplicitParam::Init::kOnes},
    {"ln2.bias", ImplicitParam::Shape::kD, ImplicitParam::Init::kZeros},
    {"ff1.weight", ImplicitParam::Shape::kD4D, ImplicitParam::Init::kInvSqrtD},
    {"ff1.bias", ImplicitParam::Shape::k4D, ImplicitParam::Init::kInvSqrtD},
    {"ff2.weight", ImplicitParam::Shape::k4DD, ImplicitParam::Init::kInvSqrt4D},
    {"ff2.bias", ImplicitParam::Shape::kD, ImplicitParam::Init::kInvSqrt4D},
};

bool HasImplicitParams(OpKind op, size_t operand_count) {
  return operand_count == 1 && (op == OpKind::kMultiHeadAttention || op == OpKind::kTransformerBlock);
}

size_t ImplicitParamCount(OpKind op) {
  return op == OpKind::kMultiHeadAttention ? std::size(kAttentionParams) : std::size(kBlockParams);
}

ir::InitSpec UniformInit(double bound) {
  ir::InitSpec s;
  s.kind = ir::InitSpec::Kind::kUniform;
  s.a = -bound;
  s.b = bound;
  // Shortest round-trip text, so ParseInit(text) gives back exactly a and b.
  s.text = "uniform(" + ir::FormatDouble(-bound) + ", " + ir::FormatDouble(bound) + ")";
  return s;
}

class Materializer {
 public:
  Materializer(ir::Graph* graph, diag::DiagnosticBag* diags, const MaterializeOptions& options)
      : graph_(*graph), diags_(*diags), options_(options) {}

  bool Run() {
    // Most graphs have nothing to materialise: leave them untouched (no
    // copy, no renumbering).
    bool any = false;
    for (const ir::Node& n : graph_.nodes()) {
      if ((n.op == OpKind::kRepeat && n.repeat_body) || HasImplicitParams(n.op, n.operands.size())) {
        any = true;
        break;
      }
    }
    if (!any) return true;
    if (!CheckSize()) return false;
    const std::vector<ir::Node>& old = graph_.nodes();
    old_to_new_.assign(old.size(), ir::kNoNode);
    nodes_.reserve(old.size());
    for (const ir::Node& n : old) {
      if (n.op == OpKind::kRepeat && n.repeat_body) {
        if (!Unroll(n)) return false;
      } else {
        ir::Node copy = n;
        Remap(&copy.operands);
        NodeId id = Emit(std::move(copy), n.name, -1);
        if (id == ir::kNoNode) return false;
        old_to_new_[static_cast<size_t>(n.id)] = id;
      }
    }
    Commit();
    return true;
  }

 private:
  void Error(diag::Kind kind, const ir::Node& n, const std::string& message) {
    ir::AddNodeDiagnostic(diags_, graph_, n, kind, message);
  }

  // Nodes materialisation adds, checked before building anything.
  bool CheckSize() {
    int64_t added = 0;
    for (const ir::Node& n : graph_.nodes()) {
      int64_t copies = 1;
      OpKind op = n.op;
      if (n.op == OpKind::kRepeat && n.repeat_body) {
        const ir::AttrValue* count = n.attr("count");
        copies = count != nullptr && count->is_int() ? std::max<int64_t>(count->as_int(), 1) : 1;
        op = n.repeat_body->op;
      }
      int64_t per_copy = 1;
      if (HasImplicitParams(op, n.operands.size())) {
        per_copy += static_cast<int64_t>(ImplicitParamCount(op));
      }
      int64_t total = 0;
      if (__builtin_mul_overflow(copies, per_copy, &total) ||
          __builtin_add_overflow(added, total - 1, &added) || added > kMaxAddedNodes) {
        Error(diag::Kind::TooManyNodes, n,
              "materialising this node would add more than " + std::to_string(kMaxAddedNodes) +
                  " nodes to the graph");
        return false;
      }
    }
    return true;
  }

  void Remap(std::vector<NodeId>* operands) const {
    for (NodeId& op : *operands) {
      op = op >= 0 && static_cast<size_t>(op) < old_to_new_.size() ? old_to_new_[op] : ir::kNoNode;
    }
  }

  NodeId Push(ir::Node node) {
    node.id = static_cast<NodeId>(nodes_.size());
    nodes_.push_back(std::move(node));
    return nodes_.back().id;
  }

  // Appends `node` (operands already in new ids), preceded by its implicit
  // parameters when it needs them, named `BASE.SUFFIX` or, for iteration
  // `layer` of a repeat, `BASE.layer<layer>.SUFFIX`.
  NodeId Emit(ir::Node node, const std::string& base, int64_t layer) {
    if (!HasImplicitParams(node.op, node.operands.size())) return Push(std::move(node));
    const std::string prefix =
        layer < 0 ? base + "." : base + ".layer" + std::to_string(layer) + ".";
    std::optional<int64_t> d = ModelDim(node);
    if (!d) return ir::kNoNode;
    // Copied: Push() below may reallocate nodes_.
    const ir::DType dtype = nodes_[static_cast<size_t>(node.operands[0])].type.dtype();
    const int64_t dd = *d;
    const int64_t d4 = 4 * dd;  // fits: D is a valid size and 4·D·D was counted by shapes
    const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(dd));
    const double inv_sqrt_4d = 1.0 / std::sqrt(static_cast<double>(d4));
    const bool attention = node.op == OpKind::kMultiHeadAttention;
    const ImplicitParam* list = attention ? kAttentionParams : kBlockParams;
    const size_t count = ImplicitParamCount(node.op);
    for (size_t k = 0; k < count; ++k) {
      const ImplicitParam& p = list[k];
      std::vector<Dim> dims;
      switch (p.shape) {
        case ImplicitParam::Shape::kD: dims = {Dim::Fixed(dd)}; break;
        case ImplicitParam::Shape::kDD: dims = {Dim::Fixed(dd), Dim::Fixed(dd)}; break;
        case ImplicitParam::Shape::kD4D: dims = {Dim::Fixed(dd), Dim::Fixed(d4)}; break;
        case ImplicitParam::Shape::k4D: dims = {Dim::Fixed(d4)}; break;
        case ImplicitParam::Shape::k4DD: dims = {Dim::Fixed(d4), Dim::Fixed(dd)}; break;
      }
      ir::InitSpec init;
      switch (p.init) {
        case ImplicitParam::Init::kOnes:
          init.kind = ir::InitSpec::Kind::kOnes;
          init.text = "ones";
          break;
        case ImplicitParam::Init::kZeros: break;  // the default InitSpec
        case ImplicitParam::Init::kInvSqrtD: init = UniformInit(inv_sqrt_d); break;
        case ImplicitParam::Init::kInvSqrt4D: init = UniformInit(inv_sqrt_4d); break;
      }
      ir::Type type = ir::Type::Tensor(std::move(dims), dtype);
      ir::Node param;
      param.name = prefix + p.suffix;
      param.op = OpKind::kIdentity;
      param.role = ir::NodeRole::kParam;
      param.type = type;
      param.declared_type = type;
      param.span = node.span;
      NodeId id = Push(std::move(param));
      new_params_.push_back(ir::Param{id, prefix + p.suffix, std::move(type), std::move(init),
                                      /*frozen=*/false, /*implicit=*/true});
      node.operands.push_back(id);
    }
    return Push(std::move(node));
  }

  // D, the last dimension of the operand of an attention / block node.
  std::optional<int64_t> ModelDim(const ir::Node& node) {
    NodeId x = node.operands[0];
    if (x < 0 || static_cast<size_t>(x) >= nodes_.size() || !nodes_[x].type.is_tensor() ||
        nodes_[x].type.rank() == 0) {
      Error(diag::Kind::UnknownModelDim, node,
            "cannot create the parameters of " + std::string(ir::OpName(node.op)) +
                ": the type of its operand is not known");
      return std::nullopt;
    }
    Dim d = nodes_[x].type.dims().back();
    if (d.is_symbolic() && options_.bindings != nullptr) d = d.Bind(*options_.bindings);
    if (d.is_dynamic()) {
      Error(diag::Kind::UnknownModelDim, node,
            "cannot create the parameters of " + std::string(ir::OpName(node.op)) +
                ": its model dimension (the last one of the operand) is dynamic");
      return std::nullopt;
    }
    if (d.is_symbolic()) {
      Error(diag::Kind::UnboundDimension, node,
            "unresolved symbolic dimension '" + d.name() + "': the parameters of " +
                ir::OpName(node.op) + " need its value (set it in @config or in the dims option)");
      return std::nullopt;
    }
    if (d.size() < 1 || d.size() > (int64_t{1} << 30)) {
      Error(diag::Kind::TypeTooLarge, node,
            "model dimension " + std::to_string(d.size()) +
                (d.size() < 1 ? " is empty: implicit parameters need at least 1"
                              : " is too large for implicit parameters (at most 2^30)"));
      return std::nullopt;
    }
    return d.size();
  }

  bool Unroll(const ir::Node& n) {
    std::vector<NodeId> operands = n.operands;
    Remap(&operands);
    const ir::AttrValue* count_attr = n.attr("count");
    const int64_t count = count_attr != nullptr && count_attr->is_int() ? count_attr->as_int() : 0;
    const ir::RepeatBody& body = *n.repeat_body;
    // The final node keeps everything the source said about N.
    auto finish = [&](ir::Node& last) {
      last.name = n.name;
      last.declared_type = n.declared_type;
      // Inference does not run again: the optimiser reads this to keep
      // the declared type's check (identity_elim dropped repeat(0)'s).
      last.declared_adds_facts = n.declared_adds_facts;
      last.annotations = n.annotations;
      last.hints = n.hints;
    };
    if (count <= 0 || operands.empty()) {
      ir::Node id_node;
      id_node.op = OpKind::kIdentity;
      if (!operands.empty()) id_node.operands = {operands[0]};
      id_node.type = n.type;
      id_node.span = n.span;
      finish(id_node);
      old_to_new_[static_cast<size_t>(n.id)] = Push(std::move(id_node));
      return true;
    }
    // An iteration's type needs checking on the runs only where inference
    // could not decide it: a call or custom op (a callee may be typed per
    // run), a range (its values give its shape: [?] fits any carried type)
    // or an operand whose type is not static. Elsewhere the compile
    // checked it once and for all, and the iteration is a plain node that
    // fusion and CSE may take (PIPELINE.md §6.5, §6.6).
    bool decided = body.op != OpKind::kCall && body.op != OpKind::kCustom && body.op != OpKind::kRange &&
                   n.type.IsStatic();
    for (NodeId op : n.operands) {
      decided = decided && graph_.HasNode(op) && graph_.node(op).type.IsStatic();
    }
    NodeId carried = operands[0];
    const ir::Type carried_type = graph_.HasNode(n.operands[0]) ? graph_.node(n.operands[0]).type : n.type;
    for (int64_t i = 0; i < count; ++i) {
      ir::Node it;
      it.op = body.op;
      it.attrs = body.attrs;
      it.callee = body.callee;
      it.operands = operands;
      it.operands[0] = carried;
      // Only the last iteration is the node the source typed: the others
      // carry the operand's type (a declared [3, 2] over an [S0, 2] operand
      // typed every iteration [3, 2], which a bundle's check refused).
      it.type = i + 1 == count || !n.declared_type ? n.type : carried_type;
      it.repeat_iteration = !decided;
      it.span = n.span;
      if (i + 1 == count) {
        finish(it);
      } else {
        it.name = n.name + ".iter" + std::to_string(i);
      }
      carried = Emit(std::move(it), n.name, i);
      if (carried == ir::kNoNode) return false;
    }
    old_to_new_[static_cast<size_t>(n.id)] = carried;
    return true;
  }

  // Installs the new nodes and remaps every id-holding list of the graph.
  void Commit() {
    auto map = [this](NodeId id) {
      return id >= 0 && static_cast<size_t>(id) < old_to_new_.size() ? old_to_new_[id] : ir::kNoNode;
    };
    for (ir::GraphInput& in : graph_.mutable_inputs()) in.node = map(in.node);
    for (ir::GraphOutput& out : graph_.mutable_outputs()) out.node = map(out.node);
    for (ir::Param& p : graph_.mutable_params()) p.node = map(p.node);
    for (ir::Param& p : new_params_) graph_.mutable_params().push_back(std::move(p));
    graph_.mutable_nodes() = std::move(nodes_);
    graph_.RebuildNameMap();
  }

  ir::Graph& graph_;
  diag::DiagnosticBag& diags_;
  const MaterializeOptions& options_;
  std::vector<ir::Node> nodes_;
  std::vector<NodeId> old_to_new_;
  std::vector<ir::Param> new_params_;
};

}  // namespace

bool MaterializeGraph(ir::Graph* graph, diag::DiagnosticBag* diags,
                      const MaterializeOptions& options) {
  const size_t errors = diags->error_count();
  Materializer m(graph, diags, options);
  if (!m.Run()) return false;
  return diags->error_count() == errors;
}

bool MaterializeProgram(ir::Program* program, diag::DiagnosticBag* diags,
                        const MaterializeOptions& options) {
  bool ok = true;
  for (ir::Graph& g : program->graphs) ok = MaterializeGraph(&g, diags, options) && ok;
  return ok;
}

}  // namespace shrew::lower
