// Materialisation (PIPELINE.md §5): runs once after shape inference so that
// afterwards a graph holds only operations the executors run directly.
//
//   1. `N = repeat[count=n](v, o1, …)` with body B becomes, in place, the
//      chain `N.iter0 = B(v, o1, …)`, `N.iter1 = B(N.iter0, o1, …)`, …, the
//      last node taking the name N (n = 0: `N = identity(v)`).
//   2. Every one-operand `multi_head_attention` / `transformer_block` node N
//      gets its parameters (OPS.md §3.12: `N.w_q` … / `N.ln1.weight` …; for a
//      node unrolled from repeat R, iteration i, the prefix is
//      `R.layer<i>.`), placed right before N, appended to the graph's
//      parameter list after the declared ones in creation order (marked
//      implicit), and N is rewritten to the explicit 5- / 13-operand form.
//   3. New nodes carry their types: iterations the repeat node's type,
//      parameters their shapes with the operand's dtype.
//
// Contract:
// - Input: a program that passed validation and shape inference.
// - Node ids stay a topological order; outputs, inputs and declared
//   parameters are remapped; names are unique (generated names contain '.',
//   which no source name can).
// - The model dimension D (last dim of the operand) must be known: fixed, or
//   symbolic with a value in `bindings` (the implicit parameters' shapes
//   include 4·D and their init bound 1/√D). Otherwise: E142 (unknown or
//   dynamic D) or E061 (symbolic D without a value), at the node's span.
// - A graph to which materialisation would add more than kMaxAddedNodes
//   nodes is E140 and left unchanged: a few bytes of source
//   (`repeat(1000000000)`) must not turn into gigabytes of IR.
// - Deterministic, linear in the size of the result, no recursion.
#pragma once

#include <cstdint>

#include "diag/diagnostic.h"
#include "ir/graph.h"
#include "ir/type.h"

namespace shrew::lower {

// Most nodes materialisation may add to one graph (unrolled iterations plus
// implicit parameters). About 250 MB of IR at the limit, well inside the
// 2 GB wasm heap; real models add a few hundred.
inline constexpr int64_t kMaxAddedNodes = int64_t{1} << 18;

struct MaterializeOptions {
  // Values of symbolic dimensions known at compile time (may be null).
  const ir::DimBindings* bindings = nullptr;
};

// Returns true when no error was added to `diags`.
bool MaterializeGraph(ir::Graph* graph, diag::DiagnosticBag* diags,
                      const MaterializeOptions& options = {});
// Every graph in source order.
bool MaterializeProgram(ir::Program* program, diag::DiagnosticBag* diags,
                        const MaterializeOptions& options = {});

}  // namespace shrew::lower
