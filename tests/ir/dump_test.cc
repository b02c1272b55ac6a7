#include "ir/dump.h"

#include <gtest/gtest.h>

#include "ir/shapes.h"
#include "ir_test_util.h"

namespace shrew::ir {
namespace {

using testing::A;
using testing::GraphFixture;
using testing::T;

// PIPELINE.md §2.4: the graph as lowering produces it.
GraphFixture Section24() {
  GraphFixture f;
  NodeId x = f.In("x", "[2, 3] f32");
  NodeId w = f.g.AddParam("W", T("[3, 4] f32"), *ParseInit("xavier_uniform"));
  NodeId b = f.g.AddParam("b", T("[4] f32"), *ParseInit("zeros"));
  NodeId m = f.Op(OpKind::kMatmul, {x, w});
  NodeId a = f.Op(OpKind::kAdd, {m, b});
  NodeId h = f.Op(OpKind::kRelu, {a}, "h");
  NodeId two = f.Const(AttrValue::Int(2));
  NodeId c = f.Op(OpKind::kMul, {x, two}, "c");
  f.Out(h);
  f.Out(c);
  return f;
}

TEST(DumpTest, GoldenAfterLowering) {
  GraphFixture f = Section24();
  EXPECT_EQ(DumpGraph(f.g),
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

TEST(DumpTest, GoldenAfterInference) {
  GraphFixture f = Section24();
  ASSERT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(DumpGraph(f.g),
            "graph G: 8 nodes, 1 inputs, 2 outputs, 2 params\n"
            "  %0 x = input : Tensor<[2, 3], f32>\n"
            "  %1 W = param[init=xavier_uniform] : Tensor<[3, 4], f32>\n"
            "  %2 b = param[init=zeros] : Tensor<[4], f32>\n"
            "  %3 __anon_3 = matmul(%0, %1) : Tensor<[2, 4], f32>\n"
            "  %4 __anon_4 = add(%3, %2) : Tensor<[2, 4], f32>\n"
            "  %5 h = relu(%4) : Tensor<[2, 4], f32>\n"
            "  %6 __anon_6 = constant[2:f32] : Tensor<[], f32>\n"
            "  %7 c = mul(%0, %6) : Tensor<[2, 3], f32>\n"
            "  outputs: h=%5, c=%7\n");
  DumpOptions no_types;
  no_types.types = false;
  EXPECT_EQ(DumpNode(f.g, f.g.node(5), no_types), "%5 h = relu(%4)");
}

// With an input of unknown type each run re-types the literals (OPS.md
// §1.3): the dtype inference gave them here is provisional, so they print as
// weak, in the text and the JSON alike; a declared literal keeps its type.
TEST(DumpTest, LiteralsOfAGraphTypedPerRunPrintAsWeak) {
  GraphFixture f;
  NodeId x = f.In("x", "?");
  NodeId two = f.Const(AttrValue::Int(2));
  NodeId y = f.Op(OpKind::kMul, {x, two}, "y");
  NodeId half = f.Const(AttrValue::Float(0.5), "half");
  f.g.node(half).declared_type = T("[] f64");
  f.Out(y);
  f.Out(half);
  ASSERT_TRUE(f.Infer()) << f.Messages();
  ASSERT_TRUE(f.g.node(two).type.is_tensor());  // inference gave it a provisional dtype
  EXPECT_EQ(DumpGraph(f.g),
            "graph G: 4 nodes, 1 inputs, 2 outputs, 0 params\n"
            "  %0 x = input : ?\n"
            "  %1 __anon_1 = constant[2] : ?\n"
            "  %2 y = mul(%0, %1) : ?\n"
            "  %3 half = constant[0.5:f64] : Tensor<[], f64>\n"
            "  outputs: y=%2, half=%3\n");
  EXPECT_EQ(DumpNode(f.g, f.g.node(two)), "%1 __anon_1 = constant[2] : ?");
  const std::string json = DumpGraphJson(f.g);
  EXPECT_NE(json.find("\"label\":\"constant[2]\",\"role\":\"compute\",\"operands\":[],\"attrs\":{\"value\":2},"
                      "\"annotations\":{},\"type\":null"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"label\":\"constant[0.5:f64]\""), std::string::npos) << json;
}

// So does an expression of literals only (`c = 1 / 2`: i64 here, f32 in a
// run with an f32 x), unless a declaration fixed its dtype.
TEST(DumpTest, WeakExpressionsOfAGraphTypedPerRunPrintAsWeak) {
  GraphFixture f;
  NodeId x = f.In("x", "?");
  NodeId c = f.Op(OpKind::kDiv, {f.Const(AttrValue::Int(1)), f.Const(AttrValue::Int(2))}, "c");
  NodeId y = f.Op(OpKind::kMul, {x, c}, "y");
  NodeId d = f.Op(OpKind::kNeg, {c}, "d");
  f.g.node(d).declared_type = T("[] f64");
  f.Out(y);
  f.Out(c);
  f.Out(d);
  ASSERT_TRUE(f.Infer()) << f.Messages();
  ASSERT_TRUE(f.g.node(c).type.is_tensor());  // provisionally i64
  EXPECT_EQ(DumpNode(f.g, f.g.node(c)), "%3 c = div(%1, %2) : ?");
  EXPECT_EQ(DumpNode(f.g, f.g.node(d)), "%5 d = neg(%3) : Tensor<[], f64>");
  EXPECT_EQ(ProvisionalTypes(f.g), (std::vector<bool>{false, true, true, true, false, false}));
  f.g.node(x).type = T("[2] f32");  // typed: nothing is provisional
  EXPECT_EQ(ProvisionalTypes(f.g), std::vector<bool>(6, false));
}

TEST(DumpTest, AttributesInSchemaOrderWithDefaults) {
  GraphFixture f;
  NodeId x = f.In("x", "[2, 3] f32");
  NodeId sm = f.Op(OpKind::kSoftmax, {x}, "p");
  NodeId sum = f.Op(OpKind::kSum, {x}, "s");
  NodeId sum1 = f.Op(OpKind::kSum, {x}, "s1",
                     A({{"keepdim", AttrValue::Bool(true)}, {"dims", AttrValue::IntList({1})}}));
  NodeId ln = f.Op(OpKind::kLayerNorm, {x}, "ln");
  NodeId rs = f.Op(OpKind::kReshape, {x}, "r",
                   A({{"shape", AttrValue::Shape({Dim::Symbolic("B"), Dim::Dynamic()})}}));
  NodeId cf = f.Const(AttrValue::Float(2.5));
  NodeId cb = f.Const(AttrValue::Bool(false));
  NodeId call = f.Op(OpKind::kCall, {x}, "enc");
  f.g.node(call).callee = "Encoder";
  NodeId custom = f.Op(OpKind::kCustom, {x}, "cu", A({{"alpha", AttrValue::Float(0.5)}}));
  f.g.node(custom).callee = "my_op";
  NodeId rep = f.Op(OpKind::kRepeat, {x}, "blocks", A({{"count", AttrValue::Int(2)}}));
  f.g.node(rep).repeat_body = RepeatBody{OpKind::kTransformerBlock, A({{"n_heads", AttrValue::Int(4)}}), ""};
  NodeId tr = f.Op(OpKind::kTranspose, {x}, "t");
  NodeId cast = f.Op(OpKind::kCast, {x}, "k", A({{"dtype", AttrValue::String("i64")}}));
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(sm)), "softmax[dim=-1]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(sum)), "sum[dims=all, keepdim=false]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(sum1)), "sum[dims=[1], keepdim=true]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(ln)), "layer_norm[eps=1e-05]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(rs)), "reshape[shape=[B, -1]]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(cf)), "constant[2.5]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(cb)), "constant[false]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(call)), "call[Encoder]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(custom)), "custom[my_op, alpha=0.5]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(rep)),
            "repeat[count=2, body=transformer_block[n_heads=4, causal=true]]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(tr)), "transpose[dim0=-2, dim1=-1]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(cast)), "cast[dtype=i64]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(x)), "identity");
  f.Infer();  // (the repeat body reports a rank error; constants still resolve)
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(cf)), "constant[2.5:f32]");
  EXPECT_EQ(DumpOpWithAttrs(f.g.node(cb)), "constant[false:bool]");
}

TEST(DumpTest, FrozenParamsHintsAndInitText) {
  GraphFixture f;
  NodeId x = f.In("x", "[4, 20] f32");
  f.g.AddParam("scale", T("[5] f32"), *ParseInit("ones"), /*frozen=*/true);
  f.g.AddParam("b_out", T("[5] f32"), *ParseInit("uniform(-0.05, 0.05)"));
  NodeId r = f.Op(OpKind::kRelu, {x}, "blocks");
  f.g.node(r).hints = {"recompute_in_backward", "no_grad"};
  f.Out(r, "y");
  EXPECT_EQ(DumpGraph(f.g),
            "graph G: 4 nodes, 1 inputs, 1 outputs, 2 params\n"
            "  %0 x = input : Tensor<[4, 20], f32>\n"
            "  %1 scale = param[init=ones, frozen=true] : Tensor<[5], f32>\n"
            "  %2 b_out = param[init=uniform(-0.05, 0.05)] : Tensor<[5], f32>\n"
            "  %3 blocks = relu(%0) : ?  # hints: recompute_in_backward, no_grad\n"
            "  outputs: y=%3\n");
}

TEST(DumpTest, ProgramSeparatesGraphs) {
  Program p;
  GraphFixture a;
  a.g.set_name("A");
  a.Out(a.In("x", "[1] f32"));
  GraphFixture b;
  b.g.set_name("B");
  b.Out(b.Const(AttrValue::Int(1), "one"));
  p.graphs = {a.g, b.g};
  EXPECT_EQ(DumpProgram(p),
            "graph A: 1 nodes, 1 inputs, 1 outputs, 0 params\n"
            "  %0 x = input : Tensor<[1], f32>\n"
            "  outputs: x=%0\n"
            "\n"
            "graph B: 1 nodes, 0 inputs, 1 outputs, 0 params\n"
            "  %0 one = constant[1] : ?\n"
            "  outputs: one=%0\n");
}

TEST(DumpTest, MalformedGraphsStillDump) {
  GraphFixture f;
  f.Op(OpKind::kAdd, {7, -1}, "bad");
  f.g.AddOutput("ghost", 42);
  EXPECT_EQ(DumpGraph(f.g),
            "graph G: 1 nodes, 0 inputs, 1 outputs, 0 params\n"
            "  %0 bad = add(%7, %-1) : ?\n"
            "  outputs: ghost=%42\n");
  EXPECT_FALSE(DumpGraphJson(f.g).empty());
}

TEST(DumpJsonTest, Structure) {
  GraphFixture f = Section24();
  ASSERT_TRUE(f.Infer());
  f.g.node(5).hints = {"in_place"};
  std::string json = DumpGraphJson(f.g);
  EXPECT_EQ(json.rfind("{\"name\":\"G\",\"inputs\":[{\"node\":0,\"optional\":false}],", 0), 0u) << json;
  EXPECT_NE(json.find("\"outputs\":[{\"name\":\"h\",\"node\":5},{\"name\":\"c\",\"node\":7}]"),
            std::string::npos);
  EXPECT_NE(json.find("{\"node\":1,\"name\":\"W\",\"init\":\"xavier_uniform\",\"frozen\":false,"
                      "\"implicit\":false,\"type\":{\"text\":\"Tensor<[3, 4], f32>\",\"dims\":[3,4],"
                      "\"dtype\":\"f32\"}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"id\":6,\"name\":\"__anon_6\",\"op\":\"constant\",\"label\":\"constant[2:f32]\","
                      "\"role\":\"compute\",\"operands\":[],\"attrs\":{\"value\":2}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"hints\":[\"in_place\"]"), std::string::npos);
  EXPECT_NE(json.find("\"span\":{\"offset\":600,\"length\":4,\"line\":6,\"column\":3}"), std::string::npos);
  EXPECT_NE(json.find("\"edges\":[[0,3],[1,3],[3,4],[2,4],[4,5],[0,7],[6,7]]"), std::string::npos) << json;
  // Balanced brackets outside strings.
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    EXPECT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0);
}

TEST(DumpJsonTest, EscapesAndSpecialValues) {
  GraphFixture f;
  NodeId x = f.In("x\"q", "[Batch, ?] f32");
  NodeId c = f.Const(AttrValue::Float(1.0 / 0.0), "inf");
  NodeId r = f.Op(OpKind::kReshape, {x}, "r",
                  A({{"shape", AttrValue::Shape({Dim::Symbolic("Batch"), Dim::Dynamic(), Dim::Fixed(2)})}}));
  f.g.node(r).annotations.Set("device", AttrValue::String("cpu\n"));
  std::string json = DumpGraphJson(f.g);
  EXPECT_NE(json.find("\"name\":\"x\\\"q\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"dims\":[\"Batch\",\"?\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"attrs\":{\"value\":\"inf\"}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"attrs\":{\"shape\":[\"Batch\",-1,2]}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"annotations\":{\"device\":\"cpu\\n\"}"), std::string::npos) << json;
  (void)c;
  Program p;
  p.graphs = {f.g, f.g};
  std::string pj = DumpProgramJson(p);
  EXPECT_EQ(pj.rfind("{\"graphs\":[{\"name\":", 0), 0u);
  EXPECT_EQ(pj.back(), '}');
}

}  // namespace
}  // namespace shrew::ir
