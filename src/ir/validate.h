// Structural validation of the IR (PIPELINE.md §3.1, V1-V11). Inspects
// without running or changing anything, collects every error into the bag
// (kinds E080-E090, message text exactly as the spec's table, prefixed with
// `[GRAPH::NODE] `, `[GRAPH] ` or `[program] `, span of the node involved
// when there is one). Safe on any graph: bad ids, cycles, missing callees.
// The typed checks (T1-T9) run in shape inference (shapes.h).
#pragma once

#include "diag/diagnostic.h"
#include "ir/graph.h"

namespace shrew::ir {

// V1-V7 and V11 for one graph. With a `program`, `call` nodes are also
// checked against their callee's input count (V6) and unknown callees are
// reported. Returns true when no error was added.
bool ValidateGraph(const Graph& graph, const Program* program, diag::DiagnosticBag* diags);

// Graph calls may nest this deep (executors recurse per call; a longer
// chain would overflow the native or wasm stack).
inline constexpr int kMaxCallDepth = 64;

// Every graph (in source order), then V8 (@training/@inference model),
// V9 (duplicate graph names, names of built-in operations) and V10
// (recursive calls; without recursion, chains of more than kMaxCallDepth
// nested calls). Returns true when no error was added.
bool ValidateProgram(const Program& program, diag::DiagnosticBag* diags);

}  // namespace shrew::ir
