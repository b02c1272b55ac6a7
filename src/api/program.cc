#include "api/program.h"

#include <cstring>

#include "interp/interpreter.h"
#include "jit/binding.h"
#include "jit/compile.h"
#include "jit/dump.h"
#include "runtime/kernel_registry.h"

namespace shrew {
namespace {

using runtime::Tensor;
using runtime::TensorMap;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : ", ") + names[i];
  return s.empty() ? "(none)" : s;
}

Result<runtime::KernelPtr> FusedFactory(const runtime::KernelSpec& dense, ir::OpKind activation) {
  if (!runtime::CanFuseDenseActivation(dense.node->op, activation)) return runtime::KernelPtr();
  return runtime::CreateFusedDenseActivation(dense, activation);
}

// A static graph (every input shape known from the configuration) can be
// planned at build time, so its statistics show the arena before any run.
bool StaticInputShapes(const ir::Graph& g, const ir::DimBindings& dims, std::vector<runtime::Shape>* shapes) {
  for (const ir::GraphInput& in : g.inputs()) {
    const ir::Type& t = g.node(in.node).type;
    if (!t.is_tensor()) return false;
    for (const ir::Dim& d : t.dims()) {
      if (d.is_dynamic() || (d.is_symbolic() && dims.find(d.name()) == dims.end())) return false;
    }
    shapes->push_back(jit::ConcreteShape(t, dims, 0));
  }
  return true;
}

}  // namespace

Program::Program(ir::Program program, ProgramOptions options, uint64_t seed)
    : program_(std::move(program)), options_(std::move(options)), rng_(seed) {}

Program::~Program() = default;

Result<std::unique_ptr<Program>> Program::Create(const CompileResult& compiled, ProgramOptions options) {
  if (!compiled.ok) return FailedPrecondition("the program did not compile:\n" + compiled.RenderDiagnostics());
  const uint64_t seed = options.seed.value_or(compiled.seed);
  std::unique_ptr<Program> p(new Program(compiled.program, std::move(options), seed));
  SHREW_RETURN_IF_ERROR(p->Init());
  return p;
}

Result<std::unique_ptr<Program>> Program::Create(ir::Program program, ProgramOptions options) {
  const uint64_t seed = options.seed.value_or(0);
  std::unique_ptr<Program> p(new Program(std::move(program), std::move(options), seed));
  SHREW_RETURN_IF_ERROR(p->Init());
  return p;
}

Status Program::Init() {
  // The byte cap, for every parameter before any is allocated.
  for (const ir::Graph& g : program_.graphs) {
    for (const ir::Param& p : g.params()) {
      Result<runtime::Shape> shape = runtime::ResolveParamShape(p, options_.dims);
      if (!shape.ok()) continue;  // InitProgramParams reports it with its context
      Result<int64_t> count = runtime::CountElements(*shape);
      const uint64_t elem = ir::StorageByteSize(ir::StorageOf(p.type.dtype()));
      if (!count.ok() || (elem > 0 && static_cast<uint64_t>(*count) > options_.max_tensor_bytes / elem)) {
        return ResourceExhausted("parameter '" + p.name + "' of graph '" + g.name() + "' (" + ir::DTypeName(p.type.dtype()) +
                                 runtime::ShapeToString(*shape) + ") is over the limit of " +
                                 std::to_string(options_.max_tensor_bytes) + " bytes per tensor");
      }
    }
  }
  Result<runtime::ParamMap> params = runtime::InitProgramParams(program_, options_.dims, rng_);
  if (!params.ok()) return params.status();
  params_ = std::move(params).value();
  graphs_.resize(program_.graphs.size());
  for (size_t i = 0; i < graphs_.size(); ++i) SHREW_RETURN_IF_ERROR(CompileOne(i));
  return Status::Ok();
}

jit::CompileOptions Program::MakeCompileOptions(const ir::Graph& g) {
  jit::CompileOptions o;
  o.program = &program_;
  for (const ir::Param& p : g.params()) {
    auto it = params_.find(runtime::ParamKey(g.name(), p.name));
    o.params.push_back(it == params_.end() ? nullptr : &it->second);
  }
  o.training = options_.training;
  o.rng = &rng_;
  o.call = [this](std::string_view callee, std::span<const Tensor* const> operands) {
    return CallGraph(callee, operands);
  };
  o.default_float = options_.default_dtype;
  if (options_.native_kernels) {
    o.kernel_factory = [](const runtime::KernelSpec& spec) { return runtime::CreateKernel(spec); };
    o.fused_factory = &FusedFactory;
  }
  o.jit_fusion = options_.jit_fusion;
  return o;
}

Status Program::CompileOne(size_t index) {
  const ir::Graph& g = program_.graphs[index];
  Entry& e = graphs_[index];
  e.executor.reset();
  e.compiled.reset();
  Result<std::unique_ptr<jit::CompiledGraph>> cg = jit::CompileGraph(g, MakeCompileOptions(g));
  if (!cg.ok()) return Status(cg.status().code(), "graph '" + g.name() + "': " + cg.status().message());
  e.compiled = std::move(cg).value();
  jit::ExecutorOptions eo;
  eo.program = &program_;
  eo.default_float = options_.default_dtype;
  eo.verify_plans = options_.verify_plans;
  eo.check_slots = options_.check_slots;
  eo.max_tensor_bytes = options_.max_tensor_bytes;
  e.executor = std::make_unique<jit::Executor>(e.compiled.get(), eo);
  std::vector<runtime::Shape> shapes;
  if (StaticInputShapes(g, options_.dims, &shapes)) {
    // Plan now; a failure here resurfaces (with the input checks first) on Run.
    Status ignored = e.executor->Bind(shapes, options_.dims);
    (void)ignored;
  }
  return Status::Ok();
}

std::vector<std::string> Program::GraphNames() const {
  std::vector<std::string> names;
  for (const ir::Graph& g : program_.graphs) names.push_back(g.name());
  return names;
}

Result<size_t> Program::FindGraph(std::string_view name) const {
  for (size_t i = 0; i < program_.graphs.size(); ++i) {
    if (program_.graphs[i].name() == name) return i;
  }
  return NotFound("no compiled graph named '" + std::string(name) + "'; graphs: " + JoinNames(GraphNames()));
}

Result<TensorMap> Program::Run(std::string_view graph_name, const TensorMap& inputs) {
  Result<size_t> gi = FindGraph(graph_name);
  if (!gi.ok()) return gi.status();
  const ir::Graph& g = program_.graphs[*gi];
  Entry& e = graphs_[*gi];
  const std::string where = "graph '" + g.name() + "'";
  std::vector<std::string> input_names;
  for (const ir::GraphInput& in : g.inputs()) input_names.push_back(g.node(in.node).name);

  // 1. Names: every supplied input must be declared, every required one supplied.
  for (const auto& [name, t] : inputs) {
    bool known = false;
    for (const std::string& n : input_names) known |= n == name;
    if (!known) {
      return InvalidArgument(where + " has no input named '" + name + "'; its inputs are: " + JoinNames(input_names));
    }
  }
  std::vector<jit::InputDesc> descs(g.inputs().size());
  std::vector<const Tensor*> tensors(g.inputs().size(), nullptr);
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const ir::Node& node = g.node(g.inputs()[i].node);
    auto it = inputs.find(node.name);
    if (it == inputs.end()) {
      if (!g.inputs()[i].optional || e.compiled->input_read[i]) {
        return InvalidArgument("missing input '" + node.name + "' for " + where + " (expected " + node.type.ToString() +
                               ")");
      }
      continue;
    }
    const Tensor& t = it->second;
    // 2. Size cap, before anything else touches the data.
    if (t.byte_size() > options_.max_tensor_bytes) {
      return ResourceExhausted("input '" + node.name + "' of " + where + " is " + std::to_string(t.byte_size()) +
                               " bytes (" + t.TypeString() + "), over the limit of " +
                               std::to_string(options_.max_tensor_bytes) + " bytes");
    }
    descs[i] = {true, t.dtype(), t.shape()};
    tensors[i] = &t;
  }
  // 3. Dtypes, ranks, fixed sizes, symbolic consistency.
  Result<ir::DimBindings> dims = jit::BindInputs(g, options_.dims, descs);
  if (!dims.ok()) return dims.status();
  std::vector<runtime::Shape> shapes;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    shapes.push_back(tensors[i] != nullptr ? tensors[i]->shape()
                                           : jit::ConcreteShape(g.node(g.inputs()[i].node).type, *dims, 0));
  }
  jit::Executor& ex = *e.executor;
  SHREW_RETURN_IF_ERROR(ex.Bind(shapes, *dims));
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i] != nullptr && tensors[i]->byte_size() > 0) {
      std::memcpy(ex.input_data(static_cast<int>(i)), tensors[i]->raw_data(), tensors[i]->byte_size());
    }
  }
  SHREW_RETURN_IF_ERROR(ex.Run());
  TensorMap out;
  for (int o = 0; o < ex.num_outputs(); ++o) {
    Result<Tensor> t = ex.CopyOutput(o);
    if (!t.ok()) return t.status();
    out.insert_or_assign(e.compiled->outputs[static_cast<size_t>(o)].first, std::move(t).value());
  }
  return out;
}

Result<Tensor> Program::CallGraph(std::string_view callee, std::span<const Tensor* const> operands) {
  Result<size_t> gi = FindGraph(callee);
  if (!gi.ok()) return gi.status();
  const ir::Graph& g = program_.graphs[*gi];
  if (operands.size() != g.inputs().size()) {
    return InvalidArgument("call of graph '" + g.name() + "' with " + std::to_string(operands.size()) +
                           " operands for " + std::to_string(g.inputs().size()) + " inputs");
  }
  TensorMap in;
  for (size_t i = 0; i < operands.size(); ++i) {
    Result<Tensor> t = operands[i]->Clone();
    if (!t.ok()) return t.status();
    in.emplace(g.node(g.inputs()[i].node).name, std::move(t).value());
  }
  Result<TensorMap> out = Run(callee, in);
  if (!out.ok()) return out.status();
  auto it = out->find(g.outputs().front().name);
  if (it == out->end()) return Internal("graph '" + g.name() + "' produced no first output");
  return std::move(it->second);
}

Result<TensorMap> Program::Interpret(std::string_view graph, const TensorMap& inputs) {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  interp::InterpreterOptions io;
  io.training = options_.training;
  io.dims = options_.dims;
  io.default_float_dtype = options_.default_dtype;
  io.max_tensor_bytes = options_.max_tensor_bytes;
  interp::Interpreter interp(&program_, &params_, io, &rng_);
  Result<interp::RunResult> r = interp.Run(graph, inputs);
  if (!r.ok()) return r.status();
  TensorMap out;
  for (auto& [name, t] : r->outputs) out.insert_or_assign(name, std::move(t));
  return out;
}

std::vector<std::pair<std::string, const Tensor*>> Program::Params() const {
  std::vector<std::pair<std::string, const Tensor*>> v;
  for (const auto& [k, t] : params_) v.emplace_back(k, &t);
  return v;
}

Result<Tensor> Program::GetParam(std::string_view key) const {
  auto it = params_.find(key);
  if (it == params_.end()) return NotFound("no parameter '" + std::string(key) + "'");
  return it->second.Clone();
}

Status Program::SetParam(std::string_view key, const Tensor& value) {
  auto it = params_.find(key);
  if (it == params_.end()) return NotFound("no parameter '" + std::string(key) + "'");
  Tensor& p = it->second;
  if (value.dtype() != p.dtype() || value.shape() != p.shape()) {
    return InvalidArgument("parameter '" + std::string(key) + "': expected " + p.TypeString() + ", got " +
                           value.TypeString());
  }
  // In place: kernels and plans keep pointing at the same storage.
  if (p.byte_size() > 0) std::memcpy(p.mutable_raw_data(), value.raw_data(), p.byte_size());
  const size_t slash = key.find('/');
  const std::string_view graph = key.substr(0, slash);
  const std::string_view name = key.substr(slash + 1);
  for (size_t i = 0; i < program_.graphs.size(); ++i) {
    const ir::Graph& g = program_.graphs[i];
    if (g.name() != graph) continue;
    const int index = g.FindParam(name);
    if (index < 0) continue;
    Entry& e = graphs_[i];
    Status s = jit::RecreateKernelsForParam(e.compiled.get(), index, MakeCompileOptions(g));
    if (!s.ok()) {
      // The graph's kernels are in an unknown state: rebuild it whole.
      SHREW_RETURN_IF_ERROR(CompileOne(i));
      return s;
    }
    e.executor->Invalidate();
  }
  return Status::Ok();
}

Result<jit::CompileStats> Program::Stats(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  return graphs_[*gi].executor->stats();
}

Result<std::string> Program::Dump(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  return jit::DumpCompiledGraph(*graphs_[*gi].compiled, graphs_[*gi].executor.get());
}

Result<std::string> Program::PlanJson(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  return jit::DumpPlanJson(*graphs_[*gi].compiled, graphs_[*gi].executor.get());
}

Status Program::Recompile(std::string_view graph) {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  return CompileOne(*gi);
}

int Program::num_live_xnn_operators() const {
  int n = 0;
  for (const Entry& e : graphs_) n += e.compiled ? e.compiled->num_live_xnn_operators() : 0;
  return n;
}

jit::Executor* Program::executor(std::string_view graph) {
  Result<size_t> gi = FindGraph(graph);
  return gi.ok() ? graphs_[*gi].executor.get() : nullptr;
}

const jit::CompiledGraph* Program::compiled(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  return gi.ok() ? graphs_[*gi].compiled.get() : nullptr;
}

}  // namespace shrew
