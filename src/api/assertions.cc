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

// A condition's value, or why it has none (`why`: "division by zero in
// '1 / (N - 2)'", "'act > 1' compares a string with a number").
struct Evaluated {
  std::optional<ConfigValue> value;
  std::string why;
  bool form = false;  // no value because no run evaluates its form (W006): skipped
};

Evaluated Fails(std::string why) { return {std::nullopt, std::move(why)}; }
Evaluated NotEvaluated(std::string why) { return {std::nullopt, std::move(why), true}; }

const char* KindName(const ConfigValue& v) {
  switch (v.kind) {
    case ConfigValue::Kind::kInt:
    case ConfigValue::Kind::kFloat: return "a number";
    case ConfigValue::Kind::kBool: return "a bool";
    case ConfigValue::Kind::kString: return "a string";
    default: return "a list";
  }
}

// `l op r` for Eval; `span` is the whole expression's.
Evaluated Apply(ast::BinaryOp op, const ConfigValue& l, const ConfigValue& r, diag::Span span,
                const diag::SourceFile& source) {
  using B = ast::BinaryOp;
  // Made only for a failure: a run evaluates its conditions each time.
  const auto text = [&] { return "'" + std::string(lower::SpanText(source, span)) + "'"; };
  switch (op) {
    case B::And:
    case B::Or:
      if (l.kind != ConfigValue::Kind::kBool || r.kind != ConfigValue::Kind::kBool) {
        return Fails(text() + " joins " + KindName(l) + " and " + KindName(r) + " (" + (op == B::And ? "&&" : "||") +
                     " takes bools)");
      }
      return {ConfigValue::Bool(op == B::And ? (l.b && r.b) : (l.b || r.b)), ""};
    case B::Equal:
    case B::NotEqual:
    case B::Less:
    case B::Greater:
    case B::LessEqual:
    case B::GreaterEqual: {
      std::optional<bool> c = Compare(op, l, r);
      if (!c) return Fails(text() + " compares " + KindName(l) + " with " + KindName(r));
      return {ConfigValue::Bool(*c), ""};
    }
    case B::Add:
    case B::Sub:
    case B::Mul:
    case B::Div:
    case B::Mod:
    case B::Pow: {
      if (!l.is_number() || !r.is_number()) {
        return Fails(text() + " computes with " + KindName(l.is_number() ? r : l) + ", not a number");
      }
      diag::DiagnosticBag diags;
      std::optional<ConfigValue> v = lower::ConfigArithmetic(op, l, r, lower::SpanText(source, span), span, diags);
      if (!v || diags.has_errors()) {
        if (diags.all().empty()) return Fails(text() + " has no value");
        const bool by_zero = diags.all().front().kind == diag::Kind::ConfigDivisionByZero;
        return Fails((by_zero ? "division by zero in " : "integer overflow in ") + text());
      }
      return {std::move(v), ""};
    }
    default:
      return NotEvaluated(text() + " uses an operator a run does not evaluate");
  }
}

// Whether `l op …` is `l` whatever follows: && after false, || after true.
// The rest is not evaluated, so `N == 2 || 16 / (N - 2) > 1` guards its
// division as in C.
bool Decides(ast::BinaryOp op, const ConfigValue& l) {
  return l.kind == ConfigValue::Kind::kBool && ((op == ast::BinaryOp::Or && l.b) || (op == ast::BinaryOp::And && !l.b));
}

// The value of `e` with `values` for its names, or why it has none.
Evaluated Eval(const ast::Expr& e, const Values& values, const diag::SourceFile& source) {
  if (const auto* p = e.As<ast::ParenExpr>()) return Eval(*p->inner, values, source);
  if (const auto* n = e.As<ast::NameExpr>()) {
    auto it = values.find(n->name);
    if (it == values.end()) return Fails("'" + n->name + "' has no value");
    return {it->second, ""};
  }
  if (const auto* v = e.As<ast::IntLiteral>()) return {ConfigValue::Int(v->value), ""};
  if (const auto* v = e.As<ast::FloatLiteral>()) return {ConfigValue::Float(v->value), ""};
  if (const auto* v = e.As<ast::BoolLiteral>()) return {ConfigValue::Bool(v->value), ""};
  if (const auto* v = e.As<ast::StringLiteral>()) return {ConfigValue::String(v->value), ""};
  const auto text = [&] { return "'" + std::string(lower::SpanText(source, e.span)) + "'"; };
  if (const auto* u = e.As<ast::UnaryExpr>()) {
    if (u->op == ast::UnaryOp::BitNot) return NotEvaluated(text() + " uses ~, which a run does not evaluate");
    Evaluated x = Eval(*u->operand, values, source);
    if (!x.value) return x;
    if (u->op == ast::UnaryOp::Not && x.value->kind == ConfigValue::Kind::kBool) return {ConfigValue::Bool(!x.value->b), ""};
    if (u->op == ast::UnaryOp::Neg && x.value->kind == ConfigValue::Kind::kFloat) return {ConfigValue::Float(-x.value->f), ""};
    if (u->op == ast::UnaryOp::Neg && x.value->kind == ConfigValue::Kind::kInt) {
      if (x.value->i == INT64_MIN) return Fails("integer overflow in " + text());
      return {ConfigValue::Int(-x.value->i), ""};
    }
    return Fails(text() + " applies " + (u->op == ast::UnaryOp::Not ? "!" : "-") + " to " + KindName(*x.value));
  }
  if (const auto* b = e.As<ast::BinaryExpr>()) {
    Evaluated l = Eval(*b->lhs, values, source);
    if (!l.value) return l;
    if (Decides(b->op, *l.value)) return l;
    Evaluated r = Eval(*b->rhs, values, source);
    if (!r.value) return r;
    return Apply(b->op, *l.value, *r.value, e.span, source);
  }
  if (const auto* c = e.As<ast::ChainExpr>()) {  // folded left, as the nested BinaryExprs would be
    Evaluated acc = Eval(*c->first, values, source);
    for (const ast::ChainLink& link : c->links) {
      if (!acc.value) return acc;
      if (Decides(link.op, *acc.value)) continue;
      Evaluated r = Eval(*link.rhs, values, source);
      if (!r.value) return r;
      acc = Apply(link.op, *acc.value, *r.value, link.span, source);
    }
    return acc;
  }
  return NotEvaluated(text() + " is no expression a run evaluates");
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
    const Evaluated v = Eval(*c.expr, values, *c.source);
    const std::string message = c.message.empty() ? "" : ": " + c.message;
    // A condition its own bound values break (`1 / (N - 2)` with N = 2) is
    // no check that passed: said, where it used to be skipped in silence.
    if (!v.value && !v.form) {
      return FailedPrecondition("graph '" + graph_ + "': assertion cannot be evaluated" + message + " (" +
                                c.source->text() + bound + "): " + v.why)
          .At(c.span);
    }
    if (!v.value || v.value->kind != ConfigValue::Kind::kBool || v.value->b) continue;
    return FailedPrecondition("graph '" + graph_ + "': assertion failed" + message + " (" + c.source->text() + bound +
                              ")")
        .At(c.span);
  }
  return Status::Ok();
}

std::string FailsEveryRun(std::string_view condition, const std::map<std::string, ir::ConfigValue>& config) {
  const diag::SourceFile source("", std::string(condition));
  diag::DiagnosticBag diags;
  ast::ExprPtr e = front::ParseExpression(source, diags);
  if (diags.has_errors() || e == nullptr) return "";
  bool config_only = true;
  ast::ForEachName(*e, [&](const std::string& n) { config_only = config_only && config.count(n) > 0; });
  if (!config_only) return "";
  const Values values(config.begin(), config.end());
  const Evaluated v = Eval(*e, values, source);
  if (!v.value) return v.form ? "" : v.why;
  return v.value->kind == ConfigValue::Kind::kBool && !v.value->b ? "it is false" : "";
}

}  // namespace shrew
