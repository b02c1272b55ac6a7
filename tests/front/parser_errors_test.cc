// Parser diagnostics, recovery and hostile inputs.
#include <gtest/gtest.h>
#include <pthread.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "front/ast_dump.h"
#include "front/parser.h"
#include "support/sanitizer.h"

namespace shrew::front {
namespace {

struct Parsed {
  explicit Parsed(std::string text) : source("t.sw", std::move(text)) {
    program = Parse(source, diags);
  }
  std::string errors() const {
    std::string out;
    for (const diag::Diagnostic& d : diags.all()) {
      out += std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + " " + d.code() +
             " " + d.message + "\n";
    }
    return out;
  }
  diag::SourceFile source;
  diag::DiagnosticBag diags;
  ast::Program program;
};

std::string Errors(const std::string& text) { return Parsed(text).errors(); }

// Time bounds measure CPU time (std::clock), so a busy machine does not make
// them flaky; support/sanitizer.h scales them for slow builds.
using shrew::testing::kTimeScale;

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

double SecondsSince(std::clock_t begin) {
  return static_cast<double>(std::clock() - begin) / CLOCKS_PER_SEC;
}

// ---------------------------------------------------------------- messages

TEST(ParserErrorTest, MessagesFollowTheSpec) {
  EXPECT_EQ(Errors("@graph G {\n  node h { op: x relu(x); };\n}"),
            "2:18 E020 expected ';', got 'relu'\n");
  EXPECT_EQ(Errors("@config { a: "), "1:14 E020 expected expression, got end of input\n");
  EXPECT_EQ(Errors("x"), "1:1 E020 expected a top-level block such as @graph, got 'x'\n");
  EXPECT_EQ(Errors("@graph G { h = relu(x); }"),
            "1:12 E020 expected input, param, node, output, @assert or @check, got 'h'; there is no "
            "assignment: write node h { op: EXPR; };\n");
  EXPECT_EQ(Errors("@graph G { foo bar; }"),
            "1:12 E020 expected input, param, node, output, @assert or @check, got 'foo'\n");
  // Near misses: a directive without its '@', a `return`.
  EXPECT_EQ(Errors("graph G { output 1; }"),
            "1:1 E020 expected a top-level block such as @graph, got 'graph'; directives start with '@': write "
            "@graph\n");
  EXPECT_EQ(Errors("@config { a: 1; }\ncustom_op f { }"),
            "2:1 E020 expected a top-level block such as @graph, got 'custom_op'; directives start with '@': write "
            "@custom_op\n");
  EXPECT_EQ(Errors("@graph G { input x: f32; assert x > 0, \"positive\"; output x; }"),
            "1:26 E020 expected input, param, node, output, @assert or @check, got 'assert'; directives start "
            "with '@': write @assert\n");
  EXPECT_EQ(Errors("@graph G { input x: f32; return x; }"),
            "1:26 E020 expected input, param, node, output, @assert or @check, got 'return'; a graph's results "
            "are its output statements: output NAME;\n");
  // Not near misses: a graph statement word at top level, a block word in a graph.
  EXPECT_EQ(Errors("assert x;"), "1:1 E020 expected a top-level block such as @graph, got 'assert'\n");
  EXPECT_EQ(Errors("@graph G { graph H; }"),
            "1:12 E020 expected input, param, node, output, @assert or @check, got 'graph'\n");
  EXPECT_EQ(Errors("@graph G { @check c { check x; } }"),
            "1:23 E020 expected assert, got 'check'\n");
  EXPECT_EQ(Errors("@graph G { node h { @hint input; }; }"),
            "1:27 E020 expected hint name, got 'input'\n");
  EXPECT_EQ(Errors("@graph G { node h { + }; }"),
            "1:21 E020 expected op, an attribute or @hint, got '+'\n");
  EXPECT_EQ(Errors("@graph G { input x: ??; }"), "1:21 E020 expected type, got '?\?'\n");
  EXPECT_EQ(Errors("@graph G { input x: f32 ??; }"), "1:25 E020 expected ';', got '?\?'\n");
  EXPECT_EQ(Errors("@custom_op c { sig: (); }"),
            "1:16 E020 expected signature, impl or gradient, got 'sig'\n");
  EXPECT_EQ(Errors("@metrics M { plot p {} }"), "1:14 E020 expected 'track', got 'plot'\n");
  EXPECT_EQ(Errors("@graph G { @assert x, y; }"), "1:23 E020 expected string, got 'y'\n");
  // Long or multi-line token text is shortened and escaped in the message.
  EXPECT_EQ(Errors("@graph G { \"" + std::string(100, 'a') + "\nb\" }"),
            "1:12 E020 expected input, param, node, output, @assert or @check, got '\"" +
                std::string(39, 'a') + "...'\n");
  EXPECT_EQ(Errors("@graph G { \"a\nb\" }"),
            "1:12 E020 expected input, param, node, output, @assert or @check, got '\"a\\nb\"'\n");
}

// After a node's name only ':', '{' or ';' can follow; say so (it was
// "expected ';', got '='", as if `node h;` were what was meant).
// `param w: T = randn;` was "expected ';', got '='"; now the error says how
// an initialiser is written, with the one given.
TEST(ParserErrorTest, ParamInitialiserAfterEqualsSaysHowItIsWritten) {
  EXPECT_EQ(Errors("@graph G { param w: Tensor<[2], f32> = randn; }"),
            "1:38 E020 expected '{' or ';' after the type of param 'w', got '='; an initialiser is written "
            "param w: TYPE { init: \"randn\"; };\n");
  EXPECT_EQ(Errors("@graph G { param b: f32 = \"zeros\"; }"),
            "1:25 E020 expected '{' or ';' after the type of param 'b', got '='; an initialiser is written "
            "param b: TYPE { init: \"zeros\"; };\n");
  EXPECT_EQ(Errors("@graph G { param b: f32 = 0.5; }"),
            "1:25 E020 expected '{' or ';' after the type of param 'b', got '='; an initialiser is written "
            "param b: TYPE { init: \"randn\"; };\n");
  // One error per mistake: the next statement parses.
  EXPECT_EQ(Errors("@graph G {\n  param w: f32 = randn;\n  param b: f32 = zeros;\n  output y: w + b;\n}"),
            "2:16 E020 expected '{' or ';' after the type of param 'w', got '='; an initialiser is written "
            "param w: TYPE { init: \"randn\"; };\n"
            "3:16 E020 expected '{' or ';' after the type of param 'b', got '='; an initialiser is written "
            "param b: TYPE { init: \"zeros\"; };\n");
}

// A ';' left out before '}' or written as ',', and an operation without its
// `op:` key, say what goes there.
TEST(ParserErrorTest, SemicolonsAndOpKeySayWhatGoesThere) {
  EXPECT_EQ(Errors("@config { D: 8 }"),
            "1:16 E020 expected ';', got '}'; the last statement or field before '}' ends with ';' too\n");
  EXPECT_EQ(Errors("@graph G { input x: f32, output y: relu(x); }"),
            "1:24 E020 expected ';', got ','; statements and fields end with ';', not ','\n");
  EXPECT_EQ(Errors("@graph G { input x: f32; node h { relu(x); }; output h; }"),
            "1:39 E020 expected ':', got '('; the operation is the value of op: write op: relu(...);\n");
}

// Two spellings from other languages: `output y = EXPR;` and a tensor type
// without its dtype; each is one error that shows the line as it is written.
TEST(ParserErrorTest, OutputWithEqualsAndTensorWithoutDtypeSayHowTheyAreWritten) {
  EXPECT_EQ(Errors("@graph G { input x: f32; output y = relu(x); }"),
            "1:35 E020 expected ';', got '='; a named output is written output y: EXPR;\n");
  EXPECT_EQ(Errors("@graph G {\n  input x: Tensor<[B, 784]>;\n  output y: relu(x);\n}"),
            "2:27 E020 expected ',' and a dtype, got '>'; write Tensor<[B, 784], f32> (or the dtype meant)\n");
  EXPECT_EQ(Errors("@graph G { param w: Tensor<[]>; output y: w; }"),
            "1:30 E020 expected ',' and a dtype, got '>'; write Tensor<[], f32> (or the dtype meant)\n");
  // An unnamed output of a comparison still parses: `output y == x;`.
  EXPECT_EQ(Errors("@graph G { input x: f32; input y: f32; output y == x; }"), "");
}

TEST(ParserErrorTest, NodeDeclarationSaysWhatMayFollowTheName) {
  EXPECT_EQ(Errors("@graph G { node h = relu(x); }"),
            "1:19 E020 expected '{', ':' or ';' after node 'h', got '='; a node is written node h { op: EXPR; };\n");
  EXPECT_EQ(Errors("@graph G { node h: f32 relu(x); }"),
            "1:24 E020 expected '{' or ';' after node 'h', got 'relu'\n");
  // Only the '{' missing: one error, and the body's '}' does not end the
  // graph (that gave "expected a top-level block such as @graph, got ';'").
  EXPECT_EQ(Errors("@graph G { node h op: relu(x); }; output h; }"),
            "1:19 E020 expected '{' before the body of node 'h', got 'op'\n");
  EXPECT_EQ(Errors("@graph G { node h: f32 op: relu(x); }; }"),
            "1:24 E020 expected '{' before the body of node 'h', got 'op'\n");
  Parsed p("@graph G {\n  node h op: relu(x);\n  output h;\n}\n");
  EXPECT_EQ(p.errors(), "2:10 E020 expected '{' before the body of node 'h', got 'op'\n");
  const auto* g = p.program.blocks[0].As<ast::GraphBlock>();
  ASSERT_EQ(g->body.size(), 2u);
  EXPECT_EQ(g->body[0].As<ast::NodeDecl>()->body.size(), 1u);
  EXPECT_TRUE(g->body[1].Is<ast::OutputDecl>());
  // `node h;` and `node h: f32;` still parse (no op: a lowering error).
  EXPECT_EQ(Errors("@graph G { node h; node k: f32; }"), "");
}

// The token text in "got TOKEN" was copied bytewise: a cut at 40 bytes split
// a multi-byte character (invalid UTF-8 in the message), and a bidi control
// reordered the terminal line the message is printed on.
TEST(ParserErrorTest, TokenTextInMessagesIsWholeAndVisibleUtf8) {
  std::string e = "\xC3\xA9";  // é
  std::string many;
  for (int i = 0; i < 30; ++i) many += e;
  std::string shown;  // '"' and 19 'é' are 39 bytes: the 20th does not fit in 40
  for (int i = 0; i < 19; ++i) shown += e;
  EXPECT_EQ(Errors("@graph G { \"" + many + "\" }"),
            "1:12 E020 expected input, param, node, output, @assert or @check, got '\"" + shown + "...'\n");
  EXPECT_EQ(Errors("@config { a: 1 \"\xE2\x80\xAE" "evil\"; }"),
            "1:16 E020 expected ';', got '\"\\u{202E}evil\"'\n");
}

// `optimizer: { ... };` (LANGUAGE.md §3.10: no ';' after brace fields) gave
// "expected name, got ';'", which does not say what is wrong.
TEST(ParserErrorTest, SemicolonAfterBraceFieldsSaysWhy) {
  EXPECT_EQ(Errors("@training { model: G; optimizer: { type: \"Adam\"; }; loss: mse; }"),
            "1:51 E020 expected a setting or '}', got ';'; no ';' follows the '}' of 'optimizer: { ... }'\n");
  EXPECT_EQ(Errors("@inference { generation: { temperature: 0.7; }; }"),
            "1:47 E020 expected a setting or '}', got ';'; no ';' follows the '}' of 'generation: { ... }'\n");
  Parsed p("@metrics M { track a { source: loss; }; track b { source: loss; } }");
  EXPECT_EQ(p.errors(), "1:39 E020 expected 'track' or '}', got ';'; no ';' follows the '}' of 'a { ... }'\n");
  EXPECT_EQ(p.program.blocks[0].As<ast::MetricsBlock>()->tracks.size(), 2u);
}

// Near misses get a hint saying what is wrong with them (they were a bare
// "expected name/type/expression" or, for `tensor<`, "expected ';', got '<'").
TEST(ParserErrorTest, NearMissesSayWhatIsWrong) {
  EXPECT_EQ(Errors("@graph G { node f32 { op: relu(x); }; }"),
            "1:17 E020 expected name, got 'f32'; 'f32' is a reserved word and cannot be a name\n");
  EXPECT_EQ(Errors("@graph G { input true: f32; }"),
            "1:18 E020 expected name, got 'true'; 'true' is a reserved word and cannot be a name\n");
  EXPECT_EQ(Errors("@graph G { input x: tensor<[2], f32>; }"),
            "1:21 E020 expected type, got 'tensor'; tensor types are written Tensor<[dims], dtype>\n");
  EXPECT_EQ(Errors("@graph G { output y: .5 * x; }"), "1:22 E020 expected expression, got '.'; write 0.5\n");
  // `1.` lexes as `1` `.` (a number has digits after its '.'): it read as a field of 1 with
  // its name missing ("expected name, got ';'"), and is said as the number meant.
  EXPECT_EQ(Errors("@graph G { output y: x * 1.; }"), "1:26 E004 '1.' is not a number: write 1.0\n");
  EXPECT_EQ(Errors("@graph G { output y: x * 12. + 2; }"), "1:26 E004 '12.' is not a number: write 12.0\n");
  // A radix literal is told once, by the lexer ("write 0x1.0" followed).
  EXPECT_EQ(Errors("@graph G { output y: x * 0x1.5; }"),
            "1:26 E004 '0x1' is not a number: numbers are written in decimal; write 1\n");
  // `1.e5` is a field access as the grammar has it (lowering says what it meant).
  EXPECT_EQ(Errors("@graph G { output y: x * 1.e5; }"), "");
  // Not a near miss: no hint.
  EXPECT_EQ(Errors("@graph G { output y: . x; }"), "1:22 E020 expected expression, got '.'\n");
  EXPECT_EQ(Errors("@graph G { node ; }"), "1:17 E020 expected name, got ';'\n");
}

TEST(ParserErrorTest, ForgottenSemicolonAfterBraceIsReportedOnce) {
  Parsed p("@graph G {\n  input x: f32;\n  node h { op: relu(x); }\n  output h;\n}\n");
  EXPECT_EQ(p.errors(), "3:26 E020 expected ';' after '}', got 'output' on line 4\n");
  // Recovery stopped before `output`, so the output statement is still there.
  const auto* g = p.program.blocks[0].As<ast::GraphBlock>();
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->body.size(), 2u);
  EXPECT_TRUE(g->body[1].Is<ast::OutputDecl>());
}

// A ';' missing at the end of a line is reported where it belongs, just
// after the line's last token (past comments and blank lines), not at the
// next line's first word; on one line, at the token that is there instead.
TEST(ParserErrorTest, SemicolonMissingAtTheEndOfALineIsReportedThere) {
  EXPECT_EQ(Errors("@config {\n  a: 1   // one\n\n  /* two */ b: 2;\n}\n"),
            "2:7 E020 expected ';' after '1', got 'b' on line 4\n");
  EXPECT_EQ(Errors("@model { name: \"m\" }\n@graph G {\n  input x: f32;\n  output x\n"),
            "1:20 E020 expected ';', got '}'; the last statement or field before '}' ends with ';' too\n"
            "4:11 E020 expected ';' after 'x', got end of input\n");
  // Recovery: the next line's statement still parses, with no follow-up error.
  Parsed p("@graph G {\n  input x: Tensor<[2], f32>\n  output y: relu(x);\n}\n");
  EXPECT_EQ(p.errors(), "2:28 E020 expected ';' after '>', got 'output' on line 3\n");
  const auto* g = p.program.blocks[0].As<ast::GraphBlock>();
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->body.size(), 1u);  // the input, cut short, is dropped
  EXPECT_TRUE(g->body[0].Is<ast::OutputDecl>());
}

// Each lexer error surfaces once through Parse, without parser follow-ups.
TEST(ParserErrorTest, LexerErrorsDoNotCascade) {
  EXPECT_EQ(Errors("@graph G {\n  node h { op: x @ W; };\n  output h;\n}"),
            "2:18 E005 unknown directive '@'; a matrix product is written matmul(a, b)\n");
  EXPECT_EQ(Errors("@config { a: $; b: 2; }"), "1:14 E001 unexpected character '$'\n");
  EXPECT_EQ(Errors("@model { name: \"abc"), "1:16 E002 unterminated string literal\n");
  EXPECT_EQ(Errors("@config { a: 1; }\n/* no end"), "2:1 E003 unterminated block comment\n");
  // Inside an open block too: no "expected '}', got end of input" after it.
  EXPECT_EQ(Errors("@graph G {\n  input x: Tensor<[2], f32>;\n  /* open\n  output x;\n}"),
            "3:3 E003 unterminated block comment\n");
  EXPECT_EQ(Errors("@config { a: 1 + /* no end"), "1:18 E003 unterminated block comment\n");
  EXPECT_EQ(Errors("@config { a: 1e; b: 99999999999999999999; }"),
            "1:14 E004 invalid number '1e'\n1:21 E004 invalid number '99999999999999999999'\n");
  // A malformed number where a dimension or a name goes: once, not again as "expected dimension, got '1e'".
  EXPECT_EQ(Errors("@graph G { input x: Tensor<[1e], f32>; output y: relu(x); }"), "1:29 E004 invalid number '1e'\n");
  EXPECT_EQ(Errors("@graph 1e { }"), "1:8 E004 invalid number '1e'\n");
  EXPECT_EQ(Errors("@foo { a: 1; }\n@config { b: 2; }"), "1:1 E005 unknown directive '@foo'\n");
  Parsed p("@foo { a: 1; }\n@config { b: 2; }");
  ASSERT_EQ(p.program.blocks.size(), 1u);
  EXPECT_TRUE(p.program.blocks[0].Is<ast::ConfigBlock>());
}

TEST(ParserErrorTest, LexerAndParserErrorsComeInSourceOrder) {
  // The lexer's errors were all listed before the parser's: the first
  // diagnostic was a stray character on line 5, not the error on line 2.
  EXPECT_EQ(Errors("@graph G {\n  input x Tensor<[2], f32>;\n  output y: relu(x);\n}\n@config { a: #; }"),
            "2:11 E020 expected ':', got 'Tensor'\n5:14 E001 unexpected character '#'; comments start with // or /*\n");
}

TEST(ParserErrorTest, SourceOrderKeepsTheCallersCapAndItsNoteLast) {
  // 300 stray characters and one parse error before them: a cap of 1000
  // reports all 301 (the merge capped at 200), a cap of 5 stops with its note last.
  std::string text = "@graph G {\n  input x Tensor<[2], f32>;\n}\n@config {\n";
  for (int i = 0; i < 300; ++i) text += "  a" + std::to_string(i) + ": #;\n";
  text += "}\n";
  diag::SourceFile source("t.sw", text);
  diag::DiagnosticBag wide(1000);
  Parse(source, wide);
  EXPECT_EQ(wide.error_count(), 301u);
  EXPECT_EQ(wide.all().front().span.line, 2u);
  diag::DiagnosticBag narrow(5);
  Parse(source, narrow);
  ASSERT_FALSE(narrow.all().empty());
  EXPECT_EQ(narrow.all().front().span.line, 2u);
  EXPECT_EQ(narrow.all().back().kind, diag::Kind::TooManyDiagnostics);
}

TEST(ParserErrorTest, RecoveryReportsSeveralErrorsAndKeepsGoodStatements) {
  Parsed p("@config { a: ; b: 2; c 3; d: 4; }\n"
           "@graph G {\n"
           "  input x: Tensor<[N], f32>;\n"
           "  node h { op: relu(x) };\n"     // missing ';' inside the body
           "  node k { op: (x + ; };\n"      // broken expression
           "  output h;\n"
           "}\n"
           "oops\n"
           "@graph H { output 1; }\n");
  EXPECT_EQ(p.errors(),
            "1:14 E020 expected expression, got ';'\n"
            "1:24 E020 expected ':', got '3'\n"
            "4:24 E020 expected ';', got '}'; the last statement or field before '}' ends with ';' too\n"
            "5:21 E020 expected expression, got ';'\n"
            "8:1 E020 expected a top-level block such as @graph, got 'oops'\n");
  ASSERT_EQ(p.program.blocks.size(), 3u);
  const auto* config = p.program.blocks[0].As<ast::ConfigBlock>();
  ASSERT_EQ(config->fields.size(), 2u);  // b and d survive
  EXPECT_EQ(config->fields[0].key.name, "b");
  EXPECT_EQ(config->fields[1].key.name, "d");
  const auto* g = p.program.blocks[1].As<ast::GraphBlock>();
  // input; h (its broken body line dropped); k; output h.
  ASSERT_EQ(g->body.size(), 4u);
  EXPECT_EQ(g->body[1].As<ast::NodeDecl>()->name.name, "h");
  EXPECT_TRUE(g->body[1].As<ast::NodeDecl>()->body.empty());
  EXPECT_EQ(g->body[2].As<ast::NodeDecl>()->name.name, "k");
  EXPECT_TRUE(g->body[3].Is<ast::OutputDecl>());
  EXPECT_EQ(p.program.blocks[2].As<ast::GraphBlock>()->name.name, "H");
}

// A body left open (`node h { op: relu(x);` and the next statement on the
// next line) is one error at that statement, which is then parsed as usual:
// the key `output` of `output y: ...` is not taken for a body item (it gave
// "expected ':', got 'y'" and "expected ';', got end of input" at the end).
TEST(ParserErrorTest, UnclosedStatementBodyIsOneErrorAtTheNextStatement) {
  Parsed p("@graph G {\n"
           "  input x: Tensor<[2], f32>;\n"
           "  node h { op: relu(x);\n"
           "  output y: relu(h);\n"
           "}\n");
  EXPECT_EQ(p.errors(), "4:3 E020 expected '}' closing the body of node 'h' (opened at line 3), got 'output'\n");
  const auto* g = p.program.blocks[0].As<ast::GraphBlock>();
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->body.size(), 3u);  // input, h (with its op), output
  ASSERT_EQ(g->body[1].As<ast::NodeDecl>()->body.size(), 1u);
  EXPECT_EQ(g->body[2].As<ast::OutputDecl>()->name->name, "y");

  EXPECT_EQ(Errors("@graph G {\n"
                   "  node h { op: relu(x);\n"
                   "  node k { op: relu(h); };\n"
                   "  output k;\n"
                   "}\n"),
            "3:3 E020 expected '}' closing the body of node 'h' (opened at line 2), got 'node'\n");
  EXPECT_EQ(Errors("@graph G {\n"
                   "  param w: Tensor<[2], f32> { init: \"zeros\";\n"
                   "  output w;\n"
                   "}\n"),
            "3:3 E020 expected '}' closing the attributes of param 'w' (opened at line 2), got 'output'\n");
  // A stray keyword not followed by a name is a bad item, not the next
  // statement: the body goes on (it was three errors, the last at its '};').
  EXPECT_EQ(Errors("@graph G {\n  node h {\n    op: relu(x);\n    node @hint in_place;\n  };\n  output h;\n}\n"),
            "4:10 E020 expected ':', got '@hint'\n");
  // A missing ';' as well is still one error (at the end of the line).
  EXPECT_EQ(Errors("@graph G {\n  node h { op: relu(x)\n  output h;\n}\n"),
            "2:23 E020 expected ';' after ')', got 'output' on line 3\n");
  // `output:` and `input:` lines are body items, on lines of their own too;
  // after an error inside a body, recovery stops before them.
  Parsed q("@graph G {\n"
           "  node h {\n"
           "    op: relu(x)\n"
           "    output: Tensor<[2], f32>;\n"
           "  };\n"
           "  output h;\n"
           "}\n");
  EXPECT_EQ(q.errors(), "3:16 E020 expected ';' after ')', got 'output' on line 4\n");
  const auto* h = q.program.blocks[0].As<ast::GraphBlock>()->body[0].As<ast::NodeDecl>();
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(h->body.size(), 1u);
  EXPECT_EQ(h->body[0].kind, ast::NodeItem::Kind::OutputType);
}

TEST(ParserErrorTest, MissingClosingBraceStopsAtTheNextBlock) {
  Parsed p("@graph G {\n  output x;\n\n@graph H { output y; }\n");
  // Noticed far from the '{', so the message says which one is open.
  EXPECT_EQ(p.errors(), "4:1 E020 expected '}' closing graph 'G' (opened at line 1), got '@graph'\n");
  EXPECT_EQ(p.program.All<ast::GraphBlock>().size(), 2u);
  EXPECT_EQ(Errors("@graph G {\n  input x: f32;\n  output x;\n"),
            "4:1 E020 expected '}' closing graph 'G' (opened at line 1), got end of input\n");
  EXPECT_EQ(Errors("@graph G {\n  node h { op: relu(x);\n"),
            "3:1 E020 expected '}' closing the body of node 'h' (opened at line 2), got end of input\n");
}

// ----------------------------------------------------------------- nesting

TEST(ParserErrorTest, DeepNestingIsReportedNotOverflowed) {
  const int n = 100000;
  struct Case {
    std::string text;
    uint32_t column;  // where the 201st level starts
  };
  std::string pre = "@config { a: ";  // 13 bytes
  Case cases[] = {
      {pre + std::string(n, '(') + "1" + std::string(n, ')') + "; }", 14 + 200},
      {pre + std::string(n, '[') + std::string(n, ']') + "; }", 14 + 200},
      {pre + std::string(n, '-') + "1; }", 14 + 200},
      {pre + Repeat("{a: ", n) + "; }", 14 + 200 * 4},
      {"@model { a: " + std::string(n, '[') + "; }", 13 + 200},
      {"@types { type T = " + std::string(n, '(') + "; }", 19 + 200},
      {"@types { type T = " + std::string(n, '[') + "; }", 19 + 200},
  };
  for (const Case& c : cases) {
    std::clock_t begin = std::clock();
    Parsed p(c.text);
    ASSERT_GE(p.diags.all().size(), 1u);
    EXPECT_EQ(p.diags.all()[0].kind, diag::Kind::NestingTooDeep) << c.text.substr(0, 20);
    EXPECT_EQ(p.diags.all()[0].message, "nesting is too deep (more than 200 levels)");
    EXPECT_EQ(p.diags.all()[0].span.line, 1u);
    EXPECT_EQ(p.diags.all()[0].span.column, c.column) << c.text.substr(0, 20);
    EXPECT_EQ(p.diags.error_count(), 1u) << p.errors().substr(0, 500);
    EXPECT_LT(SecondsSince(begin), 2.0 * kTimeScale);
  }
}

// Runs `fn` on a thread with a `bytes` stack (the wasm build has 1 MB).
template <typename Fn> void RunWithStack(size_t bytes, Fn fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<Fn*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, trampoline, &fn), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

TEST(ParserErrorTest, WorstCaseNestingFitsInAOneMegabyteStack) {
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
  const size_t stack = 1 << 20;
#else
  const size_t stack = 8 << 20;  // unoptimised frames are several times larger
#endif
  std::string chain = "x";
  for (int i = 0; i < 511; ++i) chain += " + x";
  const std::string inputs[] = {
      // Just below and just above every limit, for each recursive construct.
      "@config { a: " + std::string(199, '(') + "1" + std::string(199, ')') + "; }",
      "@config { a: " + std::string(100000, '(') + "; }",
      "@config { a: " + Repeat("f(", 199) + "1" + std::string(199, ')') + "; }",
      "@config { a: " + Repeat("x[", 199) + "1" + std::string(199, ']') + "; }",
      "@config { a: " + Repeat("{k: ", 199) + "1" + std::string(199, '}') + "; }",
      "@config { a: " + Repeat("if c { ", 199) + "1" + std::string(199, '}') + "; }",
      "@config { a: " + Repeat("repeat(", 100000) + "; }",
      "@config { a: " + Repeat("|a| { ", 100000) + "; }",
      "@config { a: " + Repeat("x.m(", 100000) + "; }",
      "@config { a: " + Repeat("x ** -", 100000) + "x; }",
      "@model { a: " + Repeat("{k: [", 100000) + "; }",
      "@types { type T = " + Repeat("([", 100000) + "; }",
      "@custom_op c { " + Repeat("gradient g { ", 100000),
      "@config { a: " + chain + "; }",
      "@config { a: " + Repeat("(" + chain + ") * ", 150) + "x; }",
  };
  for (const std::string& text : inputs) {
    RunWithStack(stack, [&] {
      Parsed p(text);
      std::string dump = ast::DumpProgram(p.program);
      EXPECT_FALSE(dump.empty());
    });
  }
}

TEST(ParserErrorTest, NestingJustBelowTheLimitIsFine) {
  Parsed p("@config { a: " + std::string(199, '(') + "1" + std::string(199, ')') + "; }");
  EXPECT_FALSE(p.diags.has_errors()) << p.errors();
  Parsed q("@config { a: " + std::string(199, '-') + "x; }");
  EXPECT_FALSE(q.diags.has_errors()) << q.errors();
}

TEST(ParserErrorTest, RightAssociativePowerChainsCountAsNesting) {
  std::string text = "@config { a: x";
  for (int i = 0; i < 100000; ++i) text += "**x";
  Parsed p(text + "; }");
  EXPECT_EQ(p.diags.error_count(), 1u);
  EXPECT_EQ(p.diags.all()[0].kind, diag::Kind::NestingTooDeep);
}

TEST(ParserErrorTest, NestedGradientBlocksCountAsNesting) {
  std::string text = "@custom_op c { ";
  for (int i = 0; i < 50000; ++i) text += "gradient g { ";
  Parsed p(text);
  ASSERT_GE(p.diags.all().size(), 1u);
  EXPECT_EQ(p.diags.all()[0].kind, diag::Kind::NestingTooDeep);
}

TEST(ParserErrorTest, LongPostfixChainsAreCappedByHeight) {
  // `x.x.x…` nests (each member access holds the one before); a run of
  // binary operators does not (a ChainExpr: parser_test.cc).
  std::string text = "@config { a: x";
  for (int i = 0; i < 100000; ++i) text += ".x";
  std::clock_t begin = std::clock();
  Parsed p(text + "; b: 1; }");
  EXPECT_EQ(p.diags.error_count(), 1u);
  ASSERT_FALSE(p.diags.all().empty());
  EXPECT_EQ(p.diags.all()[0].kind, diag::Kind::NestingTooDeep);
  EXPECT_EQ(p.diags.all()[0].message, "expression is too deeply nested (more than 512 levels)");
  // Recovery resumes after the chain.
  const auto* config = p.program.blocks[0].As<ast::ConfigBlock>();
  ASSERT_EQ(config->fields.size(), 1u);
  EXPECT_EQ(config->fields[0].key.name, "b");
  EXPECT_LT(SecondsSince(begin), 2.0 * kTimeScale);
  // A chain of operators whose operands are that tall is still cut where it
  // grows past the bound.
  std::string tall = "@config { a: 1 + x";
  for (int i = 0; i < 511; ++i) tall += ".x";
  for (int i = 0; i < 100; ++i) tall += " + 1";
  Parsed q(tall + "; }");
  EXPECT_EQ(q.errors().substr(0, 24), "1:14 E021 expression is ") << q.errors();
}

// ----------------------------------------------------------- hostile input

TEST(ParserErrorTest, HundredThousandStatementsParseFast) {
  std::string text = "@graph Big {\n  input x: Tensor<[N, 8], f32>;\n";
  for (int i = 0; i < 100000; ++i) {
    text += "  node n" + std::to_string(i) + " { op: relu(x) * 2 + " + std::to_string(i) + "; };\n";
  }
  text += "  output n99999;\n}\n";
  std::clock_t begin = std::clock();
  Parsed p(text);
  double seconds = SecondsSince(begin);
  EXPECT_FALSE(p.diags.has_errors());
  EXPECT_EQ(p.program.blocks[0].As<ast::GraphBlock>()->body.size(), 100002u);
  EXPECT_LT(seconds, 2.0 * kTimeScale);  // ~0.3 s in an idle release build
  RecordProperty("seconds", std::to_string(seconds));
}

TEST(ParserErrorTest, HundredThousandBrokenStatementsStayLinearAndCapped) {
  std::string text = "@graph G {\n";
  for (int i = 0; i < 100000; ++i) text += "  node h { op: relu(x) }\n";
  text += "}\n";
  std::clock_t begin = std::clock();
  Parsed p(text);
  EXPECT_EQ(p.diags.all().size(), 201u);  // 200 errors, then "too many errors"
  EXPECT_EQ(p.diags.all().back().kind, diag::Kind::TooManyDiagnostics);
  EXPECT_LT(SecondsSince(begin), 2.0 * kTimeScale);
}

TEST(ParserErrorTest, TenMegabyteFileParses) {
  std::string unit = "@config { a: [1, 2.5, \"s\"]; b: f(x, k: -y ** 2); }\r\n// c\n";
  std::string text;
  while (text.size() < (10u << 20)) text += unit;
  std::clock_t begin = std::clock();
  Parsed p(text);
  EXPECT_FALSE(p.diags.has_errors());
  EXPECT_EQ(p.program.blocks.size(), text.size() / unit.size());
  EXPECT_LT(SecondsSince(begin), 5.0 * kTimeScale);
}

TEST(ParserErrorTest, RandomBytesNeverCrashOrHang) {
  std::mt19937 rng(42);
  for (int round = 0; round < 300; ++round) {
    std::string text(rng() % 4000, '\0');
    for (char& c : text) c = static_cast<char>(rng() & 0xFF);
    Parsed p(text);
    (void)p;
  }
  std::string big(1u << 20, '\0');
  for (char& c : big) c = static_cast<char>(rng() & 0xFF);
  std::clock_t begin = std::clock();
  Parsed p(big);
  EXPECT_TRUE(p.diags.has_errors());
  EXPECT_LT(SecondsSince(begin), 2.0 * kTimeScale);
}

TEST(ParserErrorTest, RandomTokenSoupNeverCrashesOrHangs) {
  const char* vocab[] = {"@graph", "@model", "@config", "@types", "@training", "@inference",
                         "@custom_op", "@metrics", "@logging", "@visualizations", "@import",
                         "@assert", "@check", "@hint", "{", "}", "(", ")", "[", "]", ";", ",",
                         ":", "::", "->", "?", "??", "<", ">", ">>", "=", "+", "-", "**", "|",
                         "||", ".", "input", "param", "node", "output", "op", "type", "Tensor",
                         "f32", "x", "assert", "if", "else", "repeat", "signature", "impl",
                         "gradient", "track", "plot", "model", "optimizer", "1", "2.5", "\"s\"",
                         "_", "true", "null", "as", "$", "\n"};
  std::mt19937 rng(7);
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    int n = static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) {
      text += vocab[rng() % std::size(vocab)];
      text += ' ';
    }
    Parsed p(text);
    // Errors and dumps work on whatever partial tree came out.
    std::string dump = ast::DumpProgram(p.program);
    EXPECT_FALSE(dump.empty());
  }
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ParserErrorTest, EveryPrefixAndMutationOfAnExampleIsSafe) {
  std::filesystem::path dir = std::filesystem::path(SHREW_TESTDATA_DIR) / "examples";
  std::mt19937 rng(99);
  for (const char* name : {"config_dims.sw", "tiny_gpt.sw", "graph_calls.sw"}) {
    std::string text = ReadFile(dir / name);
    ASSERT_FALSE(text.empty()) << name;
    // Truncated at every byte: unterminated strings, comments and blocks at EOF.
    for (size_t cut = 0; cut < text.size(); ++cut) {
      Parsed p(text.substr(0, cut));
      (void)p;
    }
    // Random single-byte deletions, insertions and replacements.
    for (int round = 0; round < 500; ++round) {
      std::string m = text;
      size_t at = rng() % m.size();
      switch (rng() % 3) {
        case 0: m.erase(at, 1 + rng() % 8); break;
        case 1: m.insert(at, 1, "{}();:\"/*@?<>"[rng() % 13]); break;
        default: m[at] = static_cast<char>(rng() & 0xFF); break;
      }
      Parsed p(m);
      (void)p;
    }
  }
}

TEST(ParserErrorTest, NulBytesAndLineEndingMixes) {
  Parsed p(std::string("@config {\r\n a: 1;\r b: 2;\n\0 c: 3; }", 34));
  EXPECT_EQ(p.errors(), "3:1 E001 unexpected character '\\x00'\n");
  const auto* config = p.program.blocks[0].As<ast::ConfigBlock>();
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->fields.size(), 2u);  // a and b; c's line is skipped after the error
}

}  // namespace
}  // namespace shrew::front
