// Shape and dtype inference (PIPELINE.md §4) with the typed checks T1-T9
// (§3.2). Rules per op live in shapes_*.cc and are selected through the
// ops.def table.
//
// Contract:
// - Nodes are visited in id order; inputs and parameters take their declared
//   types (with `bindings` applied); every other node's type is recomputed
//   from its operands (a previous result is never trusted), so inference can
//   be re-run after any pass.
// - A node with a declared type gets the inferred type checked against it
//   (T6) and keeps the declared one, refined where inference knows more
//   (a fixed or symbolic size where the declaration says `?`).
// - Weak constants (OPS.md §1.3): a `constant` node whose type is still
//   unknown is weak; it adopts the dtype of the other operand of an
//   elementwise binary op / `where` branch (through weak sub-expressions),
//   or gets the default (int -> i64, float -> options.default_float,
//   bool -> bool). Afterwards every constant carries a rank-0 type.
// - `embedding(table, ids)` operands are swapped into (ids, table) order.
// - What is not known statically is left unknown (`?`) for run time; errors
//   are reported only for definite violations, each with the node's span and
//   the message prefix `[GRAPH::NODE] `. Never crashes on malformed graphs
//   (bad operand ids read as unknown types).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.h"
#include "diag/diagnostic.h"
#include "ir/graph.h"

namespace shrew::ir {

struct InferOptions {
  // Dtype of float literals that no operation adopts (runtime `default_dtype`).
  DType default_float = DType::kF32;
  // Symbolic dimension values (e.g. Batch=8). Applied to input, parameter and
  // declared types and to reshape/expand targets, so a graph can be
  // specialised per binding. Null: keep symbolic names.
  const DimBindings* bindings = nullptr;
  // The dims applied to a callee's declared input types when a call is
  // typed: the runtime configuration's only. A callee's other names are its
  // own (LANGUAGE.md §4.1), unified with the call's operands, so a caller's
  // `N` bound to 3 must not reach a callee whose `N` is 6. Null: none.
  const DimBindings* callee_bindings = nullptr;
};

// Infers every graph, callees before callers (call-dependency order; source
// order otherwise, also when calls are recursive). Also checks each graph's
// `->` type against its first output (T6). Returns true when no error was
// added to `diags`.
bool InferProgramTypes(Program* program, diag::DiagnosticBag* diags,
                       const InferOptions& options = {});

// Infers one graph. `program` resolves `call` callees (their types must have
// been inferred already); may be null, in which case calls give `?`.
bool InferGraphTypes(Graph* graph, const Program* program, diag::DiagnosticBag* diags,
                     const InferOptions& options = {});

// Re-infers `graph` with concrete dims (e.g. {Batch: 8}): equivalent to
// InferGraphTypes with options.bindings = &bindings. Used by the JIT to
// specialise shapes per binding (work on a copy to keep the generic graph).
bool SpecializeGraphTypes(Graph* graph, const Program* program, const DimBindings& bindings,
                          diag::DiagnosticBag* diags, InferOptions options = {});

// The first error of a SpecializeGraphTypes that failed for a run's dims or
// input types, as a run reports it on either executor, in the words of a
// failing node: "graph 'G': node 'y' (reshape): cannot reshape …" (a graph's
// own check: "graph 'G': declared type …"). The position is the status's
// span, not part of the text. A shape too large to count is
// resource_exhausted, anything else invalid_argument.
Status RunTimeShapeError(const Graph& graph, const diag::DiagnosticBag& diags);

// Graphs with inputs of unknown type (`input x: ?`, LANGUAGE.md §4.5) are
// typed per run: a copy whose inputs take the given types (nullopt: left
// as declared) and whose literal constants are weak again (they fell back
// to their default dtypes where they met unknown types; OPS.md §1.3), ready
// for SpecializeGraphTypes.
bool HasUntypedInputs(const Graph& graph);
// True when some types are known only with the inputs': an input of unknown
// type, or a call whose result type is unknown (its callee has one).
bool TypesDependOnInputs(const Graph& graph);
Graph WithInputTypes(const Graph& graph, const std::vector<std::optional<Type>>& input_types);
// The constants WithInputTypes makes weak again: literals (number or bool,
// rank 0, no declared type). In a graph whose types depend on its inputs
// their dtype is provisional until a run re-infers it, so the optimiser
// must neither fold nor merge them on the dtype they have now.
bool IsRetypedLiteral(const Node& node);
// Per node id: whether its type is provisional, in a graph whose types
// depend on its inputs (all false in any other): the retyped literals and
// the weak expressions made of them only (`c = 1 / 2` is i64 here, and f32
// in a run where it meets an f32 input; OPS.md §1.3). Dumps and signatures
// show these types as `?`.
std::vector<bool> ProvisionalTypes(const Graph& graph);
// The constants WithInputTypes left untyped: a re-inference after pinning
// more types (a call's result) must see them weak again.
std::vector<NodeId> WeakConstants(const Graph& graph);
// True when some shape is known only from values computed at run time: a
// `range` whose operands are not all constants (OPS.md §3.14, static shape
// `[?]`), in `graph` or in a graph it calls (`program` resolves callees; may
// be null). The JIT plans such graphs per run (jit::Executor).
bool ShapesDependOnValues(const Graph& graph, const Program* program);

// ---- helpers shared with the executors

// One position of NumPy broadcasting with the static table of OPS.md §1.4.
// Returns false on a definite mismatch (two different fixed sizes != 1).
bool BroadcastDim(const Dim& a, const Dim& b, Dim* out);
// Whole shapes, aligned on the right; nullopt on a definite mismatch.
std::optional<std::vector<Dim>> BroadcastDims(const std::vector<Dim>& a,
                                              const std::vector<Dim>& b);
// `axis` normalised against `rank` (-rank <= axis < rank), or nullopt.
std::optional<int> NormalizeAxis(int64_t axis, int rank);
// Split (OPS.md §3.10.6): an axis of size L cut into n chunks gives chunks
// of c = ⌈L/n⌉ elements, m = ⌈L/c⌉ of them. An empty axis gives one empty
// chunk (as torch.chunk does), so that an empty batch flows through a split.
// Requires chunks >= 1, length >= 0.
struct SplitChunks {
  int64_t size = 0;      // c
  int64_t produced = 0;  // m
};
SplitChunks SplitChunksOf(int64_t length, int64_t chunks);
// The size of chunk `index`, or nullopt when that chunk does not exist (or
// chunks < 1, length < 0, index < 0).
std::optional<int64_t> SplitChunkSize(int64_t length, int64_t chunks, int64_t index);

}  // namespace shrew::ir
