// Kernel factories of src/runtime/kernels, one per family. The registry
// (runtime/kernel_registry.cc) maps op kinds to these; each factory picks the
// implementation from the operand dtypes and constant operands in the spec
// (XNNPACK for f32 where it has the op, our own C++ otherwise).
//
// Every factory returns InvalidArgument for a spec it cannot serve because
// the spec is wrong (operand count, mixed dtypes) and Unimplemented for a
// valid spec it has no kernel for (e.g. dropout in training mode), so the JIT
// can fall back to the interpreter.
#pragma once

#include "base/status.h"
#include "ir/op.h"
#include "runtime/kernel.h"

namespace shrew::runtime::kernels {

// neg relu gelu silu sigmoid tanh exp log sqrt. f32: xnn_unary.cc; f64 (and
// signed integers for neg): ref_unary.cc.
Result<KernelPtr> CreateUnaryKernel(const KernelSpec& spec);
Result<KernelPtr> CreateRefUnaryKernel(const KernelSpec& spec);

// add sub mul div mod pow fused_add_relu fused_sub_relu with broadcasting.
// f32 add sub mul div (and relu): xnn_binary.cc; the rest: ref_binary.cc.
Result<KernelPtr> CreateBinaryKernel(const KernelSpec& spec);
Result<KernelPtr> CreateRefBinaryKernel(const KernelSpec& spec);

// matmul fused_matmul_add fused_matmul_relu linear. f32: xnn_matmul.cc
// (fully-connected when the weight is a constant, batch-matrix-multiply
// otherwise); f64, integers: ref_matmul.cc.
Result<KernelPtr> CreateMatmulKernel(const KernelSpec& spec);
Result<KernelPtr> CreateRefMatmulKernel(const KernelSpec& spec);
// A dense op (matmul, fused_matmul_add, linear) followed by `activation`
// (relu gelu silu sigmoid tanh) on its output, as one kernel. f32 only;
// Unimplemented when the pair cannot be fused.
Result<KernelPtr> CreateDenseActivationKernel(const KernelSpec& dense, ir::OpKind activation);

// softmax on any axis (xnn_softmax.cc; f64 in the same file, own loops).
Result<KernelPtr> CreateSoftmaxKernel(const KernelSpec& spec);

// layer_norm over the last axis with optional weight and bias (ref_layer_norm.cc).
Result<KernelPtr> CreateLayerNormKernel(const KernelSpec& spec);

// transpose permute, any dtype (xnn_transpose.cc).
Result<KernelPtr> CreateTransposeKernel(const KernelSpec& spec);

// expand (broadcast copy) and copy (identity, reshape, view, dropout in
// inference mode), any dtype (ref_copy.cc).
Result<KernelPtr> CreateExpandKernel(const KernelSpec& spec);
Result<KernelPtr> CreateCopyKernel(const KernelSpec& spec);

// sum mean max min variance over any axes (ref_reduce.cc).
Result<KernelPtr> CreateReduceKernel(const KernelSpec& spec);

// equal not_equal less greater less_equal greater_equal and or not, any
// storage, bool output (ref_compare.cc).
Result<KernelPtr> CreateCompareKernel(const KernelSpec& spec);

// cast (ref_cast.cc) and where (ref_where.cc), any storage.
Result<KernelPtr> CreateCastKernel(const KernelSpec& spec);
Result<KernelPtr> CreateWhereKernel(const KernelSpec& spec);

// concat and split, any dtype (ref_concat_split.cc).
Result<KernelPtr> CreateConcatKernel(const KernelSpec& spec);
Result<KernelPtr> CreateSplitKernel(const KernelSpec& spec);

// embedding with range-checked indices (ref_embedding.cc).
Result<KernelPtr> CreateEmbeddingKernel(const KernelSpec& spec);

// batch_norm (ref_batch_norm.cc).
Result<KernelPtr> CreateBatchNormKernel(const KernelSpec& spec);

// cross_entropy (distribution or class indices) and mse_loss (ref_loss.cc).
Result<KernelPtr> CreateLossKernel(const KernelSpec& spec);

// range (ref_range.cc).
Result<KernelPtr> CreateRangeKernel(const KernelSpec& spec);

// dropout: training mode draws from spec.rng; otherwise a copy (ref_dropout.cc).
Result<KernelPtr> CreateDropoutKernel(const KernelSpec& spec);

// multi_head_attention and transformer_block (explicit-weight forms),
// composed of this directory's dense, softmax, layer-norm and gelu kernels
// (attention.cc).
Result<KernelPtr> CreateAttentionKernel(const KernelSpec& spec);

}  // namespace shrew::runtime::kernels
