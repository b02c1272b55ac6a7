// Graphs with inputs of unknown type (`input x: ?`, LANGUAGE.md §4.5): the
// JIT compiles them per input signature when they run (Program::RunnerFor),
// directly and as callees; results agree with the interpreter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "api/compile.h"
#include "api/program.h"
#include "jit/jit_test_util.h"
#include "support/heap_counter.h"

namespace shrew {
namespace {

using jit::testing::F32;
using jit::testing::MakeProgram;
using runtime::Tensor;
using runtime::TensorMap;

TensorMap One(const std::string& name, Tensor t) {
  TensorMap m;
  m.emplace(name, std::move(t));
  return m;
}

// CompileOptions::default_float typed the graphs compiled at once, while
// those compiled per input signature took ProgramOptions::default_dtype
// (f32 unless set too): G's 0.1 * 3.0 was f64 and U's f32.
TEST(DynamicInputs, PerSignatureGraphsTypeLiteralsWithTheCompilesDefaultFloat) {
  CompileOptions co;
  co.default_float = ir::DType::kF64;
  CompileResult c = Compile(
      "@graph G { input x: Tensor<[2], f32>; output c: 0.1 * 3.0; }\n"
      "@graph U { input x: ?; output c: 0.1 * 3.0; }\n",
      co);
  ASSERT_TRUE(c.ok) << c.RenderDiagnostics();
  EXPECT_EQ(c.default_float, ir::DType::kF64);
  Result<std::unique_ptr<Program>> p = Program::Create(c);  // ProgramOptions left as they are
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  for (const char* graph : {"G", "U"}) {
    for (bool interpret : {false, true}) {
      SCOPED_TRACE(std::string(graph) + (interpret ? " interpreted" : " on the tape"));
      TensorMap in = One("x", F32({2}, {1, 2}));
      Result<TensorMap> r = interpret ? (*p)->Interpret(graph, in) : (*p)->Run(graph, in);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      const Tensor& out = r->at("c");
      ASSERT_EQ(out.dtype(), ir::DType::kF64);
      EXPECT_EQ(out.values<double>()[0], 0.1 * 3.0);  // 0.30000000000000004, not f32's 0.3000000119
    }
  }
}

TEST(DynamicInputs, CompiledPerInputSignature) {
  std::unique_ptr<Program> p = MakeProgram("@graph B { input x: ?; output y: relu(x) * 2; }");
  ASSERT_NE(p, nullptr);
  // Nothing is compiled before a run, so there is no tape to show yet.
  EXPECT_EQ(p->Stats("B").status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(p->Dump("B").status().message().find("unknown type"), std::string::npos);
  EXPECT_EQ(p->executor("B"), nullptr);

  const TensorMap a = One("x", F32({3}, {-1, 0.5, 2}));
  jit::testing::RunBoth(*p, "B", a);
  Result<TensorMap> ya = p->Run("B", a);
  ASSERT_TRUE(ya.ok()) << ya.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(ya->at("y"), F32({3}, {0, 1, 4})));
  EXPECT_TRUE(p->Dump("B").ok());
  EXPECT_TRUE(p->Stats("B").ok());
  // Low-level access (benchRun) reaches the last signature's executor.
  ASSERT_NE(p->executor("B"), nullptr);
  ASSERT_NE(p->executor("B")->plan(), nullptr);
  EXPECT_TRUE(p->executor("B")->Run().ok());
  EXPECT_EQ(p->compiled("B")->input_read, std::vector<uint8_t>{1});

  // Another dtype and rank: another specialisation; the first still works.
  TensorMap b;
  b.emplace("x", Tensor::FromVector<double>(ir::DType::kF64, {2, 2}, {-3, 4, 0.25, -0.5}).value());
  jit::testing::RunBoth(*p, "B", b);
  Result<TensorMap> yb = p->Run("B", b);
  ASSERT_TRUE(yb.ok()) << yb.status().ToString();
  EXPECT_EQ(yb->at("y").dtype(), ir::DType::kF64);
  EXPECT_EQ(yb->at("y").shape(), (runtime::Shape{2, 2}));
  EXPECT_TRUE(runtime::BitwiseEqual(p->Run("B", a)->at("y"), ya->at("y")));

  // Types the graph cannot take are a run error naming the inputs; the
  // program stays usable.
  TensorMap ints;
  ints.emplace("x", Tensor::FromVector<bool>(ir::DType::kBool, {2}, {true, false}).value());
  Result<TensorMap> bad = p->Run("B", ints);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("graph 'B': relu in node 'y': relu requires a float operand, got bool"), std::string::npos)
      << bad.status().message();
  EXPECT_TRUE(p->Run("B", a).ok());
}

TEST(DynamicInputs, DumpsFollowTheLastRun) {
  std::unique_ptr<Program> p = MakeProgram("@graph B { input x: ?; output y: x * 2; }\n"
                                           "@graph C { input z: Tensor<[N], f32>; output w: B(z); }\n"
                                           "@graph F { input z: Tensor<[3], f32>; output w: B(z); }");
  ASSERT_NE(p, nullptr);
  // A caller of an untyped graph has no tape before its first run either,
  // unless its input shapes are fixed: then it is compiled for them at once,
  // as a typed graph is, and so is its callee for the call's operand.
  EXPECT_NE(p->Dump("C").status().message().find("graph 'C' calls a graph with inputs of unknown type"),
            std::string::npos)
      << p->Dump("C").status().ToString();
  ASSERT_TRUE(p->Dump("F").ok()) << p->Dump("F").status().ToString();
  EXPECT_NE(p->Dump("F")->find("call[B]"), std::string::npos);
  ASSERT_NE(p->executor("F"), nullptr);
  EXPECT_NE(p->executor("F")->plan(), nullptr);
  auto run = [&](int64_t n) {
    Result<TensorMap> out = p->Run("B", One("x", Tensor::Zeros(ir::DType::kF32, {n}).value()));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
  };
  auto dumped = [&](int64_t n) {
    Result<std::string> d = p->Dump("B");
    return d.ok() && d->find("x: f32[" + std::to_string(n) + "] arena") != std::string::npos;
  };
  EXPECT_TRUE(dumped(3)) << p->Dump("B").value();
  run(1);
  run(2);
  EXPECT_TRUE(dumped(2)) << p->Dump("B").value();
  run(1);  // reuses the first compile: the dump shows it, not the latest compiled
  EXPECT_TRUE(dumped(1));
  EXPECT_FALSE(dumped(2));
  // A recompile drops a graph's compiles; one of fixed input shapes is
  // compiled and planned again at once (benchRun failed after it).
  ASSERT_TRUE(p->Recompile("F").ok());
  ASSERT_NE(p->executor("F"), nullptr);
  EXPECT_NE(p->executor("F")->plan(), nullptr);
  // One compiled per signature keeps its last run's: its dump and stats
  // still describe that run (they said "no run of it has succeeded yet").
  const std::string last = p->Dump("B").value();
  ASSERT_TRUE(p->Recompile("B").ok());
  ASSERT_TRUE(p->Dump("B").ok()) << p->Dump("B").status().ToString();
  auto tape = [](const std::string& d) { return d.substr(d.find("\n  0:")); };  // past stats (compile_us)
  EXPECT_EQ(tape(p->Dump("B").value()), tape(last));
  ASSERT_TRUE(p->Stats("B").ok()) << p->Stats("B").status().ToString();
}

// A graph whose symbolic dims each run binds keeps its last run's plan over
// a recompile: the arena is that run's (it went back to 0, and benchRun failed).
TEST(DynamicInputs, RecompileKeepsTheLastRunsBinding) {
  std::unique_ptr<Program> p = MakeProgram("@graph S { input x: Tensor<[B], f32>; output y: relu(x) * 2.0; }");
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->Run("S", One("x", F32({3}, {-1, 0, 1}))).ok());
  ASSERT_NE(p->executor("S")->plan(), nullptr);
  const std::vector<runtime::Shape> before = p->executor("S")->plan()->input_shapes;
  ASSERT_TRUE(p->Recompile("S").ok());
  ASSERT_NE(p->executor("S")->plan(), nullptr);
  EXPECT_EQ(p->executor("S")->plan()->input_shapes, before);
  EXPECT_EQ(p->executor("S")->plan()->dims.at("B"), 3);
  Result<TensorMap> out = p->Run("S", One("x", F32({3}, {-1, 0, 1})));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("y"), F32({3}, {0, 0, 2})));
}

// A run-time shape error reads the same on both executors; its position is
// the status's span, not part of the text (the tape's said "at model.sw:4:3:"
// and the CLI then quoted the position twice).
TEST(DynamicInputs, RunTimeShapeErrorsReadAlikeWithThePositionInTheSpan) {
  CompileOptions copts;
  copts.filename = "model.sw";
  std::unique_ptr<Program> p = MakeProgram(
      "@graph U {\n"
      "  input x: ?;\n"
      "  param w: Tensor<[2, 4], f32> { init: \"zeros\"; };\n"
      "  output y: matmul(x, w);\n"
      "}\n",
      {}, copts);
  ASSERT_NE(p, nullptr);
  const TensorMap x = One("x", Tensor::Zeros(ir::DType::kF32, {2, 3}).value());
  for (bool interpret : {false, true}) {
    Result<TensorMap> shape = interpret ? p->Interpret("U", x) : p->Run("U", x);
    ASSERT_FALSE(shape.ok());
    EXPECT_EQ(shape.status().message(),
              "graph 'U': node 'y' (matmul): matmul inner dimensions 3 and 2 differ (operands [2, 3] and [2, 4])");
    EXPECT_EQ(shape.status().span().line, 4u);
    EXPECT_EQ(shape.status().span().column, 3u);
  }
}

// The same failure reads the same on both executors, at the same place,
// named as the source wrote it: a node the optimiser fused is the node the
// user declared, its operations as written (it read
// "[G::y_fused_matmul_add]" on the tape, "node 'y_fused_matmul_add'
// (fused_matmul_add)" in the interpreter).
TEST(DynamicInputs, RunTimeShapeErrorsReadTheSameOnBothExecutors) {
  struct Case {
    std::string source;
    TensorMap inputs;
    std::string message;
    uint32_t line, column;
  };
  auto zeros = [](runtime::Shape shape) { return Tensor::Zeros(ir::DType::kF32, std::move(shape)).value(); };
  auto two = [&](const char* a, runtime::Shape sa, const char* b, runtime::Shape sb) {
    TensorMap m;
    m.emplace(a, zeros(std::move(sa)));
    m.emplace(b, zeros(std::move(sb)));
    return m;
  };
  TensorMap fused_in = two("a", {2, 3}, "w", {3, 4});
  fused_in.emplace("b", zeros({5}));
  std::vector<Case> cases;
  cases.push_back({"@graph G { input x: Tensor<[B, C], f32>; output y: reshape(x, shape: [5, -1]); }",
                   One("x", zeros({2, 3})),
                   "graph 'G': node 'y' (reshape): cannot reshape [2, 3] (6 elements) to [5, -1]: 6 is not a multiple "
                   "of 5, the other sizes' product",
                   1, 42});
  cases.push_back({"@graph G { input a: Tensor<[?, ?], f32>; input w: Tensor<[?, ?], f32>; output y: linear(a, w); }",
                   two("a", {2, 3}, "w", {4, 4}),
                   "graph 'G': node 'y' (linear): linear input has 3 features but the weight has shape [4, 4] ([out, in])",
                   1, 72});
  cases.push_back({"@graph G -> Tensor<[2, 5], f32> {\n  input x: Tensor<[2, ?], f32>;\n  output y: relu(x);\n}",
                   One("x", zeros({2, 4})),
                   "graph 'G': the header declares -> Tensor<[2, 5], f32> but its first output 'y' is Tensor<[2, 4], f32>", 3,
                   3});
  cases.push_back({"@graph G {\n  input a: Tensor<[?, ?], f32>; input w: Tensor<[?, ?], f32>; input b: Tensor<[?], f32>;\n"
                   "  output y: matmul(a, w) + b;\n}",
                   std::move(fused_in), "graph 'G': node 'y' (matmul + add): shapes [2, 4] and [5] cannot be broadcast",
                   3, 3});
  cases.push_back({"@graph G {\n  input x: Tensor<[?], f32>; input z: Tensor<[?], f32>;\n  node h { op: relu(x - z); };\n"
                   "  output h;\n}",
                   two("x", {2}, "z", {3}), "graph 'G': node 'h' (sub + relu): shapes [2] and [3] cannot be broadcast", 3,
                   21});  // at `x - z`: a relu cannot fail
  // The fused producer a node of its own: its name and line (the matmul's
  // error was marked on the relu's statement).
  cases.push_back({"@graph G {\n  input x: Tensor<[?, ?], f32>; input w: Tensor<[?, ?], f32>;\n"
                   "  node m { op: matmul(x, w); };\n  output y: relu(m);\n}",
                   two("x", {2, 3}, "w", {5, 4}),
                   "graph 'G': node 'm' (matmul + relu): matmul inner dimensions 3 and 5 differ (operands [2, 3] and [5, 4])",
                   3, 3});
  cases.push_back({"@graph G {\n  input x: Tensor<[?], f32>; input z: Tensor<[?], f32>;\n  node a { op: x + z; };\n"
                   "  output y: relu(a);\n}",
                   two("x", {2}, "z", {3}), "graph 'G': node 'a' (add + relu): shapes [2] and [3] cannot be broadcast", 3,
                   3});
  // A fused op the source wrote, in a node whose name looks fused: another
  // node has the name before the suffix, so this one keeps its own.
  cases.push_back({"@graph G {\n  input x: Tensor<[?], f32>; input z: Tensor<[?], f32>;\n  node h { op: x * 2.0; };\n"
                   "  node h_fused { op: fused_add_relu(h, z); };\n  output h_fused;\n}",
                   two("x", {2}, "z", {3}),
                   "graph 'G': node 'h_fused' (fused_add_relu): shapes [2] and [3] cannot be broadcast", 4, 3});
  // A caller typed per run, its callee failing: the caller's graph is named
  // on the tape too (it began "node 'c' (call[F])").
  cases.push_back({"@graph F { input a: Tensor<[N], f32>; input b: Tensor<[M], f32>; output r: a + b; }\n"
                   "@graph G { input x: ?; input z: Tensor<[?], f32>; node c { op: F(x, z); }; output c; }",
                   two("x", {2}, "z", {3}),
                   "graph 'G': node 'c' (call[F]): graph 'F': node 'r' (add): shapes [2] and [3] cannot be broadcast", 1,
                   66});
  // Ops whose two executors worded the same failure apart (the interpreter's
  // own checks against the shape rule's), one wording each now, at the node.
  auto node_at = [](const std::string& src) { return static_cast<uint32_t>(src.find("output y") + 1); };
  for (const auto& [src, inputs, message] : std::vector<std::tuple<std::string, TensorMap, std::string>>{
           {"@graph G { input x: Tensor<[?, ?], f32>; output y: split(x, chunks: 2, dim: 0, index: 3); }",
            One("x", zeros({4, 3})),
            "graph 'G': node 'y' (split): split index 3 does not exist: an axis of size 4 in 2 chunks gives 2 chunks"},
           {"@graph G { input a: Tensor<[?, ?], f32>; input b: Tensor<[?, ?], f32>; output y: concat(a, b, dim: 1); }",
            two("a", {2, 3}, "b", {4, 3}),
            "graph 'G': node 'y' (concat): concat operand 1 has shape [4, 3], operand 0 [2, 3]: sizes 2 and 4 on axis 0 "
            "(only axis 1, the one joined, may differ)"},
           {"@graph G { input a: Tensor<[?, ?], f32>; input w: Tensor<[?], f32>; output y: layer_norm(a, w); }",
            two("a", {2, 3}, "w", {4}),
            "graph 'G': node 'y' (layer_norm): layer_norm weight of shape [4] does not broadcast to the input shape [2, 3]"},
           {"@graph G { input a: Tensor<[?, ?, ?], f32>; input b: Tensor<[?, ?, ?], f32>; output y: matmul(a, b); }",
            two("a", {2, 3, 3}, "b", {3, 3, 2}),
            "graph 'G': node 'y' (matmul): matmul batch dimensions [2] and [3] cannot be broadcast (operands [2, 3, 3] and "
            "[3, 3, 2])"}}) {
    cases.push_back({src, inputs, message, 1, node_at(src)});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    std::unique_ptr<Program> p = MakeProgram(c.source);
    ASSERT_NE(p, nullptr);
    for (bool interpret : {false, true}) {
      Result<TensorMap> out = interpret ? p->Interpret("G", c.inputs) : p->Run("G", c.inputs);
      ASSERT_FALSE(out.ok()) << (interpret ? "interpreter" : "tape");
      EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(out.status().message(), c.message) << (interpret ? "interpreter" : "tape");
      EXPECT_EQ(out.status().span().line, c.line) << (interpret ? "interpreter" : "tape");
      EXPECT_EQ(out.status().span().column, c.column) << (interpret ? "interpreter" : "tape");
    }
  }
}

// A fused relu with a declared type can fail itself: its failure is its
// own, not its producer's (the fusion's blame named 'a' at a's line).
TEST(DynamicInputs, AFusedReluWithADeclaredTypeIsBlamedForIt) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G {\n  input x: Tensor<[?], f32>; input z: Tensor<[?], f32>;\n  node a { op: x + z; };\n"
      "  node r: Tensor<[3], f32> { op: relu(a); };\n  output y: r;\n}");
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", Tensor::Zeros(ir::DType::kF32, {2}).value());
  in.emplace("z", Tensor::Zeros(ir::DType::kF32, {2}).value());
  for (bool interpret : {false, true}) {
    Result<TensorMap> out = interpret ? p->Interpret("G", in) : p->Run("G", in);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("graph 'G': node 'r' (add + relu): "), std::string::npos)
        << out.status().message();
    EXPECT_EQ(out.status().span().line, 4u) << out.status().message();
  }
}

// In a graph with an untyped input, a dim the other inputs' declared types
// bind is bound for the interpreter too (it re-typed every input with fixed
// sizes and lost N: "unresolved symbolic dimension 'N'", where the tape ran).
TEST(DynamicInputs, DimsOfTypedInputsBindInAGraphWithAnUntypedOne) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G { input x: ?; input n: Tensor<[N], f32>; output y: expand(x, shape: [N, 3]); }");
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", F32({1, 1}, {5}));
  in.emplace("n", Tensor::Zeros(ir::DType::kF32, {2}).value());
  for (bool interpret : {false, true}) {
    Result<TensorMap> out = interpret ? p->Interpret("G", in) : p->Run("G", in);
    ASSERT_TRUE(out.ok()) << (interpret ? "interpreter: " : "tape: ") << out.status().ToString();
    EXPECT_EQ(out->at("y").shape(), (runtime::Shape{2, 3}));
    EXPECT_EQ(out->at("y").GetDouble(5), 5.0);
  }
}

// A shape too large to count, found at run time, is the same resource limit
// on both executors (the tape said invalid_argument).
TEST(DynamicInputs, AShapeTooLargeToCountIsResourceExhaustedOnBothExecutors) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G { input x: ?; input n: Tensor<[N], f32>; output y: expand(x, shape: [N, N, N]); }");
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", Tensor::Zeros(ir::DType::kF32, {1, 1, 1}).value());
  in.emplace("n", Tensor::Zeros(ir::DType::kF32, {int64_t{1} << 22}).value());  // 2^66 elements
  Result<TensorMap> tape = p->Run("G", in);
  Result<TensorMap> interp = p->Interpret("G", in);
  ASSERT_FALSE(tape.ok());
  ASSERT_FALSE(interp.ok());
  EXPECT_EQ(tape.status().code(), StatusCode::kResourceExhausted) << tape.status().ToString();
  EXPECT_EQ(interp.status().code(), StatusCode::kResourceExhausted) << interp.status().ToString();
}

// Both executors fail a run whose specialised types contradict a node's
// declared type (T6, checked at run time because x is `?`), with the node
// and both types in the message, pointing at the node (Status::span).
void ExpectDeclaredTypeError(Program& p, const TensorMap& in, const std::string& message, uint32_t line,
                             uint32_t column = 3) {
  Result<TensorMap> jit = p.Run("G", in);
  ASSERT_FALSE(jit.ok()) << "tape run succeeded";
  EXPECT_NE(jit.status().message().find(message), std::string::npos) << jit.status().message();
  EXPECT_EQ(jit.status().span().line, line) << jit.status().message();
  EXPECT_EQ(jit.status().span().column, column);
  Result<TensorMap> ref = p.Interpret("G", in);
  ASSERT_FALSE(ref.ok()) << "interpreter run succeeded";
  EXPECT_NE(ref.status().message().find(message), std::string::npos) << ref.status().message();
  EXPECT_EQ(ref.status().span().line, line) << ref.status().message();
  EXPECT_EQ(ref.status().span().column, column);
}

// QA A1: identity elimination bypassed `y`, and with it the only check of
// its declared type; an i64[3] input came out as `y: i64[3]`. Written
// `relu(x)` it failed as it should: both spellings fail alike now.
TEST(DynamicInputs, DeclaredTypeOfAnAliasIsCheckedAtRunTime) {
  for (const char* op : {"x", "relu(x)"}) {
    SCOPED_TRACE(op);
    std::unique_ptr<Program> p = MakeProgram(std::string("@graph G {\n  input x: ?;\n  node y: Tensor<[2], f32> { op: ") +
                                             op + "; };\n  output y;\n}\n");
    ASSERT_NE(p, nullptr);
    ExpectDeclaredTypeError(*p, One("x", Tensor::FromVector<double>(ir::DType::kF64, {3}, {1, 2, 3}).value()),
                            std::string("graph 'G': node 'y' (") + (std::string(op) == "x" ? "identity" : "relu") +
                                "): declared type Tensor<[2], f32> does not match inferred type Tensor<[3], f64>",
                            3);
    if (std::string(op) == "x") {  // QA's input (relu rejects integers before T6)
      ExpectDeclaredTypeError(*p, One("x", Tensor::FromVector<int64_t>(ir::DType::kI64, {3}, {1, 2, 3}).value()),
                              "graph 'G': node 'y' (identity): declared type Tensor<[2], f32> does not match inferred type "
                              "Tensor<[3], i64>",
                              3);
    }
    const TensorMap ok = One("x", F32({2}, {0.5, 2}));
    jit::testing::RunBoth(*p, "G", ok);
  }
}

// A node declared [M] whose operand is [N] compiles (M and N may be one
// size) and is checked on every run, by both executors.
TEST(DynamicInputs, DeclaredNameAgainstAnotherNameIsCheckedAtRunTime) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G(a: Tensor<[M], f32>, b: Tensor<[N], f32>) {\n"
      "  node s: Tensor<[M], f32> { op: relu(b); };\n"
      "  output y: a + s;\n"
      "}\n");
  ASSERT_NE(p, nullptr);
  TensorMap same = One("a", F32({3}, {1, 2, 3}));
  same.emplace("b", F32({3}, {-1, 5, 0.5}));
  Result<TensorMap> out = p->Run("G", same);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("y"), F32({3}, {1, 7, 3.5})));
  jit::testing::RunBoth(*p, "G", same);

  TensorMap other = One("a", F32({3}, {1, 2, 3}));
  other.emplace("b", F32({4}, {-1, 5, 0.5, 2}));
  ExpectDeclaredTypeError(*p, other, "Tensor<[3], f32>", 2);
  // The program is still usable after the failed runs.
  jit::testing::RunBoth(*p, "G", same);
}

// LANGUAGE.md §4.1: M, which nothing binds, takes the size of y's value in
// a run; z's [M] is held to it. Both returned [2] and [3] as two "[M]"s.
TEST(DynamicInputs, ADeclaredNameNothingBindsIsOneSizeInARun) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G(a: Tensor<[N], f32>, b: Tensor<[P], f32>) {\n"
      "  node y: Tensor<[M], f32> { op: a * 2; };\n"
      "  node z: Tensor<[M], f32> { op: b * 2; };\n"
      "  output y;\n"
      "  output z;\n"
      "}\n");
  ASSERT_NE(p, nullptr);
  TensorMap in = One("a", F32({2}, {1, 2}));
  in.emplace("b", F32({3}, {1, 2, 3}));
  ExpectDeclaredTypeError(*p, in, "dimension 0 is 3 but M is 2 (bound by node 'y')", 3);
  in.insert_or_assign("a", F32({3}, {1, 2, 3}));
  TensorMap out = jit::testing::RunBothBitwise(*p, "G", in);
  ASSERT_FALSE(out.empty());
  EXPECT_TRUE(runtime::BitwiseEqual(out.at("y"), F32({3}, {2, 4, 6})));
}

// Session 27 QA: inference refines h's declared [N] to the [3] it infers
// from x, so the interpreter checked h against [3] and returned it, while
// the tape (y binds N = 1) failed. Both fail now; N = 3 runs.
TEST(DynamicInputs, DeclaredNameBoundByAnotherInputIsCheckedOnBothExecutors) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G(x: Tensor<[3], f32>, y: Tensor<[N], f32>) {\n"
      "  node h: Tensor<[N], f32> { op: relu(x); };\n"
      "  output h;\n"
      "  output y;\n"
      "}\n");
  ASSERT_NE(p, nullptr);
  TensorMap in = One("x", F32({3}, {-1, 2, 3}));
  in.emplace("y", F32({1}, {10}));
  ExpectDeclaredTypeError(*p, in, "Tensor<[1], f32>", 2);
  in.insert_or_assign("y", F32({3}, {1, 2, 3}));
  Result<TensorMap> out = p->Run("G", in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("h"), F32({3}, {0, 2, 3})));
  jit::testing::RunBoth(*p, "G", in);
}

// QA A2: CSE merged b into a, so b's check was lost and the run returned
// `b: f64[2]` for a node declared Tensor<[3], f64>.
TEST(DynamicInputs, DuplicatesWithDifferentDeclaredTypesAreEachChecked) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G {\n"
      "  input x: ?;\n"
      "  node a: Tensor<[2], f64> { op: relu(x); };\n"
      "  node b: Tensor<[3], f64> { op: relu(x); };\n"
      "  output a;\n"
      "  output b;\n"
      "}\n");
  ASSERT_NE(p, nullptr);
  ExpectDeclaredTypeError(*p, One("x", Tensor::FromVector<double>(ir::DType::kF64, {2}, {-1, 2}).value()),
                          "graph 'G': node 'b' (relu): declared type Tensor<[3], f64> does not match inferred type "
                          "Tensor<[2], f64>",
                          4);
  ExpectDeclaredTypeError(*p, One("x", Tensor::FromVector<double>(ir::DType::kF64, {3}, {-1, 2, 3}).value()),
                          "graph 'G': node 'a' (relu): declared type Tensor<[2], f64> does not match inferred type "
                          "Tensor<[3], f64>",
                          3);
}

TEST(DynamicInputs, LiteralsTakeTheInputsDtypesAfterOptimisation) {
  // The optimiser must leave the literals of such a graph alone: folded,
  // 1 / 2 was the i64 0 (y was 0); merged, the `1` of a and of b was one
  // constant that could not be both f32 and f64.
  std::unique_ptr<Program> p = MakeProgram(
      "@graph B { input x: ?; input z: ?; output y: x * (1 / 2); output a: x + 1; output b: z + 1; }");
  ASSERT_NE(p, nullptr);
  TensorMap in = One("x", F32({3}, {2, 4, -6}));
  in.emplace("z", Tensor::FromVector<double>(ir::DType::kF64, {2}, {0.5, -1}).value());
  jit::testing::RunBoth(*p, "B", in);
  Result<TensorMap> out = p->Run("B", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("y"), F32({3}, {1, 2, -3})));
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("a"), F32({3}, {3, 5, -5})));
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("b"), Tensor::FromVector<double>(ir::DType::kF64, {2}, {1.5, 0}).value()));
}

// Once the inputs' types are known, the graph is optimised again: its
// literals fold and merge in those dtypes, which the generic graph could not.
TEST(DynamicInputs, EachSignatureIsOptimisedWithTheProgramsPasses) {
  const char* source = "@graph B { input x: ?; output y: x * (1 / 2) + x * (1 / 2); output z: relu(x - 1); }";
  auto ops = [](const Program& p) {
    std::string s;
    for (const ir::Node& n : p.compiled("B")->graph.nodes()) {
      if (!n.is_source() && n.op != ir::OpKind::kConstant) s += std::string(ir::OpName(n.op)) + " ";
    }
    return s;
  };
  auto check = [&](CompileOptions copts, const std::string& expected) {
    std::unique_ptr<Program> p = MakeProgram(source, {}, copts);
    ASSERT_NE(p, nullptr);
    for (ir::DType dtype : {ir::DType::kF32, ir::DType::kF64}) {
      const TensorMap in = One("x", jit::testing::RandomTensor(dtype, {5}, 11));
      jit::testing::RunBoth(*p, "B", in);
      Result<TensorMap> out = p->Run("B", in);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      const Tensor& x = in.at("x");
      for (int64_t i = 0; i < 5; ++i) {
        const double v = x.GetDouble(i);
        // 1 / 2 takes x's dtype: 0.5, not the integer 0.
        EXPECT_EQ(out->at("y").GetDouble(i), v * 0.5 + v * 0.5) << ir::DTypeName(dtype) << " " << i;
        EXPECT_EQ(out->at("z").GetDouble(i), std::max(v - 1, 0.0)) << ir::DTypeName(dtype) << " " << i;
      }
      EXPECT_EQ(ops(*p), expected) << ir::DTypeName(dtype);
    }
  };
  check({}, "mul add fused_sub_relu ");
  CompileOptions no_fold;
  no_fold.passes.const_fold = false;
  check(no_fold, "div mul add fused_sub_relu ");
  CompileOptions none;
  none.optimize = false;
  check(none, "div mul div mul add sub relu ");
}

// The interpreter runs the generic graph, computing literal arithmetic in
// the inputs' dtypes at run time; the optimised compile must fold to exactly
// that (folded in double, 16777217 - 16777216 was 1 in f32, where 16777217
// is 16777216); u8 wraps modulo 256 (OPS.md §1.3), (200 + 100) / 2 is 22.
TEST(DynamicInputs, FoldingForASignatureChangesNoValue) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph F(x: ?) -> ? { output y: x + (16777217 - 16777216); output z: x * (0.1 * 0.1); }\n"
      "@graph I(x: ?) -> ? { output w: x + (200 + 100) / 2; }\n"
      "@graph C { input x: Tensor<[1], f32>; output y: F(x); }\n");
  ASSERT_NE(p, nullptr);
  auto both = [&](const char* graph, const TensorMap& in) { return jit::testing::RunBothBitwise(*p, graph, in); };
  TensorMap f32 = both("F", One("x", F32({2}, {0, 1})));
  ASSERT_FALSE(f32.empty());
  EXPECT_TRUE(runtime::BitwiseEqual(f32.at("y"), F32({2}, {0, 1})));
  EXPECT_EQ(f32.at("z").values<float>()[1], 0.1f * 0.1f);
  TensorMap f64 = both("F", One("x", Tensor::FromVector<double>(ir::DType::kF64, {1}, {1}).value()));
  ASSERT_FALSE(f64.empty());
  EXPECT_EQ(f64.at("y").GetDouble(0), 2.0);
  EXPECT_EQ(f64.at("z").GetDouble(0), 0.1 * 0.1);
  TensorMap called = both("C", One("x", F32({1}, {0})));
  ASSERT_FALSE(called.empty());
  EXPECT_EQ(called.at("y").GetDouble(0), 0.0);
  TensorMap u8 = both("I", One("x", Tensor::FromVector<uint8_t>(ir::DType::kU8, {1}, {5}).value()));
  ASSERT_FALSE(u8.empty());
  EXPECT_EQ(u8.at("w").GetInt64(0), 5 + 22);
  TensorMap i32 = both("I", One("x", Tensor::FromVector<int64_t>(ir::DType::kI32, {1}, {5}).value()));
  ASSERT_FALSE(i32.empty());
  EXPECT_EQ(i32.at("w").GetInt64(0), 5 + 150);
  // And the compile folded them: no literal arithmetic is left.
  for (const char* g : {"F", "I"}) {
    for (const ir::Node& n : p->compiled(g)->graph.nodes()) {
      if (n.is_source() || n.operands.size() != 2) continue;
      EXPECT_FALSE(p->compiled(g)->graph.node(n.operands[0]).op == ir::OpKind::kConstant &&
                   p->compiled(g)->graph.node(n.operands[1]).op == ir::OpKind::kConstant)
          << g << ": " << n.name;
    }
  }
}

// The same for typed graphs: folding computes in the node's dtype, so the
// optimised compile, the unoptimised one and a `?` graph agree bit for bit
// (folded in double, x * (1e-50 * 1e50) was x on f32 where the graph gives
// NaN, and (1e30 * 1e30) / 1e30 was 1e30 where it gives inf).
TEST(DynamicInputs, FoldingATypedGraphChangesNoValue) {
  const std::string source =
      "@graph T { input x: Tensor<[1], f32>; output a: x * (1e-50 * 1e50); output b: x * (1e30 * 1e30 / 1e30);"
      " output c: x * (16777217 - 1); }\n"
      "@graph D { input x: ?; output a: x * (1e-50 * 1e50); output b: x * (1e30 * 1e30 / 1e30);"
      " output c: x * (16777217 - 1); }\n"
      "@graph U { input u: Tensor<[1], u8>; output w: u + (200 + 100); output v: u + (3 - 5) / 2; }\n";
  CompileOptions plain;
  plain.optimize = false;
  std::unique_ptr<Program> opt = MakeProgram(source), none = MakeProgram(source, {}, plain);
  ASSERT_NE(opt, nullptr);
  ASSERT_NE(none, nullptr);
  const TensorMap x = One("x", F32({1}, {1}));
  const float inf = std::numeric_limits<float>::infinity();
  for (Program* p : {opt.get(), none.get()}) {
    for (const char* g : {"T", "D"}) {
      TensorMap out = jit::testing::RunBothBitwise(*p, g, x);
      ASSERT_FALSE(out.empty()) << g;
      EXPECT_TRUE(std::isnan(out.at("a").values<float>()[0])) << g;  // 0 * inf in f32
      EXPECT_EQ(out.at("b").values<float>()[0], inf) << g;
      EXPECT_EQ(out.at("c").values<float>()[0], 16777215.0f) << g;
    }
    TensorMap u = jit::testing::RunBothBitwise(*p, "U", One("u", Tensor::FromVector<uint8_t>(ir::DType::kU8, {1}, {1}).value()));
    ASSERT_FALSE(u.empty());
    EXPECT_EQ(u.at("w").GetInt64(0), 1 + 44);   // 300 wraps to 44
    EXPECT_EQ(u.at("v").GetInt64(0), 1 + 127);  // 3 - 5 is 254, halved 127
  }
  // And the optimised compile folded them.
  EXPECT_EQ(Compile(source).stats.constants_folded, 7);  // T: 1 + 2 + 1, U: 1 + 2
}

TEST(DynamicInputs, LiteralsOfFusedOpsTakeTheInputsDtype) {
  // Fusion makes relu(x - 1) fused_sub_relu(x, 1), relu(x + 0.5)
  // fused_add_relu and matmul(x, w) + 1 fused_matmul_add; each run re-infers
  // the literal, which must adopt x's dtype as in the sub or add (every run
  // failed with "dtype mismatch: f32 and i64").
  std::unique_ptr<Program> p = MakeProgram(
      "@graph B { input x: ?; input w: ?; output r: relu(x - 1); output s: relu(x + 0.5);"
      " output m: matmul(x, w) + 1; }");
  ASSERT_NE(p, nullptr);
  TensorMap in = One("x", F32({1, 3}, {2, 4, -6}));
  in.emplace("w", F32({3, 1}, {1, 1, 1}));
  jit::testing::RunBoth(*p, "B", in);
  Result<TensorMap> out = p->Run("B", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("r"), F32({1, 3}, {1, 3, 0})));
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("s"), F32({1, 3}, {2.5, 4.5, 0})));
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("m"), F32({1, 1}, {1})));
}

TEST(DynamicInputs, FusedOpsOfLiteralsOnlyTypeAsTheUnfusedPair) {
  // relu(Margin - Shift) of two literals is fused_sub_relu(2, 1) in a graph
  // typed per run (folding waits for the types); its literals must take a
  // float dtype as relu of the sub does, then x's: every run failed with
  // "fused_sub_relu requires a float operand, got i64", and an f64 x with
  // "dtype mismatch: f64 and f32".
  std::unique_ptr<Program> p = MakeProgram(
      "@config { Margin: 2; Shift: 1; }\n"
      "@graph G { input x: ?;\n"
      "  node c: Tensor<[], f64> { op: relu(0.1 + 0.2); };\n"
      "  output y: x * relu(Margin - Shift);\n"
      "  output z: x - relu(0.5 + 2);\n"
      "  output c;\n"
      "}\n");
  ASSERT_NE(p, nullptr);
  TensorMap in = One("x", F32({2}, {1, 2}));
  TensorMap out = jit::testing::RunBothBitwise(*p, "G", in);
  ASSERT_FALSE(out.empty());
  EXPECT_TRUE(runtime::BitwiseEqual(out.at("y"), F32({2}, {1, 2})));
  EXPECT_TRUE(runtime::BitwiseEqual(out.at("z"), F32({2}, {-1.5F, -0.5F})));
  // The declared f64 is the sum's dtype: 0.1 + 0.2 in double.
  EXPECT_TRUE(runtime::BitwiseEqual(out.at("c"), Tensor::FromVector<double>(ir::DType::kF64, {}, {0.1 + 0.2}).value()));
  in.insert_or_assign("x", Tensor::FromVector<double>(ir::DType::kF64, {2}, {1, 2}).value());
  out = jit::testing::RunBothBitwise(*p, "G", in);
  ASSERT_FALSE(out.empty());
  EXPECT_TRUE(runtime::BitwiseEqual(out.at("y"), Tensor::FromVector<double>(ir::DType::kF64, {2}, {1, 2}).value()));
  EXPECT_TRUE(runtime::BitwiseEqual(out.at("z"), Tensor::FromVector<double>(ir::DType::kF64, {2}, {-1.5, -0.5}).value()));

  // Written out in a typed graph, the fused op's literals adopt x's f64 too.
  p = MakeProgram("@graph T(x: Tensor<[2], f64>) { output y: x - fused_add_relu(1, 2); }");
  ASSERT_NE(p, nullptr);
  out = jit::testing::RunBothBitwise(*p, "T", One("x", Tensor::FromVector<double>(ir::DType::kF64, {2}, {5, 0.5}).value()));
  ASSERT_FALSE(out.empty());
  EXPECT_TRUE(runtime::BitwiseEqual(out.at("y"), Tensor::FromVector<double>(ir::DType::kF64, {2}, {2, -2.5}).value()));
}

TEST(DynamicInputs, CalleeWithUnknownInputTypes) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph Scale(v: ?) -> ? { output y: v * 3; }\n"
      "@graph A { input a: Tensor<[N, 2], f32>; output o: Scale(a) + 1; }\n");
  ASSERT_NE(p, nullptr);
  for (int64_t n : {1, 4}) {
    TensorMap in = One("a", jit::testing::RandomTensor(ir::DType::kF32, {n, 2}, 3));
    jit::testing::RunBoth(*p, "A", in);
    Result<TensorMap> out = p->Run("A", in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& x = in.at("a");
    for (int64_t i = 0; i < 2 * n; ++i) {
      EXPECT_EQ(out->at("o").GetDouble(i), static_cast<double>(x.values<float>()[i] * 3.0f + 1.0f)) << i;
    }
  }
}

// A typed graph that calls a `?` graph has no executor of its own either
// (it is compiled per input signature too); its call runs the executor the
// callee was compiled with for the call's operands, through a call kernel.
TEST(DynamicInputs, TypedGraphCallingAnUntypedOne) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph Scale(v: ?) -> ? { output y: v * 3; }\n"
      "@graph Mid(m: Tensor<[2], f32>) { output y: Scale(m); }\n"
      "@graph Top { input t: Tensor<[2], f32>; output o: Mid(t) + 1; }\n");
  ASSERT_NE(p, nullptr);
  const TensorMap in = One("t", F32({2}, {1, -2}));
  jit::testing::RunBoth(*p, "Top", in);
  Result<TensorMap> out = p->Run("Top", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("o"), F32({2}, {4, -5})));
  for (const char* g : {"Top", "Mid"}) {
    Result<jit::CompileStats> stats = p->Stats(g);
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    EXPECT_EQ(stats->num_ref_kernels, 0) << g;
  }
  EXPECT_NE(p->Dump("Mid")->find("call"), std::string::npos);
}

// The call kernel finds the callee's executor for its operands on every run:
// after SetParam (which drops the callee's specialisations: they packed the
// old values), after other signatures pushed it out of the callee's most
// recently used ones, and with two calls of one `?` graph at different types.
TEST(DynamicInputs, CallsOfAnUntypedGraphFollowParameterChangesAndOtherSignatures) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph Scale(v: ?) -> ? { param w: Tensor<[2], f32> { init: \"ones\"; }; output y: v * w; }\n"
      "@graph Top { input t: Tensor<[3, 2], f32>; input u: Tensor<[2], f32>;"
      " output o: Scale(t) + 1; output q: Scale(u); }\n");
  ASSERT_NE(p, nullptr);
  TensorMap in = One("t", F32({3, 2}, {1, 2, 3, 4, 5, 6}));
  in.emplace("u", F32({2}, {-1, 7}));
  auto expect = [&](float w0, float w1) {
    jit::testing::RunBoth(*p, "Top", in);
    Result<TensorMap> out = p->Run("Top", in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE(runtime::BitwiseEqual(out->at("o"), F32({3, 2}, {1 * w0 + 1, 2 * w1 + 1, 3 * w0 + 1, 4 * w1 + 1,
                                                                 5 * w0 + 1, 6 * w1 + 1})));
    EXPECT_TRUE(runtime::BitwiseEqual(out->at("q"), F32({2}, {-1 * w0, 7 * w1})));
  };
  expect(1, 1);
  expect(1, 1);
  EXPECT_EQ(p->Stats("Top")->num_ref_kernels, 0);

  ASSERT_TRUE(p->SetParam("Scale/w", F32({2}, {2, -3})).ok());
  expect(2, -3);

  // Nine other signatures of the callee: Top's two are no longer among its
  // eight most recent; Top compiles them again and still gets the values.
  for (int64_t n = 1; n <= 9; ++n) {
    ASSERT_TRUE(p->Run("Scale", One("v", Tensor::Zeros(ir::DType::kF32, {n + 3, 2}).value())).ok());
  }
  expect(2, -3);
  ASSERT_TRUE(p->SetParam("Scale/w", F32({2}, {0.5, 4})).ok());
  expect(0.5, 4);
}

// More call sites of one `?` graph, at different shapes, than the graph keeps
// compiles of: each call keeps its own, so a steady run compiles nothing
// (it compiled the ten anew on every run).
TEST(DynamicInputs, ManyCallSitesOfAnUntypedGraphCompileOnce) {
  std::string source = "@graph Twice(v: ?) -> ? { output y: v * 2; }\n@graph Top {";
  TensorMap in;
  for (int k = 1; k <= 10; ++k) {
    const std::string n = std::to_string(k);
    source += " input a" + n + ": Tensor<[" + n + "], f32>; output o" + n + ": Twice(a" + n + ");";
    in.emplace("a" + n, jit::testing::RandomTensor(ir::DType::kF32, {k}, static_cast<uint32_t>(k)));
  }
  std::unique_ptr<Program> p = MakeProgram(source + " }");
  ASSERT_NE(p, nullptr);
  const jit::CompiledGraph* latest = nullptr;
  for (int run = 0; run < 3; ++run) {
    jit::testing::RunBoth(*p, "Top", in);
    Result<TensorMap> out = p->Run("Top", in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (int k = 1; k <= 10; ++k) {
      const Tensor& a = in.at("a" + std::to_string(k));
      const Tensor& o = out->at("o" + std::to_string(k));
      ASSERT_EQ(o.num_elements(), k);
      for (int i = 0; i < k; ++i) EXPECT_EQ(o.values<float>()[i], a.values<float>()[i] * 2) << k;
    }
    if (run > 0) EXPECT_EQ(p->compiled("Twice"), latest) << run;
    latest = p->compiled("Twice");
  }
}

// G0(z) = z + 1, Gi(z) = Gi-1(z) + Gi-1(2z): Gi(z) = 3^i·z + 2^i, with
// 2^i calls of G0 below Gi, all with one operand type.
std::string UntypedChain(int levels) {
  std::string source = "@graph G0 { input z: ?; output o: z + 1.0; }\n";
  for (int i = 1; i <= levels; ++i) {
    const std::string n = std::to_string(i), prev = std::to_string(i - 1);
    source += "@graph G" + n + " { input z: ?; output o: G" + prev + "(z) + G" + prev + "(z * 2.0); }\n";
  }
  return source + "@graph Top { input x: Tensor<[2], f32>; output y: G" + std::to_string(levels) + "(x); }\n";
}

TEST(DynamicInputs, ACalleeCalledTwiceWithTheSameTypesIsSpecialisedOnce) {
  // Each level's two calls share their operand types: specialising Top
  // types each graph once, not once per call path (2^40 here).
  std::unique_ptr<Program> deep = MakeProgram(UntypedChain(40));
  ASSERT_NE(deep, nullptr);
  // Running it would take 2^40 calls: refused by the step limit, up front.
  const TensorMap x = One("x", F32({2}, {1, 2}));
  Result<TensorMap> refused = deep->Run("Top", x);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted) << refused.status().ToString();
  // A graph of the chain, typed for another dtype by its first run.
  Result<Tensor> z = Tensor::FromVector<double>(ir::DType::kF64, {2}, {1, 2});
  ASSERT_TRUE(z.ok());
  Result<TensorMap> g3 = deep->Run("G3", One("z", *z));
  ASSERT_TRUE(g3.ok()) << g3.status().ToString();
  EXPECT_EQ(g3->at("o").values<double>()[0], 27 + 8);
  EXPECT_EQ(g3->at("o").values<double>()[1], 54 + 8);

  std::unique_ptr<Program> p = MakeProgram(UntypedChain(12));
  ASSERT_NE(p, nullptr);
  jit::testing::RunBoth(*p, "Top", x);
  Result<TensorMap> y = p->Run("Top", x);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->at("y").values<float>()[0], 531441.0f + 4096);  // 3^12 + 2^12, exact in f32
  EXPECT_EQ(y->at("y").values<float>()[1], 2 * 531441.0f + 4096);
}

// A graph typed per run keeps its typed inputs' declared dtypes: their
// tensors hold the storage type (u32 values as i64, f16 as f32), which
// must not retype them (a declared u32 became i64: "dtype mismatch").
TEST(DynamicInputs, DeclaredDtypesOfTypedInputsStay) {
  std::unique_ptr<Program> u32 =
      MakeProgram("@graph G { input x: ?; input y: Tensor<[2], u32>; output z: cast(x, dtype: \"u32\") + y; }");
  ASSERT_NE(u32, nullptr);
  TensorMap in;
  in.emplace("x", F32({2}, {1, 2}));
  Tensor y = Tensor::Zeros(ir::DType::kI64, {2}).value();
  y.mutable_values<int64_t>()[0] = 3;
  y.mutable_values<int64_t>()[1] = 4;
  in.emplace("y", std::move(y));
  for (bool interp : {false, true}) {
    Result<TensorMap> out = interp ? u32->Interpret("G", in) : u32->Run("G", in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->at("z").dtype(), ir::DType::kU32);
    EXPECT_EQ(out->at("z").values<int64_t>()[0], 4);
    EXPECT_EQ(out->at("z").values<int64_t>()[1], 6);
  }
  // A typed graph calling one typed per run is typed per run too.
  std::unique_ptr<Program> f16 = MakeProgram(
      "@graph H { input a: ?; output o: a * 2; }\n"
      "@graph G { input y: Tensor<[2], f16>; output z: cast(H(y), dtype: \"f16\") + y; }");
  ASSERT_NE(f16, nullptr);
  for (bool interp : {false, true}) {
    Result<TensorMap> out = interp ? f16->Interpret("G", One("y", F32({2}, {1, 2}))) : f16->Run("G", One("y", F32({2}, {1, 2})));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->at("z").dtype(), ir::DType::kF16);
    EXPECT_EQ(out->at("z").values<float>()[0], 3);
    EXPECT_EQ(out->at("z").values<float>()[1], 6);
  }
}

TEST(DynamicInputs, PreparedRunsAndParameterChanges) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G { input x: ?; param w: Tensor<[3], f32> { init: \"ones\"; }; output y: x * w; }");
  ASSERT_NE(p, nullptr);
  const std::vector<InputSpec> specs = {{"x", ir::DType::kF32, {2, 3}}};
  Result<std::unique_ptr<PreparedRun>> run = p->Prepare("G", specs);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const float x[6] = {1, 2, 3, 4, 5, 6};
  std::memcpy((*run)->input_data(0), x, sizeof x);
  ASSERT_TRUE((*run)->Run().ok());
  const float* y = static_cast<const float*>((*run)->output_data(0));
  EXPECT_EQ(std::vector<float>(y, y + 6), std::vector<float>(x, x + 6));
  // New parameter values reach the next run (the specialisation packed the old ones).
  ASSERT_TRUE(p->SetParam("G/w", F32({3}, {2, 0, -1})).ok());
  std::memcpy((*run)->input_data(0), x, sizeof x);
  ASSERT_TRUE((*run)->Run().ok());
  y = static_cast<const float*>((*run)->output_data(0));
  EXPECT_EQ(std::vector<float>(y, y + 6), (std::vector<float>{2, 0, -3, 8, 0, -6}));
}

// Two prepared runs of one graph at two signatures, alternating: each finds
// its own compile without building and looking up its signature (it did
// whenever the other had run last), so neither allocates; the dumps follow
// the last run.
TEST(DynamicInputs, AlternatingPreparedRunsOfOneGraphAllocateNothing) {
  std::unique_ptr<Program> p = MakeProgram("@graph G { input x: ?; output y: x * 2 + 1; }");
  ASSERT_NE(p, nullptr);
  const std::vector<InputSpec> a = {{"x", ir::DType::kF32, {2}}}, b = {{"x", ir::DType::kF32, {3}}};
  Result<std::unique_ptr<PreparedRun>> ra = p->Prepare("G", a), rb = p->Prepare("G", b);
  ASSERT_TRUE(ra.ok() && rb.ok());
  const float xa[2] = {1, 2}, xb[3] = {-1, 0, 4};
  auto run = [&](PreparedRun& r, const float* x, size_t n) {
    std::memcpy(r.input_data(0), x, n * sizeof(float));
    ASSERT_TRUE(r.Run().ok());
    const float* y = static_cast<const float*>(r.output_data(0));
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(y[i], x[i] * 2 + 1) << i;
  };
  run(**ra, xa, 2);
  run(**rb, xb, 3);
  int64_t allocations = 0;
  {
    shrew::testing::CountAllocations counted;
    for (int k = 0; k < 3; ++k) {
      ASSERT_TRUE((*ra)->Run().ok());
      ASSERT_TRUE((*rb)->Run().ok());
    }
    allocations = counted.count();
  }
  EXPECT_EQ(allocations, 0);
  run(**ra, xa, 2);
  EXPECT_NE(p->Dump("G")->find("x: f32[2] arena"), std::string::npos);
  run(**rb, xb, 3);
  EXPECT_NE(p->Dump("G")->find("x: f32[3] arena"), std::string::npos);
  // New parameter values or a recompile: each finds its signature again.
  ASSERT_TRUE(p->Recompile("G").ok());
  run(**ra, xa, 2);
  run(**rb, xb, 3);
}

// PIPELINE.md §8 step 2: a left-out optional input is an error when the
// graph reads it. In a graph compiled per input signature that is known
// only once it is compiled for the supplied inputs: the tape used to run
// with the input's buffer left as zeros (y = [1, 1]).
TEST(DynamicInputs, ALeftOutOptionalInputThatIsReadIsMissing) {
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph G { input x: Tensor<[2], f32>?; input z: ?; output y: x * 2 + 1; output w: z; }
@graph H { input x: Tensor<[2], f32>?; input z: ?; output w: z * 2; }
)SW");
  ASSERT_NE(p, nullptr);
  const TensorMap z = One("z", F32({1}, {5}));
  for (bool interpret : {false, true}) {
    jit::InputIssue issue;
    Result<TensorMap> out = interpret ? p->Interpret("G", z, &issue) : p->Run("G", z, &issue);
    ASSERT_FALSE(out.ok()) << (interpret ? "interpreter" : "tape");
    // Optional, so the message names what reads it, on both executors.
    EXPECT_NE(out.status().message().find(
                  "optional input 'x' of graph 'G' was not supplied but mul in node 'y' reads it "
                  "(expected Tensor<[2], f32>)"),
              std::string::npos)
        << out.status().ToString();
    // And it points at that node: line 2 of the source, `x * 2 + 1`.
    EXPECT_EQ(out.status().span().line, 2u) << (interpret ? "interpreter" : "tape");
    EXPECT_GT(out.status().span().column, 1u);
    if (!interpret) {
      EXPECT_EQ(issue.input, "x");
      EXPECT_EQ(issue.expected, "Tensor<[2], f32>");
    }
  }
  // The same signature again (its compile is cached): still missing.
  EXPECT_FALSE(p->Run("G", z).ok());
  const std::vector<InputSpec> specs = {{"z", ir::DType::kF32, {1}}};
  EXPECT_FALSE(p->Prepare("G", specs).ok());
  // Supplied, it runs; a graph that does not read it runs without it.
  TensorMap both = z;
  both.emplace("x", F32({2}, {1, -1}));
  Result<TensorMap> out = p->Run("G", both);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("y"), F32({2}, {3, -1})));
  out = p->Run("H", z);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("w"), F32({1}, {10})));
}

// Session 27 differential QA (tape against interpreter over random programs
// of calls, `?` inputs, optional inputs and declared types).
TEST(DynamicInputs, ALeftOutInputReadByAGraphTypedPerRunIsMissingBeforeItIsTyped) {
  // The specialisation of `x + m` failed first ("type unknown after shape
  // inference"; through a call, "operand shapes of call[Inner] unknown").
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph Main { input x: Tensor<[3], f32>; input m: ? ?; output y: x + m; }
@graph Inner { input u: Tensor<[K], f32>; output o: u * 2; }
@graph Calls { input x: ?; input m: Tensor<[N], f32>?; node h { op: Inner(m); }; output r: h; output s: x; }
)SW");
  ASSERT_NE(p, nullptr);
  const TensorMap x = One("x", F32({3}, {1, 2, 3}));
  for (const char* g : {"Main", "Calls"}) {
    jit::InputIssue issue;
    Result<TensorMap> out = p->Run(g, x, &issue);
    ASSERT_FALSE(out.ok()) << g;
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().ToString();
    EXPECT_EQ(out.status().message().rfind("optional input 'm' of graph '" + std::string(g) + "' was not supplied but ", 0),
              0u)
        << out.status().ToString();
    EXPECT_EQ(issue.input, "m");
    Result<TensorMap> ref = p->Interpret(g, x);
    ASSERT_FALSE(ref.ok());
    EXPECT_NE(ref.status().message().find("'m'"), std::string::npos) << ref.status().ToString();
  }
}

// The same through a call that leaves the input out: the call kernel says
// so, as for a typed callee (it said "type unknown after shape inference",
// a failed_precondition).
TEST(DynamicInputs, ACallLeavingOutAnInputThatAGraphTypedPerCallReadsIsMissing) {
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph G3(m: ? ?, x: ?) -> ? { output y: x * 3; output z: m * x; }
@graph A { input a: Tensor<[2], f32>; output o: G3(x: a); }
)SW");
  ASSERT_NE(p, nullptr);
  const TensorMap a = One("a", F32({2}, {1, 2}));
  Result<TensorMap> out = p->Run("A", a);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().ToString();
  // The call's label names the callee once; the message names the reader.
  EXPECT_NE(out.status().message().find(
                "node 'o' (call[G3]): optional input 'm' of graph 'G3' was not supplied but node 'z' (mul) reads it"),
            std::string::npos)
      << out.status().ToString();
  EXPECT_EQ(out.status().message().find("call[G3]: call[G3]"), std::string::npos) << out.status().ToString();
  // One that reads it in its returned output, typed per run (`-> ?`): the
  // tape said "type unknown after shape inference", a failed_precondition.
  std::unique_ptr<Program> q = MakeProgram(
      "@graph C(x: ?, m: ? ?) -> ? { output y: x * m; }\n@graph A { input a: Tensor<[2], f32>; output o: C(x: a); }");
  ASSERT_NE(q, nullptr);
  Result<TensorMap> qj = q->Run("A", a);
  Result<TensorMap> qr = q->Interpret("A", a);
  ASSERT_FALSE(qj.ok());
  ASSERT_FALSE(qr.ok());
  EXPECT_EQ(qj.status().code(), StatusCode::kInvalidArgument) << qj.status().ToString();
  EXPECT_EQ(qj.status().message(), qr.status().message());
  EXPECT_EQ(qj.status().message(),
            "graph 'A': node 'o' (call[C]): optional input 'm' of graph 'C' was not supplied but node 'y' (mul) reads it "
            "(expected ?)");
  EXPECT_EQ(qj.status().span().line, 2u);
  EXPECT_EQ(qr.status().span().line, 2u);
  EXPECT_EQ(qj.status().span().column, qr.status().span().column);
  Result<TensorMap> ref = p->Interpret("A", a);
  ASSERT_FALSE(ref.ok());
  EXPECT_EQ(ref.status().code(), StatusCode::kInvalidArgument) << ref.status().ToString();
  // In the same words, at the same place: the call (the interpreter said it
  // at the reader inside G3, naming G3 twice).
  EXPECT_EQ(ref.status().message(), out.status().message());
  EXPECT_EQ(ref.status().span().line, 3u);
  EXPECT_EQ(ref.status().span().line, out.status().span().line);
  EXPECT_EQ(ref.status().span().column, out.status().span().column);
  // The program stays usable.
  EXPECT_TRUE(p->Run("G3", One("x", F32({2}, {1, 2}))).status().code() == StatusCode::kInvalidArgument);
  TensorMap both = One("x", F32({2}, {1, 2}));
  both.emplace("m", F32({2}, {3, 4}));
  Result<TensorMap> g3 = p->Run("G3", both);
  ASSERT_TRUE(g3.ok()) << g3.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(g3->at("z"), F32({2}, {3, 8})));
}

// A callee typed per call that cannot take the call's operands: both
// executors name the call and the callee (the tape named only the callee's
// node), and the error points into the callee.
TEST(DynamicInputs, ACallThatItsCalleeCannotTakeIsNamedOnBothExecutors) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph M(a: ?, b: ?) -> ? { output y: matmul(a, b); }\n"
      "@graph T { input x: Tensor<[2, 3], f32>; output o: M(x, x); }\n");
  ASSERT_NE(p, nullptr);
  const TensorMap in = One("x", F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  for (bool interpret : {false, true}) {
    Result<TensorMap> out = interpret ? p->Interpret("T", in) : p->Run("T", in);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().ToString();
    EXPECT_NE(out.status().message().find("node 'o' (call[M]): graph 'M': "), std::string::npos)
        << interpret << ": " << out.status().ToString();
    EXPECT_NE(out.status().message().find("matmul"), std::string::npos) << out.status().ToString();
  }
  Result<TensorMap> direct = p->Run("M", [] {
    TensorMap m = One("a", F32({1, 2}, {1, 2}));
    m.emplace("b", F32({2, 1}, {3, 4}));
    return m;
  }());
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(direct->at("y"), F32({1, 1}, {11})));
}

TEST(DynamicInputs, ACalleeTypedPerRunChecksItsNamesOnBothExecutors) {
  // Inner's P is 3 from a and 4 from b: the interpreter, which re-types a
  // callee with a `?` input, checked b against its supplied type and summed it.
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph Inner { input d: ?; input a: Tensor<[P], f32>; input b: Tensor<[P], f32>; output o: sum(b); }
@graph Main { input x: Tensor<[N], f32>; input y: Tensor<[?], f32>; output r: Inner(x, x, y); }
)SW");
  ASSERT_NE(p, nullptr);
  TensorMap in = One("x", F32({3}, {1, 2, 3}));
  in.emplace("y", F32({4}, {1, 2, 3, 4}));
  EXPECT_FALSE(p->Run("Main", in).ok());
  Result<TensorMap> ref = p->Interpret("Main", in);
  ASSERT_FALSE(ref.ok());
  EXPECT_NE(ref.status().message().find("input 'b'"), std::string::npos) << ref.status().ToString();
  in.insert_or_assign("y", F32({3}, {1, 2, 4}));
  jit::testing::RunBoth(*p, "Main", in);
}

TEST(DynamicInputs, AnExpressionOfLiteralsAdoptsACallResultsDtypeOnBothExecutors) {
  // `(1 + 2)` meets Inner's f64 result, known only once Inner ran: the
  // interpreter had computed it as i64 before ("dtype mismatch: i64 and f64").
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph Inner { input u: ?; output o: u * 2; }
@graph Main { input x: Tensor<[2], f64>; output r: (1 + 2) / Inner(x); output q: 1 / 2 + Inner(x); }
)SW");
  ASSERT_NE(p, nullptr);
  const TensorMap in = One("x", Tensor::FromVector<double>(ir::DType::kF64, {2}, {1, 2}).value());
  for (bool interpret : {false, true}) {
    Result<TensorMap> out = interpret ? p->Interpret("Main", in) : p->Run("Main", in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE(runtime::BitwiseEqual(out->at("r"), Tensor::FromVector<double>(ir::DType::kF64, {2}, {1.5, 0.75}).value()));
    EXPECT_TRUE(runtime::BitwiseEqual(out->at("q"), Tensor::FromVector<double>(ir::DType::kF64, {2}, {2.5, 4.5}).value()));
  }
}

TEST(DynamicInputs, TheDeclaredTypeOfACallTypedPerRunIsChecked) {
  // The tape pinned the call's result over the declaration: an f32 result
  // came out of a node declared f64, and a [4] one out of one declared [N]
  // with N = 3 failed as an internal error.
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph G1 { input a: ?; output o: a * 2; }
@graph Main { input x: ?; node h: Tensor<[N, 4], f64> { op: G1(x); }; output r: G1(h); }
@graph Sized { input x: ?; node h: Tensor<[3], u8> { op: G1(x); }; output h; }
)SW");
  ASSERT_NE(p, nullptr);
  TensorMap in = One("x", F32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}));
  for (bool interpret : {false, true}) {
    Result<TensorMap> out = interpret ? p->Interpret("Main", in) : p->Run("Main", in);
    ASSERT_FALSE(out.ok()) << (interpret ? "interpreter" : "tape");
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().ToString();
    EXPECT_NE(out.status().message().find("f64"), std::string::npos) << out.status().ToString();
    EXPECT_EQ(out.status().span().line, 3u) << out.status().ToString();
  }
  TensorMap bytes = One("x", Tensor::FromVector<uint8_t>(ir::DType::kU8, {4}, {1, 2, 3, 4}).value());
  // In the same words on both executors (the tape said "declared type …
  // does not match inferred type …").
  for (bool interpret : {false, true}) {
    Result<TensorMap> out = interpret ? p->Interpret("Sized", bytes) : p->Run("Sized", bytes);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().ToString();
    EXPECT_EQ(out.status().message(),
              "graph 'Sized': node 'h' (call[G1]): computed u8[4] does not match its type Tensor<[3], u8>");
    EXPECT_EQ(out.status().span().line, 4u);
  }
  // f64 inputs run on both.
  in.insert_or_assign("x", Tensor::FromVector<double>(ir::DType::kF64, {1, 4}, {1, -2, 3, 0.5}).value());
  jit::testing::RunBoth(*p, "Main", in);
}

}  // namespace
}  // namespace shrew
