// Lifetimes, free points and buffers of a compiled graph.
//
// Two levels, as in XNNPACK's runtime (value lifetimes, then a separate
// in-place pass) and ggml's allocator (parents reused by in-place children):
//
// 1. Values (PIPELINE.md §7.4), binding-independent, computed once at
//    compile time over the free-less tape: produced_at / last_used_at per
//    slot, then `free` instructions inserted after the last use of every
//    value that is neither external (input, parameter, constant) nor an
//    output and dies before the last instruction; several frees after one
//    instruction in decreasing slot order.
//
// 2. Buffers, per binding of the dims (sizes are concrete there): which
//    slots share which physical arena buffer, as {size, first, last}
//    records for the pure planner (memory_plan.h).
//    - a graph input gets its own buffer live over the whole run
//      [0, end]: the caller writes it before the run and it is never
//      overwritten (no in-place, no reuse);
//    - parameters and constants are external: not in the arena;
//    - `copy` instructions (identity, reshape, view, inference dropout)
//      alias their source: same buffer, whose lifetime is extended to the
//      alias's last use;
//    - a compute instruction whose kernel accepts running in place on
//      operand i (Kernel::CanRunInPlace), where i's buffer is an ordinary
//      arena buffer (not an input, no output in it) whose every value dies
//      at this instruction and which has exactly the output's byte size,
//      writes its result over that buffer; otherwise it gets a new buffer;
//    - graph outputs keep their buffer live until the last instruction, so
//      nothing placed later can overlap them and they stay readable after
//      the run;
//    - a kernel workspace is a one-instruction record [t, t].
//    The invariant (checked by CheckBufferAssignment, always run in tests):
//    records with overlapping lifetimes never share a byte, every value's
//    lifetime lies inside its buffer's, and two different values sharing a
//    buffer (other than an alias and its source) are live at disjoint times
//    except for the in-place hand-over instruction.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "jit/memory_plan.h"
#include "jit/tape.h"

namespace shrew::jit {

// PIPELINE.md §7.4's lifetime record (one per slot).
struct ValueLifetime {
  int32_t produced_at = -1;   // time of the writing instruction; -1: never produced (fused away)
  int32_t last_used_at = -1;  // largest time of a reader, else produced_at
  ir::NodeId node = ir::kNoNode;
  bool is_output = false;
  bool is_external = false;   // input or parameter (§7.4: a constant is freed like any value)
};

// Lifetimes over a tape without frees. `slot_node` maps slots to nodes;
// `output_slots` lists the slots graph outputs refer to.
std::vector<ValueLifetime> ComputeLifetimes(const Tape& tape, std::span<const ir::NodeId> slot_node,
                                            std::span<const SlotId> output_slots);

// Inserts the frees of §7.4 into `tape` (which must have none yet) and
// returns how many.
int InsertFrees(Tape* tape, std::span<const ValueLifetime> lifetimes);

// Whether instruction `instr_index` may write its result over operand
// `operand_index` (asks the kernel).
using InPlaceFn = std::function<bool(int instr_index, int operand_index)>;

struct BufferAssignment {
  std::vector<BufferRecord> records;  // one per arena buffer, for PlanMemory
  std::vector<int32_t> slot_buffer;   // per slot: arena buffer index, or -1 (external / not produced)
  // Per slot: the slot that owns the storage read through it (itself unless
  // it is an alias; an alias of an alias resolves to the first source).
  std::vector<SlotId> slot_root;
  std::vector<SlotId> in_place_of;    // per slot: the operand slot whose buffer it took over
  std::vector<int32_t> workspace_buffer;  // per instruction (tape index): buffer index or -1
  std::vector<uint8_t> buffer_is_input;   // per buffer
  int num_in_place = 0;
  int num_aliases = 0;                // copy instructions sharing an arena buffer
};

// Buffer assignment for one binding. `slot_bytes`: bytes of each slot's
// value; `workspace_bytes`: per instruction (tape index), 0 for none.
BufferAssignment AssignBuffers(const Tape& tape, std::span<const ValueLifetime> lifetimes,
                               std::span<const uint64_t> slot_bytes, std::span<const uint64_t> workspace_bytes,
                               const InPlaceFn& can_run_in_place);

// The debug check described above; also CheckNoOverlap on the records. An
// Internal status naming the offending slots on failure.
Status CheckBufferAssignment(const Tape& tape, std::span<const ValueLifetime> lifetimes,
                             const BufferAssignment& assignment, std::span<const uint64_t> offsets,
                             uint64_t alignment);

}  // namespace shrew::jit
