// Evaluation of `@config` expressions (LANGUAGE.md §5.1). The same evaluator
// reads compile-time constants elsewhere: operation and node attributes
// (OPS.md §1.1), repeat counts and `@training` / `@inference` values.
//
//   ConfigMap config;
//   diag::DiagnosticBag diags;
//   if (!EvaluateConfig(program, source, &config, diags)) { … diags … }
//   // config["d_head"] is ConfigValue::Int(64) for `d_head: d_model / n_heads;`
//
// Contract:
// - Values: int (64-bit), float, string, bool, list, or opaque (kept as its
//   source text, never used as a number).
// - Arithmetic: int∘int stays int (`/` truncates, `%` has the dividend's
//   sign, `**` with exponent >= 0 is exact, a negative exponent gives a
//   float); any float operand makes both float (IEEE: `/0.0` is ±inf, `%`
//   is fmod, `**` is pow). Arithmetic with a non-number gives opaque.
// - Errors, reported with the span of the offending construct and returned as
//   nullopt / false: division or `%` by integer zero (E052), 64-bit overflow
//   (E060), negating a non-number (E053).
// - In @config blocks a name of the key being defined (self-reference) or of
//   a key first defined later (forward reference) is the string it spells,
//   as any other bare word (LANGUAGE.md §5.1); as an operand of arithmetic
//   it also gets warning W003, since the result is then opaque.
// - A final `seed` that is not an integer gets warning W004: it does not seed
//   the generator (OPS.md §5).
// - Recursion depth is the expression height, which the parser bounds; an
//   expression taller than kMaxEvalHeight is rejected (E065) rather than
//   walked, so no input can exhaust the stack.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "front/ast.h"
#include "front/parser.h"
#include "ir/graph.h"

namespace shrew::lower {

// Same type as ir::Program::config.
using ConfigMap = std::map<std::string, ir::ConfigValue>;

// Tallest expression the lowering walks recursively: the parser's own bound
// (ast.h), so everything that parses is lowered and the recursion depth
// stays what tests/api/compile_stack_test.cc checks on a 1 MB stack.
inline constexpr uint32_t kMaxEvalHeight = front::kMaxExprHeight;

struct ConfigEvalContext {
  // Keys visible at this point (for @config: those defined earlier).
  const ConfigMap* config = nullptr;
  const diag::SourceFile* source = nullptr;
  // @config only: the key being defined, and every key first defined later.
  // An arithmetic operand naming one of them gets warning W003.
  std::string_view defining_key;
  const std::set<std::string, std::less<>>* later_keys = nullptr;
};

// Evaluates `e`. nullopt after reporting an error to `diags`.
std::optional<ir::ConfigValue> EvalConfigExpr(const ast::Expr& e, const ConfigEvalContext& ctx,
                                              diag::DiagnosticBag& diags);

// Evaluates every @config block of `program` in source order into `*out`
// (a later field with the same key replaces the earlier value). Stops at the
// first error and returns false.
bool EvaluateConfig(const ast::Program& program, const diag::SourceFile& source, ConfigMap* out,
                    diag::DiagnosticBag& diags);

// The binary arithmetic of §5.1 on two values (exposed for tests and for
// attribute evaluation). `op` is one of Add Sub Mul Div Mod Pow. Returns
// nullopt after reporting division by zero or overflow at `span`;
// non-numbers give an opaque value with text `text`.
std::optional<ir::ConfigValue> ConfigArithmetic(ast::BinaryOp op, const ir::ConfigValue& a,
                                                const ir::ConfigValue& b, std::string_view text,
                                                diag::Span span, diag::DiagnosticBag& diags);

// The source text of a span ("" when out of range).
std::string_view SpanText(const diag::SourceFile& source, diag::Span span);

}  // namespace shrew::lower
