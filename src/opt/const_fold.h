// Constant folding (PIPELINE.md §6.4).
//
// A compute node `add`, `sub`, `mul` or `div` with exactly two operands that
// were both `constant` nodes when the pass started becomes a `constant`
// (no operands, `value` attribute, same name, id and type); then the orphan
// sweep runs. One pass folds one level: a node whose operand is folded in
// this pass waits for the next round. Nothing else is ever folded (no
// unary ops, no stochastic ops, calls, inputs or parameters), and constants
// only hold a scalar, so every folded value is a scalar.
//
// Arithmetic, from the node's type:
//   resolved dtype -> both operands materialised as a run would (a weak
//                     literal rounded to the dtype it adopted) and the op
//                     computed in the node's own dtype (f32 rounding, u8 and
//                     i32 wrap-around): folding changes no value. This
//                     departs from PIPELINE.md §6.4's "in double, rounded
//                     when materialised", which made `x * (1e-50 * 1e50)`
//                     on f32 give x where the unfolded graph gives NaN. An
//                     evaluation error (integer division by zero) is not
//                     folded: it stays a run-time error;
//   still weak     -> int op int in integer arithmetic (`1 / 2` is 0), any
//                     float operand in double arithmetic; bool operands are
//                     not folded;
//   bool, complex, or a result rank other than 0 -> not folded.

// The values are computed by the reference interpreter's single-node
// evaluator (one definition of op semantics), on rank-0 tensors (of the
// node's dtype; f64 / i64 for weak ones).
//
//   node c { op: x * (3 * 4); };   x: Tensor<[2], f32>
//   before                            after
//     %1 __anon_1 = constant[3:f32]     %1 __anon_3 = constant[12:f32]
//     %2 __anon_2 = constant[4:f32]     %2 c = mul(%0, %1)
//     %3 __anon_3 = mul(%1, %2)
//     %4 c = mul(%0, %3)
//
// Returns the number of nodes folded.
#pragma once

#include <optional>

#include "ir/attr.h"
#include "ir/graph.h"

namespace shrew::opt {

int RunConstFold(ir::Graph& graph);

// The rule for one node, for passes that fold node by node: the value
// `node` folds to on the graph as it is, or nullopt when it is not folded.
// `provisional`: ir::TypesDependOnInputs(graph). Where types depend on the
// inputs, a run re-infers the literals' dtypes (`x * (1 / 2)` with `x: ?`
// bound to f32 is x * 0.5), so literals are not folded in their
// provisional dtype.
std::optional<ir::AttrValue> FoldedValue(const ir::Graph& graph, const ir::Node& node, bool provisional);

// Turns `node` into a constant holding `value`: no operands, the value as
// its only attribute; id, name and type unchanged.
void MakeConstant(ir::Node& node, ir::AttrValue value);

}  // namespace shrew::opt
