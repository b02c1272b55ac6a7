// Evaluating one IR node with the reference semantics of OPS.md.
//
// EvalNode is the reference interpreter's single entry point for an
// operation: given a node and its operand values it returns the node's
// value, computed with straightforward loops (no XNNPACK). Output shapes
// come from the actual operand shapes, never from the node's (possibly
// symbolic) IR type. The optimiser's constant folding calls it too.
//
//   std::vector<const runtime::Tensor*> ops = {&a, &b};
//   Result<runtime::Tensor> y = interp::EvalNode(graph, graph.node(id), ops, EvalContext{});
//
// Errors (never crashes) start with `node 'NAME' (OP): ` followed by the
// OPS.md message, e.g. "node 'h' (matmul): matmul inner dimensions 3 and 4
// differ", "node 'e' (embedding): embedding index 9 out of range for a table
// of 5 rows (indices 'tokens', element 2)".
#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "base/status.h"
#include "ir/graph.h"
#include "runtime/rng.h"
#include "runtime/tensor.h"

namespace shrew::interp {

// Runs graph `callee` with `operands` bound to its inputs in declaration
// order and returns its first output (OPS.md §3.16). A null entry, and the
// inputs past the last entry, are left-out optional inputs.
using CallFn = std::function<Result<runtime::Tensor>(std::string_view callee,
                                                     std::span<const runtime::Tensor* const> operands)>;

struct EvalContext {
  // Training mode: dropout draws from `rng` (required then, unless p = 0).
  bool training = false;
  runtime::Rng* rng = nullptr;
  // Bound symbolic dimensions (reshape/expand targets, `range()` lengths).
  // Null means none are bound.
  const ir::DimBindings* dims = nullptr;
  // Evaluates `call` nodes; null makes them an error.
  CallFn call;
  // Dtype of a float constant whose node type is still unknown (weak).
  ir::DType default_float_dtype = ir::DType::kF32;
};

// Evaluates `node` (a compute node of `graph`) on `operands`, which must be
// in the node's operand order. Input and parameter nodes are not evaluated
// (their values are bound by the caller): asking for one is an error.
// `s` as a failure of `node` of `graph`: its label (Graph::NodeLabel) before
// the message, and its source position (Status::At). Both executors report
// node failures so.
Status NodeFailure(const ir::Graph& graph, const ir::Node& node, const Status& s);
// `s` as a failure of running graph `graph`: "graph 'G': " before the
// message, unless it begins by naming that graph already (an assertion's
// "graph 'G': assertion failed"). Both executors name each graph of a
// failing call chain so: "graph 'A': node 'c' (call[B]): graph 'B': node …".
Status GraphFailure(std::string_view graph, const Status& s);

Result<runtime::Tensor> EvalNode(const ir::Graph& graph, const ir::Node& node,
                                 std::span<const runtime::Tensor* const> operands, const EvalContext& ctx);

// A `range` node whose operands' values make it longer than
// `max_tensor_bytes` allows is refused with resource_exhausted before it is
// made (its type is only known from the values); other nodes, and other
// errors of a range, pass (EvalNode reports those). Both executors call it
// before EvalNode.
Status CheckRangeFits(const ir::Graph& graph, const ir::Node& node, std::span<const runtime::Tensor* const> operands,
                      uint64_t max_tensor_bytes);

}  // namespace shrew::interp
