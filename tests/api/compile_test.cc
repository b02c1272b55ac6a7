// Compile(): the whole front end on the conformance examples (every example
// compiles with no diagnostic and gives the static output types of
// tests/testdata/examples/README.md), stage ordering, rendered diagnostics,
// options, and metadata kept for the API.
#include "api/compile.h"
#include "api/program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/dump.h"

namespace shrew {
namespace {

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(SHREW_TESTDATA_DIR) + "/examples/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using OutputTypes = std::vector<std::pair<std::string, std::string>>;

OutputTypes Outputs(const ir::Graph& g) {
  OutputTypes out;
  for (const ir::GraphOutput& o : g.outputs()) {
    out.emplace_back(o.name, g.node(o.node).type.ToString());
  }
  return out;
}

struct Conformance {
  const char* file;
  const char* graph;
  OutputTypes outputs;
};

// The README table, written as ir::Type::ToString prints it.
const std::vector<Conformance>& Table() {
  static const std::vector<Conformance> table = {
      {"mlp_classifier.sw", "Classifier",
       {{"probs", "Tensor<[Batch, 10], f32>"}, {"logits", "Tensor<[Batch, 10], f32>"}}},
      {"logistic_regression.sw", "Train",
       {{"prob", "Tensor<[N, 1], f32>"},
        {"loss", "Tensor<[], f32>"},
        {"squared_error", "Tensor<[], f32>"},
        {"correct", "Tensor<[N, 1], bool>"}}},
      {"patch_mixer.sw", "Forward", {{"probs", "Tensor<[?, 10], f32>"}}},
      {"transformer_block.sw", "Block",
       {{"y", "Tensor<[Batch, Seq, 32], f32>"}, {"attn", "Tensor<[Batch, 4, Seq, Seq], f32>"}}},
      {"config_dims.sw", "Regressor", {{"y", "Tensor<[4, 5], f32>"}}},
      {"graph_calls.sw", "Dense", {{"out", "Tensor<[Rows, 16], f32>"}}},
      {"graph_calls.sw", "Residual", {{"out", "Tensor<[Rows, 16], f32>"}}},
      {"graph_calls.sw", "Model",
       {{"logits", "Tensor<[Rows, 4], f32>"}, {"probs", "Tensor<[Rows, 4], f32>"}}},
      {"logic_reductions.sw", "Stats",
       {{"valid", "Tensor<[Time, 6], bool>"},
        {"anomalies", "Tensor<[Time, 6], bool>"},
        {"mean_valid", "Tensor<[6], f32>"},
        {"peak", "Tensor<[Time, 1], f32>"},
        {"trough", "Tensor<[Time], f32>"},
        {"spread", "Tensor<[6], f32>"},
        {"overall", "Tensor<[], f32>"},
        {"frac_bad", "Tensor<[], f32>"},
        {"is_peak", "Tensor<[Time, 6], bool>"},
        {"all_ok", "Tensor<[Time], f32>"},
        {"changed", "Tensor<[Time, 6], bool>"}}},
      {"fusion_showcase.sw", "Fusions", {{"result", "Tensor<[Rows, 8], f32>"}}},
      {"tiny_gpt.sw", "LanguageModel",
       {{"logits", "Tensor<[Batch, 16, 96], f32>"}, {"loss", "Tensor<[], f32>"}}},
  };
  return table;
}

TEST(CompileConformanceTest, EveryExampleCompilesWithTheReadmeOutputTypes) {
  for (const Conformance& c : Table()) {
    SCOPED_TRACE(std::string(c.file) + " / " + c.graph);
    CompileOptions options;
    options.filename = c.file;
    CompileResult r = Compile(ReadExample(c.file), options);
    ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
    EXPECT_TRUE(r.diagnostics.empty()) << r.RenderDiagnostics();
    EXPECT_EQ(r.stage, CompileStage::kOptimize);
    for (const ir::Program* p : {&r.unoptimized, &r.program}) {
      const ir::Graph* g = p->FindGraph(c.graph);
      ASSERT_NE(g, nullptr);
      EXPECT_EQ(Outputs(*g), c.outputs);
    }
  }
}

TEST(CompileConformanceTest, ExampleInputsKeepTheirDeclaredTypes) {
  CompileResult r = Compile(ReadExample("config_dims.sw"));
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  const ir::Graph& g = r.program.graphs[0];
  ASSERT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.node(g.inputs()[0].node).name, "x");
  EXPECT_EQ(g.node(g.inputs()[0].node).type.ToString(), "Tensor<[4, 20], f32>");
  ASSERT_TRUE(g.return_type().has_value());
  EXPECT_EQ(g.return_type()->ToString(), "Tensor<[4, 5], f32>");

  CompileResult gpt = Compile(ReadExample("tiny_gpt.sw"));
  ASSERT_TRUE(gpt.ok) << gpt.RenderDiagnostics();
  const ir::Graph& lm = gpt.program.graphs[0];
  EXPECT_EQ(lm.node(lm.inputs()[0].node).type.ToString(), "Tensor<[Batch, 16], i64>");
  EXPECT_EQ(lm.node(lm.inputs()[1].node).type.ToString(), "Tensor<[Batch, 16], i64>");
}

TEST(CompileConformanceTest, FusionShowcaseStatistics) {
  CompileResult r = Compile(ReadExample("fusion_showcase.sw"));
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  EXPECT_EQ(r.stats.ToString(),
            "OptStats { dce: 1, identity: 1, const_fold: 1, cse: 1, fusion: 4 }");
  // The unoptimised program is kept for dumps: it still has the dead `unused`.
  EXPECT_NE(r.unoptimized.graphs[0].FindNode("unused"), ir::kNoNode);
  EXPECT_EQ(r.program.graphs[0].FindNode("unused"), ir::kNoNode);
}

TEST(CompileConformanceTest, TinyGptImplicitParametersPerLayer) {
  CompileResult r = Compile(ReadExample("tiny_gpt.sw"));
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  const ir::Graph& g = r.unoptimized.graphs[0];
  // 4 declared + 2 layers x 12 block parameters.
  ASSERT_EQ(g.params().size(), 28u);
  EXPECT_EQ(g.params()[3].name, "lnf_b");
  EXPECT_EQ(g.params()[4].name, "blocks.layer0.ln1.weight");
  EXPECT_EQ(g.params()[15].name, "blocks.layer0.ff2.bias");
  EXPECT_EQ(g.params()[16].name, "blocks.layer1.ln1.weight");
  EXPECT_EQ(g.params()[27].name, "blocks.layer1.ff2.bias");
  EXPECT_TRUE(g.params()[27].implicit);
  EXPECT_FALSE(g.params()[3].implicit);
  EXPECT_EQ(g.params()[12].name, "blocks.layer0.ff1.weight");
  EXPECT_EQ(g.params()[12].type.ToString(), "Tensor<[64, 256], f32>");
  EXPECT_EQ(g.params()[12].init.text, "uniform(-0.125, 0.125)");
  EXPECT_EQ(g.params()[14].type.ToString(), "Tensor<[256, 64], f32>");
  EXPECT_EQ(g.params()[14].init.text, "uniform(-0.0625, 0.0625)");
  // The repeat node became blocks.iter0 -> blocks, each a 13-operand block.
  ir::NodeId first = g.FindNode("blocks.iter0");
  ir::NodeId last = g.FindNode("blocks");
  ASSERT_NE(first, ir::kNoNode);
  ASSERT_NE(last, ir::kNoNode);
  EXPECT_EQ(g.node(first).op, ir::OpKind::kTransformerBlock);
  EXPECT_EQ(g.node(first).operands.size(), 13u);
  EXPECT_EQ(g.node(last).operands.size(), 13u);
  EXPECT_EQ(g.node(last).operands[0], first);
  EXPECT_EQ(g.node(last).hints, std::vector<std::string>{"recompute_in_backward"});
  for (const ir::Node& n : g.nodes()) EXPECT_NE(n.op, ir::OpKind::kRepeat);
}

TEST(CompileConformanceTest, MetadataStaysAvailable) {
  CompileResult r = Compile(ReadExample("mlp_classifier.sw"));
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  EXPECT_EQ(r.program.metadata.at("name"), "DigitMLP");
  EXPECT_EQ(r.program.metadata.at("version"), "1.2");
  EXPECT_EQ(r.program.config.at("Pixels").i, 784);
  ASSERT_TRUE(r.program.training.has_value());
  EXPECT_EQ(r.program.training->model, "Classifier");
  EXPECT_EQ(r.program.training->loss, "cross_entropy");
  EXPECT_EQ(r.program.training->optimizer_type, "Adam");
  EXPECT_DOUBLE_EQ(r.program.training->lr, 1e-3);
  EXPECT_EQ(r.program.training->epochs, 10);
  EXPECT_EQ(r.program.training->batch_size, 64);
  ASSERT_TRUE(r.program.inference.has_value());
  EXPECT_EQ(r.program.inference->model, "Classifier");
}

TEST(CompileTest, StopsAtTheParserAndRendersPositions) {
  CompileOptions options;
  options.filename = "bad.sw";
  CompileResult r = Compile("@graph G {\n  input x: f32;\n  node h { op: relu(x) }\n}\n", options);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.stage, CompileStage::kParse);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.RenderDiagnostics().substr(0, 35), "bad.sw:3:24: error[E020]: expected ");
}

TEST(CompileTest, RenderedCaretIsUnderTheTokenOnNonAsciiAndLongLines) {
  // The column counts bytes (LANGUAGE.md §2.1); the caret counts characters.
  CompileResult r = Compile("@graph G { /* \xC3\xA9\xC3\xA9\xC3\xA9 */ input x: f32; output y; }");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.RenderDiagnostics(),
            "<input>:1:46: error[E040]: undefined name 'y'\n"
            "  @graph G { /* \xC3\xA9\xC3\xA9\xC3\xA9 */ input x: f32; output y; }\n"
            "  " + std::string(42, ' ') + "^\n");
  std::string terms;
  for (int i = 0; i < 150; ++i) terms += "x + ";
  r = Compile("@graph G { input x: f32; output y: " + terms + "zz; }");
  ASSERT_FALSE(r.ok);
  std::string window;
  for (int i = 0; i < 17; ++i) window += " + x";
  EXPECT_EQ(r.RenderDiagnostics(),
            "<input>:1:636: error[E040]: undefined name 'zz'\n"
            "  \xE2\x80\xA6" + window + " + zz; }\n"
            "   " + std::string(71, ' ') + "^~\n");
}

// Lowering reports each statement's first error and goes on with the next
// statement and the next graph (it stopped at the program's first error).
TEST(CompileTest, LoweringReportsEachIndependentError) {
  CompileResult r = Compile("@graph G {\n  input x: f32;\n  node h { op: relu(y); };\n"
                            "  node k { op: relu(z); };\n  output h;\n}\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.stage, CompileStage::kLower);
  ASSERT_EQ(r.diagnostics.size(), 2u);
  EXPECT_EQ(r.diagnostics[0].kind, diag::Kind::UndefinedName);
  EXPECT_EQ(r.diagnostics[0].span.line, 3u);
  EXPECT_EQ(r.diagnostics[0].span.column, 21u);
  EXPECT_EQ(r.RenderDiagnostics(),
            "<input>:3:21: error[E040]: undefined name 'y'\n"
            "    node h { op: relu(y); };\n"
            "                      ^\n"
            "<input>:4:21: error[E040]: undefined name 'z'\n"
            "    node k { op: relu(z); };\n"
            "                      ^\n");
}

// A shape error in a sub-expression is shown with the node the user
// declared (it was `[G::__anon_1]`), or the graph for an unnamed output.
TEST(CompileTest, ShapeErrorsInSubExpressionsNameTheDeclaredNode) {
  CompileResult r = Compile("@graph G {\n  input x: Tensor<[2, 3], f32>;\n  node h { op: relu(matmul(x, x)); };\n"
                            "  output h;\n}\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.RenderDiagnostics(),
            "<input>:3:21: error[E103]: [G::h] matmul inner dimensions 3 and 2 differ (operands [2, 3] and [2, 3])\n"
            "    node h { op: relu(matmul(x, x)); };\n"
            "                      ^~~~~~~~~~~~\n");
  CompileResult u = Compile("@graph G {\n  input x: Tensor<[2, 3], f32>;\n  output relu(x) + matmul(x, x);\n}\n");
  ASSERT_FALSE(u.ok);
  ASSERT_EQ(u.diagnostics.size(), 1u);
  EXPECT_EQ(u.diagnostics[0].message, "[G] matmul inner dimensions 3 and 2 differ (operands [2, 3] and [2, 3])");
  EXPECT_EQ(u.diagnostics[0].span.column, 20u);
}

TEST(CompileTest, ValidationCollectsEveryError) {
  CompileResult r = Compile(
      "@graph A { input x: f32; node h { op: relu(x); }; node h { op: exp(x); }; }\n"
      "@graph B { input y: f32; output y; output y; }\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.stage, CompileStage::kValidate);
  std::vector<diag::Kind> kinds;
  for (const diag::Diagnostic& d : r.diagnostics) kinds.push_back(d.kind);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), diag::Kind::NoOutput), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), diag::Kind::DuplicateName), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), diag::Kind::DuplicateOutput), kinds.end());
}

TEST(CompileTest, ShapeErrorsStopBeforeMaterialisation) {
  CompileResult r = Compile(
      "@graph G { input a: Tensor<[2, 3], f32>; input b: Tensor<[4, 5], f32>;\n"
      "  output m: matmul(a, b); }\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.stage, CompileStage::kInferShapes);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].kind, diag::Kind::MatmulMismatch);
  EXPECT_EQ(r.diagnostics[0].span.line, 2u);
}

// A `where` condition of unknown type (`input c: ?`) deferred the branches'
// dtype and broadcast errors to run time ("dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")" from
// both executors); they are compile errors at the where, as with a known
// condition and as for `a + b` (OPS.md §1.3, §1.4).
TEST(CompileTest, WhereBranchConflictsAreStaticWithAnUnknownCondition) {
  struct Case {
    std::string cond, a, b;
    std::string rendered_first_line;
  };
  const std::vector<Case> cases = {
      {"?", "Tensor<[?], f32>", "Tensor<[?], f64>",
       "<input>:5:3: error[E100]: [G::y] dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")"},
      {"Tensor<[?], bool>", "Tensor<[?], f32>", "Tensor<[?], f64>",
       "<input>:5:3: error[E100]: [G::y] dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")"},
      {"?", "Tensor<[2], f32>", "Tensor<[3], f32>",
       "<input>:5:3: error[E102]: [G::y] shapes [2] and [3] cannot be broadcast"},
      {"?", "Tensor<[N, 4], f32>", "Tensor<[3], f32>",
       "<input>:5:3: error[E102]: [G::y] shapes [N, 4] and [3] cannot be broadcast"},
  };
  for (const Case& c : cases) {
    const std::string src = "@graph G {\n  input c: " + c.cond + ";\n  input a: " + c.a + ";\n  input b: " + c.b +
                            ";\n  output y: where(c, a, b);\n}\n";
    CompileResult r = Compile(src);
    ASSERT_FALSE(r.ok) << src;
    EXPECT_EQ(r.stage, CompileStage::kInferShapes) << src;
    ASSERT_EQ(r.diagnostics.size(), 1u) << r.RenderDiagnostics();
    EXPECT_EQ(r.diagnostics[0].span.line, 5u);
    EXPECT_EQ(r.diagnostics[0].span.column, 3u);  // the `output y: …` statement
    const std::string rendered = r.RenderDiagnostics();
    EXPECT_EQ(rendered.substr(0, rendered.find('\n')), c.rendered_first_line) << rendered;
  }
  // Branches that agree still compile; the condition is checked when it runs.
  CompileResult ok = Compile(
      "@graph G { input c: ?; input a: Tensor<[2, 1], f32>; input b: Tensor<[3], f32>;\n"
      "  output y: where(c, a, b); }\n");
  EXPECT_TRUE(ok.ok) << ok.RenderDiagnostics();
}

TEST(CompileTest, RecursiveGraphCallsAreDiagnosed) {
  CompileResult r = Compile(
      "@graph A { input x: f32; output y: B(x); }\n"
      "@graph B { input x: f32; output y: A(x); }\n"
      "@graph C { input x: f32; output y: C(x); }\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.stage, CompileStage::kValidate);
  int recursive = 0;
  for (const diag::Diagnostic& d : r.diagnostics) recursive += d.kind == diag::Kind::RecursiveCall;
  EXPECT_GE(recursive, 2) << r.RenderDiagnostics();
}

TEST(CompileTest, LongOperatorRunLowersAsTheNestedOperators) {
  // 150 operators in one run (one flat ChainExpr) and the same run with
  // every partial result parenthesised (nested BinaryExprs): the same IR,
  // before and after optimisation, node for node.
  const char* links[] = {" - x * 0.5", " + relu(x)", " - 2 / (x + 4)", " + x", " - x * x ** 2"};
  std::string flat = "x", nested = "x";
  for (int i = 0; i < 150; ++i) {
    flat += links[i % 5];
    nested = "(" + nested + links[i % 5] + ")";
  }
  auto program = [](const std::string& e) {
    return "@graph G {\n  input x: Tensor<[4], f32>;\n  node h { op: " + e + "; };\n  output y: h;\n}\n";
  };
  CompileResult a = Compile(program(flat)), b = Compile(program(nested));
  ASSERT_TRUE(a.ok) << a.RenderDiagnostics();
  ASSERT_TRUE(b.ok) << b.RenderDiagnostics();
  // (Compared as booleans: a failure would print two 300-line dumps.)
  EXPECT_TRUE(ir::DumpProgram(a.unoptimized) == ir::DumpProgram(b.unoptimized));
  EXPECT_TRUE(ir::DumpProgram(a.program) == ir::DumpProgram(b.program));
  EXPECT_EQ(a.unoptimized.graphs[0].num_nodes(), 1 + 30 * (3 + 2 + 5 + 1 + 4));  // x, then per five links
  EXPECT_EQ(a.unoptimized.graphs[0].node(a.unoptimized.graphs[0].outputs()[0].node).name, "h");

  // An operator tensors do not have: the outermost one is reported, as for
  // a short run.
  for (int n : {10, 100}) {
    std::string bits = "x";
    for (int i = 0; i < n; ++i) bits += i % 2 ? " << x" : " >> x";
    CompileResult r = Compile(program(bits));
    ASSERT_FALSE(r.ok);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].message, "operator '<<' is not supported on tensors") << n;
    EXPECT_EQ(r.diagnostics[0].span.column, 16 + bits.rfind("<<")) << n;  // after "  node h { op: "
  }
}

TEST(CompileTest, WithoutOptimisationProgramEqualsUnoptimized) {
  CompileOptions options;
  options.optimize = false;
  CompileResult r = Compile(ReadExample("fusion_showcase.sw"), options);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  EXPECT_EQ(r.stage, CompileStage::kMaterialize);
  EXPECT_EQ(r.stats.total(), 0);
  EXPECT_EQ(ir::DumpProgram(r.program), ir::DumpProgram(r.unoptimized));
}

TEST(CompileTest, SelectedPassesOnly) {
  CompileOptions options;
  options.passes = opt::PassOptions::None();
  options.passes.dce = true;
  CompileResult r = Compile(ReadExample("fusion_showcase.sw"), options);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  EXPECT_EQ(r.stats.ToString(), "OptStats { dce: 1, identity: 0, const_fold: 0, cse: 0, fusion: 0 }");
}

TEST(CompileTest, DimsSpecialiseShapes) {
  CompileOptions options;
  options.dims = {{"Batch", 8}};
  CompileResult r = Compile(ReadExample("mlp_classifier.sw"), options);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  EXPECT_EQ(Outputs(r.program.graphs[0]),
            (OutputTypes{{"probs", "Tensor<[8, 10], f32>"}, {"logits", "Tensor<[8, 10], f32>"}}));
}

// The names dims may configure are those of the source's types before any
// binding: the same set whatever dims the compile was given.
TEST(CompileTest, CheckDimsRejectsUnusedAndConfigNames) {
  const char* text =
      "@config { Width: 4; }\n"
      "@graph G {\n  input x: Tensor<[Batch, Width], f32>;\n  output y: reshape(x, shape: [Rows, -1]);\n}\n";
  CompileOptions options;
  options.dims = {{"Batch", 2}, {"Rows", 1}};
  CompileResult r = Compile(text, options);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  EXPECT_EQ(r.dim_names, (std::set<std::string, std::less<>>{"Batch", "Rows"}));
  EXPECT_TRUE(CheckDims(r, options.dims).ok());
  EXPECT_EQ(Compile(text).dim_names, r.dim_names);
  Status unused = CheckDims(r, {{"Hidden", 3}});
  EXPECT_EQ(unused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unused.message(), "dimension 'Hidden' is not used by this program; its dimensions: Batch, Rows");
  EXPECT_EQ(CheckDims(r, {{"batch", 3}}).message(),
            "dimension 'batch' is not used by this program; did you mean 'Batch'? its dimensions: Batch, Rows");
  Status config = CheckDims(r, {{"Width", 8}});
  EXPECT_EQ(config.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(config.message().find("'Width' is set by @config"), std::string::npos) << config.message();
  EXPECT_EQ(CheckDims(Compile("@graph G { input x: f32; output x; }"), {{"N", 1}}).message(),
            "dimension 'N' is not used by this program; its dimensions: (none)");
}

TEST(CompileTest, DimNamesIncludeThoseOnlyInAReturnType) {
  // M appears only after `->`; the return type is checked against it, so
  // configuring it is not an unused dim.
  const char* text = "@graph G(x: Tensor<[N], f32>) -> Tensor<[M], f32> {\n  output y: relu(x);\n}\n";
  CompileOptions options;
  options.dims = {{"N", 2}, {"M", 2}};
  CompileResult r = Compile(text, options);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  EXPECT_EQ(r.dim_names, (std::set<std::string, std::less<>>{"M", "N"}));
  EXPECT_TRUE(CheckDims(r, options.dims).ok());
}

TEST(CompileTest, SeedPrecedence) {
  const char* text = "@config { seed: 42; }\n@graph G { input x: f32; output x; }\n";
  EXPECT_EQ(Compile(text).seed, 42u);
  CompileOptions options;
  options.seed = 7;
  EXPECT_EQ(Compile(text, options).seed, 7u);
  EXPECT_EQ(Compile("@graph G { input x: f32; output x; }").seed, 0u);
  EXPECT_EQ(Compile("@config { seed: -1; }\n@graph G { input x: f32; output x; }").seed,
            ~uint64_t{0});
}

TEST(CompileTest, DefaultFloatDtypeForUnadoptedLiterals) {
  const char* text = "@graph G { output c: 0.5; }";
  CompileResult f32 = Compile(text);
  ASSERT_TRUE(f32.ok) << f32.RenderDiagnostics();
  EXPECT_EQ(f32.program.graphs[0].node(f32.program.graphs[0].outputs()[0].node).type.ToString(),
            "Tensor<[], f32>");
  CompileOptions options;
  options.default_float = ir::DType::kF64;
  CompileResult f64 = Compile(text, options);
  ASSERT_TRUE(f64.ok) << f64.RenderDiagnostics();
  EXPECT_EQ(f64.program.graphs[0].node(f64.program.graphs[0].outputs()[0].node).type.ToString(),
            "Tensor<[], f64>");
  // Only a float dtype: an integer one made `2.5 * 3.0` "a float literal used
  // with an integer operand" when the program was created.
  for (ir::DType bad : {ir::DType::kI32, ir::DType::kBool, ir::DType::kComplex64}) {
    options.default_float = bad;
    CompileResult r = Compile("@graph G { output c: 2.5 * 3.0; }", options);
    ASSERT_FALSE(r.ok);
    ASSERT_EQ(r.diagnostics.size(), 1u) << r.RenderDiagnostics();
    EXPECT_EQ(std::string(r.diagnostics[0].code()), "E143");
    EXPECT_EQ(r.diagnostics[0].message, std::string("default_float is ") + ir::DTypeName(bad) +
                                            "; float literals take f16, bf16, f32 or f64 (CompileOptions::default_float)");
  }
  // ProgramOptions::default_dtype, of graphs typed per run built from IR: refused when the program is created.
  CompileResult typed_per_run = Compile("@graph U { input x: ?; output y: x * 2.5; }");
  ASSERT_TRUE(typed_per_run.ok) << typed_per_run.RenderDiagnostics();
  Result<std::unique_ptr<Program>> p = Program::Create(typed_per_run.program, {.default_dtype = ir::DType::kI64});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(), "ProgramOptions::default_dtype is i64; float literals take f16, bf16, f32 or f64");
}

TEST(CompileTest, LiteralDtypes) {
  // OPS.md §1.3: literals and config keys are weak until an elementwise
  // operation adopts them; unadopted ints are i64, floats the default float.
  CompileOptions options;
  options.optimize = false;
  CompileResult r = Compile(
      "@config { k: 3; }\n"
      "@graph G {\n"
      "  input f: Tensor<[2], f32>; input d: Tensor<[2], f64>;\n"
      "  input i: Tensor<[2], i64>; input b: Tensor<[2], bool>;\n"
      "  output a: f + 1;\n"
      "  output c: d * 0.5;\n"
      "  output e: i * k;\n"
      "  output g: b && true;\n"
      "  output h: 7;\n"
      "  output j: f * (2 + 0.5);\n"
      "}\n",
      options);
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  EXPECT_EQ(ir::DumpGraph(r.program.graphs[0]),
            "graph G: 17 nodes, 4 inputs, 6 outputs, 0 params\n"
            "  %0 f = input : Tensor<[2], f32>\n"
            "  %1 d = input : Tensor<[2], f64>\n"
            "  %2 i = input : Tensor<[2], i64>\n"
            "  %3 b = input : Tensor<[2], bool>\n"
            "  %4 __anon_4 = constant[1:f32] : Tensor<[], f32>\n"
            "  %5 a = add(%0, %4) : Tensor<[2], f32>\n"
            "  %6 __anon_6 = constant[0.5:f64] : Tensor<[], f64>\n"
            "  %7 c = mul(%1, %6) : Tensor<[2], f64>\n"
            "  %8 __anon_8 = constant[3:i64] : Tensor<[], i64>\n"
            "  %9 e = mul(%2, %8) : Tensor<[2], i64>\n"
            "  %10 __anon_10 = constant[true:bool] : Tensor<[], bool>\n"
            "  %11 g = and(%3, %10) : Tensor<[2], bool>\n"
            "  %12 h = constant[7:i64] : Tensor<[], i64>\n"
            "  %13 __anon_13 = constant[2:f32] : Tensor<[], f32>\n"
            "  %14 __anon_14 = constant[0.5:f32] : Tensor<[], f32>\n"
            "  %15 __anon_15 = add(%13, %14) : Tensor<[], f32>\n"
            "  %16 j = mul(%0, %15) : Tensor<[2], f32>\n"
            "  outputs: a=%5, c=%7, e=%9, g=%11, h=%12, j=%16\n");
  CompileResult bad = Compile("@graph G {\n  input i: Tensor<[2], i64>;\n  output a: i + 1.5;\n}\n");
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.stage, CompileStage::kInferShapes);
}

// A weak sub-expression takes the other operand's dtype as a whole (OPS.md
// §1.3): its operations must suit that dtype, and a literal must fit u8 (the
// one narrow integer storage). Both are compile errors at the literal or
// operation, not failures when the executors are built.
TEST(CompileTest, AdoptedWeakSubExpressionsAreCheckedAtTheirPosition) {
  struct Case {
    std::string expr;
    std::string input_dtype;
    uint32_t column;  // of the offending node on line 3
    std::string fragment;
  };
  const std::vector<Case> cases = {
      // A negative literal is named as written (it said "neg requires a float
      // or signed integer operand, got u8" of a neg the user never wrote).
      {"x * -1", "u8", 17, "integer literal -1 does not fit u8 (an unsigned dtype: no negative values)"},
      {"x > -2.5", "u8", 18, "float literal 2.5 cannot be used with an integer operand"},
      {"x * -7", "u32", 17, "integer literal -7 does not fit u32"},
      {"x + 300", "u8", 17, "integer literal 300 does not fit u8"},
      // Integral float literals out of range failed only when the executors
      // were built (materialising the constant).
      {"x + 300.0", "u8", 17, "float literal 300 does not fit u8"},
      {"x + 1e30", "i64", 17, "float literal 1e+30 does not fit i64 (held as i64: -9223372036854775808 to 9223372036854775807)"},
      {"x + -1e30", "i32", 18, "float literal -1e+30 does not fit i32 (held as i64: -9223372036854775808 to 9223372036854775807)"},
      {"x + 2.5", "i64", 17, "float literal 2.5 cannot be used with an integer operand"},
      {"x == -1", "bool", 18, "neg requires"},
      {"x && (1 + 1)", "bool", 19, "add requires"},
  };
  for (const Case& c : cases) {
    const std::string src = "@graph G {\n  input x: Tensor<[2], " + c.input_dtype + ">;\n  output y: " + c.expr +
                            ";\n}\n";
    CompileResult r = Compile(src);
    ASSERT_FALSE(r.ok) << src;
    ASSERT_FALSE(r.diagnostics.empty());
    const diag::Diagnostic& d = r.diagnostics.front();
    EXPECT_EQ(d.span.line, 3u) << c.expr << ": " << d.message;
    EXPECT_EQ(d.span.column, c.column) << c.expr << ": " << d.message;
    EXPECT_NE(d.message.find(c.fragment), std::string::npos) << c.expr << ": " << d.message;
  }
  // In range, and operations that suit the dtype, still compile: (0 - 1)
  // is u8 arithmetic (it wraps, as u8 arithmetic does).
  for (const char* expr : {"x + 255", "x * (0 - 1)", "x + (2 * 3)", "x + 255.0"}) {
    CompileResult r = Compile(std::string("@graph G {\n  input x: Tensor<[2], u8>;\n  output y: ") + expr + ";\n}\n");
    EXPECT_TRUE(r.ok) << expr << ": " << r.RenderDiagnostics();
  }
  // The other integer dtypes are held as i64 and compute as i64 (OPS.md §1.3): a literal past
  // their declared range compiles, as their arithmetic's results do (x < 1000 on i8 is true).
  for (const auto& [dtype, expr] : std::vector<std::pair<const char*, const char*>>{
           {"i8", "x + 127 + -128"}, {"i8", "x < 1000"}, {"i16", "x - 32767 + -32768"}, {"u16", "x + 65536"},
           {"i32", "x > 4294967296"}, {"u32", "x + 4294967296"}, {"u64", "x + 9223372036854775807"},
           {"i64", "x + 9223372036854775807"}}) {
    CompileResult r = Compile(std::string("@graph G {\n  input x: Tensor<[2], ") + dtype + ">;\n  output y: " + expr + ";\n}\n");
    EXPECT_TRUE(r.ok) << dtype << " " << expr << ": " << r.RenderDiagnostics();
  }
}

// A source's name that is one the compiler gives its own nodes (LANGUAGE.md
// §9) is told as reserved at the source's node, whichever comes first (it
// read "declared twice; the first is at" a literal the source never named).
TEST(CompileTest, ACompilerNameWrittenInTheSourceIsToldAsReserved) {
  for (const char* body : {"  node a { op: relu(x) + 1.0; };\n  node __anon_2 { op: relu(x); };\n  output y: __anon_2 * a;\n",
                           "  node __anon_1 { op: x + 1.0; };\n  output y: __anon_1;\n"}) {
    CompileResult r = Compile(std::string("@graph G {\n  input x: Tensor<[2], f32>;\n") + body + "}\n");
    ASSERT_FALSE(r.ok) << body;
    ASSERT_FALSE(r.diagnostics.empty());
    const diag::Diagnostic& d = r.diagnostics.front();
    EXPECT_EQ(std::string(d.code()), "E081");
    const std::string b = body;
    const std::string name = b.find("__anon_2") != std::string::npos ? "__anon_2" : "__anon_1";
    EXPECT_EQ(d.message, "[G] name '" + name + "' is one the compiler gives its own nodes: names starting with two "
                         "underscores are reserved (LANGUAGE.md §9); rename it") << body;
    const size_t line = b.find("__anon_") < b.find('\n') ? 3u : 4u;
    EXPECT_EQ(d.span.line, line) << body;
    EXPECT_EQ(d.span.column, 3u) << body;
  }
  // Two names the source wrote are a duplicate as any other (LANGUAGE.md §9).
  CompileResult twice = Compile("@graph G {\n  input x: Tensor<[2], f32>;\n  node __x { op: x * 2.0; };\n  node __x { op: x; };\n"
                                "  output __x;\n}\n");
  ASSERT_FALSE(twice.ok);
  EXPECT_EQ(twice.diagnostics.front().message, "[G] name '__x' is declared twice; the first is at 3:3");
}

// Arithmetic of weak bools is weak too and adopts the other operand's dtype
// as a whole (OPS.md §1.3: bool → number is 0 or 1): `x + (true + true)` is
// x + 2. It was "add requires a numeric operand, got bool" (while `x + (true
// + 1)` compiled). Never adopted it is of int kind, as `-true` is: i64 2; in
// a graph typed per run, its literals are typed by the run (they were
// refused when compiled).
TEST(CompileTest, ArithmeticOfWeakBoolsAdoptsTheOtherOperandsDtype) {
  for (const char* dtype : {"f32", "i32", "u8", "f64"}) {
    for (const char* expr : {"x + (true + true)", "x * (true - false)", "x + (B + B)", "x - (true * true + 1)"}) {
      CompileResult r = Compile(std::string("@config { B: true; }\n@graph G {\n  input x: Tensor<[2], ") + dtype +
                                ">;\n  output y: " + expr + ";\n}\n");
      ASSERT_TRUE(r.ok) << dtype << " " << expr << ": " << r.RenderDiagnostics();
      const ir::Graph& g = r.program.graphs[0];
      EXPECT_EQ(g.node(g.outputs()[0].node).type.ToString(), std::string("Tensor<[2], ") + dtype + ">") << expr;
      Result<std::unique_ptr<Program>> p = Program::Create(r);
      ASSERT_TRUE(p.ok()) << p.status().ToString();
      runtime::TensorMap in;
      in.emplace("x", std::move(runtime::Tensor::Full(ir::DTypeFromName(dtype).value(), {2}, 5)).value());
      for (bool tape : {true, false}) {
        Result<runtime::TensorMap> out = tape ? (*p)->Run("G", in) : (*p)->Interpret("G", in);
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        const double want = std::string(expr) == "x + (true + true)" || std::string(expr) == "x + (B + B)" ? 7
                            : std::string(expr) == "x * (true - false)" ? 5 : 3;
        EXPECT_EQ(out->at("y").GetDouble(1), want) << dtype << " " << expr << (tape ? " tape" : " interpreter");
      }
    }
  }
  CompileResult bare = Compile("@config { B: true; }\n@graph G {\n  output c: true + true;\n  output d: where(B, true + true, true);\n}\n");
  ASSERT_TRUE(bare.ok) << bare.RenderDiagnostics();
  const ir::Graph& g = bare.program.graphs[0];
  EXPECT_EQ(g.node(g.outputs()[0].node).type.ToString(), "Tensor<[], i64>");
  EXPECT_EQ(g.node(g.outputs()[1].node).type.ToString(), "Tensor<[], i64>");
  Result<std::unique_ptr<Program>> p = Program::Create(bare);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  for (bool tape : {true, false}) {
    Result<runtime::TensorMap> out = tape ? (*p)->Run("G", {}) : (*p)->Interpret("G", {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->at("c").GetDouble(0), 2.0);
    EXPECT_EQ(out->at("d").GetDouble(0), 2.0);
  }
  CompileResult untyped = Compile("@graph G {\n  input x: ?;\n  output y: x + (true + true);\n}\n");
  ASSERT_TRUE(untyped.ok) << untyped.RenderDiagnostics();
  Result<std::unique_ptr<Program>> q = Program::Create(untyped);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  runtime::TensorMap in;
  in.emplace("x", std::move(runtime::Tensor::FromVector<float>(ir::DType::kF32, {2}, {1, 2})).value());
  for (bool tape : {true, false}) {
    Result<runtime::TensorMap> out = tape ? (*q)->Run("G", in) : (*q)->Interpret("G", in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->at("y").TypeString(), "f32[2]");
    EXPECT_EQ(out->at("y").GetDouble(1), 4.0);
  }
}

// A config key's negative value does not fit an unsigned dtype, as the same
// literal written `-2` does not (it compiled for u16, u32 and u64, and held -1).
TEST(CompileTest, ANegativeConfigKeyDoesNotFitAnUnsignedDtype) {
  for (const char* dtype : {"u16", "u32", "u64"}) {
    CompileResult r = Compile(std::string("@config { kn: -2; }\n@graph G {\n  input x: Tensor<[2], ") + dtype +
                              ">;\n  output y: x + kn;\n}\n");
    ASSERT_FALSE(r.ok) << dtype;
    EXPECT_EQ(r.diagnostics.front().message, std::string("[G::y] config key 'kn' (integer -2) does not fit ") + dtype +
                                                 " (an unsigned dtype: no negative values)");
  }
  EXPECT_TRUE(Compile("@config { kn: 2; }\n@graph G {\n  input x: Tensor<[2], u16>;\n  output y: x + kn;\n}\n").ok);
}

// A negated literal is as constant as a config key of that value (OPS.md
// §3.14): `range(-1, 2)` is [3] (it was [?]), `range(-3)` empty when compiled.
TEST(CompileTest, RangeOfNegatedLiteralsIsStatic) {
  CompileResult r = Compile("@graph G {\n  output a: range(-1, 2);\n  output b: range(-(-2));\n}\n");
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  const ir::Graph& g = r.program.graphs[0];
  EXPECT_EQ(g.node(g.outputs()[0].node).type.ToString(), "Tensor<[3], i64>");
  EXPECT_EQ(g.node(g.outputs()[1].node).type.ToString(), "Tensor<[2], i64>");
  CompileResult empty = Compile("@graph G {\n  output a: range(-3);\n}\n");
  ASSERT_FALSE(empty.ok);
  EXPECT_EQ(std::string(empty.diagnostics.front().code()), "E112");
  EXPECT_NE(empty.diagnostics.front().message.find("range is empty (start 0, end -3)"), std::string::npos)
      << empty.diagnostics.front().message;
}

// A config key's value is named by the key the source wrote (the caret is
// under it): it was "float literal 0.5", which the source nowhere holds.
TEST(CompileTest, AConfigKeyThatDoesNotFitIsNamedAsWritten) {
  const std::string config = "@config {\n  Scale: 0.5;\n  Big: 300;\n  One: 1;\n  Huge: 1e300;\n  Minus: -2;\n}\n";
  for (const auto& [dtype, expr, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"i32", "x * Scale", "[G::y] config key 'Scale' (float 0.5) cannot be used with an integer operand"},
           {"u8", "x + Big", "[G::y] config key 'Big' (integer 300) does not fit u8 (0 to 255)"},
           {"u8", "x * -One", "[G::y] config key 'One' negated (integer -1) does not fit u8 (an unsigned dtype: no negative values)"},
           {"f32", "x + Huge", "[G::y] config key 'Huge' (float 1e+300) is inf as f32 (held as f32, whose largest finite value is 3.4028235e+38)"},
           // -Minus is 2, which fits: neg itself is what u16 has not (it read "negated (integer --2) does not fit").
           {"u16", "x + -Minus", "[G::y] neg requires a float or signed integer operand, got u16"}}) {
    const std::string src = config + "@graph G {\n  input x: Tensor<[2], " + dtype + ">;\n  output y: " + expr + ";\n}\n";
    CompileResult r = Compile(src);
    ASSERT_FALSE(r.diagnostics.empty()) << src;
    EXPECT_EQ(r.diagnostics.front().message, message) << expr;
  }
  // A node whose op is the key keeps the mark next to its own lines.
  CompileResult node = Compile(config + "@graph G {\n  input x: Tensor<[2], i32>;\n  node s { op: Scale; note: 1; };\n"
                                        "  output y: x * s;\n}\n");
  ASSERT_FALSE(node.diagnostics.empty());
  EXPECT_EQ(node.diagnostics.front().message, "[G::s] config key 'Scale' (float 0.5) cannot be used with an integer operand");
  // The mark is the compiler's: not shown in the IR's JSON, and no source may write one.
  CompileResult shown = Compile(config + "@graph G {\n  input x: Tensor<[2], f32>;\n  node s { op: Scale; note: \"hi\"; };\n"
                                         "  output y: x * s;\n}\n");
  ASSERT_TRUE(shown.ok) << shown.RenderDiagnostics();
  const std::string json = ir::DumpGraphJson(shown.unoptimized.graphs[0]);
  EXPECT_EQ(json.find("__config"), std::string::npos) << json;
  EXPECT_NE(json.find("\"annotations\":{\"note\":\"hi\"}"), std::string::npos) << json;
  CompileResult forged = Compile("@graph G {\n  input x: Tensor<[2], i32>;\n  node s { op: 0.5; __config: \"Bogus\"; };\n"
                                 "  output y: x * s;\n}\n");
  ASSERT_FALSE(forged.ok);
  EXPECT_EQ(forged.diagnostics.front().message, "attribute '__config' of node 's': keys starting with two underscores are "
                                                "reserved for the compiler (LANGUAGE.md §9)");
  EXPECT_EQ(forged.diagnostics.front().span.column, 21u);
}

// A finite literal its dtype holds as inf compiles (OPS.md §1.3 converts it)
// with W005 at the literal; one no operation adopts names the default dtype
// and the option that changes it. f64 holds 1e300; 3.4e38 is f32's.
TEST(CompileTest, ALiteralHeldAsInfIsWarnedAbout) {
  auto warnings = [](const std::string& expr, ir::DType dtype = ir::DType::kF32) {
    CompileOptions o;
    o.default_float = dtype;
    CompileResult r = Compile("@graph G {\n  input x: Tensor<[2], f32>;\n  output y: " + expr + ";\n}\n", o);
    EXPECT_TRUE(r.ok) << expr << ": " << r.RenderDiagnostics();
    std::vector<std::string> out;
    for (const diag::Diagnostic& d : r.diagnostics) out.push_back(std::string(d.code()) + " " + std::to_string(d.span.column) + " " + d.message);
    return out;
  };
  EXPECT_EQ(warnings("x * 1e50"), std::vector<std::string>{"W005 17 [G::y] float literal 1e+50 is inf as f32 (held as f32, whose "
                                                           "largest finite value is 3.4028235e+38)"});
  EXPECT_EQ(warnings("x + cast(-1e300, dtype: \"f32\")").size(), 1u);
  const std::vector<std::string> unadopted = warnings("x + cast(cast(1e300, dtype: \"f64\") * 0.0, dtype: \"f32\")");
  ASSERT_EQ(unadopted.size(), 1u);
  EXPECT_NE(unadopted[0].find("float literal 1e+300 is inf as f32 (held as f32, whose largest finite value is 3.4028235e+38); a literal "
                              "no operation adopts takes the default dtype, f32 (compile option defaultDtype)"),
            std::string::npos)
      << unadopted[0];
  EXPECT_TRUE(warnings("x + cast(cast(1e300, dtype: \"f64\") * 0.0, dtype: \"f32\")", ir::DType::kF64).empty());
  EXPECT_TRUE(warnings("x * 3.4e38").empty());
  EXPECT_TRUE(warnings("x * 1e-50").empty());  // underflow to 0 is no overflow
}

TEST(CompileTest, RepeatBodyLiteralsAdoptTheCarriedDtype) {
  // A repeat applies its body to its operands, so a literal or config key in
  // the body adopts the carried value's dtype as it would outside (OPS.md
  // §1.3, §3.15).
  CompileResult r = Compile(
      "@config { k: 3; }\n"
      "@graph G {\n"
      "  input f: Tensor<[2], f32>; input d: Tensor<[2], f64>; input i: Tensor<[2], i64>;\n"
      "  output a: repeat(2) { f * 2 };\n"
      "  output b: repeat(2) { f * k };\n"
      "  output c: repeat(3) { d * 0.5 };\n"
      "  output e: repeat(2) { i + 1 };\n"
      "}\n");
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  const ir::Graph& g = r.program.graphs[0];
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"a", "Tensor<[2], f32>"}, {"b", "Tensor<[2], f32>"}, {"c", "Tensor<[2], f64>"}, {"e", "Tensor<[2], i64>"}};
  for (const auto& [name, type] : expected) EXPECT_EQ(g.node(g.FindNode(name)).type.ToString(), type) << name;
  CompileResult bad = Compile("@graph G {\n  input i: Tensor<[2], i64>;\n  output a: repeat(2) { i * 2.5 };\n}\n");
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.RenderDiagnostics().find("float literal 2.5 cannot be used with an integer operand"), std::string::npos)
      << bad.RenderDiagnostics();
}

TEST(CompileTest, ALiteralThatDoesNotFitADeclaredTypeNamesThatType) {
  // No operand here: the integer dtype is the node's declared type's.
  CompileResult r = Compile("@graph G {\n  input x: Tensor<[2], f32>;\n  node c: Tensor<[], i64> { op: 2.5; };\n  output c;\n}\n");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.RenderDiagnostics().find(
                "3:3: error[E100]: [G::c] float literal 2.5 does not fit the declared type Tensor<[], i64>"),
            std::string::npos)
      << r.RenderDiagnostics();
  // An expression of literals under such a declaration too.
  CompileResult e = Compile("@graph G {\n  node c: Tensor<[], i64> { op: 1 + 0.5; };\n  output c;\n}\n");
  ASSERT_FALSE(e.ok);
  EXPECT_NE(e.RenderDiagnostics().find("float literal 0.5 does not fit the declared type Tensor<[], i64>"),
            std::string::npos)
      << e.RenderDiagnostics();
}

TEST(CompileTest, StageNames) {
  EXPECT_STREQ(CompileStageName(CompileStage::kParse), "parse");
  EXPECT_STREQ(CompileStageName(CompileStage::kMaterialize), "materialise");
  EXPECT_STREQ(CompileStageName(CompileStage::kOptimize), "optimise");
}

}  // namespace
}  // namespace shrew
