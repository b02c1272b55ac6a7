// Reference kernels: the fused operations of OPS.md §3.18, evaluated as the
// compositions they replace (each intermediate rounded to the dtype).
#include "interp/kernel.h"

namespace shrew::interp {

using K = ir::OpKind;

Result<Tensor> RefFusedMatmulAdd(const KernelArgs& args) {
  SHREW_TRY_ASSIGN(Tensor m, MatmulOp(args[0], args[1]));
  return BinaryOp(K::kAdd, m, args[2]);
}

Result<Tensor> RefFusedAddRelu(const KernelArgs& args) {
  SHREW_TRY_ASSIGN(Tensor s, BinaryOp(K::kAdd, args[0], args[1]));
  return UnaryOp(K::kRelu, s);
}

Result<Tensor> RefFusedSubRelu(const KernelArgs& args) {
  SHREW_TRY_ASSIGN(Tensor s, BinaryOp(K::kSub, args[0], args[1]));
  return UnaryOp(K::kRelu, s);
}

Result<Tensor> RefFusedMatmulRelu(const KernelArgs& args) {
  SHREW_TRY_ASSIGN(Tensor m, MatmulOp(args[0], args[1]));
  return UnaryOp(K::kRelu, m);
}

}  // namespace shrew::interp
