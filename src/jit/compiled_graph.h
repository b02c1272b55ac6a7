// A graph compiled for the tape executor (PIPELINE.md §7.6): the tape with
// pre-resolved slots, the kernels created (weights packed) at compile time,
// the value lifetimes and the statistics. The memory plan depends on the
// binding of symbolic dims and lives in the executor (executor.h), which
// fills the arena_* statistics of the plan in use.
//
// A CompiledGraph is immovable once built (kernels keep pointers into it);
// it is held by std::unique_ptr.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "interp/eval.h"
#include "ir/graph.h"
#include "jit/liveness.h"
#include "jit/tape.h"
#include "runtime/kernel.h"
#include "runtime/rng.h"
#include "runtime/tensor.h"

namespace shrew::jit {

struct CompileStats {
  int num_instructions = 0;   // tape length including frees
  int num_source_nodes = 0;   // nodes in the graph
  int num_slots = 0;          // logical slots (= nodes)
  int num_reused = 0;         // placements reusing released memory (0 until a plan is known)
  int num_frees = 0;          // inserted frees
  int num_fused = 0;          // fused instructions (fused_* nodes, JIT-level FC+activation, folded transposes)
  int64_t compile_time_us = 0;
  uint64_t arena_bytes = 0;        // arena size of the plan in use (0 when not yet known)
  uint64_t arena_lower_bound = 0;  // most bytes live at any one instruction
  uint64_t arena_naive = 0;        // sum of all arena buffers (no reuse)
  // Beyond §7.6 (dumps, bench): in-place placements and arena-sharing aliases.
  int num_in_place = 0;
  int num_aliases = 0;
  int num_ref_kernels = 0;    // instructions running the interp::EvalNode fallback
};

// Creates the kernel of one node; a null KernelPtr (with an ok status)
// means "no native kernel", and the reference fallback is used instead.
using KernelFactory = std::function<Result<runtime::KernelPtr>(const runtime::KernelSpec& spec)>;
// Creates one kernel computing `activation(producer)` (e.g. relu of a
// fused_matmul_add / linear as one fully-connected operator with a clamp);
// null when not offered, and the two instructions stay separate.
using FusedKernelFactory =
    std::function<Result<runtime::KernelPtr>(const runtime::KernelSpec& producer, ir::OpKind activation)>;

// What ref (fallback) kernels need besides their node; owned by the
// CompiledGraph, updated by the executor (dims of the binding in use).
struct RefEnv {
  interp::EvalContext ctx;
  ir::DimBindings dims;
};

struct CompiledKernel {
  runtime::KernelPtr kernel;
  bool ref = false;                   // the interp::EvalNode fallback
  ir::NodeId node = ir::kNoNode;      // the node it computes (the activation for a fused pair)
  ir::NodeId fused_node = ir::kNoNode;// the producer folded into it (JIT-level fusion)
  std::vector<int> constant_params;   // param indices handed over as constant operands (re-created on SetParam)
};

struct CompiledGraph {
  std::string name;
  ir::Graph graph;  // the optimised IR this was compiled from (own copy)
  Tape tape;
  int num_slots = 0;
  std::vector<ir::NodeId> slot_node;  // slot -> node (execution order, §7.2)
  std::vector<SlotId> node_slot;      // node -> slot
  std::vector<ValueLifetime> lifetimes;              // per slot (§7.4)
  std::vector<std::pair<std::string, SlotId>> outputs;  // graph output order
  std::vector<SlotId> input_slots;    // per graph input (declaration order)
  std::vector<uint8_t> input_read;    // per graph input: read by some instruction
  std::vector<runtime::Tensor> constants;
  std::vector<int32_t> constant_of_node;  // per node: index into constants, or -1
  std::vector<int32_t> param_of_node;     // per node: index into params, or -1
  // Per node: the transpose whose source a product reads as its b, stored
  // [.., N, K] (transpose_fold.h), else kNoNode. Its kernel specs and
  // operand slots take the source in the transpose's place.
  std::vector<ir::NodeId> transposed_b;
  std::vector<CompiledKernel> kernels;
  // Per param p: the kernels handed it as a constant operand are
  // param_kernels[param_kernel_begin[p] .. param_kernel_begin[p + 1]) (so a
  // parameter change re-creates its kernels without scanning the others).
  std::vector<uint32_t> param_kernel_begin;
  std::vector<int32_t> param_kernels;
  std::vector<const runtime::Tensor*> params;  // per graph param (owned by the program)
  std::unique_ptr<RefEnv> ref_env;
  CompileStats stats;
  bool training = false;

  int num_live_xnn_operators() const;
  // transposed_b of node `id` (kNoNode past its end).
  ir::NodeId TransposedB(ir::NodeId id) const {
    const size_t k = static_cast<size_t>(id);
    return k < transposed_b.size() ? transposed_b[k] : ir::kNoNode;
  }
};

}  // namespace shrew::jit
