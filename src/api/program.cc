#include "api/program.h"

#include "api/prepared_run.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "api/assertions.h"
#include "api/input_ranges.h"
#include "api/param_blob.h"
#include "base/spelling.h"
#include "interp/eval.h"
#include "interp/interpreter.h"
#include "jit/binding.h"
#include "jit/compile.h"
#include "jit/dump.h"
#include "opt/pipeline.h"
#include "runtime/kernel_registry.h"

namespace shrew {
namespace {

using runtime::Tensor;
using runtime::TensorMap;

// Input i of g is required (not supplied, or left out while the graph reads it).
[[gnu::noinline, gnu::cold]] Status MissingInput(const ir::Graph& g, size_t i, jit::InputIssue* issue) {
  const ir::Node& node = g.node(g.inputs()[i].node);
  if (issue != nullptr) *issue = {node.name, node.type.ToString(), ""};
  // An optional one is missing because a node reads it: name it and point
  // there (one search for both).
  const ir::Node* reader = g.inputs()[i].optional ? ir::FirstReaderOf(g, node.id) : nullptr;
  Status missing = InvalidArgument(ir::MissingInputMessage(g, i, node.type, reader));
  return reader != nullptr ? std::move(missing).At(reader->span) : missing;
}

Result<runtime::KernelPtr> FusedFactory(const runtime::KernelSpec& dense, ir::OpKind activation) {
  if (!runtime::CanFuseDenseActivation(dense.node->op, activation)) return runtime::KernelPtr();
  return runtime::CreateFusedDenseActivation(dense, activation);
}

// A static graph (every input shape known from the configuration) can be
// planned at build time, so its statistics show the arena before any run.
// `specs` (optional) also receives each input's name and declared dtype.
bool StaticInputShapes(const ir::Graph& g, const ir::DimBindings& dims, std::vector<runtime::Shape>* shapes,
                       std::vector<InputSpec>* specs) {
  for (const ir::GraphInput& in : g.inputs()) {
    const ir::Node& n = g.node(in.node);
    const ir::Type& t = n.type;
    if (!t.is_tensor()) return false;
    for (const ir::Dim& d : t.dims()) {
      if (d.is_dynamic() || (d.is_symbolic() && dims.find(d.name()) == dims.end())) return false;
    }
    shapes->push_back(jit::ConcreteShape(t, dims, 0));
    if (specs != nullptr) specs->push_back({n.name, t.dtype(), shapes->back()});
  }
  return true;
}

}  // namespace

Program::Program(ir::Program program, ProgramOptions options, uint64_t seed)
    : program_(std::move(program)), options_(std::move(options)), seed_(seed), rng_(seed) {
  for (const ir::Graph& g : program_.graphs) assertions_.emplace_back(g, program_.config);
  for (size_t i = 0; i < program_.graphs.size(); ++i) graph_index_.emplace(program_.graphs[i].name(), i);
  steps_ = ir::StepsPerRun(program_);
}

Program::~Program() = default;

namespace {

// The declaration of parameter `param` (its node's span), if any graph has it.
diag::Span SpanOfParam(const ir::Program& program, const ir::Param& param) {
  for (const ir::Graph& g : program.graphs) {
    for (const ir::Param& p : g.params()) {
      if (&p == &param && g.HasNode(p.node)) return g.node(p.node).span;
    }
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<Program>> Program::Create(const CompileResult& compiled, ProgramOptions options,
                                                 std::optional<diag::Diagnostic>* setup_error) {
  return FromCompiled(compiled, std::move(options), {.setup_error = setup_error});
}

Result<std::unique_ptr<Program>> Program::CreateWithParams(const CompileResult& compiled, ProgramOptions options,
                                                           std::span<const uint8_t> blob,
                                                           const std::function<void()>& blob_read,
                                                           std::optional<diag::Diagnostic>* setup_error) {
  return FromCompiled(compiled, std::move(options),
                      {.blob = &blob, .blob_read = blob_read ? &blob_read : nullptr, .setup_error = setup_error});
}

Result<std::unique_ptr<Program>> Program::Create(ir::Program program, ProgramOptions options) {
  const uint64_t seed = options.seed.value_or(0);
  std::unique_ptr<Program> p(new Program(std::move(program), std::move(options), seed));
  SHREW_RETURN_IF_ERROR(p->Init(ParamSource{}));
  return p;
}

Result<std::unique_ptr<Program>> Program::CreateCarrying(const CompileResult& compiled, ProgramOptions options,
                                                         const Program& previous, std::vector<std::string>* carried) {
  Result<std::unique_ptr<Program>> p =
      FromCompiled(compiled, std::move(options), {.previous = &previous, .carried = carried});
  if (p.ok()) (*p)->set_generator_states(previous.generator_states());
  return p;
}

Result<std::unique_ptr<Program>> Program::FromCompiled(const CompileResult& compiled, ProgramOptions options,
                                                       const ParamSource& source) {
  if (!compiled.ok) {
    if (compiled.diagnostics.empty()) return FailedPrecondition("the program did not compile (a CompileResult without diagnostics: not one from Compile)");
    return FailedPrecondition("the program did not compile:\n" + compiled.RenderDiagnostics());
  }
  const uint64_t seed = options.seed.value_or(compiled.seed);
  options.optimized_with = compiled.passes;  // properties of the IR, not choices
  options.specialized_with = compiled.dims;
  // The literals of every graph compiled so far took it: those compiled per
  // input signature (`input x: ?`) must too.
  options.default_dtype = compiled.default_float;
  return FromIr(compiled.program, compiled.source.get(), seed, std::move(options), source);
}

Result<std::unique_ptr<Program>> Program::CreateWithParams(ir::Program program, ProgramOptions options,
                                                           std::span<const uint8_t> blob,
                                                           const diag::SourceFile* source,
                                                           const std::function<void()>& blob_read) {
  const uint64_t seed = options.seed.value_or(0);
  return FromIr(std::move(program), source, seed, std::move(options),
                {.blob = &blob, .blob_read = blob_read ? &blob_read : nullptr});
}

Result<std::unique_ptr<Program>> Program::FromIr(ir::Program program, const diag::SourceFile* text, uint64_t seed,
                                                 ProgramOptions options, const ParamSource& source) {
  std::unique_ptr<Program> p(new Program(std::move(program), std::move(options), seed));
  Status init = p->Init(source);
  if (!init.ok()) {
    // A .sw error names file, line and column, also when it is found only
    // while the executors are built (a parameter's init or size, an
    // operation without a kernel).
    if (p->init_error_span_.valid() && text != nullptr) {
      // A limit (resource_exhausted) is no error in the source: a run-time
      // error at the declaration, its position the span, as a run's are.
      if (init.code() != StatusCode::kInvalidArgument) return std::move(init).At(p->init_error_span_);
      diag::Diagnostic d{diag::Kind::ExecutorSetup, diag::Severity::Error, p->init_error_span_, init.message()};
      std::string rendered = diag::Render(d, *text);
      while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
      if (source.setup_error != nullptr) *source.setup_error = std::move(d);
      return Status(init.code(), std::move(rendered)).At(p->init_error_span_);
    }
    return init;
  }
  return p;
}

Status Program::Init(const ParamSource& source) {
  SHREW_RETURN_IF_ERROR(CheckDimValues(options_.dims));
  // An integer dtype here made a float literal "cannot be used with an integer operand" at a run.
  if (!ir::IsFloat(options_.default_dtype)) {
    return InvalidArgument(std::string("ProgramOptions::default_dtype is ") + ir::DTypeName(options_.default_dtype) +
                           "; float literals take f16, bf16, f32 or f64");
  }
  // A dim both sides bind must agree: the tape runs the types inferred with
  // one value while the interpreter binds runs with the other.
  if (options_.specialized_with) {
    for (const auto& [name, inferred] : *options_.specialized_with) {
      auto bound = options_.dims.find(name);
      if (bound != options_.dims.end() && bound->second != inferred) {
        return InvalidArgument("dimension '" + name + "' binds runs to " + std::to_string(bound->second) +
                               " (ProgramOptions::dims), but the program's types were inferred with " +
                               std::to_string(inferred) + " (CompileOptions::dims)");
      }
    }
  }
  // The byte cap, for every parameter before any is allocated.
  for (const ir::Graph& g : program_.graphs) {
    for (const ir::Param& p : g.params()) {
      Result<runtime::Shape> shape = runtime::ResolveParamShape(p, options_.dims);
      if (!shape.ok()) continue;  // InitProgramParams reports it with its context
      Result<int64_t> count = runtime::CountElements(*shape);
      const uint64_t elem = ir::StorageByteSize(ir::StorageOf(p.type.dtype()));
      if (!count.ok() || (elem > 0 && static_cast<uint64_t>(*count) > options_.max_tensor_bytes / elem)) {
        if (g.HasNode(p.node)) init_error_span_ = g.node(p.node).span;
        return ResourceExhausted("parameter '" + p.name + "' of graph '" + g.name() + "' (" + ir::DTypeName(p.type.dtype()) +
                                 runtime::ShapeToString(*shape) + ") is over the limit of " +
                                 std::to_string(options_.max_tensor_bytes) + " bytes per tensor");
      }
    }
  }
  // An input no run could supply (complex dtypes are not executed, OPS.md
  // §1.3): said now, where the declaration is, not as a dtype mismatch
  // ("expected complex64, got f32") at every run.
  for (const ir::Graph& g : program_.graphs) {
    for (const ir::GraphInput& in : g.inputs()) {
      const ir::Node& n = g.node(in.node);
      if (!n.type.is_tensor() || ir::IsExecutable(n.type.dtype())) continue;
      init_error_span_ = n.span;
      return InvalidArgument("input '" + n.name + "' of graph '" + g.name() + "': dtype " +
                             ir::DTypeName(n.type.dtype()) + " is not supported for execution");
    }
  }
  // A blob must fit before anything is allocated: a parameter declared
  // with a huge shape and a blob that does not have it fails here, without
  // allocating (and zeroing) the declared size first.
  // Decoded once here; the records view the blob until blob_read.
  std::vector<ParamRecord> records;
  if (source.blob != nullptr) {
    Result<std::vector<ParamRecord>> decoded = DecodeParamBlob(*source.blob);
    if (!decoded.ok()) return decoded.status();
    records = std::move(decoded).value();
    SHREW_RETURN_IF_ERROR(CheckRecordShapes(records));
  }
  const runtime::InitMode mode = source.blob != nullptr ? runtime::InitMode::kAllocate : runtime::InitMode::kFill;
  const ir::Param* failed = nullptr;
  Result<runtime::ParamMap> params = runtime::InitProgramParams(program_, options_.dims, rng_, mode, &failed);
  if (!params.ok()) {
    if (failed != nullptr) init_error_span_ = SpanOfParam(program_, *failed);
    return params.status();
  }
  params_ = std::move(params).value();
  interp_rng_ = rng_;
  std::string key;
  for (size_t gi = 0; gi < program_.graphs.size(); ++gi) {
    const std::vector<ir::Param>& declared = program_.graphs[gi].params();
    for (size_t pi = 0; pi < declared.size(); ++pi) {
      key = runtime::ParamKey(program_.graphs[gi].name(), declared[pi].name);
      auto it = params_.find(key);
      if (it == params_.end()) continue;
      param_slot_of_key_.emplace(it->first, param_slots_.size());
      param_slots_.push_back({static_cast<uint32_t>(gi), static_cast<uint32_t>(pi)});
    }
  }
  // Before any kernel packs a weight: given values are packed once.
  if (source.blob != nullptr) {
    Result<std::vector<std::string>> written = WriteParamRecords(records);
    if (!written.ok()) return written.status();
    records.clear();  // they view the blob
    if (source.blob_read != nullptr) (*source.blob_read)();
  }
  if (source.previous != nullptr) {
    for (auto& [key, t] : params_) {
      auto it = source.previous->params_.find(key);
      if (it == source.previous->params_.end() || it->second.dtype() != t.dtype() || it->second.shape() != t.shape()) {
        continue;
      }
      if (t.byte_size() > 0) std::memcpy(t.mutable_raw_data(), it->second.raw_data(), t.byte_size());
      if (source.carried != nullptr) source.carried->push_back(key);
    }
  }
  graphs_.resize(program_.graphs.size());
  // Every graph's kernels first, then the plans of fixed input shapes: a
  // call's plan binds its callee, whatever the order they are declared in.
  for (size_t i = 0; i < graphs_.size(); ++i) SHREW_RETURN_IF_ERROR(CompileOne(i));
  for (size_t i = 0; i < graphs_.size(); ++i) PrepareStatic(i);
  return Status::Ok();
}

jit::CompileOptions Program::MakeKernelOptions() const {
  jit::CompileOptions o;
  o.training = options_.training;
  if (options_.native_kernels) {
    o.kernel_factory = [](const runtime::KernelSpec& spec) { return runtime::CreateKernel(spec); };
    o.fused_factory = &FusedFactory;
  }
  return o;
}

jit::CompileOptions Program::MakeCompileOptions(const ir::Graph& g) {
  jit::CompileOptions o = MakeKernelOptions();
  o.program = &program_;
  for (const ir::Param& p : g.params()) {
    auto it = params_.find(runtime::ParamKey(g.name(), p.name));
    o.params.push_back(it == params_.end() ? nullptr : &it->second);
  }
  o.rng = &rng_;
  o.call = [this](std::string_view callee, std::span<const Tensor* const> operands) {
    return CallGraph(callee, operands);
  };
  o.default_float = options_.default_dtype;
  o.jit_fusion = options_.jit_fusion;
  if (options_.native_kernels) {
    o.callee_executor = [this](int index, std::span<const jit::InputDesc> inputs, const ir::DimBindings& dims,
                               jit::CalleeTarget* target) { return CalleeFor(index, inputs, dims, target); };
  }
  o.config_dims = options_.dims;
  o.check_call = CalleeCheck();
  return o;
}

Status Program::CompileOne(size_t index) {
  const ir::Graph& g = program_.graphs[index];
  Entry& e = graphs_[index];
  e.executor.reset();
  e.compiled.reset();
  e.specialized.clear();
  ++e.generation;
  // Inputs of unknown type, or calls of graphs that have them: the types are
  // known only with the inputs, so the graph is compiled per input
  // signature (RunnerFor).
  e.deferred = ir::TypesDependOnInputs(g);
  if (e.deferred) return Status::Ok();
  ir::NodeId failed = ir::kNoNode;
  Result<std::unique_ptr<jit::CompiledGraph>> cg = jit::CompileGraph(g, MakeCompileOptions(g), &failed);
  if (!cg.ok()) {
    if (g.HasNode(failed)) init_error_span_ = g.node(failed).span;
    return cg.status().Prefixed("graph '" + g.name() + "': ");
  }
  e.compiled = std::move(cg).value();
  e.executor = std::make_unique<jit::Executor>(e.compiled.get(), MakeExecutorOptions());
  return Status::Ok();
}

void Program::PrepareStatic(size_t index) {
  const ir::Graph& g = program_.graphs[index];
  Entry& e = graphs_[index];
  std::vector<runtime::Shape> shapes;
  std::vector<InputSpec> specs;
  if (!StaticInputShapes(g, options_.dims, &shapes, &specs)) return;
  // Plan now (a graph compiled per signature: compile and plan its one
  // signature, as a typed graph is); a failure here resurfaces, with the
  // input checks first, on Run.
  if (!e.deferred) {
    Status ignored = e.executor->Bind(shapes, options_.dims);
    (void)ignored;
    return;
  }
  PlanSignature(index, specs);
}

void Program::PlanSignature(size_t index, const std::vector<InputSpec>& specs) {
  Result<CheckedInputs> checked = CheckInputs(index, specs, nullptr);
  if (!checked.ok()) return;
  Result<Runner> runner = RunnerFor(index, specs, *checked);
  if (!runner.ok()) return;
  Status ignored = runner->executor->Bind(checked->shapes, checked->dims);
  (void)ignored;
}

jit::ExecutorOptions Program::MakeExecutorOptions() const {
  jit::ExecutorOptions eo;
  eo.program = &program_;
  eo.config_dims = options_.dims;
  eo.default_float = options_.default_dtype;
  eo.verify_plans = options_.verify_plans;
  eo.check_slots = options_.check_slots;
  eo.max_tensor_bytes = options_.max_tensor_bytes;
  eo.check_call = CalleeCheck();
  return eo;
}

Result<Program::Runner> Program::RunnerFor(size_t gi, std::span<const InputSpec> inputs, const CheckedInputs& checked) {
  Entry& e = graphs_[gi];
  if (!e.deferred) return Runner{e.compiled.get(), e.executor.get(), nullptr};
  const ir::Graph& g = program_.graphs[gi];
  InputSignature signature(g.inputs().size());
  for (size_t i = 0; i < g.inputs().size() && i < checked.supplied.size(); ++i) {
    if (checked.supplied[i] < 0) continue;
    const InputSpec& spec = inputs[static_cast<size_t>(checked.supplied[i])];
    signature[i] = std::make_pair(spec.dtype, spec.shape);
  }
  for (auto it = e.specialized.begin(); it != e.specialized.end(); ++it) {
    if ((*it)->signature != signature) continue;
    // Most recently used last: dumps and stats follow the last run, and the
    // least recently used signature is the one dropped.
    std::shared_ptr<Specialized> s = *it;
    e.specialized.erase(it);
    e.specialized.push_back(s);
    return Runner{s->compiled.get(), s->executor.get(), s};
  }
  // The graph with these input types, its shapes inferred again (calls
  // through their callees), then compiled like any other graph.
  std::string described;
  std::vector<std::optional<ir::Type>> types(signature.size());
  for (size_t i = 0; i < signature.size(); ++i) {
    if (!signature[i]) continue;
    std::vector<ir::Dim> dims;
    for (int64_t d : signature[i]->second) dims.push_back(ir::Dim::Fixed(d));
    // A declared dtype stays (OPS.md §1.3): the tensor holds its storage
    // type (u32 values come as i64), which must not retype the graph.
    const ir::Type& declared = g.node(g.inputs()[i].node).type;
    types[i] = ir::Type::Tensor(std::move(dims), declared.is_tensor() ? declared.dtype() : signature[i]->first);
    described += (described.empty() ? "" : ", ") + g.node(g.inputs()[i].node).name + ": " + types[i]->ToString();
  }
  ir::Graph sg = ir::WithInputTypes(g, types);
  const std::string where = "graph '" + g.name() + "' with inputs (" + described + ")";
  ir::InferOptions io;
  io.default_float = options_.default_dtype;
  // Its errors read as the interpreter's (it types such a graph per run too).
  Status typed = jit::SpecializeWithCalls(&sg, &program_, checked.dims, options_.dims, io, 0, CalleeCheck());
  if (!typed.ok()) return interp::GraphFailure(g.name(), typed);
  if (options_.optimized_with) {
    // Folded as the run of the generic graph (the interpreter's) computes it.
    sg.set_folds_in_node_dtypes(true);
    opt::Optimize(sg, *options_.optimized_with);
  }
  Result<std::unique_ptr<jit::CompiledGraph>> cg = jit::CompileGraph(sg, MakeCompileOptions(sg));
  if (!cg.ok()) return cg.status().Prefixed(where + ": ");
  auto s = std::make_shared<Specialized>();
  s->signature = std::move(signature);
  s->generation = e.generation;
  s->compiled = std::move(cg).value();
  s->executor = std::make_unique<jit::Executor>(s->compiled.get(), MakeExecutorOptions());
  if (e.specialized.size() >= kMaxSpecializations) e.specialized.erase(e.specialized.begin());
  e.specialized.push_back(s);
  return Runner{s->compiled.get(), s->executor.get(), s};
}

void Program::Touch(Entry& e, const Specialized* s) {
  if (!e.specialized.empty() && e.specialized.back().get() == s) return;
  for (size_t k = e.specialized.size(); k-- > 0;) {
    if (e.specialized[k].get() != s) continue;
    std::rotate(e.specialized.begin() + static_cast<std::ptrdiff_t>(k),
                e.specialized.begin() + static_cast<std::ptrdiff_t>(k) + 1, e.specialized.end());
    return;
  }
}

Status Program::CalleeFor(int index, std::span<const jit::InputDesc> inputs, const ir::DimBindings& dims,
                          jit::CalleeTarget* target) {
  if (index < 0 || static_cast<size_t>(index) >= graphs_.size()) {
    *target = {};
    return Status::Ok();
  }
  const size_t gi = static_cast<size_t>(index);
  Entry& e = graphs_[gi];
  if (!e.deferred) {
    *target = {e.executor.get(), nullptr};
    return Status::Ok();
  }
  // The kernel's own: still valid unless the specialisations were dropped
  // since. It is used even when the graph's most recently used ones no
  // longer include it, so that a caller with more call sites of one graph
  // than those hold does not compile them again on every run.
  if (target->keep != nullptr && static_cast<const Specialized*>(target->keep.get())->generation == e.generation) {
    Touch(e, static_cast<const Specialized*>(target->keep.get()));
    return Status::Ok();
  }
  auto matches = [&](const Specialized& s) {
    if (s.signature.size() != inputs.size()) return false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& typed = s.signature[i];
      if (typed.has_value() != inputs[i].present) return false;
      if (typed && (typed->first != inputs[i].dtype || typed->second != inputs[i].shape)) return false;
    }
    return true;
  };
  for (const std::shared_ptr<Specialized>& s : e.specialized) {
    if (!matches(*s)) continue;
    *target = {s->executor.get(), s};
    Touch(e, s.get());
    return Status::Ok();
  }
  // The first call with these types compiles them, as a run would, after
  // the check a run makes first: a left-out input the graph reads is missing.
  const ir::Graph& g = program_.graphs[gi];
  std::vector<InputSpec> specs;
  CheckedInputs checked;
  checked.dims = dims;
  checked.supplied.assign(inputs.size(), -1);
  for (size_t i = 0; i < inputs.size() && i < g.inputs().size(); ++i) {
    if (!inputs[i].present) {
      // The call's fault, said at the call (as for a typed callee).
      if (ir::IsRead(g, g.inputs()[i].node)) {
        return InvalidArgument(ir::MissingInputMessage(g, i, g.node(g.inputs()[i].node).type));
      }
      continue;
    }
    checked.supplied[i] = static_cast<int>(specs.size());
    specs.push_back({g.node(g.inputs()[i].node).name, inputs[i].dtype, inputs[i].shape});
  }
  Result<Runner> runner = RunnerFor(gi, specs, checked);  // reads dims and supplied
  if (!runner.ok()) return runner.status();
  *target = {runner->executor, runner->keep};
  return Status::Ok();
}

Result<const Program::Specialized*> Program::Latest(size_t gi) const {
  const Entry& e = graphs_[gi];
  if (e.specialized.empty()) {
    const ir::Graph& g = program_.graphs[gi];
    const std::string why = ir::HasUntypedInputs(g) ? "has inputs of unknown type (?)"
                                                    : "calls a graph with inputs of unknown type (?)";
    return FailedPrecondition("graph '" + g.name() + "' " + why +
                              ": it is compiled for the types of its inputs by a run, and no run of it has succeeded yet; run "
                              "it, then ask again");
  }
  return e.specialized.back().get();
}

std::vector<std::string> Program::GraphNames() const {
  std::vector<std::string> names;
  for (const ir::Graph& g : program_.graphs) names.push_back(g.name());
  return names;
}

std::optional<std::vector<InputSpec>> Program::StaticInputs(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return std::nullopt;
  std::vector<runtime::Shape> shapes;
  std::vector<InputSpec> specs;
  if (!StaticInputShapes(program_.graphs[*gi], options_.dims, &shapes, &specs)) return std::nullopt;
  return specs;
}

Result<size_t> Program::FindGraph(std::string_view name) const {
  if (auto it = graph_index_.find(name); it != graph_index_.end()) return it->second;
  const std::vector<std::string> names = GraphNames();
  return NotFound("no graph named '" + std::string(name) + "'" + HintBeforeList(DidYouMean(name, names)) +
                  "graphs: " + JoinNames(names));
}

Status Program::CheckSteps(size_t gi) const {
  if (gi >= steps_.size() || steps_[gi].steps <= options_.max_steps_per_run) return Status::Ok();
  const ir::Graph& g = program_.graphs[gi];
  const uint64_t n = steps_[gi].steps;
  const std::string count = n == std::numeric_limits<uint64_t>::max() ? "over 1.8e19" : std::to_string(n);
  const std::string calls = ir::HeaviestCallChain(program_, steps_, static_cast<int>(gi));
  return ResourceExhausted("graph '" + g.name() + "' would perform " + count + (n == 1 ? " operation" : " operations") +
                           " per run" + (calls.empty() ? "" : " through its calls (" + calls + ")") +
                           ", more than the limit of " + std::to_string(options_.max_steps_per_run))
      .At(g.span());
}

Status Program::CheckSteps(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  return gi.ok() ? CheckSteps(*gi) : gi.status();
}

Result<Program::CheckedInputs> Program::CheckInputs(size_t gi, std::span<const InputSpec> inputs,
                                                    jit::InputIssue* issue) const {
  const ir::Graph& g = program_.graphs[gi];
  const Entry& e = graphs_[gi];
  const std::string where = "graph '" + g.name() + "'";
  SHREW_RETURN_IF_ERROR(CheckSteps(gi));
  std::vector<std::string> input_names;
  for (const ir::GraphInput& in : g.inputs()) input_names.push_back(g.node(in.node).name);
  auto report = [&](const std::string& input, std::string expected, std::string actual) {
    if (issue != nullptr) *issue = {input, std::move(expected), std::move(actual)};
  };

  // 1. Names: every supplied input must be declared (once), every required one supplied.
  CheckedInputs out;
  out.supplied.assign(g.inputs().size(), -1);
  // Inputs usually come in declaration order: position k is tried first,
  // then a map built on the first miss (a scan per input was quadratic).
  std::unordered_map<std::string_view, size_t> by_name;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string& name = inputs[k].name;
    size_t i = k;
    if (i >= input_names.size() || input_names[i] != name) {
      if (by_name.empty()) {
        for (size_t j = 0; j < input_names.size(); ++j) by_name.emplace(input_names[j], j);
      }
      auto it = by_name.find(name);
      i = it == by_name.end() ? input_names.size() : it->second;
    }
    if (i == input_names.size()) {
      report(name, "", "");
      return InvalidArgument(where + " has no input named '" + name + "'" +
                             HintBeforeList(DidYouMean(name, input_names)) + "its inputs are: " + JoinNames(input_names));
    }
    if (out.supplied[i] >= 0) {
      report(name, "", "");
      return InvalidArgument(where + ": input '" + name + "' is supplied twice");
    }
    out.supplied[i] = static_cast<int>(k);
  }
  std::vector<jit::InputDesc> descs(g.inputs().size());
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const ir::Node& node = g.node(g.inputs()[i].node);
    if (out.supplied[i] < 0) {
      // A graph compiled per input signature has no tape yet to tell: its IR
      // does (dead nodes are gone), and a failed specialisation must not
      // hide the cause ("x + m: type unknown").
      const bool read = e.compiled != nullptr ? e.compiled->input_read[i] != 0 : e.deferred && ir::IsRead(g, node.id);
      if (!g.inputs()[i].optional || read) return MissingInput(g, i, issue);
      continue;
    }
    const InputSpec& spec = inputs[static_cast<size_t>(out.supplied[i])];
    Result<int64_t> count = runtime::CountElements(spec.shape);
    if (!count.ok()) {
      report(node.name, node.type.ToString(), std::string(ir::DTypeName(spec.dtype)) + runtime::ShapeToString(spec.shape));
      return InvalidArgument("input '" + node.name + "' of " + where + ": " + count.status().message());
    }
    descs[i] = {true, spec.dtype, spec.shape};
  }
  // 2. Dtypes, ranks, fixed sizes, symbolic consistency: from the shapes
  // alone, so a wrong shape is told as one even when it is also too large.
  Result<ir::DimBindings> dims = jit::BindInputs(g, options_.dims, descs, issue);
  if (!dims.ok()) return dims.status();
  // 3. Size cap, before anything touches the data.
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    if (out.supplied[i] < 0) continue;
    const ir::Node& node = g.node(g.inputs()[i].node);
    const InputSpec& spec = inputs[static_cast<size_t>(out.supplied[i])];
    const uint64_t count = static_cast<uint64_t>(runtime::CountElements(spec.shape).value());  // counted above
    const uint64_t elem = ir::StorageByteSize(ir::StorageOf(spec.dtype));
    const uint64_t cap = options_.max_tensor_bytes;
    if (elem > 0 && count > cap / elem) {
      const std::string type = std::string(ir::DTypeName(spec.dtype)) + runtime::ShapeToString(spec.shape);
      report(node.name, node.type.ToString(), type);
      const uint64_t n = count;
      const std::string bytes = n <= std::numeric_limits<uint64_t>::max() / elem ? std::to_string(n * elem)
                                                                                 : "over 2^64";
      // i32 is held as i64 (OPS.md §1.3): the bytes counted are those held, not those passed.
      const std::string held = ir::StorageDType(spec.dtype) == spec.dtype
                                   ? ""
                                   : std::string(", held as ") + ir::StorageTypeName(ir::StorageOf(spec.dtype));
      return ResourceExhausted("input '" + node.name + "' of " + where + " is " + bytes + " bytes (" + type + held +
                               "), over the limit of " + std::to_string(cap) + " bytes");
    }
  }
  out.dims = std::move(dims).value();
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    out.shapes.push_back(out.supplied[i] >= 0 ? inputs[static_cast<size_t>(out.supplied[i])].shape
                                              : jit::ConcreteShape(g.node(g.inputs()[i].node).type, out.dims, 0));
  }
  // 4. The graph's @assert / @check conditions on those dims.
  SHREW_RETURN_IF_ERROR(assertions_[gi].Check(out.dims));
  return out;
}

namespace {

std::vector<InputSpec> SpecsOf(const TensorMap& inputs, std::vector<const Tensor*>* tensors) {
  std::vector<InputSpec> specs;
  for (const auto& [name, t] : inputs) {
    specs.push_back({name, t.dtype(), t.shape()});
    tensors->push_back(&t);
  }
  return specs;
}

// The range graph input `i` must keep when fed data of `given` (input_ranges.h):
// set for a declared i8/i16/i32/u16/u32 given as i64-held data.
std::optional<IntRange> NarrowRangeOf(const ir::Graph& g, size_t i, ir::DType given) {
  const ir::Node& node = g.node(g.inputs()[i].node);
  if (!node.type.is_tensor() || ir::StorageOf(given) != ir::StorageType::kI64) return std::nullopt;
  return NarrowIntRange(node.type.dtype());
}

Status CheckNarrowInputs(const ir::Graph& g, std::span<const int> supplied, std::span<const Tensor* const> tensors,
                         jit::InputIssue* issue) {
  for (size_t i = 0; i < supplied.size(); ++i) {
    if (supplied[i] < 0) continue;
    const Tensor& t = *tensors[static_cast<size_t>(supplied[i])];
    const std::optional<IntRange> range = NarrowRangeOf(g, i, t.dtype());
    if (!range) continue;
    const ir::Node& node = g.node(g.inputs()[i].node);
    SHREW_RETURN_IF_ERROR(CheckIntRange(node.name, node.type.dtype(), *range, t.values<int64_t>(), issue, "input", g.name()));
  }
  return Status::Ok();
}

}  // namespace

Result<jit::TapeProfile> Program::Profile(std::string_view graph, int runs) {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  SHREW_RETURN_IF_ERROR(CheckSteps(*gi));
  // A graph typed per run has no executor before its first run: said as
  // Stats says it (this returned the OK status of finding the graph).
  jit::Executor* ex = graphs_[*gi].executor.get();
  if (graphs_[*gi].deferred) {
    Result<const Specialized*> s = Latest(*gi);
    if (!s.ok()) return s.status();
    ex = (*s)->executor.get();
  }
  const runtime::Rng before = rng_;
  Result<jit::TapeProfile> p = jit::ProfileTape(*ex, runs);
  rng_ = before;
  return p;
}

Status Program::RunDrawingNothingOnFailure(jit::Executor& ex) {
  const runtime::Rng before = rng_;
  Status s = ex.Run();
  if (!s.ok()) rng_ = before;
  return s;
}

Result<TensorMap> Program::Run(std::string_view graph_name, const TensorMap& inputs, jit::InputIssue* issue) {
  return RunGraph(graph_name, inputs, issue, true);
}

Result<TensorMap> Program::RunGraph(std::string_view graph_name, const TensorMap& inputs, jit::InputIssue* issue,
                                    bool from_caller) {
  Result<size_t> gi = FindGraph(graph_name);
  if (!gi.ok()) return gi.status();
  std::vector<const Tensor*> tensors;
  const std::vector<InputSpec> specs = SpecsOf(inputs, &tensors);
  Result<CheckedInputs> checked = CheckInputs(*gi, specs, issue);
  if (!checked.ok()) return checked.status();
  if (from_caller) SHREW_RETURN_IF_ERROR(CheckNarrowInputs(program_.graphs[*gi], checked->supplied, tensors, issue));
  Result<Runner> runner = RunnerFor(*gi, specs, *checked);
  if (!runner.ok()) return runner.status();
  jit::Executor& ex = *runner->executor;
  SHREW_RETURN_IF_ERROR(ex.Bind(checked->shapes, checked->dims));
  for (size_t i = 0; i < checked->supplied.size(); ++i) {
    if (checked->supplied[i] < 0) continue;
    const Tensor& t = *tensors[static_cast<size_t>(checked->supplied[i])];
    if (t.byte_size() > 0) std::memcpy(ex.input_data(static_cast<int>(i)), t.raw_data(), t.byte_size());
  }
  SHREW_RETURN_IF_ERROR(RunDrawingNothingOnFailure(ex));
  TensorMap out;
  for (int o = 0; o < ex.num_outputs(); ++o) {
    Result<Tensor> t = ex.CopyOutput(o);
    if (!t.ok()) {
      // Out of memory for the outputs' copies: the arena is the one big
      // block this failed run can give back.
      if (t.status().code() == StatusCode::kResourceExhausted) ex.ReleaseArena();
      return t.status().Prefixed("graph '" + std::string(graph_name) + "': output '" +
                                 runner->compiled->outputs[static_cast<size_t>(o)].first + "': ");
    }
    out.insert_or_assign(runner->compiled->outputs[static_cast<size_t>(o)].first, std::move(t).value());
  }
  return out;
}

Result<std::unique_ptr<PreparedRun>> Program::Prepare(std::string_view graph_name, std::span<const InputSpec> inputs,
                                                      jit::InputIssue* issue) {
  Result<size_t> gi = FindGraph(graph_name);
  if (!gi.ok()) return gi.status();
  Result<CheckedInputs> checked = CheckInputs(*gi, inputs, issue);
  if (!checked.ok()) return checked.status();
  Result<Runner> runner = RunnerFor(*gi, inputs, *checked);
  if (!runner.ok()) return runner.status();
  jit::Executor& ex = *runner->executor;
  SHREW_RETURN_IF_ERROR(ex.Bind(checked->shapes, checked->dims));
  std::unique_ptr<PreparedRun> p(new PreparedRun(this, *gi));
  p->specs_.assign(inputs.begin(), inputs.end());
  p->supplied_ = checked->supplied;
  p->shapes_ = checked->shapes;
  p->dims_ = checked->dims;
  p->spec_input_.assign(inputs.size(), -1);
  for (size_t i = 0; i < checked->shapes.size(); ++i) {
    const int k = checked->supplied[i];
    uint64_t bytes = 0;
    if (k >= 0) {
      const InputSpec& spec = inputs[static_cast<size_t>(k)];
      bytes = static_cast<uint64_t>(runtime::CountElements(spec.shape).value()) * ir::StorageByteSize(ir::StorageOf(spec.dtype));
    }
    // The input checks capped each input at max_tensor_bytes.
    Result<Tensor> staged = Tensor::Zeros(ir::DType::kU8, {static_cast<int64_t>(bytes)});
    if (!staged.ok()) {
      ex.ReleaseArena();  // grown by Bind for a run that cannot happen
      return ResourceExhausted("input '" + inputs[static_cast<size_t>(k)].name + "': out of memory for its " +
                               std::to_string(bytes) + "-byte staging buffer");
    }
    p->staged_.push_back(std::move(staged).value());
    p->is_bool_.push_back(k >= 0 && ir::StorageOf(inputs[static_cast<size_t>(k)].dtype) == ir::StorageType::kBool);
    p->narrow_.push_back(k >= 0 ? NarrowRangeOf(program_.graphs[*gi], i, inputs[static_cast<size_t>(k)].dtype)
                                : std::nullopt);
    if (k >= 0) p->spec_input_[static_cast<size_t>(k)] = static_cast<int>(i);
  }
  p->shapes_vary_ = ex.value_shaped();
  for (int o = 0; o < ex.num_outputs(); ++o) {
    if (p->shapes_vary_) {
      // Known after each run (PreparedRun::Run); the dtype does not vary.
      const jit::CompiledGraph& cg = ex.graph();
      const ir::Node& out = cg.graph.node(cg.slot_node[static_cast<size_t>(cg.outputs[static_cast<size_t>(o)].second)]);
      p->outputs_.push_back({cg.outputs[static_cast<size_t>(o)].first, out.type.dtype(), {}, 0});
      continue;
    }
    const runtime::Shape& shape = ex.output_shape(o);
    const ir::DType dtype = ex.output_dtype(o);
    Result<int64_t> n = runtime::CountElements(shape);
    if (!n.ok()) return n.status();
    p->outputs_.push_back({runner->compiled->outputs[static_cast<size_t>(o)].first, dtype, shape,
                           static_cast<uint64_t>(*n) * ir::StorageByteSize(ir::StorageOf(dtype))});
  }
  return p;
}

jit::CallCheck Program::CalleeCheck() const {
  return [this](const ir::Graph& callee, const ir::DimBindings& dims) {
    const int gi = program_.FindGraphIndex(callee.name());
    if (gi < 0) return Status::Ok();
    return assertions_[static_cast<size_t>(gi)].Check(dims);
  };
}

Result<Tensor> Program::CallGraph(std::string_view callee, std::span<const Tensor* const> operands) {
  Result<size_t> gi = FindGraph(callee);
  if (!gi.ok()) return gi.status();
  const ir::Graph& g = program_.graphs[*gi];
  // Left-out optional inputs (null, or past the end) are simply not
  // supplied (Run checks that the callee does not read them).
  const std::vector<int> present =
      ir::PresentInputs(operands);
  if (operands.size() > g.inputs().size() || !ir::AcceptsCallBinding(g, present)) {
    return InvalidArgument("call of graph '" + g.name() + "' with " + std::to_string(present.size()) +
                           " operands for " + std::to_string(g.inputs().size()) + " inputs");
  }
  TensorMap in;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] == nullptr) continue;
    Result<Tensor> t = operands[i]->Clone();
    if (!t.ok()) return t.status();
    in.emplace(g.node(g.inputs()[i].node).name, std::move(t).value());
  }
  Result<TensorMap> out = RunGraph(callee, in, nullptr, false);
  if (!out.ok()) return out.status();
  auto it = out->find(g.outputs().front().name);
  if (it == out->end()) return Internal("graph '" + g.name() + "' produced no first output");
  return std::move(it->second);
}

Result<TensorMap> Program::Interpret(std::string_view graph, const TensorMap& inputs, jit::InputIssue* issue) {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  std::vector<const Tensor*> tensors;
  Result<CheckedInputs> checked = CheckInputs(*gi, SpecsOf(inputs, &tensors), issue);
  if (!checked.ok()) return checked.status();
  SHREW_RETURN_IF_ERROR(CheckNarrowInputs(program_.graphs[*gi], checked->supplied, tensors, issue));
  interp::InterpreterOptions io;
  io.training = options_.training;
  io.dims = options_.dims;
  io.default_float_dtype = options_.default_dtype;
  io.max_tensor_bytes = options_.max_tensor_bytes;
  io.check_call = CalleeCheck();
  interp::Interpreter interp(&program_, &params_, io, &interp_rng_);
  const runtime::Rng before = interp_rng_;
  Result<interp::RunResult> r = interp.Run(graph, inputs);
  if (!r.ok()) {
    interp_rng_ = before;  // as a failed tape run: RunDrawingNothingOnFailure
    return r.status();
  }
  TensorMap out;
  for (auto& [name, t] : r->outputs) out.insert_or_assign(name, std::move(t));
  return out;
}

Result<jit::CompileStats> Program::Stats(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  if (graphs_[*gi].deferred) {
    Result<const Specialized*> s = Latest(*gi);
    if (!s.ok()) return s.status();
    return (*s)->executor->stats();
  }
  return graphs_[*gi].executor->stats();
}

Result<std::string> Program::Dump(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  if (graphs_[*gi].deferred) {
    Result<const Specialized*> s = Latest(*gi);
    if (!s.ok()) return s.status();
    return jit::DumpCompiledGraph(*(*s)->compiled, (*s)->executor.get());
  }
  return jit::DumpCompiledGraph(*graphs_[*gi].compiled, graphs_[*gi].executor.get());
}

Result<std::string> Program::PlanJson(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  if (graphs_[*gi].deferred) {
    Result<const Specialized*> s = Latest(*gi);
    if (!s.ok()) return s.status();
    return jit::DumpPlanJson(*(*s)->compiled, (*s)->executor.get());
  }
  return jit::DumpPlanJson(*graphs_[*gi].compiled, graphs_[*gi].executor.get());
}

Result<std::string> Program::TapeJson(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  if (graphs_[*gi].deferred) {
    Result<const Specialized*> s = Latest(*gi);
    if (!s.ok()) return s.status();
    return jit::DumpTapeJson(*(*s)->compiled, (*s)->executor.get());
  }
  return jit::DumpTapeJson(*graphs_[*gi].compiled, graphs_[*gi].executor.get());
}

Status Program::Recompile(std::string_view graph) {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return gi.status();
  // The last run's binding is planned again: stats, dumps and benchRun of a
  // graph each run binds describe that run after the rebuild, as before it
  // (they said "no run of it has succeeded yet").
  const Entry& e = graphs_[*gi];
  const ir::Graph& g = program_.graphs[*gi];
  std::optional<InputSignature> signature;
  std::optional<std::pair<std::vector<runtime::Shape>, ir::DimBindings>> binding;
  if (e.deferred && !e.specialized.empty() && e.specialized.back()->executor->plan() != nullptr) {
    signature = e.specialized.back()->signature;
  } else if (!e.deferred && e.executor != nullptr && e.executor->plan() != nullptr) {
    binding.emplace(e.executor->plan()->input_shapes, e.executor->plan()->dims);
  }
  SHREW_RETURN_IF_ERROR(CompileOne(*gi));
  PrepareStatic(*gi);
  if (binding && graphs_[*gi].executor != nullptr) {
    Status ignored = graphs_[*gi].executor->Bind(binding->first, binding->second);  // Run's to report
    (void)ignored;
  }
  if (signature) {
    std::vector<InputSpec> specs;
    for (size_t i = 0; i < signature->size() && i < g.inputs().size(); ++i) {
      if ((*signature)[i]) specs.push_back({g.node(g.inputs()[i].node).name, (*signature)[i]->first, (*signature)[i]->second});
    }
    PlanSignature(*gi, specs);
  }
  return Status::Ok();
}

int Program::num_live_xnn_operators() const {
  int n = 0;
  for (const Entry& e : graphs_) {
    n += e.compiled ? e.compiled->num_live_xnn_operators() : 0;
    for (const std::shared_ptr<Specialized>& sp : e.specialized) n += sp->compiled->num_live_xnn_operators();
  }
  return n;
}

jit::Executor* Program::executor(std::string_view graph) {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return nullptr;
  const Entry& e = graphs_[*gi];
  if (!e.deferred) return e.executor.get();
  return e.specialized.empty() ? nullptr : e.specialized.back()->executor.get();
}

const jit::CompiledGraph* Program::compiled(std::string_view graph) const {
  Result<size_t> gi = FindGraph(graph);
  if (!gi.ok()) return nullptr;
  const Entry& e = graphs_[*gi];
  if (!e.deferred) return e.compiled.get();
  return e.specialized.empty() ? nullptr : e.specialized.back()->compiled.get();
}

}  // namespace shrew
