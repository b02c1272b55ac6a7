// The reference interpreter (PIPELINE.md §9): runs an ir::Graph directly,
// node by node with EvalNode, as the oracle the JIT tape is tested against.
//
//   runtime::Rng rng(seed);
//   Result<runtime::ParamMap> params = runtime::InitProgramParams(program, dims, rng);
//   interp::Interpreter interp(&program, &*params, {.dims = dims});
//   Result<interp::RunResult> r = interp.Run("Model", {{"x", std::move(x)}});
//   const runtime::Tensor* y = r->Find("y");
//
// A run (PIPELINE.md §8 step 2, LANGUAGE.md §5.3):
//  1. binds symbolic dimensions: the configured `dims` first, then the
//     inputs in declaration order (the first input with N at some position
//     binds N to its actual size there);
//  2. checks every supplied input against its declared type (storage dtype,
//     rank, fixed sizes, symbolic consistency) and rejects missing
//     non-optional inputs and undeclared extra inputs, naming the input and
//     the expected and actual types; parameters are checked the same way;
//  3. evaluates every compute node — also those no output reads, as the
//     tape does — in the tape's execution order (ir/execution_order.h), so
//     training-mode dropouts draw alike; each value is freed after its last
//     use;
//  4. returns the outputs in the graph's output order.
// Graph calls run the callee with fresh bindings (configured dims plus its
// operands' shapes) and its own parameters (shared by every call site), up
// to `max_call_depth` nested calls. With `check_node_types`, each computed
// value must agree with its node's IR type (dtype, rank, fixed and bound
// symbolic sizes), which catches shape-inference bugs.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "interp/eval.h"
#include "ir/graph.h"
#include "ir/validate.h"
#include "runtime/param_init.h"
#include "runtime/rng.h"
#include "runtime/tensor.h"

namespace shrew::interp {

struct InterpreterOptions {
  bool training = false;           // dropout active (needs the Rng)
  ir::DimBindings dims;            // configured symbolic dims, for every graph
  ir::DType default_float_dtype = ir::DType::kF32;  // untyped float constants
  int max_call_depth = ir::kMaxCallDepth;
  bool check_node_types = true;
  bool keep_intermediates = false;  // RunResult::intermediates, by node name
  // Largest value a node may produce: a node whose bound type is bigger is
  // a ResourceExhausted error before it is evaluated (after, for shapes only
  // known from the values).
  uint64_t max_tensor_bytes = uint64_t{1} << 50;
  // The @assert / @check conditions of a graph reached through a call, on
  // the dims the call bound (null: none checked).
  std::function<Status(const ir::Graph& callee, const ir::DimBindings& dims)> check_call;
};

struct RunResult {
  // (output name, value) in the graph's output order.
  std::vector<std::pair<std::string, runtime::Tensor>> outputs;
  // Every evaluated compute node's value when keep_intermediates is set.
  runtime::TensorMap intermediates;
  // The symbolic bindings the run used.
  ir::DimBindings dims;

  // nullptr when there is no output of that name.
  const runtime::Tensor* Find(std::string_view output) const;
};

class Interpreter {
 public:
  // `program` resolves graph calls and `params` (keys "GRAPH/PARAM", as made
  // by runtime::InitProgramParams) supplies parameter values; either may be
  // null, and both must outlive the interpreter. `rng` feeds training-mode
  // dropout (continuing after parameter initialisation) and may be null in
  // evaluation mode.
  Interpreter(const ir::Program* program, const runtime::ParamMap* params, InterpreterOptions options = {},
              runtime::Rng* rng = nullptr);

  // Runs the program's graph `graph_name`; parameters from the ParamMap.
  Result<RunResult> Run(std::string_view graph_name, const runtime::TensorMap& inputs);
  // Runs `graph` (which need not belong to the program) with its parameter
  // values given by parameter name. Callees still use the ParamMap.
  Result<RunResult> Run(const ir::Graph& graph, const runtime::TensorMap& inputs, const runtime::TensorMap& params);

  const InterpreterOptions& options() const { return options_; }

 private:
  struct ParamSource {
    const runtime::TensorMap* by_name = nullptr;  // key: parameter name
    const runtime::ParamMap* by_key = nullptr;    // key: GRAPH/PARAM
    std::string graph;
    const runtime::Tensor* Find(std::string_view param) const;
  };

  Result<RunResult> RunNamedInputs(const ir::Graph& graph, const runtime::TensorMap& inputs,
                                   const ParamSource& params);
  // `inputs` in declaration order; nullptr for an absent (optional) input.
  Result<RunResult> RunGraph(const ir::Graph& graph, std::span<const runtime::Tensor* const> inputs,
                             const ParamSource& params, int depth, bool keep_intermediates);
  Result<runtime::Tensor> CallGraph(std::string_view callee, std::span<const runtime::Tensor* const> operands,
                                    int depth);

  const ir::Program* program_;
  const runtime::ParamMap* params_;
  InterpreterOptions options_;
  runtime::Rng* rng_;
};

}  // namespace shrew::interp
