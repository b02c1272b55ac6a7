// Kernel factories by op kind: the JIT asks here for the kernel of each
// compute node (kernel.h describes the kernel lifecycle).
//
//   KernelSpec spec{&node, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32, {nullptr, &weight}};
//   Result<KernelPtr> k = CreateKernel(spec);
//   if (!k.ok() && k.status().code() == StatusCode::kUnimplemented) { /* interpreter fallback */ }
//
// Which implementation serves an op (XNNPACK or our own C++) depends on the
// dtypes and on which operands are constants; kernel->impl_name() says.
// Errors: Unimplemented for ops (or op/dtype/mode combinations) without a
// kernel, with the op name in the message; InvalidArgument for a spec that
// is wrong (operand count, mixed dtypes, bad attribute); Internal when
// XNNPACK fails to create an operator.
#pragma once

#include "base/status.h"
#include "ir/op.h"
#include "runtime/kernel.h"

namespace shrew::runtime {

// The kernel for spec.node's op. Constants (`constant` nodes) are
// materialised by the JIT and have no kernel.
Result<KernelPtr> CreateKernel(const KernelSpec& spec);

// Whether CreateKernel has a factory for `op` at all (it may still refuse a
// particular spec, e.g. dropout in training mode).
bool HasKernel(ir::OpKind op);

// FC + activation as one kernel: the dense node `dense` (matmul,
// fused_matmul_add or linear) followed by `activation` (relu, gelu, silu,
// sigmoid or tanh) applied to its output, which the JIT may select for
// activation(dense(...)) when the dense result has that one consumer. The
// kernel takes the dense node's operands and produces the activation's
// output (same shape). f32 only; Unimplemented for other pairs or dtypes,
// in which case the JIT keeps two kernels.
bool CanFuseDenseActivation(ir::OpKind dense, ir::OpKind activation);
Result<KernelPtr> CreateFusedDenseActivation(const KernelSpec& dense, ir::OpKind activation);

// XNNPACK operators currently owned by live kernels (lifetime tests).
int LiveXnnOperatorCount();

}  // namespace shrew::runtime
