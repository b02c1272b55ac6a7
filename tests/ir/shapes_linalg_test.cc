// Shape inference: matmul (and fused kinds), reductions, softmax, losses.
#include <gtest/gtest.h>

#include "ir/shapes.h"
#include "ir_test_util.h"

namespace shrew::ir {
namespace {

using testing::A;
using testing::GraphFixture;

struct Two : GraphFixture {
  NodeId n;
  Two(OpKind op, std::string_view a, std::string_view b, Attrs attrs = {}) {
    NodeId x = In("a", a);
    NodeId y = In("b", b);
    n = Op(op, {x, y}, "n", std::move(attrs));
    Infer();
  }
  std::string Type() const { return TypeOf(n); }
  std::string Msg() const { return diags.all().empty() ? "" : diags.all()[0].message; }
};

struct One : GraphFixture {
  NodeId n;
  One(OpKind op, std::string_view a, Attrs attrs = {}) {
    n = Op(op, {In("x", a)}, "n", std::move(attrs));
    Infer();
  }
  std::string Type() const { return TypeOf(n); }
  std::string Msg() const { return diags.all().empty() ? "" : diags.all()[0].message; }
};

TEST(MatmulShapeTest, BatchRules) {
  EXPECT_EQ(Two(OpKind::kMatmul, "[Batch, 4] f32", "[4, 8] f32").Type(), "Tensor<[Batch, 8], f32>");
  EXPECT_EQ(Two(OpKind::kMatmul, "[Batch, 16, 64] f32", "[64, 96] f32").Type(),
            "Tensor<[Batch, 16, 96], f32>");
  EXPECT_EQ(Two(OpKind::kMatmul, "[2, 1, 3, 4] f32", "[5, 4, 6] f32").Type(),
            "Tensor<[2, 5, 3, 6], f32>");
  EXPECT_EQ(Two(OpKind::kMatmul, "[B, 4, S, 8] f32", "[B, 4, 8, S] f32").Type(),
            "Tensor<[B, 4, S, S], f32>");
  EXPECT_EQ(Two(OpKind::kMatmul, "[3, K] f32", "[5, 7] f32").Type(), "Tensor<[3, 7], f32>");
}

TEST(MatmulShapeTest, RankOneOperands) {
  EXPECT_EQ(Two(OpKind::kMatmul, "[4] f32", "[4, 8] f32").Type(), "Tensor<[8], f32>");
  EXPECT_EQ(Two(OpKind::kMatmul, "[2, 3, 4] f32", "[4] f32").Type(), "Tensor<[2, 3], f32>");
  EXPECT_EQ(Two(OpKind::kMatmul, "[4] f64", "[4] f64").Type(), "Tensor<[], f64>");
  EXPECT_EQ(Two(OpKind::kMatmul, "[4] i64", "[2, 4, 5] i64").Type(), "Tensor<[2, 5], i64>");
}

TEST(MatmulShapeTest, T4InnerMismatch) {
  Two t(OpKind::kMatmul, "[2, 3] f32", "[4, 5] f32");
  EXPECT_EQ(t.OnlyError(), "E103");
  EXPECT_EQ(t.Msg(), "[G::n] matmul inner dimensions 3 and 4 differ (operands [2, 3] and [4, 5])");
  EXPECT_EQ(t.diags.all()[0].span.line, t.g.node(t.n).span.line);
  EXPECT_EQ(t.Type(), "?");
}

TEST(MatmulShapeTest, BatchBroadcastMismatchAndOtherChecks) {
  EXPECT_EQ(Two(OpKind::kMatmul, "[2, 3, 4] f32", "[5, 4, 6] f32").OnlyError(), "E102");
  EXPECT_EQ(Two(OpKind::kMatmul, "[2, 3] f32", "[3, 4] f64").OnlyError(), "E100");
  Two r0(OpKind::kMatmul, "[] f32", "[3, 4] f32");
  EXPECT_EQ(r0.OnlyError(), "E107");
  EXPECT_EQ(r0.Msg(), "[G::n] matmul expects rank >= 1, got rank 0");
  EXPECT_EQ(Two(OpKind::kMatmul, "[2, 2] bool", "[2, 2] bool").OnlyError(), "E106");
}

TEST(MatmulShapeTest, FusedKinds) {
  GraphFixture f;
  NodeId x = f.In("x", "[Rows, 3] f32");
  NodeId w = f.In("w", "[3, 4] f32");
  NodeId b = f.In("b", "[4] f32");
  NodeId fma = f.Op(OpKind::kFusedMatmulAdd, {x, w, b});
  NodeId fmr = f.Op(OpKind::kFusedMatmulRelu, {x, w});
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(fma), "Tensor<[Rows, 4], f32>");
  EXPECT_EQ(f.TypeOf(fmr), "Tensor<[Rows, 4], f32>");
  GraphFixture bad;
  NodeId bx = bad.In("x", "[2, 3] f32");
  bad.Op(OpKind::kFusedMatmulAdd, {bx, bad.In("w", "[3, 4] f32"), bad.In("b", "[5] f32")});
  EXPECT_FALSE(bad.Infer());
  EXPECT_EQ(bad.OnlyError(), "E102");
}

// One matmul operand of unknown type: the product still has the other's
// dtype, so the addend must have it too (OPS.md §1.3, §3.18).
TEST(MatmulShapeTest, FusedMatmulAddWithAnUnknownFactor) {
  for (bool left_unknown : {true, false}) {
    GraphFixture f;
    NodeId x = f.In("x", left_unknown ? "?" : "[2, 3] f32");
    NodeId w = f.In("w", left_unknown ? "[3, 4] f32" : "?");
    NodeId n = f.Op(OpKind::kFusedMatmulAdd, {x, w, f.In("b", "[4] f64")}, "n");
    EXPECT_FALSE(f.Infer());
    ASSERT_EQ(f.OnlyError(), "E100");
    EXPECT_EQ(f.diags.all()[0].message, "[G::n] dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")");
    EXPECT_EQ(f.diags.all()[0].span.line, f.g.node(n).span.line);
    EXPECT_EQ(f.diags.all()[0].span.line, 4u);
    EXPECT_EQ(f.diags.all()[0].span.column, 3u);
  }
  GraphFixture ok;
  NodeId n = ok.Op(OpKind::kFusedMatmulAdd, {ok.In("x", "?"), ok.In("w", "[3, 4] f32"), ok.In("b", "[4] f32")});
  EXPECT_TRUE(ok.Infer()) << ok.Messages();
  EXPECT_EQ(ok.TypeOf(n), "?");
}

TEST(ReduceShapeTest, AllAxesAndKeepdim) {
  EXPECT_EQ(One(OpKind::kSum, "[Time, 6] f32").Type(), "Tensor<[], f32>");
  EXPECT_EQ(One(OpKind::kMean, "[Time, 6] f32", A({{"keepdim", AttrValue::Bool(true)}})).Type(),
            "Tensor<[1, 1], f32>");
  EXPECT_EQ(One(OpKind::kSum, "[] f32").Type(), "Tensor<[], f32>");
}

TEST(ReduceShapeTest, AxesNegativeAndLists) {
  EXPECT_EQ(One(OpKind::kSum, "[Time, 6] f32", A({{"dims", AttrValue::IntList({0})}})).Type(),
            "Tensor<[6], f32>");
  EXPECT_EQ(One(OpKind::kMin, "[Time, 6] f32", A({{"dims", AttrValue::IntList({-1})}})).Type(),
            "Tensor<[Time], f32>");
  EXPECT_EQ(One(OpKind::kMax, "[Time, 6] f32",
                A({{"dims", AttrValue::IntList({1})}, {"keepdim", AttrValue::Bool(true)}}))
                .Type(),
            "Tensor<[Time, 1], f32>");
  EXPECT_EQ(One(OpKind::kVariance, "[2, 3, 4] f64", A({{"dims", AttrValue::IntList({0, -1})}})).Type(),
            "Tensor<[3], f64>");
  EXPECT_EQ(One(OpKind::kMean, "[B, S, D] f32",
                A({{"dims", AttrValue::IntList({2, 0})}, {"keepdim", AttrValue::Bool(true)}}))
                .Type(),
            "Tensor<[1, S, 1], f32>");
  EXPECT_EQ(One(OpKind::kSum, "[4] f32", A({{"dims", AttrValue::All()}})).Type(), "Tensor<[], f32>");
}

TEST(ReduceShapeTest, T2AxisOutOfRangeAndDuplicates) {
  One bad(OpKind::kSum, "[2, 3] f32", A({{"dims", AttrValue::IntList({2})}}));
  EXPECT_EQ(bad.OnlyError(), "E101");
  EXPECT_EQ(bad.Msg(), "[G::n] axis 2 is out of range for a rank-2 tensor");
  One neg(OpKind::kMean, "[2, 3] f32", A({{"dims", AttrValue::IntList({-3})}}));
  EXPECT_EQ(neg.Msg(), "[G::n] axis -3 is out of range for a rank-2 tensor");
  One r0(OpKind::kMax, "[] f32", A({{"dims", AttrValue::IntList({0})}}));
  EXPECT_EQ(r0.Msg(), "[G::n] axis 0 is out of range for a rank-0 tensor");
  One dup(OpKind::kSum, "[2, 3] f32", A({{"dims", AttrValue::IntList({1, -1})}}));
  EXPECT_EQ(dup.OnlyError(), "E046");
  EXPECT_EQ(One(OpKind::kSum, "[2] f32", A({{"dims", AttrValue::Int(0)}})).OnlyError(), "E046");
}

TEST(ReduceShapeTest, T7FloatOnly) {
  One r(OpKind::kSum, "[2, 3] i64");
  EXPECT_EQ(r.OnlyError(), "E106");
  EXPECT_EQ(r.Msg(), "[G::n] sum requires a float operand, got i64");
}

TEST(SoftmaxShapeTest, DefaultAndExplicitAxis) {
  EXPECT_EQ(One(OpKind::kSoftmax, "[Batch, 10] f32").Type(), "Tensor<[Batch, 10], f32>");
  EXPECT_EQ(One(OpKind::kSoftmax, "[2, 3] f32", A({{"dim", AttrValue::Int(-2)}})).Type(),
            "Tensor<[2, 3], f32>");
  One bad(OpKind::kSoftmax, "[2, 3] f32", A({{"dim", AttrValue::Int(2)}}));
  EXPECT_EQ(bad.OnlyError(), "E101");
  // Default -1 on a rank-0 tensor is out of range.
  EXPECT_EQ(One(OpKind::kSoftmax, "[] f32").OnlyError(), "E101");
  EXPECT_EQ(One(OpKind::kSoftmax, "[3] i32").OnlyError(), "E106");
  EXPECT_EQ(One(OpKind::kSoftmax, "[3] f32", A({{"dim", AttrValue::Float(1)}})).OnlyError(), "E046");
}

TEST(LossShapeTest, CrossEntropyForms) {
  // Class indices (tiny_gpt.sw).
  EXPECT_EQ(Two(OpKind::kCrossEntropy, "[Batch, 16, 96] f32", "[Batch, 16] i64").Type(),
            "Tensor<[], f32>");
  // Distribution.
  EXPECT_EQ(Two(OpKind::kCrossEntropy, "[4, 10] f64", "[4, 10] f64").Type(), "Tensor<[], f64>");
  Two rank(OpKind::kCrossEntropy, "[10] f32", "[10] f32");
  EXPECT_EQ(rank.OnlyError(), "E107");
  EXPECT_EQ(rank.Msg(), "[G::n] cross_entropy expects rank >= 2, got rank 1");
  Two shape(OpKind::kCrossEntropy, "[4, 10] f32", "[5] i64");
  EXPECT_EQ(shape.OnlyError(), "E112");
  EXPECT_EQ(shape.Msg(), "[G::n] cross_entropy target of shape [5] matches neither the logits' shape [4, 10] (distribution) nor [4] (class indices)");
  EXPECT_EQ(Two(OpKind::kCrossEntropy, "[4, 10] f32", "[4, 10, 2] f32").OnlyError(), "E112");
  EXPECT_EQ(Two(OpKind::kCrossEntropy, "[4, 10] f32", "[4, 10] f64").OnlyError(), "E100");
  EXPECT_EQ(Two(OpKind::kCrossEntropy, "[4, 10] f32", "[4] bool").OnlyError(), "E106");
  EXPECT_EQ(Two(OpKind::kCrossEntropy, "[4, 10] i64", "[4] i64").OnlyError(), "E106");
}

TEST(LossShapeTest, MseLoss) {
  EXPECT_EQ(Two(OpKind::kMseLoss, "[N, 1] f32", "[N, 1] f32").Type(), "Tensor<[], f32>");
  EXPECT_EQ(Two(OpKind::kMseLoss, "[2, 3] f32", "[4] f32").OnlyError(), "E102");
  EXPECT_EQ(Two(OpKind::kMseLoss, "[2] f32", "[2] f64").OnlyError(), "E100");
  EXPECT_EQ(Two(OpKind::kMseLoss, "[2] i64", "[2] i64").OnlyError(), "E106");
}

}  // namespace
}  // namespace shrew::ir
