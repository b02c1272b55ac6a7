// Expressions (PIPELINE.md §2.4): lower-op returns an operation and its
// operands; lower-value returns one node id, creating an anonymous node
// `__anon_ID` when the expression is not a name in scope. Sub-expressions
// are created depth-first, left to right, before the node that uses them.
#include "lower/lower_internal.h"

#include <algorithm>
#include <iterator>

#include "base/spelling.h"

namespace shrew::lower::internal {
namespace {

LoweredOp Constant(ir::AttrValue value) {
  LoweredOp op;
  op.op = ir::OpKind::kConstant;
  op.attrs.Set("value", std::move(value));
  return op;
}

// A repeat body operand: a name, a literal or a config key (OPS.md §3.15).
bool IsSimpleOperand(const ast::Expr* e) {
  e = ast::StripParens(e);
  return e != nullptr && (e->Is<ast::NameExpr>() || e->Is<ast::IntLiteral>() ||
                          e->Is<ast::FloatLiteral>() || e->Is<ast::BoolLiteral>());
}

// What to write instead of an expression from another language that is no
// operation (OPS.md §2.1), as "; HINT", or "".
std::string UnsupportedHint(const ast::Expr& e) {
  // The receiver as written when it is a name (`h.sum()`), else "x".
  auto receiver = [](const ast::ExprPtr& r) {
    const ast::Expr* stripped = ast::StripParens(r.get());
    const auto* name = stripped != nullptr ? stripped->As<ast::NameExpr>() : nullptr;
    return name != nullptr ? name->name : std::string("x");
  };
  if (const auto* m = e.As<ast::MethodCallExpr>()) {
    // `torch.relu(x)`, `F.softmax(x)`, `nn.functional.gelu(x)`: a module's
    // function, not a method of a tensor; operations are called bare.
    static constexpr std::string_view kModules[] = {"torch", "F", "nn", "np", "numpy", "tf", "jnp", "jax",
                                                    "lax", "math", "keras", "ops", "functional"};
    const ast::Expr* r = ast::StripParens(m->receiver.get());
    const auto* member = r != nullptr ? r->As<ast::MemberExpr>() : nullptr;
    const std::string x = receiver(m->receiver);
    if (member != nullptr || std::find(std::begin(kModules), std::end(kModules), x) != std::end(kModules)) {
      return "; operations are called by their name alone: write " + m->method.name + "(...)";
    }
    return "; there are no methods: write " + m->method.name + "(" + x + ", ...) for " + x + "." + m->method.name +
           "(...)";
  }
  if (e.Is<ast::IndexExpr>() || e.Is<ast::SliceExpr>()) {
    return "; there is no indexing: split(x, chunks: N, dim: D, index: K) selects a part along an axis";
  }
  if (e.Is<ast::ListExpr>()) return "; a list is no operand: pass the tensors one by one, as in concat(a, b, dim: 0)";
  if (const auto* m = e.As<ast::MemberExpr>()) {
    // `1.e5` and `1.e-3` read as a field of 1 (a number has digits after
    // its '.', LANGUAGE.md §2.6): the number meant.
    if (const auto* n = m->object ? m->object->As<ast::IntLiteral>() : nullptr) {
      const std::string& f = m->member.name;
      if (!f.empty() && (f[0] == 'e' || f[0] == 'E') && f.find_first_not_of("0123456789", 1) == std::string::npos) {
        return "; a number has digits after its '.': write " + n->text + ".0" + f + (f.size() == 1 ? "…" : "") +
               " for " + n->text + "." + f;
      }
    }
    return m->member.name == "T" ? "; tensors have no fields: write transpose(" + receiver(m->object) + ") for " +
                                       receiver(m->object) + ".T"
                                 : "; tensors have no fields: use an operation";
  }
  if (e.Is<ast::IfExpr>()) return "; for an elementwise choice write where(condition, a, b)";
  return "";
}

}  // namespace

std::optional<LoweredOp> Lowerer::LowerOpChecked(const ast::Expr& e) {
  if (e.height > kMaxEvalHeight) {
    Error(diag::Kind::ExpressionTooDeep, e.span, "expression is nested too deeply");
    return std::nullopt;
  }
  return LowerOp(e);
}

std::optional<ir::NodeId> Lowerer::LowerValue(const ast::Expr& expr) {
  const ast::Expr* e = ast::StripParens(&expr);
  if (const auto* n = e->As<ast::NameExpr>()) {
    auto it = scope_.find(n->name);
    if (it != scope_.end()) return it->second;
  }
  std::optional<LoweredOp> op = LowerOp(*e);
  if (!op) return std::nullopt;
  return MakeNode("", std::move(*op), e->span);
}

std::optional<LoweredOp> Lowerer::LowerName(const ast::NameExpr& n, diag::Span span) {
  // Graph-local names shadow config keys (LANGUAGE.md §6).
  auto it = scope_.find(n.name);
  if (it != scope_.end()) {
    LoweredOp op;
    op.op = ir::OpKind::kIdentity;
    op.operands.push_back(it->second);
    return op;
  }
  // A name whose declaration failed was reported there (it still shadows a
  // config key of that name).
  if (failed_names_.count(n.name) > 0) return std::nullopt;
  auto c = config_.find(n.name);
  if (c != config_.end()) {
    const ir::ConfigValue& v = c->second;
    LoweredOp op;
    switch (v.kind) {
      case ir::ConfigValue::Kind::kInt: op = Constant(ir::AttrValue::Int(v.i)); break;
      case ir::ConfigValue::Kind::kFloat: op = Constant(ir::AttrValue::Float(v.f)); break;
      case ir::ConfigValue::Kind::kBool: op = Constant(ir::AttrValue::Bool(v.b)); break;
      default:
        Error(diag::Kind::NotATensor, span,
              "config value '" + n.name + "' cannot be used as a tensor");
        return std::nullopt;
    }
    op.annotations.Set(ir::kConfigKeyAnnotation, ir::AttrValue::String(n.name));
    return op;
  }
  ErrorUndefinedName(n.name, span);
  return std::nullopt;
}

void Lowerer::ErrorUndefinedName(const std::string& name, diag::Span span) {
  // Once per graph: further uses of the same undefined name (a misspelt or
  // missing declaration) are the same mistake.
  if (graph_ != nullptr) failed_names_.insert(name);
  // `output z: y;` re-exports y under an output name, which is no value in
  // the graph's scope (PIPELINE.md §2.3): name the value to use.
  if (graph_ != nullptr) {
    for (const ir::GraphOutput& out : graph_->outputs()) {
      if (out.name != name || !graph_->HasNode(out.node) || graph_->node(out.node).name == name) continue;
      Error(diag::Kind::UndefinedName, span,
            "undefined name '" + name + "'; it is an output name, re-exporting '" + graph_->node(out.node).name +
                "', and output names are not values: use '" + graph_->node(out.node).name + "'");
      return;
    }
  }
  // Declared in this graph, but not before this use: say so rather than
  // suggest another name.
  if (const std::optional<diag::Span> declared = DeclarationOf(name)) {
    const diag::Span& at = *declared;
    Error(diag::Kind::UndefinedName, span,
          "undefined name '" + name + "'" +
              (at.offset > span.offset ? "; it is declared later, at line " + std::to_string(at.line) +
                                             ", and a name can be used only after its declaration"
                                       : "; a node cannot use its own value"));
    return;
  }
  std::vector<std::string_view> known;
  for (const auto& [key, id] : scope_) known.push_back(key);
  for (const auto& [key, value] : config_) known.push_back(key);
  Error(diag::Kind::UndefinedName, span, "undefined name '" + name + "'" + DidYouMean(name, known));
}

void Lowerer::ErrorUnknownOperation(const std::string& name, diag::Span span) {
  std::vector<std::string_view> known = ir::FunctionNames();
  for (const auto& [graph, sig] : signatures_) known.push_back(graph);
  for (const std::string& custom : custom_ops_) known.push_back(custom);
  std::string hint = DidYouMean(name, known);
  // Names other libraries give what Shrew writes otherwise (no spelling
  // distance finds them).
  static constexpr std::pair<std::string_view, std::string_view> kElsewhere[] = {
      {"not", "; logical not is written !x"},
      {"logical_not", "; logical not is written !x"},
      {"logical_and", "; logical and is written a && b"},
      {"logical_or", "; logical or is written a || b"},
      {"attention", "; did you mean 'multi_head_attention'?"},
      {"scaled_dot_product_attention", "; did you mean 'multi_head_attention'?"},
  };
  if (hint.empty()) {
    for (const auto& [other, text] : kElsewhere) {
      if (name == other) hint = text;
    }
  }
  Error(diag::Kind::UnknownOperation, span, "unknown operation '" + name + "'" + hint);
}

std::optional<LoweredOp> Lowerer::LowerOp(const ast::Expr& expr) {
  const ast::Expr* e = ast::StripParens(&expr);  // parentheses only group
  if (const auto* i = e->As<ast::IntLiteral>()) return Constant(ir::AttrValue::Int(i->value));
  if (const auto* f = e->As<ast::FloatLiteral>()) return Constant(ir::AttrValue::Float(f->value));
  if (const auto* b = e->As<ast::BoolLiteral>()) return Constant(ir::AttrValue::Bool(b->value));
  if (const auto* str = e->As<ast::StringLiteral>()) {
    // `cast(x, "i64")`: the dtype is the `dtype` attribute, not an operand.
    const std::string hint =
        ir::DTypeFromName(str->value) ? "; a dtype is an attribute: dtype: \"" + str->value + "\"" : "";
    Error(diag::Kind::NotATensor, e->span, "a string cannot be used as a tensor value" + hint);
    return std::nullopt;
  }
  if (e->Is<ast::NullLiteral>()) {
    Error(diag::Kind::NotATensor, e->span, "null cannot be used as a tensor value");
    return std::nullopt;
  }
  if (const auto* n = e->As<ast::NameExpr>()) return LowerName(*n, e->span);
  if (const auto* u = e->As<ast::UnaryExpr>()) {
    std::optional<ir::OpKind> kind = ir::UnaryOperatorOp(ast::UnaryOpSpelling(u->op));
    if (!kind) {
      Error(diag::Kind::UnsupportedOperator, u->op_span,
            std::string("operator '") + ast::UnaryOpSpelling(u->op) + "' is not supported on tensors");
      return std::nullopt;
    }
    if (u->operand == nullptr) return std::nullopt;
    std::optional<ir::NodeId> x = LowerValue(*u->operand);
    if (!x) return std::nullopt;
    LoweredOp op;
    op.op = *kind;
    op.operands.push_back(*x);
    return op;
  }
  if (const auto* b = e->As<ast::BinaryExpr>()) {
    std::optional<ir::OpKind> kind = TensorOperator(b->op, b->op_span);
    if (!kind) return std::nullopt;
    if (b->lhs == nullptr || b->rhs == nullptr) return std::nullopt;
    // Both sides, so that a mistake on each is reported at once.
    std::optional<ir::NodeId> l = LowerValue(*b->lhs);
    std::optional<ir::NodeId> r = LowerValue(*b->rhs);
    if (!l || !r) return std::nullopt;
    LoweredOp op;
    op.op = *kind;
    op.operands = {*l, *r};
    return op;
  }
  if (const auto* c = e->As<ast::ChainExpr>()) return LowerChain(*c);
  if (const auto* c = e->As<ast::CallExpr>()) return LowerCall(*c, e->span);
  if (const auto* r = e->As<ast::RepeatExpr>()) return LowerRepeat(*r, e->span);
  Error(diag::Kind::UnsupportedExpression, e->span, "unsupported expression in a graph" + UnsupportedHint(*e));
  return std::nullopt;
}

std::optional<ir::OpKind> Lowerer::TensorOperator(ast::BinaryOp op, diag::Span op_span) {
  std::optional<ir::OpKind> kind = ir::BinaryOperatorOp(ast::BinaryOpSpelling(op));
  if (!kind) {
    Error(diag::Kind::UnsupportedOperator, op_span,
          std::string("operator '") + ast::BinaryOpSpelling(op) + "' is not supported on tensors");
  }
  return kind;
}

std::optional<LoweredOp> Lowerer::LowerChain(const ast::ChainExpr& chain) {
  // As the nested BinaryExprs it stands for would: operators checked from the
  // outermost (last) in, the first unsupported one reported alone; then
  // operands lowered left to right, each partial result an unnamed node.
  for (size_t i = chain.links.size(); i-- > 0;) {
    const ast::ChainLink& link = chain.links[i];
    if (!TensorOperator(link.op, link.op_span)) return std::nullopt;
    if (link.rhs == nullptr) return std::nullopt;
  }
  if (chain.first == nullptr || chain.links.empty()) return std::nullopt;
  // An id and a flag rather than an optional reassigned in the loop, which
  // GCC 12 warned "may be used uninitialized" (a false positive).
  const std::optional<ir::NodeId> first = LowerValue(*chain.first);
  bool ok = first.has_value();
  ir::NodeId acc = first.value_or(-1);
  for (size_t i = 0; i < chain.links.size(); ++i) {
    const ast::ChainLink& link = chain.links[i];
    std::optional<ir::NodeId> r = LowerValue(*link.rhs);
    if (!ok || !r) {  // the other operands still get their errors reported
      ok = false;
      continue;
    }
    LoweredOp op;
    op.op = *ir::BinaryOperatorOp(ast::BinaryOpSpelling(link.op));
    op.operands = {acc, *r};
    if (i + 1 == chain.links.size()) return op;
    acc = MakeNode("", std::move(op), link.span);
  }
  return std::nullopt;
}

namespace {

// The attribute of `kind` that holds a list (`shape`, `dims`; reductions
// spell theirs `dim`), or "" when it has none.
std::string_view ListAttrName(ir::OpKind kind) {
  for (const ir::OpAttrSpec& s : ir::OpAttrSpecs(kind)) {
    if (s.type == ir::AttrType::kIntList || s.type == ir::AttrType::kShape) return s.name;
    if (s.type == ir::AttrType::kAxes) return "dim";
  }
  return "";
}

}  // namespace

bool Lowerer::LowerPositional(const ast::CallExpr& call, std::optional<ir::OpKind> kind,
                              std::vector<ir::NodeId>* operands) {
  bool ok = true;  // every argument is lowered, so each one's mistake is reported
  for (const ast::Argument& a : call.args) {
    if (a.name || a.value == nullptr) continue;
    // `reshape(x, [2, -1])`: the list is the op's attribute, written by name.
    const ast::Expr* list = ast::StripParens(a.value.get());
    const std::string_view attr = kind && list->Is<ast::ListExpr>() ? ListAttrName(*kind) : "";
    if (!attr.empty()) {
      const ast::Expr* first = call.args.empty() ? nullptr : ast::StripParens(call.args[0].value.get());
      const auto* x = first != nullptr ? first->As<ast::NameExpr>() : nullptr;
      Error(diag::Kind::UnsupportedExpression, list->span,
            "unsupported expression in a graph; a list is no operand: it is the attribute '" + std::string(attr) +
                "', written by name, as in " + call.callee[0].name + "(" + (x != nullptr ? x->name : "x") + ", " +
                std::string(attr) + ": " + std::string(Text(list->span)) + ")");
      ok = false;
      continue;
    }
    std::optional<ir::NodeId> v = LowerValue(*a.value);
    if (v) operands->push_back(*v);
    ok = ok && v.has_value();
  }
  return ok;
}

std::optional<LoweredOp> Lowerer::LowerCall(const ast::CallExpr& call, diag::Span span) {
  if (call.callee.size() != 1) {  // `m::f(x)`
    Error(diag::Kind::UnsupportedExpression, span, "unsupported expression in a graph");
    return std::nullopt;
  }
  const std::string& name = call.callee[0].name;
  // Resolution order (OPS.md §2.1): built-in, graph, @custom_op.
  if (std::optional<ir::OpKind> kind = ir::LookupFunction(name)) {
    LoweredOp op;
    op.op = *kind;
    // Attributes only after good operands: `cast(x, "i64")` is one mistake,
    // not also a missing `dtype`.
    if (!LowerPositional(call, *kind, &op.operands)) return std::nullopt;
    if (!LowerOpAttrs(*kind, call, span, &op.attrs)) return std::nullopt;
    if (*kind == ir::OpKind::kLinear && op.operands.size() == 3 &&
        !op.attrs.Find("bias")->as_bool()) {
      Error(diag::Kind::BadAttribute, span,
            "attribute 'bias' of linear is false but a bias operand is given");
      return std::nullopt;
    }
    return op;
  }
  if (auto it = signatures_.find(name); it != signatures_.end()) {
    return LowerGraphCall(it->second, call, span);
  }
  if (custom_ops_.count(name) > 0) {
    LoweredOp op;
    op.op = ir::OpKind::kCustom;
    op.callee = name;
    if (!LowerPositional(call, std::nullopt, &op.operands)) return std::nullopt;
    if (!LowerCustomAttrs(call, &op.attrs)) return std::nullopt;
    return op;
  }
  ErrorUnknownOperation(name, call.callee[0].span);
  std::vector<ir::NodeId> unused;
  LowerPositional(call, std::nullopt, &unused);  // for the arguments' own mistakes
  return std::nullopt;
}

std::optional<LoweredOp> Lowerer::LowerGraphCall(const GraphSignature& sig,
                                                 const ast::CallExpr& call, diag::Span span) {
  // Bind first (no nodes yet), so argument errors come before anything else.
  const size_t n = sig.inputs.size();
  std::vector<const ast::Argument*> bound(n, nullptr);
  size_t next_positional = 0;
  for (const ast::Argument& a : call.args) {
    size_t index = 0;
    if (a.name) {
      auto it = sig.input_index.find(a.name->name);
      if (it == sig.input_index.end()) {
        Error(diag::Kind::CallArgument, a.name->span,
              "graph '" + sig.name + "' has no input named '" + a.name->name + "'" +
                  DidYouMean(a.name->name, sig.inputs));
        return std::nullopt;
      }
      index = static_cast<size_t>(it->second);
    } else {
      index = next_positional++;
      if (index >= n) {
        Error(diag::Kind::CallArgument, a.span,
              "too many arguments for graph '" + sig.name + "' (it has " + std::to_string(n) +
                  (n == 1 ? " input)" : " inputs)"));
        return std::nullopt;
      }
    }
    if (bound[index] != nullptr) {
      Error(diag::Kind::CallArgument, a.span,
            "input '" + sig.inputs[index] + "' of graph '" + sig.name + "' is bound twice");
      return std::nullopt;
    }
    bound[index] = &a;
  }
  // Optional inputs may be left out anywhere (OPS.md §3.16). The operands
  // are the bound inputs in input order; when one left out precedes a bound
  // one, the "inputs" attribute says which inputs they bind.
  for (size_t i = 0; i < n; ++i) {
    if (bound[i] != nullptr || sig.optional[i]) continue;
    Error(diag::Kind::CallArgument, span, "missing input '" + sig.inputs[i] + "' in call to graph '" + sig.name + "'");
    return std::nullopt;
  }
  // Lower the arguments in source order, then order them as the inputs.
  std::vector<ir::NodeId> values(call.args.size(), ir::kNoNode);
  bool ok = true;
  for (size_t k = 0; k < call.args.size(); ++k) {
    if (call.args[k].value == nullptr) return std::nullopt;
    std::optional<ir::NodeId> v = LowerValue(*call.args[k].value);
    if (v) values[k] = *v;
    ok = ok && v.has_value();
  }
  if (!ok) return std::nullopt;
  LoweredOp op;
  op.op = ir::OpKind::kCall;
  op.callee = sig.name;
  std::vector<int64_t> indices;
  for (size_t i = 0; i < n; ++i) {
    if (bound[i] == nullptr) continue;
    op.operands.push_back(values[static_cast<size_t>(bound[i] - call.args.data())]);
    indices.push_back(static_cast<int64_t>(i));
  }
  if (!indices.empty() && indices.back() != static_cast<int64_t>(indices.size()) - 1) {
    op.attrs.Set("inputs", ir::AttrValue::IntList(std::move(indices)));
  }
  return op;
}

std::optional<LoweredOp> Lowerer::LowerRepeat(const ast::RepeatExpr& rep, diag::Span span) {
  if (rep.count == nullptr || rep.body == nullptr) return std::nullopt;
  std::optional<ir::ConfigValue> count = EvalConfigExpr(*rep.count, EvalContext(), diags_);
  if (!count) return std::nullopt;
  if (count->kind != ir::ConfigValue::Kind::kInt || count->i < 0) {
    Error(diag::Kind::BadRepeat, rep.count->span,
          "repeat count must be a constant integer >= 0");
    return std::nullopt;
  }
  const ast::Expr* body = ast::StripParens(rep.body.get());
  // The body is one operation whose operands are names, literals or config
  // keys: nested calls would be computed once, not per iteration.
  bool simple = false;
  if (const auto* c = body->As<ast::CallExpr>()) {
    simple = true;
    const std::string callee = c->CalleeName();
    const bool graph_call =
        !ir::LookupFunction(callee).has_value() && signatures_.count(callee) > 0;
    for (const ast::Argument& a : c->args) {
      // Named arguments are attributes, except for graph calls (operands).
      bool operand = !a.name || graph_call;
      if (operand && !IsSimpleOperand(a.value.get())) simple = false;
    }
  } else if (const auto* b = body->As<ast::BinaryExpr>()) {
    simple = IsSimpleOperand(b->lhs.get()) && IsSimpleOperand(b->rhs.get());
  } else if (const auto* u = body->As<ast::UnaryExpr>()) {
    simple = IsSimpleOperand(u->operand.get());
  }
  if (!simple) {
    Error(diag::Kind::BadRepeat, body->span,
          "repeat body must be one operation whose operands are names, literals or config keys");
    return std::nullopt;
  }
  std::optional<LoweredOp> inner = LowerOp(*body);
  if (!inner) return std::nullopt;
  if (inner->operands.empty()) {
    Error(diag::Kind::BadRepeat, body->span,
          "repeat body needs the carried value as its first operand");
    return std::nullopt;
  }
  LoweredOp op;
  op.op = ir::OpKind::kRepeat;
  op.operands = std::move(inner->operands);
  op.attrs.Set("count", ir::AttrValue::Int(count->i));
  op.repeat_body = ir::RepeatBody{inner->op, std::move(inner->attrs), std::move(inner->callee)};
  return op;
}

}  // namespace shrew::lower::internal
