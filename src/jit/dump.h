// Readable dumps of a compiled graph (PIPELINE.md §7.7) and its memory plan.
//
// Text: the §7.7 lines exactly (header, stats, one line per instruction,
// outputs), then what the spec leaves out:
//
//   jit Forward
//   stats: instructions=11 source_nodes=9 slots=9 reused=2 frees=2 fused=2 arena_bytes=128 compile_us=31
//     0: load_param %0 <- Forward/b2
//     …
//     5: fused_matmul_add %5 <- %4, %3, %2
//   outputs: probs=%8
//   values:
//     %4 x: f32[2, 4] arena @0 +32 input
//     %5 h1: f32[2, 8] arena @64 +64 kernel=ref
//     %6 a1: f32[2, 8] arena @64 +64 in-place over %5 kernel=xnn_unary
//   plan: arena_bytes=… lower_bound=… naive=… reused=… in_place=… aliases=… buffers=… strategy=greedy
//     buffer 0: @0 +32 live [4, 9] slots %4
//
// A JIT-fused instruction prints `PRODUCER+ACT` (e.g.
// `fused_matmul_add+relu %6 <- %4, %3, %2`). Values, shapes and the plan
// need a bound executor; without one (or before the first binding) only
// the types are printed and the plan says `not yet bound`.
//
// JSON (for the playground's Tape/Plan view):
//   {"graph": NAME, "bound": true, "arena_bytes": A, "lower_bound": L,
//    "naive": N, "reused": R, "buffers": [{"id", "kind": "value"|"input"|
//    "workspace", "slot", "slots": [...], "first", "last", "offset",
//    "size"}], "values": [{"slot", "node", "name", "op", "shape", "dtype",
//    "buffer", "offset", "size", "produced_at", "last_used_at", "in_place_of",
//    "alias_of", "kernel"}]}
#pragma once

#include <string>

#include "jit/compiled_graph.h"
#include "jit/executor.h"

namespace shrew::jit {

// The text of one instruction, e.g. `softmax[dim=-1] %8 <- %7`.
std::string DumpInstr(const CompiledGraph& graph, const Instr& instr);
std::string DumpCompiledGraph(const CompiledGraph& graph, const Executor* executor);
std::string DumpPlanJson(const CompiledGraph& graph, const Executor* executor);
// The tape as JSON (for the playground's Tape view), one object per
// instruction in tape order:
//   {"graph", "bound", "num_slots", "outputs": [{"name", "slot"}],
//    "instructions": [{"index", "time", "opcode", "op", "text",
//      "node": {"id", "name", "op", "span"}, "operands": [slots],
//      "results": [slot], "shape", "dtype", "offset", "size", "in_place_of",
//      "alias_of", "workspace": {"offset", "size"}|null, "fused",
//      "fused_nodes": [node…], "kernel", "ref", "spans": [span…]}]}
// A span is {"line", "column", "length", "offset"} (line 0: no position);
// `spans` lists the instruction's node and any JIT-fused producer. Before a
// binding, shapes are the IR types (symbolic dims as strings) and
// offset/size are null.
std::string DumpTapeJson(const CompiledGraph& graph, const Executor* executor);

}  // namespace shrew::jit
