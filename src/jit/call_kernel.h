// The kernel of a `call[G]` instruction (OPS.md §3.16): runs another
// compiled graph of the program through its own executor, resolved by the
// callee's index in the program (never by name while running) — for a
// callee with inputs of unknown type (`?`), the executor the program
// compiled for the call's operand types and shapes. Operands
// bind to the callee's inputs in declaration order, skipping left-out
// optional ones (lowering already turned named arguments into that order);
// the result is the callee's first declared output.
//
//   Reshape  binds the callee's symbolic dims from the operand shapes
//            (jit::BindInputs, with the configured dims first), checks the
//            callee's assertions on them (CallCheck), resolves and
//            binds the callee executor (its plan is cached per binding) and
//            checks the callee's output shape against the planned one.
//   Run      resolves the executor again (a recompile or SetParam may have
//            replaced it), re-selects that binding (free when it is still
//            active), copies the operands into the callee's input buffers,
//            runs it and copies its first output out. No allocation once the
//            callee's plan for the binding exists.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "jit/binding.h"
#include "runtime/kernel.h"

namespace shrew::jit {

class Executor;

// The executor a call runs. `keep` holds a per-signature executor alive
// while the kernel uses it (null for a graph's own executor).
struct CalleeTarget {
  Executor* executor = nullptr;
  std::shared_ptr<const void> keep;
};

// Sets `*target` to the executor of the program's graph `index` for a call
// with these inputs (one per callee input; absent ones are left out) and
// dims bound from them, leaving it as it is when it is still that. It may
// be replaced by a recompile or SetParam, so kernels ask on every run; a
// steady run must find it without allocating.
using CalleeResolver = std::function<Status(int index, std::span<const InputDesc> inputs,
                                            const ir::DimBindings& dims, CalleeTarget* target)>;

// The callee's @assert / @check conditions (LANGUAGE.md §6) on the dims a
// call binds: checked once per binding, as a run checks its graph's.
using CallCheck = std::function<Status(const ir::Graph& callee, const ir::DimBindings& dims)>;

// What the caller planned for the call's result: its dtype (the shape comes
// to Reshape), and whether the call is an unrolled repeat's iteration, whose
// result must be the carried type (an error naming the repeat, not an
// internal one, when a callee typed per run gives another).
struct CallResult {
  ir::DType dtype = ir::DType::kF32;
  bool repeat_iteration = false;
};

// Operand k binds the callee's input `input_indices[k]` (ascending; see
// ir::CallInputIndices); the inputs no operand binds are left-out optional
// ones, an error at Reshape if the callee reads them. Reshape checks that
// the callee's result has the planned shape and dtype.
runtime::KernelPtr MakeCallKernel(const ir::Graph* callee, int callee_index, CalleeResolver resolve,
                                  ir::DimBindings config_dims, std::vector<ir::DType> operand_dtypes,
                                  std::vector<int> input_indices, CallResult result, CallCheck check = nullptr);

}  // namespace shrew::jit
