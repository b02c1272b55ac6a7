// The kernel registry (dispatch table, Unimplemented for ops without a
// kernel) and the XNNPACK operator lifetime of every XNNPACK-backed kernel:
// the live operator count is flat across 1,000 Setup/Run cycles and returns
// to its baseline when the kernel is destroyed.
#include <functional>
#include <random>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::MakeSpec;
using testing::RandomTensor;
using K = ir::OpKind;

TEST(KernelRegistryTest, OpsWithoutKernelAreUnimplementedWithTheOpName) {
  // Constants are materialised, repeat is unrolled, calls run in the JIT's
  // call kernel and custom ops have no kernel at all.
  for (K op : {K::kCustom, K::kConstant, K::kRepeat, K::kCall}) {
    auto spec = MakeSpec(op, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
    Result<KernelPtr> k = CreateKernel(spec->spec);
    ASSERT_FALSE(k.ok());
    EXPECT_EQ(k.status().code(), StatusCode::kUnimplemented);
    EXPECT_NE(k.status().message().find(std::string("'") + ir::OpName(op) + "'"), std::string::npos)
        << k.status().message();
    EXPECT_FALSE(HasKernel(op));
  }
}

TEST(KernelRegistryTest, EveryRegisteredOpCreatesAKernel) {
  const std::pair<K, int> ops[] = {
      {K::kNeg, 1},
      {K::kRelu, 1},
      {K::kGelu, 1},
      {K::kSilu, 1},
      {K::kSigmoid, 1},
      {K::kTanh, 1},
      {K::kExp, 1},
      {K::kLog, 1},
      {K::kSqrt, 1},
      {K::kAdd, 2},
      {K::kSub, 2},
      {K::kMul, 2},
      {K::kDiv, 2},
      {K::kMatmul, 2},
      {K::kFusedMatmulAdd, 3},
      {K::kFusedMatmulRelu, 2},
      {K::kFusedAddRelu, 2},
      {K::kFusedSubRelu, 2},
      {K::kLinear, 3},
      {K::kSoftmax, 1},
      {K::kLayerNorm, 3},
      {K::kTranspose, 1},
      {K::kExpand, 1},
      {K::kIdentity, 1},
      {K::kReshape, 1},
      {K::kView, 1},
      {K::kDropout, 1},
      {K::kMod, 2},
      {K::kPow, 2},
      {K::kSum, 1},
      {K::kMean, 1},
      {K::kMax, 1},
      {K::kMin, 1},
      {K::kVariance, 1},
      {K::kConcat, 3},
      {K::kBatchNorm, 3},
      {K::kCrossEntropy, 2},
      {K::kMseLoss, 2},
      {K::kMultiHeadAttention, 5},
      {K::kTransformerBlock, 13},
  };
  for (const auto& [op, n] : ops) {
    EXPECT_TRUE(HasKernel(op)) << ir::OpName(op);
    auto spec = MakeSpec(op, std::vector<ir::DType>(static_cast<size_t>(n), ir::DType::kF32), ir::DType::kF32);
    Result<KernelPtr> k = CreateKernel(spec->spec);
    EXPECT_TRUE(k.ok()) << ir::OpName(op) << ": " << k.status().ToString();
  }
  auto permute =
      MakeSpec(K::kPermute, {ir::DType::kF32}, ir::DType::kF32, testing::Attr("dims", ir::AttrValue::IntList({1, 0})));
  EXPECT_TRUE(CreateKernel(permute->spec).ok());
}

TEST(KernelRegistryTest, BadSpecsAreInvalidArgument) {
  KernelSpec empty;
  EXPECT_EQ(CreateKernel(empty).status().code(), StatusCode::kInvalidArgument);
  auto arity = MakeSpec(K::kAdd, {ir::DType::kF32}, ir::DType::kF32);
  EXPECT_EQ(CreateKernel(arity->spec).status().code(), StatusCode::kInvalidArgument);
  // The count is said with its noun.
  auto relu = MakeSpec(K::kRelu, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  EXPECT_EQ(CreateKernel(relu->spec).status().message(), "relu: expected 1 operand, got 2");
  auto consts = MakeSpec(K::kAdd, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  consts->spec.constant_operands = {nullptr};
  EXPECT_EQ(CreateKernel(consts->spec).status().code(), StatusCode::kInvalidArgument);
  auto complex = MakeSpec(K::kAdd, {ir::DType::kComplex64, ir::DType::kComplex64}, ir::DType::kComplex64);
  EXPECT_EQ(CreateKernel(complex->spec).status().code(), StatusCode::kInvalidArgument);
}

// One kernel under the lifetime test: its spec, operands and output shape.
struct LifetimeCase {
  std::string name;
  std::unique_ptr<testing::OwnedSpec> spec;
  std::vector<Tensor> operands;
  Shape out;
  std::function<Result<KernelPtr>(const KernelSpec&)> create = CreateKernel;
};

std::vector<LifetimeCase> LifetimeCases(const Tensor& weight, const Tensor& bias) {
  std::mt19937 rng(5);
  auto f = [&](Shape s) { return RandomTensor(ir::DType::kF32, s, rng); };
  const ir::DType F = ir::DType::kF32;
  std::vector<LifetimeCase> cases;
  auto add = [&](std::string name, std::unique_ptr<testing::OwnedSpec> spec, std::vector<Tensor> ops, Shape out) {
    LifetimeCase c;
    c.name = std::move(name);
    c.spec = std::move(spec);
    c.operands = std::move(ops);
    c.out = std::move(out);
    cases.push_back(std::move(c));
  };
  add("sigmoid", MakeSpec(K::kSigmoid, {F}, F), {f({300})}, {300});
  add("gelu", MakeSpec(K::kGelu, {F}, F), {f({5000})}, {5000});
  add("add", MakeSpec(K::kAdd, {F, F}, F), {f({4, 5}), f({5})}, {4, 5});
  add("fused_sub_relu", MakeSpec(K::kFusedSubRelu, {F, F}, F), {f({4, 5}), f({4, 1})}, {4, 5});
  add("fc", MakeSpec(K::kFusedMatmulAdd, {F, F, F}, F, {}, {nullptr, &weight, &bias}), {f({3, 8}), weight, bias},
      {3, 6});
  add("bmm+add", MakeSpec(K::kFusedMatmulAdd, {F, F, F}, F), {f({2, 3, 8}), f({2, 8, 6}), f({4, 2, 3, 6})},
      {4, 2, 3, 6});
  add("softmax_last", MakeSpec(K::kSoftmax, {F}, F), {f({3, 7})}, {3, 7});
  add("softmax_first", MakeSpec(K::kSoftmax, {F}, F, testing::Attr("dim", ir::AttrValue::Int(0))), {f({3, 7})}, {3, 7});
  add("transpose", MakeSpec(K::kTranspose, {F}, F), {f({3, 7})}, {7, 3});
  LifetimeCase act;
  act.name = "linear+silu";
  act.spec = MakeSpec(K::kLinear, {F, F}, F, {}, {nullptr, &weight});
  act.operands = {f({3, 6}), weight};
  act.out = {3, 8};
  act.create = [](const KernelSpec& s) { return CreateFusedDenseActivation(s, K::kSilu); };
  cases.push_back(std::move(act));
  return cases;
}

TEST(XnnKernelLifetimeTest, OperatorCountIsFlatAcrossRunsAndZeroAfterDestruction) {
  const Tensor weight = Tensor::Zeros(ir::DType::kF32, {8, 6}).value();
  const Tensor bias = Tensor::Zeros(ir::DType::kF32, {6}).value();
  std::vector<LifetimeCase> cases = LifetimeCases(weight, bias);
  const int baseline = LiveXnnOperatorCount();
  for (LifetimeCase& c : cases) {
    SCOPED_TRACE(c.name);
    {
      Result<KernelPtr> k = c.create(c.spec->spec);
      ASSERT_TRUE(k.ok()) << k.status().ToString();
      Kernel& kernel = **k;
      const int owned = kernel.num_xnn_operators();
      EXPECT_GT(owned, 0);
      EXPECT_EQ(LiveXnnOperatorCount(), baseline + owned);
      std::vector<Shape> shapes;
      std::vector<const void*> ptrs;
      for (const Tensor& t : c.operands) shapes.push_back(t.shape()), ptrs.push_back(t.raw_data());
      Result<size_t> ws = kernel.Reshape(shapes, c.out);
      ASSERT_TRUE(ws.ok()) << ws.status().ToString();
      Tensor out = Tensor::Zeros(ir::DType::kF32, c.out).value();
      Tensor workspace = Tensor::Zeros(ir::DType::kU8, {static_cast<int64_t>(*ws)}).value();
      for (int i = 0; i < 1000; ++i) {
        ASSERT_TRUE(kernel.Setup(ptrs, out.mutable_raw_data(), *ws ? workspace.mutable_raw_data() : nullptr).ok());
        ASSERT_TRUE(kernel.Run().ok());
      }
      EXPECT_EQ(kernel.num_xnn_operators(), owned);
      EXPECT_EQ(LiveXnnOperatorCount(), baseline + owned);
      // Reshaping again (same shapes) creates nothing either.
      ASSERT_TRUE(kernel.Reshape(shapes, c.out).ok());
      EXPECT_EQ(LiveXnnOperatorCount(), baseline + owned);
    }
    EXPECT_EQ(LiveXnnOperatorCount(), baseline);
  }
}

TEST(XnnKernelLifetimeTest, RefKernelsOwnNoOperators) {
  auto ln = MakeSpec(K::kLayerNorm, {ir::DType::kF32}, ir::DType::kF32);
  auto mm = MakeSpec(K::kMatmul, {ir::DType::kF64, ir::DType::kF64}, ir::DType::kF64);
  auto log = MakeSpec(K::kLog, {ir::DType::kF32}, ir::DType::kF32);
  const int baseline = LiveXnnOperatorCount();
  for (auto* s : {ln.get(), mm.get(), log.get()}) {
    Result<KernelPtr> k = CreateKernel(s->spec);
    ASSERT_TRUE(k.ok());
    EXPECT_EQ((*k)->num_xnn_operators(), 0);
    EXPECT_EQ(LiveXnnOperatorCount(), baseline);
  }
}

}  // namespace
}  // namespace shrew::runtime::kernels
