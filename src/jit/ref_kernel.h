// The fallback kernel: runs one node through the reference interpreter's
// interp::EvalNode. Used for nodes without a native (XNNPACK) kernel and for
// call[G]; shown as `ref` in dumps. Unlike native kernels it copies its
// operands into host tensors and allocates its result on every Run — it
// exists so that every graph runs, not to be fast.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "jit/compiled_graph.h"
#include "runtime/kernel.h"

namespace shrew::jit {

// `graph`, `node` and `env` must outlive the kernel (they belong to the
// CompiledGraph that owns it). Dtypes are the IR (declared) dtypes.
runtime::KernelPtr MakeRefKernel(const ir::Graph* graph, const ir::Node* node,
                                 std::vector<ir::DType> operand_dtypes, ir::DType output_dtype, RefEnv* env);

}  // namespace shrew::jit
