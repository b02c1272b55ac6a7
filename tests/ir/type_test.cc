#include "ir/type.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace shrew::ir {
namespace {

TEST(TypeTest, PrintsLikeTheSpec) {
  Type t = Type::Tensor({Dim::Symbolic("Batch"), Dim::Fixed(8)}, DType::kF32);
  EXPECT_EQ(t.ToString(), "Tensor<[Batch, 8], f32>");
  EXPECT_EQ(Type::Scalar(DType::kI64).ToString(), "Tensor<[], i64>");
  EXPECT_EQ(Type::Unknown().ToString(), "?");
  EXPECT_EQ(Type::Tensor({Dim::Dynamic(), Dim::Fixed(3)}, DType::kBool).ToString(),
            "Tensor<[?, 3], bool>");
  EXPECT_EQ(Type().ToString(), "?");
}

TEST(TypeTest, Accessors) {
  Type t = Type::Tensor({Dim::Fixed(2), Dim::Symbolic("S"), Dim::Dynamic()}, DType::kF64);
  EXPECT_TRUE(t.is_tensor());
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.dtype(), DType::kF64);
  EXPECT_TRUE(t.dim(0).is_fixed());
  EXPECT_EQ(t.dim(0).size(), 2);
  EXPECT_EQ(t.dim(1).name(), "S");
  EXPECT_TRUE(t.dim(2).is_dynamic());
  EXPECT_FALSE(t.IsStatic());
  EXPECT_TRUE(t.HasDynamicDim());
  EXPECT_TRUE(t.HasSymbolicDim());
  EXPECT_TRUE(Type::Scalar(DType::kF32).IsStatic());
  EXPECT_FALSE(Type::Unknown().IsStatic());
  EXPECT_TRUE(Dim::Fixed(1).is_one());
  EXPECT_FALSE(Dim::Symbolic("N").is_one());
}

TEST(TypeTest, Equality) {
  Type a = Type::Tensor({Dim::Symbolic("B"), Dim::Fixed(4)}, DType::kF32);
  EXPECT_EQ(a, Type::Tensor({Dim::Symbolic("B"), Dim::Fixed(4)}, DType::kF32));
  EXPECT_NE(a, Type::Tensor({Dim::Symbolic("C"), Dim::Fixed(4)}, DType::kF32));
  EXPECT_NE(a, Type::Tensor({Dim::Symbolic("B"), Dim::Fixed(4)}, DType::kF64));
  EXPECT_NE(a, Type::Unknown());
  EXPECT_EQ(Type::Unknown(), Type::Unknown());
}

TEST(TypeTest, ElementCount) {
  Type t = Type::Tensor({Dim::Fixed(3), Dim::Fixed(4)}, DType::kF32);
  ElementCount c = t.NumElements();
  ASSERT_TRUE(c.known());
  EXPECT_EQ(c.value, 12);
  EXPECT_EQ(Type::Scalar(DType::kF32).NumElements().value, 1);
  EXPECT_TRUE(Type::Scalar(DType::kF32).NumElements().known());
  Type sym = Type::Tensor({Dim::Symbolic("Batch"), Dim::Fixed(4)}, DType::kF32);
  EXPECT_EQ(sym.NumElements().state, ElementCount::State::kUnknown);
  DimBindings b{{"Batch", 8}};
  ElementCount bound = sym.NumElements(&b);
  ASSERT_TRUE(bound.known());
  EXPECT_EQ(bound.value, 32);
  EXPECT_FALSE(Type::Unknown().NumElements().known());
}

TEST(TypeTest, ElementCountOverflowIsReported) {
  const int64_t big = int64_t{1} << 32;
  Type t = Type::Tensor({Dim::Fixed(big), Dim::Fixed(big)}, DType::kF32);
  EXPECT_TRUE(t.NumElements().overflow());
  Type max = Type::Tensor({Dim::Fixed(std::numeric_limits<int64_t>::max()), Dim::Fixed(1)},
                          DType::kU8);
  ASSERT_TRUE(max.NumElements().known());
  EXPECT_EQ(max.NumElements().value, std::numeric_limits<int64_t>::max());
  // An unknown dim may be 0, so the count is unknown, not an overflow: with
  // A = B = 2^32 configured, [A, B, N] was refused at compile time, though a
  // run with N = 0 (as the same graph unconfigured takes) has no elements.
  Type mixed = Type::Tensor({Dim::Fixed(big), Dim::Dynamic(), Dim::Fixed(big)}, DType::kF32);
  EXPECT_EQ(mixed.NumElements().state, ElementCount::State::kUnknown);
  Type named = Type::Tensor({Dim::Fixed(big), Dim::Fixed(big), Dim::Symbolic("N")}, DType::kF32);
  EXPECT_EQ(named.NumElements().state, ElementCount::State::kUnknown);
  DimBindings n1{{"N", 1}};
  EXPECT_TRUE(named.NumElements(&n1).overflow());
  // A zero size wins over both: no elements, wherever the 0 is.
  for (const std::vector<Dim>& dims : {std::vector<Dim>{Dim::Fixed(big), Dim::Fixed(0), Dim::Fixed(big)},
                                       std::vector<Dim>{Dim::Fixed(big), Dim::Fixed(big), Dim::Fixed(0)},
                                       std::vector<Dim>{Dim::Dynamic(), Dim::Fixed(0)}}) {
    const ElementCount zero = Type::Tensor(dims, DType::kF32).NumElements();
    ASSERT_TRUE(zero.known()) << DimsToString(dims);
    EXPECT_EQ(zero.value, 0) << DimsToString(dims);
  }
  DimBindings n0{{"N", 0}};
  EXPECT_EQ(Type::Tensor({Dim::Fixed(big), Dim::Fixed(big), Dim::Symbolic("N")}, DType::kF32).NumElements(&n0).value, 0);
  int64_t out = 0;
  EXPECT_FALSE(CheckedMul(std::numeric_limits<int64_t>::max(), 2, &out));
  EXPECT_TRUE(CheckedMul(6, 7, &out));
  EXPECT_EQ(out, 42);
  EXPECT_FALSE(CheckedAdd(std::numeric_limits<int64_t>::max(), 1, &out));
}

TEST(TypeTest, Bind) {
  Type t = Type::Tensor({Dim::Symbolic("Batch"), Dim::Symbolic("Seq"), Dim::Dynamic()},
                        DType::kF32);
  Type b = t.Bind({{"Batch", 8}});
  EXPECT_EQ(b.ToString(), "Tensor<[8, Seq, ?], f32>");
  EXPECT_EQ(Type::Unknown().Bind({{"Batch", 8}}), Type::Unknown());
}

TEST(TypeTest, Compatibility) {
  auto t = [](std::vector<Dim> d, DType dt = DType::kF32) { return Type::Tensor(std::move(d), dt); };
  EXPECT_TRUE(TypesCompatible(t({Dim::Fixed(4)}), t({Dim::Fixed(4)})));
  EXPECT_FALSE(TypesCompatible(t({Dim::Fixed(4)}), t({Dim::Fixed(5)})));
  EXPECT_FALSE(TypesCompatible(t({Dim::Fixed(4)}), t({Dim::Fixed(4)}, DType::kF64)));
  EXPECT_FALSE(TypesCompatible(t({Dim::Fixed(4)}), t({Dim::Fixed(4), Dim::Fixed(1)})));
  EXPECT_TRUE(TypesCompatible(t({Dim::Symbolic("B")}), t({Dim::Dynamic()})));
  EXPECT_TRUE(TypesCompatible(t({Dim::Symbolic("B")}), t({Dim::Fixed(3)})));
  // B and C may be bound to one size: the run decides.
  EXPECT_TRUE(TypesCompatible(t({Dim::Symbolic("B")}), t({Dim::Symbolic("C")})));
  EXPECT_TRUE(DeclaredTypeAddsFacts(t({Dim::Symbolic("B")}), t({Dim::Symbolic("C")})));
  EXPECT_TRUE(TypesCompatible(Type::Unknown(), t({})));
  EXPECT_TRUE(TypesCompatible(t({}), Type::Unknown()));
}

// What a declared type states beyond an inferred one: the facts a run-time
// T6 check can still fail on, so the optimiser must keep the node.
TEST(TypeTest, DeclaredTypeAddsFacts) {
  auto t = [](std::vector<Dim> d, DType dt = DType::kF32) { return Type::Tensor(std::move(d), dt); };
  EXPECT_FALSE(DeclaredTypeAddsFacts(Type::Unknown(), Type::Unknown()));
  EXPECT_FALSE(DeclaredTypeAddsFacts(Type::Unknown(), t({Dim::Fixed(2)})));
  EXPECT_TRUE(DeclaredTypeAddsFacts(t({Dim::Fixed(2)}), Type::Unknown()));
  EXPECT_FALSE(DeclaredTypeAddsFacts(t({Dim::Fixed(2)}), t({Dim::Fixed(2)})));
  EXPECT_TRUE(DeclaredTypeAddsFacts(t({Dim::Fixed(2)}), t({Dim::Fixed(2)}, DType::kF64)));
  EXPECT_TRUE(DeclaredTypeAddsFacts(t({Dim::Fixed(2)}), t({Dim::Fixed(2), Dim::Fixed(1)})));
  EXPECT_FALSE(DeclaredTypeAddsFacts(t({Dim::Dynamic()}), t({Dim::Fixed(2)})));
  EXPECT_TRUE(DeclaredTypeAddsFacts(t({Dim::Fixed(2)}), t({Dim::Dynamic()})));
  EXPECT_TRUE(DeclaredTypeAddsFacts(t({Dim::Symbolic("B"), Dim::Fixed(4)}), t({Dim::Dynamic(), Dim::Fixed(4)})));
  EXPECT_FALSE(DeclaredTypeAddsFacts(t({Dim::Symbolic("B")}), t({Dim::Symbolic("B")})));
  // A name is not implied by a size: a run may bind it to another one.
  EXPECT_TRUE(DeclaredTypeAddsFacts(t({Dim::Symbolic("B")}), t({Dim::Fixed(3)})));
  EXPECT_TRUE(DeclaredTypeAddsFacts(t({Dim::Fixed(3)}), t({Dim::Symbolic("B")})));
}

TEST(DimTest, ToStringAndBind) {
  EXPECT_EQ(Dim::Fixed(7).ToString(), "7");
  EXPECT_EQ(Dim::Symbolic("N").ToString(), "N");
  EXPECT_EQ(Dim::Dynamic().ToString(), "?");
  EXPECT_EQ(Dim::Symbolic("N").Bind({{"N", 3}}), Dim::Fixed(3));
  EXPECT_EQ(Dim::Symbolic("N").Bind({{"M", 3}}), Dim::Symbolic("N"));
  EXPECT_EQ(DimsToString({}), "[]");
  EXPECT_EQ(DimsToString({Dim::Fixed(2), Dim::Symbolic("T")}), "[2, T]");
}

}  // namespace
}  // namespace shrew::ir
