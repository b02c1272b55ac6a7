// The conformance examples (tests/testdata/examples), lowered by hand as
// PIPELINE.md §2.4 describes, must infer the output types listed in the
// examples' README.
#include <gtest/gtest.h>

#include "ir/shapes.h"
#include "ir_test_util.h"

namespace shrew::ir {
namespace {

using testing::A;
using testing::GraphFixture;
using testing::T;

std::string OutType(const GraphFixture& f, const std::string& name) {
  int i = f.g.FindOutput(name);
  if (i < 0) return "<no output " + name + ">";
  return f.TypeOf(f.g.outputs()[static_cast<size_t>(i)].node);
}

TEST(ExamplesTest, LogisticRegression) {
  GraphFixture f;
  NodeId x = f.In("x", "[N, 12] f32");
  NodeId y = f.In("y", "[N, 1] f32");
  NodeId w = f.Param("w", "[12, 1] f32");
  NodeId b = f.Param("b", "[1] f32");
  NodeId z = f.Op(OpKind::kAdd, {f.Op(OpKind::kMatmul, {x, w}), b}, "z");
  NodeId p = f.Op(OpKind::kSigmoid, {z}, "p");
  // y * log(p + eps) + (1 - y) * log(1 - p + eps), eps = 1e-7 from @config
  NodeId l1 = f.Op(OpKind::kMul, {y, f.Op(OpKind::kLog, {f.Op(OpKind::kAdd, {p, f.Const(AttrValue::Float(1e-7))})})});
  NodeId one_minus_y = f.Op(OpKind::kSub, {f.Const(AttrValue::Int(1)), y});
  NodeId one_minus_p = f.Op(OpKind::kSub, {f.Const(AttrValue::Int(1)), p});
  NodeId l2 = f.Op(OpKind::kMul, {one_minus_y, f.Op(OpKind::kLog, {f.Op(OpKind::kAdd, {one_minus_p, f.Const(AttrValue::Float(1e-7))})})});
  NodeId log_lik = f.Op(OpKind::kAdd, {l1, l2}, "log_lik");
  NodeId bce = f.Op(OpKind::kNeg, {f.Op(OpKind::kMean, {log_lik})}, "bce");
  f.Out(p, "prob");
  f.Out(bce, "loss");
  f.Out(f.Op(OpKind::kMseLoss, {p, y}, "squared_error"));
  NodeId gt1 = f.Op(OpKind::kGreater, {p, f.Const(AttrValue::Float(0.5))});
  NodeId gt2 = f.Op(OpKind::kGreater, {y, f.Const(AttrValue::Float(0.5))});
  f.Out(f.Op(OpKind::kEqual, {gt1, gt2}, "correct"));
  EXPECT_TRUE(ValidateGraph(f.g, nullptr, &f.diags));
  ASSERT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(OutType(f, "prob"), "Tensor<[N, 1], f32>");
  EXPECT_EQ(OutType(f, "loss"), "Tensor<[], f32>");
  EXPECT_EQ(OutType(f, "squared_error"), "Tensor<[], f32>");
  EXPECT_EQ(OutType(f, "correct"), "Tensor<[N, 1], bool>");
  for (const Node& n : f.g.nodes()) {
    if (n.op == OpKind::kConstant) EXPECT_EQ(n.type.ToString(), "Tensor<[], f32>") << n.name;
  }
}

TEST(ExamplesTest, TransformerBlockFromPrimitives) {
  GraphFixture f;
  NodeId x = f.In("x", "[Batch, Seq, 32] f32");
  NodeId mask = f.In("mask", "[Seq, Seq] f32");
  NodeId ln1_g = f.Param("ln1_g", "[32] f32");
  NodeId ln1_b = f.Param("ln1_b", "[32] f32");
  NodeId wq = f.Param("wq", "[32, 32] f32");
  NodeId wk = f.Param("wk", "[32, 32] f32");
  NodeId wv = f.Param("wv", "[32, 32] f32");
  NodeId wo = f.Param("wo", "[32, 32] f32");
  NodeId w1 = f.Param("w1", "[32, 128] f32");
  NodeId b1 = f.Param("b1", "[128] f32");
  NodeId w2 = f.Param("w2", "[128, 32] f32");
  NodeId b2 = f.Param("b2", "[32] f32");
  NodeId a_in = f.Op(OpKind::kLayerNorm, {x, ln1_g, ln1_b}, "a_in", A({{"eps", AttrValue::Float(1e-5)}}));
  AttrValue heads_shape = AttrValue::Shape({Dim::Symbolic("Batch"), Dim::Symbolic("Seq"), Dim::Fixed(4), Dim::Fixed(8)});
  auto project = [&](NodeId w, const char* name) {
    NodeId r = f.Op(OpKind::kReshape, {f.Op(OpKind::kMatmul, {a_in, w})}, "", A({{"shape", heads_shape}}));
    return f.Op(OpKind::kPermute, {r}, name, A({{"dims", AttrValue::IntList({0, 2, 1, 3})}}));
  };
  NodeId q = project(wq, "q");
  NodeId k = project(wk, "k");
  NodeId v = project(wv, "v");
  NodeId qk = f.Op(OpKind::kMatmul, {q, f.Op(OpKind::kTranspose, {k})});
  NodeId scores = f.Op(OpKind::kAdd, {f.Op(OpKind::kMul, {qk, f.Const(AttrValue::Float(0.35355339059327373))}), mask}, "scores");
  NodeId attn = f.Op(OpKind::kSoftmax, {scores}, "attn", A({{"dim", AttrValue::Int(-1)}}));
  NodeId ctx = f.Op(OpKind::kReshape,
                    {f.Op(OpKind::kPermute, {f.Op(OpKind::kMatmul, {attn, v})}, "", A({{"dims", AttrValue::IntList({0, 2, 1, 3})}}))},
                    "ctx", A({{"shape", AttrValue::Shape({Dim::Symbolic("Batch"), Dim::Symbolic("Seq"), Dim::Fixed(32)})}}));
  NodeId h = f.Op(OpKind::kAdd, {x, f.Op(OpKind::kMatmul, {ctx, wo})}, "h");
  NodeId f_in = f.Op(OpKind::kLayerNorm, {h, ln1_g, ln1_b}, "f_in");
  NodeId ff = f.Op(OpKind::kAdd, {f.Op(OpKind::kMatmul, {f.Op(OpKind::kGelu, {f.Op(OpKind::kAdd, {f.Op(OpKind::kMatmul, {f_in, w1}), b1})}), w2}), b2}, "ff");
  f.Out(f.Op(OpKind::kAdd, {h, ff}, "y"));
  f.Out(attn);
  ASSERT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(q), "Tensor<[Batch, 4, Seq, 8], f32>");
  EXPECT_EQ(OutType(f, "y"), "Tensor<[Batch, Seq, 32], f32>");
  EXPECT_EQ(OutType(f, "attn"), "Tensor<[Batch, 4, Seq, Seq], f32>");
  // With a binding the reshapes are checked for element counts.
  Graph g = f.g;
  diag::DiagnosticBag bag;
  EXPECT_TRUE(SpecializeGraphTypes(&g, nullptr, {{"Batch", 2}, {"Seq", 5}}, &bag));
  EXPECT_EQ(g.node(attn).type.ToString(), "Tensor<[2, 4, 5, 5], f32>");
}

TEST(ExamplesTest, LogicReductions) {
  GraphFixture f;
  NodeId readings = f.In("readings", "[Time, 6] f32");
  NodeId enabled = f.In("enabled", "[6] bool");
  NodeId ge = f.Op(OpKind::kGreaterEqual, {readings, f.Const(AttrValue::Float(-1.5))});
  NodeId le = f.Op(OpKind::kLessEqual, {readings, f.Const(AttrValue::Float(2.0))});
  NodeId in_range = f.Op(OpKind::kAnd, {ge, le}, "in_range");
  NodeId valid = f.Op(OpKind::kAnd, {in_range, enabled}, "valid");
  NodeId invalid = f.Op(OpKind::kNot, {valid}, "invalid");
  NodeId anomalies = f.Op(OpKind::kOr, {f.Op(OpKind::kGreater, {readings, f.Const(AttrValue::Float(2.0))}),
                                         f.Op(OpKind::kLess, {readings, f.Const(AttrValue::Float(-1.5))})},
                          "anomalies");
  NodeId valid_f = f.Op(OpKind::kCast, {valid}, "valid_f", A({{"dtype", AttrValue::String("f32")}}));
  NodeId kept = f.Op(OpKind::kWhere, {valid, readings, f.Const(AttrValue::Float(0.0))}, "kept");
  NodeId count = f.Op(OpKind::kSum, {valid_f}, "count", A({{"dims", AttrValue::IntList({0})}}));
  NodeId mean_valid = f.Op(OpKind::kDiv,
                           {f.Op(OpKind::kSum, {kept}, "", A({{"dims", AttrValue::IntList({0})}})),
                            f.Op(OpKind::kAdd, {count, f.Const(AttrValue::Float(1e-6))})},
                           "mean_valid");
  NodeId peak = f.Op(OpKind::kMax, {readings}, "peak", A({{"dims", AttrValue::IntList({1})}, {"keepdim", AttrValue::Bool(true)}}));
  NodeId trough = f.Op(OpKind::kMin, {readings}, "trough", A({{"dims", AttrValue::IntList({-1})}}));
  NodeId spread = f.Op(OpKind::kVariance, {readings}, "spread", A({{"dims", AttrValue::IntList({0})}}));
  NodeId overall = f.Op(OpKind::kMean, {readings}, "overall");
  NodeId frac_bad = f.Op(OpKind::kMean, {f.Op(OpKind::kCast, {invalid}, "", A({{"dtype", AttrValue::String("f32")}}))}, "frac_bad");
  NodeId is_peak = f.Op(OpKind::kEqual, {readings, peak}, "is_peak");
  NodeId all_ok = f.Op(OpKind::kMin, {valid_f}, "all_ok", A({{"dims", AttrValue::IntList({1})}}));
  NodeId changed = f.Op(OpKind::kNotEqual, {kept, readings}, "changed");
  for (NodeId id : {valid, anomalies, mean_valid, peak, trough, spread, overall, frac_bad, is_peak, all_ok, changed}) {
    f.Out(id);
  }
  ASSERT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(OutType(f, "valid"), "Tensor<[Time, 6], bool>");
  EXPECT_EQ(OutType(f, "anomalies"), "Tensor<[Time, 6], bool>");
  EXPECT_EQ(OutType(f, "mean_valid"), "Tensor<[6], f32>");
  EXPECT_EQ(OutType(f, "peak"), "Tensor<[Time, 1], f32>");
  EXPECT_EQ(OutType(f, "trough"), "Tensor<[Time], f32>");
  EXPECT_EQ(OutType(f, "spread"), "Tensor<[6], f32>");
  EXPECT_EQ(OutType(f, "overall"), "Tensor<[], f32>");
  EXPECT_EQ(OutType(f, "frac_bad"), "Tensor<[], f32>");
  EXPECT_EQ(OutType(f, "is_peak"), "Tensor<[Time, 6], bool>");
  EXPECT_EQ(OutType(f, "all_ok"), "Tensor<[Time], f32>");
  EXPECT_EQ(OutType(f, "changed"), "Tensor<[Time, 6], bool>");
}

TEST(ExamplesTest, ConfigDimsWithDeclaredTypesAndReturnType) {
  GraphFixture f;
  f.g.set_name("Regressor");
  NodeId x = f.In("x", "[4, 20] f32");
  NodeId w_in = f.Param("w_in", "[32, 20] f32");
  NodeId b_in = f.Param("b_in", "[32] f32");
  NodeId w_mid = f.Param("w_mid", "[32, 32] f32");
  NodeId w_out = f.Param("w_out", "[5, 32] f32");
  NodeId b_out = f.Param("b_out", "[5] f32");
  NodeId scale = f.Param("scale", "[5] f32");
  NodeId h0 = f.Op(OpKind::kSilu, {f.Op(OpKind::kLinear, {x, w_in, b_in})}, "h0");
  f.g.node(h0).declared_type = T("[4, 32] f32");
  NodeId h1 = f.Op(OpKind::kDropout, {h0}, "h1", A({{"p", AttrValue::Float(0.1)}}));
  f.g.node(h1).declared_type = T("[4, 32] f32");
  NodeId h2 = f.Op(OpKind::kAdd, {f.Op(OpKind::kTanh, {f.Op(OpKind::kLinear, {h1, w_mid}, "", A({{"bias", AttrValue::Bool(false)}}))}), h1}, "h2");
  NodeId y = f.Op(OpKind::kMul, {f.Op(OpKind::kLinear, {h2, w_out, b_out}), scale}, "y");
  f.g.node(y).declared_type = T("[4, 5] f32");
  f.Out(y);
  f.g.set_return_type(T("[4, 5] f32"));
  ASSERT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(OutType(f, "y"), "Tensor<[4, 5], f32>");
}

}  // namespace
}  // namespace shrew::ir
