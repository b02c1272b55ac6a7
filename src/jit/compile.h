// Graph -> CompiledGraph (PIPELINE.md §7): execution order, slots, the tape
// (one instruction per node, JIT-level fusion of an activation into its
// single-consumer fully-connected producer when the kernel factory offers
// it), lifetimes and frees, and every kernel created through the factory at
// compile time (constant operands — parameters, constants — handed over so
// weights are packed now). Nodes without a native kernel run through a
// fallback kernel that calls interp::EvalNode (marked `ref` in dumps).
//
//   CompileOptions opts;
//   opts.params = {&w1, &b1};            // per graph.params() entry
//   opts.kernel_factory = &runtime::CreateKernel;
//   Result<std::unique_ptr<CompiledGraph>> cg = CompileGraph(graph, opts);
//
// Errors: a `custom` node ("custom op 'NAME' has no kernel"), an
// unmaterialised graph (`repeat`, one-operand attention), an identity
// compute node without operand, a kernel factory failure (its Status, with
// the node named).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"
#include "interp/eval.h"
#include "ir/graph.h"
#include "jit/call_kernel.h"
#include "jit/compiled_graph.h"
#include "runtime/rng.h"
#include "runtime/tensor.h"

namespace shrew::jit {

class Executor;

struct CompileOptions {
  // Resolves `call` callees when shapes are specialised per binding.
  const ir::Program* program = nullptr;
  // Parameter tensors per graph.params() entry (stable addresses, owned by
  // the caller). Missing entries are treated as unknown (not packed).
  std::vector<const runtime::Tensor*> params;
  bool training = false;           // dropout active (else an alias)
  runtime::Rng* rng = nullptr;     // training-mode dropout draws
  interp::CallFn call;             // runs call[G] nodes (fallback path)
  ir::DType default_float = ir::DType::kF32;
  KernelFactory kernel_factory;    // null: every node uses the fallback
  FusedKernelFactory fused_factory;
  bool jit_fusion = true;          // act(fused_matmul_add / linear) fusion, transpose folds (transpose_fold.h)
  // call[G] nodes: the executor of program graph i for the call's inputs
  // (Program owns them). When set (with `program`), calls run through a
  // call kernel (call_kernel.h); otherwise through the fallback and `call`.
  CalleeResolver callee_executor;
  CallCheck check_call;            // the callee's assertions on a call's dims (null: none)
  ir::DimBindings config_dims;     // configured dims (callee bindings)
};

// On an error that belongs to one node (no kernel for it, a constant that
// cannot be built, an operation not materialised) `*failed_node` is set to
// that node, so that the caller can point at its source.
Result<std::unique_ptr<CompiledGraph>> CompileGraph(const ir::Graph& graph, const CompileOptions& options,
                                                    ir::NodeId* failed_node = nullptr);

// Re-creates the kernels that were handed one of `params` (indices into
// params(), any order, repeats allowed) as a constant operand, after their
// values changed. Costs what those kernels cost, whatever the size of the
// graph. Reads only the options' kernel factories and `training`. The
// executor must re-plan (Executor::Invalidate) before the next run.
Status RecreateKernelsForParams(CompiledGraph* graph, std::span<const int> params, const CompileOptions& options);

// The KernelSpec of a node (exposed for tests and the fused path).
runtime::KernelSpec MakeKernelSpec(const CompiledGraph& graph, const ir::Node& node, bool training);

}  // namespace shrew::jit
