#include "lower/config_eval.h"

#include <cmath>
#include <limits>
#include <vector>

namespace shrew::lower {
namespace {

using ir::ConfigValue;

double AsDouble(const ConfigValue& v) {
  return v.kind == ConfigValue::Kind::kInt ? static_cast<double>(v.i) : v.f;
}

// Exact integer power by squaring (at most 63 squarings). Returns false on
// overflow. Squaring only happens while a set exponent bit remains, so for
// |base| >= 2 an overflowing square means the result overflows too.
bool IntPow(int64_t base, int64_t exp, int64_t* out) {
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) {
      if (__builtin_mul_overflow(result, base, &result)) return false;
    }
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(base, base, &base)) return false;
  }
  *out = result;
  return true;
}

class Evaluator {
 public:
  Evaluator(const ConfigEvalContext& ctx, diag::DiagnosticBag& diags) : ctx_(ctx), diags_(diags) {}

  std::optional<ConfigValue> Eval(const ast::Expr& e) {
    if (const auto* lit = e.As<ast::IntLiteral>()) return ConfigValue::Int(lit->value);
    if (const auto* lit = e.As<ast::FloatLiteral>()) return ConfigValue::Float(lit->value);
    if (const auto* lit = e.As<ast::StringLiteral>()) return ConfigValue::String(lit->value);
    if (const auto* lit = e.As<ast::BoolLiteral>()) return ConfigValue::Bool(lit->value);
    if (e.Is<ast::NullLiteral>()) return ConfigValue::Opaque("null");
    if (const auto* p = e.As<ast::ParenExpr>()) {
      if (p->inner == nullptr) return Opaque(e);
      return Eval(*p->inner);
    }
    if (const auto* n = e.As<ast::NameExpr>()) return Name(*n, e.span);
    if (const auto* l = e.As<ast::ListExpr>()) {
      std::vector<ConfigValue> items;
      items.reserve(l->elements.size());
      for (const ast::ExprPtr& x : l->elements) {
        if (x == nullptr) return Opaque(e);
        std::optional<ConfigValue> v = Eval(*x);
        if (!v) return std::nullopt;
        items.push_back(std::move(*v));
      }
      return ConfigValue::List(std::move(items));
    }
    if (const auto* u = e.As<ast::UnaryExpr>()) return Unary(*u, e);
    if (const auto* b = e.As<ast::BinaryExpr>()) return Binary(*b, e);
    if (const auto* c = e.As<ast::ChainExpr>()) return Chain(*c);
    return Opaque(e);
  }

 private:
  ConfigValue Opaque(const ast::Expr& e) const {
    return ConfigValue::Opaque(ctx_.source ? std::string(SpanText(*ctx_.source, e.span)) : "");
  }

  std::optional<ConfigValue> Name(const ast::NameExpr& n, diag::Span span) {
    if (ctx_.config != nullptr) {
      auto it = ctx_.config->find(n.name);
      if (it != ctx_.config->end()) return it->second;
    }
    // Bare words are strings (`act: gelu;`), also those naming a key defined
    // here or later; in arithmetic that makes the result opaque, so say so.
    if (arithmetic_operand_) {
      const bool self = !ctx_.defining_key.empty() && n.name == ctx_.defining_key;
      if (self || (ctx_.later_keys != nullptr && ctx_.later_keys->count(n.name) > 0)) {
        diags_.Add(diag::Kind::ConfigForwardReference, span,
                   "config key '" + n.name + "' " + (self ? "refers to itself" : "is defined later") +
                       ": here it is the string \"" + n.name + "\", and the arithmetic on it is opaque");
      }
    }
    return ConfigValue::String(n.name);
  }

  std::optional<ConfigValue> Unary(const ast::UnaryExpr& u, const ast::Expr& e) {
    if (u.op != ast::UnaryOp::Neg || u.operand == nullptr) return Opaque(e);
    std::optional<ConfigValue> v = Operand(*u.operand);
    if (!v) return std::nullopt;
    if (v->kind == ConfigValue::Kind::kInt) {
      if (v->i == std::numeric_limits<int64_t>::min()) {
        diags_.Add(diag::Kind::IntegerOverflow, e.span, "integer overflow in '-'");
        return std::nullopt;
      }
      return ConfigValue::Int(-v->i);
    }
    if (v->kind == ConfigValue::Kind::kFloat) return ConfigValue::Float(-v->f);
    diags_.Add(diag::Kind::ConfigError, u.op_span, "cannot negate a non-number");
    return std::nullopt;
  }

  static bool IsArithmetic(ast::BinaryOp op) {
    switch (op) {
      case ast::BinaryOp::Add:
      case ast::BinaryOp::Sub:
      case ast::BinaryOp::Mul:
      case ast::BinaryOp::Div:
      case ast::BinaryOp::Mod:
      case ast::BinaryOp::Pow:
        return true;
      default:
        return false;  // comparisons, logic, bit operators, `??`
    }
  }

  std::optional<ConfigValue> Arithmetic(ast::BinaryOp op, diag::Span op_span, const ConfigValue& l,
                                        const ConfigValue& r, diag::Span span) {
    std::string_view text = ctx_.source ? SpanText(*ctx_.source, span) : std::string_view();
    return ConfigArithmetic(op, l, r, text, op_span, diags_);
  }

  // An operand of arithmetic or negation (for W003).
  std::optional<ConfigValue> Operand(const ast::Expr& e) {
    const bool outer = arithmetic_operand_;
    arithmetic_operand_ = true;
    std::optional<ConfigValue> v = Eval(e);
    arithmetic_operand_ = outer;
    return v;
  }

  std::optional<ConfigValue> Binary(const ast::BinaryExpr& b, const ast::Expr& e) {
    if (!IsArithmetic(b.op) || b.lhs == nullptr || b.rhs == nullptr) return Opaque(e);
    std::optional<ConfigValue> l = Operand(*b.lhs);
    if (!l) return std::nullopt;
    std::optional<ConfigValue> r = Operand(*b.rhs);
    if (!r) return std::nullopt;
    return Arithmetic(b.op, b.op_span, *l, *r, e.span);
  }

  // As the nested BinaryExprs it stands for: the partial result up to the
  // last non-arithmetic link is opaque text, the links after it fold onto it.
  std::optional<ConfigValue> Chain(const ast::ChainExpr& c) {
    size_t begin = 0;
    std::optional<ConfigValue> acc;
    for (size_t i = c.links.size(); i-- > 0;) {
      if (!IsArithmetic(c.links[i].op) || c.links[i].rhs == nullptr || (i == 0 && c.first == nullptr)) {
        acc = ConfigValue::Opaque(ctx_.source ? std::string(SpanText(*ctx_.source, c.links[i].span)) : "");
        begin = i + 1;
        break;
      }
    }
    if (!acc) {
      if (c.first == nullptr) return ConfigValue::Opaque("");  // no links either
      acc = Operand(*c.first);
    }
    for (size_t i = begin; i < c.links.size() && acc; ++i) {
      std::optional<ConfigValue> r = Operand(*c.links[i].rhs);
      if (!r) return std::nullopt;
      acc = Arithmetic(c.links[i].op, c.links[i].op_span, *acc, *r, c.links[i].span);
    }
    return acc;
  }

  const ConfigEvalContext& ctx_;
  diag::DiagnosticBag& diags_;
  bool arithmetic_operand_ = false;
};

}  // namespace

std::string_view SpanText(const diag::SourceFile& source, diag::Span span) {
  const std::string& text = source.text();
  if (span.offset > text.size()) return {};
  return std::string_view(text).substr(span.offset, span.length);
}

std::optional<ConfigValue> ConfigArithmetic(ast::BinaryOp op, const ConfigValue& a,
                                            const ConfigValue& b, std::string_view text,
                                            diag::Span span, diag::DiagnosticBag& diags) {
  if (!a.is_number() || !b.is_number()) return ConfigValue::Opaque(std::string(text));
  const char* spelling = ast::BinaryOpSpelling(op);
  auto overflow = [&]() -> std::optional<ConfigValue> {
    diags.Add(diag::Kind::IntegerOverflow, span,
              std::string("integer overflow in '") + spelling + "'");
    return std::nullopt;
  };
  if (a.kind == ConfigValue::Kind::kInt && b.kind == ConfigValue::Kind::kInt) {
    int64_t x = a.i, y = b.i, r = 0;
    switch (op) {
      case ast::BinaryOp::Add:
        if (__builtin_add_overflow(x, y, &r)) return overflow();
        return ConfigValue::Int(r);
      case ast::BinaryOp::Sub:
        if (__builtin_sub_overflow(x, y, &r)) return overflow();
        return ConfigValue::Int(r);
      case ast::BinaryOp::Mul:
        if (__builtin_mul_overflow(x, y, &r)) return overflow();
        return ConfigValue::Int(r);
      case ast::BinaryOp::Div:
      case ast::BinaryOp::Mod:
        if (y == 0) {
          diags.Add(diag::Kind::ConfigDivisionByZero, span, "division by zero");
          return std::nullopt;
        }
        if (x == std::numeric_limits<int64_t>::min() && y == -1) {
          // The quotient 2^63 does not fit; the remainder is 0 (and C++'s
          // `%` would be undefined here).
          if (op == ast::BinaryOp::Mod) return ConfigValue::Int(0);
          return overflow();
        }
        return ConfigValue::Int(op == ast::BinaryOp::Div ? x / y : x % y);
      case ast::BinaryOp::Pow:
        if (y < 0) return ConfigValue::Float(std::pow(static_cast<double>(x), static_cast<double>(y)));
        if (!IntPow(x, y, &r)) return overflow();
        return ConfigValue::Int(r);
      default:
        return ConfigValue::Opaque(std::string(text));
    }
  }
  double x = AsDouble(a), y = AsDouble(b);
  switch (op) {
    case ast::BinaryOp::Add: return ConfigValue::Float(x + y);
    case ast::BinaryOp::Sub: return ConfigValue::Float(x - y);
    case ast::BinaryOp::Mul: return ConfigValue::Float(x * y);
    case ast::BinaryOp::Div: return ConfigValue::Float(x / y);
    case ast::BinaryOp::Mod: return ConfigValue::Float(std::fmod(x, y));
    case ast::BinaryOp::Pow: return ConfigValue::Float(std::pow(x, y));
    default: return ConfigValue::Opaque(std::string(text));
  }
}

std::optional<ConfigValue> EvalConfigExpr(const ast::Expr& e, const ConfigEvalContext& ctx,
                                          diag::DiagnosticBag& diags) {
  if (e.height > kMaxEvalHeight) {
    diags.Add(diag::Kind::ExpressionTooDeep, e.span, "expression is nested too deeply");
    return std::nullopt;
  }
  Evaluator ev(ctx, diags);
  return ev.Eval(e);
}

bool EvaluateConfig(const ast::Program& program, const diag::SourceFile& source, ConfigMap* out,
                    diag::DiagnosticBag& diags) {
  std::set<std::string, std::less<>> all_keys;
  for (const ast::ConfigBlock* block : program.All<ast::ConfigBlock>()) {
    for (const ast::Field& f : block->fields) all_keys.insert(f.key.name);
  }
  const ast::Field* seed_field = nullptr;  // the last `seed:`, whose value counts
  for (const ast::ConfigBlock* block : program.All<ast::ConfigBlock>()) {
    for (const ast::Field& f : block->fields) {
      if (f.value == nullptr) return false;  // only after parse errors
      // A key not yet in `out` but in `all_keys` is defined here or later.
      ConfigEvalContext ctx{out, &source, f.key.name, &all_keys};
      std::optional<ConfigValue> v = EvalConfigExpr(*f.value, ctx, diags);
      if (!v) return false;
      if (f.key.name == "seed") seed_field = &f;
      (*out)[f.key.name] = std::move(*v);
    }
  }
  // OPS.md §5 seeds the generator from an integer `seed` only; any other
  // value leaves it at 0, which a user who wrote `seed: 3.5` or `seed: "7"`
  // would not notice.
  if (seed_field != nullptr) {
    const ConfigValue& seed = out->at("seed");
    if (seed.kind != ConfigValue::Kind::kInt) {
      std::string shown = seed.kind == ConfigValue::Kind::kString ? "the string \"" + seed.s + "\""
                          : seed.kind == ConfigValue::Kind::kOpaque ? "'" + seed.s + "'"
                                                                      : seed.ToString();
      diags.Add(diag::Kind::ConfigSeedNotInteger, seed_field->value->span,
                "config key 'seed' is " + shown +
                    ", not an integer, so it does not seed the generator (the seed stays the host's, else 0)");
    }
  }
  return true;
}

}  // namespace shrew::lower
