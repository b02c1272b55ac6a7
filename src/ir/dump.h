// IR dumps: stable text for people and golden tests (PIPELINE.md §7.7), JSON
// for tools (the playground's graph view). Both are deterministic.
//
// Text:
//   graph NAME: N nodes, I inputs, O outputs, P params
//     %ID NAME = input : TYPE
//     %ID NAME = param[init=STRATEGY] : TYPE           (", frozen=true" when frozen)
//     %ID NAME = OP[ATTRS](%A, %B) : TYPE  # hints: h1, h2
//     outputs: NAME=%ID, …
// Attributes print in schema order (op.h) with defaults filled in
// (`softmax[dim=-1]`, `sum[dims=all, keepdim=false]`); a constant prints its
// value and, once its type is known, `:DTYPE` (`constant[2]`,
// `constant[2.5:f32]`; in a graph whose types depend on its inputs, a literal
// prints as weak, `constant[2] : ?`, because each run re-types it);
// `call[G]`; `custom[NAME, k=v…]`;
// `repeat[count=N, body=OP[ATTRS]]`.
#pragma once

#include <string>

#include "ir/graph.h"

namespace shrew::ir {

struct DumpOptions {
  bool types = true;  // append " : TYPE" to node lines
};

// One node's line without indentation or newline: `%3 h = relu(%2) : ?`.
std::string DumpNode(const Graph& graph, const Node& node, const DumpOptions& options = {});
// The `OP[ATTRS]` part alone, e.g. `softmax[dim=-1]` (used by JIT dumps).
std::string DumpOpWithAttrs(const Node& node);
std::string DumpGraph(const Graph& graph, const DumpOptions& options = {});
// Every graph in source order, separated by a blank line.
std::string DumpProgram(const Program& program, const DumpOptions& options = {});

// JSON: {"graphs": [{"name", "inputs", "outputs", "params", "nodes",
// "edges"}]}; a node has id, name, op, role, operands, attrs, type (text),
// dims, dtype, declared_type, hints, callee, span {offset, length, line,
// column}; edges are [from, to] operand references.
std::string DumpGraphJson(const Graph& graph);
std::string DumpProgramJson(const Program& program);

}  // namespace shrew::ir
