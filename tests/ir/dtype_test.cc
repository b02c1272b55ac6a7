#include "ir/dtype.h"

#include <gtest/gtest.h>

namespace shrew::ir {
namespace {

TEST(DTypeTest, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    auto back = DTypeFromName(DTypeName(d));
    ASSERT_TRUE(back.has_value()) << DTypeName(d);
    EXPECT_EQ(*back, d);
  }
  EXPECT_STREQ(DTypeName(DType::kF32), "f32");
  EXPECT_STREQ(DTypeName(DType::kComplex128), "complex128");
  EXPECT_FALSE(DTypeFromName("float32").has_value());
  EXPECT_FALSE(DTypeFromName("F32").has_value());
  EXPECT_EQ(DTypeFromLongName("float32"), DType::kF32);
  EXPECT_EQ(DTypeFromLongName("int64"), DType::kI64);
  EXPECT_EQ(DTypeFromLongName("u8"), DType::kU8);
  EXPECT_FALSE(DTypeFromLongName("float128").has_value());
}

}  // namespace
}  // namespace shrew::ir

namespace shrew::ir {
namespace {

TEST(DTypeTest, Classes) {
  EXPECT_TRUE(IsFloat(DType::kBF16));
  EXPECT_TRUE(IsFloat(DType::kF64));
  EXPECT_FALSE(IsFloat(DType::kI32));
  EXPECT_TRUE(IsSignedInt(DType::kI8));
  EXPECT_TRUE(IsUnsignedInt(DType::kU64));
  EXPECT_TRUE(IsInteger(DType::kU8));
  EXPECT_FALSE(IsInteger(DType::kBool));
  EXPECT_TRUE(IsNumeric(DType::kI64));
  EXPECT_FALSE(IsNumeric(DType::kBool));
  EXPECT_FALSE(IsNumeric(DType::kComplex64));
  EXPECT_TRUE(IsBool(DType::kBool));
  EXPECT_TRUE(IsComplex(DType::kComplex128));
  EXPECT_EQ(ClassOf(DType::kU16), DTypeClass::kUnsignedInt);
}

TEST(DTypeTest, StorageTableMatchesSpec) {
  EXPECT_EQ(StorageOf(DType::kF16), StorageType::kF32);
  EXPECT_EQ(StorageOf(DType::kBF16), StorageType::kF32);
  EXPECT_EQ(StorageOf(DType::kF32), StorageType::kF32);
  EXPECT_EQ(StorageOf(DType::kF64), StorageType::kF64);
  EXPECT_EQ(StorageOf(DType::kI8), StorageType::kI64);
  EXPECT_EQ(StorageOf(DType::kI32), StorageType::kI64);
  EXPECT_EQ(StorageOf(DType::kU8), StorageType::kU8);
  EXPECT_EQ(StorageOf(DType::kU16), StorageType::kI64);
  EXPECT_EQ(StorageOf(DType::kU64), StorageType::kI64);
  EXPECT_EQ(StorageOf(DType::kBool), StorageType::kBool);
  EXPECT_EQ(StorageOf(DType::kComplex64), StorageType::kUnsupported);
  EXPECT_EQ(StorageDType(DType::kU32), DType::kI64);
  EXPECT_EQ(StorageDType(DType::kF16), DType::kF32);
  EXPECT_FALSE(IsExecutable(DType::kComplex64));
  EXPECT_TRUE(IsExecutable(DType::kU16));
}

TEST(DTypeTest, ByteSizes) {
  EXPECT_EQ(DeclaredByteSize(DType::kF16), 2u);
  EXPECT_EQ(DeclaredByteSize(DType::kF32), 4u);
  EXPECT_EQ(DeclaredByteSize(DType::kI64), 8u);
  EXPECT_EQ(DeclaredByteSize(DType::kBool), 1u);
  EXPECT_EQ(DeclaredByteSize(DType::kComplex128), 16u);
  EXPECT_EQ(StorageByteSize(StorageType::kF32), 4u);
  EXPECT_EQ(StorageByteSize(StorageType::kI64), 8u);
  EXPECT_EQ(StorageByteSize(StorageType::kU8), 1u);
  EXPECT_EQ(StorageByteSize(StorageType::kBool), 1u);
  EXPECT_STREQ(StorageTypeName(StorageType::kI64), "i64");
}

TEST(DTypeTest, WeakLiteralRules) {
  EXPECT_EQ(JoinWeak(WeakKind::kInt, WeakKind::kFloat), WeakKind::kFloat);
  EXPECT_EQ(JoinWeak(WeakKind::kBool, WeakKind::kInt), WeakKind::kInt);
  EXPECT_EQ(JoinWeak(WeakKind::kBool, WeakKind::kBool), WeakKind::kBool);
  EXPECT_EQ(DefaultDTypeFor(WeakKind::kInt), DType::kI64);
  EXPECT_EQ(DefaultDTypeFor(WeakKind::kFloat), DType::kF32);
  EXPECT_EQ(DefaultDTypeFor(WeakKind::kFloat, DType::kF64), DType::kF64);
  EXPECT_EQ(DefaultDTypeFor(WeakKind::kBool), DType::kBool);
  EXPECT_TRUE(WeakLiteralFits(WeakKind::kFloat, 2.0, DType::kI32));
  EXPECT_FALSE(WeakLiteralFits(WeakKind::kFloat, 2.5, DType::kI64));
  EXPECT_FALSE(WeakLiteralFits(WeakKind::kFloat, 1.0 / 0.0, DType::kI64));
  // Integral but outside the i64 storage: no integer value to become.
  EXPECT_FALSE(WeakLiteralFits(WeakKind::kFloat, 1e30, DType::kI64));
  EXPECT_FALSE(WeakLiteralFits(WeakKind::kFloat, 9223372036854775808.0, DType::kU16));
  EXPECT_FALSE(WeakLiteralFits(WeakKind::kFloat, -1e19, DType::kI32));
  EXPECT_TRUE(WeakLiteralFits(WeakKind::kFloat, -9223372036854775808.0, DType::kI64));
  EXPECT_TRUE(WeakLiteralFits(WeakKind::kFloat, 9.2e18, DType::kI64));
  EXPECT_TRUE(WeakLiteralFits(WeakKind::kFloat, 2.5, DType::kF16));
  EXPECT_TRUE(WeakLiteralFits(WeakKind::kInt, 0, DType::kBool));
  EXPECT_TRUE(WeakLiteralFits(WeakKind::kBool, 0, DType::kF32));
  EXPECT_FALSE(WeakLiteralFits(WeakKind::kInt, 0, DType::kComplex64));
}

}  // namespace
}  // namespace shrew::ir
