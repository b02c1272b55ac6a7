#include "jit/executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/check.h"
#include "diag/diagnostic.h"
#include "interp/eval.h"
#include "ir/shapes.h"
#include "ir/validate.h"
#include "jit/binding.h"
#include "runtime/attention_intermediates.h"

namespace shrew::jit {
namespace {

using runtime::Shape;

// Beyond this many buffers the quadratic plan check only runs when asked.
constexpr size_t kVerifyAlwaysBelow = 4096;
// Plans kept per executor (the oldest goes first): each distinct binding of
// symbolic dims or value shapes makes one, and a long-running caller with
// ever-new sizes must not grow without bound.
constexpr size_t kMaxPlans = 64;
using ir::kMaxCallDepth;

// The callees specialised within one top-level specialisation, by callee,
// nesting depth and operand types: a graph calling another twice with the
// same operand types specialises it once (a chain of `?` graphs each
// calling the one before twice took 2^L specialisations: 7 s at L = 18).
struct CalleeMemo {
  std::unordered_map<std::string, Result<ir::Type>> results;  // callee's output type, or its error
  std::unordered_map<std::string, ir::Type> loose;            // LooseCallResultType's
  const CallCheck* check = nullptr;                           // callees' assertions (may be null)
};

std::string MemoKey(const ir::Graph& callee, int depth, std::span<const std::optional<ir::Type>> types) {
  std::string key = callee.name() + "|" + std::to_string(depth);
  for (const std::optional<ir::Type>& t : types) key += "|" + (t ? t->ToString() : std::string("-"));
  return key;
}

Status SpecializeWithCallsMemo(ir::Graph* g, const ir::Program* program, const ir::DimBindings& dims,
                               const ir::DimBindings& config_dims, const ir::InferOptions& io, int depth,
                               CalleeMemo* memo);

// The concrete type of a call node's result: its callee specialised on the
// operand types (shape inference alone may leave `?` there). The callee's
// dims are the runtime configuration's, then those its inputs bind: a
// caller's own names do not reach it (as in the interpreter).
Result<ir::Type> CallResultType(const ir::Program* program, const ir::Graph& caller, const ir::Node& node,
                                const ir::DimBindings& config_dims, const ir::InferOptions& io, int depth,
                                CalleeMemo* memo) {
  const ir::Graph* callee = program != nullptr ? program->FindGraph(node.callee) : nullptr;
  const std::vector<int> indices = ir::CallInputIndices(node);
  if (callee == nullptr || callee->outputs().empty() || !ir::AcceptsCallBinding(*callee, indices)) {
    return Unimplemented("cannot determine the result shape of call[" + node.callee + "]");
  }
  if (depth > kMaxCallDepth) return InvalidArgument("graph calls nested deeper than 64");
  std::vector<InputDesc> descs(callee->inputs().size());  // left-out optional ones: not present
  std::vector<std::optional<ir::Type>> types(callee->inputs().size());
  for (size_t k = 0; k < node.operands.size(); ++k) {
    const ir::Type& t = caller.node(node.operands[k]).type;
    if (!t.is_tensor() || !t.IsStatic()) return Unimplemented("operand shapes of call[" + node.callee + "] unknown");
    Shape shape;
    for (const ir::Dim& d : t.dims()) shape.push_back(d.size());
    const size_t i = static_cast<size_t>(indices[k]);
    descs[i] = {true, t.dtype(), shape};
    types[i] = t;
  }
  // Named as the interpreter names a failing call: the caller's node, then the callee.
  const std::string where = caller.NodeLabel(node) + ": ";
  // A left-out optional input the callee reads is the call's fault, said at
  // the call (its type stayed unknown: "type unknown after shape inference").
  for (size_t i = 0; i < descs.size(); ++i) {
    const ir::NodeId in = callee->inputs()[i].node;
    if (!descs[i].present && callee->inputs()[i].optional && ir::IsRead(*callee, in)) {
      return InvalidArgument(where + ir::MissingInputMessage(*callee, i, callee->node(in).type)).At(node.blame_span());
    }
  }
  const std::string key = MemoKey(*callee, depth, types);
  auto known = memo->results.find(key);
  if (known == memo->results.end()) {
    Result<ir::Type> result = [&]() -> Result<ir::Type> {
      ir::Graph g = ir::WithInputTypes(*callee, types);
      Result<ir::DimBindings> dims = BindInputs(*callee, config_dims, descs);
      if (!dims.ok()) return dims.status();
      // The callee's assertions first, as a run of it checks them before
      // its shapes (a guarded reshape failed with its shape error).
      if (memo->check != nullptr && *memo->check) SHREW_RETURN_IF_ERROR((*memo->check)(*callee, *dims));
      SHREW_RETURN_IF_ERROR(SpecializeWithCallsMemo(&g, program, *dims, config_dims, io, depth + 1, memo));
      return g.node(g.outputs().front().node).type;
    }();
    known = memo->results.emplace(key, std::move(result)).first;
  }
  if (!known->second.ok()) return interp::GraphFailure(callee->name(), known->second.status()).Prefixed(where);
  return known->second.value();
}

// A value the probe would compute whose type is known and over the byte cap
// is refused before it is made, in the words of MakePlan and the interpreter.
Status CheckProbedTypeFits(const ir::Graph& graph, const ir::Node& node, uint64_t max_tensor_bytes) {
  if (!node.type.is_tensor()) return Status::Ok();
  const ir::ElementCount count = node.type.NumElements();
  const uint64_t elem = ir::StorageByteSize(ir::StorageOf(node.type.dtype()));
  const uint64_t cap = std::min<uint64_t>(max_tensor_bytes, uint64_t{1} << 50);
  if (!count.overflow() && (!count.known() || elem == 0 || static_cast<uint64_t>(count.value) <= cap / elem)) {
    return Status::Ok();
  }
  return ResourceExhausted("graph '" + graph.name() + "': " + graph.NodeLabel(node) + " would be " +
                           node.type.ToString() + ", over the limit of " + std::to_string(cap) + " bytes per tensor")
      .At(node.blame_span());
}

// True when every node of `g` already has a static tensor type and the
// inputs' types are exactly `input_shapes`: re-inferring would change nothing.
bool HasConcreteTypes(const ir::Graph& g, std::span<const Shape> input_shapes) {
  if (input_shapes.size() != g.inputs().size()) return false;
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    const ir::Type& t = g.node(g.inputs()[i].node).type;
    if (!t.is_tensor() || t.dims().size() != input_shapes[i].size()) return false;
    for (size_t k = 0; k < input_shapes[i].size(); ++k) {
      if (!t.dims()[k].is_fixed() || t.dims()[k].size() != input_shapes[i][k]) return false;
    }
  }
  for (const ir::Node& n : g.nodes()) {
    if (!n.type.is_tensor() || !n.type.IsStatic()) return false;
  }
  return true;
}

// A dropout of graph `name` or of a graph it calls that draws in training
// mode (p != 0), with the graph holding it; nullptr when there is none.
const ir::Node* DrawingDropout(const ir::Program* program, std::string_view name, std::string* graph, int depth) {
  const ir::Graph* g = program != nullptr ? program->FindGraph(name) : nullptr;
  if (g == nullptr || depth > kMaxCallDepth) return nullptr;
  for (const ir::Node& n : g->nodes()) {
    if (n.op == ir::OpKind::kDropout) {
      const ir::AttrValue* p = n.attr("p");
      if (p == nullptr || !p->is_number() || p->as_float() != 0.0) {
        *graph = g->name();
        return &n;
      }
    }
    if (n.op == ir::OpKind::kCall && !n.is_source()) {
      if (const ir::Node* d = DrawingDropout(program, n.callee, graph, depth + 1)) return d;
    }
  }
  return nullptr;
}

// Whether every operand of `node` has a static tensor type.
bool OperandsStatic(const ir::Graph& g, const ir::Node& node) {
  for (ir::NodeId op : node.operands) {
    const ir::Type& t = g.node(op).type;
    if (!t.is_tensor() || !t.IsStatic()) return false;
  }
  return true;
}

// The result type of call `node` whose operand shapes depend on computed
// values: its callee inferred on the operands' ranks and dtypes (every dim
// `?`), the result's rank and dtype with every dim `?`; unknown when that
// inference cannot tell. The callee's own calls are loosened the same way
// (SpecializeWithCalls), so a chain of graphs typed per run keeps its types.
ir::Type LooseCallResultType(const ir::Program* program, const ir::Graph& caller, const ir::Node& node,
                             const ir::DimBindings& config_dims, const ir::InferOptions& io, int depth,
                             CalleeMemo* memo) {
  const ir::Graph* callee = program != nullptr ? program->FindGraph(node.callee) : nullptr;
  const std::vector<int> indices = ir::CallInputIndices(node);
  if (callee == nullptr || callee->outputs().empty() || !ir::AcceptsCallBinding(*callee, indices) ||
      depth > kMaxCallDepth) {
    return ir::Type::Unknown();
  }
  auto loosened = [](const ir::Type& t) {
    std::vector<ir::Dim> dims;
    for (const ir::Dim& d : t.dims()) dims.push_back(d.is_fixed() ? d : ir::Dim::Dynamic());
    return ir::Type::Tensor(std::move(dims), t.dtype());
  };
  std::vector<std::optional<ir::Type>> types(callee->inputs().size());
  for (size_t k = 0; k < node.operands.size(); ++k) {
    const ir::Type& t = caller.node(node.operands[k]).type;
    if (!t.is_tensor()) return ir::Type::Unknown();
    types[static_cast<size_t>(indices[k])] = loosened(t);
  }
  const std::string key = MemoKey(*callee, depth, types);
  if (auto known = memo->loose.find(key); known != memo->loose.end()) return known->second;
  ir::Type result = ir::Type::Unknown();
  ir::Graph g = ir::WithInputTypes(*callee, types);
  if (SpecializeWithCallsMemo(&g, program, config_dims, config_dims, io, depth + 1, memo).ok()) {
    const ir::Type& out = g.node(g.outputs().front().node).type;
    if (out.is_tensor()) {
      result = ir::Type::Tensor(std::vector<ir::Dim>(static_cast<size_t>(out.rank()), ir::Dim::Dynamic()), out.dtype());
    }
  }
  memo->loose.emplace(key, result);
  return result;
}

// ir::SpecializeGraphTypes, then, while a call node's result is not static,
// pin it (as a declared type) to the callee's specialised output and re-infer.
Status SpecializeWithCallsMemo(ir::Graph* g, const ir::Program* program, const ir::DimBindings& dims,
                               const ir::DimBindings& config_dims, const ir::InferOptions& io, int depth,
                               CalleeMemo* memo) {
  // Literals left weak (ir::WithInputTypes) stay weak in every round, so that
  // they adopt a call's result type once it is pinned.
  const std::vector<ir::NodeId> weak = ir::WeakConstants(*g);
  ir::InferOptions options = io;
  options.callee_bindings = &config_dims;  // `dims` also holds the names g's own inputs bound
  std::vector<bool> pinned(static_cast<size_t>(g->num_nodes()), false);
  for (int iter = 0; iter <= g->num_nodes(); ++iter) {
    for (ir::NodeId id : weak) g->node(id).type = ir::Type::Unknown();
    diag::DiagnosticBag diags;
    // Worded as the interpreter words it; the position is the span.
    if (!ir::SpecializeGraphTypes(g, program, dims, &diags, options)) return ir::RunTimeShapeError(*g, diags);
    // A call whose result is not static yet; or one whose callee is typed
    // per run, whose declared type inference had to take on trust.
    ir::Node* pending = nullptr;
    bool loosened = false;  // a type to propagate: infer again
    for (ir::Node& n : g->mutable_nodes()) {
      if (n.op != ir::OpKind::kCall || n.is_source() || pinned[static_cast<size_t>(n.id)]) continue;
      // An operand whose shape depends on computed values (a range of a
      // sum): no pin can make it static (an earlier call would have been
      // pending first), so the executor evaluates this call's result with
      // the values (StageBinding) and pins it then.
      if (!OperandsStatic(*g, n)) {
        // A callee typed per run gives inference no type at all; its rank and
        // dtype, from the operands' types, let the graph compile meanwhile.
        if (!n.type.is_tensor() && !n.declared_type) {
          const ir::Type loose = LooseCallResultType(program, *g, n, config_dims, io, depth, memo);
          if (loose.is_tensor()) {
            n.declared_type = loose;
            n.type = loose;
            loosened = true;
          }
        }
        continue;
      }
      const ir::Graph* callee = n.declared_type && program != nullptr ? program->FindGraph(n.callee) : nullptr;
      if (!n.type.is_tensor() || !n.type.IsStatic() || (callee != nullptr && ir::TypesDependOnInputs(*callee))) {
        pending = &n;
        break;
      }
    }
    if (pending == nullptr && loosened) continue;
    if (pending == nullptr) return Status::Ok();
    pinned[static_cast<size_t>(pending->id)] = true;
    Result<ir::Type> t = CallResultType(program, *g, *pending, config_dims, io, depth, memo);
    if (!t.ok()) return t.status();
    // Pinned as a declared type, over the program's own declaration of the
    // node, which must hold (T6; inference could not check it without the
    // result's type).
    if (pending->declared_type && pending->declared_type->is_tensor()) {
      const ir::Type declared = pending->declared_type->Bind(dims);
      if (!ir::TypesCompatible(declared, *t)) {
        // In the interpreter's words for a call's result (CheckComputed).
        std::string found = t->ToString();
        if (t->IsStatic()) {
          runtime::Shape shape;
          for (const ir::Dim& d : t->dims()) shape.push_back(d.size());
          found = std::string(ir::DTypeName(t->dtype())) + runtime::ShapeToString(shape);
        }
        return InvalidArgument("graph '" + g->name() + "': " + g->NodeLabel(*pending) + ": computed " + found +
                               " does not match its type " + declared.ToString())
            .At(pending->span);
      }
      // A shape found from values (MakePlan's pins) says more than a callee
      // whose result length depends on values (`[?]`): keep it, or the plan
      // has no shape for the node.
      if (declared.IsStatic() && !t->IsStatic()) t = declared;
    }
    pending->declared_type = *t;
    pending->type = *t;
  }
  return Status::Ok();
}

}  // namespace

Status SpecializeWithCalls(ir::Graph* g, const ir::Program* program, const ir::DimBindings& dims,
                           const ir::DimBindings& config_dims, const ir::InferOptions& io, int depth,
                           const CallCheck& check) {
  CalleeMemo memo;
  memo.check = &check;
  return SpecializeWithCallsMemo(g, program, dims, config_dims, io, depth, &memo);
}


void Executor::ArenaFree::operator()(std::byte* p) const { std::free(p); }

Executor::Executor(CompiledGraph* graph, ExecutorOptions options) : graph_(graph), options_(std::move(options)) {
  slot_ptrs_.assign(static_cast<size_t>(graph_->num_slots), nullptr);
  slot_full_.assign(static_cast<size_t>(graph_->num_slots), 0);
  value_shaped_ = ir::ShapesDependOnValues(graph_->graph, options_.program);
}

Executor::~Executor() = default;

void Executor::Invalidate() {
  plans_.clear();
  active_ = -1;
  reshaped_for_ = -1;
  kernels_ready_ = false;
  ran_ = false;
}

void Executor::ReleaseArena() {
  arena_.reset();
  arena_capacity_ = 0;
  // Slot pointers point into the freed arena: set up again before a run.
  kernels_ready_ = false;
  ran_ = false;
}

Result<ir::Graph> Executor::Specialize(std::span<const Shape> input_shapes, const ir::DimBindings& dims,
                                       std::span<const ir::NodeId> pinned,
                                       std::span<const ir::Type> pinned_types) const {
  const CompiledGraph& cg = *graph_;
  ir::Graph sg = cg.graph;
  for (size_t i = 0; i < sg.inputs().size(); ++i) {
    ir::Node& n = sg.node(sg.inputs()[i].node);
    std::vector<ir::Dim> d;
    for (int64_t s : input_shapes[i]) d.push_back(ir::Dim::Fixed(s));
    n.type = ir::Type::Tensor(std::move(d), n.type.is_tensor() ? n.type.dtype() : ir::DType::kF32);
    n.declared_type = n.type;
  }
  // Shapes found from values enter as declared types, as a call's result does.
  for (size_t k = 0; k < pinned.size(); ++k) {
    ir::Node& n = sg.node(pinned[k]);
    n.declared_type = pinned_types[k];
    n.type = pinned_types[k];
  }
  ir::InferOptions io;
  io.default_float = options_.default_float;
  Status specialized =
      SpecializeWithCalls(&sg, options_.program, dims, options_.config_dims, io, 0, options_.check_call);
  if (!specialized.ok()) return interp::GraphFailure(cg.name, specialized);
  return sg;
}

Result<std::unique_ptr<BindingPlan>> Executor::MakePlan(std::span<const Shape> input_shapes,
                                                        const ir::DimBindings& dims,
                                                        std::span<const ir::Type> value_types) {
  const CompiledGraph& cg = *graph_;
  auto plan = std::make_unique<BindingPlan>();
  plan->input_shapes.assign(input_shapes.begin(), input_shapes.end());
  plan->dims = dims;
  plan->value_types.assign(value_types.begin(), value_types.end());

  // Concrete types of every node for this binding: the compiled graph's own
  // when they are already static for exactly these input shapes (a graph
  // with static inputs, planned at compile time), else a specialised copy.
  ir::Graph specialized_graph;
  const bool concrete = HasConcreteTypes(cg.graph, input_shapes);
  if (!concrete) {
    std::span<const ir::NodeId> pinned;
    if (value_binding_ != nullptr && !value_types.empty()) pinned = value_binding_->roots;
    Result<ir::Graph> sg = Specialize(input_shapes, dims, pinned, value_types);
    if (!sg.ok()) return sg.status();
    specialized_graph = std::move(sg).value();
  }
  const ir::Graph& g = concrete ? cg.graph : specialized_graph;
  const size_t n = static_cast<size_t>(cg.num_slots);
  plan->slot_shapes.assign(n, {});
  plan->slot_dtypes.assign(n, ir::DType::kF32);
  plan->slot_bytes.assign(n, 0);
  for (size_t s = 0; s < n; ++s) {
    const ir::Node& node = g.node(cg.slot_node[s]);
    if (cg.lifetimes[s].produced_at < 0) {
      // Fused away: no bytes, but the dumps show the value's type.
      if (node.type.is_tensor() && node.type.IsStatic()) {
        for (const ir::Dim& d : node.type.dims()) plan->slot_shapes[s].push_back(d.size());
        plan->slot_dtypes[s] = node.type.dtype();
      }
      continue;
    }
    if (!node.type.is_tensor() || !node.type.IsStatic()) {
      // A name no input or configuration binds (`reshape(x, shape: [M, 2])`)
      // is the program's error; the interpreter finds it as it evaluates.
      if (node.type.is_tensor()) {
        for (const ir::Dim& d : node.type.dims()) {
          if (d.is_symbolic()) {
            return interp::NodeFailure(g, node, InvalidArgument("unresolved symbolic dimension '" + d.name() + "'"));
          }
        }
      }
      return Unimplemented("graph '" + cg.name + "': the shape " + node.type.ToString() + " of " + g.NodeLabel(node) +
                           " cannot be determined before running")
          .At(node.blame_span());
    }
    Shape shape;
    for (const ir::Dim& d : node.type.dims()) shape.push_back(d.size());
    Result<int64_t> count = runtime::CountElements(shape);
    if (!count.ok()) return count.status().Prefixed(g.NodeLabel(node) + ": ").At(node.blame_span());
    const size_t elem = ir::StorageByteSize(ir::StorageOf(node.type.dtype()));
    if (elem == 0) {
      return InvalidArgument(g.NodeLabel(node) + ": dtype " + ir::DTypeName(node.type.dtype()) +
                             " is not supported for execution")
          .At(node.blame_span());
    }
    const uint64_t cap = std::min<uint64_t>(options_.max_tensor_bytes, uint64_t{1} << 50);
    if (static_cast<uint64_t>(*count) > cap / elem) {
      return ResourceExhausted("graph '" + cg.name + "': " + g.NodeLabel(node) + " would be " +
                               node.type.ToString() + ", over the limit of " + std::to_string(cap) +
                               " bytes per tensor")
          .At(node.blame_span());
    }
    plan->slot_shapes[s] = std::move(shape);
    plan->slot_dtypes[s] = node.type.dtype();
    plan->slot_bytes[s] = static_cast<uint64_t>(*count) * elem;
  }
  SHREW_RETURN_IF_ERROR(ReshapeKernels(*plan, &plan->workspace_bytes));
  const Tape& tape = cg.tape;
  plan->buffers = AssignBuffers(tape, cg.lifetimes, plan->slot_bytes, plan->workspace_bytes,
                                [&](int instr, int operand) {
                                  const Instr& in = tape.instrs[static_cast<size_t>(instr)];
                                  return cg.kernels[static_cast<size_t>(in.kernel)].kernel->CanRunInPlace(
                                      static_cast<size_t>(operand));
                                });
  plan->plan = PlanMemory(plan->buffers.records);
  if (options_.verify_plans || plan->buffers.records.size() < kVerifyAlwaysBelow) {
    SHREW_RETURN_IF_ERROR(
        CheckBufferAssignment(tape, cg.lifetimes, plan->buffers, plan->plan.offsets, kDefaultAlignment));
  }
  plan->arena_size = AlignUp(plan->plan.arena_bytes + runtime::kTailPaddingBytes, kDefaultAlignment);
  return plan;
}

Status Executor::ReshapeKernels(const BindingPlan& plan, std::vector<uint64_t>* workspace_bytes) {
  const CompiledGraph& cg = *graph_;
  workspace_bytes->assign(cg.tape.instrs.size(), 0);
  std::vector<Shape> operand_shapes;
  for (size_t i = 0; i < cg.tape.instrs.size(); ++i) {
    const Instr& in = cg.tape.instrs[i];
    if (in.kernel < 0) continue;
    operand_shapes.clear();
    for (SlotId s : cg.tape.OperandsOf(in)) operand_shapes.push_back(plan.slot_shapes[static_cast<size_t>(s)]);
    const CompiledKernel& ck = cg.kernels[static_cast<size_t>(in.kernel)];
    Result<size_t> ws = ck.kernel->Reshape(operand_shapes, plan.slot_shapes[static_cast<size_t>(in.dst)]);
    if (!ws.ok()) {
      const ir::Node& node = cg.graph.node(in.node);
      if (ck.ref) return ws.status();
      return interp::NodeFailure(cg.graph, node, ws.status());
    }
    // SIZE_MAX is an overflowed layout (WorkspaceLayout::total); anything
    // past 2^50 (the slot bound) could overflow the plan's own sums.
    if (*ws >= std::min<uint64_t>(std::numeric_limits<size_t>::max(), uint64_t{1} << 50)) {
      return interp::NodeFailure(cg.graph, cg.graph.node(in.node),
                                 ResourceExhausted("its workspace of " + std::to_string(*ws) +
                                                   " bytes is more than this platform can address"));
    }
    // Attention's intermediates ([B, h, S, S] scores) ask for gigabytes at
    // long sequences while every input and output stays small: the
    // per-tensor cap bounds each of them, as the interpreter's and the
    // written-out ops' (not the workspace, which holds several at once).
    const ir::Node& node = cg.graph.node(in.node);
    if ((node.op == ir::OpKind::kMultiHeadAttention || node.op == ir::OpKind::kTransformerBlock) &&
        !operand_shapes.empty() && node.type.is_tensor()) {
      const ir::AttrValue* heads = node.attr("n_heads");
      Status fits = runtime::CheckAttentionIntermediates(
          operand_shapes[0], heads != nullptr && heads->is_int() ? heads->as_int() : 1,
          node.op == ir::OpKind::kTransformerBlock, ir::StorageByteSize(ir::StorageOf(node.type.dtype())),
          options_.max_tensor_bytes);
      if (!fits.ok()) return interp::NodeFailure(cg.graph, node, fits);
    }
    (*workspace_bytes)[i] = *ws;
  }
  return Status::Ok();
}

Status Executor::Activate(int index) {
  CompiledGraph& cg = *graph_;
  BindingPlan& plan = *plans_[static_cast<size_t>(index)];
  if (active_ == index && kernels_ready_) return Status::Ok();
  kernels_ready_ = false;
  active_ = index;
  if (reshaped_for_ != index) {
    // Kernels were last reshaped for another binding.
    reshaped_for_ = -1;
    std::vector<uint64_t> ws;
    SHREW_RETURN_IF_ERROR(ReshapeKernels(plan, &ws));
    if (ws != plan.workspace_bytes) return Internal("kernel workspace sizes changed for a cached binding");
    reshaped_for_ = index;
  }
  if (plan.arena_size > arena_capacity_) {
    const uint64_t size = AlignUp(plan.arena_size, kDefaultAlignment);
    // size_t is 32 bits in wasm: a bigger arena must not wrap to a small one.
    if (size > std::numeric_limits<size_t>::max()) {
      return ResourceExhausted("graph '" + cg.name + "' needs an arena of " + std::to_string(size) +
                               " bytes, more than this platform can address");
    }
    // The old arena's contents are not needed (inputs are copied in after
    // Bind): freed first, so the two are never held at once.
    arena_.reset();
    arena_capacity_ = 0;
    std::byte* p = static_cast<std::byte*>(std::aligned_alloc(kDefaultAlignment, static_cast<size_t>(size)));
    if (p == nullptr) return ResourceExhausted("cannot allocate an arena of " + std::to_string(size) + " bytes");
    std::memset(p, 0, size);
    arena_.reset(p);
    arena_capacity_ = size;
  }
  std::byte* arena = arena_.get();
  cg.ref_env->dims = plan.dims;
  // Where every slot lives.
  for (size_t s = 0; s < slot_ptrs_.size(); ++s) slot_ptrs_[s] = nullptr;
  for (const Instr& in : cg.tape.instrs) {
    const size_t d = static_cast<size_t>(in.dst);
    switch (in.opcode) {
      case Opcode::kFree:
        break;
      case Opcode::kLoadParam: {
        const runtime::Tensor* t = cg.params[static_cast<size_t>(in.index)];
        if (t == nullptr) return FailedPrecondition("parameter of node '" + cg.graph.node(in.node).name + "' has no value");
        slot_ptrs_[d] = const_cast<std::byte*>(t->raw_data());
        break;
      }
      case Opcode::kConstant:
        slot_ptrs_[d] = const_cast<std::byte*>(cg.constants[static_cast<size_t>(in.index)].raw_data());
        break;
      case Opcode::kCopy:
        slot_ptrs_[d] = slot_ptrs_[static_cast<size_t>(cg.tape.operands[static_cast<size_t>(in.first_operand)])];
        break;
      default: {
        const int32_t b = plan.buffers.slot_buffer[d];
        SHREW_CHECK(b >= 0);
        slot_ptrs_[d] = arena + plan.plan.offsets[static_cast<size_t>(b)];
        break;
      }
    }
  }
  std::vector<const void*> operand_ptrs;
  for (size_t i = 0; i < cg.tape.instrs.size(); ++i) {
    const Instr& in = cg.tape.instrs[i];
    if (in.kernel < 0) continue;
    operand_ptrs.clear();
    for (SlotId s : cg.tape.OperandsOf(in)) operand_ptrs.push_back(slot_ptrs_[static_cast<size_t>(s)]);
    const int32_t wb = plan.buffers.workspace_buffer[i];
    void* ws = wb < 0 ? nullptr : arena + plan.plan.offsets[static_cast<size_t>(wb)];
    const CompiledKernel& ck = cg.kernels[static_cast<size_t>(in.kernel)];
    Status s = ck.kernel->Setup(operand_ptrs, slot_ptrs_[static_cast<size_t>(in.dst)], ws);
    if (!s.ok()) {
      return interp::NodeFailure(cg.graph, cg.graph.node(in.node), s);
    }
  }
  kernels_ready_ = true;
  return Status::Ok();
}

Status Executor::Bind(std::span<const Shape> input_shapes, const ir::DimBindings& dims) {
  if (input_shapes.size() != graph_->input_slots.size()) {
    return InvalidArgument("graph '" + graph_->name + "' takes " + std::to_string(graph_->input_slots.size()) +
                           " inputs, got " + std::to_string(input_shapes.size()) + " shapes");
  }
  Status s = value_shaped_ ? StageBinding(input_shapes, dims) : SelectPlan(input_shapes, dims, {});
  return s.ok() ? s : interp::GraphFailure(graph_->name, s);
}

Status Executor::SelectPlan(std::span<const Shape> input_shapes, const ir::DimBindings& dims,
                            std::span<const ir::Type> value_types) {
  auto same = [&](const BindingPlan& p) {
    if (p.dims != dims || !std::equal(p.value_types.begin(), p.value_types.end(), value_types.begin(),
                                      value_types.end())) {
      return false;
    }
    for (size_t i = 0; i < input_shapes.size(); ++i) {
      if (p.input_shapes[i] != input_shapes[i]) return false;
    }
    return true;
  };
  if (active_ >= 0 && kernels_ready_ && same(*plans_[static_cast<size_t>(active_)])) return Status::Ok();
  for (size_t k = 0; k < plans_.size(); ++k) {
    if (same(*plans_[k])) return Activate(static_cast<int>(k));
  }
  kernels_ready_ = false;
  active_ = -1;
  reshaped_for_ = -1;
  Result<std::unique_ptr<BindingPlan>> plan = MakePlan(input_shapes, dims, value_types);
  if (!plan.ok()) return plan.status();
  if (plans_.size() >= kMaxPlans) plans_.erase(plans_.begin());
  plans_.push_back(std::move(plan).value());
  // MakePlan reshaped the kernels for the new binding.
  reshaped_for_ = static_cast<int>(plans_.size()) - 1;
  return Activate(reshaped_for_);
}

Status Executor::StageBinding(std::span<const Shape> input_shapes, const ir::DimBindings& dims) {
  const CompiledGraph& cg = *graph_;
  if (value_binding_ != nullptr && value_binding_->dims == dims &&
      std::equal(input_shapes.begin(), input_shapes.end(), value_binding_->input_shapes.begin(),
                 value_binding_->input_shapes.end())) {
    return Status::Ok();
  }
  value_binding_.reset();
  staged_.clear();
  Result<ir::Graph> typed = Specialize(input_shapes, dims, {}, {});
  if (!typed.ok()) return typed.status();
  auto vb = std::make_unique<ValueBinding>();
  vb->input_shapes.assign(input_shapes.begin(), input_shapes.end());
  vb->dims = dims;
  vb->typed = std::move(typed).value();
  const ir::Graph& g = vb->typed;
  std::vector<uint8_t> in_closure(static_cast<size_t>(g.num_nodes()), 0);
  std::vector<ir::NodeId> stack;
  for (const ir::Node& n : g.nodes()) {
    if ((n.op == ir::OpKind::kRange || n.op == ir::OpKind::kCall) && !n.is_source() &&
        (!n.type.is_tensor() || !n.type.IsStatic())) {
      vb->roots.push_back(n.id);
      stack.push_back(n.id);
    }
  }
  while (!stack.empty()) {
    const ir::NodeId id = stack.back();
    stack.pop_back();
    if (in_closure[static_cast<size_t>(id)]) continue;
    in_closure[static_cast<size_t>(id)] = 1;
    for (ir::NodeId op : g.node(id).operands) stack.push_back(op);
  }
  for (ir::NodeId id = 0; id < g.num_nodes(); ++id) {
    if (!in_closure[static_cast<size_t>(id)]) continue;
    vb->closure.push_back(id);
    if (cg.training && g.node(id).op == ir::OpKind::kDropout) {
      // Its draws belong to the run; drawing them twice would change them.
      return Unimplemented("graph '" + cg.name + "': a shape depends on the values of the training-mode dropout '" +
                           g.node(id).name + "'; the tape cannot plan it (the interpreter can run it)");
    }
    if (cg.training && g.node(id).op == ir::OpKind::kCall) {
      // Probing runs the whole callee, and the call instruction runs it again.
      std::string graph_name;
      const ir::Node* d = DrawingDropout(options_.program, g.node(id).callee, &graph_name, 0);
      if (d != nullptr) {
        return Unimplemented("graph '" + cg.name + "': a shape needs the result of node '" + g.node(id).name +
                             "' (call[" + g.node(id).callee + "]), whose training-mode dropout '" + d->name +
                             "' (graph '" + graph_name + "') would draw twice; the tape cannot plan it (the "
                             "interpreter can run it)");
      }
    }
  }
  std::sort(vb->closure.begin(), vb->closure.end(), [&](ir::NodeId a, ir::NodeId b) {
    return cg.node_slot[static_cast<size_t>(a)] < cg.node_slot[static_cast<size_t>(b)];
  });
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const ir::Node& in = g.node(g.inputs()[i].node);
    Result<runtime::Tensor> t = runtime::Tensor::Zeros(in.type.dtype(), input_shapes[i]);
    if (!t.ok()) {
      return ResourceExhausted("input '" + in.name + "': out of memory for its staging buffer: " +
                               t.status().message());
    }
    staged_.push_back(std::move(t).value());
  }
  value_binding_ = std::move(vb);
  return Status::Ok();
}

Result<std::vector<ir::Type>> Executor::ProbeValueTypes() {
  const CompiledGraph& cg = *graph_;
  const ValueBinding& vb = *value_binding_;
  const ir::Graph& g = vb.typed;
  std::vector<runtime::Tensor> values(static_cast<size_t>(g.num_nodes()));
  std::vector<const runtime::Tensor*> value_of(static_cast<size_t>(g.num_nodes()), nullptr);
  for (size_t i = 0; i < g.inputs().size(); ++i) value_of[static_cast<size_t>(g.inputs()[i].node)] = &staged_[i];
  for (const Instr& in : cg.tape.instrs) {
    if (in.opcode == Opcode::kLoadParam) value_of[static_cast<size_t>(in.node)] = cg.params[static_cast<size_t>(in.index)];
  }
  interp::EvalContext ctx = cg.ref_env->ctx;
  ctx.dims = &vb.dims;
  std::vector<const runtime::Tensor*> operands;
  for (ir::NodeId id : vb.closure) {
    const size_t k = static_cast<size_t>(id);
    const ir::Node& node = g.node(id);
    if (value_of[k] == nullptr && cg.constant_of_node[k] >= 0) {
      value_of[k] = &cg.constants[static_cast<size_t>(cg.constant_of_node[k])];
    }
    if (value_of[k] != nullptr) continue;  // an input, parameter or constant
    if (node.is_source() && node.op != ir::OpKind::kConstant) {
      return FailedPrecondition("node '" + node.name + "' has no value");
    }
    operands.clear();
    for (ir::NodeId op : node.operands) operands.push_back(value_of[static_cast<size_t>(op)]);
    SHREW_RETURN_IF_ERROR(interp::CheckRangeFits(g, node, operands, options_.max_tensor_bytes));
    SHREW_RETURN_IF_ERROR(CheckProbedTypeFits(g, node, options_.max_tensor_bytes));
    Result<runtime::Tensor> v = interp::EvalNode(g, node, operands, ctx);
    if (!v.ok()) return v.status();
    values[k] = std::move(v).value();
    value_of[k] = &values[k];
  }
  std::vector<ir::Type> types;
  for (ir::NodeId id : vb.roots) {
    const runtime::Tensor& t = *value_of[static_cast<size_t>(id)];
    std::vector<ir::Dim> dims;
    for (int64_t d : t.shape()) dims.push_back(ir::Dim::Fixed(d));
    types.push_back(ir::Type::Tensor(std::move(dims), t.dtype()));
  }
  return types;
}

std::byte* Executor::input_data(int i) {
  if (value_shaped_) {
    SHREW_CHECK(value_binding_ != nullptr);
    return static_cast<std::byte*>(staged_[static_cast<size_t>(i)].mutable_raw_data());
  }
  SHREW_CHECK(active_ >= 0);
  return static_cast<std::byte*>(slot_ptrs_[static_cast<size_t>(graph_->input_slots[static_cast<size_t>(i)])]);
}

uint64_t Executor::input_bytes(int i) const {
  if (value_shaped_) {
    SHREW_CHECK(value_binding_ != nullptr);
    return staged_[static_cast<size_t>(i)].byte_size();
  }
  SHREW_CHECK(active_ >= 0);
  return plan()->slot_bytes[static_cast<size_t>(graph_->input_slots[static_cast<size_t>(i)])];
}

Status Executor::Run() {
  Status s = RunTape<false>({});
  return s.ok() ? s : interp::GraphFailure(graph_->name, s);
}

Status Executor::RunTimed(std::span<double> instruction_ns) {
  if (instruction_ns.size() != graph_->tape.instrs.size()) {
    return InvalidArgument("RunTimed needs one time per tape instruction");
  }
  Status s = RunTape<true>(instruction_ns);
  return s.ok() ? s : interp::GraphFailure(graph_->name, s);
}

Status Executor::BeginRun() {
  const CompiledGraph& cg = *graph_;
  if (value_shaped_) {
    if (value_binding_ == nullptr) return FailedPrecondition("graph '" + graph_->name + "' is not bound");
    ran_ = false;
    Result<std::vector<ir::Type>> types = ProbeValueTypes();
    if (!types.ok()) return types.status();
    SHREW_RETURN_IF_ERROR(SelectPlan(value_binding_->input_shapes, value_binding_->dims, *types));
    for (size_t i = 0; i < staged_.size(); ++i) {
      const SlotId s = cg.input_slots[i];
      void* dst = slot_ptrs_[static_cast<size_t>(s)];
      const uint64_t bytes = plan()->slot_bytes[static_cast<size_t>(s)];
      if (dst == nullptr || bytes == 0) continue;
      if (bytes != staged_[i].byte_size()) return Internal("input buffer size differs from its arena slot");
      std::memcpy(dst, staged_[i].raw_data(), bytes);
    }
  }
  if (active_ < 0 || !kernels_ready_) return FailedPrecondition("graph '" + graph_->name + "' is not bound");
  if (options_.check_slots) std::fill(slot_full_.begin(), slot_full_.end(), 0);
  ran_ = false;
  return Status::Ok();
}

// The loop alone is a template (Run and RunTimed): the prologue is
// BeginRun, once in the module; the instructions are read through locals.
template <bool kTimed>
Status Executor::RunTape(std::span<double> instruction_ns) {
  SHREW_RETURN_IF_ERROR(BeginRun());
  const CompiledGraph& cg = *graph_;
  const bool check = options_.check_slots;
  if constexpr (kTimed) std::fill(instruction_ns.begin(), instruction_ns.end(), 0.0);
  const Instr* const instrs = cg.tape.instrs.data();
  const size_t count = cg.tape.instrs.size();
  for (size_t i = 0; i < count; ++i) {
    const Instr& in = instrs[i];
    if (check) {
      for (SlotId s : cg.tape.OperandsOf(in)) {
        if (!slot_full_[static_cast<size_t>(s)]) return Internal("slot " + std::to_string(s) + " is empty");
      }
      slot_full_[static_cast<size_t>(in.dst)] = in.opcode != Opcode::kFree;
    }
    if (in.kernel < 0) continue;
    const CompiledKernel& ck = cg.kernels[static_cast<size_t>(in.kernel)];
    Status s;
    if constexpr (kTimed) {
      const auto t0 = std::chrono::steady_clock::now();
      s = ck.kernel->Run();
      instruction_ns[i] = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    } else {
      s = ck.kernel->Run();
    }
    if (!s.ok()) {
      if (ck.ref) return s;
      return interp::NodeFailure(cg.graph, cg.graph.node(in.node), s);
    }
  }
  ran_ = true;
  return Status::Ok();
}

const void* Executor::output_data(int o) const {
  return slot_ptrs_[static_cast<size_t>(graph_->outputs[static_cast<size_t>(o)].second)];
}

const Shape& Executor::output_shape(int o) const {
  return plan()->slot_shapes[static_cast<size_t>(graph_->outputs[static_cast<size_t>(o)].second)];
}

ir::DType Executor::output_dtype(int o) const {
  return plan()->slot_dtypes[static_cast<size_t>(graph_->outputs[static_cast<size_t>(o)].second)];
}

Result<runtime::Tensor> Executor::CopyOutput(int o) const {
  if (!ran_) return FailedPrecondition("graph '" + graph_->name + "' has not run");
  const SlotId s = graph_->outputs[static_cast<size_t>(o)].second;
  Result<runtime::Tensor> t = runtime::Tensor::Zeros(plan()->slot_dtypes[static_cast<size_t>(s)],
                                                     plan()->slot_shapes[static_cast<size_t>(s)]);
  if (!t.ok()) return t;
  if (t->byte_size() > 0) std::memcpy(t->mutable_raw_data(), slot_ptrs_[static_cast<size_t>(s)], t->byte_size());
  return t;
}

CompileStats Executor::stats() const {
  CompileStats st = graph_->stats;
  if (const BindingPlan* p = plan()) {
    st.num_reused = p->plan.num_reused;
    st.arena_bytes = p->plan.arena_bytes;
    st.arena_lower_bound = p->plan.lower_bound;
    st.arena_naive = p->plan.naive;
    st.num_in_place = p->buffers.num_in_place;
    st.num_aliases = p->buffers.num_aliases;
  }
  return st;
}

}  // namespace shrew::jit
