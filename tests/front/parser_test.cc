#include "front/parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/check.h"
#include "front/ast_dump.h"
#include "support/sanitizer.h"

namespace shrew::front {
namespace {

using diag::Kind;

struct Parsed {
  explicit Parsed(std::string text) : source("t.sw", std::move(text)) {
    program = Parse(source, diags);
  }
  // "LINE:COL CODE message" per diagnostic.
  std::string errors() const {
    std::string out;
    for (const diag::Diagnostic& d : diags.all()) {
      out += std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + " " + d.code() +
             " " + d.message + "\n";
    }
    return out;
  }
  std::string dump() const { return ast::DumpProgram(program, {.spans = false}); }
  const ast::GraphBlock& graph(size_t i = 0) const {
    std::vector<const ast::GraphBlock*> graphs = program.All<ast::GraphBlock>();
    SHREW_CHECK(i < graphs.size());
    return *graphs[i];
  }
  diag::SourceFile source;
  diag::DiagnosticBag diags;
  ast::Program program;
};

// Dump of `text` parsed as one expression; fails the test on diagnostics.
std::string E(const std::string& text) {
  diag::SourceFile source("e.sw", text);
  diag::DiagnosticBag diags;
  ast::ExprPtr e = ParseExpression(source, diags);
  EXPECT_FALSE(diags.has_errors()) << text << "\n" << diag::RenderAll(diags.all(), source);
  return ast::DumpExpr(*e, {.spans = false});
}

// The errors of `text` parsed as a program ("LINE:COL CODE message" lines).
std::string Errors(const std::string& text) { return Parsed(text).errors(); }

std::string Graph(const std::string& body) { return "@graph G {\n" + body + "\n}\n"; }

// ------------------------------------------------------------------ expressions

TEST(ParserExprTest, PrecedenceAndAssociativity) {
  EXPECT_EQ(E("a + b * c ** d ** e"),
            "Binary +\n"
            "  Name a\n"
            "  Binary *\n"
            "    Name b\n"
            "    Binary **\n"
            "      Name c\n"
            "      Binary **\n"
            "        Name d\n"
            "        Name e\n");
  EXPECT_EQ(E("a - b - c"), "Binary -\n  Binary -\n    Name a\n    Name b\n  Name c\n");
  EXPECT_EQ(E("1 + 2 * 3"), "Binary +\n  Int 1\n  Binary *\n    Int 2\n    Int 3\n");
  EXPECT_EQ(E("true && false || true"),
            "Binary ||\n  Binary &&\n    Bool true\n    Bool false\n  Bool true\n");
}

TEST(ParserExprTest, PrefixBindsTighterThanPowerButLooserThanPostfix) {
  EXPECT_EQ(E("-x ** 2"), "Binary **\n  Unary -\n    Name x\n  Int 2\n");
  EXPECT_EQ(E("2 ** -1"), "Binary **\n  Int 2\n  Unary -\n    Int 1\n");
  EXPECT_EQ(E("-x.y"), "Unary -\n  Member y\n    Name x\n");
  EXPECT_EQ(E("!a && b"), "Binary &&\n  Unary !\n    Name a\n  Name b\n");
  EXPECT_EQ(E("~-!x"), "Unary ~\n  Unary -\n    Unary !\n      Name x\n");
  EXPECT_EQ(E("-(x ** 2)"), "Unary -\n  Paren\n    Binary **\n      Name x\n      Int 2\n");
}

TEST(ParserExprTest, EveryPrecedenceLevelInOrder) {
  // Each operator binds tighter than the one before it, so the tree leans right.
  EXPECT_EQ(E("a ?? b || c && d | e ^ f & g == h < i << j + k * l ** m"),
            "Binary ??\n  Name a\n  Binary ||\n    Name b\n    Binary &&\n      Name c\n"
            "      Binary |\n        Name d\n        Binary ^\n          Name e\n"
            "          Binary &\n            Name f\n            Binary ==\n"
            "              Name g\n              Binary <\n                Name h\n"
            "                Binary <<\n                  Name i\n"
            "                  Binary +\n                    Name j\n"
            "                    Binary *\n                      Name k\n"
            "                      Binary **\n                        Name l\n"
            "                        Name m\n");
  // ... and the reverse order groups to the left.
  EXPECT_EQ(E("a * b + c >> d >= e != f & g ^ h | i && j || k ?? l"),
            "Binary ??\n  Binary ||\n    Binary &&\n      Binary |\n        Binary ^\n"
            "          Binary &\n            Binary !=\n              Binary >=\n"
            "                Binary >>\n                  Binary +\n"
            "                    Binary *\n                      Name a\n"
            "                      Name b\n                    Name c\n"
            "                  Name d\n                Name e\n              Name f\n"
            "            Name g\n          Name h\n        Name i\n      Name j\n"
            "    Name k\n  Name l\n");
  EXPECT_EQ(E("a <= b > c % d / e"),
            "Binary >\n  Binary <=\n    Name a\n    Name b\n  Binary /\n    Binary %\n"
            "      Name c\n      Name d\n    Name e\n");
}

TEST(ParserExprTest, Literals) {
  diag::SourceFile source("e.sw", "[007, 2.5e-3, \"a\\tb\", true, false, null, 1e999]");
  diag::DiagnosticBag diags;
  ast::ExprPtr e = ParseExpression(source, diags);
  ASSERT_FALSE(diags.has_errors());
  const auto* list = e->As<ast::ListExpr>();
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->elements.size(), 7u);
  const auto* i = list->elements[0]->As<ast::IntLiteral>();
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->value, 7);
  EXPECT_EQ(i->text, "007");
  const auto* f = list->elements[1]->As<ast::FloatLiteral>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->value, 2.5e-3);
  EXPECT_EQ(f->text, "2.5e-3");
  const auto* s = list->elements[2]->As<ast::StringLiteral>();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->value, "a\tb");
  EXPECT_EQ(s->text, "\"a\\tb\"");
  EXPECT_TRUE(list->elements[3]->As<ast::BoolLiteral>()->value);
  EXPECT_FALSE(list->elements[4]->As<ast::BoolLiteral>()->value);
  EXPECT_TRUE(list->elements[5]->Is<ast::NullLiteral>());
  EXPECT_TRUE(std::isinf(list->elements[6]->As<ast::FloatLiteral>()->value));
  // Spans: offset/length/line/column of an element and of the whole list.
  EXPECT_EQ(list->elements[1]->span.offset, 6u);
  EXPECT_EQ(list->elements[1]->span.length, 6u);
  EXPECT_EQ(list->elements[1]->span.column, 7u);
  EXPECT_EQ(e->span.offset, 0u);
  EXPECT_EQ(e->span.length, source.text().size());
}

TEST(ParserExprTest, CallsWithPositionalAndNamedArguments) {
  EXPECT_EQ(E("softmax(x, dim: -1, keepdim: true,)"),
            "Call softmax\n  Name x\n  dim: Unary -\n    Int 1\n  keepdim: Bool true\n");
  // Soft keywords are names inside expressions and as argument names.
  EXPECT_EQ(E("range(input, repeat: 3, if: 1)"),
            "Call range\n  Name input\n  repeat: Int 3\n  if: Int 1\n");
  EXPECT_EQ(E("f()"), "Call f\n");
  diag::SourceFile source("e.sw", "linear(h, w, bias: false)");
  diag::DiagnosticBag diags;
  ast::ExprPtr e = ParseExpression(source, diags);
  const auto* call = e->As<ast::CallExpr>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->CalleeName(), "linear");
  ASSERT_EQ(call->args.size(), 3u);
  EXPECT_FALSE(call->args[0].name.has_value());
  ASSERT_TRUE(call->args[2].name.has_value());
  EXPECT_EQ(call->args[2].name->name, "bias");
  EXPECT_EQ(call->args[2].span.column, 14u);
  EXPECT_EQ(call->args[2].span.length, 11u);
}

TEST(ParserExprTest, PathsMethodsMembersIndexesSlices) {
  EXPECT_EQ(E("a::b::c"), "Path a::b::c\n");
  EXPECT_EQ(E("nn::relu(x)"), "Call nn::relu\n  Name x\n");
  EXPECT_EQ(E("x.mean(dim: 1)"), "MethodCall mean\n  receiver: Name x\n  dim: Int 1\n");
  EXPECT_EQ(E("a.b.c"), "Member c\n  Member b\n    Name a\n");
  EXPECT_EQ(E("x[0]"), "Index\n  Name x\n  index: Int 0\n");
  EXPECT_EQ(E("x[1:n][0]"),
            "Index\n  Slice\n    Name x\n    begin: Int 1\n    end: Name n\n  index: Int 0\n");
  EXPECT_EQ(E("f(x).y[2]"), "Index\n  Member y\n    Call f\n      Name x\n  index: Int 2\n");
  EXPECT_EQ(E("\"s\".len()"), "MethodCall len\n  receiver: String \"s\"\n");
}

TEST(ParserExprTest, ListsDictsIfRepeatClosures) {
  EXPECT_EQ(E("[1, [2], []]"), "List\n  Int 1\n  List\n    Int 2\n  List\n");
  EXPECT_EQ(E("{a: 1, type: \"x\",}"), "Dict\n  a: Int 1\n  type: String \"x\"\n");
  EXPECT_EQ(E("{}"), "Dict\n");
  EXPECT_EQ(E("if a > 0 { a } else { -a }"),
            "If\n  cond: Binary >\n    Name a\n    Int 0\n  then: Name a\n  else: Unary -\n"
            "    Name a\n");
  EXPECT_EQ(E("if c { 1 }"), "If\n  cond: Name c\n  then: Int 1\n");
  EXPECT_EQ(E("repeat(Layers) { transformer_block(h, n_heads: 4) }"),
            "Repeat\n  count: Name Layers\n  body: Call transformer_block\n    Name h\n"
            "    n_heads: Int 4\n");
  EXPECT_EQ(E("|a, b| { a + b }"), "Closure |a, b|\n  body: Binary +\n    Name a\n    Name b\n");
  EXPECT_EQ(E("| | { 1 }"), "Closure ||\n  body: Int 1\n");
  EXPECT_EQ(E("((x))"), "Paren\n  Paren\n    Name x\n");
}

TEST(ParserExprTest, ExpressionErrors) {
  auto errors = [](const std::string& text) {
    diag::SourceFile source("e.sw", text);
    diag::DiagnosticBag diags;
    ParseExpression(source, diags);
    std::string out;
    for (const auto& d : diags.all()) {
      out += std::to_string(d.span.column) + " " + d.code() + " " + d.message + "\n";
    }
    return out;
  };
  EXPECT_EQ(errors("a +"), "4 E020 expected expression, got end of input\n");
  EXPECT_EQ(errors("f(x)(y)"), "5 E020 expected end of input, got '('\n");  // no call of a call
  EXPECT_EQ(errors("|| { 1 }"), "1 E020 expected expression, got '||'\n");
  EXPECT_EQ(errors("f(x y)"), "5 E020 expected ',' or ')', got 'y'\n");
  EXPECT_EQ(errors("[1, 2"), "6 E020 expected ',' or ']', got end of input\n");
  EXPECT_EQ(errors(".5"), "1 E020 expected expression, got '.'; write 0.5\n");
  EXPECT_EQ(errors("f32(x)"),
            "1 E020 expected expression, got 'f32'; a dtype is an attribute written as a string: cast(x, dtype: \"f32\")\n");
  EXPECT_EQ(errors("_"), "1 E020 expected expression, got '_'\n");
  EXPECT_EQ(errors("{a: 1; b: 2}"),
            "6 E020 expected ',' or '}', got ';'; the entries of a {key: value} value are separated by ','\n");
  EXPECT_EQ(errors("{a: 1 b: 2}"), "7 E020 expected ',' or '}', got 'b'\n");
  EXPECT_EQ(errors("f(x, [1 2])"), "9 E020 expected ',' or ']', got '2'\n");
  EXPECT_EQ(errors("x[1:]"), "5 E020 expected expression, got ']'\n");
  EXPECT_EQ(errors("a::"), "4 E020 expected name, got end of input\n");
}

TEST(ParserExprTest, HeightsChildrenAndParens) {
  diag::SourceFile source("e.sw", "((a)) + f(b, k: -c)");
  diag::DiagnosticBag diags;
  ast::ExprPtr e = ParseExpression(source, diags);
  ASSERT_FALSE(diags.has_errors());
  EXPECT_EQ(e->height, 4u);  // Binary > Call > Unary > Name
  std::vector<uint32_t> child_heights;
  ast::ForEachChild(*e, [&](const ast::Expr& c) { child_heights.push_back(c.height); });
  EXPECT_EQ(child_heights, (std::vector<uint32_t>{3, 3}));
  const ast::Expr* lhs = e->As<ast::BinaryExpr>()->lhs.get();
  EXPECT_TRUE(lhs->Is<ast::ParenExpr>());
  const ast::Expr* stripped = ast::StripParens(lhs);
  ASSERT_TRUE(stripped->Is<ast::NameExpr>());
  EXPECT_EQ(stripped->As<ast::NameExpr>()->name, "a");
  EXPECT_EQ(stripped->span.column, 3u);
  EXPECT_EQ(e->As<ast::BinaryExpr>()->op_span.column, 7u);
}

TEST(ParserExprTest, LongRunsOfOperatorsAreOneFlatChain) {
  // Up to kMaxNestedLinks operators: nested BinaryExprs, as always.
  auto run = [](int links, const std::string& op) {
    std::string text = "a";
    for (int i = 1; i <= links; ++i) text += " " + op + " x" + std::to_string(i);
    return text;
  };
  {
    diag::SourceFile source("e.sw", run(kMaxNestedLinks, "+"));
    diag::DiagnosticBag diags;
    ast::ExprPtr e = ParseExpression(source, diags);
    ASSERT_FALSE(diags.has_errors());
    EXPECT_TRUE(e->Is<ast::BinaryExpr>());
    EXPECT_EQ(e->height, static_cast<uint32_t>(kMaxNestedLinks) + 1);
  }
  // One more: one ChainExpr, `a - x1 * 2 + x2 - x3 * 2 …` read left to
  // right, each link with the span of the BinaryExpr it stands for.
  std::string text = "a";
  for (int i = 1; i <= kMaxNestedLinks + 1; ++i) {
    text += std::string(i % 2 ? " - " : " + ") + "x" + std::to_string(i) + (i % 2 ? " * 2" : "");
  }
  diag::SourceFile source("e.sw", text);
  diag::DiagnosticBag diags;
  ast::ExprPtr e = ParseExpression(source, diags);
  ASSERT_FALSE(diags.has_errors());
  const auto* chain = e->As<ast::ChainExpr>();
  ASSERT_NE(chain, nullptr);
  ASSERT_EQ(chain->links.size(), static_cast<size_t>(kMaxNestedLinks) + 1);
  EXPECT_EQ(chain->first->As<ast::NameExpr>()->name, "a");
  EXPECT_EQ(e->height, 3u);  // Chain > Binary * > Name
  EXPECT_EQ(e->span.offset, 0u);
  EXPECT_EQ(e->span.length, text.size());
  for (size_t i = 0; i < chain->links.size(); ++i) {
    const ast::ChainLink& link = chain->links[i];
    const std::string rhs_name = "x" + std::to_string(i + 1);
    EXPECT_EQ(link.op, i % 2 ? ast::BinaryOp::Add : ast::BinaryOp::Sub) << i;
    EXPECT_EQ(text.substr(link.op_span.offset, link.op_span.length), i % 2 ? "+" : "-");
    const ast::Expr* rhs = link.rhs.get();
    if (i % 2 == 0) {
      ASSERT_TRUE(rhs->Is<ast::BinaryExpr>()) << i;
      rhs = rhs->As<ast::BinaryExpr>()->lhs.get();
    }
    EXPECT_EQ(rhs->As<ast::NameExpr>()->name, rhs_name);
    EXPECT_EQ(link.span.offset, 0u);
    EXPECT_EQ(link.span.offset + link.span.length, link.rhs->span.offset + link.rhs->span.length) << i;
  }
  std::vector<uint32_t> child_heights;
  ast::ForEachChild(*e, [&](const ast::Expr& c) { child_heights.push_back(c.height); });
  EXPECT_EQ(child_heights.size(), chain->links.size() + 1);

  // 200,000 operators of every left-associative precedence level: no error,
  // linear time (CPU), and the dump is one line per operand.
  for (const char* op : {"+", "*", "&&", "??", "==", "<<", "|"}) {
    const std::clock_t begin = std::clock();
    diag::SourceFile big("e.sw", run(200000, op));
    diag::DiagnosticBag big_diags;
    ast::ExprPtr b = ParseExpression(big, big_diags);
    EXPECT_FALSE(big_diags.has_errors()) << op;
    ASSERT_TRUE(b->Is<ast::ChainExpr>()) << op;
    EXPECT_EQ(b->As<ast::ChainExpr>()->links.size(), 200000u);
    EXPECT_EQ(b->height, 2u);
    // ~0.1 s each in a release build; a quadratic parser would take hours.
    EXPECT_LT(static_cast<double>(std::clock() - begin) / CLOCKS_PER_SEC,
              2.0 * shrew::testing::kTimeScale);
  }
  EXPECT_EQ(E(run(kMaxNestedLinks + 1, "*")).rfind("Chain\n  Name a\n  * Name x1\n  * Name x2\n", 0), 0u);
}

// ----------------------------------------------------------------------- graphs

TEST(ParserGraphTest, HeaderParametersAndReturnType) {
  Parsed p("@graph G(x: Tensor<[N, 4], f32>, y: T?, z: ? ?,) -> Out { output x; }\n"
           "@graph H -> f32 { output 1; }\n@graph I() {}\n@graph J {}");
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  const ast::GraphBlock& g = p.graph(0);
  EXPECT_EQ(g.name.name, "G");
  EXPECT_TRUE(g.has_param_list);
  ASSERT_EQ(g.params.size(), 3u);
  EXPECT_EQ(g.params[0].name.name, "x");
  EXPECT_EQ(ast::FormatType(g.params[0].type), "Tensor<[N, 4], f32>");
  EXPECT_FALSE(g.params[0].optional);
  EXPECT_EQ(g.params[1].type.kind, ast::Type::Kind::Alias);
  EXPECT_TRUE(g.params[1].optional);
  EXPECT_EQ(g.params[2].type.kind, ast::Type::Kind::Dynamic);
  EXPECT_TRUE(g.params[2].optional);
  ASSERT_TRUE(g.return_type.has_value());
  EXPECT_EQ(g.return_type->name, "Out");
  EXPECT_FALSE(p.graph(1).has_param_list);
  EXPECT_EQ(p.graph(1).return_type->kind, ast::Type::Kind::Scalar);
  EXPECT_TRUE(p.graph(2).has_param_list);
  EXPECT_TRUE(p.graph(2).params.empty());
  EXPECT_FALSE(p.graph(3).has_param_list);
  EXPECT_FALSE(p.graph(3).return_type.has_value());
  EXPECT_EQ(p.program.blocks[0].span.line, 1u);
  EXPECT_EQ(p.program.blocks[1].span.line, 2u);
}

TEST(ParserGraphTest, InputsAndParams) {
  Parsed p(Graph("input x: Tensor<[Batch, 784], f32>;\n"
                 "input lr: f32;\ninput any: ?;\ninput opt: ? ?;\ninput m: Mask?;\n"
                 "param w: Tensor<[784, 10], f32> { init: \"xavier_uniform\"; frozen: true; };\n"
                 "param b: Tensor<[10], f32>;"));
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  const auto& body = p.graph().body;
  ASSERT_EQ(body.size(), 7u);
  const auto* x = body[0].As<ast::InputDecl>();
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->name.name, "x");
  EXPECT_EQ(x->name.span.line, 2u);
  EXPECT_EQ(x->name.span.column, 7u);
  ASSERT_EQ(x->type.dims.size(), 2u);
  EXPECT_EQ(x->type.dims[0].kind, ast::Dim::Kind::Named);
  EXPECT_EQ(x->type.dims[1].kind, ast::Dim::Kind::Fixed);
  EXPECT_EQ(x->type.dims[1].value, 784);
  EXPECT_EQ(x->type.dtype, ast::Dtype::F32);
  EXPECT_FALSE(x->optional);
  EXPECT_EQ(body[0].span.column, 1u);
  EXPECT_EQ(body[0].span.length, 35u);  // through the ';'
  EXPECT_EQ(body[1].As<ast::InputDecl>()->type.kind, ast::Type::Kind::Scalar);
  EXPECT_EQ(body[2].As<ast::InputDecl>()->type.kind, ast::Type::Kind::Dynamic);
  EXPECT_FALSE(body[2].As<ast::InputDecl>()->optional);
  EXPECT_TRUE(body[3].As<ast::InputDecl>()->optional);
  EXPECT_TRUE(body[4].As<ast::InputDecl>()->optional);
  const auto* w = body[5].As<ast::ParamDecl>();
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->has_attribute_block);
  ASSERT_EQ(w->attributes.size(), 2u);
  EXPECT_EQ(w->attributes[0].key.name, "init");
  EXPECT_EQ(w->attributes[0].value->As<ast::StringLiteral>()->value, "xavier_uniform");
  EXPECT_EQ(w->attributes[1].key.name, "frozen");
  EXPECT_TRUE(w->attributes[1].value->As<ast::BoolLiteral>()->value);
  EXPECT_FALSE(body[6].As<ast::ParamDecl>()->has_attribute_block);
}

TEST(ParserGraphTest, NodeForms) {
  Parsed p(Graph("node a;\nnode b: T;\nnode c: { op: x; };\nnode d: Tensor<[2], f32> {\n"
                 "  op: relu(x);\n  input: x;\n  output: Tensor<[2], f32>;\n  @hint in_place;\n"
                 "  @hint my_hint;\n  scale: 2;\n  op: y;\n};"));
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  const auto& body = p.graph().body;
  ASSERT_EQ(body.size(), 4u);
  const auto* a = body[0].As<ast::NodeDecl>();
  EXPECT_FALSE(a->has_body);
  EXPECT_FALSE(a->type.has_value());
  const auto* b = body[1].As<ast::NodeDecl>();
  EXPECT_FALSE(b->has_body);
  EXPECT_EQ(b->type->name, "T");
  const auto* c = body[2].As<ast::NodeDecl>();
  EXPECT_TRUE(c->has_body);
  EXPECT_FALSE(c->type.has_value());
  const auto* d = body[3].As<ast::NodeDecl>();
  ASSERT_EQ(d->body.size(), 7u);
  using NK = ast::NodeItem::Kind;
  EXPECT_EQ(d->body[0].kind, NK::Op);
  EXPECT_TRUE(d->body[0].value->Is<ast::CallExpr>());
  EXPECT_EQ(d->body[1].kind, NK::Input);
  EXPECT_EQ(d->body[2].kind, NK::OutputType);
  EXPECT_EQ(ast::FormatType(d->body[2].type), "Tensor<[2], f32>");
  EXPECT_EQ(d->body[3].kind, NK::Hint);
  EXPECT_EQ(d->body[3].key.name, "in_place");
  EXPECT_EQ(d->body[4].key.name, "my_hint");
  EXPECT_EQ(d->body[5].kind, NK::Attribute);
  EXPECT_EQ(d->body[5].key.name, "scale");
  EXPECT_EQ(d->body[6].kind, NK::Op);  // a second op: is kept; lowering rejects it
  EXPECT_EQ(d->body[3].span.line, 9u);
  EXPECT_EQ(d->body[3].span.column, 3u);
}

TEST(ParserGraphTest, OutputsAssertsAndChecks) {
  Parsed p(Graph("output y;\noutput probs: softmax(s, dim: -1);\noutput a::b;\noutput x + 1;\n"
                 "output input: x;\n@assert Hidden > 0, \"positive\";\n@assert ok;\n"
                 "@check shapes { assert N > 0, \"n\"; assert M == N; }"));
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  const auto& body = p.graph().body;
  ASSERT_EQ(body.size(), 8u);
  EXPECT_FALSE(body[0].As<ast::OutputDecl>()->name.has_value());
  EXPECT_TRUE(body[0].As<ast::OutputDecl>()->value->Is<ast::NameExpr>());
  EXPECT_EQ(body[1].As<ast::OutputDecl>()->name->name, "probs");
  EXPECT_TRUE(body[2].As<ast::OutputDecl>()->value->Is<ast::PathExpr>());
  EXPECT_FALSE(body[3].As<ast::OutputDecl>()->name.has_value());
  EXPECT_EQ(body[4].As<ast::OutputDecl>()->name->name, "input");
  const auto* a = body[5].As<ast::AssertStmt>();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->message->value, "positive");
  EXPECT_TRUE(a->condition->Is<ast::BinaryExpr>());
  EXPECT_FALSE(body[6].As<ast::AssertStmt>()->message.has_value());
  const auto* c = body[7].As<ast::CheckBlock>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->name.name, "shapes");
  ASSERT_EQ(c->asserts.size(), 2u);
  EXPECT_EQ(c->asserts[0].message->value, "n");
  EXPECT_FALSE(c->asserts[1].message.has_value());
  EXPECT_EQ(c->asserts[1].span.column, 36u);
}

TEST(ParserGraphTest, SoftKeywordsAreNamesAndKeys) {
  Parsed p(Graph("input input: Tensor<[model, loss], f32>;\nnode output { op: input * range; };\n"
                 "output node: output;"));
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  EXPECT_EQ(p.dump(),
            "Program\n  Graph G\n    Input input: Tensor<[model, loss], f32>\n    Node output\n"
            "      Op\n        Binary *\n          Name input\n          Name range\n"
            "    Output node\n      Name output\n");
}

// ------------------------------------------------------------------------ types

TEST(ParserTypeTest, EveryTypeForm) {
  Parsed p("@types { type A = Tensor<[Batch, 768, ?, _, input,], bf16>; type B = i64;\n"
           "type C = A; type D = ?; type E = (A, Tensor<[], bool>); type F = [A]; type G = 5;\n"
           "type H = (); type I = Tensor<[], complex128>; }");
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  const auto* types = p.program.blocks[0].As<ast::TypesBlock>();
  ASSERT_NE(types, nullptr);
  std::vector<std::string> formatted;
  for (const auto& alias : types->aliases) formatted.push_back(alias.name.name + "=" + ast::FormatType(alias.type));
  EXPECT_EQ(formatted, (std::vector<std::string>{
                           "A=Tensor<[Batch, 768, ?, _, input], bf16>", "B=i64", "C=A", "D=?",
                           "E=(A, Tensor<[], bool>)", "F=[A]", "G=5", "H=()",
                           "I=Tensor<[], complex128>"}));
  const ast::Type& a = types->aliases[0].type;
  EXPECT_EQ(a.kind, ast::Type::Kind::Tensor);
  EXPECT_EQ(a.dims[2].kind, ast::Dim::Kind::Dynamic);
  EXPECT_EQ(a.dims[3].kind, ast::Dim::Kind::Inferred);
  EXPECT_EQ(a.dims[4].kind, ast::Dim::Kind::Named);
  EXPECT_EQ(a.dims[1].span.column, 34u);
  EXPECT_EQ(a.span.column, 19u);
  EXPECT_EQ(types->aliases[6].type.kind, ast::Type::Kind::Int);
  EXPECT_EQ(types->aliases[6].type.int_value, 5);
  EXPECT_EQ(types->aliases[4].type.elements.size(), 2u);
}

TEST(ParserTypeTest, TypeErrors) {
  EXPECT_EQ(Errors("@types { type A = Tensor<[N], f32>>; }"),
            "1:34 E020 expected '>', got '>>'\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<[N * 2], f32>; }"),
            "1:29 E020 expected ',' or ']', got '*'; there is no arithmetic in a type: compute the size in @config "
            "from config keys (N2: N * 2;) and use its name; a size bound by the inputs gets a name of its own\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<[N], float>; }"),
            "1:31 E020 expected dtype, got 'float'; write f32\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<[N], Float64>; }"),
            "1:31 E020 expected dtype, got 'Float64'; write f64\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<[N], float128>; }"), "1:31 E020 expected dtype, got 'float128'\n");
  // A typo of a dtype word.
  EXPECT_EQ(Errors("@types { type A = Tensor<[N], f23>; }"), "1:31 E020 expected dtype, got 'f23'; write f32\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<[N], F32>; }"), "1:31 E020 expected dtype, got 'F32'; write f32\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<[N], boo>; }"), "1:31 E020 expected dtype, got 'boo'; write bool\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<[N], i46>; }"), "1:31 E020 expected dtype, got 'i46'; write i64\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<[N], x>; }"), "1:31 E020 expected dtype, got 'x'\n");
  // Other libraries' spellings of a tensor type.
  EXPECT_EQ(Errors("@types { type A = Tensor[N, f32]; }"),
            "1:25 E020 expected '<', got '['; tensor types are written Tensor<[dims], dtype>\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<N, f32>; }"),
            "1:26 E020 expected '[', got 'N'; tensor types are written Tensor<[dims], dtype>\n");
  EXPECT_EQ(Errors("@types { type A = f32[2]; }"),
            "1:22 E020 expected the end of the type, got '['; tensor types are written Tensor<[dims], dtype>\n");
  // `=` for `:`, and Python's keyword arguments.
  EXPECT_EQ(Errors("@config { a = 1; }"), "1:13 E020 expected ':', got '='; keys and values are separated by ':'\n");
  EXPECT_EQ(Errors(Graph("output y: sum(x, axis=1);")),
            "2:22 E020 expected ',' or ')', got '='; named arguments are written name: value\n");
  EXPECT_EQ(Errors("@types { type A = (B,); }"), "1:22 E020 expected type, got ')'\n");
  EXPECT_EQ(Errors("@types { type A = Tensor<[+], f32>; }"),
            "1:27 E020 expected dimension, got '+'\n");
  EXPECT_EQ(Errors("@types { A = f32; }"),
            "1:10 E020 expected 'type', got 'A'; an alias is written 'type A = ...;'\n");
  EXPECT_EQ(Errors("@types { type: f32; }"), "1:14 E020 expected name, got ':'\n");
  EXPECT_EQ(Errors("@types {\n  T: Tensor<[2], f32>;\n}"),
            "2:3 E020 expected 'type', got 'T'; an alias is written 'type T = ...;'\n");
  EXPECT_EQ(Errors(Graph("node h: ;")), "2:9 E020 expected type, got ';'\n");
}

// ----------------------------------------------------------------------- blocks

TEST(ParserBlockTest, ImportModelConfig) {
  Parsed p("@import \"common.sw\" as common;\n@import \"x.sw\";\n"
           "@model { name: \"Demo\"; tags: [\"a\", \"b\",]; meta: {k: 1, j: null,}; v: 1.5; }\n"
           "@config { d_model: 256; d_head: d_model / n_heads; act: gelu; d_ff: (d_model) * 4; }");
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  ASSERT_EQ(p.program.blocks.size(), 4u);
  const auto* import = p.program.blocks[0].As<ast::ImportBlock>();
  EXPECT_EQ(import->path.value, "common.sw");
  EXPECT_EQ(import->alias->name, "common");
  EXPECT_FALSE(p.program.blocks[1].As<ast::ImportBlock>()->alias.has_value());
  const auto* model = p.program.blocks[2].As<ast::ModelBlock>();
  ASSERT_EQ(model->fields.size(), 4u);
  EXPECT_EQ(model->fields[1].value->As<ast::ListExpr>()->elements.size(), 2u);
  const ast::DictEntry& j = model->fields[2].value->As<ast::DictExpr>()->entries[1];
  EXPECT_EQ(j.key.name, "j");
  EXPECT_EQ(p.source.text().substr(j.span.offset, j.span.length), "j: null");
  const auto* config = p.program.blocks[3].As<ast::ConfigBlock>();
  ASSERT_EQ(config->fields.size(), 4u);
  EXPECT_EQ(config->fields[1].key.name, "d_head");
  EXPECT_EQ(config->fields[1].value->As<ast::BinaryExpr>()->op, ast::BinaryOp::Div);
  EXPECT_EQ(p.program.All<ast::ConfigBlock>().size(), 1u);
  EXPECT_EQ(p.program.All<ast::ImportBlock>().size(), 2u);
}

// The warning quotes the path as a string literal reads ("a"c.sw" of a\"c.sw).
TEST(ParserBlockTest, AnImportsWarningQuotesItsPathEscaped) {
  Parsed p("@import \"a\\nb\\\"c\\\\d.sw\";");
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  ASSERT_EQ(p.diags.all().size(), 1u);
  EXPECT_EQ(p.diags.all()[0].message, "@import \"a\\nb\\\"c\\\\d.sw\" is parsed and ignored: no file is read");
}

TEST(ParserBlockTest, ModelValuesAreLiteralsOnly) {
  EXPECT_EQ(Errors("@model { n: -1; }"), "1:13 E020 expected literal, got '-'\n");
  EXPECT_EQ(Errors("@model { n: x; }"), "1:13 E020 expected literal, got 'x'\n");
  EXPECT_EQ(Errors("@model { m: {a: 1; b: 2}; }"),
            "1:18 E020 expected ',' or '}', got ';'; the entries of a {key: value} value are separated by ','\n");
  EXPECT_EQ(Errors("@model { m: [1 2]; }"), "1:16 E020 expected ',' or ']', got '2'\n");
  EXPECT_EQ(Errors("@import \"a\" as input;"), "1:16 E020 expected identifier, got 'input'\n");
}

TEST(ParserBlockTest, TrainingAndInference) {
  Parsed p("@training { model: Net; loss: mse; optimizer: { type: \"AdamW\"; lr: lr0; }\n"
           "lr_schedule: { type: \"cosine\"; } grad_clip: { max_norm: 1.0; } epochs: 3;\n"
           "precision: \"fp32\"; }\n"
           "@inference { model: Net; optimizations: [\"fuse\", \"cse\"]; quantization: { bits: 8; }\n"
           "generation: { temperature: 0.7; } loss: \"x\"; }");
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  using SK = ast::Setting::Kind;
  const auto* t = p.program.blocks[0].As<ast::TrainingBlock>();
  ASSERT_EQ(t->settings.size(), 7u);
  EXPECT_EQ(t->settings[0].kind, SK::Name);
  EXPECT_EQ(t->settings[0].name.name, "Net");
  EXPECT_EQ(t->settings[1].kind, SK::Name);
  EXPECT_EQ(t->settings[2].kind, SK::Fields);
  EXPECT_EQ(t->settings[2].fields.size(), 2u);
  EXPECT_EQ(t->settings[3].kind, SK::Fields);
  EXPECT_EQ(t->settings[4].kind, SK::Fields);
  EXPECT_EQ(t->settings[5].kind, SK::Expr);
  EXPECT_EQ(t->settings[5].value->As<ast::IntLiteral>()->value, 3);
  EXPECT_EQ(t->settings[6].key.name, "precision");
  const auto* inf = p.program.blocks[1].As<ast::InferenceBlock>();
  ASSERT_EQ(inf->settings.size(), 5u);
  EXPECT_EQ(inf->settings[0].kind, SK::Name);
  EXPECT_EQ(inf->settings[1].kind, SK::Expr);
  EXPECT_TRUE(inf->settings[1].value->Is<ast::ListExpr>());
  EXPECT_EQ(inf->settings[2].kind, SK::Fields);
  EXPECT_EQ(inf->settings[3].kind, SK::Fields);
  EXPECT_EQ(inf->settings[4].kind, SK::Expr);  // `loss` is an ordinary field here
}

TEST(ParserBlockTest, TrainingErrors) {
  // A ';' after a brace_fields value is a syntax error (§3.10).
  EXPECT_EQ(Errors("@training { optimizer: { lr: 1; }; }"),
            "1:34 E020 expected a setting or '}', got ';'; no ';' follows the '}' of 'optimizer: { ... }'\n");
  // `model` takes a bare name, not a string.
  EXPECT_EQ(Errors("@training { model: \"Net\"; }"),
            "1:20 E020 expected name, got '\"Net\"'\n");
  EXPECT_EQ(Errors("@inference { optimizations: fuse; }"),
            "1:29 E020 expected '[', got 'fuse'\n");
}

TEST(ParserBlockTest, CustomOpMetricsLoggingVisualizations) {
  Parsed p("@custom_op rope {\n  signature: (x: Tensor<[B, S, D], f32>, t: (f32, [i64])?) -> "
           "Tensor<[B, S, D], f32>;\n  impl cpu { source: \"rope.c\"; }\n"
           "  gradient rope_grad { signature: () -> f32; gradient inner { impl gpu { } } }\n}\n"
           "@metrics Stats { track train_loss { source: loss; aggregate: \"mean\"; } track acc {} }\n"
           "@logging { backend: \"stdout\"; log_every: 10; }\n"
           "@visualizations { plot curve { x: \"step\"; y: \"train_loss\"; } }");
  ASSERT_FALSE(p.diags.has_errors()) << p.errors();
  using CK = ast::CustomOpItem::Kind;
  const auto* op = p.program.blocks[0].As<ast::CustomOpBlock>();
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->name.name, "rope");
  ASSERT_EQ(op->items.size(), 3u);
  EXPECT_EQ(op->items[0].kind, CK::Signature);
  ASSERT_EQ(op->items[0].params.size(), 2u);
  EXPECT_TRUE(op->items[0].params[1].optional);
  EXPECT_EQ(ast::FormatType(op->items[0].params[1].type), "(f32, [i64])");
  EXPECT_EQ(ast::FormatType(op->items[0].return_type), "Tensor<[B, S, D], f32>");
  EXPECT_EQ(op->items[1].kind, CK::Impl);
  EXPECT_EQ(op->items[1].name.name, "cpu");
  EXPECT_EQ(op->items[1].fields[0].key.name, "source");
  EXPECT_EQ(op->items[2].kind, CK::Gradient);
  ASSERT_EQ(op->items[2].items.size(), 2u);
  EXPECT_EQ(op->items[2].items[1].kind, CK::Gradient);
  EXPECT_EQ(op->items[2].items[1].items[0].kind, CK::Impl);
  const auto* metrics = p.program.blocks[1].As<ast::MetricsBlock>();
  EXPECT_EQ(metrics->name.name, "Stats");
  ASSERT_EQ(metrics->tracks.size(), 2u);
  EXPECT_EQ(metrics->tracks[0].fields.size(), 2u);
  EXPECT_EQ(p.program.blocks[2].As<ast::LoggingBlock>()->fields.size(), 2u);
  const auto* vis = p.program.blocks[3].As<ast::VisualizationsBlock>();
  ASSERT_EQ(vis->plots.size(), 1u);
  EXPECT_EQ(vis->plots[0].name.name, "curve");
  EXPECT_EQ(vis->plots[0].span.line, 8u);
}

// ------------------------------------------------------------- whole programs

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ParserProgramTest, EveryExampleProgramParsesWithoutDiagnostics) {
  std::filesystem::path dir = std::filesystem::path(SHREW_TESTDATA_DIR) / "examples";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".sw") continue;
    ++count;
    diag::SourceFile source(entry.path().filename().string(), ReadFile(entry.path()));
    diag::DiagnosticBag diags;
    ast::Program program = Parse(source, diags);
    EXPECT_TRUE(diags.all().empty()) << diag::RenderAll(diags.all(), source);
    EXPECT_FALSE(program.All<ast::GraphBlock>().empty()) << entry.path();
  }
  EXPECT_EQ(count, 9);
}

TEST(ParserProgramTest, SpecSection8Examples) {
  const char* programs[] = {
      // §1
      "@model  { name: \"Scale\"; version: \"1.0\"; }\n@config { Width: 3; }\n"
      "@graph Main {\n input x: Tensor<[Batch, Width], f32>;\n"
      " param s: Tensor<[Width], f32> { init: \"ones\"; };\n node y { op: relu(x * s - 0.5); };\n"
      " output y;\n}\n",
      // §8.2
      "@graph Poly {\n input t: Tensor<[8], f64>;\n node sq { op: t ** 2; };\n"
      " node neg { op: -t ** 2; };\n node cubic { op: 0.5 * t ** 3 - t + 1; };\n"
      " output cubic;\n output same: sq == neg;\n}\n",
      // §8.4
      "@import \"common.sw\" as common;\n@model { name: \"Demo\"; tags: [\"small\", \"test\"]; }\n"
      "@config { Hidden: 16; lr0: 3e-4; }\n@types { type Vec = Tensor<[Batch, Hidden], f32>; }\n"
      "@graph Net {\n input x: Vec;\n"
      " param w: Tensor<[Hidden, Hidden], f32> { init: \"kaiming_normal\"; };\n"
      " node y: Vec { op: gelu(matmul(x, w)); @hint recompute_in_backward; };\n"
      " @assert Hidden > 0, \"hidden size must be positive\";\n output y;\n}\n"
      "@custom_op rope { signature: (x: Tensor<[B, S, D], f32>) -> Tensor<[B, S, D], f32>; }\n"
      "@training {\n model: Net;\n loss: mse;\n"
      " optimizer: { type: \"AdamW\"; lr: lr0; weight_decay: 0.01; }\n epochs: 3;\n"
      " batch_size: 8;\n}\n@inference { model: Net; generation: { temperature: 0.7; } }\n"
      "@metrics Stats { track train_loss { source: loss; aggregate: \"mean\"; } }\n"
      "@logging { backend: \"stdout\"; }\n"
      "@visualizations { plot curve { x: \"step\"; y: \"train_loss\"; } }\n",
  };
  for (const char* text : programs) {
    Parsed p(text);
    EXPECT_FALSE(p.diags.has_errors()) << p.errors();
  }
  EXPECT_EQ(Parsed(programs[2]).program.blocks.size(), 11u);
}

TEST(ParserProgramTest, NodeSpanCoversTheDeclaration) {
  Parsed p("@graph G {\n  node y { op: relu(x); };\n}");
  ASSERT_FALSE(p.diags.has_errors());
  const ast::GraphStmt& s = p.graph().body[0];
  EXPECT_EQ(s.span.line, 2u);
  EXPECT_EQ(s.span.column, 3u);
  EXPECT_EQ(std::string(p.source.text().substr(s.span.offset, s.span.length)),
            "node y { op: relu(x); };");
  const auto* node = s.As<ast::NodeDecl>();
  const ast::Expr& op = *node->body[0].value;
  EXPECT_EQ(std::string(p.source.text().substr(op.span.offset, op.span.length)), "relu(x)");
  EXPECT_EQ(p.program.blocks[0].span.length, p.source.text().size());
}

}  // namespace
}  // namespace shrew::front
