// Binary arithmetic kernels (add sub mul div, fused_add_relu,
// fused_sub_relu) with NumPy broadcasting, against a hand-written loop.
// f32 add/sub/mul/div are correctly rounded both in XNNPACK and in the
// double-then-round reference, so the tolerance is 1e-6 relative, 0 absolute.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::BroadcastOffset;
using testing::BroadcastShape;
using testing::CreateAndRun;
using testing::MakeSpec;
using testing::RandomTensor;
using testing::RunOptions;
using testing::Unravel;
using K = ir::OpKind;

double RefFloat(K op, double a, double b) {
  switch (op) {
    case K::kAdd:
      return a + b;
    case K::kSub:
      return a - b;
    case K::kMul:
      return a * b;
    case K::kDiv:
      return a / b;
    case K::kFusedAddRelu:
      return std::max(a + b, 0.0);
    case K::kFusedSubRelu:
      return std::max(a - b, 0.0);
    default:
      return 0;
  }
}

class BinaryTester {
 public:
  BinaryTester& Op(K op) {
    op_ = op;
    return *this;
  }
  BinaryTester& Shapes(Shape a, Shape b) {
    a_ = std::move(a);
    b_ = std::move(b);
    return *this;
  }
  BinaryTester& DType(ir::DType d) {
    dtype_ = d;
    return *this;
  }
  BinaryTester& InPlace(size_t operand) {
    in_place_ = true;
    in_place_operand_ = operand;
    return *this;
  }
  BinaryTester& ExpectImpl(std::string name) {
    impl_ = std::move(name);
    return *this;
  }

  void Test() const {
    SCOPED_TRACE(std::string(ir::OpName(op_)) + " " + ShapeToString(a_) + " , " + ShapeToString(b_) + " " +
                 ir::DTypeName(dtype_));
    std::mt19937 rng(static_cast<unsigned>(a_.size() * 17 + b_.size()));
    Tensor a = RandomTensor(dtype_, a_, rng, -5, 5);
    // Keep divisors away from zero so the reference is well conditioned.
    Tensor b = op_ == K::kDiv ? RandomTensor(dtype_, b_, rng, 0.5, 4) : RandomTensor(dtype_, b_, rng, -5, 5);
    const Shape out = BroadcastShape(a_, b_);
    Result<Tensor> expected = Tensor::Zeros(dtype_, out);
    ASSERT_TRUE(expected.ok());
    for (int64_t i = 0; i < expected->num_elements(); ++i) {
      const std::vector<int64_t> idx = Unravel(i, out);
      const double av = a.GetDouble(BroadcastOffset(idx, a_, out));
      const double bv = b.GetDouble(BroadcastOffset(idx, b_, out));
      expected->SetDouble(i, RefFloat(op_, av, bv));
    }
    auto spec = MakeSpec(op_, {dtype_, dtype_}, dtype_);
    Result<KernelPtr> k = CreateKernel(spec->spec);
    ASSERT_TRUE(k.ok()) << k.status().ToString();
    RunOptions opt;
    opt.in_place = in_place_;
    opt.in_place_operand = in_place_operand_;
    Result<Tensor> y = testing::RunKernel(**k, {&a, &b}, out, dtype_, opt);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_TENSOR_NEAR(*y, *expected, 1e-6, 0.0);
    if (!impl_.empty()) EXPECT_EQ((*k)->impl_name(), impl_);
    if (in_place_) EXPECT_TRUE((*k)->CanRunInPlace(in_place_operand_));
  }

 private:
  K op_ = K::kAdd;
  Shape a_ = {3}, b_ = {3};
  ir::DType dtype_ = ir::DType::kF32;
  bool in_place_ = false;
  size_t in_place_operand_ = 0;
  std::string impl_;
};

const std::pair<Shape, Shape> kShapePairs[] = {
    {{}, {}},         {{}, {3}},           {{3}, {}},
    {{2, 3}, {3}},    {{2, 1, 4}, {3, 1}}, {{1}, {5, 1, 1}},
    {{4, 5}, {4, 5}}, {{1, 1}, {1, 1, 1}}, {{0, 3}, {3}},
    {{2, 0}, {1}},    {{37, 19}, {37, 1}}, {{2, 3, 4, 5}, {1, 3, 1, 5}},
};
constexpr K kOps[] = {K::kAdd, K::kSub, K::kMul, K::kDiv, K::kFusedAddRelu, K::kFusedSubRelu};

TEST(BinaryKernelTest, F32BroadcastShapes) {
  for (K op : kOps) {
    for (const auto& [a, b] : kShapePairs) BinaryTester().Op(op).Shapes(a, b).Test();
  }
}

// Random broadcast-compatible pairs: ranks 0..5, sizes {1, 2, 3, 5, 8},
// each aligned axis of b equal to a's or 1 (and vice versa).
std::vector<std::pair<Shape, Shape>> RandomBroadcastPairs(unsigned seed, int count) {
  std::mt19937 rng(seed);
  const int64_t sizes[] = {1, 2, 3, 5, 8};
  std::vector<std::pair<Shape, Shape>> pairs;
  for (int i = 0; i < count; ++i) {
    const int r = static_cast<int>(rng() % 6);
    Shape full(static_cast<size_t>(r));
    for (int64_t& d : full) d = sizes[rng() % 5];
    Shape a = full, b = full;
    for (size_t d = 0; d < full.size(); ++d) {
      const unsigned pick = rng() % 4;  // 0: a has 1, 1: b has 1, else both full
      if (pick == 0) a[d] = 1;
      if (pick == 1) b[d] = 1;
    }
    // Drop some leading axes of either side (implicit 1s).
    a.erase(a.begin(), a.begin() + static_cast<int64_t>(rng() % (a.size() + 1) / 2));
    b.erase(b.begin(), b.begin() + static_cast<int64_t>(rng() % (b.size() + 1) / 2));
    pairs.push_back({a, b});
  }
  return pairs;
}

TEST(BinaryKernelTest, RandomBroadcastShapes) {
  for (K op : kOps) {
    for (const auto& [a, b] : RandomBroadcastPairs(static_cast<unsigned>(op), 40)) {
      BinaryTester().Op(op).Shapes(a, b).Test();
    }
    for (const auto& [a, b] : RandomBroadcastPairs(100 + static_cast<unsigned>(op), 10)) {
      BinaryTester().Op(op).Shapes(a, b).DType(ir::DType::kF64).Test();
    }
  }
}

TEST(BinaryKernelTest, F64BroadcastShapes) {
  for (K op : kOps) {
    for (const auto& [a, b] : kShapePairs) BinaryTester().Op(op).Shapes(a, b).DType(ir::DType::kF64).Test();
  }
}

TEST(BinaryKernelTest, InPlaceOnEitherOperand) {
  for (K op : kOps) {
    BinaryTester().Op(op).Shapes({6, 7}, {7}).InPlace(0).Test();
    BinaryTester().Op(op).Shapes({6, 1}, {6, 7}).InPlace(1).Test();
    BinaryTester().Op(op).Shapes({6, 7}, {7}).DType(ir::DType::kF64).InPlace(0).Test();
  }
}

TEST(BinaryKernelTest, MoreThanSixAlternatingAxesUseOwnLoop) {
  // Broadcast axes alternate, so merging leaves 8 axes: more than XNNPACK takes.
  const Shape a = {2, 1, 2, 1, 2, 1, 2, 1}, b = {1, 3, 1, 3, 1, 3, 1, 3};
  BinaryTester().Op(K::kSub).Shapes(a, b).ExpectImpl("ref_strided").Test();
  BinaryTester().Op(K::kFusedAddRelu).Shapes(a, b).ExpectImpl("ref_strided+relu").Test();
  // Rank 8 that merges down to 2 axes still goes to XNNPACK.
  BinaryTester().Op(K::kMul).Shapes({2, 2, 2, 2, 2, 2, 2, 40}, {40}).ExpectImpl("xnn_binary").Test();
}

// A broadcast over rows shorter than 32 runs on our loop, in groups of rows
// (XNNPACK makes a call per row): a repeated row, a column, planes of a
// third axis, in place, with relu.
TEST(BinaryKernelTest, BroadcastsOfShortRowsRunInGroups) {
  BinaryTester().Op(K::kMul).Shapes({2, 2, 2, 2, 2, 2, 2, 3}, {3}).ExpectImpl("ref_strided").Test();
  BinaryTester().Op(K::kAdd).Shapes({1000, 2}, {2}).InPlace(0).ExpectImpl("ref_strided").Test();
  BinaryTester().Op(K::kDiv).Shapes({1000, 1}, {1000, 7}).InPlace(1).ExpectImpl("ref_strided").Test();
  BinaryTester().Op(K::kFusedSubRelu).Shapes({5, 1, 31}, {5, 300, 1}).ExpectImpl("ref_strided+relu").Test();
  BinaryTester().Op(K::kSub).Shapes({1000, 32}, {32}).ExpectImpl("xnn_binary").Test();
  BinaryTester().Op(K::kSub).Shapes({1000, 3}, {1000, 3}).ExpectImpl("xnn_binary").Test();
  BinaryTester().Op(K::kAdd).Shapes({300, 5}, {5}).DType(ir::DType::kF64).Test();
}

TEST(BinaryKernelTest, IntegerArithmeticWrapsAndTruncates) {
  const int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  Result<Tensor> a = Tensor::FromVector<int64_t>(ir::DType::kI64, {5}, {7, -7, 7, kMin, kMax});
  Result<Tensor> b = Tensor::FromVector<int64_t>(ir::DType::kI64, {5}, {2, 2, -2, -1, 1});
  ASSERT_TRUE(a.ok() && b.ok());
  auto run = [&](K op) {
    auto spec = MakeSpec(op, {ir::DType::kI64, ir::DType::kI64}, ir::DType::kI64);
    return CreateAndRun(spec->spec, {&*a, &*b}, {5});
  };
  Result<Tensor> div = run(K::kDiv);
  ASSERT_TRUE(div.ok()) << div.status().ToString();
  EXPECT_EQ(div->values<int64_t>()[0], 3);
  EXPECT_EQ(div->values<int64_t>()[1], -3);  // toward zero
  EXPECT_EQ(div->values<int64_t>()[2], -3);
  EXPECT_EQ(div->values<int64_t>()[3], kMin);  // INT64_MIN / −1 wraps
  Result<Tensor> add = run(K::kAdd);
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->values<int64_t>()[4], kMin);  // INT64_MAX + 1 wraps
  Result<Tensor> mul = run(K::kMul);
  ASSERT_TRUE(mul.ok());
  EXPECT_EQ(mul->values<int64_t>()[3], kMin);  // INT64_MIN · −1 wraps
  // relu takes floats (shape inference rejects it on integers), so the
  // fused form has no integer kernel either: a clear error, not a guess.
  Result<Tensor> relu = run(K::kFusedSubRelu);
  ASSERT_FALSE(relu.ok());
  EXPECT_EQ(relu.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(relu.status().message().find("fused_sub_relu has no kernel for dtype i64"), std::string::npos)
      << relu.status().ToString();
}

TEST(BinaryKernelTest, IntegerDivisionByZeroIsAnError) {
  Result<Tensor> a = Tensor::FromVector<int64_t>(ir::DType::kI32, {2, 2}, {1, 2, 3, 4});
  Result<Tensor> b = Tensor::FromVector<int64_t>(ir::DType::kI32, {2}, {1, 0});
  auto spec = MakeSpec(K::kDiv, {ir::DType::kI32, ir::DType::kI32}, ir::DType::kI32);
  Result<Tensor> y = CreateAndRun(spec->spec, {&*a, &*b}, {2, 2});
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().message(), "integer division by zero");
}

TEST(BinaryKernelTest, U8WrapsModulo256AndFloatDivFollowsIeee) {
  Result<Tensor> a = Tensor::FromVector<uint8_t>(ir::DType::kU8, {2}, {250, 3});
  Result<Tensor> b = Tensor::FromVector<uint8_t>(ir::DType::kU8, {}, {10});
  auto spec = MakeSpec(K::kAdd, {ir::DType::kU8, ir::DType::kU8}, ir::DType::kU8);
  Result<Tensor> y = CreateAndRun(spec->spec, {&*a, &*b}, {2});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->values<uint8_t>()[0], 4);
  EXPECT_EQ(y->values<uint8_t>()[1], 13);

  Result<Tensor> x = Tensor::FromVector<float>(ir::DType::kF32, {3}, {1.0f, -1.0f, 0.0f});
  Tensor zero = Tensor::Scalar<float>(0.0f);
  auto div = MakeSpec(K::kDiv, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  Result<Tensor> q = CreateAndRun(div->spec, {&*x, &zero}, {3});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->GetDouble(0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(q->GetDouble(1), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(q->GetDouble(2)));
}

TEST(BinaryKernelTest, F32SubnormalsAreNotFlushedToZero) {
  // IEEE-754 (OPS.md §3.4), as in wasm and the interpreter: natively
  // XNNPACK ran with denormals disabled, so 1e-30 / 1e-40 was inf,
  // 0 / 1e-40 NaN and 1e-40 * 1e38 zero.
  const float tiny = 1e-40f;  // subnormal
  ASSERT_EQ(std::fpclassify(tiny), FP_SUBNORMAL);
  const std::vector<float> av = {1e-30f, 0.0f, tiny, tiny, -tiny};
  const std::vector<float> bv = {tiny, tiny, 1e38f, 0.0f, 1.0f};
  Tensor a = Tensor::FromVector<float>(ir::DType::kF32, {5}, av).value();
  Tensor b = Tensor::FromVector<float>(ir::DType::kF32, {5}, bv).value();
  for (K op : {K::kAdd, K::kSub, K::kMul, K::kDiv}) {
    SCOPED_TRACE(ir::OpName(op));
    auto spec = MakeSpec(op, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
    Result<Tensor> y = CreateAndRun(spec->spec, {&a, &b}, {5});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    for (size_t i = 0; i < av.size(); ++i) {
      const float want = static_cast<float>(RefFloat(op, av[i], bv[i]));
      EXPECT_EQ(std::memcmp(&y->values<float>()[i], &want, sizeof want), 0)
          << av[i] << " " << ir::OpName(op) << " " << bv[i] << " = " << y->values<float>()[i] << ", want " << want;
    }
  }
}

TEST(BinaryKernelTest, FusedReluOfNegativeZeroIsPositiveZero) {
  // relu(-0 + -0) and relu(-0 - 0) are +0, as relu(a + b) is (f32 runs
  // XNNPACK's add/sub then the relu stage, f64 our rows).
  for (ir::DType d : {ir::DType::kF32, ir::DType::kF64}) {
    for (K op : {K::kFusedAddRelu, K::kFusedSubRelu}) {
      SCOPED_TRACE(std::string(ir::OpName(op)) + " " + ir::DTypeName(d));
      Result<Tensor> a = Tensor::Full(d, {3}, -0.0);
      Result<Tensor> b = Tensor::Full(d, {3}, op == K::kFusedAddRelu ? -0.0 : 0.0);
      auto spec = MakeSpec(op, {d, d}, d);
      Result<Tensor> y = CreateAndRun(spec->spec, {&*a, &*b}, {3});
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      for (int64_t i = 0; i < 3; ++i) {
        EXPECT_TRUE(y->GetDouble(i) == 0.0 && !std::signbit(y->GetDouble(i))) << y->GetDouble(i);
      }
    }
  }
}

TEST(BinaryKernelTest, ShapeErrorsAreInvalidArgument) {
  auto spec = MakeSpec(K::kAdd, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  Result<KernelPtr> k = CreateKernel(spec->spec);
  ASSERT_TRUE(k.ok());
  std::vector<Shape> bad = {{2, 3}, {4}};
  Result<size_t> r = (*k)->Reshape(bad, {2, 3});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("cannot be broadcast"), std::string::npos) << r.status().message();
  std::vector<Shape> good = {{2, 3}, {3}};
  EXPECT_FALSE((*k)->Reshape(good, {3, 2}).ok());  // wrong output shape
  std::vector<Shape> one = {{2, 3}};
  EXPECT_FALSE((*k)->Reshape(one, {2, 3}).ok());  // wrong operand count
  auto mixed = MakeSpec(K::kAdd, {ir::DType::kF32, ir::DType::kF64}, ir::DType::kF32);
  EXPECT_EQ(CreateKernel(mixed->spec).status().code(), StatusCode::kInvalidArgument);
}

TEST(BinaryKernelTest, CanRunInPlaceOnlyWhereShapesMatch) {
  auto spec = MakeSpec(K::kMul, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  Result<KernelPtr> k = CreateKernel(spec->spec);
  ASSERT_TRUE(k.ok());
  std::vector<Shape> shapes = {{4, 5}, {5}};
  ASSERT_TRUE((*k)->Reshape(shapes, {4, 5}).ok());
  EXPECT_TRUE((*k)->CanRunInPlace(0));
  EXPECT_FALSE((*k)->CanRunInPlace(1));
}

// A last axis of 0 against one of 1 does not merge away: the output is
// empty and nothing runs (the grouped path divided by the row length, 0: a
// trap in wasm), for comparisons, logic and arithmetic.
TEST(BinaryKernelTest, EmptyLastAxisAgainstABroadcastRunsNothing) {
  std::mt19937 rng(3);
  const Tensor a = RandomTensor(ir::DType::kF32, {3, 0}, rng), b = RandomTensor(ir::DType::kF32, {3, 1}, rng);
  for (K op : {K::kLess, K::kEqual, K::kGreater}) {
    auto spec = MakeSpec(op, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kBool);
    Result<Tensor> y = CreateAndRun(spec->spec, {&a, &b}, {3, 0});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(y->num_elements(), 0);
  }
  const Tensor p = Tensor::Zeros(ir::DType::kBool, {3, 0}).value(), q = Tensor::Zeros(ir::DType::kBool, {3, 1}).value();
  auto logic = MakeSpec(K::kAnd, {ir::DType::kBool, ir::DType::kBool}, ir::DType::kBool);
  ASSERT_TRUE(CreateAndRun(logic->spec, {&q, &p}, {3, 0}).ok());
  for (ir::DType dt : {ir::DType::kF32, ir::DType::kF64}) BinaryTester().Op(K::kSub).Shapes({3, 0}, {3, 1}).DType(dt).Test();
}

}  // namespace
}  // namespace shrew::runtime::kernels
