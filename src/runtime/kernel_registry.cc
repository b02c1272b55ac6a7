#include "runtime/kernel_registry.h"

#include <array>
#include <string>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"

namespace shrew::runtime {
namespace {

using K = ir::OpKind;
using KernelFactory = Result<KernelPtr> (*)(const KernelSpec&);

struct Registration {
  K op;
  KernelFactory factory;
};

// Every op with a kernel, by family. Ops not listed return Unimplemented.
constexpr Registration kRegistrations[] = {
    // unary elementwise
    {K::kNeg, kernels::CreateUnaryKernel},
    {K::kRelu, kernels::CreateUnaryKernel},
    {K::kGelu, kernels::CreateUnaryKernel},
    {K::kSilu, kernels::CreateUnaryKernel},
    {K::kSigmoid, kernels::CreateUnaryKernel},
    {K::kTanh, kernels::CreateUnaryKernel},
    {K::kExp, kernels::CreateUnaryKernel},
    {K::kLog, kernels::CreateUnaryKernel},
    {K::kSqrt, kernels::CreateUnaryKernel},
    // binary arithmetic with broadcasting
    {K::kAdd, kernels::CreateBinaryKernel},
    {K::kSub, kernels::CreateBinaryKernel},
    {K::kMul, kernels::CreateBinaryKernel},
    {K::kDiv, kernels::CreateBinaryKernel},
    {K::kFusedAddRelu, kernels::CreateBinaryKernel},
    {K::kFusedSubRelu, kernels::CreateBinaryKernel},
    {K::kMod, kernels::CreateBinaryKernel},
    {K::kPow, kernels::CreateBinaryKernel},
    // comparisons and logic (bool results)
    {K::kEqual, kernels::CreateCompareKernel},
    {K::kNotEqual, kernels::CreateCompareKernel},
    {K::kLess, kernels::CreateCompareKernel},
    {K::kGreater, kernels::CreateCompareKernel},
    {K::kLessEqual, kernels::CreateCompareKernel},
    {K::kGreaterEqual, kernels::CreateCompareKernel},
    {K::kAnd, kernels::CreateCompareKernel},
    {K::kOr, kernels::CreateCompareKernel},
    {K::kNot, kernels::CreateCompareKernel},
    {K::kCast, kernels::CreateCastKernel},
    {K::kWhere, kernels::CreateWhereKernel},
    // reductions
    {K::kSum, kernels::CreateReduceKernel},
    {K::kMean, kernels::CreateReduceKernel},
    {K::kMax, kernels::CreateReduceKernel},
    {K::kMin, kernels::CreateReduceKernel},
    {K::kVariance, kernels::CreateReduceKernel},
    // dense
    {K::kMatmul, kernels::CreateMatmulKernel},
    {K::kFusedMatmulAdd, kernels::CreateMatmulKernel},
    {K::kFusedMatmulRelu, kernels::CreateMatmulKernel},
    {K::kLinear, kernels::CreateMatmulKernel},
    // normalisation
    {K::kSoftmax, kernels::CreateSoftmaxKernel},
    {K::kLayerNorm, kernels::CreateLayerNormKernel},
    {K::kBatchNorm, kernels::CreateBatchNormKernel},
    // neural-network ops and losses
    {K::kEmbedding, kernels::CreateEmbeddingKernel},
    {K::kCrossEntropy, kernels::CreateLossKernel},
    {K::kMseLoss, kernels::CreateLossKernel},
    {K::kMultiHeadAttention, kernels::CreateAttentionKernel},
    {K::kTransformerBlock, kernels::CreateAttentionKernel},
    // data movement
    {K::kTranspose, kernels::CreateTransposeKernel},
    {K::kPermute, kernels::CreateTransposeKernel},
    {K::kExpand, kernels::CreateExpandKernel},
    {K::kConcat, kernels::CreateConcatKernel},
    {K::kSplit, kernels::CreateSplitKernel},
    {K::kRange, kernels::CreateRangeKernel},
    {K::kIdentity, kernels::CreateCopyKernel},
    {K::kReshape, kernels::CreateCopyKernel},
    {K::kView, kernels::CreateCopyKernel},
    {K::kDropout, kernels::CreateDropoutKernel},
};

const std::array<KernelFactory, ir::kNumOpKinds>& FactoryTable() {
  static const std::array<KernelFactory, ir::kNumOpKinds> table = [] {
    std::array<KernelFactory, ir::kNumOpKinds> t{};
    for (const Registration& r : kRegistrations) t[static_cast<size_t>(r.op)] = r.factory;
    return t;
  }();
  return table;
}

}  // namespace

bool HasKernel(ir::OpKind op) { return FactoryTable()[static_cast<size_t>(op)] != nullptr; }

Result<KernelPtr> CreateKernel(const KernelSpec& spec) {
  if (spec.node == nullptr) return InvalidArgument("CreateKernel: spec has no node");
  const K op = spec.node->op;
  if (!spec.constant_operands.empty() && spec.constant_operands.size() != spec.operand_dtypes.size()) {
    return InvalidArgument(std::string(ir::OpName(op)) + ": " + std::to_string(spec.constant_operands.size()) +
                           " constant-operand entries for " + std::to_string(spec.operand_dtypes.size()) + " operands");
  }
  if (spec.b_transposed && op != K::kMatmul && op != K::kFusedMatmulAdd && op != K::kFusedMatmulRelu) {
    return InvalidArgument(std::string(ir::OpName(op)) + ": a transposed b is for the matmul kinds only");
  }
  KernelFactory factory = FactoryTable()[static_cast<size_t>(op)];
  if (factory == nullptr) return Unimplemented(std::string("no kernel for op '") + ir::OpName(op) + "'");
  return factory(spec);
}

bool CanFuseDenseActivation(ir::OpKind dense, ir::OpKind activation) {
  const bool dense_ok = dense == K::kMatmul || dense == K::kFusedMatmulAdd || dense == K::kLinear;
  const bool act_ok = activation == K::kRelu || activation == K::kGelu || activation == K::kSilu ||
                      activation == K::kSigmoid || activation == K::kTanh;
  return dense_ok && act_ok;
}

Result<KernelPtr> CreateFusedDenseActivation(const KernelSpec& dense, ir::OpKind activation) {
  if (dense.node == nullptr) return InvalidArgument("CreateFusedDenseActivation: spec has no node");
  if (!CanFuseDenseActivation(dense.node->op, activation)) {
    return Unimplemented(std::string("no fused kernel for ") + ir::OpName(activation) + "(" +
                         ir::OpName(dense.node->op) + ")");
  }
  return kernels::CreateDenseActivationKernel(dense, activation);
}

int LiveXnnOperatorCount() { return kernels::LiveXnnOperatorCount(); }

}  // namespace shrew::runtime
