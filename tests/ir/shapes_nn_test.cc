// Shape inference: embedding, linear, normalisations, attention, transformer
// block, dropout, repeat, custom.
#include <gtest/gtest.h>

#include "ir/shapes.h"
#include "ir_test_util.h"

namespace shrew::ir {
namespace {

using testing::A;
using testing::GraphFixture;

// Builds op(inputs...) from type strings; infers.
struct Nary : GraphFixture {
  NodeId n;
  Nary(OpKind op, std::vector<std::string_view> types, Attrs attrs = {}) {
    std::vector<NodeId> ins;
    for (size_t i = 0; i < types.size(); ++i) ins.push_back(In("in" + std::to_string(i), types[i]));
    n = Op(op, ins, "n", std::move(attrs));
    Infer();
  }
  std::string Type() const { return TypeOf(n); }
  std::string Msg() const { return diags.all().empty() ? "" : diags.all()[0].message; }
  // The only error's code, checked to point at the op: its node follows the
  // inputs, so its line is their count + 1 (ir_test_util.h's spans).
  std::string ErrorAtOp() const {
    std::string code = OnlyError();
    if (code.size() == 4) {
      EXPECT_EQ(diags.all()[0].span.line, g.node(n).span.line);
      EXPECT_EQ(diags.all()[0].span.line, static_cast<uint32_t>(n + 1));
      EXPECT_EQ(diags.all()[0].span.column, 3u);
    }
    return code;
  }
};

TEST(EmbeddingShapeTest, IndicesThenTable) {
  EXPECT_EQ(Nary(OpKind::kEmbedding, {"[Batch, 16] i64", "[96, 64] f32"}).Type(),
            "Tensor<[Batch, 16, 64], f32>");
  EXPECT_EQ(Nary(OpKind::kEmbedding, {"[] i32", "[V, D] f64"}).Type(), "Tensor<[D], f64>");
  // Float indices are accepted (truncated at run time).
  EXPECT_EQ(Nary(OpKind::kEmbedding, {"[3] f32", "[10, 4] f32"}).Type(), "Tensor<[3, 4], f32>");
}

TEST(EmbeddingShapeTest, ReversedOperandsAreSwapped) {
  Nary e(OpKind::kEmbedding, {"[96, 64] f32", "[Batch, 16] i64"});
  EXPECT_EQ(e.Type(), "Tensor<[Batch, 16, 64], f32>");
  EXPECT_EQ(e.g.node(e.n).operands, (std::vector<NodeId>{1, 0}));
  EXPECT_EQ(e.OnlyError(), "");
}

TEST(EmbeddingShapeTest, Errors) {
  Nary rank(OpKind::kEmbedding, {"[4] i64", "[10] f32"});
  EXPECT_EQ(rank.OnlyError(), "E107");
  EXPECT_EQ(rank.Msg(), "[G::n] embedding expects a table of rank 2, got rank 1");
  EXPECT_EQ(Nary(OpKind::kEmbedding, {"[4] bool", "[10, 3] f32"}).OnlyError(), "E106");
  EXPECT_EQ(Nary(OpKind::kEmbedding, {"[4] i64", "[10, 3] i64"}).OnlyError(), "E106");
}

TEST(LinearShapeTest, OutInLayout) {
  EXPECT_EQ(Nary(OpKind::kLinear, {"[4, 20] f32", "[32, 20] f32", "[32] f32"}).Type(),
            "Tensor<[4, 32], f32>");
  EXPECT_EQ(Nary(OpKind::kLinear, {"[B, S, 20] f32", "[32, 20] f32"}).Type(), "Tensor<[B, S, 32], f32>");
  EXPECT_EQ(Nary(OpKind::kLinear, {"[20] f32", "[5, 20] f32", "[1, 5] f32"}).Type(), "Tensor<[5], f32>");
  EXPECT_EQ(Nary(OpKind::kLinear, {"[4, 20] f32", "[32, 20] f32"}, A({{"bias", AttrValue::Bool(false)}})).Type(),
            "Tensor<[4, 32], f32>");
}

TEST(LinearShapeTest, Errors) {
  Nary in(OpKind::kLinear, {"[4, 20] f32", "[20, 32] f32"});
  EXPECT_EQ(in.OnlyError(), "E112");
  EXPECT_EQ(in.Msg(), "[G::n] linear input has 20 features but the weight has shape [20, 32] ([out, in]); for a weight "
                     "stored [in, out] write matmul(x, w) (+ b), or declare it [32, 20]");
  Nary batch(OpKind::kLinear, {"[B, S, 20] f32", "[20, 8] f32"});
  EXPECT_EQ(batch.Msg(), "[G::n] linear input has 20 features but the weight has shape [20, 8] ([out, in]); for a weight "
                         "stored [in, out] write matmul(x, w) (+ b), or declare it [8, 20]");
  // Neither way round: no hint.
  EXPECT_EQ(Nary(OpKind::kLinear, {"[4, 20] f32", "[7, 32] f32"}).Msg(),
            "[G::n] linear input has 20 features but the weight has shape [7, 32] ([out, in])");
  // A scalar weight (Linear(x, 3) in PyTorch's spelling) says what a weight is.
  const std::string scalar = "[G::n] linear expects a weight of rank 2 ([out, in]), got a scalar; declare the weight "
                             "as a param, as in param w: Tensor<[OUT, IN], f32> { init: \"kaiming_uniform\"; };";
  Nary s(OpKind::kLinear, {"[4, 20] f32", "[] i64"});
  EXPECT_EQ(s.OnlyError(), "E107");
  EXPECT_EQ(s.Msg(), scalar);
  EXPECT_EQ(Nary(OpKind::kLinear, {"[4, 20] f32", "[] f32", "[] f32"}).Msg(), scalar);
  Nary w(OpKind::kLinear, {"[4, 20] f32", "[20] f32"});
  EXPECT_EQ(w.OnlyError(), "E107");
  EXPECT_EQ(w.Msg(), "[G::n] linear expects a weight of rank 2, got rank 1");
  EXPECT_EQ(Nary(OpKind::kLinear, {"[4, 20] f32", "[32, 20] f32", "[31] f32"}).OnlyError(), "E112");
  EXPECT_EQ(Nary(OpKind::kLinear, {"[4, 20] f32", "[32, 20] f32", "[32] f32"},
                 A({{"bias", AttrValue::Bool(false)}}))
                .OnlyError(),
            "E046");
  EXPECT_EQ(Nary(OpKind::kLinear, {"[4, 20] f32", "[32, 20] f64"}).OnlyError(), "E100");
  EXPECT_EQ(Nary(OpKind::kLinear, {"[4, 20] i64", "[32, 20] i64"}).OnlyError(), "E106");
}

TEST(NormShapeTest, LayerNorm) {
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"[B, 4, 32] f32", "[32] f32", "[32] f32"}).Type(),
            "Tensor<[B, 4, 32], f32>");
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"[B, 32] f32"}).Type(), "Tensor<[B, 32], f32>");
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"[B, 32] f32", "[16] f32"}).OnlyError(), "E102");
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"[B, 32] f16", "[32] f32"}).OnlyError(), "E100");
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"[B, 32] u8"}).OnlyError(), "E106");
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"[2] f32"}, A({{"eps", AttrValue::String("x")}})).OnlyError(), "E046");
}

// OPS.md §3.11.3: w and b broadcast against x and the result has x's shape,
// so an affine operand that would grow x is a static error (it failed only
// at run time).
TEST(NormShapeTest, LayerNormAffineMayNotGrowTheInput) {
  Nary rank(OpKind::kLayerNorm, {"[2] f32", "[1, 2] f32"});
  EXPECT_EQ(rank.OnlyError(), "E112");
  EXPECT_EQ(rank.Msg(), "[G::n] layer_norm weight of shape [1, 2] does not broadcast to the input shape [2]");
  Nary bias(OpKind::kLayerNorm, {"[B, 1] f32", "[1] f32", "[5] f32"});
  EXPECT_EQ(bias.OnlyError(), "E112");
  EXPECT_EQ(bias.Msg(), "[G::n] layer_norm bias of shape [5] does not broadcast to the input shape [B, 1]");
  // Sizes that do not broadcast at all are said the same way, naming the operand
  // (it read "shapes [2, 3] and [4] cannot be broadcast").
  Nary apart(OpKind::kLayerNorm, {"[2, 3] f32", "[4] f32"});
  EXPECT_EQ(apart.OnlyError(), "E102");
  EXPECT_EQ(apart.Msg(), "[G::n] layer_norm weight of shape [4] does not broadcast to the input shape [2, 3]");
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"[N, 2] f32", "[1, 2] f32", "[1] f32"}).OnlyError(), "");
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"[4, 3] f32", "[4, 1] f32"}).OnlyError(), "");
  // Unknown sizes are checked at run time.
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"[N, D] f32", "[3] f32"}).OnlyError(), "");
  // There is no last axis to normalise over in a rank-0 x.
  Nary scalar(OpKind::kLayerNorm, {"[] f32"});
  EXPECT_EQ(scalar.OnlyError(), "E107");
  EXPECT_EQ(scalar.Msg(), "[G::n] layer_norm expects rank >= 1, got rank 0");
}

TEST(NormShapeTest, BatchNorm) {
  EXPECT_EQ(Nary(OpKind::kBatchNorm, {"[N, 3, 8, 8] f32", "[3] f32", "[3] f32"}).Type(),
            "Tensor<[N, 3, 8, 8], f32>");
  EXPECT_EQ(Nary(OpKind::kBatchNorm, {"[N, 3] f32"}).Type(), "Tensor<[N, 3], f32>");
  Nary r(OpKind::kBatchNorm, {"[3] f32"});
  EXPECT_EQ(r.OnlyError(), "E107");
  EXPECT_EQ(r.Msg(), "[G::n] batch_norm expects rank >= 2, got rank 1");
  Nary w(OpKind::kBatchNorm, {"[N, 3, 4] f32", "[4] f32", "[3] f32"});
  EXPECT_EQ(w.OnlyError(), "E112");
  EXPECT_EQ(w.Msg(), "[G::n] batch_norm weight has shape [4], expected [3]");
}

TEST(AttentionShapeTest, MultiHeadAttention) {
  EXPECT_EQ(Nary(OpKind::kMultiHeadAttention, {"[B, S, 32] f32"}, A({{"n_heads", AttrValue::Int(4)}})).Type(),
            "Tensor<[B, S, 32], f32>");
  EXPECT_EQ(Nary(OpKind::kMultiHeadAttention,
                 {"[B, S, 8] f32", "[8, 8] f32", "[8, 8] f32", "[8, 8] f32", "[8, 8] f32"},
                 A({{"n_heads", AttrValue::Int(2)}}))
                .Type(),
            "Tensor<[B, S, 8], f32>");
  Nary heads(OpKind::kMultiHeadAttention, {"[B, S, 30] f32"}, A({{"n_heads", AttrValue::Int(4)}}));
  EXPECT_EQ(heads.OnlyError(), "E111");
  EXPECT_EQ(heads.Msg(), "[G::n] model dimension 30 is not divisible by n_heads 4");
  Nary rank(OpKind::kMultiHeadAttention, {"[S, 32] f32"});
  EXPECT_EQ(rank.OnlyError(), "E107");
  EXPECT_EQ(rank.Msg(), "[G::n] multi_head_attention expects rank 3, got rank 2");
  Nary w(OpKind::kMultiHeadAttention, {"[B, S, 8] f32", "[8, 8] f32", "[8, 4] f32", "[8, 8] f32", "[8, 8] f32"});
  EXPECT_EQ(w.OnlyError(), "E112");
  EXPECT_EQ(w.Msg(), "[G::n] multi_head_attention w_k has shape [8, 4], expected [8, 8]");
  EXPECT_EQ(Nary(OpKind::kMultiHeadAttention, {"[B, S, 8] f32"}, A({{"n_heads", AttrValue::Int(0)}})).OnlyError(),
            "E046");
  EXPECT_EQ(Nary(OpKind::kMultiHeadAttention, {"[B, S, 8] i64"}).OnlyError(), "E106");
  // Symbolic D: divisibility is checked at run time.
  EXPECT_EQ(Nary(OpKind::kMultiHeadAttention, {"[B, S, D] f32"}, A({{"n_heads", AttrValue::Int(3)}})).OnlyError(),
            "");
}

TEST(AttentionShapeTest, TransformerBlockExplicitForm) {
  std::vector<std::string_view> ok = {"[B, S, 8] f32", "[8] f32",     "[8] f32",     "[8, 8] f32",
                                      "[8, 8] f32",    "[8, 8] f32",  "[8, 8] f32",  "[8] f32",
                                      "[8] f32",       "[8, 32] f32", "[32] f32",    "[32, 8] f32",
                                      "[8] f32"};
  Nary good(OpKind::kTransformerBlock, ok, A({{"n_heads", AttrValue::Int(2)}}));
  EXPECT_EQ(good.Type(), "Tensor<[B, S, 8], f32>");
  EXPECT_EQ(good.OnlyError(), "");
  auto bad_types = ok;
  bad_types[10] = "[8] f32";  // ff1_b must be [4D]
  Nary bad(OpKind::kTransformerBlock, bad_types, A({{"n_heads", AttrValue::Int(2)}}));
  EXPECT_EQ(bad.OnlyError(), "E112");
  EXPECT_EQ(bad.Msg(), "[G::n] transformer_block ff1_b has shape [8], expected [32]");
  EXPECT_EQ(Nary(OpKind::kTransformerBlock, {"[B, S, 64] f32"}, A({{"n_heads", AttrValue::Int(4)}})).Type(),
            "Tensor<[B, S, 64], f32>");
}

// An operand of unknown type (`input x: ?`) leaves the result unknown, but
// the known operands that conflict among themselves are static errors at the
// op (OPS.md §1.3), with the code and message of the all-known case.
TEST(UnknownOperandShapeTest, LinearWeightAndBiasAgree) {
  Nary dtype(OpKind::kLinear, {"?", "[32, 20] f32", "[32] f64"});
  EXPECT_EQ(dtype.ErrorAtOp(), "E100");
  EXPECT_EQ(dtype.Msg(), "[G::n] dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")");
  Nary size(OpKind::kLinear, {"?", "[32, 20] f32", "[31] f32"});
  EXPECT_EQ(size.ErrorAtOp(), "E112");
  EXPECT_EQ(size.Msg(), "[G::n] linear bias has shape [31], expected [32] or [1, 32]");
  EXPECT_EQ(Nary(OpKind::kLinear, {"?", "[20] f32", "[20] f32"}).ErrorAtOp(), "E107");
  EXPECT_EQ(Nary(OpKind::kLinear, {"[4, 20] f32", "?", "[32] f64"}).ErrorAtOp(), "E100");
  for (auto types : std::vector<std::vector<std::string_view>>{{"?", "[32, 20] f32", "[32] f32"},
                                                               {"?", "[O, 20] f32", "[1, 7] f32"},
                                                               {"[4, 20] f32", "?", "[32] f32"},
                                                               {"?", "?", "[32] f32"},
                                                               {"?", "[32, 20] f32"}}) {
    Nary ok(OpKind::kLinear, types);
    EXPECT_EQ(ok.OnlyError(), "") << ok.Messages();
    EXPECT_EQ(ok.Type(), "?");
  }
}

TEST(UnknownOperandShapeTest, NormWeightAndBiasAgree) {
  Nary ln_dtype(OpKind::kLayerNorm, {"?", "[32] f32", "[32] f16"});
  EXPECT_EQ(ln_dtype.ErrorAtOp(), "E100");
  EXPECT_EQ(ln_dtype.Msg(), "[G::n] dtype mismatch: f32 and f16; convert one with cast(..., dtype: \"f32\")");
  Nary ln_shape(OpKind::kLayerNorm, {"?", "[32] f32", "[16] f32"});
  EXPECT_EQ(ln_shape.ErrorAtOp(), "E102");
  EXPECT_EQ(ln_shape.Msg(), "[G::n] shapes [32] and [16] cannot be broadcast");
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"?", "[32] f32", "[1] f32"}).OnlyError(), "");
  EXPECT_EQ(Nary(OpKind::kLayerNorm, {"?", "[32] f32", "?"}).OnlyError(), "");

  Nary bn_dtype(OpKind::kBatchNorm, {"?", "[3] f32", "[3] f64"});
  EXPECT_EQ(bn_dtype.ErrorAtOp(), "E100");
  EXPECT_EQ(bn_dtype.Msg(), "[G::n] dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")");
  Nary bn_size(OpKind::kBatchNorm, {"?", "[3] f32", "[4] f32"});
  EXPECT_EQ(bn_size.ErrorAtOp(), "E112");
  EXPECT_EQ(bn_size.Msg(), "[G::n] batch_norm bias has shape [4], expected [3]");
  Nary bn_rank(OpKind::kBatchNorm, {"?", "?", "[3, 3] f32"});
  EXPECT_EQ(bn_rank.ErrorAtOp(), "E112");
  EXPECT_EQ(bn_rank.Msg(), "[G::n] batch_norm bias has shape [3, 3], expected [?]");
  EXPECT_EQ(Nary(OpKind::kBatchNorm, {"?", "[C] f32", "[C] f32"}).OnlyError(), "");
  EXPECT_EQ(Nary(OpKind::kBatchNorm, {"?", "?", "[3] f32"}).OnlyError(), "");
}

TEST(UnknownOperandShapeTest, AttentionWeightsAgree) {
  Nary size(OpKind::kMultiHeadAttention, {"?", "[8, 8] f32", "[8, 4] f32", "?", "[8, 8] f32"});
  EXPECT_EQ(size.ErrorAtOp(), "E112");
  EXPECT_EQ(size.Msg(), "[G::n] multi_head_attention w_k has shape [8, 4], expected [8, 8]");
  Nary dtype(OpKind::kMultiHeadAttention, {"?", "[8, 8] f32", "[8, 8] f32", "[8, 8] f64", "[8, 8] f32"});
  EXPECT_EQ(dtype.ErrorAtOp(), "E100");
  EXPECT_EQ(dtype.Msg(), "[G::n] dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")");
  EXPECT_EQ(Nary(OpKind::kMultiHeadAttention, {"?", "[8, 8] f32", "?", "[8, 8] f32", "[D, D] f32"}).OnlyError(),
            "");

  std::vector<std::string_view> ok = {"?",           "[8] f32",     "[8] f32",    "[8, 8] f32", "[8, 8] f32",
                                      "[8, 8] f32",  "[8, 8] f32",  "[8] f32",    "[8] f32",    "[8, 32] f32",
                                      "[32] f32",    "[32, 8] f32", "[8] f32"};
  Nary good(OpKind::kTransformerBlock, ok, A({{"n_heads", AttrValue::Int(2)}}));
  EXPECT_EQ(good.OnlyError(), "") << good.Messages();
  EXPECT_EQ(good.Type(), "?");
  auto bad_types = ok;
  bad_types[10] = "[8] f32";  // ff1_b must be [4D]
  Nary bad(OpKind::kTransformerBlock, bad_types, A({{"n_heads", AttrValue::Int(2)}}));
  EXPECT_EQ(bad.ErrorAtOp(), "E112");
  EXPECT_EQ(bad.Msg(), "[G::n] transformer_block ff1_b has shape [8], expected [32]");
  // d comes from the first weight whose rank fits its role (ff2_w here).
  std::vector<std::string_view> few(13, "?");
  few[10] = "[16] f32";
  few[11] = "[16, 4] f32";
  few[12] = "[8] f32";
  Nary ff(OpKind::kTransformerBlock, few, A({{"n_heads", AttrValue::Int(2)}}));
  EXPECT_EQ(ff.ErrorAtOp(), "E112");
  EXPECT_EQ(ff.Msg(), "[G::n] transformer_block ff2_b has shape [8], expected [4]");
}

TEST(DropoutShapeTest, KeepsTypeAndChecksP) {
  EXPECT_EQ(Nary(OpKind::kDropout, {"[4, 32] f32"}, A({{"p", AttrValue::Float(0.1)}})).Type(),
            "Tensor<[4, 32], f32>");
  Nary p(OpKind::kDropout, {"[4] f32"}, A({{"p", AttrValue::Float(1.0)}}));
  EXPECT_EQ(p.OnlyError(), "E046");
  EXPECT_EQ(p.Msg(), "[G::n] attribute 'p' of dropout must be in [0, 1)");
  EXPECT_EQ(Nary(OpKind::kDropout, {"[4] f32"}, A({{"p", AttrValue::Int(0)}})).OnlyError(), "");
}

TEST(RepeatShapeTest, BodyMustPreserveType) {
  GraphFixture f;
  NodeId x = f.In("x", "[B, 16, 64] f32");
  NodeId rep = f.Op(OpKind::kRepeat, {x}, "blocks", A({{"count", AttrValue::Int(2)}}));
  f.g.node(rep).repeat_body = RepeatBody{OpKind::kTransformerBlock, A({{"n_heads", AttrValue::Int(4)}}), ""};
  NodeId y = f.In("y", "[B, 16, 64] f32");
  NodeId bad = f.Op(OpKind::kRepeat, {y}, "bad", A({{"count", AttrValue::Int(3)}}));
  f.g.node(bad).repeat_body = RepeatBody{OpKind::kSum, A({{"dims", AttrValue::IntList({0})}}), ""};
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.TypeOf(rep), "Tensor<[B, 16, 64], f32>");
  EXPECT_EQ(f.OnlyError(), "E110");
  EXPECT_EQ(f.diags.all()[0].message,
            "[G::bad] repeat body must preserve shape and dtype: it carries Tensor<[B, 16, 64], f32> and the body "
            "gives Tensor<[16, 64], f32>");
  EXPECT_EQ(f.diags.all()[0].span.line, f.g.node(bad).span.line);
}

TEST(RepeatShapeTest, SymbolicDimsMustStayTheSame) {
  // transpose of [N, M] is [M, N]: not the carried type, whatever N and M are bound to at run time.
  for (const char* body_dims : {"[N, M] f32", "[N, 4] f32"}) {
    GraphFixture f;
    NodeId x = f.In("x", body_dims);
    NodeId rep = f.Op(OpKind::kRepeat, {x}, "h", A({{"count", AttrValue::Int(1)}}));
    f.g.node(rep).repeat_body = RepeatBody{OpKind::kTranspose, A({}), ""};
    EXPECT_FALSE(f.Infer()) << body_dims;
    EXPECT_EQ(f.OnlyError(), "E110") << body_dims;
  }
  // A square one keeps its names; a `?` dim is left for the run (materialize marks the iterations).
  for (const char* ok_dims : {"[N, N] f32", "[?, ?] f32"}) {
    GraphFixture f;
    NodeId x = f.In("x", ok_dims);
    NodeId rep = f.Op(OpKind::kRepeat, {x}, "h", A({{"count", AttrValue::Int(2)}}));
    f.g.node(rep).repeat_body = RepeatBody{OpKind::kTranspose, A({}), ""};
    EXPECT_TRUE(f.Infer()) << ok_dims << ": " << f.Messages();
  }
}

TEST(RepeatShapeTest, ExtraOperandsAndBodyErrors) {
  GraphFixture f;
  NodeId h = f.In("h", "[4, 8] f32");
  NodeId b = f.In("b", "[8] f32");
  NodeId rep = f.Op(OpKind::kRepeat, {h, b}, "r", A({{"count", AttrValue::Int(0)}}));
  f.g.node(rep).repeat_body = RepeatBody{OpKind::kAdd, {}, ""};
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(rep), "Tensor<[4, 8], f32>");
  GraphFixture g;
  NodeId gh = g.In("h", "[4, 8] f32");
  NodeId gb = g.In("b", "[3] f32");
  NodeId r2 = g.Op(OpKind::kRepeat, {gh, gb}, "r", A({{"count", AttrValue::Int(2)}}));
  g.g.node(r2).repeat_body = RepeatBody{OpKind::kAdd, {}, ""};
  EXPECT_FALSE(g.Infer());
  EXPECT_EQ(g.OnlyError(), "E102");  // the body's own check
  GraphFixture none;
  none.Op(OpKind::kRepeat, {none.In("h", "[2] f32")}, "r", A({{"count", AttrValue::Int(1)}}));
  EXPECT_FALSE(none.Infer());
  EXPECT_EQ(none.OnlyError(), "E058");
  GraphFixture neg;
  NodeId nr = neg.Op(OpKind::kRepeat, {neg.In("h", "[2] f32")}, "r", A({{"count", AttrValue::Int(-1)}}));
  neg.g.node(nr).repeat_body = RepeatBody{OpKind::kRelu, {}, ""};
  EXPECT_FALSE(neg.Infer());
  EXPECT_EQ(neg.OnlyError(), "E046");
}

TEST(CustomShapeTest, UnknownUnlessDeclared) {
  GraphFixture f;
  NodeId x = f.In("x", "[2] f32");
  NodeId c = f.Op(OpKind::kCustom, {x}, "c");
  f.g.node(c).callee = "my_op";
  NodeId d = f.Op(OpKind::kCustom, {x}, "d");
  f.g.node(d).declared_type = testing::T("[2, 2] f32");
  EXPECT_TRUE(f.Infer());
  EXPECT_EQ(f.TypeOf(c), "?");
  EXPECT_EQ(f.TypeOf(d), "Tensor<[2, 2], f32>");
}

}  // namespace
}  // namespace shrew::ir
