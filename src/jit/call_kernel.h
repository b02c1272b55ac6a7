// The kernel of a `call[G]` instruction (OPS.md §3.16): runs another
// compiled graph of the program through its own executor, resolved by the
// callee's index in the program (never by name while running). Operands
// bind to the callee's inputs in declaration order, skipping left-out
// optional ones (lowering already turned named arguments into that order);
// the result is the callee's first declared output.
//
//   Reshape  binds the callee's symbolic dims from the operand shapes
//            (jit::BindInputs, with the configured dims first), binds the
//            callee executor (its plan is cached per binding) and checks the
//            callee's output shape against the planned one.
//   Run      re-selects that binding (free when it is still active), copies
//            the operands into the callee's input buffers, runs it and copies
//            its first output out. No allocation once the callee's plan for
//            the binding exists.
#pragma once

#include <functional>
#include <vector>

#include "ir/graph.h"
#include "runtime/kernel.h"

namespace shrew::jit {

class Executor;

// The executor of the program's graph `index` (it may be replaced by a
// recompile, so kernels ask each time).
using CalleeResolver = std::function<Executor*(int index)>;

// Operand k binds the callee's input `input_indices[k]` (ascending; see
// ir::CallInputIndices); the inputs no operand binds are left-out optional
// ones, an error at Reshape if the callee reads them.
runtime::KernelPtr MakeCallKernel(const ir::Graph* callee, int callee_index, CalleeResolver resolve,
                                  ir::DimBindings config_dims, std::vector<ir::DType> operand_dtypes,
                                  std::vector<int> input_indices);

}  // namespace shrew::jit
