// Hostile inputs through Compile(): each must give diagnostics (or compile),
// never crash, hang, assert or take super-linear time.
#include <gtest/gtest.h>

#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "api/compile.h"
#include "api/program.h"
#include "front/parser.h"
#include "support/generated_programs.h"
#include "support/sanitizer.h"

namespace shrew {
namespace {

bool HasKind(const CompileResult& r, diag::Kind kind) {
  for (const diag::Diagnostic& d : r.diagnostics) {
    if (d.kind == kind) return true;
  }
  return false;
}

// Process CPU seconds since `start` (a std::clock() value): unlike wall time it
// does not grow when other processes load the machine. The bounds below only
// catch quadratic blow-ups (10^10 steps would take minutes), not speed.
double Seconds(std::clock_t start) {
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

TEST(CompileBadInputTest, DeeplyNestedParentheses) {
  std::string text = "@graph G { input x: f32; output y: ";
  text += std::string(10000, '(') + "x" + std::string(10000, ')') + "; }";
  CompileResult r = Compile(text);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.stage, CompileStage::kParse);
  EXPECT_TRUE(HasKind(r, diag::Kind::NestingTooDeep)) << r.RenderDiagnostics();
  // Inside @config and inside a type too.
  EXPECT_FALSE(Compile("@config { a: " + std::string(10000, '(') + "1" +
                       std::string(10000, ')') + "; }").ok);
  EXPECT_FALSE(Compile("@model { a: " + std::string(10000, '[') + std::string(10000, ']') + "; }").ok);
  EXPECT_FALSE(Compile("@graph G { input x: " + std::string(10000, '(') + "f32" +
                       std::string(10000, ')') + "; output x; }").ok);
}

TEST(CompileBadInputTest, DeeplyNestedPrefixOperatorsAndLongChains) {
  CompileResult neg = Compile("@graph G { input x: f32; output y: " + std::string(100000, '-') +
                              "x; }");
  EXPECT_FALSE(neg.ok);
  // A run of operators is no nesting: it compiles, whatever its length.
  std::string chain = "@graph G { input x: f32; output y: x";
  for (int i = 0; i < 100000; ++i) chain += " + x";
  chain += "; }";
  CompileResult r = Compile(chain);
  EXPECT_TRUE(r.ok) << r.RenderDiagnostics().substr(0, 500);
  // A postfix chain nests: taller than the parser's expression bound.
  std::string members = "@graph G { input x: f32; output y: x";
  for (int i = 0; i < 100000; ++i) members += ".x";
  r = Compile(members + "; }");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(HasKind(r, diag::Kind::NestingTooDeep)) << r.RenderDiagnostics().substr(0, 500);
}

TEST(CompileBadInputTest, TallestAcceptedExpressionCompiles) {
  // Just under the parser's bound: lowering walks it recursively.
  const std::string tall = "@graph G { input x: Tensor<[3], f32>; output y: " +
                           testing::TallExpression("x", " * 0.5", front::kMaxExprHeight) + "; }";
  CompileResult r = Compile(tall);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  // One level more is rejected.
  r = Compile("@graph G { input x: Tensor<[3], f32>; output y: " +
              testing::TallExpression("x", " * 0.5", front::kMaxExprHeight + 1) + "; }");
  EXPECT_TRUE(HasKind(r, diag::Kind::NestingTooDeep)) << r.RenderDiagnostics().substr(0, 500);
}

TEST(CompileBadInputTest, HundredThousandNodeGraphIsFast) {
  std::string text = "@graph Big {\n  input x: Tensor<[Batch, 8], f32>;\n  node n0 { op: relu(x); };\n";
  text.reserve(4000000);
  for (int i = 1; i < 100000; ++i) {
    text += "  node n" + std::to_string(i) + " { op: tanh(n" + std::to_string(i - 1) + "); };\n";
  }
  text += "  output n99999;\n}\n";
  std::clock_t start = std::clock();
  CompileResult r = Compile(text);
  double seconds = Seconds(start);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics().substr(0, 1000);
  EXPECT_EQ(r.program.graphs[0].num_nodes(), 100001);
  EXPECT_EQ(r.program.graphs[0].node(100000).type.ToString(), "Tensor<[Batch, 8], f32>");
  EXPECT_LT(seconds, 10.0 * testing::kTimeScale);
}

// One statement of 100,000 terms: 99,999 anonymous adds. Creating its
// program named every kernel's operands up front, each name a scan of the
// later nodes: 17 s here, where it now takes a fraction of one.
TEST(CompileBadInputTest, LongOperatorChainBuildsItsProgramInLinearTime) {
  std::string text = "@graph Sum {\n  input x: Tensor<[2], f32>;\n  output y: x";
  for (int i = 1; i < 100000; ++i) text += " + x";
  text += ";\n}\n";
  std::clock_t start = std::clock();
  CompileResult r = Compile(text);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics().substr(0, 1000);
  Result<std::unique_ptr<Program>> p = Program::Create(r);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_LT(Seconds(start), 10.0 * testing::kTimeScale);
  runtime::TensorMap in;
  in.emplace("x", std::move(runtime::Tensor::FromVector<float>(ir::DType::kF32, {2}, {1, -0.5f})).value());
  Result<runtime::TensorMap> out = (*p)->Run("Sum", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y").data<float>()[0], 100000.0f);
  EXPECT_EQ(out->at("y").data<float>()[1], -50000.0f);
}

TEST(CompileBadInputTest, WideGraphWithManyNamesIsFast) {
  // Many inputs and outputs: every per-name lookup must be hashed, not scanned.
  std::string text = "@graph Wide {\n";
  for (int i = 0; i < 30000; ++i) text += "  input in" + std::to_string(i) + ": f32;\n";
  for (int i = 0; i < 30000; ++i) {
    text += "  output o" + std::to_string(i) + ": in" + std::to_string(i) + " + 1;\n";
  }
  text += "}\n";
  std::clock_t start = std::clock();
  CompileResult r = Compile(text);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics().substr(0, 1000);
  EXPECT_LT(Seconds(start), 10.0 * testing::kTimeScale);
}

TEST(CompileBadInputTest, HugeIntegerLiterals) {
  CompileResult r = Compile("@config { a: 99999999999999999999999999; }");
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(HasKind(r, diag::Kind::InvalidNumber));
  EXPECT_FALSE(Compile("@graph G { input x: Tensor<[99999999999999999999], f32>; output x; }").ok);
  EXPECT_FALSE(Compile("@graph G { input x: f32; output y: x * 123456789012345678901234567890; }").ok);
  // A float literal that overflows is +inf, not an error.
  EXPECT_TRUE(Compile("@graph G { input x: f32; output y: x * 1e999; }").ok);
}

TEST(CompileBadInputTest, DimensionProductOverflow) {
  CompileResult r = Compile(
      "@config { Big: 3037000500; }\n"
      "@graph G { param w: Tensor<[Big, Big], f32>; output w; }");
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(HasKind(r, diag::Kind::TypeTooLarge)) << r.RenderDiagnostics();
  CompileResult reshape = Compile(
      "@graph G { input x: Tensor<[2], f32>;\n"
      "  output y: reshape(x, shape: [9223372036854775807, 2]); }");
  EXPECT_FALSE(reshape.ok);
}

TEST(CompileBadInputTest, SelfReferencingConfig) {
  CompileResult r = Compile("@config { n: n * 2; }\n@graph G { input x: Tensor<[n], f32>; output x; }");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.stage, CompileStage::kLower);
  // n is the string "n" in `n * 2` (LANGUAGE.md §5.1): a warning there, and
  // an error where the opaque value is used as a dimension.
  EXPECT_TRUE(HasKind(r, diag::Kind::ConfigForwardReference));
  EXPECT_TRUE(HasKind(r, diag::Kind::BadDimension)) << r.RenderDiagnostics();
}

TEST(CompileBadInputTest, GraphThatCallsItself) {
  CompileResult r = Compile("@graph Loop { input x: f32; output y: Loop(x); }");
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(HasKind(r, diag::Kind::RecursiveCall)) << r.RenderDiagnostics();
}

// G0 calls G1 … calls G(n-1). Calls may nest 64 deep (ir::kMaxCallDepth):
// the executors recurse per call, and 5000 nested calls overflowed the wasm
// stack. The checks themselves must not recurse per graph.
std::string CallChain(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += "@graph G" + std::to_string(i) + " { input x: Tensor<[2], f32>; output y: ";
    text += i + 1 < n ? "G" + std::to_string(i + 1) + "(x)" : "relu(x)";
    text += "; }\n";
  }
  return text;
}

TEST(CompileBadInputTest, LongChainOfGraphCalls) {
  CompileResult ok = Compile(CallChain(65));  // G0 starts 64 nested calls
  ASSERT_TRUE(ok.ok) << ok.RenderDiagnostics().substr(0, 1000);
  const ir::Graph* g0 = ok.program.FindGraph("G0");
  ASSERT_NE(g0, nullptr);
  EXPECT_EQ(g0->node(g0->outputs()[0].node).type.ToString(), "Tensor<[2], f32>");

  CompileResult r = Compile(CallChain(5000));
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.diagnostics.size(), 1u);  // once, not per graph
  EXPECT_EQ(r.diagnostics[0].kind, diag::Kind::CallsTooDeep);
  EXPECT_EQ(r.diagnostics[0].message,
            "[program] graph calls nest 65 deep from graph 'G4934'; at most 64 calls may nest");
}

TEST(CompileBadInputTest, NulBytesAndInvalidUtf8) {
  std::string nul = std::string("@graph G {\0 input x: f32; output x; }", 37);
  CompileResult r = Compile(nul);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.diagnostics.empty());
  EXPECT_FALSE(r.RenderDiagnostics().empty());
  CompileResult bad = Compile("@graph G { input x\xff\xfe: f32; output x; }");
  EXPECT_FALSE(bad.ok);
  // Inside strings and comments non-ASCII bytes are allowed.
  CompileResult ok = Compile("// caf\xc3\xa9\n@model { name: \"\xe2\x9c\x93\"; }\n");
  EXPECT_TRUE(ok.ok) << ok.RenderDiagnostics();
  EXPECT_EQ(ok.program.metadata.at("name"), "\xe2\x9c\x93");
}

// A program saved as UTF-16 compiles to exactly one error, at 1:1, naming
// the encoding (it was dozens: one per NUL and stray byte).
TEST(CompileBadInputTest, Utf16FileIsOneErrorNamingTheEncoding) {
  const std::string program = "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: relu(x);\n}\n";
  std::string utf16 = "\xFF\xFE";
  for (char c : program) utf16 += std::string{c, '\0'};
  CompileOptions options;
  options.filename = "model.sw";
  CompileResult r = Compile(utf16, options);
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.RenderDiagnostics();
  EXPECT_EQ(r.diagnostics[0].span.line, 1u);
  EXPECT_EQ(r.diagnostics[0].span.column, 1u);
  EXPECT_NE(r.RenderDiagnostics().find("model.sw:1:1: error[E001]: source is UTF-16 (little-endian), not UTF-8: "
                                       "save the file as UTF-8"),
            std::string::npos)
      << r.RenderDiagnostics();
}

TEST(CompileBadInputTest, ErrorFloodIsCapped) {
  CompileResult r = Compile(std::string(200000, '$'));
  ASSERT_FALSE(r.ok);
  EXPECT_LE(r.diagnostics.size(), 201u);
}

// A cap of 0 keeps the first error (it kept only "stopping after 0").
TEST(CompileBadInputTest, ACapOfNoErrorsStillSaysTheFirst) {
  CompileOptions options;
  options.max_errors = 0;
  CompileResult r = Compile("@graph G {\n  output y: zz + qq;\n}\n", options);
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.diagnostics.size(), 2u) << r.RenderDiagnostics();
  EXPECT_EQ(std::string(r.diagnostics[0].code()), "E040");
  EXPECT_EQ(r.diagnostics[0].message, "undefined name 'zz'");
  EXPECT_EQ(std::string(r.diagnostics[1].code()), "E141");
}

TEST(CompileBadInputTest, EmptyAndTrivialPrograms) {
  CompileResult empty = Compile("");
  EXPECT_TRUE(empty.ok);
  EXPECT_TRUE(empty.program.graphs.empty());
  EXPECT_FALSE(Compile("@graph").ok);
  EXPECT_FALSE(Compile("@graph G {}").ok);  // V1: no output
}

// Common mistakes get the way Shrew writes them: a number meant as an
// attribute (concat's read "dtype mismatch: f32 and i64"; split's only
// "missing attribute 'chunks'"), and names other libraries use.
TEST(CompileBadInputTest, MistakesFromOtherLibrariesAreToldHowShrewWritesThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"output y: concat(x, x, 1);",
       "E082 1:42: [G::y] concat joins tensors: the number 1 after them is its attribute dim, written by name, as in "
       "concat(a, b, dim: 1)"},
      {"output y: split(x, 2, dim: 1);",
       "E048 1:52: missing attribute 'chunks' for split; attributes are written by name, as in split(x, chunks: 2)"},
      {"output y: not(x > 0.0);", "E041 1:52: unknown operation 'not'; logical not is written !x"},
      {"output y: attention(x, x, x);", "E041 1:52: unknown operation 'attention'; did you mean 'multi_head_attention'?"},
  };
  for (const auto& [body, want] : cases) {
    CompileResult r = Compile("@graph G { input x: Tensor<[2, 4], f32>; " + body + " }");
    ASSERT_FALSE(r.ok) << body;
    ASSERT_FALSE(r.diagnostics.empty());
    const diag::Diagnostic& d = r.diagnostics.front();
    EXPECT_EQ(std::string(d.code()) + " " + std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + ": " +
                  d.message,
              want)
        << body;
  }
}

}  // namespace
}  // namespace shrew
