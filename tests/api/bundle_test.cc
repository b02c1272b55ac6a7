// The program bundle (api/bundle.h): a loaded bundle is the program it was
// made from — for every conformance example the tape dump, the parameter
// checksum and the outputs are bit for bit those of the compiled program —
// and every truncation, stray byte and tampered field is a clean error.
#include "api/bundle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "api/compile.h"
#include "api/param_blob.h"
#include "jit/jit_test_util.h"
#include "support/sanitizer.h"

namespace shrew {
namespace {

using jit::testing::F32;
using jit::testing::ReadTestdata;
using runtime::Tensor;
using runtime::TensorMap;

struct Built {
  CompileResult compiled;
  std::unique_ptr<Program> program;
};

Built Build(const std::string& source, const ir::DimBindings& dims = {}, ProgramOptions o = {},
            const std::string& filename = "model.sw") {
  Built b;
  CompileOptions copts;
  copts.filename = filename;
  copts.dims = dims;
  copts.seed = 77;
  b.compiled = Compile(source, copts);
  EXPECT_TRUE(b.compiled.ok) << b.compiled.RenderDiagnostics();
  if (!b.compiled.ok) return b;
  o.dims = dims;
  Result<std::unique_ptr<Program>> p = Program::Create(b.compiled, o);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (p.ok()) b.program = std::move(p).value();
  return b;
}

std::vector<uint8_t> BundleOf(const Built& b) {
  return EncodeBundle(*b.program, b.compiled.source.get(), b.compiled.stats);
}

std::unique_ptr<Program> Load(const std::vector<uint8_t>& bytes, ProgramOptions o = {}) {
  Result<std::unique_ptr<Program>> p = LoadBundle(bytes, o);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? std::move(p).value() : nullptr;
}

void ExpectBitEqual(const TensorMap& a, const TensorMap& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, t] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    std::string why;
    EXPECT_TRUE(runtime::BitwiseEqual(t, b.at(name), &why)) << name << ": " << why;
  }
}

// A dump without its one varying field (compile_us=N).
std::string WithoutCompileTime(std::string dump) {
  const size_t at = dump.find("compile_us=");
  if (at == std::string::npos) return dump;
  size_t end = at + 11;
  while (end < dump.size() && std::isdigit(static_cast<unsigned char>(dump[end]))) ++end;
  return dump.erase(at, end - at);
}

struct Example {
  const char* file;
  const char* graph;
  ir::DimBindings dims;  // given to the compiler (and so stored in the bundle)
  ir::DimBindings run;   // the run's sizes of the dims left symbolic
};

TEST(Bundle, EveryExampleLoadsAsTheProgramItWasMadeFrom) {
  const std::vector<Example> examples = {
      {"mlp_classifier.sw", "Classifier", {{"Batch", 3}}, {{"Batch", 3}}},
      {"mlp_classifier.sw", "Classifier", {}, {{"Batch", 5}}},
      {"logistic_regression.sw", "Train", {{"N", 5}}, {{"N", 5}}},
      {"patch_mixer.sw", "Forward", {}, {{"Batch", 2}}},
      {"transformer_block.sw", "Block", {{"Batch", 2}, {"Seq", 5}}, {{"Batch", 2}, {"Seq", 5}}},
      {"config_dims.sw", "Regressor", {}, {}},
      {"graph_calls.sw", "Model", {{"Rows", 3}}, {{"Rows", 3}}},
      {"logic_reductions.sw", "Stats", {}, {{"Time", 7}}},
      {"fusion_showcase.sw", "Fusions", {{"Rows", 4}}, {{"Rows", 4}}},
      {"tiny_gpt.sw", "LanguageModel", {{"Batch", 2}}, {{"Batch", 2}}},
  };
  for (const Example& e : examples) {
    SCOPED_TRACE(std::string(e.file) + (e.dims.empty() ? " (symbolic)" : ""));
    Built b = Build(ReadTestdata(std::string("examples/") + e.file), e.dims, {}, e.file);
    ASSERT_NE(b.program, nullptr);
    const std::vector<uint8_t> bytes = BundleOf(b);
    BundleInfo info;
    Result<std::unique_ptr<Program>> r = LoadBundle(bytes, {}, &info);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::unique_ptr<Program> loaded = std::move(r).value();
    ASSERT_NE(info.source, nullptr);
    EXPECT_EQ(info.source->name(), e.file);
    EXPECT_EQ(info.source->text(), b.compiled.source->text());
    EXPECT_EQ(info.opt_stats.ToString(), b.compiled.stats.ToString());
    EXPECT_EQ(info.opt_stats.rounds, b.compiled.stats.rounds);
    EXPECT_EQ(loaded->GraphNames(), b.program->GraphNames());
    EXPECT_EQ(loaded->seed(), b.program->seed());
    EXPECT_EQ(loaded->options().dims, e.dims);
    EXPECT_EQ(loaded->ParamsChecksum(), b.program->ParamsChecksum());
    EXPECT_EQ(loaded->ir().metadata, b.program->ir().metadata);
    EXPECT_EQ(loaded->ir().custom_ops, b.program->ir().custom_ops);
    EXPECT_EQ(loaded->ir().config.size(), b.program->ir().config.size());

    const TensorMap in = jit::testing::FormulaInputs(*b.program->ir().FindGraph(e.graph), e.run);
    Result<TensorMap> want = b.program->Run(e.graph, in);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    Result<TensorMap> got = loaded->Run(e.graph, in);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectBitEqual(*got, *want);
    // The same tape, plan and statistics, not just the same numbers.
    for (const std::string& g : b.program->GraphNames()) {
      Result<std::string> a = b.program->Dump(g), c = loaded->Dump(g);
      if (a.ok()) {
        ASSERT_TRUE(c.ok()) << c.status().ToString();
        EXPECT_EQ(WithoutCompileTime(*c), WithoutCompileTime(*a)) << "graph " << g;
      }
    }
    // The reference interpreter agrees too (it runs on the loaded IR).
    Result<TensorMap> ref = loaded->Interpret(e.graph, in);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    jit::testing::ExpectAgree(*got, *ref, 4.0);
    // Encoding the loaded program again gives the same bytes; without the
    // source, the same bytes as a loaded source-less bundle gives.
    EXPECT_EQ(EncodeBundle(*loaded, info.source.get(), info.opt_stats), bytes);
    const std::vector<uint8_t> bare = EncodeBundle(*loaded, nullptr, info.opt_stats);
    std::unique_ptr<Program> bare_loaded = Load(bare);
    ASSERT_NE(bare_loaded, nullptr);
    EXPECT_EQ(EncodeBundle(*bare_loaded, nullptr, info.opt_stats), bare);
    Result<TensorMap> bare_out = bare_loaded->Run(e.graph, in);
    ASSERT_TRUE(bare_out.ok()) << bare_out.status().ToString();
    ExpectBitEqual(*bare_out, *want);
  }
}

constexpr char kSmall[] = R"SW(@graph G {
  input x: Tensor<[B, 4], f32>;
  param w: Tensor<[4, 3], f32> { init: "xavier_uniform"; };
  param b: Tensor<[3], f32> { init: "normal(0, 0.5)"; };
  @assert B <= 8, "batch too large";
  output y: relu(matmul(x, w) + b);
}
)SW";

TEST(Bundle, ParametersAsSetAreWhatLoads) {
  Built b = Build(kSmall);
  ASSERT_NE(b.program, nullptr);
  Tensor w = F32({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  ASSERT_TRUE(b.program->SetParam("G/w", w).ok());
  std::unique_ptr<Program> loaded = Load(BundleOf(b));
  ASSERT_NE(loaded, nullptr);
  EXPECT_TRUE(runtime::BitwiseEqual(loaded->GetParam("G/w").value(), w));
  // Hand-computed: x = [1, 0, 0, 0] picks w's first row, plus b, through relu.
  const Tensor bias = loaded->GetParam("G/b").value();
  TensorMap in;
  in.emplace("x", F32({1, 4}, {1, 0, 0, 0}));
  Result<TensorMap> y = loaded->Run("G", in);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int j = 0; j < 3; ++j) {
    const float expect = std::max(0.0f, static_cast<float>(j + 1) + bias.values<float>()[j]);
    EXPECT_EQ(y->at("y").values<float>()[j], expect) << j;
  }
  // A loaded program takes new parameters like any other.
  ASSERT_TRUE(loaded->SetParam("G/w", F32({4, 3}, std::vector<float>(12, 0.0f))).ok());
  y = loaded->Run("G", in);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->at("y").values<float>()[0], std::max(0.0f, bias.values<float>()[0]));
}

TEST(Bundle, TheBytesCanBeFreedOnceRead) {
  Built b = Build(kSmall);
  ASSERT_NE(b.program, nullptr);
  // A heap copy freed in the callback: a later read of it is a
  // use-after-free that the sanitized build reports.
  auto copy = std::make_unique<std::vector<uint8_t>>(BundleOf(b));
  int calls = 0;
  Result<std::unique_ptr<Program>> p = LoadBundle(*copy, {}, nullptr, [&] {
    ++calls;
    copy.reset();
  });
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ((*p)->ParamsChecksum(), b.program->ParamsChecksum());
  TensorMap in;
  in.emplace("x", F32({1, 4}, {1, 2, 3, 4}));
  Result<TensorMap> want = b.program->Run("G", in), got = (*p)->Run("G", in);
  ASSERT_TRUE(want.ok() && got.ok());
  ExpectBitEqual(*got, *want);
}

TEST(Bundle, AssertionsAndRunErrorsStillNameLineAndColumn) {
  Built b = Build(kSmall);
  ASSERT_NE(b.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(b));
  ASSERT_NE(loaded, nullptr);
  TensorMap big;
  big.emplace("x", Tensor::Zeros(ir::DType::kF32, {9, 4}).value());
  Result<TensorMap> want = b.program->Run("G", big);
  Result<TensorMap> got = loaded->Run("G", big);
  ASSERT_FALSE(got.ok());
  ASSERT_FALSE(want.ok());
  EXPECT_EQ(got.status().message(), want.status().message());
  EXPECT_EQ(got.status().span().line, 5u) << got.status().message();
  EXPECT_EQ(got.status().span().column, 3u) << got.status().message();
  EXPECT_NE(got.status().message().find("batch too large"), std::string::npos);
  // A wrong input names it, with the expected and actual shape; the program stays usable.
  TensorMap wrong;
  wrong.emplace("x", Tensor::Zeros(ir::DType::kF32, {2, 5}).value());
  jit::InputIssue issue;
  Result<TensorMap> bad = loaded->Run("G", wrong, &issue);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(issue.input, "x");
  TensorMap ok;
  ok.emplace("x", Tensor::Zeros(ir::DType::kF32, {2, 4}).value());
  EXPECT_TRUE(loaded->Run("G", ok).ok());
}

// A fused relu's failure is its producer's (ir::Node::fused_producer): the
// bundle keeps the producer's name and place, with the source and without.
TEST(Bundle, AFusedProducersNameAndPlaceSurviveTheBundle) {
  Built b = Build("@graph G {\n  input x: Tensor<[?, ?], f32>; input w: Tensor<[?, ?], f32>;\n"
                  "  node m { op: matmul(x, w); };\n  output y: relu(m);\n}\n");
  ASSERT_NE(b.program, nullptr);
  TensorMap in;
  in.emplace("x", Tensor::Zeros(ir::DType::kF32, {2, 3}).value());
  in.emplace("w", Tensor::Zeros(ir::DType::kF32, {5, 4}).value());
  const std::string want = "graph 'G': node 'm' (matmul + relu): matmul inner dimensions 3 and 5 differ";
  for (bool with_source : {true, false}) {
    std::unique_ptr<Program> loaded =
        Load(EncodeBundle(*b.program, with_source ? b.compiled.source.get() : nullptr, b.compiled.stats));
    ASSERT_NE(loaded, nullptr);
    for (bool interpret : {false, true}) {
      Result<TensorMap> r = interpret ? loaded->Interpret("G", in) : loaded->Run("G", in);
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().message();
      EXPECT_EQ(r.status().span().line, with_source ? 3u : 0u) << r.status().message();
    }
  }
}

TEST(Bundle, GraphsOfUnknownInputTypesAndTrainingDropoutWork) {
  Built dyn = Build("@graph B { input x: ?; output y: relu(x) * 2; }");
  ASSERT_NE(dyn.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(dyn));
  ASSERT_NE(loaded, nullptr);
  TensorMap in;
  in.emplace("x", F32({3}, {-1, 0.5, 2}));
  Result<TensorMap> y = loaded->Run("B", in);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(y->at("y"), F32({3}, {0, 1, 4})));

  // Training-mode dropout draws from the stored seed exactly as the
  // compiled program does.
  const char* source = "@graph D { input x: Tensor<[64], f32>; output y: dropout(x, p: 0.5); }";
  ProgramOptions training;
  training.training = true;
  Built d = Build(source, {}, training);
  ASSERT_NE(d.program, nullptr);
  std::unique_ptr<Program> ld = Load(BundleOf(d), training);
  ASSERT_NE(ld, nullptr);
  TensorMap ones;
  ones.emplace("x", F32({64}, std::vector<float>(64, 1.0f)));
  for (int run = 0; run < 3; ++run) {
    Result<TensorMap> a = d.program->Run("D", ones), c = ld->Run("D", ones);
    ASSERT_TRUE(a.ok() && c.ok());
    ExpectBitEqual(*c, *a);
  }
}

// A repeat's unrolled iterations keep the carried type (OPS.md §3.15); with
// an input typed per run only the run's shapes tell, on both executors, from
// the compiled program and from its bundle (which marks the iterations).
TEST(Bundle, RepeatIterationsAreCheckedOnARunsShapesAndTheMarksTravel) {
  Built b = Build("@graph R {\n  input x: ?;\n  output h: repeat(1) { transpose(x) };\n}\n");
  ASSERT_NE(b.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(b));
  ASSERT_NE(loaded, nullptr);
  for (Program* p : {b.program.get(), loaded.get()}) {
    TensorMap square;
    square.emplace("x", F32({2, 2}, {1, 2, 3, 4}));
    Result<TensorMap> y = p->Run("R", square);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_TRUE(runtime::BitwiseEqual(y->at("h"), F32({2, 2}, {1, 3, 2, 4})));
    TensorMap wide;
    wide.emplace("x", F32({2, 3}, {1, 2, 3, 4, 5, 6}));
    for (bool interpret : {false, true}) {
      Result<TensorMap> bad = interpret ? p->Interpret("R", wide) : p->Run("R", wide);
      ASSERT_FALSE(bad.ok()) << (interpret ? "interpreter" : "tape");
      EXPECT_NE(bad.status().message().find("graph 'R': node 'h' (transpose): repeat body must preserve shape and dtype: it carries "
                                            "Tensor<[2, 3], f32> and the body gives Tensor<[3, 2], f32>"),
                std::string::npos)
          << bad.status().message();
    }
    // Still usable.
    ASSERT_TRUE(p->Run("R", square).ok());
  }
}

// With symbolic dims the types stay symbolic until the run: `concat(x, x)`
// of [N] is [?], which the repeat's rule cannot compare; the run's N can.
TEST(Bundle, RepeatIterationsOfSymbolicDimsAreCheckedOnTheRun) {
  Built b = Build("@graph C {\n  input x: Tensor<[N], f32>;\n  output h: repeat(3) { concat(x, x) };\n}\n");
  ASSERT_NE(b.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(b));
  ASSERT_NE(loaded, nullptr);
  for (Program* p : {b.program.get(), loaded.get()}) {
    TensorMap in;
    in.emplace("x", F32({2}, {1, 2}));
    for (bool interpret : {false, true}) {
      Result<TensorMap> bad = interpret ? p->Interpret("C", in) : p->Run("C", in);
      ASSERT_FALSE(bad.ok()) << (interpret ? "interpreter" : "tape");
      EXPECT_NE(bad.status().message().find("graph 'C': node 'h' (concat, repeat iteration 1): repeat body must preserve shape and dtype: it carries "
                                            "Tensor<[2], f32> and the body gives Tensor<[4], f32>"),
                std::string::npos)
          << bad.status().message();
    }
  }
}

// A body calling a graph typed per run gives inference no type: the
// iteration keeps the carried one (so the bundle holds what loading infers),
// and the call's kernel compares what the callee gives (a bool result was
// read as f32 bytes; a [3, 2] one was an internal error).
TEST(Bundle, RepeatOfACallTypedPerRunIsCheckedWhenItRuns) {
  Built b = Build(
      "@graph Pos {\n  input v: ?;\n  output o: v > 0;\n}\n"
      "@graph T {\n  input v: ?;\n  output o: transpose(v);\n}\n"
      "@graph Twice {\n  input v: ?;\n  output o: v * 2;\n}\n"
      "@graph E {\n  input x: Tensor<[2], f32>;\n  output y: repeat(1) { Pos(x) };\n}\n"
      "@graph D {\n  input x: Tensor<[2, 3], f32>;\n  output y: repeat(3) { T(x) };\n}\n"
      "@graph W {\n  input x: Tensor<[2], f32>;\n  output y: repeat(2) { Twice(x) };\n}\n");
  ASSERT_NE(b.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(b));
  ASSERT_NE(loaded, nullptr);
  TensorMap two, wide;
  two.emplace("x", F32({2}, {1, -1}));
  wide.emplace("x", F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  for (Program* p : {b.program.get(), loaded.get()}) {
    for (bool interpret : {false, true}) {
      const char* who = interpret ? "interpreter" : "tape";
      Result<TensorMap> e = interpret ? p->Interpret("E", two) : p->Run("E", two);
      ASSERT_FALSE(e.ok()) << who;
      EXPECT_NE(e.status().message().find("repeat body must preserve shape and dtype: it carries Tensor<[2], f32> and "
                                          "the body gives Tensor<[2], bool>"),
                std::string::npos)
          << who << ": " << e.status().message();
      Result<TensorMap> d = interpret ? p->Interpret("D", wide) : p->Run("D", wide);
      ASSERT_FALSE(d.ok()) << who;
      EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument) << d.status().ToString();
      EXPECT_NE(d.status().message().find("it carries Tensor<[2, 3], f32> and the body gives Tensor<[3, 2], f32>"),
                std::string::npos)
          << who << ": " << d.status().message();
      Result<TensorMap> w = interpret ? p->Interpret("W", two) : p->Run("W", two);
      ASSERT_TRUE(w.ok()) << who << ": " << w.status().ToString();
      EXPECT_TRUE(runtime::BitwiseEqual(w->at("y"), F32({2}, {4, -4}))) << who;
    }
  }
}

TEST(Bundle, AttributeLinesOfListsTravel) {
  Built b = Build(
      "@graph G {\n  input x: Tensor<[2], f32>;\n"
      "  node h { op: relu(x); tags: [\"a\", [true, 2], 1.5]; };\n  output h;\n}\n");
  ASSERT_NE(b.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(b));
  ASSERT_NE(loaded, nullptr);
  for (const Program* p : {b.program.get(), loaded.get()}) {
    const ir::Graph& g = p->ir().graphs[0];
    const ir::NodeId h = g.FindNode("h");
    ASSERT_NE(h, ir::kNoNode);
    const ir::AttrValue* tags = g.node(h).annotations.Find("tags");
    ASSERT_NE(tags, nullptr);
    EXPECT_EQ(tags->ToString(), "[\"a\", [true, 2], 1.5]");
  }
  EXPECT_TRUE(*b.program->ir().graphs[0].node(b.program->ir().graphs[0].FindNode("h")).annotations.Find("tags") ==
              *loaded->ir().graphs[0].node(loaded->ir().graphs[0].FindNode("h")).annotations.Find("tags"));
  // Lists nested as deep as a source may write them load back (the reader stopped at 32).
  const std::string deep = std::string(60, '[') + "\"x\"" + std::string(60, ']');
  Built nested = Build("@config { c: " + deep + "; }\n@graph G {\n  input x: Tensor<[2], f32>;\n  node h { op: relu(x); tags: " +
                       deep + "; };\n  output h;\n}\n");
  ASSERT_NE(nested.program, nullptr);
  EXPECT_NE(Load(BundleOf(nested)), nullptr);
}

// The optimiser keeps a repeat's iterations apart: fusing relu(m) into
// fused_matmul_relu(x, w) made x the "carried" operand (a false E110 when
// the bundle was loaded), and CSE merged an iteration into an equal plain
// node, dropping its check.
TEST(Bundle, TheOptimiserKeepsRepeatIterationsAndTheirChecks) {
  Built fused = Build(
      "@graph F {\n  input x: Tensor<[2, 3], f32>;\n  param w: Tensor<[3, 4], f32> { init: \"ones\"; };\n"
      "  node m { op: matmul(x, w); };\n  output y: repeat(1) { relu(m) };\n}\n");
  ASSERT_NE(fused.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(fused));
  ASSERT_NE(loaded, nullptr);
  TensorMap in;
  in.emplace("x", F32({2, 3}, {1, -2, 3, -4, -5, -6}));
  for (Program* p : {fused.program.get(), loaded.get()}) {
    for (bool interpret : {false, true}) {
      Result<TensorMap> y = interpret ? p->Interpret("F", in) : p->Run("F", in);
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      EXPECT_TRUE(runtime::BitwiseEqual(y->at("y"), F32({2, 4}, {2, 2, 2, 2, 0, 0, 0, 0})));  // row sums 2 and -15
    }
  }
  Built merged = Build("@graph C {\n  input x: ?;\n  output a: transpose(x);\n  output b: repeat(1) { transpose(x) };\n}\n");
  ASSERT_NE(merged.program, nullptr);
  TensorMap wide;
  wide.emplace("x", F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  for (bool interpret : {false, true}) {
    Result<TensorMap> r = interpret ? merged.program->Interpret("C", wide) : merged.program->Run("C", wide);
    ASSERT_FALSE(r.ok()) << (interpret ? "interpreter" : "tape");
    EXPECT_NE(r.status().message().find("repeat body must preserve shape and dtype"), std::string::npos)
        << r.status().message();
  }
}

// Where the compile decides an iteration's type (static types, no call),
// the iteration is a plain node: fusion and CSE take it as PIPELINE.md §6.5
// and §6.6 say (a hunt found relu(repeat(3) { x + b }) unfused and
// repeat(1) { relu(x) } not merged with relu(x)). Values unchanged; a
// repeat of a call keeps its mark.
TEST(Bundle, StaticRepeatIterationsArePlainNodesForFusionAndCse) {
  const std::string src =
      "@graph G {\n  input x: Tensor<[2, 4], f32>;\n  param b: Tensor<[4], f32> { init: \"normal(0, 1)\"; };\n"
      "  param W: Tensor<[4, 4], f32> { init: \"normal(0, 1)\"; };\n"
      "  node r { op: repeat(3) { x + b }; };\n  node y { op: relu(r); };\n"
      "  node m { op: repeat(2) { matmul(x, W) }; };\n  node z { op: m + b; };\n"
      "  node a { op: repeat(1) { relu(x) }; };\n  node c { op: relu(x); };\n"
      "  output y; output z; output s: a + c;\n}\n"
      "@graph D(v: Tensor<[2, 4], f32>) -> Tensor<[2, 4], f32> { output o: v * 2; }\n"
      "@graph H {\n  input x: Tensor<[2, 4], f32>;\n  output h: repeat(2) { D(x) };\n}\n";
  CompileResult c = Compile(src);
  ASSERT_TRUE(c.ok) << c.RenderDiagnostics();
  EXPECT_EQ(c.stats.ops_fused, 2);       // fused_add_relu(r.iter1, b), fused_matmul_add(m.iter0, W, b)
  EXPECT_EQ(c.stats.cse_eliminated, 1);  // a merged with c
  const ir::Graph& h = *c.program.FindGraph("H");
  int marked = 0;
  for (const ir::Node& n : h.nodes()) marked += n.repeat_iteration ? 1 : 0;
  EXPECT_EQ(marked, 2);
  Built built = Build(src);
  ASSERT_NE(built.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(built));
  ASSERT_NE(loaded, nullptr);
  CompileOptions plain;
  plain.optimize = false;
  plain.seed = 77;  // Build's
  CompileResult none = Compile(src, plain);
  // A range decides its shape from values: its iterations keep the mark
  // ([?] fits the carried [1] at compile time; a run gives [3]).
  CompileResult ranged = Compile("@graph R { input x: Tensor<[1], i64>; output y: repeat(2) { range(x) }; }");
  ASSERT_TRUE(ranged.ok) << ranged.RenderDiagnostics();
  int range_marks = 0;
  for (const ir::Node& n : ranged.program.graphs[0].nodes()) range_marks += n.repeat_iteration ? 1 : 0;
  EXPECT_EQ(range_marks, 2);
  Result<std::unique_ptr<Program>> unoptimised = Program::Create(none);
  ASSERT_TRUE(unoptimised.ok()) << unoptimised.status().ToString();
  TensorMap in;
  in.emplace("x", F32({2, 4}, {1, -2, 3, -4, 0.5f, -0.25f, 2, -1}));
  Result<TensorMap> want = (*unoptimised)->Interpret("G", in);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (Program* p : {built.program.get(), loaded.get()}) {
    for (bool interpret : {false, true}) {
      Result<TensorMap> got = interpret ? p->Interpret("G", in) : p->Run("G", in);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      for (const char* out : {"y", "z", "s"}) {
        EXPECT_TRUE(runtime::AllClose(got->at(out), want->at(out), 1e-6, 1e-6)) << out << (interpret ? " interpreter" : " tape");
      }
    }
    Result<TensorMap> hh = p->Run("H", in);
    ASSERT_TRUE(hh.ok()) << hh.status().ToString();
    EXPECT_EQ(hh->at("h").values<float>()[0], 4.0f);
  }
}

// A random-program hunt's finds (each also through a bundle):
// - a typed repeat(0) lost its declared type's check when optimised (the
//   identity it becomes did not keep declared_adds_facts);
// - a typed repeat(2) over an operand of a symbolic dim typed every
//   iteration with the declared type, and its bundle did not load;
// - the interpreter checked an iteration against its static type ([?]),
//   so repeat(2) { x1 * x0 } of [1] and [4] returned [4] where the tape
//   refused it.
TEST(Bundle, TypedRepeatsKeepTheirChecksAndIterationsTheirCarriedTypes) {
  CompileOptions plain;
  plain.optimize = false;
  const std::string zero =
      "@graph Main {\n  input x0: Tensor<[S0, S1], i32>;\n  node n2: Tensor<[2, 3], i32> { op: repeat(0) { x0 + 1 }; };\n"
      "  output n2;\n}\n";
  TensorMap small;
  small.emplace("x0", Tensor::FromVector<int64_t>(ir::DType::kI32, {1, 1}, {5}).value());
  for (bool optimize : {true, false}) {
    Built b = Build(zero, {}, {}, "zero.sw");
    std::unique_ptr<Program> none = optimize ? nullptr : jit::testing::MakeProgram(zero, {}, plain);
    Program* p = optimize ? b.program.get() : none.get();
    ASSERT_NE(p, nullptr);
    for (bool interpret : {false, true}) {
      Result<TensorMap> r = interpret ? p->Interpret("Main", small) : p->Run("Main", small);
      ASSERT_FALSE(r.ok()) << (optimize ? "optimised " : "") << (interpret ? "interpreter" : "tape");
      EXPECT_NE(r.status().message().find("Tensor<[2, 3], i32>"), std::string::npos) << r.status().ToString();
    }
  }
  const std::string typed =
      "@graph Main {\n  input x1: Tensor<[S0, 2], bool>;\n  node n1: Tensor<[3, 2], bool> { op: repeat(2) { !x1 }; };\n"
      "  output n1;\n}\n";
  Built t = Build(typed, {}, {}, "typed.sw");
  ASSERT_NE(t.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(t));
  ASSERT_NE(loaded, nullptr);
  TensorMap three;
  three.emplace("x1", Tensor::FromVector(ir::DType::kBool, {3, 2}, std::vector<bool>{false, true, true, false, false, false}).value());
  TensorMap one;
  one.emplace("x1", Tensor::FromVector(ir::DType::kBool, {1, 2}, std::vector<bool>{false, true}).value());
  for (Program* p : {t.program.get(), loaded.get()}) {
    for (bool interpret : {false, true}) {
      Result<TensorMap> r = interpret ? p->Interpret("Main", three) : p->Run("Main", three);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_TRUE(runtime::BitwiseEqual(r->at("n1"), three.at("x1")));  // !!x
      Result<TensorMap> bad = interpret ? p->Interpret("Main", one) : p->Run("Main", one);
      ASSERT_FALSE(bad.ok());
      EXPECT_EQ(bad.status().message().find("it carries Tensor<[3, 2]"), std::string::npos) << bad.status().ToString();
    }
  }
  const std::string grows =
      "@graph Main {\n  input x0: Tensor<[4], i32>;\n  input x1: Tensor<[?], i32>;\n  output n3: repeat(2) { x1 * x0 };\n}\n"
      "@graph Grow(v: Tensor<[?], f32>) { output o: concat(v, v); }\n"
      "@graph Twice { input y: Tensor<[?], f32>; output n: repeat(2) { Grow(y) }; }\n";
  Built g = Build(grows, {}, {}, "grows.sw");
  ASSERT_NE(g.program, nullptr);
  TensorMap in;
  in.emplace("x0", Tensor::FromVector<int64_t>(ir::DType::kI32, {4}, {1, 2, 3, 4}).value());
  in.emplace("x1", Tensor::FromVector<int64_t>(ir::DType::kI32, {1}, {1}).value());
  TensorMap y;
  y.emplace("y", F32({2}, {1, 2}));
  for (bool interpret : {false, true}) {
    Result<TensorMap> r = interpret ? g.program->Interpret("Main", in) : g.program->Run("Main", in);
    ASSERT_FALSE(r.ok()) << (interpret ? "interpreter" : "tape");
    EXPECT_NE(r.status().message().find("repeat body must preserve shape and dtype: it carries Tensor<[1], i32> and the "
                                        "body gives Tensor<[4], i32>"),
              std::string::npos)
        << r.status().ToString();
    Result<TensorMap> c = interpret ? g.program->Interpret("Twice", y) : g.program->Run("Twice", y);
    ASSERT_FALSE(c.ok()) << (interpret ? "interpreter" : "tape");
    EXPECT_NE(c.status().message().find("it carries Tensor<[2], f32> and the body gives Tensor<[4], f32>"),
              std::string::npos)
        << c.status().ToString();
  }
}

TEST(Bundle, LayoutStartsWithMagicAndVersion) {
  Built b = Build(kSmall);
  ASSERT_NE(b.program, nullptr);
  const std::vector<uint8_t> bytes = BundleOf(b);
  ASSERT_GT(bytes.size(), 12u);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "SHRWBND1");
  EXPECT_EQ(bytes[8], 6);
  EXPECT_EQ(bytes[9] | bytes[10] | bytes[11], 0);
  // The parameter blob is the last part, whole.
  const std::vector<uint8_t> params = b.program->SaveParams();
  ASSERT_GE(bytes.size(), params.size());
  EXPECT_TRUE(std::equal(params.begin(), params.end(), bytes.end() - static_cast<std::ptrdiff_t>(params.size())));

  std::vector<uint8_t> v7 = bytes;
  v7[8] = 7;
  EXPECT_NE(LoadBundle(v7).status().message().find("unsupported version 7 (this build reads versions 1 to 6)"),
            std::string::npos)
      << LoadBundle(v7).status().message();
  v7[8] = 0;
  EXPECT_NE(LoadBundle(v7).status().message().find("unsupported version 0"), std::string::npos);
  std::vector<uint8_t> other = bytes;
  other[0] = 'X';
  EXPECT_NE(LoadBundle(other).status().message().find("not a Shrew bundle"), std::string::npos);
  // A parameter blob is not a bundle.
  EXPECT_NE(LoadBundle(params).status().message().find("not a Shrew bundle"), std::string::npos);
}

// The byte after the optimiser counters: magic, version, seed, "f32", no
// dims, six counters.
constexpr size_t kPassesAt = 8 + 4 + 8 + (4 + 3) + 4 + 6 * 4;

TEST(Bundle, TheOptimiserPassesTravelWithTheProgram) {
  // A graph compiled per input signature is optimised again with the passes
  // the bundle's program was optimised with, so they are stored.
  const char* source = "@graph B { input x: ?; output y: x * (1 / 2) + x * (1 / 2); }";
  auto bundle = [&](CompileOptions copts) {
    CompileResult c = Compile(source, copts);
    EXPECT_TRUE(c.ok) << c.RenderDiagnostics();
    Result<std::unique_ptr<Program>> p = Program::Create(c);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? EncodeBundle(**p, c.source.get(), c.stats) : std::vector<uint8_t>{};
  };
  auto ops_after_run = [](Program& p) {
    TensorMap in;
    in.emplace("x", F32({2}, {3, -4}));
    Result<TensorMap> y = p.Run("B", in);
    EXPECT_TRUE(y.ok()) << y.status().ToString();
    if (y.ok()) EXPECT_TRUE(runtime::BitwiseEqual(y->at("y"), F32({2}, {3, -4})));
    std::string ops;
    for (const ir::Node& n : p.compiled("B")->graph.nodes()) {
      if (!n.is_source() && n.op != ir::OpKind::kConstant) ops += std::string(ir::OpName(n.op)) + " ";
    }
    return ops;
  };

  std::vector<uint8_t> all = bundle({});
  ASSERT_GT(all.size(), kPassesAt);
  EXPECT_EQ(all[kPassesAt], 0x3f);
  std::unique_ptr<Program> p = Load(all);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->options().optimized_with, opt::PassOptions{});
  EXPECT_EQ(ops_after_run(*p), "mul add ");

  CompileOptions no_cse;
  no_cse.passes.cse = false;
  std::vector<uint8_t> some = bundle(no_cse);
  ASSERT_GT(some.size(), kPassesAt);
  EXPECT_EQ(some[kPassesAt], 0x2f);
  p = Load(some);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(ops_after_run(*p), "mul mul add ");

  CompileOptions none;
  none.optimize = false;
  std::vector<uint8_t> unoptimised = bundle(none);
  ASSERT_GT(unoptimised.size(), kPassesAt);
  EXPECT_EQ(unoptimised[kPassesAt], 0);
  p = Load(unoptimised);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->options().optimized_with, std::nullopt);
  EXPECT_EQ(ops_after_run(*p), "div mul div mul add ");

  // Unknown bits, or passes without bit 0, are corruption.
  for (uint8_t bad : {0x40, 0x80, 0x02}) {
    std::vector<uint8_t> b = all;
    b[kPassesAt] = bad;
    EXPECT_NE(LoadBundle(b).status().message().find("have unknown bits"), std::string::npos) << int{bad};
  }

  // Version 2 had no inference dims after the passes (here: none, 4 zero
  // bytes); version 1 had no passes byte either: optimised means every pass.
  for (const std::vector<uint8_t>* v3 : {&some, &unoptimised}) {
    std::vector<uint8_t> v2 = *v3;
    v2[8] = 2;
    v2.erase(v2.begin() + static_cast<std::ptrdiff_t>(kPassesAt + 1), v2.begin() + static_cast<std::ptrdiff_t>(kPassesAt + 5));
    p = Load(v2);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(ops_after_run(*p), v3 == &some ? "mul mul add " : "div mul div mul add ");
    std::vector<uint8_t> v1 = v2;
    v1[8] = 1;
    v1.erase(v1.begin() + static_cast<std::ptrdiff_t>(kPassesAt));
    p = Load(v1);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(ops_after_run(*p), v3 == &some ? "mul add " : "div mul div mul add ");
  }
}

TEST(Bundle, DimsOfTheCompileAndOfTheProgramMayDiffer) {
  // CompileOptions::dims specialise the IR's types, ProgramOptions::dims
  // only bind runs: an embedder may give either alone. The bundle checks its
  // IR against the first and runs with the second (version 2 stored the
  // program's for both, and such a bundle failed to load).
  const char* source = R"(@graph G {
    input x: Tensor<[Batch, 2], f32>;
    param w: Tensor<[2, 2], f32> { init: "ones"; };
    output y: matmul(x, w);
  })";
  const ir::DimBindings three{{"Batch", 3}};
  for (bool at_compile : {false, true}) {
    SCOPED_TRACE(at_compile ? "compile dims" : "program dims");
    CompileOptions copts;
    ProgramOptions popts;
    (at_compile ? copts.dims : popts.dims) = three;
    CompileResult c = Compile(source, copts);
    ASSERT_TRUE(c.ok) << c.RenderDiagnostics();
    Result<std::unique_ptr<Program>> made = Program::Create(c, popts);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    EXPECT_EQ((*made)->options().inference_dims(), copts.dims);
    // The loader's own specialized_with is replaced by the bundle's, not merged.
    ProgramOptions loader;
    loader.specialized_with = ir::DimBindings{{"M", 7}};
    Result<std::unique_ptr<Program>> loaded = LoadBundle(EncodeBundle(**made, c.source.get(), c.stats), loader);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ((*loaded)->options().dims, popts.dims);
    EXPECT_EQ((*loaded)->options().inference_dims(), copts.dims);
    TensorMap in;
    in.emplace("x", F32({3, 2}, {1, 2, 3, 4, 5, 6}));
    Result<TensorMap> y = (*loaded)->Run("G", in);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_TRUE(runtime::BitwiseEqual(y->at("y"), F32({3, 2}, {3, 3, 7, 7, 11, 11})));
    // The configured batch still binds runs: 2 rows are refused.
    TensorMap two;
    two.emplace("x", F32({2, 2}, {1, 2, 3, 4}));
    EXPECT_FALSE((*loaded)->Run("G", two).ok());
  }
  // A program made from IR with the same dims on both sides (no
  // specialized_with given: it means `dims`) saves a bundle that loads.
  CompileOptions copts;
  copts.dims = three;
  CompileResult c = Compile(source, copts);
  ASSERT_TRUE(c.ok);
  ProgramOptions popts;
  popts.dims = three;
  Result<std::unique_ptr<Program>> from_ir = Program::Create(c.program, popts);
  ASSERT_TRUE(from_ir.ok()) << from_ir.status().ToString();
  Result<std::unique_ptr<Program>> loaded = LoadBundle(EncodeBundle(**from_ir, c.source.get(), c.stats));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->options().inference_dims(), three);
}

TEST(Bundle, ADimBoundDifferentlyForRunsThanForTheTypesIsRefused) {
  // The tape runs the IR's types (Batch = 3); the interpreter binds runs
  // with the configured dims: were they 7, the two would disagree.
  const char* source = R"(@graph G {
    input x: Tensor<[Batch, 2], f32>;
    output y: x * 2;
  })";
  const ir::DimBindings three{{"Batch", 3}};
  CompileOptions copts;
  copts.dims = three;
  CompileResult c = Compile(source, copts);
  ASSERT_TRUE(c.ok) << c.RenderDiagnostics();
  ProgramOptions seven;
  seven.dims = {{"Batch", 7}};
  Result<std::unique_ptr<Program>> made = Program::Create(c, seven);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().message(),
            "dimension 'Batch' binds runs to 7 (ProgramOptions::dims), but the program's types were inferred with 3 "
            "(CompileOptions::dims)");

  ProgramOptions same;
  same.dims = three;
  made = Program::Create(c, same);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  std::vector<uint8_t> bytes = EncodeBundle(**made, c.source.get(), c.stats);
  ASSERT_NE(Load(bytes), nullptr);
  // The configured dims come first: "Batch" (its length, u32) and 3 (i64).
  const std::string name = "Batch";
  auto at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
  ASSERT_NE(at, bytes.end());
  const size_t value = static_cast<size_t>(at - bytes.begin()) + name.size();
  ASSERT_EQ(bytes[value], 3);
  bytes[value] = 7;
  Result<std::unique_ptr<Program>> loaded = LoadBundle(bytes);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(loaded.status().message(),
            "bundle: dimension 'Batch' binds runs to 7 (ProgramOptions::dims), but the program's types were inferred "
            "with 3 (CompileOptions::dims)");
}

// A declared name's size found at one node (dead n2: S0 = 4) only checks
// later declarations; were n5's type [2, 4] by it, the optimised IR (n2
// removed) would give [2, S0], and the bundle of the program failed to load.
TEST(Bundle, ATypeNeverTakesItsSizeFromAnotherNodesDeclaration) {
  const char* source = R"(@graph Main {
    input x0: Tensor<[S0], f32>;
    input x1: Tensor<[2, 4], f32>;
    node n2 { op: x1 * 2; output: Tensor<[?, S0], f32>; };
    node n3 { op: expand(x1, shape: [2, S0]); };
    node n5 { op: relu(n3); output: Tensor<[?, S0], f32>; };
    output y: n5 + x0;
  })";
  Built b = Build(source);
  ASSERT_NE(b.program, nullptr);
  std::unique_ptr<Program> loaded = Load(BundleOf(b));
  ASSERT_NE(loaded, nullptr);
  TensorMap in;
  in.emplace("x0", F32({4}, {1, 2, 3, 4}));
  in.emplace("x1", F32({2, 4}, {-1, 1, -1, 1, 2, -2, 2, -2}));
  Result<TensorMap> from_bundle = loaded->Run("Main", in);
  Result<TensorMap> compiled = b.program->Run("Main", in);
  ASSERT_TRUE(from_bundle.ok()) << from_bundle.status().ToString();
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  ExpectBitEqual(*from_bundle, *compiled);
  EXPECT_TRUE(runtime::BitwiseEqual(from_bundle->at("y"), F32({2, 4}, {1, 3, 3, 5, 3, 2, 5, 4})));
}

TEST(Bundle, EveryTruncationAndStrayByteIsACleanError) {
  Built b = Build(kSmall);
  ASSERT_NE(b.program, nullptr);
  const std::vector<uint8_t> bytes = BundleOf(b);
  int by_index = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<std::unique_ptr<Program>> r = LoadBundle(std::span<const uint8_t>(bytes.data(), n));
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes accepted";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message().rfind("bundle: ", 0), 0u) << r.status().message();
    // A node the compiler named is told by its index (it read "node '__anon_3'").
    EXPECT_EQ(r.status().message().find("__"), std::string::npos) << r.status().message();
    if (r.status().message().starts_with("bundle: graph 'G' node 3: ")) ++by_index;
  }
  EXPECT_GT(by_index, 0);
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_NE(LoadBundle(longer).status().message().find("unexpected bytes"), std::string::npos);
  // Cut inside the parameters: how many bytes they need and how many remain;
  // inside their size: no graph named (it blamed the last graph read).
  const size_t params = b.program->SaveParams().size();
  EXPECT_EQ(LoadBundle(std::span<const uint8_t>(bytes.data(), bytes.size() - params - 1)).status().message(),
            "bundle: truncated parameters: the bundle ends inside their size");
  EXPECT_EQ(LoadBundle(std::span<const uint8_t>(bytes.data(), bytes.size() - 3)).status().message(),
            "bundle: truncated parameters: their blob is " + std::to_string(params) + " bytes, " +
                std::to_string(params - 3) + " remain");
}

TEST(Bundle, EveryCorruptedByteIsRejectedOrLoadsAConsistentProgram) {
  Built b = Build(kSmall);
  ASSERT_NE(b.program, nullptr);
  const std::vector<uint8_t> bytes = BundleOf(b);
  const size_t params = b.program->SaveParams().size();
  TensorMap in;
  in.emplace("x", F32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}));
  int rejected = 0, loaded = 0;
  // Every byte before the parameter values (those may be any float at all)
  // and the blob's first records.
  const size_t end = std::min(bytes.size(), bytes.size() - params + 64);
  for (size_t i = 0; i < end; ++i) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0xff}}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= flip;
      Result<std::unique_ptr<Program>> r = LoadBundle(bad);
      if (!r.ok()) {
        ++rejected;
        EXPECT_NE(r.status().code(), StatusCode::kInternal) << r.status().ToString();
        // The parameter section's errors too: "bundle: parameter blob: …".
        if (r.status().code() == StatusCode::kInvalidArgument) {
          EXPECT_EQ(r.status().message().rfind("bundle: ", 0), 0u) << "byte " << i << ": " << r.status().message();
        }
        continue;
      }
      // Whatever loaded is checked like a compiled program: running it
      // either works or is a clean error, never a crash (ASan/UBSan build).
      ++loaded;
      Result<TensorMap> y = (*r)->Run((*r)->GraphNames().empty() ? "G" : (*r)->GraphNames()[0], in);
      (void)y;
    }
  }
  EXPECT_GT(rejected, 0);
  SUCCEED() << rejected << " rejected, " << loaded << " loaded";
}

// Replaces the n-th occurrence of `from` (a length-prefixed string) by `to`
// (same length). False when there is no n-th occurrence.
bool ReplaceString(std::vector<uint8_t>* bytes, const std::string& from, const std::string& to, int n) {
  std::vector<uint8_t> pattern = {static_cast<uint8_t>(from.size()), 0, 0, 0};
  pattern.insert(pattern.end(), from.begin(), from.end());
  auto it = bytes->begin();
  for (int k = 0;; ++k) {
    it = std::search(it, bytes->end(), pattern.begin(), pattern.end());
    if (it == bytes->end()) return false;
    if (k == n) {
      // The format has no section sizes: a string of another length only
      // needs its own length prefix changed.
      *it = static_cast<uint8_t>(to.size());
      it = bytes->erase(it + 4, it + 4 + static_cast<std::ptrdiff_t>(from.size()));
      bytes->insert(it, to.begin(), to.end());
      return true;
    }
    ++it;
  }
}

// Little-endian pieces of the format, to forge bundles byte by byte.
std::vector<uint8_t> Le(uint64_t v, int bytes) {
  std::vector<uint8_t> out;
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return out;
}
std::vector<uint8_t> Str(const std::string& s) {
  std::vector<uint8_t> out = Le(s.size(), 4);
  out.insert(out.end(), s.begin(), s.end());
  return out;
}
std::vector<uint8_t> Cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
// Replaces the one occurrence of `from` by `to`; false unless there is exactly one.
bool ReplaceOnce(std::vector<uint8_t>* bytes, const std::vector<uint8_t>& from, const std::vector<uint8_t>& to) {
  auto it = std::search(bytes->begin(), bytes->end(), from.begin(), from.end());
  if (it == bytes->end() || std::search(it + 1, bytes->end(), from.begin(), from.end()) != bytes->end()) return false;
  const auto at = it - bytes->begin();
  bytes->erase(it, it + static_cast<std::ptrdiff_t>(from.size()));
  bytes->insert(bytes->begin() + at, to.begin(), to.end());
  return true;
}

TEST(Bundle, AParameterSmallerThanItsNodeIsRejected) {
  Built b = Build(kSmall);
  ASSERT_NE(b.program, nullptr);
  std::vector<uint8_t> bytes = BundleOf(b);
  // Forge a consistent-looking bundle: parameter w's record and its blob
  // values say f32[4, 2] while its node stays f32[4, 3], so the kernels
  // would read 16 bytes past the tensor.
  auto type = [](int64_t rows, int64_t cols) {
    return Cat({{1}, Str("f32"), Le(2, 4), {0}, Le(static_cast<uint64_t>(rows), 8), {0}, Le(static_cast<uint64_t>(cols), 8)});
  };
  ASSERT_TRUE(ReplaceOnce(&bytes, Cat({Str("w"), type(4, 3)}), Cat({Str("w"), type(4, 2)})));
  const std::vector<uint8_t> record = Cat({Str("G/w"), {3, 'f', '3', '2'}, Le(2, 4), Le(4, 8), Le(3, 8), Le(48, 8)});
  auto at = std::search(bytes.begin(), bytes.end(), record.begin(), record.end());
  ASSERT_NE(at, bytes.end());
  const auto values = at - bytes.begin() + static_cast<std::ptrdiff_t>(record.size());
  bytes.erase(bytes.begin() + values, bytes.begin() + values + 16);
  ASSERT_TRUE(ReplaceOnce(&bytes, record, Cat({Str("G/w"), {3, 'f', '3', '2'}, Le(2, 4), Le(4, 8), Le(2, 8), Le(32, 8)})));
  const std::vector<uint8_t> magic = {'S', 'H', 'R', 'W', 'P', 'R', 'M', '1'};
  auto blob = std::search(bytes.begin(), bytes.end(), magic.begin(), magic.end());
  ASSERT_NE(blob, bytes.end());
  const size_t blob_size = static_cast<size_t>(bytes.end() - blob);
  const std::vector<uint8_t> size = Le(blob_size, 8);
  std::copy(size.begin(), size.end(), blob - 8);

  Result<std::unique_ptr<Program>> r = LoadBundle(bytes);
  ASSERT_FALSE(r.ok()) << "a forged parameter loaded";
  EXPECT_NE(r.status().message().find("parameter 'w' is Tensor<[4, 2], f32> but its node is declared Tensor<[4, 3], f32>"),
            std::string::npos)
      << r.status().message();
}

TEST(Bundle, TamperedTypesAndUnknownOpsAreNamed) {
  Built b = Build(kSmall);
  ASSERT_NE(b.program, nullptr);
  const std::vector<uint8_t> bytes = BundleOf(b);
  // Change each stored f32 to f64 in turn: every change is caught (a type
  // no longer follows from the operands, or a parameter blob no longer
  // matches), and at least one by the type check.
  int type_errors = 0;
  for (int n = 0;; ++n) {
    std::vector<uint8_t> bad = bytes;
    if (!ReplaceString(&bad, "f32", "f64", n)) break;
    Result<std::unique_ptr<Program>> r = LoadBundle(bad);
    if (r.ok()) continue;  // e.g. the dtype of the param blob's record, checked when it loads
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
    if (r.status().message().find("stored type") != std::string::npos) ++type_errors;
    EXPECT_EQ(r.status().message().find("__"), std::string::npos) << r.status().message();
  }
  EXPECT_GT(type_errors, 0);

  // The header's default dtype (its first f32): a corrupt bundle's, not an option the caller set.
  std::vector<uint8_t> header = bytes;
  ASSERT_TRUE(ReplaceString(&header, "f32", "i32", 0));
  Result<std::unique_ptr<Program>> h = LoadBundle(header);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().message().rfind("bundle: default dtype i32 is no float dtype (at byte ", 0), 0u)
      << h.status().message();

  std::vector<uint8_t> op = bytes;
  ASSERT_TRUE(ReplaceString(&op, "relu", "reLU", 0));
  Result<std::unique_ptr<Program>> r = LoadBundle(op);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("operation 'reLU' is not known to this runtime"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("graph 'G'"), std::string::npos) << r.status().message();
}

// Names come from identifiers: well-formed UTF-8 without control or
// invisible characters. A name with a broken byte loaded before, and reached
// JS as different characters on each call; a C1 control (U+009B, a terminal's
// CSI) or a bidi override (U+202E) loaded and reached the CLI's output.
TEST(Bundle, NamesThatNoIdentifierGivesAreRejected) {
  Built b = Build(kSmall);
  ASSERT_NE(b.program, nullptr);
  const std::vector<uint8_t> bytes = BundleOf(b);
  for (const char* bad_name : {"\xC3", "\xFF", "\x01", "\xC2\x9B", "\xE2\x80\xAE", "a\xE2\x81\xA6"}) {
    for (const char* name : {"G", "y", "w"}) {
      std::vector<uint8_t> bad = bytes;
      ASSERT_TRUE(ReplaceString(&bad, name, bad_name, 0)) << name;
      Result<std::unique_ptr<Program>> r = LoadBundle(bad);
      ASSERT_FALSE(r.ok()) << name;
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(r.status().message().find("is not a well-formed name"), std::string::npos) << r.status().message();
    }
  }
}

}  // namespace
}  // namespace shrew
