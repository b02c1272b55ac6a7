// copy (identity, reshape, view, dropout in inference) and expand, any
// dtype; exact (bitwise) results.
#include <random>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::BroadcastOffset;
using testing::MakeSpec;
using testing::RandomTensor;
using testing::Unravel;
using K = ir::OpKind;

TEST(CopyKernelTest, IdentityReshapeViewDropoutCopyBytes) {
  std::mt19937 rng(1);
  for (ir::DType d : {ir::DType::kF32, ir::DType::kF64, ir::DType::kI64, ir::DType::kU8}) {
    Tensor x = RandomTensor(d, {3, 4}, rng, 0, 100);
    for (K op : {K::kIdentity, K::kReshape, K::kView, K::kDropout}) {
      auto spec = MakeSpec(op, {d}, d);
      const Shape out = op == K::kIdentity ? Shape{3, 4} : Shape{2, 6};
      Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, out);
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      Tensor expected = x;
      ASSERT_TRUE(expected.Reshape(out).ok());
      std::string why;
      EXPECT_TRUE(BitwiseEqual(*y, expected, &why)) << ir::OpName(op) << ": " << why;
      testing::RunOptions in_place;
      in_place.in_place = true;
      Result<Tensor> z = testing::CreateAndRun(spec->spec, {&x}, out, in_place);
      ASSERT_TRUE(z.ok());
      EXPECT_TRUE(BitwiseEqual(*z, expected, &why)) << why;
    }
  }
}

TEST(CopyKernelTest, ElementCountMustMatch) {
  auto spec = MakeSpec(K::kReshape, {ir::DType::kF32}, ir::DType::kF32);
  Result<KernelPtr> k = CreateKernel(spec->spec);
  ASSERT_TRUE(k.ok());
  std::vector<Shape> in = {{3, 4}};
  EXPECT_EQ((*k)->Reshape(in, {5}).status().code(), StatusCode::kInvalidArgument);
}

// Training-mode dropout draws from the spec's generator (ref_dropout.cc);
// inference mode and p = 0 are copies; an invalid p fails when run.
TEST(CopyKernelTest, DropoutInTrainingDrawsFromTheGenerator) {
  auto spec = MakeSpec(K::kDropout, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("p", ir::AttrValue::Float(0.5)));
  spec->spec.training = true;
  EXPECT_EQ(CreateKernel(spec->spec).status().code(), StatusCode::kFailedPrecondition);  // no generator
  Rng rng(7), replay(7);
  spec->spec.rng = &rng;
  std::mt19937 gen(3);
  Tensor x = RandomTensor(ir::DType::kF32, {64}, gen, 1, 2);
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, {64});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int64_t i = 0; i < 64; ++i) {
    const float expect = replay.NextUniform() >= 0.5 ? x.values<float>()[static_cast<size_t>(i)] * 2.0f : 0.0f;
    EXPECT_EQ(y->values<float>()[static_cast<size_t>(i)], expect) << i;
  }
  spec->spec.training = false;
  EXPECT_TRUE(CreateKernel(spec->spec).ok());
  auto p0 = MakeSpec(K::kDropout, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("p", ir::AttrValue::Float(0.0)));
  p0->spec.training = true;
  EXPECT_TRUE(CreateKernel(p0->spec).ok());  // p = 0 is the identity
  auto bad = MakeSpec(K::kDropout, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("p", ir::AttrValue::Float(1.0)));
  Result<Tensor> r = testing::CreateAndRun(bad->spec, {&x}, {64});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("outside [0, 1)"), std::string::npos) << r.status().ToString();
}

// Over blocks of draws, each p, f32 and f64: an element is kept exactly when
// its draw u >= p (the spec's test, against the kernel's integer form), a
// kept inf or NaN stays as scaled, a dropped one is +0.
TEST(CopyKernelTest, DropoutKeepsExactlyTheDrawsAtOrAboveP) {
  for (ir::DType dt : {ir::DType::kF32, ir::DType::kF64}) {
    for (double p : {0.01, 1.0 / 3, 0.5, 0.9}) {
      SCOPED_TRACE(std::string(ir::DTypeName(dt)) + " p " + std::to_string(p));
      auto spec = MakeSpec(K::kDropout, {dt}, dt, testing::Attr("p", ir::AttrValue::Float(p)));
      spec->spec.training = true;
      Rng rng(11), replay(11);
      spec->spec.rng = &rng;
      std::mt19937 gen(4);
      Tensor x = RandomTensor(dt, {1000}, gen, -2, 2);
      for (int64_t i = 0; i < 1000; i += 7) x.SetDouble(i, i % 2 ? INFINITY : NAN);
      Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, {1000});
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      const double scale = 1.0 / (1.0 - p);
      for (int64_t i = 0; i < 1000; ++i) {
        const bool keep = replay.NextUniform() >= p;
        const double got = y->GetDouble(i);
        if (!keep) {
          ASSERT_TRUE(got == 0.0 && !std::signbit(got)) << i << ": " << got;
        } else if (dt == ir::DType::kF32) {
          const float want = x.values<float>()[static_cast<size_t>(i)] * static_cast<float>(scale);
          ASSERT_TRUE(std::isnan(want) ? std::isnan(got) : got == want) << i;
        } else {
          const double want = x.values<double>()[static_cast<size_t>(i)] * scale;
          ASSERT_TRUE(std::isnan(want) ? std::isnan(got) : got == want) << i;
        }
      }
    }
  }
}

void ExpectExpand(const Shape& in, const Shape& out, ir::DType d) {
  SCOPED_TRACE(ShapeToString(in) + " -> " + ShapeToString(out));
  std::mt19937 rng(static_cast<unsigned>(in.size() + out.size()));
  Tensor x = RandomTensor(d, in, rng, 0, 100);
  Tensor expected = Tensor::Zeros(d, out).value();
  for (int64_t i = 0; i < expected.num_elements(); ++i) {
    expected.SetDouble(i, x.GetDouble(BroadcastOffset(Unravel(i, out), in, out)));
  }
  std::vector<ir::Dim> target;
  for (int64_t s : out) target.push_back(ir::Dim::Fixed(s));
  auto spec = MakeSpec(K::kExpand, {d}, d, testing::Attr("shape", ir::AttrValue::Shape(target)));
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, out);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  std::string why;
  EXPECT_TRUE(BitwiseEqual(*y, expected, &why)) << why;
}

TEST(ExpandKernelTest, BroadcastCopies) {
  for (ir::DType d : {ir::DType::kF32, ir::DType::kF64, ir::DType::kU8, ir::DType::kBool}) {
    ExpectExpand({}, {2, 3}, d);
    ExpectExpand({3}, {4, 3}, d);
    ExpectExpand({4, 1}, {4, 5}, d);
    ExpectExpand({2, 1, 3}, {5, 2, 4, 3}, d);
    ExpectExpand({1, 1}, {1, 1}, d);
    ExpectExpand({2, 3}, {2, 3}, d);
    ExpectExpand({1, 3}, {0, 3}, d);
    // Long rows filled from a column or one value (16-byte splats, the last overlapping).
    ExpectExpand({3, 1}, {3, 70}, d);
    ExpectExpand({3, 1}, {3, 37}, d);
    ExpectExpand({1}, {4, 33}, d);
  }
}

TEST(ExpandKernelTest, ShortRowsInEveryPatternAndWidth) {
  // Rows under 32 elements run a plane at a time: a column's values n
  // times (rows of 2, 4, 8 and 16 bytes one store each, longer ones in
  // 16-byte splats with an overlapping last one), a repeated row (stores,
  // then doubling copies past 16 rows) or one value.
  for (ir::DType d : {ir::DType::kU8, ir::DType::kF32, ir::DType::kF64, ir::DType::kI64}) {
    for (int64_t n = 1; n <= 17; ++n) {
      for (int64_t rows : {1, 2, 3, 16, 17, 40}) {
        ExpectExpand({3, rows, 1}, {3, rows, n}, d);
        ExpectExpand({rows, 1}, {rows, n}, d);
        ExpectExpand({3, 1, n}, {3, rows, n}, d);
        ExpectExpand({n}, {rows, n}, d);
        ExpectExpand({3, 1, 1}, {3, rows, n}, d);
      }
    }
  }
}

TEST(ExpandKernelTest, Errors) {
  auto spec = MakeSpec(K::kExpand, {ir::DType::kF32}, ir::DType::kF32);
  Result<KernelPtr> k = CreateKernel(spec->spec);
  ASSERT_TRUE(k.ok());
  std::vector<Shape> in = {{3, 2}};
  EXPECT_FALSE((*k)->Reshape(in, {3, 4}).ok());
  EXPECT_FALSE((*k)->Reshape(in, {2}).ok());
  auto fixed = MakeSpec(K::kExpand, {ir::DType::kF32}, ir::DType::kF32,
                        testing::Attr("shape", ir::AttrValue::Shape({ir::Dim::Fixed(4), ir::Dim::Fixed(2)})));
  Result<KernelPtr> kf = CreateKernel(fixed->spec);
  ASSERT_TRUE(kf.ok());
  std::vector<Shape> one = {{1, 2}};
  EXPECT_FALSE((*kf)->Reshape(one, {5, 2}).ok());  // contradicts the fixed target
  EXPECT_TRUE((*kf)->Reshape(one, {4, 2}).ok());
}

}  // namespace
}  // namespace shrew::runtime::kernels
