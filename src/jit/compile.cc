#include "jit/compile.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "base/check.h"
#include "interp/eval.h"
#include "ir/op.h"
#include "ir/shapes.h"
#include "jit/call_kernel.h"
#include "ir/execution_order.h"
#include "jit/ref_kernel.h"
#include "jit/transpose_fold.h"

namespace shrew::jit {
namespace {

using ir::Node;
using ir::NodeId;
using ir::OpKind;

// The params() index of parameter node `id`, or -1.
int ParamOf(const CompiledGraph& cg, NodeId id) {
  return static_cast<size_t>(id) < cg.param_of_node.size() ? cg.param_of_node[static_cast<size_t>(id)] : -1;
}

// The nodes a kernel for `node` reads, in operand order: its operands, a
// folded transpose's source in the transpose's place (transpose_fold.h).
std::vector<NodeId> KernelOperands(const CompiledGraph& cg, const Node& node) {
  std::vector<NodeId> ops = node.operands;
  if (const NodeId t = cg.TransposedB(node.id); t != ir::kNoNode) ops[1] = cg.graph.node(t).operands[0];
  return ops;
}


// Whether a node runs as an alias of its first operand (no kernel).
bool IsAlias(const Node& node, bool training) {
  switch (node.op) {
    case OpKind::kIdentity:
    case OpKind::kReshape:
    case OpKind::kView:
      return true;
    case OpKind::kDropout: {
      const ir::AttrValue* p = node.attr("p");
      const double pv = (p != nullptr && p->is_number()) ? p->as_float() : 0.0;
      // An invalid p runs the reference kernel so the run reports it.
      if (!(pv >= 0.0 && pv < 1.0)) return false;
      return !training || pv == 0.0;
    }
    default:
      return false;
  }
}

bool IsFusableProducer(OpKind op) { return op == OpKind::kFusedMatmulAdd || op == OpKind::kLinear; }
bool IsActivation(OpKind op) {
  return op == OpKind::kRelu || op == OpKind::kGelu || op == OpKind::kSilu || op == OpKind::kSigmoid ||
         op == OpKind::kTanh;
}

Status CheckCompilable(const ir::Graph& graph, const Node& node) {
  if (node.is_source()) return Status::Ok();
  switch (node.op) {
    case OpKind::kCustom:
      return Unimplemented("custom op '" + node.callee + "' has no kernel");
    case OpKind::kRepeat:
      return FailedPrecondition("node '" + node.name + "' (repeat): graph not materialised");
    case OpKind::kMultiHeadAttention:
    case OpKind::kTransformerBlock:
      if (node.operands.size() == 1) {
        return FailedPrecondition("node '" + node.name + "' (" + ir::OpName(node.op) +
                                  "): graph not materialised (implicit parameters missing)");
      }
      return Status::Ok();
    case OpKind::kIdentity:
      if (node.operands.empty()) return FailedPrecondition("node '" + node.name + "': identity without operand");
      return Status::Ok();
    default:
      break;
  }
  if (!node.type.is_tensor()) {
    return FailedPrecondition("node '" + node.name + "' (" + ir::OpName(node.op) + "): type unknown after shape inference");
  }
  for (NodeId op : node.operands) {
    if (!graph.HasNode(op) || !graph.node(op).type.is_tensor()) {
      return FailedPrecondition("node '" + node.name + "': operand type unknown after shape inference");
    }
  }
  return Status::Ok();
}

// Creates the kernel for `node` (native if the factory has one, else ref).
Result<CompiledKernel> CreateNodeKernel(CompiledGraph& cg, const Node& node, const CompileOptions& options) {
  CompiledKernel ck;
  ck.node = node.id;
  runtime::KernelSpec spec = MakeKernelSpec(cg, node, options.training);
  const std::vector<NodeId> operands = KernelOperands(cg, node);
  for (size_t i = 0; i < operands.size(); ++i) {
    const Node& op = cg.graph.node(operands[i]);
    // A call hands its operands to the callee at each run: it packs nothing,
    // and there is no kernel factory to re-create it with on SetParam.
    if (node.op != OpKind::kCall && op.is_param() && spec.constant_operands[i] != nullptr) {
      ck.constant_params.push_back(ParamOf(cg, op.id));
    }
  }
  if (node.op == OpKind::kCall && options.callee_executor && options.program != nullptr) {
    for (size_t i = 0; i < options.program->graphs.size(); ++i) {
      const ir::Graph& callee = options.program->graphs[i];
      if (callee.name() != node.callee) continue;
      std::vector<int> indices = ir::CallInputIndices(node);
      if (!ir::AcceptsCallBinding(callee, indices) || callee.outputs().empty()) break;
      // A callee whose result shape depends on values is known only by
      // running it: it runs through `call`. (One whose types depend on its
      // inputs runs on the executor compiled for the call's operands.)
      if (ir::ShapesDependOnValues(callee, options.program)) break;
      std::vector<ir::DType> dtypes;
      for (NodeId op : node.operands) dtypes.push_back(cg.graph.node(op).type.dtype());
      ck.kernel = MakeCallKernel(&callee, static_cast<int>(i), options.callee_executor, options.config_dims,
                                 std::move(dtypes), std::move(indices),
                                 CallResult{node.type.dtype(), node.repeat_iteration}, options.check_call);
      return ck;
    }
  }
  if (options.kernel_factory && node.op != OpKind::kCall) {
    Result<runtime::KernelPtr> k = options.kernel_factory(spec);
    if (!k.ok() && k.status().code() != StatusCode::kUnimplemented) return interp::NodeFailure(cg.graph, node, k.status());
    if (k.ok() && k.value() != nullptr) {
      ck.kernel = std::move(k).value();
      return ck;
    }
  }
  std::vector<ir::DType> dtypes;
  for (NodeId op : node.operands) dtypes.push_back(cg.graph.node(op).type.dtype());
  ck.kernel = MakeRefKernel(&cg.graph, &cg.graph.node(node.id), std::move(dtypes), node.type.dtype(),
                            cg.ref_env.get());
  ck.ref = true;
  return ck;
}

}  // namespace

int CompiledGraph::num_live_xnn_operators() const {
  int n = 0;
  for (const CompiledKernel& k : kernels) n += k.kernel ? k.kernel->num_xnn_operators() : 0;
  return n;
}

runtime::KernelSpec MakeKernelSpec(const CompiledGraph& cg, const Node& node, bool training) {
  runtime::KernelSpec spec;
  spec.node = &cg.graph.node(node.id);
  spec.output_dtype = node.type.is_tensor() ? node.type.dtype() : ir::DType::kF32;
  spec.training = training;
  spec.rng = cg.ref_env != nullptr ? cg.ref_env->ctx.rng : nullptr;
  spec.b_transposed = cg.TransposedB(node.id) != ir::kNoNode;
  std::vector<NodeId> operands = KernelOperands(cg, node);
  for (NodeId id : operands) {
    const Node& op = cg.graph.node(id);
    spec.operand_dtypes.push_back(op.type.is_tensor() ? op.type.dtype() : ir::DType::kF32);
    const runtime::Tensor* constant = nullptr;
    if (op.is_param()) {
      const int p = ParamOf(cg, id);
      if (p >= 0 && static_cast<size_t>(p) < cg.params.size()) constant = cg.params[static_cast<size_t>(p)];
    } else if (op.op == OpKind::kConstant && !op.is_source()) {
      // Constants are materialised before any kernel is created.
      const int32_t c = static_cast<size_t>(id) < cg.constant_of_node.size() ? cg.constant_of_node[static_cast<size_t>(id)] : -1;
      if (c >= 0) constant = &cg.constants[static_cast<size_t>(c)];
    }
    spec.constant_operands.push_back(constant);
  }
  spec.operand_label = [graph = &cg.graph, operands = std::move(operands)](size_t i) {
    return i < operands.size() ? graph->ValueLabel(graph->node(operands[i])) : "#" + std::to_string(i);
  };
  return spec;
}

Result<std::unique_ptr<CompiledGraph>> CompileGraph(const ir::Graph& graph, const CompileOptions& options,
                                                    ir::NodeId* failed_node) {
  const auto start = std::chrono::steady_clock::now();
  auto fail_at = [failed_node](NodeId id, Status s) {
    if (failed_node != nullptr) *failed_node = id;
    return s;
  };
  auto cg = std::make_unique<CompiledGraph>();
  cg->name = graph.name();
  cg->graph = graph;
  cg->training = options.training;
  cg->params = options.params;
  cg->params.resize(graph.params().size(), nullptr);
  cg->ref_env = std::make_unique<RefEnv>();
  cg->ref_env->ctx.training = options.training;
  cg->ref_env->ctx.rng = options.rng;
  cg->ref_env->ctx.call = options.call;
  cg->ref_env->ctx.default_float_dtype = options.default_float;
  cg->ref_env->ctx.dims = &cg->ref_env->dims;
  const ir::Graph& g = cg->graph;

  for (const Node& node : g.nodes()) {
    Status s = CheckCompilable(g, node);
    if (!s.ok()) return fail_at(node.id, s);
  }
  const std::vector<NodeId> order = ir::ExecutionOrder(g);
  if (static_cast<int>(order.size()) != g.num_nodes()) return FailedPrecondition("graph '" + g.name() + "' contains a cycle");
  cg->num_slots = g.num_nodes();
  cg->slot_node = order;
  cg->node_slot.assign(order.size(), kNoSlot);
  for (size_t s = 0; s < order.size(); ++s) cg->node_slot[static_cast<size_t>(order[s])] = static_cast<SlotId>(s);

  std::vector<int> input_index(order.size(), -1);
  for (size_t i = 0; i < g.inputs().size(); ++i) input_index[static_cast<size_t>(g.inputs()[i].node)] = static_cast<int>(i);
  std::vector<uint8_t> is_output(order.size(), 0);
  for (const ir::GraphOutput& o : g.outputs()) is_output[static_cast<size_t>(o.node)] = 1;
  const std::vector<int> consumers = g.ConsumerCounts();

  // Materialise constants first: kernels may pack them.
  std::vector<int> constant_index(order.size(), -1);
  for (NodeId id : order) {
    const Node& node = g.node(id);
    if (node.is_source() || node.op != OpKind::kConstant) continue;
    Result<runtime::Tensor> t = interp::EvalNode(g, node, {}, cg->ref_env->ctx);
    if (!t.ok()) return fail_at(id, t.status());
    constant_index[static_cast<size_t>(id)] = static_cast<int>(cg->constants.size());
    cg->constants.push_back(std::move(t).value());
  }
  cg->constant_of_node.assign(constant_index.begin(), constant_index.end());
  // By node, not by name (Graph::FindParam scans: quadratic over the params).
  cg->param_of_node.assign(order.size(), -1);
  for (size_t p = 0; p < g.params().size(); ++p) {
    cg->param_of_node[static_cast<size_t>(g.params()[p].node)] = static_cast<int32_t>(p);
  }
  cg->transposed_b.assign(order.size(), ir::kNoNode);
  // The constant instructions must exist for MakeKernelSpec's lookup; emit
  // the tape in two passes: structure first, kernels second.
  std::vector<NodeId> fused_into(order.size(), ir::kNoNode);  // producer -> activation node
  std::vector<NodeId> fused_from(order.size(), ir::kNoNode);  // activation -> producer
  Tape& tape = cg->tape;
  int time = 0;
  for (NodeId id : order) {
    const Node& node = g.node(id);
    Instr in;
    in.node = id;
    in.dst = cg->node_slot[static_cast<size_t>(id)];
    if (node.is_input()) {
      in.opcode = Opcode::kLoadInput;
      in.index = input_index[static_cast<size_t>(id)];
    } else if (node.is_param()) {
      in.opcode = Opcode::kLoadParam;
      in.index = cg->param_of_node[static_cast<size_t>(id)];
    } else if (node.op == OpKind::kConstant) {
      in.opcode = Opcode::kConstant;
      in.index = constant_index[static_cast<size_t>(id)];
    } else if (IsAlias(node, options.training)) {
      in.opcode = Opcode::kCopy;
    } else {
      in.opcode = node.op == OpKind::kCall ? Opcode::kCall : Opcode::kCompute;
    }
    if (in.opcode == Opcode::kCopy || in.opcode == Opcode::kCompute || in.opcode == Opcode::kCall) {
      in.first_operand = static_cast<int32_t>(tape.operands.size());
      const size_t n = in.opcode == Opcode::kCopy ? 1 : node.operands.size();
      for (size_t k = 0; k < n; ++k) tape.operands.push_back(cg->node_slot[static_cast<size_t>(node.operands[k])]);
      in.num_operands = static_cast<int32_t>(n);
    }
    in.time = time++;
    tape.instrs.push_back(in);
  }

  // JIT-level fusion: act(producer) where the producer has one consumer and
  // is not an output becomes one instruction at the activation's position.
  // A product whose b is a foldable transpose (transpose_fold.h) reads its
  // source instead when its kernel, fused or not, is made so.
  const std::vector<NodeId> foldable = options.jit_fusion && options.kernel_factory
                                           ? FindTransposedOperands(g, consumers, is_output)
                                           : std::vector<NodeId>(order.size(), ir::kNoNode);
  std::map<NodeId, runtime::KernelPtr> fused_kernels;
  if (options.jit_fusion && options.fused_factory) {
    for (NodeId id : order) {
      const Node& act = g.node(id);
      if (act.is_source() || !IsActivation(act.op) || act.operands.size() != 1) continue;
      const NodeId pid = act.operands[0];
      const Node& prod = g.node(pid);
      if (prod.is_source() || !IsFusableProducer(prod.op) || consumers[static_cast<size_t>(pid)] != 1 ||
          is_output[static_cast<size_t>(pid)]) {
        continue;
      }
      // With the product's transpose folded when it has one and the fused
      // kernel takes it so; else (or failing that) as it is.
      const NodeId fold = foldable[static_cast<size_t>(pid)];
      Result<runtime::KernelPtr> k = runtime::KernelPtr();
      for (const NodeId t : {fold, ir::kNoNode}) {
        cg->transposed_b[static_cast<size_t>(pid)] = t;
        k = options.fused_factory(MakeKernelSpec(*cg, prod, options.training), act.op);
        if ((k.ok() && k.value() != nullptr) || t == ir::kNoNode) break;
      }
      if (!k.ok() && k.status().code() != StatusCode::kUnimplemented) {
        return fail_at(id, interp::NodeFailure(g, act, k.status()));
      }
      if (!k.ok() || k.value() == nullptr) continue;
      fused_kernels[id] = std::move(k).value();
      fused_into[static_cast<size_t>(pid)] = id;
      fused_from[static_cast<size_t>(id)] = pid;
    }
  }
  // The other products with a foldable b: folded when their factory makes
  // the kernel so (else the transpose runs as it is).
  std::map<NodeId, CompiledKernel> folded_kernels;
  std::vector<uint8_t> folded_away(order.size(), 0);  // a transpose read through by its product
  for (NodeId id : order) {
    const size_t k = static_cast<size_t>(id);
    if (foldable[k] != ir::kNoNode && fused_into[k] == ir::kNoNode) {
      cg->transposed_b[k] = foldable[k];
      Result<CompiledKernel> ck = CreateNodeKernel(*cg, g.node(id), options);
      if (ck.ok() && !ck->ref && ck->kernel != nullptr) {
        folded_kernels[id] = std::move(ck).value();
      } else {
        cg->transposed_b[k] = ir::kNoNode;
      }
    }
    if (cg->transposed_b[k] != ir::kNoNode) folded_away[static_cast<size_t>(cg->transposed_b[k])] = 1;
  }
  if (!fused_kernels.empty() || std::find(folded_away.begin(), folded_away.end(), 1) != folded_away.end()) {
    // Rebuild the tape: drop fused producers and folded transposes, give
    // the producers' operands to their activations.
    Tape fused;
    int t = 0;
    for (const Instr& old : tape.instrs) {
      if (fused_into[static_cast<size_t>(old.node)] != ir::kNoNode || folded_away[static_cast<size_t>(old.node)]) {
        continue;
      }
      Instr in = old;
      in.time = t++;
      const NodeId pid = fused_from[static_cast<size_t>(old.node)];
      in.first_operand = static_cast<int32_t>(fused.operands.size());
      if (pid != ir::kNoNode || cg->transposed_b[static_cast<size_t>(old.node)] != ir::kNoNode) {
        if (pid != ir::kNoNode) in.fused_node = pid;
        const std::vector<NodeId> ops = KernelOperands(*cg, g.node(pid != ir::kNoNode ? pid : old.node));
        for (NodeId op : ops) fused.operands.push_back(cg->node_slot[static_cast<size_t>(op)]);
        in.num_operands = static_cast<int32_t>(ops.size());
      } else {
        for (SlotId s : tape.OperandsOf(old)) fused.operands.push_back(s);
      }
      fused.instrs.push_back(in);
    }
    cg->tape = std::move(fused);
  }

  // Kernels, in tape order.
  for (Instr& in : cg->tape.instrs) {
    if (in.opcode != Opcode::kCompute && in.opcode != Opcode::kCall) continue;
    const Node& node = g.node(in.node);
    if (in.fused_node != ir::kNoNode) {
      CompiledKernel ck;
      ck.kernel = std::move(fused_kernels[in.node]);
      ck.node = in.node;
      ck.fused_node = in.fused_node;
      for (NodeId op : KernelOperands(*cg, g.node(in.fused_node))) {
        if (g.node(op).is_param()) ck.constant_params.push_back(ParamOf(*cg, op));
      }
      in.kernel = static_cast<int32_t>(cg->kernels.size());
      cg->kernels.push_back(std::move(ck));
      continue;
    }
    if (auto folded = folded_kernels.find(in.node); folded != folded_kernels.end()) {
      in.kernel = static_cast<int32_t>(cg->kernels.size());
      cg->kernels.push_back(std::move(folded->second));
      continue;
    }
    Result<CompiledKernel> ck = CreateNodeKernel(*cg, node, options);
    if (!ck.ok()) return fail_at(in.node, ck.status());
    in.kernel = static_cast<int32_t>(cg->kernels.size());
    cg->kernels.push_back(std::move(ck).value());
  }

  // Which kernels each parameter was handed to (RecreateKernelsForParams).
  cg->param_kernel_begin.assign(g.params().size() + 1, 0);
  for (const CompiledKernel& ck : cg->kernels) {
    for (int p : ck.constant_params) {
      if (p >= 0) ++cg->param_kernel_begin[static_cast<size_t>(p) + 1];
    }
  }
  for (size_t p = 0; p < g.params().size(); ++p) cg->param_kernel_begin[p + 1] += cg->param_kernel_begin[p];
  cg->param_kernels.assign(cg->param_kernel_begin.back(), 0);
  {
    std::vector<uint32_t> next(cg->param_kernel_begin.begin(), cg->param_kernel_begin.end() - 1);
    for (size_t k = 0; k < cg->kernels.size(); ++k) {
      for (int p : cg->kernels[k].constant_params) {
        if (p >= 0) cg->param_kernels[next[static_cast<size_t>(p)]++] = static_cast<int32_t>(k);
      }
    }
  }

  // Inputs, outputs, lifetimes, frees.
  cg->input_slots.clear();
  std::vector<int32_t> input_of_slot(static_cast<size_t>(cg->num_slots), -1);
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const SlotId s = cg->node_slot[static_cast<size_t>(g.inputs()[i].node)];
    cg->input_slots.push_back(s);
    if (s >= 0 && s < cg->num_slots) input_of_slot[static_cast<size_t>(s)] = static_cast<int32_t>(i);
  }
  cg->input_read.assign(g.inputs().size(), 0);
  // An input counts as read when an instruction reads its slot or it is an output.
  auto mark_read = [&](SlotId s) {
    if (s >= 0 && s < cg->num_slots && input_of_slot[static_cast<size_t>(s)] >= 0) {
      cg->input_read[static_cast<size_t>(input_of_slot[static_cast<size_t>(s)])] = 1;
    }
  };
  std::vector<SlotId> output_slots;
  for (const ir::GraphOutput& o : g.outputs()) {
    const SlotId s = cg->node_slot[static_cast<size_t>(o.node)];
    cg->outputs.emplace_back(o.name, s);
    output_slots.push_back(s);
    mark_read(s);
  }
  for (const Instr& in : cg->tape.instrs) {
    for (SlotId s : cg->tape.OperandsOf(in)) mark_read(s);
  }
  cg->lifetimes = ComputeLifetimes(cg->tape, cg->slot_node, output_slots);
  CompileStats& st = cg->stats;
  st.num_frees = InsertFrees(&cg->tape, cg->lifetimes);
  st.num_instructions = static_cast<int>(cg->tape.instrs.size());
  st.num_source_nodes = g.num_nodes();
  st.num_slots = cg->num_slots;
  for (const Instr& in : cg->tape.instrs) {
    if (in.opcode == Opcode::kFree) continue;
    if (in.fused_node != ir::kNoNode || ir::HasFlag(g.node(in.node).op, ir::kFlagFused) ||
        cg->TransposedB(in.node) != ir::kNoNode) {
      ++st.num_fused;
    }
  }
  for (const CompiledKernel& k : cg->kernels) st.num_ref_kernels += k.ref ? 1 : 0;
  st.compile_time_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start)
                           .count();
  return cg;
}

Status RecreateKernelsForParams(CompiledGraph* cg, std::span<const int> params, const CompileOptions& options) {
  // int32_t: the one std::sort instantiation the module already has (wasm bytes).
  std::vector<int32_t> todo;
  const size_t num_params = cg->param_kernel_begin.empty() ? 0 : cg->param_kernel_begin.size() - 1;
  for (int p : params) {
    if (p < 0 || static_cast<size_t>(p) >= num_params) continue;
    todo.insert(todo.end(), cg->param_kernels.begin() + cg->param_kernel_begin[static_cast<size_t>(p)],
                cg->param_kernels.begin() + cg->param_kernel_begin[static_cast<size_t>(p) + 1]);
  }
  // A kernel reading two changed parameters is re-created once.
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  for (int32_t k : todo) {
    CompiledKernel& ck = cg->kernels[static_cast<size_t>(k)];
    if (ck.ref) continue;
    if (ck.fused_node != ir::kNoNode) {
      const ir::Node& prod = cg->graph.node(ck.fused_node);
      Result<runtime::KernelPtr> made =
          options.fused_factory(MakeKernelSpec(*cg, prod, options.training), cg->graph.node(ck.node).op);
      if (!made.ok()) return interp::NodeFailure(cg->graph, prod, made.status());
      if (made.value() == nullptr) return Internal("fused kernel for '" + prod.name + "' is no longer offered");
      ck.kernel = std::move(made).value();
      continue;
    }
    const ir::Node& node = cg->graph.node(ck.node);
    Result<runtime::KernelPtr> made = options.kernel_factory(MakeKernelSpec(*cg, node, options.training));
    if (!made.ok()) return interp::NodeFailure(cg->graph, node, made.status());
    if (made.value() == nullptr) return Internal("kernel for '" + node.name + "' is no longer offered");
    ck.kernel = std::move(made).value();
  }
  return Status::Ok();
}

}  // namespace shrew::jit
