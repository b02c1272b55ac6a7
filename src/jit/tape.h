// The instruction tape of a compiled graph (PIPELINE.md §7.3).
//
// One instruction per executed node, in execution order (order.h), plus the
// `free` instructions of §7.4; JIT-level fusion drops the instructions of
// nodes another one computes (an activation's product, a folded transpose:
// transpose_fold.h), whose operands that instruction then reads. Everything an instruction needs is resolved
// at compile time: slot numbers, the kernel index, the input / parameter /
// constant index. The executor never looks up a name, a hash map or a
// string while running; it walks `instrs` and calls one Kernel::Run per
// compute instruction.
//
// Time: liveness and the memory planner count instructions *without* the
// frees (`Instr::time`), i.e. the position of the instruction in the
// free-less tape. Without JIT-level fusion that is the node's position in
// the execution order, as in §7.4; a fused instruction takes the time of
// the node it replaces last.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/graph.h"

namespace shrew::jit {

using SlotId = int32_t;
inline constexpr SlotId kNoSlot = -1;

enum class Opcode : uint8_t {
  kLoadInput,  // dst <- graph input `index` (its fixed arena buffer; the caller wrote it)
  kLoadParam,  // dst <- graph parameter `index` (held by the program; not copied)
  kConstant,   // dst <- CompiledGraph::constants[index] (materialised at compile time)
  kCopy,       // dst aliases operand 0: identity, reshape, view, inference dropout
  kCompute,    // kernels[kernel].Run(): reads operand slots, writes dst
  kCall,       // like kCompute; the kernel runs another graph (call[G])
  kFree,       // dst's value is dead from here on (§7.4)
};

const char* OpcodeName(Opcode op);

struct Instr {
  Opcode opcode = Opcode::kCompute;
  SlotId dst = kNoSlot;          // written slot; for kFree the freed slot
  int32_t first_operand = 0;     // operands are Tape::operands[first, first + count)
  int32_t num_operands = 0;
  int32_t kernel = -1;           // kCompute / kCall: index into CompiledGraph::kernels
  int32_t index = -1;            // kLoadInput / kLoadParam / kConstant
  int32_t time = 0;              // position in the free-less tape (see above)
  ir::NodeId node = ir::kNoNode; // source node (for kFree: the freed value's node)
  // JIT-level fusion: the node folded into this instruction (e.g. the
  // fused_matmul_add whose relu this instruction computes), else kNoNode.
  // A folded transpose is CompiledGraph::transposed_b of the product.
  ir::NodeId fused_node = ir::kNoNode;
};

struct Tape {
  std::vector<Instr> instrs;
  std::vector<SlotId> operands;

  std::span<const SlotId> OperandsOf(const Instr& in) const {
    return {operands.data() + in.first_operand, static_cast<size_t>(in.num_operands)};
  }
  // Instructions that are not frees (the liveness time line).
  int NumSteps() const;
};

}  // namespace shrew::jit
