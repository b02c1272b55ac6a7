// Whole-graph runs of the reference interpreter (PIPELINE.md §8–§10).
#include "interp/interpreter.h"

#include "interp/interp_test_util.h"
#include "runtime/param_init.h"

namespace shrew::interp {
namespace {

using namespace shrew::interp::testing;  // NOLINT
using ir::AttrValue;
using ir::Dim;
using ir::DType;
using K = ir::OpKind;

ir::Type T(std::vector<Dim> dims, DType d = DType::kF32) { return ir::Type::Tensor(std::move(dims), d); }
Dim F(int64_t n) { return Dim::Fixed(n); }
Dim S(const char* n) { return Dim::Symbolic(n); }

runtime::TensorMap Map(std::vector<std::pair<std::string, Tensor>> kv) {
  runtime::TensorMap m;
  for (auto& [k, v] : kv) m.emplace(k, std::move(v));
  return m;
}

// x: [Batch, 3]; h = relu(x·W + b); c = x * 2 (a typed constant).
ir::Graph Mlp() {
  ir::Graph g("Mlp");
  ir::NodeId x = g.AddInput("x", T({S("Batch"), F(3)}));
  ir::NodeId w = g.AddParam("W", T({F(3), F(2)}));
  ir::NodeId b = g.AddParam("b", T({F(2)}));
  ir::NodeId mm = g.AddNode("mm", K::kMatmul, {x, w});
  g.node(mm).type = T({S("Batch"), F(2)});
  ir::NodeId add = g.AddNode("add", K::kAdd, {mm, b});
  ir::NodeId h = g.AddNode("h", K::kRelu, {add});
  g.node(h).type = T({S("Batch"), F(2)});
  ir::NodeId two = g.AddConstant("two", AttrValue::Int(2));
  g.node(two).type = ir::Type::Scalar(DType::kF32);
  ir::NodeId c = g.AddNode("c", K::kMul, {x, two});
  g.AddOutput("h", h);
  g.AddOutput("c", c);
  return g;
}

runtime::TensorMap MlpParams() {
  return Map({{"W", F32({3, 2}, {1, -1, 0, 1, 1, 0})}, {"b", F32({2}, {0.5f, -3})}});
}

TEST(InterpreterTest, RunsAGraph) {
  ir::Graph g = Mlp();
  Interpreter interp(nullptr, nullptr);
  Result<RunResult> r = interp.Run(g, Map({{"x", F32({2, 3}, {1, 2, 3, -1, 0, 4})}}), MlpParams());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->outputs.size(), 2u);
  EXPECT_EQ(r->outputs[0].first, "h");
  EXPECT_EQ(r->outputs[1].first, "c");
  // x·W = [[4, 1], [3, 1]]; + b = [[4.5, -2], [3.5, -2]]; relu.
  EXPECT_TRUE(Same(*r->Find("h"), F32({2, 2}, {4.5f, 0, 3.5f, 0})));
  EXPECT_TRUE(Same(*r->Find("c"), F32({2, 3}, {2, 4, 6, -2, 0, 8})));
  EXPECT_EQ(r->dims.at("Batch"), 2);
  EXPECT_TRUE(r->intermediates.empty());
  EXPECT_EQ(r->Find("nope"), nullptr);
}

TEST(InterpreterTest, InputChecksNameTheInput) {
  ir::Graph g = Mlp();
  Interpreter interp(nullptr, nullptr);
  EXPECT_TRUE(FailsWith(interp.Run(g, {}, MlpParams()), "graph 'Mlp': missing input 'x'"));
  EXPECT_TRUE(FailsWith(interp.Run(g, Map({{"x", F32({2, 4}, std::vector<float>(8, 0))}}), MlpParams()),
                        "input 'x': expected Tensor<[Batch, 3], f32>, got f32[2, 4] (dimension 1 is 4, expected 3)"));
  EXPECT_TRUE(FailsWith(interp.Run(g, Map({{"x", F64({1, 3}, {1, 2, 3})}}), MlpParams()),
                        "input 'x': expected Tensor<[Batch, 3], f32>, got f64[1, 3] (storage f64, expected f32)"));
  EXPECT_TRUE(FailsWith(interp.Run(g, Map({{"x", F32({3}, {1, 2, 3})}}), MlpParams()), "(rank 1, expected 2)"));
  EXPECT_TRUE(FailsWith(interp.Run(g, Map({{"x", F32({1, 3}, {1, 2, 3})}, {"z", F32({1}, {1})}}), MlpParams()),
                        "unknown input 'z'"));
  EXPECT_TRUE(FailsWith(interp.Run(g, Map({{"x", F32({1, 3}, {1, 2, 3})}}), Map({{"W", F32({3, 2}, std::vector<float>(6, 0))}})),
                        "parameter 'b' has no value"));
  EXPECT_TRUE(FailsWith(interp.Run(g, Map({{"x", F32({1, 3}, {1, 2, 3})}}),
                                   Map({{"W", F32({2, 3}, std::vector<float>(6, 0))}, {"b", F32({2}, {0, 0})}})),
                        "parameter 'W': expected Tensor<[3, 2], f32>, got f32[2, 3]"));
}

TEST(InterpreterTest, SymbolicDimsBindFromFirstInput) {
  ir::Graph g("G");
  ir::NodeId a = g.AddInput("a", T({S("N"), F(2)}));
  ir::NodeId b = g.AddInput("b", T({S("N")}));
  ir::NodeId s = g.AddNode("s", K::kSum, {a});
  g.node(s).attrs.Set("dims", AttrValue::IntList({1}));
  ir::NodeId y = g.AddNode("y", K::kAdd, {s, b});
  g.AddOutput("y", y);
  Interpreter interp(nullptr, nullptr);
  Result<RunResult> ok = interp.Run(g, Map({{"a", F32({2, 2}, {1, 2, 3, 4})}, {"b", F32({2}, {10, 20})}}), {});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(Same(*ok->Find("y"), F32({2}, {13, 27})));
  EXPECT_TRUE(FailsWith(interp.Run(g, Map({{"a", F32({2, 2}, {1, 2, 3, 4})}, {"b", F32({3}, {1, 2, 3})}}), {}),
                        "input 'b': expected Tensor<[N], f32>, got f32[3] (dimension 0 is 3 but N is bound to 2)"));
  // Configured dims take precedence over input shapes.
  Interpreter configured(nullptr, nullptr, {.dims = {{"N", 3}}});
  EXPECT_TRUE(FailsWith(configured.Run(g, Map({{"a", F32({2, 2}, {1, 2, 3, 4})}, {"b", F32({2}, {1, 2})}}), {}),
                        "input 'a': expected Tensor<[N, 2], f32>, got f32[2, 2] (dimension 0 is 2 but N is bound to 3)"));
}

TEST(InterpreterTest, ReshapeAndRangeUseRunTimeBindings) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", T({S("B"), F(6)}));
  ir::NodeId r = g.AddNode("r", K::kReshape, {x});
  g.node(r).attrs.Set("shape", AttrValue::Shape({S("B"), Dim::Dynamic(), F(3)}));
  ir::NodeId pos = g.AddNode("pos", K::kRange, {});
  g.node(pos).type = T({S("B")}, DType::kI64);
  g.AddOutput("r", r);
  g.AddOutput("pos", pos);
  Interpreter interp(nullptr, nullptr);
  Result<RunResult> res = interp.Run(g, Map({{"x", F32({2, 6}, std::vector<float>(12, 1))}}), {});
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->Find("r")->shape(), (Shape{2, 2, 3}));
  EXPECT_TRUE(Same(*res->Find("pos"), I64({2}, {0, 1})));
}

TEST(InterpreterTest, NodeTypeCheckCatchesInconsistency) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", T({F(2), F(3)}));
  ir::NodeId t = g.AddNode("t", K::kTranspose, {x});
  g.node(t).type = T({F(2), F(3)});  // wrong: transpose gives [3, 2]
  g.AddOutput("t", t);
  Interpreter strict(nullptr, nullptr);
  EXPECT_TRUE(FailsWith(strict.Run(g, Map({{"x", F32({2, 3}, std::vector<float>(6, 0))}}), {}),
                        "node 't' (transpose): computed f32[3, 2] does not match its type Tensor<[2, 3], f32>"));
  Interpreter lenient(nullptr, nullptr, {.check_node_types = false});
  EXPECT_TRUE(lenient.Run(g, Map({{"x", F32({2, 3}, std::vector<float>(6, 0))}}), {}).ok());
}

TEST(InterpreterTest, OutputsAliasingAndIntermediates) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", T({F(2)}));
  ir::NodeId n = g.AddNode("n", K::kNeg, {x});
  ir::NodeId e = g.AddNode("e", K::kExp, {n});
  g.AddOutput("same1", n);
  g.AddOutput("same2", n);
  g.AddOutput("alias", x);
  g.AddOutput("e", e);
  Interpreter interp(nullptr, nullptr, {.keep_intermediates = true});
  Result<RunResult> r = interp.Run(g, Map({{"x", F32({2}, {1, -2})}}), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(Same(*r->Find("same1"), F32({2}, {-1, 2})));
  EXPECT_TRUE(Same(*r->Find("same2"), F32({2}, {-1, 2})));
  EXPECT_TRUE(Same(*r->Find("alias"), F32({2}, {1, -2})));
  EXPECT_EQ(r->intermediates.size(), 2u);
  EXPECT_TRUE(Same(r->intermediates.at("n"), F32({2}, {-1, 2})));
}

// Nodes no output reads run too, as on the tape (PIPELINE.md §9): their
// run-time errors are reported, and a missing optional input they read is an
// error — so the oracle and the tape accept and reject the same runs.
TEST(InterpreterTest, DeadNodesRunAsOnTheTape) {
  ir::Graph g("G");
  ir::NodeId ids = g.AddInput("ids", T({F(1)}, DType::kI64));
  ir::NodeId opt = g.AddInput("opt", T({F(1)}), /*optional=*/true);
  ir::NodeId table = g.AddParam("E", T({F(2), F(2)}));
  ir::NodeId dead = g.AddNode("dead", K::kEmbedding, {ids, table});
  ir::NodeId y = g.AddNode("y", K::kNeg, {table});
  g.AddOutput("y", y);
  (void)dead;
  Interpreter interp(nullptr, nullptr);
  runtime::TensorMap params = Map({{"E", F32({2, 2}, {1, 2, 3, 4})}});
  Result<RunResult> r = interp.Run(g, Map({{"ids", I64({1}, {1})}}), params);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(Same(*r->Find("y"), F32({2, 2}, {-1, -2, -3, -4})));
  // The dead embedding's index out of range is reported.
  EXPECT_FALSE(interp.Run(g, Map({{"ids", I64({1}, {5})}}), params).ok());
  // So is the missing optional input a dead node reads.
  ir::NodeId dead2 = g.AddNode("dead2", K::kNeg, {opt});
  (void)dead2;
  EXPECT_TRUE(FailsWith(interp.Run(g, Map({{"ids", I64({1}, {0})}}), params),
                        "optional input 'opt' of graph 'G' was not supplied but node 'dead2' (neg) reads it"));
}

TEST(InterpreterTest, EmbeddingErrorNamesInputAndGraph) {
  ir::Graph g("LM");
  ir::NodeId tokens = g.AddInput("tokens", T({S("B")}, DType::kI64));
  ir::NodeId table = g.AddParam("E", T({F(3), F(2)}));
  ir::NodeId e = g.AddNode("emb", K::kEmbedding, {tokens, table});
  g.AddOutput("e", e);
  Interpreter interp(nullptr, nullptr);
  Result<RunResult> r = interp.Run(g, Map({{"tokens", I64({2}, {1, 3})}}), Map({{"E", F32({3, 2}, std::vector<float>(6, 0))}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().message(),
            "graph 'LM': node 'emb' (embedding): embedding index 3 out of range for a table of 3 rows "
            "(indices 'tokens', element 1)");
}

TEST(InterpreterTest, DeclaredDtypeIsKeptForSameStorage) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", T({F(2)}, DType::kI32));
  ir::NodeId y = g.AddNode("y", K::kAdd, {x, x});
  g.node(y).type = T({F(2)}, DType::kI32);
  g.AddOutput("y", y);
  Interpreter interp(nullptr, nullptr);
  Result<RunResult> r = interp.Run(g, Map({{"x", I64({2}, {3, 4})}}), {});  // i64-tagged, i32 declared
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->Find("y")->dtype(), DType::kI32);
  EXPECT_EQ(r->Find("y")->values<int64_t>()[1], 8);
}

// Dense(x: [R, 2]) = x·W; Model(f: [N, 2]) = Dense(Dense(f)).
ir::Program CallProgram() {
  ir::Program p;
  ir::Graph dense("Dense");
  ir::NodeId x = dense.AddInput("x", T({S("R"), F(2)}));
  ir::NodeId w = dense.AddParam("W", T({F(2), F(2)}));
  dense.AddOutput("y", dense.AddNode("y", K::kMatmul, {x, w}));
  dense.AddOutput("unused", x);
  ir::Graph model("Model");
  ir::NodeId f = model.AddInput("f", T({S("N"), F(2)}));
  ir::NodeId c1 = model.AddNode("c1", K::kCall, {f});
  model.node(c1).callee = "Dense";
  ir::NodeId c2 = model.AddNode("c2", K::kCall, {c1});
  model.node(c2).callee = "Dense";
  model.AddOutput("out", c2);
  p.graphs.push_back(std::move(dense));
  p.graphs.push_back(std::move(model));
  return p;
}

TEST(InterpreterTest, GraphCallsShareCalleeParams) {
  ir::Program p = CallProgram();
  runtime::ParamMap params = Map({{"Dense/W", F32({2, 2}, {0, 1, 2, 0})}});
  Interpreter interp(&p, &params);
  Result<RunResult> r = interp.Run("Model", Map({{"f", F32({1, 2}, {1, 1})}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // [1, 1]·W = [2, 1]; [2, 1]·W = [2, 2]. The callee's first output is used.
  EXPECT_TRUE(Same(*r->Find("out"), F32({1, 2}, {2, 2})));
  // Direct run of the callee uses the same parameters.
  Result<RunResult> d = interp.Run("Dense", Map({{"x", F32({1, 2}, {1, 0})}}));
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(Same(*d->Find("y"), F32({1, 2}, {0, 1})));
  EXPECT_TRUE(FailsWith(interp.Run("Nope", {}), "no graph named 'Nope'"));
  runtime::ParamMap none;
  Interpreter missing(&p, &none);
  EXPECT_TRUE(FailsWith(missing.Run("Model", Map({{"f", F32({1, 2}, {1, 1})}})),
                        "graph 'Model': node 'c1' (call[Dense]): graph 'Dense': parameter 'W' has no value"));
}

TEST(InterpreterTest, RecursionHitsDepthLimit) {
  ir::Program p;
  ir::Graph g("Loop");
  ir::NodeId x = g.AddInput("x", T({F(1)}));
  ir::NodeId c = g.AddNode("c", K::kCall, {x});
  g.node(c).callee = "Loop";
  g.AddOutput("y", c);
  p.graphs.push_back(std::move(g));
  Interpreter interp(&p, nullptr, {.max_call_depth = 8});
  EXPECT_TRUE(FailsWith(interp.Run("Loop", Map({{"x", F32({1}, {0})}})), "graph calls nested deeper than 8"));
}

TEST(InterpreterTest, CallArityMismatch) {
  ir::Program p = CallProgram();
  p.graphs[1].node(2).operands.push_back(0);  // c1 = Dense(f, f)
  runtime::ParamMap params = Map({{"Dense/W", F32({2, 2}, {0, 1, 2, 0})}});
  Interpreter interp(&p, &params);
  EXPECT_TRUE(FailsWith(interp.Run("Model", Map({{"f", F32({1, 2}, {1, 1})}})), "graph 'Dense' has 1 inputs, got 2 operands"));
}

// Parameters initialised from the seed, then training-mode dropout
// continues the same stream: two identical setups give identical results.
TEST(InterpreterTest, SeededTrainingRunIsDeterministic) {
  ir::Program p;
  ir::Graph g("Drop");
  ir::NodeId x = g.AddInput("x", T({F(4), F(4)}));
  ir::InitSpec init;
  init.kind = ir::InitSpec::Kind::kXavierUniform;
  init.text = "xavier_uniform";
  ir::NodeId w = g.AddParam("W", T({F(4), F(4)}), init);
  ir::NodeId mm = g.AddNode("mm", K::kMatmul, {x, w});
  ir::NodeId d = g.AddNode("d", K::kDropout, {mm});
  g.node(d).attrs.Set("p", AttrValue::Float(0.5));
  g.AddOutput("d", d);
  p.graphs.push_back(std::move(g));
  auto run = [&](uint64_t seed) {
    runtime::Rng rng(seed);
    runtime::ParamMap params = std::move(runtime::InitProgramParams(p, {}, rng)).value();
    Interpreter interp(&p, &params, {.training = true}, &rng);
    Result<RunResult> r = interp.Run("Drop", Map({{"x", F32({4, 4}, std::vector<float>(16, 1))}}));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(r->outputs[0].second);
  };
  Tensor a = run(7), b = run(7), c = run(8);
  EXPECT_TRUE(runtime::BitwiseEqual(a, b));
  EXPECT_FALSE(runtime::BitwiseEqual(a, c));
  int zeros = 0;
  for (float v : a.values<float>()) zeros += v == 0.0f;
  EXPECT_GT(zeros, 0);
  EXPECT_LT(zeros, 16);
}

TEST(InterpreterTest, RepeatNodeIterates) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", T({F(2)}));
  ir::NodeId k = g.AddInput("k", T({F(2)}));
  ir::NodeId r = g.AddNode("r", K::kRepeat, {x, k});
  g.node(r).attrs.Set("count", AttrValue::Int(3));
  g.node(r).repeat_body = ir::RepeatBody{K::kMul, {}, ""};
  g.AddOutput("r", r);
  Interpreter interp(nullptr, nullptr);
  Result<RunResult> res = interp.Run(g, Map({{"x", F32({2}, {1, -1})}, {"k", F32({2}, {2, 3})}}), {});
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_TRUE(Same(*res->Find("r"), F32({2}, {8, -27})));
}

}  // namespace
}  // namespace shrew::interp
