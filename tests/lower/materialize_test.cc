// Materialisation (PIPELINE.md §5) through Compile(): repeat unrolling in
// place, implicit attention / transformer parameters with their names,
// shapes and inits, and the errors.
#include "lower/materialize.h"

#include <gtest/gtest.h>

#include "api/compile.h"
#include "ir/dump.h"
#include "lower_test_util.h"

namespace shrew::lower {
namespace {

CompileResult Unoptimized(const std::string& text, ir::DimBindings dims = {}) {
  CompileOptions options;
  options.optimize = false;
  options.dims = std::move(dims);
  return Compile(text, options);
}

std::string Dump(const CompileResult& r) {
  return r.ok ? ir::DumpGraph(r.program.graphs[0], {.types = false}) : r.RenderDiagnostics();
}

TEST(MaterializeTest, RepeatUnrollsInPlace) {
  CompileResult r = Unoptimized(
      "@graph G {\n"
      "  input x: Tensor<[4], f32>;\n"
      "  node a { op: relu(x); };\n"
      "  node b { op: repeat(3) { a * 0.5 }; @hint keep; };\n"
      "  node c { op: b + a; };\n"
      "  output c;\n"
      "  output b;\n"
      "}\n");
  EXPECT_EQ(Dump(r),
            "graph G: 7 nodes, 1 inputs, 2 outputs, 0 params\n"
            "  %0 x = input\n"
            "  %1 a = relu(%0)\n"
            "  %2 __anon_2 = constant[0.5:f32]\n"
            "  %3 b.iter0 = mul(%1, %2)\n"
            "  %4 b.iter1 = mul(%3, %2)\n"
            "  %5 b = mul(%4, %2)  # hints: keep\n"
            "  %6 c = add(%5, %1)\n"
            "  outputs: c=%6, b=%5\n");
  ASSERT_TRUE(r.ok);
  for (const ir::Node& n : r.program.graphs[0].nodes()) {
    EXPECT_EQ(n.type.ToString(), n.name == "__anon_2" ? "Tensor<[], f32>" : "Tensor<[4], f32>")
        << n.name;
  }
}

TEST(MaterializeTest, RepeatZeroIsIdentityAndOneKeepsTheName) {
  EXPECT_EQ(Dump(Unoptimized("@graph G { input x: f32;\n"
                             "  node z { op: repeat(0) { relu(x) }; };\n"
                             "  node o { op: repeat(1) { relu(z) }; };\n"
                             "  output o; }")),
            "graph G: 3 nodes, 1 inputs, 1 outputs, 0 params\n"
            "  %0 x = input\n"
            "  %1 z = identity(%0)\n"
            "  %2 o = relu(%1)\n"
            "  outputs: o=%2\n");
}

TEST(MaterializeTest, AttentionParameters) {
  CompileResult r = Unoptimized(
      "@graph G {\n"
      "  input x: Tensor<[B, S, 16], f32>;\n"
      "  param p: Tensor<[16], f32>;\n"
      "  node h { op: multi_head_attention(x, n_heads: 4, causal: true); };\n"
      "  output y: h + p;\n"
      "}\n");
  EXPECT_EQ(Dump(r),
            "graph G: 8 nodes, 1 inputs, 1 outputs, 5 params\n"
            "  %0 x = input\n"
            "  %1 p = param[init=zeros]\n"
            "  %2 h.w_q = param[init=uniform(-0.25, 0.25)]\n"
            "  %3 h.w_k = param[init=uniform(-0.25, 0.25)]\n"
            "  %4 h.w_v = param[init=uniform(-0.25, 0.25)]\n"
            "  %5 h.w_o = param[init=uniform(-0.25, 0.25)]\n"
            "  %6 h = multi_head_attention[n_heads=4, causal=true](%0, %2, %3, %4, %5)\n"
            "  %7 y = add(%6, %1)\n"
            "  outputs: y=%7\n");
  ASSERT_TRUE(r.ok);
  const ir::Graph& g = r.program.graphs[0];
  ASSERT_EQ(g.params().size(), 5u);
  EXPECT_EQ(g.params()[0].name, "p");
  EXPECT_FALSE(g.params()[0].implicit);
  EXPECT_EQ(g.params()[0].node, 1);
  const ir::Param& wq = g.params()[1];
  EXPECT_EQ(wq.name, "h.w_q");
  EXPECT_TRUE(wq.implicit);
  EXPECT_EQ(wq.node, 2);
  EXPECT_EQ(wq.type.ToString(), "Tensor<[16, 16], f32>");
  EXPECT_EQ(wq.init.kind, ir::InitSpec::Kind::kUniform);
  EXPECT_DOUBLE_EQ(wq.init.a, -0.25);
  EXPECT_DOUBLE_EQ(wq.init.b, 0.25);
  EXPECT_EQ(g.node(2).role, ir::NodeRole::kParam);
  EXPECT_EQ(g.node(2).type.ToString(), "Tensor<[16, 16], f32>");
}

TEST(MaterializeTest, TransformerBlockInRepeatGetsPerLayerParameters) {
  CompileResult r = Unoptimized(
      "@graph G {\n"
      "  input x: Tensor<[2, 5, 8], f64>;\n"
      "  node t { op: repeat(2) { TransformerBlock(x, n_heads: 2) }; };\n"
      "  output t;\n"
      "}\n");
  ASSERT_TRUE(r.ok) << r.RenderDiagnostics();
  const ir::Graph& g = r.program.graphs[0];
  ASSERT_EQ(g.params().size(), 24u);
  const char* suffixes[] = {"ln1.weight", "ln1.bias", "attn.w_q", "attn.w_k", "attn.w_v",
                            "attn.w_o", "ln2.weight", "ln2.bias", "ff1.weight", "ff1.bias",
                            "ff2.weight", "ff2.bias"};
  const char* shapes[] = {"[8]", "[8]", "[8, 8]", "[8, 8]", "[8, 8]", "[8, 8]",
                          "[8]", "[8]", "[8, 32]", "[32]", "[32, 8]", "[8]"};
  const char* inits[] = {"ones", "zeros", "uniform(-0.35355339059327373, 0.35355339059327373)",
                         "uniform(-0.35355339059327373, 0.35355339059327373)",
                         "uniform(-0.35355339059327373, 0.35355339059327373)",
                         "uniform(-0.35355339059327373, 0.35355339059327373)", "ones", "zeros",
                         "uniform(-0.35355339059327373, 0.35355339059327373)",
                         "uniform(-0.35355339059327373, 0.35355339059327373)",
                         "uniform(-0.17677669529663687, 0.17677669529663687)",
                         "uniform(-0.17677669529663687, 0.17677669529663687)"};
  for (int layer = 0; layer < 2; ++layer) {
    for (int k = 0; k < 12; ++k) {
      const ir::Param& p = g.params()[static_cast<size_t>(layer * 12 + k)];
      SCOPED_TRACE(p.name);
      EXPECT_EQ(p.name, "t.layer" + std::to_string(layer) + "." + suffixes[k]);
      EXPECT_EQ(p.type.ToString(), std::string("Tensor<") + shapes[k] + ", f64>");
      EXPECT_EQ(p.init.text, inits[k]);
    }
  }
  const ir::Node& t0 = g.node(g.FindNode("t.iter0"));
  const ir::Node& t = g.node(g.FindNode("t"));
  EXPECT_EQ(t0.operands.size(), 13u);
  EXPECT_EQ(t0.operands[0], g.FindNode("x"));
  EXPECT_EQ(t.operands[0], t0.id);
  EXPECT_EQ(g.node(t.operands[1]).name, "t.layer1.ln1.weight");
  // Ids stay a topological order.
  for (const ir::Node& n : g.nodes()) {
    for (ir::NodeId op : n.operands) EXPECT_LT(op, n.id) << n.name;
  }
}

TEST(MaterializeTest, ModelDimensionMustBeKnown) {
  const char* symbolic =
      "@graph G {\n  input x: Tensor<[2, 3, Model], f32>;\n"
      "  node h { op: multi_head_attention(x); };\n  output h;\n}\n";
  CompileResult r = Unoptimized(symbolic);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.stage, CompileStage::kMaterialize);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, diag::Kind::UnboundDimension);
  EXPECT_EQ(r.diagnostics[0].span.line, 3u);
  EXPECT_EQ(r.diagnostics[0].span.column, 3u);
  EXPECT_EQ(r.diagnostics[0].message,
            "[G::h] unresolved symbolic dimension 'Model': the parameters of multi_head_attention "
            "need its value (set it in @config or in the dims option)");
  // A compile-time binding supplies it.
  CompileResult bound = Unoptimized(symbolic, {{"Model", 6}});
  ASSERT_TRUE(bound.ok) << bound.RenderDiagnostics();
  EXPECT_EQ(bound.program.graphs[0].params()[0].type.ToString(), "Tensor<[6, 6], f32>");

  CompileResult dynamic = Unoptimized(
      "@graph G {\n  input x: Tensor<[2, 3, ?], f32>;\n"
      "  node h { op: transformer_block(x); };\n  output h;\n}\n");
  ASSERT_FALSE(dynamic.ok);
  ASSERT_EQ(dynamic.diagnostics.size(), 1u);
  EXPECT_EQ(dynamic.diagnostics[0].kind, diag::Kind::UnknownModelDim);
  EXPECT_EQ(dynamic.diagnostics[0].span.line, 3u);
  EXPECT_EQ(dynamic.diagnostics[0].span.column, 3u);
  EXPECT_EQ(dynamic.diagnostics[0].message,
            "[G::h] cannot create the parameters of transformer_block: its model dimension (the "
            "last one of the operand) is dynamic");
}

TEST(MaterializeTest, HugeRepeatCountsFailCleanly) {
  CompileResult r = Unoptimized(
      "@graph G { input x: f32;\n  node h { op: repeat(9223372036854775807) { relu(x) }; };\n"
      "  output h; }");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.stage, CompileStage::kMaterialize);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, diag::Kind::TooManyNodes);
  EXPECT_EQ(r.diagnostics[0].span.line, 2u);
  EXPECT_EQ(r.diagnostics[0].span.column, 3u);
}

TEST(MaterializeTest, AddedNodesLimitBoundary) {
  auto program = [](int64_t count) {
    return "@graph G { input x: f32;\n  node h { op: repeat(" + std::to_string(count) +
           ") { relu(x) }; };\n  output h; }";
  };
  // count iterations replace one node: count - 1 added.
  CompileResult at_limit = Unoptimized(program(kMaxAddedNodes + 1));
  ASSERT_TRUE(at_limit.ok) << at_limit.RenderDiagnostics();
  EXPECT_EQ(at_limit.program.graphs[0].num_nodes(), kMaxAddedNodes + 2);
  CompileResult over = Unoptimized(program(kMaxAddedNodes + 2));
  ASSERT_FALSE(over.ok);
  EXPECT_EQ(over.diagnostics[0].kind, diag::Kind::TooManyNodes);
  // Each transformer block iteration adds 13 nodes (itself and 12 params).
  CompileResult blocks = Unoptimized(
      "@graph G { input x: Tensor<[1, 2, 4], f32>;\n"
      "  node h { op: repeat(30000) { transformer_block(x) }; };\n  output h; }");
  ASSERT_FALSE(blocks.ok);
  EXPECT_EQ(blocks.diagnostics[0].kind, diag::Kind::TooManyNodes);
}

TEST(MaterializeTest, DirectCallLeavesGraphUnchangedOnError) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", ir::Type::Tensor({ir::Dim::Fixed(2), ir::Dim::Dynamic()},
                                                  ir::DType::kF32));
  ir::NodeId h = g.AddNode("h", ir::OpKind::kMultiHeadAttention, {x});
  g.node(h).type = g.node(x).type;
  g.AddOutput("h", h);
  diag::DiagnosticBag diags;
  EXPECT_FALSE(MaterializeGraph(&g, &diags));
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.node(h).operands.size(), 1u);
  EXPECT_TRUE(g.params().empty());
}

}  // namespace
}  // namespace shrew::lower
