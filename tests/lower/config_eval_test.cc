// @config evaluation (LANGUAGE.md §5.1): arithmetic, `**`, precedence,
// references, bare words, opaque values and every error with its position.
#include "lower/config_eval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "front/parser.h"

namespace shrew::lower {
namespace {

using ir::ConfigValue;

struct Evaluated {
  bool ok = false;
  ConfigMap config;
  std::vector<diag::Diagnostic> diagnostics;
};

Evaluated Eval(const std::string& text) {
  diag::SourceFile source("c.sw", text);
  diag::DiagnosticBag diags;
  ast::Program tree = front::Parse(source, diags);
  Evaluated out;
  if (diags.has_errors()) {
    ADD_FAILURE() << diag::RenderAll(diags.all(), source);
    return out;
  }
  out.ok = EvaluateConfig(tree, source, &out.config, diags);
  out.diagnostics = diags.Take();
  return out;
}

// The value of `key` in a config that must evaluate cleanly.
ConfigValue Value(const std::string& text, const std::string& key) {
  Evaluated e = Eval(text);
  EXPECT_TRUE(e.ok);
  EXPECT_TRUE(e.diagnostics.empty());
  auto it = e.config.find(key);
  if (it == e.config.end()) {
    ADD_FAILURE() << "no key " << key;
    return ConfigValue();
  }
  return it->second;
}

int64_t IntOf(const std::string& expr) {
  ConfigValue v = Value("@config { k: " + expr + "; }", "k");
  EXPECT_EQ(v.kind, ConfigValue::Kind::kInt) << expr << " -> " << v.ToString();
  return v.i;
}

double FloatOf(const std::string& expr) {
  ConfigValue v = Value("@config { k: " + expr + "; }", "k");
  EXPECT_EQ(v.kind, ConfigValue::Kind::kFloat) << expr << " -> " << v.ToString();
  return v.f;
}

// "CODE LINE:COL MESSAGE" of the single error of a failing config.
std::string ErrorOf(const std::string& text) {
  Evaluated e = Eval(text);
  EXPECT_FALSE(e.ok);
  EXPECT_EQ(e.diagnostics.size(), 1u);
  if (e.diagnostics.empty()) return "";
  const diag::Diagnostic& d = e.diagnostics[0];
  return std::string(d.code()) + " " + std::to_string(d.span.line) + ":" +
         std::to_string(d.span.column) + " " + d.message;
}

TEST(ConfigEvalTest, IntegerArithmeticAndPrecedence) {
  EXPECT_EQ(IntOf("1 + 2 * 3"), 7);
  EXPECT_EQ(IntOf("(1 + 2) * 3"), 9);
  EXPECT_EQ(IntOf("10 - 4 - 3"), 3);      // left-associative
  EXPECT_EQ(IntOf("7 / 2"), 3);
  EXPECT_EQ(IntOf("-7 / 2"), -3);         // truncates toward zero
  EXPECT_EQ(IntOf("-7 % 3"), -1);         // sign of the dividend
  EXPECT_EQ(IntOf("7 % -3"), 1);
  EXPECT_EQ(IntOf("28 * 28"), 784);
  EXPECT_EQ(IntOf("((((5))))"), 5);
  EXPECT_EQ(IntOf("007"), 7);
}

TEST(ConfigEvalTest, Power) {
  EXPECT_EQ(IntOf("2 ** 10"), 1024);
  EXPECT_EQ(IntOf("2 ** 3 ** 2"), 512);   // right-associative: 2 ** 9
  EXPECT_EQ(IntOf("-2 ** 2"), 4);         // prefix binds tighter: (-2) ** 2
  EXPECT_EQ(IntOf("-(2 ** 2)"), -4);
  EXPECT_EQ(IntOf("0 ** 0"), 1);
  EXPECT_EQ(IntOf("(-2) ** 63"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(IntOf("1 ** 9223372036854775807"), 1);
  EXPECT_EQ(IntOf("(-1) ** 9223372036854775807"), -1);
  EXPECT_DOUBLE_EQ(FloatOf("2 ** -1"), 0.5);   // negative exponent: float
  EXPECT_DOUBLE_EQ(FloatOf("8 ** -0.5"), 1.0 / std::sqrt(8.0));
  EXPECT_DOUBLE_EQ(FloatOf("2.0 ** 3"), 8.0);
  EXPECT_TRUE(std::isinf(FloatOf("0 ** -1")));
}

TEST(ConfigEvalTest, FloatArithmetic) {
  EXPECT_DOUBLE_EQ(FloatOf("1.0 / 8"), 0.125);
  EXPECT_DOUBLE_EQ(FloatOf("5.5 % 2"), 1.5);
  EXPECT_DOUBLE_EQ(FloatOf("3 * 0.5"), 1.5);
  EXPECT_DOUBLE_EQ(FloatOf("-1e-5"), -1e-5);
  EXPECT_TRUE(std::isinf(FloatOf("1 / 0.0")));
  EXPECT_TRUE(std::isnan(FloatOf("0.0 / 0.0")));
  EXPECT_TRUE(std::isinf(FloatOf("1e999")));
}

TEST(ConfigEvalTest, SpecExample) {
  Evaluated e = Eval(
      "@config {\n"
      "    d_model: 256;\n"
      "    n_heads: 4;\n"
      "    d_head: d_model / n_heads;\n"
      "    d_ff: (d_model) * 4;\n"
      "    eps: 1e-5;\n"
      "    scale: 1.0 / 8;\n"
      "    act: gelu;\n"
      "}\n");
  ASSERT_TRUE(e.ok);
  EXPECT_EQ(e.config.at("d_head").i, 64);
  EXPECT_EQ(e.config.at("d_ff").i, 1024);
  EXPECT_DOUBLE_EQ(e.config.at("eps").f, 1e-5);
  EXPECT_DOUBLE_EQ(e.config.at("scale").f, 0.125);
  EXPECT_EQ(e.config.at("act").kind, ConfigValue::Kind::kString);
  EXPECT_EQ(e.config.at("act").s, "gelu");
}

TEST(ConfigEvalTest, ReferencesRedefinitionAndBlocks) {
  Evaluated e = Eval("@config { a: 1; a: a + 1; }\n@config { b: a * 10; a: 5; c: a; }\n");
  ASSERT_TRUE(e.ok);
  EXPECT_EQ(e.config.at("a").i, 5);
  EXPECT_EQ(e.config.at("b").i, 20);
  EXPECT_EQ(e.config.at("c").i, 5);
}

TEST(ConfigEvalTest, OtherValueKinds) {
  Evaluated e = Eval(
      "@config { s: \"text\"; t: true; n: null; l: [1, 2.5, \"x\", [3]];\n"
      "  call: f(1, 2); cmp: 1 < 2; mixed: \"a\" + 1; neg_f: -2.5; cond: if x { 1 } else { 2 }; }");
  ASSERT_TRUE(e.ok);
  EXPECT_EQ(e.config.at("s").s, "text");
  EXPECT_EQ(e.config.at("t").kind, ConfigValue::Kind::kBool);
  EXPECT_TRUE(e.config.at("t").b);
  EXPECT_EQ(e.config.at("n").kind, ConfigValue::Kind::kOpaque);
  EXPECT_EQ(e.config.at("n").s, "null");
  const ConfigValue& l = e.config.at("l");
  ASSERT_EQ(l.kind, ConfigValue::Kind::kList);
  ASSERT_EQ(l.list.size(), 4u);
  EXPECT_EQ(l.list[0].i, 1);
  EXPECT_DOUBLE_EQ(l.list[1].f, 2.5);
  EXPECT_EQ(l.list[2].s, "x");
  EXPECT_EQ(l.list[3].kind, ConfigValue::Kind::kList);
  EXPECT_EQ(l.ToString(), "[1, 2.5, x, [3]]");
  EXPECT_EQ(e.config.at("call").kind, ConfigValue::Kind::kOpaque);
  EXPECT_EQ(e.config.at("call").s, "f(1, 2)");
  EXPECT_EQ(e.config.at("cmp").s, "1 < 2");
  EXPECT_EQ(e.config.at("mixed").kind, ConfigValue::Kind::kOpaque);
  EXPECT_EQ(e.config.at("mixed").s, "\"a\" + 1");
  EXPECT_DOUBLE_EQ(e.config.at("neg_f").f, -2.5);
  EXPECT_EQ(e.config.at("cond").kind, ConfigValue::Kind::kOpaque);
}

TEST(ConfigEvalTest, DivisionByZero) {
  EXPECT_EQ(ErrorOf("@config {\n  a: 1;\n  b: a / 0;\n}"), "E052 3:8 division by zero");
  EXPECT_EQ(ErrorOf("@config { b: 5 % (2 - 2); }"), "E052 1:16 division by zero");
}

TEST(ConfigEvalTest, Overflow) {
  EXPECT_EQ(ErrorOf("@config { a: 9223372036854775807 + 1; }"),
            "E060 1:34 integer overflow in '+'");
  EXPECT_EQ(ErrorOf("@config { a: -9223372036854775807 - 2; }"),
            "E060 1:35 integer overflow in '-'");
  EXPECT_EQ(ErrorOf("@config { a: 4294967296 * 4294967296; }"),
            "E060 1:25 integer overflow in '*'");
  EXPECT_EQ(ErrorOf("@config { a: 2 ** 63; }"), "E060 1:16 integer overflow in '**'");
  EXPECT_EQ(ErrorOf("@config { m: -9223372036854775807 - 1; a: m / -1; }"),
            "E060 1:45 integer overflow in '/'");
  EXPECT_EQ(ErrorOf("@config { m: -9223372036854775807 - 1; a: -m; }"),
            "E060 1:43 integer overflow in '-'");
  EXPECT_EQ(IntOf("(-9223372036854775807 - 1) % -1"), 0);
  EXPECT_EQ(IntOf("9223372036854775807 - 1 + 1"), std::numeric_limits<int64_t>::max());
}

TEST(ConfigEvalTest, NegatingANonNumber) {
  EXPECT_EQ(ErrorOf("@config { a: -\"x\"; }"), "E053 1:14 cannot negate a non-number");
  EXPECT_EQ(ErrorOf("@config { a: -true; }"), "E053 1:14 cannot negate a non-number");
  EXPECT_EQ(ErrorOf("@config { a: -gelu; }"), "E053 1:14 cannot negate a non-number");
}

// LANGUAGE.md §5.1: a name is a key's value only if the key was defined
// earlier; else it is the string it spells, also when it names the key being
// defined or a later one. In arithmetic that makes the result opaque, which
// is almost surely a mistake: warning W003 (these were errors, E062, which
// also refused a list of words such as `[gelu, relu]` with a later `relu`).
TEST(ConfigEvalTest, SelfAndForwardReferencesAreStrings) {
  Evaluated self = Eval("@config {\n  a: a + 1;\n}");
  ASSERT_TRUE(self.ok);
  EXPECT_EQ(self.config["a"].kind, ConfigValue::Kind::kOpaque);
  ASSERT_EQ(self.diagnostics.size(), 1u);
  EXPECT_EQ(std::string(self.diagnostics[0].code()) + " " + std::to_string(self.diagnostics[0].span.line) + ":" +
                std::to_string(self.diagnostics[0].span.column) + " " + self.diagnostics[0].message,
            "W003 2:6 config key 'a' refers to itself: here it is the string \"a\", and the arithmetic on it is opaque");
  Evaluated forward = Eval("@config { a: b * 2; b: 3; }\n@config { c: -later; later: 1; }");
  EXPECT_FALSE(forward.ok);  // negating the string "later" is E053
  ASSERT_EQ(forward.diagnostics.size(), 3u);
  EXPECT_EQ(forward.diagnostics[0].message,
            "config key 'b' is defined later: here it is the string \"b\", and the arithmetic on it is opaque");
  EXPECT_EQ(forward.diagnostics[1].kind, diag::Kind::ConfigForwardReference);
  EXPECT_STREQ(forward.diagnostics[2].code(), "E053");
  EXPECT_EQ(forward.config["a"].kind, ConfigValue::Kind::kOpaque);
  // Not in arithmetic: plain words, without a warning.
  EXPECT_EQ(Value("@config { act: gelu; gelu: 1; }", "act").s, "gelu");
  EXPECT_EQ(Value("@config { a: a; }", "a").s, "a");
  EXPECT_EQ(Value("@config { a: (b); b: 1; }", "a").s, "b");
  const ConfigValue acts = Value("@config { acts: [gelu, relu]; relu: 1; }", "acts");
  ASSERT_EQ(acts.list.size(), 2u);
  EXPECT_EQ(acts.list[1].s, "relu");
  // A key that exists earlier is a reference, not a self-reference.
  EXPECT_EQ(Value("@config { a: 2; a: a * a; }", "a").i, 4);
}

// OPS.md §5: only an integer `seed` seeds the generator. Any other final
// value left it at 0 without a word; now W004 says so at that value.
TEST(ConfigEvalTest, ASeedThatIsNoIntegerIsAWarning) {
  auto warning = [](const std::string& text) {
    Evaluated e = Eval(text);
    EXPECT_TRUE(e.ok) << text;
    if (e.diagnostics.size() != 1u) return std::string("diagnostics: ") + std::to_string(e.diagnostics.size());
    const diag::Diagnostic& d = e.diagnostics[0];
    return std::string(d.code()) + " " + std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + " " +
           d.message;
  };
  const std::string tail = ", not an integer, so it does not seed the generator (the seed stays the host's, else 0)";
  EXPECT_EQ(warning("@config {\n  seed: 3.5;\n}"), "W004 2:9 config key 'seed' is 3.5" + tail);
  EXPECT_EQ(warning("@config { seed: \"7\"; }"), "W004 1:17 config key 'seed' is the string \"7\"" + tail);
  EXPECT_EQ(warning("@config { seed: 1e3; }"), "W004 1:17 config key 'seed' is 1000" + tail);
  EXPECT_EQ(warning("@config { seed: [1, 2]; }"), "W004 1:17 config key 'seed' is [1, 2]" + tail);
  EXPECT_EQ(warning("@config { seed: true; }"), "W004 1:17 config key 'seed' is true" + tail);
  EXPECT_EQ(warning("@config { seed: f(2); }"), "W004 1:17 config key 'seed' is 'f(2)'" + tail);
  // Only the value that counts (the last) is judged: an integer after a
  // float is fine, a float after an integer is not.
  EXPECT_TRUE(Eval("@config { seed: 1.5; seed: 3; }").diagnostics.empty());
  EXPECT_EQ(warning("@config { seed: 3; }\n@config { seed: 0.5; }"), "W004 2:17 config key 'seed' is 0.5" + tail);
  // Integer arithmetic and negative integers are integers (a negative one is
  // taken modulo 2^64).
  EXPECT_TRUE(Eval("@config { base: 40; seed: base + 2; }").diagnostics.empty());
  EXPECT_TRUE(Eval("@config { seed: -1; }").diagnostics.empty());
  EXPECT_TRUE(Eval("@config { Seed: 1.5; seeds: 0.5; }").diagnostics.empty());
}

TEST(ConfigEvalTest, ArithmeticHelperDirectly) {
  diag::DiagnosticBag diags;
  auto r = ConfigArithmetic(ast::BinaryOp::Mul, ConfigValue::Int(6), ConfigValue::Float(0.5),
                            "6 * 0.5", {}, diags);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->kind, ConfigValue::Kind::kFloat);
  EXPECT_DOUBLE_EQ(r->f, 3.0);
  auto opaque = ConfigArithmetic(ast::BinaryOp::Add, ConfigValue::Bool(true), ConfigValue::Int(1),
                                 "true + 1", {}, diags);
  ASSERT_TRUE(opaque.has_value());
  EXPECT_EQ(opaque->kind, ConfigValue::Kind::kOpaque);
  EXPECT_EQ(opaque->s, "true + 1");
  EXPECT_FALSE(diags.has_errors());
  EXPECT_FALSE(ConfigArithmetic(ast::BinaryOp::Mod, ConfigValue::Int(1), ConfigValue::Int(0),
                                "1 % 0", {}, diags).has_value());
  EXPECT_TRUE(diags.has_errors());
}

// The nested BinaryExprs a ChainExpr stands for (what the parser builds for
// runs of up to front::kMaxNestedLinks operators).
ast::ExprPtr Nested(ast::ExprPtr e) {
  auto* c = e->As<ast::ChainExpr>();
  if (c == nullptr) return e;
  ast::ExprPtr acc = std::move(c->first);
  for (ast::ChainLink& link : c->links) {
    auto b = std::make_unique<ast::Expr>();
    b->span = link.span;
    b->height = std::max(acc->height, link.rhs->height) + 1;
    b->node = ast::BinaryExpr{link.op, link.op_span, std::move(acc), std::move(link.rhs)};
    acc = std::move(b);
  }
  return acc;
}

// Value (or nullopt) and diagnostics of one evaluation, as text.
std::string Outcome(const ast::Expr& e, const diag::SourceFile& source, const ConfigMap& config) {
  diag::DiagnosticBag diags;
  ConfigEvalContext ctx;
  ctx.config = &config;
  ctx.source = &source;
  std::optional<ConfigValue> v = EvalConfigExpr(e, ctx, diags);
  std::string out = v ? "kind " + std::to_string(static_cast<int>(v->kind)) + " " + v->ToString() : "none";
  for (const diag::Diagnostic& d : diags.all()) {
    out += "\n" + std::string(d.code()) + " " + std::to_string(d.span.offset) + "+" + std::to_string(d.span.length) +
           " " + d.message;
  }
  return out;
}

TEST(ConfigEvalTest, LongChainsEvaluateAsTheNestedOperators) {
  // Random runs of 65-360 operators (arithmetic, comparisons, logic, `??`)
  // over small ints, floats, config keys, bare words, products, powers: the
  // ChainExpr's value, opaque text and diagnostics (division by zero,
  // overflow, their positions) equal those of the same tree nested.
  // Operators and operands by mode: [0] anything (mostly opaque: strings,
  // comparisons), [1] arithmetic (division by zero, overflow), [2] sums and
  // differences of numbers, [3] with products of small numbers, [4] sums and
  // quotients followed by one comparison or `??`.
  const std::vector<std::vector<std::string>> ops = {
      {"+", "-", "*", "/", "%", "**", "==", "<", "&&", "??"},
      {"+", "-", "*", "/", "%", "**"},
      {"+", "-"},
      {"+", "-", "*"},
      {"+", "-", "/"}};
  const std::vector<std::vector<std::string>> operands = {
      {"0", "1", "2", "7", "1.5", "k", "big", "word", "(2 * k)", "-1"},
      {"0", "1", "2", "3", "7", "big", "k", "(2 * k)"},
      {"0", "1", "2", "7", "1.5", "k", "big", "(2 * k)", "-1", "(big ** 2)"},
      {"0", "1", "-1", "1.5", "k"},
      {"0", "1", "2", "k"}};
  ConfigMap config;
  config["k"] = ConfigValue::Int(3);
  config["big"] = ConfigValue::Int(int64_t{1} << 40);
  uint32_t state = 12345;
  auto next = [&](size_t n) {
    state = state * 1664525u + 1013904223u;
    return static_cast<size_t>((state >> 8) % n);
  };
  int chains = 0, with_value = 0, with_error = 0;
  for (int round = 0; round < 400; ++round) {
    const size_t mode = static_cast<size_t>(round % 5);
    // Products bind tighter: more operators so the top-level run is long.
    const int links = (front::kMaxNestedLinks + 1 + static_cast<int>(next(56))) * (mode == 1 ? 3 : mode == 3 ? 2 : 1);
    std::string text = operands[mode][next(operands[mode].size())];
    for (int i = 0; i < links; ++i) {
      text += " " + ops[mode][next(ops[mode].size())] + " " + operands[mode][next(operands[mode].size())];
    }
    // Then a looser operator: the arithmetic before it is not evaluated.
    if (mode == 4) text += std::string(" ") + (round % 2 ? "==" : "??") + " 1";
    diag::SourceFile source("c.sw", text);
    diag::DiagnosticBag parse_diags;
    ast::ExprPtr chain = front::ParseExpression(source, parse_diags);
    ASSERT_FALSE(parse_diags.has_errors()) << text;
    if (!chain->Is<ast::ChainExpr>()) continue;  // a `??`/`&&` split the run
    ++chains;
    const std::string got = Outcome(*chain, source, config);
    const std::string want = Outcome(*Nested(std::move(chain)), source, config);
    EXPECT_EQ(got, want) << text;
    with_value += got.rfind("kind 0 ", 0) == 0 || got.rfind("kind 1 ", 0) == 0;  // int, float
    with_error += got.find("\nE") != std::string::npos;
  }
  // The oracle saw numbers, opaque results and errors alike.
  EXPECT_GT(chains, 250);
  EXPECT_GT(with_value, 20);
  EXPECT_GT(with_error, 20);
}

}  // namespace
}  // namespace shrew::lower

namespace shrew::lower {
namespace {

// The parser never builds an expression taller than kMaxExprHeight, so E065
// guards trees made by other means (API users, future front ends): one whose
// recorded height is over the bound is rejected at its span, not walked.
TEST(ConfigEvalTest, TooTallExpressionIsRejectedNotWalked) {
  diag::DiagnosticBag diags;
  ast::ExprPtr e = front::ParseExpression(diag::SourceFile("e.sw", "\n  1 + 2"), diags);
  ASSERT_TRUE(e);
  e->height = kMaxEvalHeight + 1;
  ConfigMap config;
  ConfigEvalContext ctx;
  ctx.config = &config;
  EXPECT_FALSE(EvalConfigExpr(*e, ctx, diags).has_value());
  ASSERT_EQ(diags.all().size(), 1u);
  const diag::Diagnostic& d = diags.all()[0];
  EXPECT_STREQ(d.code(), "E065");
  EXPECT_EQ(d.span.line, 2u);
  EXPECT_EQ(d.span.column, 3u);
}

}  // namespace
}  // namespace shrew::lower
