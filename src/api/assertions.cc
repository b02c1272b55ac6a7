#include "api/assertions.h"

#include <algorithm>
#include <optional>
#include <set>

#include "diag/diagnostic.h"
#include "front/parser.h"
#include "lower/config_eval.h"

namespace shrew {
namespace {

using ir::ConfigValue;
using Values = std::map<std::string, ConfigValue, std::less<>>;

std::optional<bool> Compare(ast::BinaryOp op, const ConfigValue& a, const ConfigValue& b) {
  using B = ast::BinaryOp;
  if (a.is_number() && b.is_number()) {
    const bool ints = a.kind == ConfigValue::Kind::kInt && b.kind == ConfigValue::Kind::kInt;
    const double x = ints ? 0.0 : (a.kind == ConfigValue::Kind::kInt ? static_cast<double>(a.i) : a.f);
    const double y = ints ? 0.0 : (b.kind == ConfigValue::Kind::kInt ? static_cast<double>(b.i) : b.f);
    auto cmp = [&](auto l, auto r) -> std::optional<bool> {
      switch (op) {
        case B::Less: return l < r;
        case B::Greater: return l > r;
        case B::LessEqual: return l <= r;
        case B::GreaterEqual: return l >= r;
        case B::Equal: return l == r;
        case B::NotEqual: return l != r;
        default: return std::nullopt;
      }
    };
    return ints ? cmp(a.i, b.i) : cmp(x, y);
  }
  const bool same_kind = a.kind == b.kind &&
                         (a.kind == ConfigValue::Kind::kString || a.kind == ConfigValue::Kind::kBool);
  if (!same_kind || (op != B::Equal && op != B::NotEqual)) return std::nullopt;
  const bool equal = a.kind == ConfigValue::Kind::kString ? a.s == b.s : a.b == b.b;
  return op == B::Equal ? equal : !equal;
}

// `l op r` for Eval; `span` is the whole expression's.
std::optional<ConfigValue> Apply(ast::BinaryOp op, const ConfigValue& l, const ConfigValue& r, diag::Span span,
                                 const diag::SourceFile& source) {
  using B = ast::BinaryOp;
  switch (op) {
    case B::And:
    case B::Or:
      if (l.kind != ConfigValue::Kind::kBool || r.kind != ConfigValue::Kind::kBool) return std::nullopt;
      return ConfigValue::Bool(op == B::And ? (l.b && r.b) : (l.b || r.b));
    case B::Equal:
    case B::NotEqual:
    case B::Less:
    case B::Greater:
    case B::LessEqual:
    case B::GreaterEqual: {
      std::optional<bool> c = Compare(op, l, r);
      if (!c) return std::nullopt;
      return ConfigValue::Bool(*c);
    }
    case B::Add:
    case B::Sub:
    case B::Mul:
    case B::Div:
    case B::Mod:
    case B::Pow: {
      if (!l.is_number() || !r.is_number()) return std::nullopt;
      diag::DiagnosticBag diags;  // division by zero or overflow: not evaluated
      std::optional<ConfigValue> v =
          lower::ConfigArithmetic(op, l, r, lower::SpanText(source, span), span, diags);
      if (!v || diags.has_errors()) return std::nullopt;
      return v;
    }
    default:
      return std::nullopt;
  }
}

// The value of `e` with `values` for its names; nullopt when it does not
// reduce (an unknown name, an operation on the wrong kinds, division by zero).
std::optional<ConfigValue> Eval(const ast::Expr& e, const Values& values, const diag::SourceFile& source) {
  if (const auto* p = e.As<ast::ParenExpr>()) return Eval(*p->inner, values, source);
  if (const auto* n = e.As<ast::NameExpr>()) {
    auto it = values.find(n->name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
  if (const auto* v = e.As<ast::IntLiteral>()) return ConfigValue::Int(v->value);
  if (const auto* v = e.As<ast::FloatLiteral>()) return ConfigValue::Float(v->value);
  if (const auto* v = e.As<ast::BoolLiteral>()) return ConfigValue::Bool(v->value);
  if (const auto* v = e.As<ast::StringLiteral>()) return ConfigValue::String(v->value);
  if (const auto* u = e.As<ast::UnaryExpr>()) {
    std::optional<ConfigValue> x = Eval(*u->operand, values, source);
    if (!x) return std::nullopt;
    if (u->op == ast::UnaryOp::Not && x->kind == ConfigValue::Kind::kBool) return ConfigValue::Bool(!x->b);
    if (u->op == ast::UnaryOp::Neg && x->kind == ConfigValue::Kind::kFloat) return ConfigValue::Float(-x->f);
    if (u->op == ast::UnaryOp::Neg && x->kind == ConfigValue::Kind::kInt && x->i != INT64_MIN) {
      return ConfigValue::Int(-x->i);
    }
    return std::nullopt;
  }
  if (const auto* b = e.As<ast::BinaryExpr>()) {
    std::optional<ConfigValue> l = Eval(*b->lhs, values, source);
    std::optional<ConfigValue> r = Eval(*b->rhs, values, source);
    if (!l || !r) return std::nullopt;
    return Apply(b->op, *l, *r, e.span, source);
  }
  if (const auto* c = e.As<ast::ChainExpr>()) {  // folded left, as the nested BinaryExprs would be
    std::optional<ConfigValue> acc = Eval(*c->first, values, source);
    for (const ast::ChainLink& link : c->links) {
      std::optional<ConfigValue> r = Eval(*link.rhs, values, source);
      if (!acc || !r) return std::nullopt;
      acc = Apply(link.op, *acc, *r, link.span, source);
    }
    return acc;
  }
  return std::nullopt;
}

}  // namespace

GraphAssertions::GraphAssertions(const ir::Graph& graph, const std::map<std::string, ir::ConfigValue>& config)
    : graph_(graph.name()), config_(config) {
  // Names of the graph's own values: a condition reading one is about
  // tensors. Lowering marks those it reads on the graph as written
  // (Assertion::reads_values); these are the ones left (an IR made without
  // lowering, a bundle of version 4 or before).
  std::set<std::string> values;
  for (const ir::Node& n : graph.nodes()) values.insert(n.name);
  for (const ir::Assertion& a : graph.assertions()) {
    if (a.reads_values) continue;
    Condition c;
    c.source = std::make_unique<diag::SourceFile>("", a.source_text);
    diag::DiagnosticBag diags;
    c.expr = front::ParseExpression(*c.source, diags);
    if (diags.has_errors() || c.expr == nullptr) continue;
    std::set<std::string> names;
    ast::ForEachName(*c.expr, [&](const std::string& n) { names.insert(n); });
    if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return values.count(n) > 0; })) continue;
    c.names.assign(names.begin(), names.end());
    c.message = a.message;
    c.span = a.span;
    conditions_.push_back(std::move(c));
  }
}

Status GraphAssertions::Check(const ir::DimBindings& dims) const {
  for (const Condition& c : conditions_) {
    Values values;
    std::string bound;
    bool known = true;
    for (const std::string& name : c.names) {
      if (auto it = config_.find(name); it != config_.end()) {
        values.emplace(name, it->second);
      } else if (auto d = dims.find(name); d != dims.end()) {
        values.emplace(name, ConfigValue::Int(d->second));
      } else {
        known = false;
        break;
      }
      bound += (bound.empty() ? ", with " : ", ") + name + " = " + values.at(name).ToString();
    }
    if (!known) continue;
    std::optional<ConfigValue> v = Eval(*c.expr, values, *c.source);
    if (!v || v->kind != ConfigValue::Kind::kBool || v->b) continue;
    const std::string message = c.message.empty() ? "" : ": " + c.message;
    return FailedPrecondition("graph '" + graph_ + "': assertion failed" + message + " (" + c.source->text() + bound +
                              ")")
        .At(c.span);
  }
  return Status::Ok();
}

}  // namespace shrew
