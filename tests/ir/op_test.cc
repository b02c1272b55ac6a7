#include "ir/op.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace shrew::ir {
namespace {

TEST(OpTableTest, FiftyNineKindsWithSpecNamesInOrder) {
  // OPS.md §1.5, in order.
  const char* kNames[] = {
      "identity", "constant", "neg", "relu", "gelu", "silu", "sigmoid", "tanh", "exp", "log",
      "sqrt", "add", "sub", "mul", "div", "mod", "pow", "matmul", "equal", "not_equal", "less",
      "greater", "less_equal", "greater_equal", "and", "or", "not", "sum", "mean", "max", "min",
      "variance", "softmax", "transpose", "permute", "reshape", "view", "expand", "concat",
      "split", "embedding", "linear", "layer_norm", "batch_norm", "multi_head_attention",
      "transformer_block", "dropout", "cross_entropy", "mse_loss", "range", "repeat", "call",
      "cast", "where", "fused_matmul_add", "fused_add_relu", "fused_sub_relu",
      "fused_matmul_relu", "custom"};
  ASSERT_EQ(kNumOpKinds, 59);
  ASSERT_EQ(sizeof(kNames) / sizeof(kNames[0]), 59u);
  for (int i = 0; i < kNumOpKinds; ++i) {
    OpKind k = static_cast<OpKind>(i);
    EXPECT_STREQ(OpName(k), kNames[i]);
    EXPECT_EQ(GetOpInfo(k).kind, k);
    EXPECT_EQ(OpKindFromName(kNames[i]), k);
  }
  EXPECT_FALSE(OpKindFromName("mm").has_value());
}

TEST(OpTableTest, OperandCountsFollowSpecSection4) {
  auto accepts = [](OpKind k, int n) { return GetOpInfo(k).arity.Accepts(n); };
  EXPECT_TRUE(accepts(OpKind::kConstant, 0));
  EXPECT_FALSE(accepts(OpKind::kConstant, 1));
  EXPECT_TRUE(accepts(OpKind::kRange, 0));
  EXPECT_TRUE(accepts(OpKind::kRange, 2));
  EXPECT_FALSE(accepts(OpKind::kRange, 3));
  EXPECT_TRUE(accepts(OpKind::kRelu, 1));
  EXPECT_FALSE(accepts(OpKind::kRelu, 2));
  EXPECT_TRUE(accepts(OpKind::kAdd, 2));
  EXPECT_FALSE(accepts(OpKind::kAdd, 1));
  EXPECT_FALSE(accepts(OpKind::kConcat, 0));
  EXPECT_TRUE(accepts(OpKind::kConcat, 100));
  EXPECT_TRUE(accepts(OpKind::kEmbedding, 2));
  EXPECT_FALSE(accepts(OpKind::kEmbedding, 1));
  EXPECT_TRUE(accepts(OpKind::kLinear, 2));
  EXPECT_TRUE(accepts(OpKind::kLinear, 3));
  EXPECT_FALSE(accepts(OpKind::kLinear, 1));
  EXPECT_TRUE(accepts(OpKind::kLayerNorm, 1));
  EXPECT_TRUE(accepts(OpKind::kLayerNorm, 3));
  EXPECT_TRUE(accepts(OpKind::kBatchNorm, 1));
  EXPECT_FALSE(accepts(OpKind::kBatchNorm, 2));
  EXPECT_TRUE(accepts(OpKind::kBatchNorm, 3));
  EXPECT_TRUE(accepts(OpKind::kMultiHeadAttention, 5));
  EXPECT_FALSE(accepts(OpKind::kMultiHeadAttention, 4));
  EXPECT_TRUE(accepts(OpKind::kTransformerBlock, 13));
  EXPECT_FALSE(accepts(OpKind::kTransformerBlock, 6));
  EXPECT_TRUE(accepts(OpKind::kWhere, 3));
  EXPECT_TRUE(accepts(OpKind::kFusedMatmulAdd, 3));
  EXPECT_TRUE(accepts(OpKind::kFusedAddRelu, 2));
  EXPECT_FALSE(accepts(OpKind::kRepeat, 0));
  EXPECT_TRUE(accepts(OpKind::kCustom, 0));
  EXPECT_TRUE(accepts(OpKind::kCustom, 9));
  EXPECT_EQ(GetOpInfo(OpKind::kAdd).arity.ToString(), "2");
  EXPECT_EQ(GetOpInfo(OpKind::kLinear).arity.ToString(), "2 to 3");
  EXPECT_EQ(GetOpInfo(OpKind::kBatchNorm).arity.ToString(), "1 or 3");
  EXPECT_EQ(GetOpInfo(OpKind::kConcat).arity.ToString(), "at least 1");
}

TEST(OpTableTest, Flags) {
  EXPECT_TRUE(HasFlag(OpKind::kRelu, kFlagElementwiseUnary));
  EXPECT_TRUE(HasFlag(OpKind::kRelu, kFlagFloatOnly));
  EXPECT_FALSE(HasFlag(OpKind::kNeg, kFlagFloatOnly));
  EXPECT_TRUE(HasFlag(OpKind::kPow, kFlagArithmetic));
  EXPECT_TRUE(HasFlag(OpKind::kLess, kFlagComparison));
  EXPECT_FALSE(HasFlag(OpKind::kLess, kFlagArithmetic));
  EXPECT_TRUE(HasFlag(OpKind::kOr, kFlagLogical));
  EXPECT_TRUE(HasFlag(OpKind::kVariance, kFlagReduction));
  EXPECT_TRUE(HasFlag(OpKind::kView, kFlagView));
  EXPECT_TRUE(HasFlag(OpKind::kSplit, kFlagShapeOp));
  EXPECT_TRUE(HasFlag(OpKind::kTransformerBlock, kFlagImplicitParams));
  EXPECT_TRUE(HasFlag(OpKind::kFusedSubRelu, kFlagFused));
  for (OpKind k : {OpKind::kDropout, OpKind::kCall, OpKind::kCustom, OpKind::kFusedMatmulAdd}) {
    EXPECT_TRUE(HasFlag(k, kFlagNoCse)) << OpName(k);
  }
  EXPECT_FALSE(HasFlag(OpKind::kAdd, kFlagNoCse));
  EXPECT_TRUE(HasFlag(OpKind::kWhere, kFlagAdoptsWeak));
  EXPECT_FALSE(HasFlag(OpKind::kMatmul, kFlagAdoptsWeak));
  for (OpKind k : {OpKind::kFusedMatmulAdd, OpKind::kFusedAddRelu, OpKind::kFusedSubRelu}) {
    EXPECT_TRUE(HasFlag(k, kFlagAdoptsWeak)) << OpName(k);
  }
}

TEST(OpTableTest, FunctionNamesAndAliases) {
  EXPECT_EQ(LookupFunction("mm"), OpKind::kMatmul);
  EXPECT_EQ(LookupFunction("swish"), OpKind::kSilu);
  EXPECT_EQ(LookupFunction("var"), OpKind::kVariance);
  EXPECT_EQ(LookupFunction("cat"), OpKind::kConcat);
  EXPECT_EQ(LookupFunction("Embedding"), OpKind::kEmbedding);
  EXPECT_EQ(LookupFunction("cross_entropy_loss"), OpKind::kCrossEntropy);
  EXPECT_EQ(LookupFunction("TransformerBlock"), OpKind::kTransformerBlock);
  EXPECT_EQ(LookupFunction("fused_matmul_relu"), OpKind::kFusedMatmulRelu);
  EXPECT_EQ(LookupFunction("where"), OpKind::kWhere);
  // Case-sensitive; operator-only and internal kinds are not callable.
  EXPECT_FALSE(LookupFunction("Relu").has_value());
  EXPECT_FALSE(LookupFunction("equal").has_value());
  EXPECT_FALSE(LookupFunction("and").has_value());
  EXPECT_FALSE(LookupFunction("identity").has_value());
  EXPECT_FALSE(LookupFunction("constant").has_value());
  EXPECT_FALSE(LookupFunction("call").has_value());
  EXPECT_FALSE(LookupFunction("repeat").has_value());
  EXPECT_TRUE(IsBuiltinFunction("softmax"));
  EXPECT_FALSE(IsBuiltinFunction("Encoder"));
}

TEST(OpTableTest, Operators) {
  EXPECT_EQ(BinaryOperatorOp("+"), OpKind::kAdd);
  EXPECT_EQ(BinaryOperatorOp("%"), OpKind::kMod);
  EXPECT_EQ(BinaryOperatorOp("**"), OpKind::kPow);
  EXPECT_EQ(BinaryOperatorOp("!="), OpKind::kNotEqual);
  EXPECT_EQ(BinaryOperatorOp(">="), OpKind::kGreaterEqual);
  EXPECT_EQ(BinaryOperatorOp("&&"), OpKind::kAnd);
  EXPECT_EQ(BinaryOperatorOp("||"), OpKind::kOr);
  for (const char* bad : {"&", "|", "^", "<<", ">>", "??", "@"}) {
    EXPECT_FALSE(BinaryOperatorOp(bad).has_value()) << bad;
  }
  EXPECT_EQ(UnaryOperatorOp("-"), OpKind::kNeg);
  EXPECT_EQ(UnaryOperatorOp("!"), OpKind::kNot);
  EXPECT_FALSE(UnaryOperatorOp("~").has_value());
}

TEST(OpTableTest, AttributeSchema) {
  auto sum = OpAttrSpecs(OpKind::kSum);
  ASSERT_EQ(sum.size(), 2u);
  EXPECT_STREQ(sum[0].name, "dims");
  EXPECT_TRUE(sum[0].default_value.is_all());
  EXPECT_STREQ(sum[1].name, "keepdim");
  EXPECT_FALSE(sum[1].default_value.as_bool());
  const OpAttrSpec* dim = FindOpAttrSpec(OpKind::kSoftmax, "dim");
  ASSERT_NE(dim, nullptr);
  EXPECT_EQ(dim->default_value.as_int(), -1);
  const OpAttrSpec* d0 = FindOpAttrSpec(OpKind::kTranspose, "dim0");
  ASSERT_NE(d0, nullptr);
  EXPECT_EQ(d0->default_value.as_int(), -2);
  EXPECT_TRUE(FindOpAttrSpec(OpKind::kPermute, "dims")->required);
  EXPECT_TRUE(FindOpAttrSpec(OpKind::kSplit, "chunks")->required);
  EXPECT_EQ(FindOpAttrSpec(OpKind::kLayerNorm, "eps")->default_value.as_float(), 1e-5);
  EXPECT_FALSE(FindOpAttrSpec(OpKind::kMultiHeadAttention, "causal")->default_value.as_bool());
  EXPECT_TRUE(FindOpAttrSpec(OpKind::kTransformerBlock, "causal")->default_value.as_bool());
  EXPECT_EQ(FindOpAttrSpec(OpKind::kConcat, "dim")->default_value.as_int(), 0);
  EXPECT_EQ(FindOpAttrSpec(OpKind::kSoftmax, "axis"), nullptr);
  EXPECT_TRUE(OpAttrSpecs(OpKind::kRelu).empty());
  EXPECT_TRUE(OpAttrSpecs(OpKind::kCustom).empty());
  EXPECT_TRUE(AttrMatches(AttrType::kFloat, AttrValue::Int(1)));
  EXPECT_FALSE(AttrMatches(AttrType::kInt, AttrValue::Float(1)));
  EXPECT_TRUE(AttrMatches(AttrType::kAxes, AttrValue::All()));
  EXPECT_TRUE(AttrMatches(AttrType::kAxes, AttrValue::IntList({0, 2})));
  EXPECT_TRUE(AttrMatches(AttrType::kDType, AttrValue::String("f64")));
  EXPECT_FALSE(AttrMatches(AttrType::kDType, AttrValue::String("float")));
  EXPECT_TRUE(AttrMatches(AttrType::kScalar, AttrValue::Bool(true)));
}

}  // namespace
}  // namespace shrew::ir

namespace shrew::ir {
namespace {

TEST(OpTableTest, CanonicalAttrsFillDefaultsAndOrder) {
  Attrs written;
  written.Set("keepdim", AttrValue::Bool(true));
  written.Set("dims", AttrValue::IntList({1}));
  Attrs canon = CanonicalAttrs(OpKind::kSum, written);
  ASSERT_EQ(canon.size(), 2u);
  EXPECT_EQ(canon.entries()[0].first, "dims");
  EXPECT_EQ(canon.entries()[1].first, "keepdim");
  Attrs empty;
  Attrs explicit_default;
  explicit_default.Set("dim", AttrValue::Int(-1));
  EXPECT_EQ(CanonicalAttrs(OpKind::kSoftmax, empty), CanonicalAttrs(OpKind::kSoftmax, explicit_default));
  Attrs other;
  other.Set("dim", AttrValue::Int(0));
  EXPECT_FALSE(CanonicalAttrs(OpKind::kSoftmax, empty) == CanonicalAttrs(OpKind::kSoftmax, other));
  Attrs custom;
  custom.Set("z", AttrValue::Int(1));
  custom.Set("a", AttrValue::Int(2));
  Attrs c = CanonicalAttrs(OpKind::kCustom, custom);
  EXPECT_EQ(c.entries()[0].first, "a");
  EXPECT_EQ(c.entries()[1].first, "z");
  EXPECT_EQ(AttrOrDefault(OpKind::kConcat, empty, "dim")->as_int(), 0);
  EXPECT_EQ(AttrOrDefault(OpKind::kSoftmax, other, "dim")->as_int(), 0);
  EXPECT_EQ(AttrOrDefault(OpKind::kPermute, empty, "dims"), nullptr);
  EXPECT_EQ(AttrOrDefault(OpKind::kRelu, empty, "dim"), nullptr);
}

}  // namespace
}  // namespace shrew::ir
