// transpose and permute for every storage type, against index arithmetic.
// Data movement is exact: outputs must equal bitwise.
#include <algorithm>
#include <random>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::MakeSpec;
using testing::RandomTensor;
using testing::Unravel;
using K = ir::OpKind;

class PermuteTester {
 public:
  // permute with `dims` (may be negative), or transpose when Transpose() is set.
  PermuteTester& InputShape(Shape s) {
    shape_ = std::move(s);
    return *this;
  }
  PermuteTester& Dims(std::vector<int64_t> d) {
    dims_ = std::move(d);
    transpose_ = false;
    return *this;
  }
  PermuteTester& Transpose(int64_t d0, int64_t d1) {
    d0_ = d0;
    d1_ = d1;
    transpose_ = true;
    return *this;
  }
  PermuteTester& DType(ir::DType d) {
    dtype_ = d;
    return *this;
  }
  PermuteTester& ExpectImpl(std::string s) {
    impl_ = std::move(s);
    return *this;
  }

  void Test() const {
    SCOPED_TRACE(ShapeToString(shape_) + (transpose_ ? " transpose" : " permute") + " " + ir::DTypeName(dtype_));
    const int r = static_cast<int>(shape_.size());
    std::vector<int> perm(r);
    for (int i = 0; i < r; ++i) perm[i] = i;
    if (transpose_) {
      std::swap(perm[d0_ < 0 ? d0_ + r : d0_], perm[d1_ < 0 ? d1_ + r : d1_]);
    } else {
      for (int i = 0; i < r; ++i) perm[i] = static_cast<int>(dims_[i] < 0 ? dims_[i] + r : dims_[i]);
    }
    Shape out(r);
    for (int i = 0; i < r; ++i) out[i] = shape_[perm[i]];
    std::mt19937 rng(static_cast<unsigned>(r * 13));
    Tensor x = dtype_ == ir::DType::kBool ? RandomTensor(dtype_, shape_, rng, 0, 2)
                                          : RandomTensor(dtype_, shape_, rng, -100, 100);
    Tensor expected = Tensor::Zeros(dtype_, out).value();
    std::vector<int64_t> in_strides(r, 1);
    for (int i = r - 1; i > 0; --i) in_strides[i - 1] = in_strides[i] * shape_[i];
    for (int64_t o = 0; o < expected.num_elements(); ++o) {
      const std::vector<int64_t> idx = Unravel(o, out);
      int64_t src = 0;
      for (int i = 0; i < r; ++i) src += idx[i] * in_strides[perm[i]];
      expected.SetDouble(o, x.GetDouble(src));
    }
    ir::Attrs attrs;
    if (transpose_) {
      attrs.Set("dim0", ir::AttrValue::Int(d0_));
      attrs.Set("dim1", ir::AttrValue::Int(d1_));
    } else {
      attrs.Set("dims", ir::AttrValue::IntList(dims_));
    }
    auto spec = MakeSpec(transpose_ ? K::kTranspose : K::kPermute, {dtype_}, dtype_, attrs);
    Result<KernelPtr> k = CreateKernel(spec->spec);
    ASSERT_TRUE(k.ok()) << k.status().ToString();
    Result<Tensor> y = testing::RunKernel(**k, {&x}, out, dtype_);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    std::string why;
    EXPECT_TRUE(BitwiseEqual(*y, expected, &why)) << why;
    if (!impl_.empty()) EXPECT_EQ((*k)->impl_name(), impl_);
  }

 private:
  Shape shape_;
  std::vector<int64_t> dims_;
  int64_t d0_ = -2, d1_ = -1;
  bool transpose_ = true;
  ir::DType dtype_ = ir::DType::kF32;
  std::string impl_;
};

TEST(TransposeKernelTest, TransposeAllDTypes) {
  for (ir::DType d : {ir::DType::kF32, ir::DType::kF64, ir::DType::kI64, ir::DType::kU8, ir::DType::kBool,
                      ir::DType::kI32, ir::DType::kF16}) {
    PermuteTester().InputShape({3, 5}).DType(d).Test();
    PermuteTester().InputShape({2, 3, 4}).Transpose(0, 2).DType(d).Test();
    PermuteTester().InputShape({2, 3, 4, 5}).Transpose(-3, 1).DType(d).Test();
  }
}

TEST(TransposeKernelTest, PermuteShapes) {
  PermuteTester().InputShape({2, 3, 4, 5}).Dims({0, 2, 1, 3}).ExpectImpl("xnn_transpose").Test();
  PermuteTester().InputShape({2, 3, 4, 5}).Dims({3, 2, 1, 0}).Test();
  PermuteTester().InputShape({2, 3, 4, 5}).Dims({-1, 0, -2, 1}).Test();
  PermuteTester().InputShape({7}).Dims({0}).ExpectImpl("copy").Test();
  PermuteTester().InputShape({}).Dims({}).Test();
  PermuteTester().InputShape({1, 6, 1}).Dims({2, 1, 0}).ExpectImpl("copy").Test();  // only size-1 axes move
  PermuteTester().InputShape({2, 3, 4}).Dims({0, 1, 2}).ExpectImpl("copy").Test();
  PermuteTester().InputShape({2, 0, 4}).Dims({2, 0, 1}).Test();
  PermuteTester().InputShape({1, 1}).Transpose(0, 1).Test();
  PermuteTester().InputShape({3, 3}).Transpose(1, 1).ExpectImpl("copy").Test();
}

// Output rows of 2-4 elements gathered from a strided axis (NCHW -> NHWC)
// are copied whole, for 4- and 8-byte elements; wider rows of 4-byte
// elements stay XNNPACK's, and 1-byte ones always are.
TEST(TransposeKernelTest, NarrowGatheredRowsAreCopiedWhole) {
  for (int64_t c : {2, 3, 4, 5}) {
    for (ir::DType d : {ir::DType::kF32, ir::DType::kF64, ir::DType::kI64, ir::DType::kU8}) {
      const bool four = ir::StorageByteSize(ir::StorageOf(d)) == 4, eight = ir::StorageByteSize(ir::StorageOf(d)) == 8;
      const std::string impl = eight || (four && c <= 4) ? "ref_tiled" : "xnn_transpose";
      PermuteTester().InputShape({3, c, 5, 7}).Dims({0, 2, 3, 1}).DType(d).ExpectImpl(impl).Test();
      PermuteTester().InputShape({c, 37}).Transpose(0, 1).DType(d).ExpectImpl(impl).Test();
    }
  }
}

TEST(TransposeKernelTest, SevenAxesThatCannotMergeUseOwnLoop) {
  PermuteTester().InputShape({2, 3, 2, 3, 2, 3, 2}).Dims({6, 4, 2, 0, 5, 3, 1}).DType(ir::DType::kU8).ExpectImpl("ref_strided").Test();
  // Output rows of 3 gathered: whole rows at a time.
  PermuteTester().InputShape({2, 3, 2, 3, 2, 3, 2}).Dims({6, 4, 2, 0, 5, 3, 1}).ExpectImpl("ref_tiled").Test();
  PermuteTester().InputShape({2, 3, 2, 3, 2, 3, 2}).Dims({6, 4, 2, 0, 5, 3, 1}).DType(ir::DType::kF64).Test();
  // Seven axes that merge to fewer go to XNNPACK.
  PermuteTester().InputShape({2, 3, 2, 3, 2, 3, 2}).Dims({4, 5, 6, 0, 1, 2, 3}).ExpectImpl("xnn_transpose").Test();
}

// 8-byte elements whose innermost output axis is strided in the input take
// our tiled copy (tiles of 16, ragged edges here); those whose innermost
// axis stays contiguous still take XNNPACK.
TEST(TransposeKernelTest, EightByteElementsTakeTheTiledCopy) {
  for (ir::DType d : {ir::DType::kF64, ir::DType::kI64}) {
    PermuteTester().InputShape({37, 53}).Transpose(0, 1).DType(d).ExpectImpl("ref_tiled").Test();
    PermuteTester().InputShape({3, 17, 33}).Dims({0, 2, 1}).DType(d).ExpectImpl("ref_tiled").Test();
    PermuteTester().InputShape({5, 19, 7, 21}).Dims({3, 1, 0, 2}).DType(d).ExpectImpl("ref_tiled").Test();
    PermuteTester().InputShape({2, 20, 3, 18}).Dims({1, 3, 0, 2}).DType(d).ExpectImpl("ref_tiled").Test();
    PermuteTester().InputShape({16, 32}).Transpose(0, 1).DType(d).ExpectImpl("ref_tiled").Test();
    PermuteTester().InputShape({4, 5, 6}).Dims({1, 0, 2}).DType(d).ExpectImpl("xnn_transpose").Test();
  }
  PermuteTester().InputShape({37, 53}).Transpose(0, 1).DType(ir::DType::kF32).ExpectImpl("xnn_transpose").Test();
}

// An innermost axis kept in place of 8-64 bytes moves as blocks through the
// tiled copy (XNNPACK took up to 13x the time per byte of other blocks);
// 48 and 128 bytes stay with XNNPACK.
TEST(TransposeKernelTest, InnermostBlocksOfEightToSixtyFourBytesTakeTheTiledCopy) {
  struct Case {
    ir::DType dtype;
    int64_t last;
    const char* impl;
  };
  for (const Case& c : {Case{ir::DType::kF32, 2, "ref_tiled"}, Case{ir::DType::kF32, 4, "ref_tiled"},
                        Case{ir::DType::kF32, 8, "ref_tiled"}, Case{ir::DType::kF32, 16, "ref_tiled"},
                        Case{ir::DType::kF32, 32, "xnn_transpose"}, Case{ir::DType::kF64, 2, "ref_tiled"},
                        Case{ir::DType::kI64, 8, "ref_tiled"}, Case{ir::DType::kF64, 6, "xnn_transpose"},
                        Case{ir::DType::kU8, 8, "ref_tiled"}, Case{ir::DType::kBool, 16, "ref_tiled"},
                        Case{ir::DType::kU8, 64, "ref_tiled"}, Case{ir::DType::kU8, 4, "xnn_transpose"}}) {
    // Heads [B, S, H, Dh] -> [B, H, S, Dh]; narrow output rows (H = 3); tiles with ragged edges.
    PermuteTester().InputShape({2, 19, 5, c.last}).Dims({0, 2, 1, 3}).DType(c.dtype).ExpectImpl(c.impl).Test();
    PermuteTester().InputShape({2, 33, 3, c.last}).Dims({0, 2, 1, 3}).DType(c.dtype).ExpectImpl(c.impl).Test();
    PermuteTester().InputShape({37, 21, c.last}).Dims({1, 0, 2}).DType(c.dtype).ExpectImpl(c.impl).Test();
    PermuteTester().InputShape({3, 5, 7, c.last}).Dims({2, 0, 1, 3}).DType(c.dtype).ExpectImpl(c.impl).Test();
  }
}

// 4-byte elements gathered from an input stride that is a multiple of 2 KiB
// take the tiled copy's 4 x 4 blocks in the wasm build only
// (js/test/kernels.test.mjs checks those); natively they stay with XNNPACK.
TEST(TransposeKernelTest, FourByteElementsAtStridesOfTwoKiBStayWithXnnpackNatively) {
  const ir::DType f32 = ir::DType::kF32;
  PermuteTester().InputShape({37, 512}).Transpose(0, 1).DType(f32).ExpectImpl("xnn_transpose").Test();
  PermuteTester().InputShape({6, 1024}).Transpose(0, 1).DType(f32).ExpectImpl("xnn_transpose").Test();
  PermuteTester().InputShape({3, 2, 3, 512}).Dims({0, 3, 1, 2}).DType(f32).ExpectImpl("xnn_transpose").Test();
}

// Axes with a size-1 axis between them are adjacent once it is dropped:
// they were not merged, and the innermost block then taken off an identity
// permutation left XNNPACK or the strided copy moving 1/dims.back() of the
// bytes ([2, 1, 3, 1, 2] with axes 1 and 3 swapped wrote 6 of 12 values).
TEST(TransposeKernelTest, AxesAdjacentOnceSizeOneAxesAreDroppedMerge) {
  PermuteTester().InputShape({2, 1, 3, 1, 2}).Transpose(1, 3).ExpectImpl("copy").Test();
  PermuteTester().InputShape({2, 1, 3, 1, 2}).Dims({0, 3, 2, 1, 4}).ExpectImpl("copy").Test();
  PermuteTester().InputShape({2, 1, 5, 1, 4}).Dims({0, 2, 1, 3, 4}).DType(ir::DType::kI64).ExpectImpl("copy").Test();
  PermuteTester().InputShape({33, 16, 17, 1, 2}).Dims({1, 3, 0, 2, 4}).Test();
  PermuteTester().InputShape({3, 1, 4, 1, 5, 1, 2}).Dims({4, 1, 2, 3, 0, 5, 6}).DType(ir::DType::kF64).Test();
  Shape wide;
  for (int i = 0; i < 8; ++i) wide.insert(wide.end(), {2, 1});
  wide.push_back(4);  // rank 17: the strided copy's
  PermuteTester().InputShape(wide).Transpose(1, 3).Test();
  PermuteTester().InputShape(wide).Transpose(0, 2).Test();
  // Random shapes of many size-1 axes and small blocks, ranks 3-7.
  std::mt19937 rng(51);
  const int64_t sizes[] = {1, 1, 1, 2, 3, 4, 8, 16};
  const ir::DType types[] = {ir::DType::kF32, ir::DType::kF64, ir::DType::kU8, ir::DType::kI64};
  for (int i = 0; i < 400; ++i) {
    const int r = static_cast<int>(3 + rng() % 5);
    Shape s(static_cast<size_t>(r));
    for (int64_t& d : s) d = sizes[rng() % 8];
    std::vector<int64_t> dims(static_cast<size_t>(r));
    for (int j = 0; j < r; ++j) dims[static_cast<size_t>(j)] = j;
    std::shuffle(dims.begin(), dims.end() - (i % 2), rng);  // every other one keeps its last axis
    PermuteTester().InputShape(s).Dims(dims).DType(types[i % 4]).Test();
  }
}

TEST(TransposeKernelTest, RandomPermutations) {
  std::mt19937 rng(21);
  for (int i = 0; i < 60; ++i) {
    const int r = static_cast<int>(1 + rng() % 6);
    Shape s(static_cast<size_t>(r));
    for (int64_t& d : s) d = static_cast<int64_t>(1 + rng() % 4);
    std::vector<int64_t> dims(static_cast<size_t>(r));
    for (int j = 0; j < r; ++j) dims[static_cast<size_t>(j)] = j;
    std::shuffle(dims.begin(), dims.end(), rng);
    for (int64_t& d : dims) {
      if (rng() % 2 == 0) d -= r;  // negative spelling of the same axis
    }
    const ir::DType types[] = {ir::DType::kF32, ir::DType::kF64, ir::DType::kU8};
    PermuteTester().InputShape(s).Dims(dims).DType(types[i % 3]).Test();
  }
}

TEST(TransposeKernelTest, Errors) {
  auto t = MakeSpec(K::kTranspose, {ir::DType::kF32}, ir::DType::kF32);
  Result<KernelPtr> k = CreateKernel(t->spec);
  ASSERT_TRUE(k.ok());
  std::vector<Shape> vec = {{4}};
  Result<size_t> r = (*k)->Reshape(vec, {4});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("rank >= 2"), std::string::npos) << r.status().message();
  std::vector<Shape> mat = {{2, 3}};
  EXPECT_FALSE((*k)->Reshape(mat, {2, 3}).ok());  // wrong output shape

  auto p =
      MakeSpec(K::kPermute, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("dims", ir::AttrValue::IntList({0, 0})));
  Result<KernelPtr> kp = CreateKernel(p->spec);
  ASSERT_TRUE(kp.ok());
  EXPECT_FALSE((*kp)->Reshape(mat, {2, 2}).ok());
  std::vector<Shape> cube = {{2, 3, 4}};
  EXPECT_FALSE((*kp)->Reshape(cube, {2, 3, 4}).ok());  // wrong length
  auto missing = MakeSpec(K::kPermute, {ir::DType::kF32}, ir::DType::kF32);
  EXPECT_EQ(CreateKernel(missing->spec).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shrew::runtime::kernels
