// Lowering of graph statements and expressions (PIPELINE.md §2.3-§2.4):
// dumps of the IR right after lowering, and the program-level parts
// (signatures, metadata, @training / @inference, @custom_op).
#include "lower/lower.h"

#include <gtest/gtest.h>

#include "lower_test_util.h"

namespace shrew::lower {
namespace {

using testing::LowerDump;
using testing::LowerText;

TEST(LowerTest, SpecExample) {
  EXPECT_EQ(LowerDump("@graph G {\n"
                      "    input x: Tensor<[2, 3], f32>;\n"
                      "    param W: Tensor<[3, 4], f32> { init: \"xavier_uniform\"; };\n"
                      "    param b: Tensor<[4], f32> { init: \"zeros\"; };\n"
                      "    node h { op: relu(matmul(x, W) + b); };\n"
                      "    node c { op: x * 2; };\n"
                      "    output h;\n"
                      "    output c;\n"
                      "}\n"),
            "graph G: 8 nodes, 1 inputs, 2 outputs, 2 params\n"
            "  %0 x = input : Tensor<[2, 3], f32>\n"
            "  %1 W = param[init=xavier_uniform] : Tensor<[3, 4], f32>\n"
            "  %2 b = param[init=zeros] : Tensor<[4], f32>\n"
            "  %3 __anon_3 = matmul(%0, %1) : ?\n"
            "  %4 __anon_4 = add(%3, %2) : ?\n"
            "  %5 h = relu(%4) : ?\n"
            "  %6 __anon_6 = constant[2] : ?\n"
            "  %7 c = mul(%0, %6) : ?\n"
            "  outputs: h=%5, c=%7\n");
}

TEST(LowerTest, HeaderParametersComeFirstAndDuplicatesMerge) {
  testing::Lowered l = LowerText(
      "@graph G(a: f32, b: Tensor<[2], f32>?) -> f32 {\n"
      "  input c: i64;\n"
      "  input a: f32;\n"
      "  input d: ? ?;\n"
      "  output a;\n"
      "}\n");
  ASSERT_TRUE(l.ok) << l.rendered;
  const ir::Graph& g = l.program.graphs[0];
  ASSERT_EQ(g.inputs().size(), 4u);
  EXPECT_EQ(g.node(g.inputs()[0].node).name, "a");
  EXPECT_EQ(g.node(g.inputs()[1].node).name, "b");
  EXPECT_TRUE(g.inputs()[1].optional);
  EXPECT_EQ(g.node(g.inputs()[2].node).name, "c");
  EXPECT_EQ(g.node(g.inputs()[3].node).name, "d");
  EXPECT_TRUE(g.inputs()[3].optional);
  EXPECT_TRUE(g.node(g.inputs()[3].node).type.is_unknown());
  EXPECT_EQ(g.num_nodes(), 4);
  EXPECT_EQ(g.return_type()->ToString(), "Tensor<[], f32>");
}

TEST(LowerTest, ParamsInitFrozenAndOtherKeys) {
  testing::Lowered l = LowerText(
      "@config { how: \"ones\"; }\n"
      "@graph G {\n"
      "  param a: Tensor<[2], f32>;\n"
      "  param b: Tensor<[2], f32> { init: \"normal(0, 0.02)\"; frozen: true; device: gpu; };\n"
      "  param c: Tensor<[2], f32> { init: how; };\n"
      "  output a;\n"
      "}\n");
  ASSERT_TRUE(l.ok) << l.rendered;
  const ir::Graph& g = l.program.graphs[0];
  ASSERT_EQ(g.params().size(), 3u);
  EXPECT_EQ(g.params()[0].init.kind, ir::InitSpec::Kind::kZeros);
  EXPECT_EQ(g.params()[0].init.text, "zeros");
  EXPECT_EQ(g.params()[1].init.kind, ir::InitSpec::Kind::kNormal);
  EXPECT_DOUBLE_EQ(g.params()[1].init.b, 0.02);
  EXPECT_TRUE(g.params()[1].frozen);
  EXPECT_FALSE(g.params()[0].frozen);
  EXPECT_EQ(g.node(g.params()[1].node).annotations.Find("device")->as_string(), "gpu");
  EXPECT_EQ(g.params()[2].init.kind, ir::InitSpec::Kind::kOnes);
}

TEST(LowerTest, NodeBodiesTypesHintsAndAttributes) {
  testing::Lowered l = LowerText(
      "@config { D: 4; }\n"
      "@graph G {\n"
      "  input x: Tensor<[2, D], f32>;\n"
      "  node h: Tensor<[2, D], f32> {\n"
      "    op: relu(x);\n"
      "    output: Tensor<[2, 4], f32>;\n"
      "    @hint no_grad; @hint my_hint;\n"
      "    note: D * 2; tags: [1, 2];\n"
      "    input: x;\n"
      "  };\n"
      "  output h;\n"
      "}\n");
  ASSERT_TRUE(l.ok) << l.rendered;
  const ir::Graph& g = l.program.graphs[0];
  const ir::Node& h = g.node(g.FindNode("h"));
  ASSERT_TRUE(h.declared_type.has_value());
  EXPECT_EQ(h.declared_type->ToString(), "Tensor<[2, 4], f32>");
  EXPECT_TRUE(h.type.is_unknown());
  EXPECT_EQ(h.hints, (std::vector<std::string>{"no_grad", "my_hint"}));
  EXPECT_EQ(h.annotations.Find("note")->as_int(), 8);
  EXPECT_EQ(h.annotations.Find("tags")->ToString(), "[1, 2]");
  EXPECT_EQ(ir::DumpNode(g, h), "%1 h = relu(%0) : ?  # hints: no_grad, my_hint");
}

// LANGUAGE.md §6: a node's `key: value;` line takes any constant, lists of
// strings, bools and lists too (they were "must be a constant"); a param's
// were dropped.
TEST(LowerTest, AttributeLinesTakeListsOfAnyConstants) {
  testing::Lowered l = LowerText(
      "@config { K: 2; }\n"
      "@graph G {\n"
      "  input x: Tensor<[2], f32>;\n"
      "  param w: Tensor<[2], f32> { device: [\"a\", \"b\"]; };\n"
      "  node h { op: relu(x); tags: [\"a\", \"b\"]; flags: [true, false]; mixed: [1, \"s\", [K, 2.5]]; };\n"
      "  output h;\n"
      "}\n");
  ASSERT_TRUE(l.ok) << l.rendered;
  const ir::Graph& g = l.program.graphs[0];
  const ir::Node& h = g.node(g.FindNode("h"));
  const ir::AttrValue* tags = h.annotations.Find("tags");
  ASSERT_NE(tags, nullptr);
  ASSERT_TRUE(tags->is_list());
  ASSERT_EQ(tags->as_list().size(), 2u);
  EXPECT_EQ(tags->as_list()[1].as_string(), "b");
  EXPECT_EQ(h.annotations.Find("flags")->ToString(), "[true, false]");
  EXPECT_EQ(h.annotations.Find("mixed")->ToString(), "[1, \"s\", [2, 2.5]]");
  EXPECT_EQ(g.node(g.params()[0].node).annotations.Find("device")->ToString(), "[\"a\", \"b\"]");
}

TEST(LowerTest, NamesLiteralsAndConfigKeys) {
  EXPECT_EQ(LowerDump("@config { k: 3; f: 0.5; on: true; }\n"
                      "@graph G {\n"
                      "  input x: f32;\n"
                      "  node a { op: x; };\n"          // identity of x
                      "  node b { op: k; };\n"          // config key -> constant
                      "  node c { op: (x + f) * on; };\n"
                      "  node d { op: -x ** 2; };\n"
                      "  node e { op: !(x < 1.5e3); };\n"
                      "  node g { op: 7; };\n"
                      "  output e;\n"
                      "}\n"),
            "graph G: 14 nodes, 1 inputs, 1 outputs, 0 params\n"
            "  %0 x = input : Tensor<[], f32>\n"
            "  %1 a = identity(%0) : ?\n"
            "  %2 b = constant[3] : ?\n"
            "  %3 __anon_3 = constant[0.5] : ?\n"
            "  %4 __anon_4 = add(%0, %3) : ?\n"
            "  %5 __anon_5 = constant[true] : ?\n"
            "  %6 c = mul(%4, %5) : ?\n"
            "  %7 __anon_7 = neg(%0) : ?\n"
            "  %8 __anon_8 = constant[2] : ?\n"
            "  %9 d = pow(%7, %8) : ?\n"
            "  %10 __anon_10 = constant[1500] : ?\n"
            "  %11 __anon_11 = less(%0, %10) : ?\n"
            "  %12 e = not(%11) : ?\n"
            "  %13 g = constant[7] : ?\n"
            "  outputs: e=%12\n");
}

TEST(LowerTest, LocalNamesShadowConfigKeys) {
  EXPECT_EQ(LowerDump("@config { x: 3; }\n@graph G { input x: f32; output y: x + x; }"),
            "graph G: 2 nodes, 1 inputs, 1 outputs, 0 params\n"
            "  %0 x = input : Tensor<[], f32>\n"
            "  %1 y = add(%0, %0) : ?\n"
            "  outputs: y=%1\n");
}

TEST(LowerTest, EveryBinaryOperator) {
  std::string dump = LowerDump(
      "@graph G { input a: f32; input b: f32;\n"
      "  node n1 { op: a + b; }; node n2 { op: a - b; }; node n3 { op: a * b; };\n"
      "  node n4 { op: a / b; }; node n5 { op: a % b; }; node n6 { op: a ** b; };\n"
      "  node n7 { op: a == b; }; node n8 { op: a != b; }; node n9 { op: a < b; };\n"
      "  node n10 { op: a > b; }; node n11 { op: a <= b; }; node n12 { op: a >= b; };\n"
      "  node n13 { op: a && b; }; node n14 { op: a || b; };\n"
      "  output n1; }");
  for (const char* op : {"add", "sub", "mul", "div", "mod", "pow", "equal", "not_equal", "less",
                         "greater", "less_equal", "greater_equal", "and", "or"}) {
    EXPECT_NE(dump.find(std::string(" = ") + op + "(%0, %1)"), std::string::npos) << op;
  }
}

TEST(LowerTest, OutputsByNameExpressionAndReExport) {
  EXPECT_EQ(LowerDump("@graph G {\n"
                      "  input x: f32;\n"
                      "  output x;\n"
                      "  output alias: x;\n"
                      "  output exp(x);\n"
                      "  output named: (relu(x));\n"
                      "  output twice: named * 2;\n"
                      "}\n"),
            "graph G: 5 nodes, 1 inputs, 5 outputs, 0 params\n"
            "  %0 x = input : Tensor<[], f32>\n"
            "  %1 __output_2 = exp(%0) : ?\n"
            "  %2 named = relu(%0) : ?\n"
            "  %3 __anon_3 = constant[2] : ?\n"
            "  %4 twice = mul(%2, %3) : ?\n"
            "  outputs: x=%0, alias=%0, __output_2=%1, named=%2, twice=%4\n");
}

TEST(LowerTest, BuiltinAttributesAreCompleteWithDefaults) {
  EXPECT_EQ(LowerDump("@config { axis: -2; heads: 2; }\n"
                      "@graph G {\n"
                      "  input x: Tensor<[2, 3, 4], f32>;\n"
                      "  node a { op: softmax(x); };\n"
                      "  node b { op: softmax(x, dim: axis); };\n"
                      "  node c { op: sum(x); };\n"
                      "  node d { op: mean(x, dim: [0, -1], keepdim: true); };\n"
                      "  node e { op: max(x, dim: 1); };\n"
                      "  node f { op: reshape(x, shape: [Batch, -1, 2 * 2]); };\n"
                      "  node g { op: layer_norm(x, eps: 1); };\n"
                      "  node h { op: multi_head_attention(x, n_heads: heads); };\n"
                      "  node i { op: cast(x, dtype: \"f64\"); };\n"
                      "  node j { op: split(x, chunks: 2); };\n"
                      "  node k { op: transpose(x); };\n"
                      "  node l { op: cat(x, x, dim: -1); };\n"
                      "  output a;\n"
                      "}\n"),
            "graph G: 13 nodes, 1 inputs, 1 outputs, 0 params\n"
            "  %0 x = input : Tensor<[2, 3, 4], f32>\n"
            "  %1 a = softmax[dim=-1](%0) : ?\n"
            "  %2 b = softmax[dim=-2](%0) : ?\n"
            "  %3 c = sum[dims=all, keepdim=false](%0) : ?\n"
            "  %4 d = mean[dims=[0, -1], keepdim=true](%0) : ?\n"
            "  %5 e = max[dims=[1], keepdim=false](%0) : ?\n"
            "  %6 f = reshape[shape=[Batch, -1, 4]](%0) : ?\n"
            "  %7 g = layer_norm[eps=1](%0) : ?\n"
            "  %8 h = multi_head_attention[n_heads=2, causal=false](%0) : ?\n"
            "  %9 i = cast[dtype=f64](%0) : ?\n"
            "  %10 j = split[chunks=2, dim=0, index=0](%0) : ?\n"
            "  %11 k = transpose[dim0=-2, dim1=-1](%0) : ?\n"
            "  %12 l = concat[dim=-1](%0, %0) : ?\n"
            "  outputs: a=%1\n");
  testing::Lowered l = LowerText(
      "@graph G { input x: Tensor<[2], f32>; output y: layer_norm(x, eps: 1); }");
  ASSERT_TRUE(l.ok);
  const ir::AttrValue* eps = l.program.graphs[0].node(1).attr("eps");
  ASSERT_NE(eps, nullptr);
  EXPECT_TRUE(eps->is_float());  // an int is accepted where a float is expected
}

TEST(LowerTest, GraphCallsByPositionAndByName) {
  EXPECT_EQ(LowerDump("@graph Main {\n"
                      "  input p: f32;\n"
                      "  input q: f32;\n"
                      "  node r1 { op: Sub(p, q); };\n"
                      "  node r2 { op: Sub(b: relu(p), a: exp(q)); };\n"
                      "  output r2;\n"
                      "}\n"
                      "@graph Sub(a: f32, b: f32, c: f32?) { output d: a - b; }\n"),
            "graph Main: 6 nodes, 2 inputs, 1 outputs, 0 params\n"
            "  %0 p = input : Tensor<[], f32>\n"
            "  %1 q = input : Tensor<[], f32>\n"
            "  %2 r1 = call[Sub](%0, %1) : ?\n"
            "  %3 __anon_3 = relu(%0) : ?\n"   // arguments lowered in source order…
            "  %4 __anon_4 = exp(%1) : ?\n"
            "  %5 r2 = call[Sub](%4, %3) : ?\n"  // …and passed in input order
            "  outputs: r2=%5\n");
}

TEST(LowerTest, CustomOpCalls) {
  EXPECT_EQ(LowerDump("@custom_op rope { signature: (x: f32) -> f32; }\n"
                      "@graph G { input x: f32; output y: rope(x, theta: 1e4, mode: fast); }\n"),
            "graph G: 2 nodes, 1 inputs, 1 outputs, 0 params\n"
            "  %0 x = input : Tensor<[], f32>\n"
            "  %1 y = custom[rope, theta=10000, mode=fast](%0) : ?\n"
            "  outputs: y=%1\n");
}

TEST(LowerTest, CustomOpCallReportsEveryBadAttribute) {
  testing::Lowered l = testing::LowerText("@custom_op rope { signature: (x: f32) -> f32; }\n"
                                          "@graph G { input x: f32; output y: rope(x, theta: x, mode: 1, theta: 2, base: x); }\n");
  ASSERT_EQ(l.diagnostics.size(), 3u) << l.rendered;
  EXPECT_EQ(l.diagnostics[0].message, "attribute 'theta' of rope must be a constant, but 'x' is a tensor of the graph");
  EXPECT_EQ(l.diagnostics[1].message, "attribute 'theta' of rope is given twice");
  EXPECT_EQ(l.diagnostics[2].message, "attribute 'base' of rope must be a constant, but 'x' is a tensor of the graph");
}

TEST(LowerTest, Repeat) {
  EXPECT_EQ(LowerDump("@config { L: 3; }\n"
                      "@graph G {\n"
                      "  input x: Tensor<[2, 8, 16], f32>;\n"
                      "  node a { op: repeat(L) { transformer_block(x, n_heads: 4) }; };\n"
                      "  node b { op: repeat(2) { (a * 0.5) }; };\n"
                      "  node c { op: repeat(0) { relu(x) }; };\n"
                      "  output c;\n"
                      "}\n"),
            "graph G: 5 nodes, 1 inputs, 1 outputs, 0 params\n"
            "  %0 x = input : Tensor<[2, 8, 16], f32>\n"
            "  %1 a = repeat[count=3, body=transformer_block[n_heads=4, causal=true]](%0) : ?\n"
            "  %2 __anon_2 = constant[0.5] : ?\n"
            "  %3 b = repeat[count=2, body=mul](%1, %2) : ?\n"
            "  %4 c = repeat[count=0, body=relu](%0) : ?\n"
            "  outputs: c=%4\n");
}

TEST(LowerTest, Assertions) {
  testing::Lowered l = LowerText(
      "@config { Hidden: 4; }\n"
      "@graph G {\n"
      "  input x: f32;\n"
      "  @assert Hidden > 0, \"hidden size must be positive\";\n"
      "  @check limits { assert Hidden < 100; assert Hidden != 3, \"not three\"; }\n"
      "  output x;\n"
      "}\n");
  ASSERT_TRUE(l.ok) << l.rendered;
  const auto& a = l.program.graphs[0].assertions();
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].message, "hidden size must be positive");
  EXPECT_EQ(a[0].source_text, "Hidden > 0");
  EXPECT_EQ(a[0].span.line, 4u);
  EXPECT_EQ(a[1].message, "");
  EXPECT_EQ(a[1].source_text, "Hidden < 100");
  EXPECT_EQ(a[2].message, "not three");
  EXPECT_EQ(l.program.graphs[0].num_nodes(), 1);
}

TEST(LowerTest, ProgramLevelBlocks) {
  testing::Lowered l = LowerText(
      "@import \"common.sw\" as common;\n"
      "@model { name: \"Demo\"; tags: [\"small\", \"test\"]; v: 007; r: 1e-5; ok: true; n: null; }\n"
      "@model { name: \"Later\"; }\n"
      "@config { Hidden: 16; lr0: 3e-4; }\n"
      "@graph Net { input x: f32; output x; }\n"
      "@custom_op rope { signature: (x: f32) -> f32; }\n"
      "@training {\n"
      "  model: Net; loss: mse;\n"
      "  optimizer: { type: \"AdamW\"; lr: lr0; weight_decay: 0.01; }\n"
      "  lr_schedule: { warmup: 10; }\n"
      "  grad_clip: { type: \"norm\"; max_norm: 1.0; }\n"
      "  epochs: 3; batch_size: Hidden / 2; precision: \"bf16\"; accumulation_steps: \"x\";\n"
      "}\n"
      "@inference { model: Net; optimizations: [fuse]; generation: { temperature: 0.7; } }\n"
      "@metrics Stats { track train_loss { source: loss; aggregate: \"mean\"; } }\n"
      "@logging { backend: \"stdout\"; }\n");
  ASSERT_TRUE(l.ok) << l.rendered;
  const ir::Program& p = l.program;
  EXPECT_EQ(p.metadata.at("name"), "Later");
  EXPECT_EQ(p.metadata.at("tags"), "[\"small\", \"test\"]");
  EXPECT_EQ(p.metadata.at("v"), "7");
  EXPECT_EQ(p.metadata.at("r"), "1e-05");
  EXPECT_EQ(p.metadata.at("ok"), "true");
  EXPECT_EQ(p.metadata.at("n"), "null");
  EXPECT_EQ(p.custom_ops, std::vector<std::string>{"rope"});
  ASSERT_TRUE(p.training.has_value());
  const ir::TrainingSettings& t = *p.training;
  EXPECT_EQ(t.model, "Net");
  EXPECT_EQ(t.model_span.line, 8u);
  EXPECT_EQ(t.loss, "mse");
  EXPECT_EQ(t.optimizer_type, "AdamW");
  EXPECT_DOUBLE_EQ(t.lr, 3e-4);
  EXPECT_DOUBLE_EQ(t.optimizer_extra.at("weight_decay").f, 0.01);
  EXPECT_EQ(t.optimizer_extra.count("type"), 0u);
  EXPECT_EQ(t.lr_schedule_kind, "constant");
  EXPECT_EQ(t.lr_schedule.at("warmup").i, 10);
  EXPECT_EQ(t.grad_clip_kind, "norm");
  EXPECT_DOUBLE_EQ(t.grad_clip.at("max_norm").f, 1.0);
  EXPECT_EQ(t.epochs, 3);
  EXPECT_EQ(t.batch_size, 8);
  EXPECT_EQ(t.precision, "bf16");
  EXPECT_EQ(t.accumulation_steps, 1);  // wrong kind: default kept
  ASSERT_TRUE(p.inference.has_value());
  EXPECT_EQ(p.inference->model, "Net");
  EXPECT_DOUBLE_EQ(p.inference->generation.at("temperature").f, 0.7);
}

TEST(LowerTest, TrainingDefaultsAndLastBlockWins) {
  testing::Lowered l = LowerText(
      "@graph Net { input x: f32; output x; }\n"
      "@training { model: Net; epochs: 9; }\n"
      "@training { loss: cross_entropy; }\n");
  ASSERT_TRUE(l.ok) << l.rendered;
  const ir::TrainingSettings& t = *l.program.training;
  EXPECT_FALSE(t.model.has_value());
  EXPECT_EQ(t.loss, "cross_entropy");
  EXPECT_EQ(t.epochs, 1);
  EXPECT_EQ(t.optimizer_type, "SGD");
  EXPECT_DOUBLE_EQ(t.lr, 0.01);
  EXPECT_EQ(t.precision, "fp32");
  EXPECT_FALSE(t.lr_schedule_kind.has_value());
  EXPECT_FALSE(t.grad_clip_kind.has_value());
  EXPECT_FALSE(l.program.inference.has_value());
}

// LANGUAGE.md §7: unknown fields are ignored, so never evaluated (`1 / 0`
// was E052 in @training, nothing in @inference); `learning_rate` and `lr`
// are synonyms, the number written last wins (learning_rate always did).
TEST(LowerTest, TrainingIgnoresUnknownFieldsAndTakesTheLastLearningRate) {
  testing::Lowered l = LowerText(
      "@graph Net { input x: f32; output x; }\n"
      "@training {\n"
      "  unknown_field: 1 / 0;\n"
      "  notes: -\"x\";\n"
      "  extras: { a: 1 / 0, b: 2 };\n"
      "  optimizer: { learning_rate: 0.1; lr: 0.5; momentum: 0.9; }\n"
      "  epochs: 4;\n"
      "}\n");
  ASSERT_TRUE(l.ok) << l.rendered;
  const ir::TrainingSettings& t = *l.program.training;
  EXPECT_DOUBLE_EQ(t.lr, 0.5);
  EXPECT_EQ(t.epochs, 4);
  EXPECT_EQ(t.optimizer_extra.count("lr") + t.optimizer_extra.count("learning_rate"), 0u);
  EXPECT_DOUBLE_EQ(t.optimizer_extra.at("momentum").f, 0.9);
  for (const char* fields : {"lr: 0.5; learning_rate: 0.1;", "lr: 0.3; learning_rate: \"fast\";",
                             "learning_rate: 0.2; lr: 0.4; learning_rate: 0.1;"}) {
    testing::Lowered m = LowerText(std::string("@graph Net { input x: f32; output x; }\n@training { optimizer: { ") +
                                   fields + " } }\n");
    ASSERT_TRUE(m.ok) << m.rendered;
    EXPECT_DOUBLE_EQ(m.program.training->lr, std::string(fields).rfind("0.1") != std::string::npos ? 0.1 : 0.3)
        << fields;
  }
}

TEST(LowerTest, LargeGraphIsLinear) {
  std::string text = "@graph G {\n  input x: Tensor<[4], f32>;\n  node n0 { op: relu(x); };\n";
  for (int i = 1; i < 20000; ++i) {
    text += "  node n" + std::to_string(i) + " { op: n" + std::to_string(i - 1) + " * 2 + x; };\n";
  }
  text += "  output n19999;\n}\n";
  testing::Lowered l = LowerText(text);
  ASSERT_TRUE(l.ok);
  EXPECT_EQ(l.program.graphs[0].num_nodes(), 2 + 3 * 19999);
}

}  // namespace
}  // namespace shrew::lower
