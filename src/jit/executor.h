// The tape executor (PIPELINE.md §8): binds a CompiledGraph to an arena and
// runs it. "Plan, then compute; compute never allocates" (ggml):
//
//   Executor ex(compiled.get());
//   SHREW_RETURN_IF_ERROR(ex.Bind(input_shapes, dims));  // plan (cached per binding)
//   std::memcpy(ex.input_data(0), x, ex.input_bytes(0));  // inputs live in the arena
//   SHREW_RETURN_IF_ERROR(ex.Run());                       // one Kernel::Run per instruction
//   const float* y = static_cast<const float*>(ex.output_data(0));
//
// Binding: for each new set of input shapes (one per graph input) the
// executor specialises the graph's types (ir::SpecializeGraphTypes), reshapes
// every kernel (workspace sizes, in-place ability), assigns buffers
// (liveness.h), plans the arena (memory_plan.h), checks the plan, and sets
// up every kernel's pointers. Plans are cached per binding; coming back to a
// binding re-reshapes and re-sets-up the kernels but never recompiles.
// The same binding twice in a row costs nothing.
//
// Memory: one arena owned by the executor, 64-byte aligned, grown (never
// shrunk) to the largest plan plus kTailPaddingBytes (XNNPACK may read past
// the end of its operands). Graph inputs have fixed buffers in it, live for
// the whole run, never overwritten: callers (and JS through HEAP views) write
// straight into input_data(i) after Bind. Outputs stay in the arena until the
// next Bind/Run; CopyOutput returns host tensors. Parameters and constants
// are read where they are held (never copied).
//
// Shapes that depend on values (ir::ShapesDependOnValues: a `range` of
// computed operands, or a call of a graph that has one) are known only once
// the inputs are: for such a graph Bind stages the inputs outside the arena,
// and each Run first evaluates the nodes those shapes need (the ranges, the
// calls and what they read, with the reference semantics of
// interp::EvalNode), then picks or makes the plan for the shapes found,
// copies the inputs into the arena and runs the tape. Plans are cached per
// binding and value shapes; outputs' shapes may differ from run to run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/shapes.h"
#include "jit/call_kernel.h"
#include "jit/compiled_graph.h"
#include "jit/memory_plan.h"

namespace shrew::jit {

struct ExecutorOptions {
  // Resolves call callees when specialising shapes.
  const ir::Program* program = nullptr;
  // The runtime configuration's dims (Program's `dims`): they bind names in
  // every graph, including called ones (their parameters' shapes).
  ir::DimBindings config_dims;
  ir::DType default_float = ir::DType::kF32;
  // Check every plan with CheckBufferAssignment (always on in tests; on by
  // default in debug builds and for plans with few buffers).
  bool verify_plans = true;
  // Track slot states while running: reading a freed or never-written slot
  // is the internal error "slot S is empty" (a compiler bug, not user error).
  bool check_slots = false;
  // Largest value (slot) or kernel workspace a binding may hold: planning a
  // bigger one is a ResourceExhausted error naming the node, before the
  // arena grows.
  uint64_t max_tensor_bytes = uint64_t{1} << 50;
  // A called graph's assertions on the dims its call binds (null: none).
  CallCheck check_call;
};

// Re-infers the types of `g`, whose inputs already have their concrete
// types, with `dims` bound; a call's result type comes from its callee
// specialised the same way (`depth` counts nested calls). Errors: the first
// shape-inference error, as ir::RunTimeShapeError words it, its source
// position the status's span; calls nested deeper than ir::kMaxCallDepth, a callee's failed assertion
// (`check`, before its shapes are inferred, as a run checks its graph's).
Status SpecializeWithCalls(ir::Graph* g, const ir::Program* program, const ir::DimBindings& dims,
                           const ir::DimBindings& config_dims, const ir::InferOptions& io, int depth = 0,
                           const CallCheck& check = nullptr);

// Everything that depends on one binding of the input shapes.
struct BindingPlan {
  std::vector<runtime::Shape> input_shapes;  // the cache key, with dims and value_types
  ir::DimBindings dims;
  std::vector<ir::Type> value_types;         // value-shaped graphs: the probed nodes' types
  std::vector<runtime::Shape> slot_shapes;   // per slot (a fused-away slot's too; it has 0 bytes)
  std::vector<ir::DType> slot_dtypes;
  std::vector<uint64_t> slot_bytes;
  std::vector<uint64_t> workspace_bytes;     // per tape instruction
  BufferAssignment buffers;
  MemoryPlan plan;
  uint64_t arena_size = 0;                   // plan.arena_bytes + tail padding
};

class Executor {
 public:
  explicit Executor(CompiledGraph* graph, ExecutorOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Selects the plan for these input shapes (one per graph input, declaration
  // order; inputs must already be checked, binding.h) and `dims` (the full
  // binding). Errors: shapes that fail at run-time shape inference (e.g.
  // matmul inner sizes of symbolic dims), kernels rejecting shapes.
  Status Bind(std::span<const runtime::Shape> input_shapes, const ir::DimBindings& dims);

  // After Bind: the buffer of graph input i (in the arena; a staging buffer
  // for a value-shaped graph) and its byte size.
  std::byte* input_data(int i);
  uint64_t input_bytes(int i) const;

  // Runs the tape once. No allocation (except inside ref kernels, and for a
  // value-shaped graph the evaluation of its shapes and new plans).
  Status Run();
  // Run, timing each kernel: instruction_ns[i] (one per tape instruction,
  // frees and loads included) gets instruction i's wall time in ns, 0 for an
  // instruction without a kernel. A kernel that calls another graph counts
  // the callee's time. For profiles (jit/profile.h); Run stays untimed.
  Status RunTimed(std::span<double> instruction_ns);

  // True when shapes depend on computed values (see above).
  bool value_shaped() const { return value_shaped_; }

  // After Run: output o (graph output order).
  int num_outputs() const { return static_cast<int>(graph_->outputs.size()); }
  const void* output_data(int o) const;
  const runtime::Shape& output_shape(int o) const;
  ir::DType output_dtype(int o) const;
  Result<runtime::Tensor> CopyOutput(int o) const;

  // Kernels were re-created or parameters replaced: every cached plan must be
  // rebuilt (workspace sizes may change) before the next run.
  void Invalidate();

  // Frees the arena; the next Bind allocates it again for its plan. For a
  // run that failed for want of memory after Bind grew the arena: the memory
  // is not held for a run that never happened.
  void ReleaseArena();

  const BindingPlan* plan() const { return active_ < 0 ? nullptr : plans_[static_cast<size_t>(active_)].get(); }
  int num_plans() const { return static_cast<int>(plans_.size()); }
  // The compile statistics with the arena fields of the plan in use.
  CompileStats stats() const;
  const CompiledGraph& graph() const { return *graph_; }
  // Where slot s lives for the active plan (nullptr if not produced).
  const void* slot_data(SlotId s) const { return slot_ptrs_[static_cast<size_t>(s)]; }

 private:
  // `value_types`: for a value-shaped graph, the types of ValueBinding::roots.
  Result<std::unique_ptr<BindingPlan>> MakePlan(std::span<const runtime::Shape> input_shapes,
                                                const ir::DimBindings& dims, std::span<const ir::Type> value_types);
  // The graph's types for these input shapes and dims (specialised copy).
  Result<ir::Graph> Specialize(std::span<const runtime::Shape> input_shapes, const ir::DimBindings& dims,
                               std::span<const ir::NodeId> pinned, std::span<const ir::Type> pinned_types) const;
  // Activates the cached plan for the key, or makes it.
  Status SelectPlan(std::span<const runtime::Shape> input_shapes, const ir::DimBindings& dims,
                    std::span<const ir::Type> value_types);
  // Value-shaped graphs: Bind's part, and what Run evaluates first.
  Status StageBinding(std::span<const runtime::Shape> input_shapes, const ir::DimBindings& dims);
  Result<std::vector<ir::Type>> ProbeValueTypes();
  // What a run does before the tape: a value-shaped graph's probe, plan
  // and staged inputs; the bound check.
  Status BeginRun();
  template <bool kTimed>
  Status RunTape(std::span<double> instruction_ns);
  Status ReshapeKernels(const BindingPlan& plan, std::vector<uint64_t>* workspace_bytes);
  Status Activate(int index);

  CompiledGraph* graph_;
  ExecutorOptions options_;
  std::vector<std::unique_ptr<BindingPlan>> plans_;
  int active_ = -1;
  bool kernels_ready_ = false;  // kernels reshaped + set up for plans_[active_]
  int reshaped_for_ = -1;       // the plan the kernels were last reshaped for
  struct ArenaFree {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, ArenaFree> arena_;
  uint64_t arena_capacity_ = 0;
  std::vector<void*> slot_ptrs_;
  std::vector<uint8_t> slot_full_;  // check_slots
  bool ran_ = false;
  // Value-shaped graphs: the binding Bind staged, the nodes whose shapes the
  // values give (range and call nodes left without a static type) and what
  // they read, in execution order; the staged inputs.
  bool value_shaped_ = false;
  struct ValueBinding {
    std::vector<runtime::Shape> input_shapes;
    ir::DimBindings dims;
    ir::Graph typed;
    std::vector<ir::NodeId> roots;
    std::vector<ir::NodeId> closure;
  };
  std::unique_ptr<ValueBinding> value_binding_;
  std::vector<runtime::Tensor> staged_;
};

}  // namespace shrew::jit
