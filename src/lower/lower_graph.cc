// Graph statements (PIPELINE.md §2.3): inputs, params, nodes, outputs and
// assertions, processed in order with a scope that starts empty.
#include "lower/lower_internal.h"

#include <algorithm>

#include "base/spelling.h"
#include "diag/utf8.h"

namespace shrew::lower::internal {

ir::NodeId Lowerer::MakeNode(std::string name, LoweredOp op, diag::Span span) {
  ir::NodeId id = graph_->AddNode(std::move(name), op.op, std::move(op.operands), span);
  ir::Node& node = graph_->node(id);
  node.attrs = std::move(op.attrs);
  node.callee = std::move(op.callee);
  node.repeat_body = std::move(op.repeat_body);
  node.annotations = std::move(op.annotations);
  return id;
}

namespace {

// The name a graph statement declares (input, param, node, named output), else null.
const ast::Identifier* DeclaredName(const ast::GraphStmt& s) {
  if (const auto* in = s.As<ast::InputDecl>()) return &in->name;
  if (const auto* p = s.As<ast::ParamDecl>()) return &p->name;
  if (const auto* n = s.As<ast::NodeDecl>()) return &n->name;
  if (const auto* o = s.As<ast::OutputDecl>(); o != nullptr && o->name) return &*o->name;
  return nullptr;
}

}  // namespace

std::optional<diag::Span> Lowerer::DeclarationOf(const std::string& name) const {
  if (block_ == nullptr) return std::nullopt;
  for (const ast::GraphParam& p : block_->params) {
    if (p.name.name == name) return p.name.span;
  }
  for (const ast::GraphStmt& s : block_->body) {
    if (const ast::Identifier* id = DeclaredName(s); id != nullptr && id->name == name) return id->span;
  }
  return std::nullopt;
}

bool Lowerer::LowerGraph(const ast::GraphBlock& block, diag::Span span, ir::Graph* graph) {
  const size_t errors_before = diags_.error_count();
  graph_ = graph;
  block_ = &block;
  scope_.clear();
  scope_.reserve(block.body.size() + block.params.size());
  inputs_by_name_.clear();
  failed_names_.clear();
  graph->set_span(span);
  if (block.return_type) {
    std::optional<ir::Type> t = types_.Resolve(*block.return_type, diags_);
    if (t) graph->set_return_type(std::move(*t));
  }
  // A statement that fails is reported and skipped, and the name it declares
  // is marked failed, so independent errors further on are reported too
  // (each once) without follow-ups about that name.
  for (const ast::GraphParam& p : block.params) {
    if (!DeclareInput(p.name, p.type, p.optional, p.span)) failed_names_.insert(p.name.name);
  }
  for (const ast::GraphStmt& s : block.body) {
    bool ok = true;
    if (const auto* in = s.As<ast::InputDecl>()) {
      ok = DeclareInput(in->name, in->type, in->optional, s.span);
    } else if (const auto* p = s.As<ast::ParamDecl>()) {
      ok = LowerParam(*p, s.span);
    } else if (const auto* n = s.As<ast::NodeDecl>()) {
      ok = LowerNode(*n, s.span);
    } else if (const auto* o = s.As<ast::OutputDecl>()) {
      ok = LowerOutput(*o, s.span);
    } else if (const auto* a = s.As<ast::AssertStmt>()) {
      AddAssertion(*a);
    } else if (const auto* c = s.As<ast::CheckBlock>()) {
      for (const ast::AssertStmt& a : c->asserts) AddAssertion(a);
    }
    const ast::Identifier* name = ok ? nullptr : DeclaredName(s);
    if (name != nullptr && scope_.count(name->name) == 0) failed_names_.insert(name->name);
  }
  MarkAssertionsReadingValues(block);
  graph_ = nullptr;
  block_ = nullptr;
  return diags_.error_count() == errors_before;
}

bool Lowerer::DeclareInput(const ast::Identifier& name, const ast::Type& type, bool optional,
                           diag::Span span) {
  std::optional<ir::Type> t = types_.Resolve(type, diags_);
  if (!t) return false;
  // A second declaration of the same input must agree and adds nothing (§6).
  auto it = inputs_by_name_.find(name.name);
  if (it != inputs_by_name_.end()) {
    const ir::Node& node = graph_->node(it->second);
    if (node.type != *t) {
      Error(diag::Kind::DuplicateInputType, name.span,
            "duplicate input '" + name.name + "' with a different type (" + node.type.ToString() +
                " and " + t->ToString() + ")");
      return false;
    }
    // `?` after the type is part of the declaration: one of two cannot decide it.
    for (const ir::GraphInput& in : graph_->inputs()) {
      if (in.node != it->second || in.optional == optional) continue;
      Error(diag::Kind::DuplicateInputType, name.span,
            "duplicate input '" + name.name + "' declared " + (in.optional ? "optional" : "required") + " (" +
                node.type.ToString() + (in.optional ? "?" : "") + ") and " + (optional ? "optional" : "required") +
                " (" + t->ToString() + (optional ? "?" : "") + ")");
      return false;
    }
    return true;
  }
  ir::NodeId id = graph_->AddInput(name.name, std::move(*t), optional, span);
  inputs_by_name_.emplace(name.name, id);
  scope_[name.name] = id;
  return true;
}

bool Lowerer::LowerParam(const ast::ParamDecl& decl, diag::Span span) {
  std::optional<ir::Type> t = types_.Resolve(decl.type, diags_);
  if (!t) return false;
  ir::InitSpec init;
  bool frozen = false;
  ir::Attrs annotations;
  for (const ast::Field& f : decl.attributes) {
    if (f.value == nullptr) continue;
    const ast::Expr* v = ast::StripParens(f.value.get());
    if (f.key.name == "init") {
      std::optional<ir::ConfigValue> cv = EvalConfigExpr(*v, EvalContext(), diags_);
      if (!cv) return false;
      std::optional<ir::InitSpec> parsed;
      if (cv->kind == ir::ConfigValue::Kind::kString) parsed = ir::ParseInit(cv->s);
      if (!parsed) {
        std::string text = cv->kind == ir::ConfigValue::Kind::kString ? cv->s
                                                                       : std::string(Text(v->span));
        // A string init gets a hint; a number or a name is not a string at all.
        const std::string hint = cv->kind == ir::ConfigValue::Kind::kString
                                     ? ir::InitHint(text)
                                     : "; an init is a string, as in init: \"zeros\"";
        Error(diag::Kind::BadInit, f.value->span, "invalid init '" + diag::EscapeForMessage(text, 80) + "'" + hint);
        return false;
      }
      init = std::move(*parsed);
    } else if (f.key.name == "frozen") {
      const auto* b = v->As<ast::BoolLiteral>();
      if (b == nullptr) {
        Error(diag::Kind::BadAttribute, f.value->span,
              "attribute 'frozen' of param '" + decl.name.name + "' must be true or false");
        return false;
      }
      frozen = b->value;
    } else {
      // Other keys (`device`, …) are recorded and otherwise ignored (§6).
      std::optional<ir::ConfigValue> cv = EvalConfigExpr(*v, EvalContext(), diags_);
      if (!cv) return false;
      if (std::optional<ir::AttrValue> a = GenericAttr(*cv)) annotations.Set(f.key.name, *a);
    }
  }
  ir::NodeId id = graph_->AddParam(decl.name.name, std::move(*t), std::move(init), frozen, span);
  graph_->node(id).annotations = std::move(annotations);
  scope_[decl.name.name] = id;
  return true;
}

bool Lowerer::LowerNode(const ast::NodeDecl& decl, diag::Span span) {
  const ast::NodeItem* op_item = nullptr;
  std::optional<ir::Type> declared;
  diag::Span declared_span;
  // `node h: T` and every `output: T;` line must name the same type.
  auto declare = [&](const ast::Type& written) -> bool {
    std::optional<ir::Type> t = types_.Resolve(written, diags_);
    if (!t) return false;
    if (declared && *declared != *t) {
      Error(diag::Kind::ConflictingNodeType, written.span,
            "node '" + decl.name.name + "' declares two different types: " +
                declared->ToString() + " and " + t->ToString());
      return false;
    }
    declared = std::move(*t);
    declared_span = written.span;
    return true;
  };
  if (decl.type && !declare(*decl.type)) return false;
  for (const ast::NodeItem& item : decl.body) {
    if (item.kind == ast::NodeItem::Kind::Op) {
      if (op_item != nullptr) {
        Error(diag::Kind::NodeWithSeveralOps, item.span,
              "node '" + decl.name.name + "' has more than one op");
        return false;
      }
      op_item = &item;
    } else if (item.kind == ast::NodeItem::Kind::OutputType) {
      if (!declare(item.type)) return false;
    }
  }
  if (op_item == nullptr || op_item->value == nullptr) {
    // `opp: relu(x);` is an attribute line: point at a likely misspelt `op`.
    static constexpr std::string_view kOp[] = {"op"};
    for (const ast::NodeItem& item : decl.body) {
      if (item.kind == ast::NodeItem::Kind::Attribute && ClosestName(item.key.name, kOp)) {
        Error(diag::Kind::NodeWithoutOp, item.key.span,
              "node '" + decl.name.name + "' has no op; did you mean 'op' instead of '" + item.key.name + "'?");
        return false;
      }
    }
    Error(diag::Kind::NodeWithoutOp, decl.name.span, "node '" + decl.name.name + "' has no op");
    return false;
  }
  // Attribute lines and hints, in source order.
  ir::Attrs annotations;
  std::vector<std::string> hints;
  for (const ast::NodeItem& item : decl.body) {
    if (item.kind == ast::NodeItem::Kind::Hint) {
      hints.push_back(item.key.name);
    } else if (item.kind == ast::NodeItem::Kind::Attribute && item.value != nullptr) {
      // A graph value is not a constant (§6), though the config evaluator
      // would read the bare word as the string 'x'.
      const std::string where = "attribute '" + item.key.name + "' of node '" + decl.name.name + "'";
      // The compiler marks nodes with such keys (ir::kConfigKeyAnnotation).
      if (ir::IsGeneratedName(item.key.name)) {
        Error(diag::Kind::BadAttribute, item.key.span,
              where + ": keys starting with two underscores are reserved for the compiler (LANGUAGE.md §9)");
        return false;
      }
      if (!CheckNotTensor(*item.value, where)) return false;
      std::optional<ir::ConfigValue> cv = EvalConfigExpr(*item.value, EvalContext(), diags_);
      if (!cv) return false;
      std::optional<ir::AttrValue> a = GenericAttr(*cv);
      if (!a) {
        Error(diag::Kind::BadAttribute, item.value->span, where + " must be a constant");
        return false;
      }
      annotations.Set(item.key.name, std::move(*a));
    }
    // `input:` lines are accepted and ignored (§6).
  }
  std::optional<LoweredOp> op = LowerOpChecked(*op_item->value);
  if (!op) return false;
  ir::NodeId id = MakeNode(decl.name.name, std::move(*op), span);
  ir::Node& node = graph_->node(id);
  node.declared_type = std::move(declared);
  // The source's lines come after the op's own mark (`node s { op: Scale; }`).
  for (const auto& [key, value] : annotations.entries()) node.annotations.Set(key, value);
  node.hints = std::move(hints);
  scope_[decl.name.name] = id;
  return true;
}

bool Lowerer::LowerOutput(const ast::OutputDecl& decl, diag::Span span) {
  if (decl.value == nullptr) return false;
  const ast::Expr* e = ast::StripParens(decl.value.get());
  const auto* name_expr = e->As<ast::NameExpr>();
  if (name_expr != nullptr) {
    auto it = scope_.find(name_expr->name);
    if (it != scope_.end()) {
      // `output h;` or `output alias: h;`: re-export an existing value.
      graph_->AddOutput(decl.name ? decl.name->name : name_expr->name, it->second, span);
      return true;
    }
  }
  std::string name = decl.name ? decl.name->name
                               : "__output_" + std::to_string(graph_->outputs().size());
  std::optional<LoweredOp> op = LowerOpChecked(*decl.value);
  if (!op) return false;
  ir::NodeId id = MakeNode(name, std::move(*op), span);
  graph_->AddOutput(name, id, span);
  scope_[name] = id;
  return true;
}

// Names declared anywhere in the graph shadow config keys (LANGUAGE.md §6),
// also those declared after the assertion: decided once the graph is lowered.
void Lowerer::MarkAssertionsReadingValues(const ast::GraphBlock& block) {
  size_t next = 0;
  auto mark = [&](const ast::AssertStmt& a) {
    ir::Assertion& lowered = graph_->mutable_assertions()[next++];
    if (a.condition == nullptr) return;
    ast::ForEachName(*a.condition, [&](const std::string& name) {
      lowered.reads_values = lowered.reads_values || scope_.count(name) != 0 || failed_names_.count(name) != 0;
      if (std::find(lowered.names.begin(), lowered.names.end(), name) == lowered.names.end()) {
        lowered.names.push_back(name);
      }
    });
  };
  for (const ast::GraphStmt& s : block.body) {
    if (const auto* a = s.As<ast::AssertStmt>()) {
      mark(*a);
    } else if (const auto* c = s.As<ast::CheckBlock>()) {
      for (const ast::AssertStmt& a : c->asserts) mark(a);
    }
  }
}

void Lowerer::AddAssertion(const ast::AssertStmt& stmt) {
  ir::Assertion a;
  a.message = stmt.message ? stmt.message->value : "";
  if (stmt.condition != nullptr) a.source_text = std::string(Text(stmt.condition->span));
  a.span = stmt.span;
  graph_->mutable_assertions().push_back(std::move(a));
}

}  // namespace shrew::lower::internal
