#include "runtime/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace shrew::runtime {
namespace {

using ir::DType;

TEST(TensorTest, DefaultIsEmptyF32) {
  Tensor t;
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.shape(), Shape{0});
  EXPECT_EQ(t.num_elements(), 0);
  EXPECT_EQ(t.byte_size(), 0u);
}

TEST(TensorTest, ZerosAllocatesStorageType) {
  Result<Tensor> t = Tensor::Zeros(DType::kI32, {2, 3});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype(), DType::kI32);
  EXPECT_EQ(t->storage(), ir::StorageType::kI64);
  EXPECT_EQ(t->rank(), 2);
  EXPECT_EQ(t->dim(1), 3);
  EXPECT_EQ(t->num_elements(), 6);
  EXPECT_EQ(t->byte_size(), 48u);
  for (int64_t v : t->values<int64_t>()) EXPECT_EQ(v, 0);
  // Alignment and tail padding contract (XNNPACK over-reads).
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->raw_data()) % kTensorAlignment, 0u);
  for (size_t i = 0; i < kTailPaddingBytes; ++i) EXPECT_EQ(t->raw_data()[t->byte_size() + i], std::byte{0});
}

TEST(TensorTest, StorageMapping) {
  struct Row {
    DType d;
    ir::StorageType s;
  } rows[] = {{DType::kF16, ir::StorageType::kF32}, {DType::kBF16, ir::StorageType::kF32},
              {DType::kF64, ir::StorageType::kF64}, {DType::kI8, ir::StorageType::kI64},
              {DType::kU8, ir::StorageType::kU8},   {DType::kU64, ir::StorageType::kI64},
              {DType::kBool, ir::StorageType::kBool}};
  for (const Row& r : rows) {
    Result<Tensor> t = Tensor::Zeros(r.d, {1});
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->storage(), r.s) << ir::DTypeName(r.d);
  }
}

TEST(TensorTest, RankZeroAndSizeZero) {
  Result<Tensor> s = Tensor::Zeros(DType::kF64, {});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rank(), 0);
  EXPECT_EQ(s->num_elements(), 1);
  Result<Tensor> e = Tensor::Zeros(DType::kF32, {3, 0, 2});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->num_elements(), 0);
  EXPECT_TRUE(e->values<float>().empty());
}

TEST(TensorTest, FactoryErrors) {
  EXPECT_FALSE(Tensor::Zeros(DType::kComplex64, {2}).ok());
  EXPECT_NE(Tensor::Zeros(DType::kComplex64, {2}).status().message().find("not supported for execution"),
            std::string::npos);
  EXPECT_FALSE(Tensor::Zeros(DType::kF32, {2, -1}).ok());
  // Element count overflow, and a byte count too large to allocate.
  EXPECT_FALSE(Tensor::Zeros(DType::kF32, {int64_t{1} << 40, int64_t{1} << 40}).ok());
  Result<Tensor> huge = Tensor::Zeros(DType::kF64, {std::numeric_limits<int64_t>::max() / 4});
  EXPECT_FALSE(huge.ok());
  // Wrong value count or storage type.
  EXPECT_FALSE(Tensor::FromVector<float>(DType::kF32, {2, 2}, {1, 2, 3}).ok());
  Result<Tensor> wrong = Tensor::FromVector<double>(DType::kF32, {1}, {1.0});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("stored as f32"), std::string::npos);
}

TEST(TensorTest, FromVectorAndAccess) {
  Result<Tensor> t = Tensor::FromVector<float>(DType::kF16, {2, 2}, {1.5f, -2, 3, 4});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dtype(), DType::kF16);
  EXPECT_EQ(t->values<float>()[1], -2.0f);
  EXPECT_EQ(t->GetDouble(0), 1.5);
  EXPECT_EQ(t->GetInt64(0), 1);
  t->mutable_values<float>()[3] = 9;
  EXPECT_EQ(t->data<float>()[3], 9.0f);

  Result<Tensor> b = Tensor::FromVector(DType::kBool, {3}, std::vector<bool>{true, false, true});
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->values<bool>()[0]);
  EXPECT_FALSE(b->values<bool>()[1]);
  EXPECT_EQ(static_cast<int>(b->raw_data()[2]), 1);
}

TEST(TensorTest, Scalars) {
  Tensor a = Tensor::Scalar(2.5f);
  EXPECT_EQ(a.dtype(), DType::kF32);
  EXPECT_EQ(a.rank(), 0);
  EXPECT_EQ(a.values<float>()[0], 2.5f);
  Tensor b = Tensor::Scalar<int64_t>(DType::kI16, -7);
  EXPECT_EQ(b.dtype(), DType::kI16);
  EXPECT_EQ(b.GetInt64(0), -7);
  EXPECT_EQ(Tensor::Scalar(true).dtype(), DType::kBool);
  EXPECT_EQ(Tensor::Scalar(uint8_t{200}).GetInt64(0), 200);
}

TEST(TensorTest, FromBytesChecksBoolAndSize) {
  const std::byte ok[] = {std::byte{0}, std::byte{1}};
  const std::byte bad[] = {std::byte{0}, std::byte{2}};
  EXPECT_TRUE(Tensor::FromBytes(DType::kBool, {2}, ok).ok());
  EXPECT_FALSE(Tensor::FromBytes(DType::kBool, {2}, bad).ok());
  EXPECT_FALSE(Tensor::FromBytes(DType::kBool, {3}, ok).ok());
  float v[2] = {1.0f, 2.0f};
  Result<Tensor> f = Tensor::FromBytes(DType::kF32, {2}, std::as_bytes(std::span<float>(v)));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->values<float>()[1], 2.0f);
}

// The byte count is compared before anything is allocated: 2 bytes for
// 2^40 floats said "out of memory allocating 4398046511104 bytes" (after
// trying), and for 2^28 floats allocated and zeroed 1 GiB first.
TEST(TensorTest, FromBytesComparesTheByteCountBeforeAllocating) {
  const std::byte two[] = {std::byte{0}, std::byte{0}};
  Result<Tensor> huge = Tensor::FromBytes(DType::kF32, {int64_t{1} << 40}, two);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(huge.status().message(), "tensor f32[1099511627776] needs 4398046511104 bytes, got 2");
  Result<Tensor> wide = Tensor::FromBytes(DType::kF64, {int64_t{1} << 31, int64_t{1} << 31}, two);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().message(), "tensor f64[2147483648, 2147483648] needs more than 2^64 bytes, got 2");
  // FromVector too: its count mismatch was an allocation failure of 4 TiB.
  const float three[] = {1, 2, 3};
  Result<Tensor> counted = Tensor::FromVector<float>(DType::kF32, {int64_t{1} << 40}, three);
  ASSERT_FALSE(counted.ok());
  EXPECT_EQ(counted.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(counted.status().message(), "tensor of shape [1099511627776] needs 1099511627776 values, got 3");
  // An empty tensor takes no bytes.
  Result<Tensor> empty = Tensor::FromBytes(DType::kF32, {0, 5}, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->num_elements(), 0);
}

TEST(TensorTest, SetDoubleConversions) {
  Tensor u = std::move(Tensor::Zeros(DType::kU8, {3})).value();
  u.SetDouble(0, 300);   // wraps modulo 256
  u.SetDouble(1, -1);    // 255
  u.SetDouble(2, 7.9);   // truncates
  EXPECT_EQ(u.GetInt64(0), 44);
  EXPECT_EQ(u.GetInt64(1), 255);
  EXPECT_EQ(u.GetInt64(2), 7);
  Tensor i = std::move(Tensor::Zeros(DType::kI64, {3})).value();
  i.SetDouble(0, -2.7);
  i.SetDouble(1, 1e300);  // saturates instead of undefined behaviour
  i.SetDouble(2, std::nan(""));
  EXPECT_EQ(i.GetInt64(0), -2);
  EXPECT_EQ(i.GetInt64(1), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(i.GetInt64(2), 0);
  Tensor b = std::move(Tensor::Full(DType::kBool, {2}, 0.5)).value();
  EXPECT_TRUE(b.values<bool>()[0]);
  Tensor f = std::move(Tensor::Full(DType::kF32, {2}, 0.1)).value();
  EXPECT_EQ(f.values<float>()[1], 0.1f);
}

TEST(TensorTest, CopyIsDeepMoveSteals) {
  Tensor a = std::move(Tensor::FromVector<int64_t>(DType::kI64, {2}, {1, 2})).value();
  Tensor b = a;
  b.mutable_values<int64_t>()[0] = 5;
  EXPECT_EQ(a.values<int64_t>()[0], 1);
  const std::byte* p = a.raw_data();
  Tensor c = std::move(a);
  EXPECT_EQ(c.raw_data(), p);
  EXPECT_EQ(a.num_elements(), 0);  // NOLINT: moved-from state is documented
  Result<Tensor> d = c.Clone();
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(BitwiseEqual(*d, c));
}

TEST(TensorTest, ReshapeAndRetag) {
  Tensor t = std::move(Tensor::Zeros(DType::kF32, {2, 3})).value();
  EXPECT_TRUE(t.Reshape({3, 2}).ok());
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  Status bad = t.Reshape({4});
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("cannot reshape [3, 2] (6 elements) to [4] (4 elements)"), std::string::npos);
  EXPECT_TRUE(t.Retag(DType::kBF16).ok());
  EXPECT_EQ(t.dtype(), DType::kBF16);
  EXPECT_FALSE(t.Retag(DType::kF64).ok());
}

TEST(TensorTest, CountElements) {
  EXPECT_EQ(CountElements(Shape{}).value(), 1);
  EXPECT_EQ(CountElements(Shape{2, 0, 5}).value(), 0);
  // A 0 anywhere: no elements, though the product from the left overflows first.
  EXPECT_EQ(CountElements(Shape{int64_t{1} << 32, int64_t{1} << 32, 0}).value(), 0);
  EXPECT_EQ(CountElements(Shape{int64_t{1} << 32, 0, int64_t{1} << 32}).value(), 0);
  EXPECT_EQ(CountElements(Shape{3, 4}).value(), 12);
  EXPECT_FALSE(CountElements(Shape{int64_t{1} << 32, int64_t{1} << 32}).ok());
  EXPECT_FALSE(CountElements(Shape{-2}).ok());
}

TEST(TensorTest, AllCloseAndBitwise) {
  Tensor a = std::move(Tensor::FromVector<float>(DType::kF32, {3}, {1.0f, NAN, 3.0f})).value();
  Tensor b = std::move(Tensor::FromVector<float>(DType::kF32, {3}, {1.0f + 1e-7f, NAN, 3.0f})).value();
  std::string why;
  EXPECT_TRUE(AllClose(a, b, 1e-5, 0, &why)) << why;
  EXPECT_FALSE(BitwiseEqual(a, b, &why));
  EXPECT_NE(why.find("element 0"), std::string::npos);
  Tensor c = std::move(Tensor::FromVector<float>(DType::kF32, {3}, {1.1f, NAN, 3.0f})).value();
  EXPECT_FALSE(AllClose(c, a, 1e-5, 1e-6, &why));
  EXPECT_NE(why.find("element 0: got 1.1"), std::string::npos) << why;
  Tensor other_shape = std::move(Tensor::Zeros(DType::kF32, {1, 3})).value();
  EXPECT_FALSE(AllClose(a, other_shape, 1, 1));
  Tensor inf1 = Tensor::Scalar(INFINITY), inf2 = Tensor::Scalar(-INFINITY);
  EXPECT_FALSE(AllClose(inf1, inf2, 1, 1));
  Tensor i1 = Tensor::Scalar<int64_t>(3), i2 = Tensor::Scalar<int64_t>(4);
  EXPECT_FALSE(AllClose(i1, i2, 1, 1));  // integers compare exactly
}

TEST(TensorTest, Strings) {
  Tensor t = std::move(Tensor::FromVector<float>(DType::kF32, {2, 2}, {1, 2.5f, 3, 4})).value();
  EXPECT_EQ(t.TypeString(), "f32[2, 2]");
  EXPECT_EQ(t.ToString(), "f32[2, 2] {1, 2.5, 3, 4}");
  EXPECT_EQ(t.ToString(2), "f32[2, 2] {1, 2.5, …}");
  EXPECT_EQ(t.ToString(0), "f32[2, 2] {…}");
  EXPECT_EQ(Tensor::Scalar(true).ToString(), "bool[] {true}");
  EXPECT_EQ(ShapeToString(Shape{}), "[]");
}

}  // namespace
}  // namespace shrew::runtime
