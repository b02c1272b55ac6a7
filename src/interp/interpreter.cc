#include "interp/interpreter.h"

#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "interp/kernel.h"  // SHREW_TRY_ASSIGN
#include "ir/execution_order.h"
#include "ir/shapes.h"
#include "runtime/attention_intermediates.h"

namespace shrew::interp {
namespace {

using runtime::Tensor;

// Binds the symbolic dims of `type` that are still unbound from `t`'s shape
// (ranks must already agree).
void BindFrom(const ir::Type& type, const Tensor& t, ir::DimBindings* dims) {
  if (!type.is_tensor() || type.rank() != t.rank()) return;
  for (int i = 0; i < type.rank(); ++i) {
    const ir::Dim& d = type.dim(i);
    if (d.is_symbolic() && dims->find(d.name()) == dims->end()) dims->emplace(d.name(), t.dim(i));
  }
}

// Checks a bound value (input or parameter) against its declared type.
// `what` is "input 'x'" / "parameter 'w'". Only the storage dtype must match
// (OPS.md §1.3); symbolic dims must agree with their bindings.
Status CheckBound(const std::string& what, const ir::Type& type, const Tensor& t, const ir::DimBindings& dims) {
  if (!type.is_tensor()) return Status::Ok();
  auto mismatch = [&](const std::string& detail) {
    return InvalidArgument(what + ": expected " + type.ToString() + ", got " + t.TypeString() + " (" + detail + ")");
  };
  if (ir::StorageOf(type.dtype()) != t.storage()) {
    return mismatch(std::string("storage ") + ir::StorageTypeName(t.storage()) + ", expected " +
                    ir::StorageTypeName(ir::StorageOf(type.dtype())));
  }
  if (type.rank() != t.rank()) {
    return mismatch("rank " + std::to_string(t.rank()) + ", expected " + std::to_string(type.rank()));
  }
  for (int i = 0; i < type.rank(); ++i) {
    const ir::Dim& d = type.dim(i);
    if (d.is_fixed() && d.size() != t.dim(i)) {
      return mismatch("dimension " + std::to_string(i) + " is " + std::to_string(t.dim(i)) + ", expected " +
                      std::to_string(d.size()));
    }
    if (d.is_symbolic()) {
      auto it = dims.find(d.name());
      if (it != dims.end() && it->second != t.dim(i)) {
        return mismatch("dimension " + std::to_string(i) + " is " + std::to_string(t.dim(i)) + " but " + d.name() +
                        " is bound to " + std::to_string(it->second));
      }
    }
  }
  return Status::Ok();
}

// A computed value's type, as the tape's messages write one: Tensor<[2, 3], f32>.
ir::Type TypeOfValue(const Tensor& t) {
  std::vector<ir::Dim> dims;
  for (int64_t d : t.shape()) dims.push_back(ir::Dim::Fixed(d));
  return ir::Type::Tensor(std::move(dims), t.dtype());
}

Status OverCap(const ir::Graph& graph, const ir::Node& node, const std::string& type, uint64_t cap) {
  return ResourceExhausted(graph.NodeLabel(node) + " would be " + type +
                           ", over the limit of " + std::to_string(cap) + " bytes per tensor")
      .At(node.blame_span());
}

// The byte cap on a node whose type is known before evaluating it.
Status CheckTypeFits(const ir::Graph& graph, const ir::Node& node, const ir::Type& bound, uint64_t cap) {
  if (!bound.is_tensor()) return Status::Ok();
  const ir::ElementCount count = bound.NumElements();
  const uint64_t elem = ir::StorageByteSize(ir::StorageOf(bound.dtype()));
  // An overflowing product beside a size not known yet may still be empty
  // (`concat` of [2^31, 0, 2^33] twice is [2^31, ?, 2^33] here): the value tells.
  bool all_fixed = true;
  for (int i = 0; i < bound.rank(); ++i) all_fixed = all_fixed && bound.dim(i).is_fixed();
  if ((count.overflow() && all_fixed) || (count.known() && elem > 0 && static_cast<uint64_t>(count.value) > cap / elem)) {
    return OverCap(graph, node, bound.ToString(), cap);
  }
  return Status::Ok();
}

// The cap on the values an attention computes inside (its [B, h, S, S]
// scores), as the tape checks them (runtime/attention_intermediates.h).
Status CheckIntermediates(const ir::Graph& graph, const ir::Node& node, std::span<const Tensor* const> operands,
                          uint64_t cap) {
  if ((node.op != ir::OpKind::kMultiHeadAttention && node.op != ir::OpKind::kTransformerBlock) || operands.empty()) {
    return Status::Ok();
  }
  const ir::AttrValue* heads = node.attr("n_heads");
  Status fits = runtime::CheckAttentionIntermediates(
      operands[0]->shape(), heads != nullptr && heads->is_int() ? heads->as_int() : 1,
      node.op == ir::OpKind::kTransformerBlock, ir::StorageByteSize(ir::StorageOf(operands[0]->dtype())), cap);
  return fits.ok() ? fits : NodeFailure(graph, node, fits);
}

// True when `t` has `type`'s dtype and rank, its fixed dims and the bound
// symbolic ones (an unbound name or `?` fits any size).
bool Fits(const ir::Type& type, const Tensor& t, const ir::DimBindings& dims) {
  if (!type.is_tensor()) return true;
  bool ok = type.dtype() == t.dtype() && type.rank() == t.rank();
  for (int i = 0; ok && i < type.rank(); ++i) {
    const ir::Dim& d = type.dim(i);
    if (d.is_fixed()) {
      ok = d.size() == t.dim(i);
    } else if (d.is_symbolic()) {
      auto it = dims.find(d.name());
      ok = it == dims.end() || it->second == t.dim(i);
    }
  }
  return ok;
}

// Checks a computed value against its node's IR type and its declared one:
// inference refines a declared `[N]` to the `[3]` it infers, and only this
// run's binding of N (from another input) can contradict the declaration,
// as the tape's specialisation finds (T6).
// `carried`: a repeat iteration's operand 0 in this run, whose shape and
// dtype the iteration must keep (OPS.md §3.15) — its static type ([?])
// may not say (x1 * x0 of [1] and [4] carried [1] and gave [4]; the tape
// refused it, this returned it).
Status CheckComputed(const ir::Graph& graph, const ir::Node& node, const Tensor& t, const ir::DimBindings& dims,
                     const Tensor* carried) {
  if (node.repeat_iteration && carried != nullptr && (carried->shape() != t.shape() || carried->dtype() != t.dtype())) {
    return InvalidArgument(graph.NodeLabel(node) + ": " +
                           ir::RepeatChangesTypeMessage(ir::FixedType(carried->shape(), carried->dtype()),
                                                        ir::FixedType(t.shape(), t.dtype())))
        .At(node.blame_span());
  }
  // The last iteration of a typed repeat: the carried check above holds, so
  // a misfit is its declared type's (not "it carries [3, 2]" of an [S0, 2]
  // operand that was [1, 2]).
  if (node.repeat_iteration && carried != nullptr && node.declared_type && !Fits(*node.declared_type, t, dims)) {
    return InvalidArgument(graph.NodeLabel(node) + ": computed " + t.TypeString() + " does not match its declared type " +
                           node.declared_type->Bind(dims).ToString())
        .At(node.blame_span());
  }
  const bool declared = node.declared_type.has_value() && Fits(node.type, t, dims);
  const ir::Type& type = declared ? *node.declared_type : node.type;
  if (Fits(type, t, dims)) return Status::Ok();
  if (node.repeat_iteration && !declared) {  // its type is the carried one: say so, as the tape's check does
    return InvalidArgument(graph.NodeLabel(node) + ": " +
                           ir::RepeatChangesTypeMessage(type.Bind(dims), ir::FixedType(t.shape(), t.dtype())))
        .At(node.blame_span());
  }
  return InvalidArgument(graph.NodeLabel(node) + ": computed " + t.TypeString() +
                         " does not match its " + (declared ? "declared " : "") + "type " + type.Bind(dims).ToString())
      .At(node.blame_span());
}

// The type in a graph's header (`-> Tensor<…>`) is its first output's, as
// the tape's specialisation checks it (shapes.cc, CheckReturnType): only
// with the dims bound by this run can a symbolic header disagree.
Status CheckReturned(const ir::Graph& graph, const Tensor& t, const ir::DimBindings& dims) {
  if (!graph.return_type() || Fits(*graph.return_type(), t, dims)) return Status::Ok();
  // In the words (and at the place) of the tape's inference.
  const ir::GraphOutput& out = graph.outputs().front();
  return InvalidArgument("graph '" + graph.name() + "': the header declares -> " +
                         graph.return_type()->Bind(dims).ToString() + " but its first output '" + out.name + "' is " +
                         TypeOfValue(t).ToString())
      .At(out.span.valid() ? out.span : graph.span());
}

// Whether `node`'s declared type names a dim `dims` does not bind.
bool NamesUnboundDims(const ir::Node& node, const ir::DimBindings& dims) {
  if (!node.declared_type || !node.declared_type->is_tensor()) return false;
  for (const ir::Dim& d : node.declared_type->dims()) {
    if (d.is_symbolic() && dims.count(d.name()) == 0) return true;
  }
  return false;
}

// LANGUAGE.md §4.1: a name is one size in a graph. A declared name no
// binding fixes takes its size from the first declaration in source order
// (`node y: Tensor<[M]>` of a [2]); a later declaration of M is held to it,
// as the tape's inference holds it (shapes.cc). `shapes`: the computed
// shape of each node whose declaration names such a dim, by node id.
Status CheckNamedSizes(const ir::Graph& graph, const std::vector<std::optional<runtime::Shape>>& shapes,
                       const ir::DimBindings& dims) {
  std::map<std::string, std::pair<int64_t, ir::NodeId>, std::less<>> first;  // name -> (size, node)
  for (size_t id = 0; id < shapes.size(); ++id) {
    if (!shapes[id]) continue;
    const ir::Node& node = graph.node(static_cast<ir::NodeId>(id));
    const ir::Type& type = *node.declared_type;
    for (int i = 0; i < type.rank(); ++i) {
      const ir::Dim& d = type.dim(i);
      if (!d.is_symbolic() || dims.count(d.name()) != 0) continue;
      const int64_t size = (*shapes[id])[static_cast<size_t>(i)];
      auto [it, added] = first.emplace(d.name(), std::pair{size, node.id});
      if (added || it->second.first == size) continue;
      return InvalidArgument(graph.NodeLabel(node) + ": computed " + ir::DTypeName(type.dtype()) +
                             runtime::ShapeToString(*shapes[id]) + " does not match its declared type " +
                             type.Bind(dims).ToString() + ": dimension " + std::to_string(i) + " is " +
                             std::to_string(size) + " but " + d.name() + " is " + std::to_string(it->second.first) +
                             " (bound by node '" + graph.node(it->second.second).name + "')")
          .At(node.blame_span());
    }
  }
  return Status::Ok();
}

}  // namespace

const Tensor* RunResult::Find(std::string_view output) const {
  for (const auto& [name, t] : outputs) {
    if (name == output) return &t;
  }
  return nullptr;
}

const Tensor* Interpreter::ParamSource::Find(std::string_view param) const {
  if (by_name != nullptr) {
    auto it = by_name->find(param);
    return it == by_name->end() ? nullptr : &it->second;
  }
  if (by_key != nullptr) {
    auto it = by_key->find(runtime::ParamKey(graph, param));
    return it == by_key->end() ? nullptr : &it->second;
  }
  return nullptr;
}

Interpreter::Interpreter(const ir::Program* program, const runtime::ParamMap* params, InterpreterOptions options,
                         runtime::Rng* rng)
    : program_(program), params_(params), options_(std::move(options)), rng_(rng) {}

Result<RunResult> Interpreter::Run(std::string_view graph_name, const runtime::TensorMap& inputs) {
  const ir::Graph* g = program_ ? program_->FindGraph(graph_name) : nullptr;
  if (g == nullptr) return NotFound("no graph named '" + std::string(graph_name) + "'");
  ParamSource params;
  params.by_key = params_;
  params.graph = g->name();
  return RunNamedInputs(*g, inputs, params);
}

Result<RunResult> Interpreter::Run(const ir::Graph& graph, const runtime::TensorMap& inputs,
                                   const runtime::TensorMap& params) {
  ParamSource source;
  source.by_name = &params;
  source.graph = graph.name();
  return RunNamedInputs(graph, inputs, source);
}

Result<RunResult> Interpreter::RunNamedInputs(const ir::Graph& graph, const runtime::TensorMap& inputs,
                                              const ParamSource& params) {
  const std::string where = "graph '" + graph.name() + "': ";
  std::vector<const Tensor*> ordered;
  size_t found = 0;
  for (const ir::GraphInput& in : graph.inputs()) {
    if (!graph.HasNode(in.node)) return Internal(where + "input id " + std::to_string(in.node) + " is out of range");
    const std::string& name = graph.node(in.node).name;
    auto it = inputs.find(name);
    if (it == inputs.end() && !in.optional) return NotFound(where + "missing input '" + name + "'");
    ordered.push_back(it == inputs.end() ? nullptr : &it->second);
    found += it == inputs.end() ? 0 : 1;
  }
  if (found < inputs.size()) {  // some name is not an input: find the first
    std::unordered_map<std::string_view, size_t> declared;  // the map type the API's lookups use
    for (const ir::GraphInput& in : graph.inputs()) declared.emplace(graph.node(in.node).name, 0);
    for (const auto& [name, t] : inputs) {
      if (!declared.count(name)) return InvalidArgument(where + "unknown input '" + name + "' (not declared by the graph)");
    }
  }
  Result<RunResult> r = RunGraph(graph, ordered, params, 0, options_.keep_intermediates);
  if (!r.ok()) return GraphFailure(graph.name(), r.status());
  return r;
}

Result<Tensor> Interpreter::CallGraph(std::string_view callee, std::span<const Tensor* const> operands, int depth) {
  if (depth > options_.max_call_depth) {
    return ResourceExhausted("graph calls nested deeper than " + std::to_string(options_.max_call_depth) +
                             " (calling '" + std::string(callee) + "')");
  }
  const ir::Graph* g = program_ ? program_->FindGraph(callee) : nullptr;
  if (g == nullptr) return NotFound("no graph named '" + std::string(callee) + "'");
  // Optional inputs may be left out (null, or past the end; OPS.md §3.16):
  // they run as not supplied, an error only if the callee reads them.
  const std::vector<int> present =
      ir::PresentInputs(operands);
  if (operands.size() > g->inputs().size() || !ir::AcceptsCallBinding(*g, present)) {
    return InvalidArgument("graph '" + g->name() + "' has " + std::to_string(g->inputs().size()) + " inputs, got " +
                           std::to_string(present.size()) + " operands that do not bind every non-optional one");
  }
  std::vector<const Tensor*> all(operands.begin(), operands.end());
  all.resize(g->inputs().size(), nullptr);
  // One the callee reads is the call's fault: said at the call, as the tape says it.
  for (size_t i = 0; i < all.size(); ++i) {
    const ir::NodeId in = g->inputs()[i].node;
    if (all[i] == nullptr && g->inputs()[i].optional && ir::IsRead(*g, in)) {
      return InvalidArgument(ir::MissingInputMessage(*g, i, g->node(in).type));
    }
  }
  ParamSource params;
  params.by_key = params_;
  params.graph = g->name();
  Result<RunResult> r = RunGraph(*g, all, params, depth, /*keep_intermediates=*/false);
  if (!r.ok()) return GraphFailure(g->name(), r.status());
  if (r->outputs.empty()) return InvalidArgument("graph '" + g->name() + "' has no output");
  return std::move(r->outputs.front().second);
}

Result<RunResult> Interpreter::RunGraph(const ir::Graph& declared, std::span<const Tensor* const> inputs,
                                        const ParamSource& params, int depth, bool keep_intermediates) {
  // A graph with inputs of unknown type is typed for these inputs first (as
  // the JIT compiles it per input signature).
  ir::Graph typed;
  const bool retype = ir::TypesDependOnInputs(declared);
  // Dims: the configuration's, then those the inputs' declared types bind
  // (the typed copy below has fixed sizes only, so binding from it would
  // lose `N` of `n: Tensor<[N], f32>` and leave `expand(x, shape: [N])`
  // unresolved, where the tape binds it).
  ir::DimBindings bound = options_.dims;
  for (size_t i = 0; i < inputs.size() && i < declared.inputs().size(); ++i) {
    if (inputs[i] != nullptr) BindFrom(declared.node(declared.inputs()[i].node).type, *inputs[i], &bound);
  }
  std::vector<ir::NodeId> weak;  // literal constants left weak: weak in every re-inference
  auto infer = [&]() -> Status {
    for (ir::NodeId id : weak) typed.node(id).type = ir::Type::Unknown();
    diag::DiagnosticBag diags;
    ir::InferOptions io;
    io.default_float = options_.default_float_dtype;
    io.callee_bindings = &options_.dims;  // `bound` also holds the names this graph's inputs bound
    if (ir::SpecializeGraphTypes(&typed, program_, bound, &diags, io)) return Status::Ok();
    return ir::RunTimeShapeError(typed, diags);  // in the tape's words
  };
  if (retype) {
    std::vector<std::optional<ir::Type>> types(declared.inputs().size());
    for (size_t i = 0; i < types.size() && i < inputs.size(); ++i) {
      if (inputs[i] == nullptr) continue;
      std::vector<ir::Dim> dims;
      for (int64_t d : inputs[i]->shape()) dims.push_back(ir::Dim::Fixed(d));
      // A declared dtype stays (OPS.md §1.3): the tensor may hold its
      // storage type (u32 values as i64).
      const ir::Type& declared_type = declared.node(declared.inputs()[i].node).type;
      types[i] = ir::Type::Tensor(std::move(dims), declared_type.is_tensor() ? declared_type.dtype() : inputs[i]->dtype());
    }
    typed = ir::WithInputTypes(declared, types);
    weak = ir::WeakConstants(typed);
    SHREW_RETURN_IF_ERROR(infer());
  }
  const ir::Graph& graph = retype ? typed : declared;
  const int n = graph.num_nodes();
  std::vector<const Tensor*> value(static_cast<size_t>(n), nullptr);
  std::vector<std::optional<Tensor>> owned(static_cast<size_t>(n));
  RunResult result;
  result.dims = std::move(bound);
  ir::DimBindings& dims = result.dims;

  // Binds a caller's tensor to a source node, re-tagging it (one copy) when
  // its dtype is another one with the declared storage type (f32 for f16).
  auto bind = [&](ir::NodeId id, const Tensor* t, const ir::Type& type) -> Status {
    value[static_cast<size_t>(id)] = t;
    if (type.is_tensor() && t->dtype() != type.dtype()) {
      SHREW_TRY_ASSIGN(Tensor copy, t->Clone());
      SHREW_RETURN_IF_ERROR(copy.Retag(type.dtype()));
      owned[static_cast<size_t>(id)] = std::move(copy);
      value[static_cast<size_t>(id)] = &*owned[static_cast<size_t>(id)];
    }
    return Status::Ok();
  };

  // 1–2. Inputs: their dims are bound above (from the declared types, in
  // declaration order); check each.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) continue;
    const ir::Node& node = graph.node(graph.inputs()[i].node);
    // Against the declared type: a retyped graph's input has the supplied
    // one, which would hide a conflict of its names (P = 3, then 4). First:
    // a wrong shape is told as one even when it is also too large.
    const ir::Type& declared_type = declared.node(declared.inputs()[i].node).type;
    SHREW_RETURN_IF_ERROR(CheckBound("input '" + node.name + "'", declared_type, *inputs[i], dims));
    if (inputs[i]->byte_size() > options_.max_tensor_bytes) {
      return ResourceExhausted("input '" + node.name + "' is " + std::to_string(inputs[i]->byte_size()) + " bytes (" +
                               inputs[i]->TypeString() + "), over the limit of " +
                               std::to_string(options_.max_tensor_bytes) + " bytes");
    }
    SHREW_RETURN_IF_ERROR(bind(node.id, inputs[i], node.type));
  }
  for (const ir::Param& p : graph.params()) {
    if (!graph.HasNode(p.node)) return Internal("parameter '" + p.name + "' has no node");
    const Tensor* t = params.Find(p.name);
    if (t == nullptr) return NotFound("parameter '" + p.name + "' has no value");
    BindFrom(p.type, *t, &dims);
    SHREW_RETURN_IF_ERROR(CheckBound("parameter '" + p.name + "'", p.type, *t, dims));
    SHREW_RETURN_IF_ERROR(bind(p.node, t, p.type));
  }
  // A called graph's assertions on the dims this call bound (a run's own
  // are its caller's to check, before it starts).
  if (depth > 0 && options_.check_call) SHREW_RETURN_IF_ERROR(options_.check_call(declared, dims));

  // 3. Every node's remaining uses. Nodes no output reads run too, as on the
  // tape (PIPELINE.md §9): a dead training-mode dropout still draws, and a
  // dead node's run-time error is reported alike.
  std::vector<int> uses(static_cast<size_t>(n), 0);
  std::vector<bool> is_output(static_cast<size_t>(n), false);
  for (const ir::GraphOutput& out : graph.outputs()) {
    if (!graph.HasNode(out.node)) return Internal("output '" + out.name + "' names no node");
    is_output[static_cast<size_t>(out.node)] = true;
  }
  for (int id = n - 1; id >= 0; --id) {
    const ir::Node& node = graph.node(id);
    for (ir::NodeId op : node.operands) {
      if (op < 0 || op >= id) {
        return Internal("node '" + node.name + "' has operand " + std::to_string(op) +
                        ", which breaks the topological order");
      }
      ++uses[static_cast<size_t>(op)];
    }
  }

  EvalContext ctx;
  ctx.training = options_.training;
  ctx.rng = rng_;
  ctx.dims = &dims;
  ctx.default_float_dtype = options_.default_float_dtype;
  ctx.call = [this, depth](std::string_view callee, std::span<const Tensor* const> ops) {
    return CallGraph(callee, ops, depth + 1);
  };

  // A literal, or an expression of literals only (`1 + 2`), takes its dtype
  // from what it meets (OPS.md §1.3), which may be a call's result known
  // only once the call ran: in a graph with such a call it is evaluated when
  // first needed, after that call has pinned its type, not in turn with a
  // dtype it may not keep. (Dead ones and outputs run after the rest.)
  const std::vector<bool> deferred = retype ? ir::ProvisionalTypes(typed) : std::vector<bool>();
  auto is_deferred = [&](ir::NodeId id) { return !deferred.empty() && deferred[static_cast<size_t>(id)]; };
  std::vector<bool> evaluated(static_cast<size_t>(n), false);  // a freed value is not evaluated again
  std::vector<std::optional<runtime::Shape>> named_shapes;  // CheckNamedSizes'
  std::vector<const Tensor*> operands;
  auto evaluate = [&](ir::NodeId id) -> Status {
    const ir::Node& node = graph.node(id);
    evaluated[static_cast<size_t>(id)] = true;
    operands.clear();
    for (ir::NodeId op : node.operands) {
      const Tensor* t = value[static_cast<size_t>(op)];
      if (t == nullptr) {
        const ir::Node& src = graph.node(op);
        if (src.is_input()) {
          for (size_t i = 0; i < graph.inputs().size(); ++i) {
            if (graph.inputs()[i].node == op) {
              return InvalidArgument(ir::MissingInputMessage(graph, i, src.type, &node)).At(node.blame_span());
            }
          }
        }
        return Internal("node '" + src.name + "' has no value when node '" + node.name + "' needs it");
      }
      operands.push_back(t);
    }
    SHREW_RETURN_IF_ERROR(CheckTypeFits(graph, node, node.type.Bind(dims), options_.max_tensor_bytes));
    SHREW_RETURN_IF_ERROR(CheckIntermediates(graph, node, operands, options_.max_tensor_bytes));
    SHREW_RETURN_IF_ERROR(CheckRangeFits(graph, node, operands, options_.max_tensor_bytes));
    SHREW_TRY_ASSIGN(Tensor out, EvalNode(graph, node, operands, ctx));
    if (retype && node.op == ir::OpKind::kCall && !node.type.is_tensor()) {
      // The callee's result type is known now: pin it, infer what follows.
      std::vector<ir::Dim> d;
      for (int64_t s : out.shape()) d.push_back(ir::Dim::Fixed(s));
      ir::Node& call = typed.node(id);
      call.type = ir::Type::Tensor(std::move(d), out.dtype());
      call.declared_type = call.type;
      SHREW_RETURN_IF_ERROR(infer());
    }
    if (out.byte_size() > options_.max_tensor_bytes) {
      return OverCap(graph, node, TypeOfValue(out).ToString(), options_.max_tensor_bytes);
    }
    if (options_.check_node_types) {
      SHREW_RETURN_IF_ERROR(CheckComputed(graph, node, out, dims, operands.empty() ? nullptr : operands[0]));
      if (NamesUnboundDims(node, dims) && out.rank() == node.declared_type->rank()) {
        named_shapes.resize(static_cast<size_t>(n));
        named_shapes[static_cast<size_t>(id)] = out.shape();
      }
    }
    owned[static_cast<size_t>(id)] = std::move(out);
    value[static_cast<size_t>(id)] = &*owned[static_cast<size_t>(id)];
    // Free operands after their last use (values kept for outputs and
    // intermediates stay).
    for (ir::NodeId op : node.operands) {
      const size_t o = static_cast<size_t>(op);
      if (--uses[o] == 0 && !is_output[o] && !keep_intermediates && owned[o].has_value() &&
          !graph.node(op).is_source()) {
        owned[o].reset();
        value[o] = nullptr;
      }
    }
    return Status::Ok();
  };
  // Evaluates `id` after the deferred operands it needs (post-order, with an
  // explicit stack: a chain of literals can be as long as the program).
  std::vector<std::pair<ir::NodeId, size_t>> pending;
  auto evaluate_with_deferred = [&](ir::NodeId root) -> Status {
    pending.assign(1, {root, 0});
    while (!pending.empty()) {
      auto& [id, next] = pending.back();
      const ir::Node& node = graph.node(id);
      if (next < node.operands.size()) {
        const ir::NodeId op = node.operands[next++];
        if (!evaluated[static_cast<size_t>(op)] && is_deferred(op)) pending.push_back({op, 0});
        continue;
      }
      const ir::NodeId done = id;
      pending.pop_back();
      SHREW_RETURN_IF_ERROR(evaluate(done));
    }
    return Status::Ok();
  };

  // The tape's order (not id order): training-mode dropouts draw from the
  // generator in execution order, so the oracle must draw in the same one.
  const std::vector<ir::NodeId> order = ir::ExecutionOrder(graph);
  for (ir::NodeId id : order) {
    if (graph.node(id).is_source() || is_deferred(id)) continue;
    SHREW_RETURN_IF_ERROR(evaluate_with_deferred(id));
  }
  for (ir::NodeId id : order) {
    if (is_deferred(id) && !evaluated[static_cast<size_t>(id)]) SHREW_RETURN_IF_ERROR(evaluate_with_deferred(id));
  }

  if (!named_shapes.empty()) SHREW_RETURN_IF_ERROR(CheckNamedSizes(graph, named_shapes, dims));
  if (!graph.outputs().empty() && value[static_cast<size_t>(graph.outputs().front().node)] != nullptr) {
    SHREW_RETURN_IF_ERROR(CheckReturned(graph, *value[static_cast<size_t>(graph.outputs().front().node)], dims));
  }

  // 4. Outputs in order; a value named by several outputs is copied.
  std::vector<int> output_refs(static_cast<size_t>(n), 0);
  for (const ir::GraphOutput& out : graph.outputs()) ++output_refs[static_cast<size_t>(out.node)];
  if (keep_intermediates) {
    for (int id = 0; id < n; ++id) {
      const size_t i = static_cast<size_t>(id);
      if (owned[i].has_value() && !graph.node(id).is_source()) {
        SHREW_TRY_ASSIGN(Tensor copy, owned[i]->Clone());
        result.intermediates.insert_or_assign(graph.node(id).name, std::move(copy));
      }
    }
  }
  for (const ir::GraphOutput& out : graph.outputs()) {
    const size_t i = static_cast<size_t>(out.node);
    const Tensor* t = value[i];
    if (t == nullptr) return InvalidArgument("output '" + out.name + "' reads input '" + graph.node(out.node).name + "', which was not supplied");
    if (--output_refs[i] == 0 && owned[i].has_value() && !graph.node(out.node).is_source()) {
      result.outputs.emplace_back(out.name, std::move(*owned[i]));
      owned[i].reset();
      value[i] = nullptr;
    } else {
      SHREW_TRY_ASSIGN(Tensor copy, t->Clone());
      result.outputs.emplace_back(out.name, std::move(copy));
    }
  }
  return result;
}

}  // namespace shrew::interp
