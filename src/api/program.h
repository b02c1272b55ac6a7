// A runnable Shrew program (PIPELINE.md §8–§10): parameters initialised
// from the seeded generator, every graph JIT-compiled to a tape whose
// kernels (XNNPACK operators, weights packed) are created once, and the
// reference interpreter on the same parameters as the oracle.
//
//   shrew::CompileResult c = shrew::Compile(source);
//   Result<std::unique_ptr<shrew::Program>> p = shrew::Program::Create(c);
//   runtime::TensorMap in;
//   in.emplace("images", std::move(images));
//   Result<runtime::TensorMap> out = (*p)->Run("Classifier", in);
//   const runtime::Tensor& probs = out->at("probs");
//
// Run checks every input before anything runs and returns a clear error
// naming the input with the expected and actual dtype/shape: unknown graph
// (the graphs are listed), unknown/extra input names (the inputs are
// listed), missing inputs, wrong dtype (storage type), wrong rank or fixed
// size, symbolic dimensions inconsistent between inputs or with the
// configured dims, tensors over `max_tensor_bytes`; then the graph's
// `@assert` / `@check` conditions on the bound dims (api/assertions.h).
// After any error the program stays usable.
//
// Byte cap: `max_tensor_bytes` bounds every single tensor the program would
// hold — each input, each parameter (checked by Create before initialising
// any), each value of a tape binding and each kernel's workspace (checked
// when planning, before the arena grows) and each interpreter value
// (checked before evaluating the node when its shape is known) — so a
// hostile size is a ResourceExhausted error naming the tensor, never an
// allocation attempt. Allocation failures below the cap (out of memory) are
// ResourceExhausted errors as well.
//
// Outputs are copied out of the arena (host tensors owned by the caller).
//
// Parameters are keyed "GRAPH/PARAM" (listed sorted by key). SetParam
// checks dtype and shape, overwrites the stored values in place and
// re-creates the kernels that packed that parameter.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/assertions.h"
#include "api/compile.h"
#include "api/param_blob.h"
#include "api/prepared_run.h"
#include "base/status.h"
#include "ir/graph.h"
#include "ir/run_steps.h"
#include "jit/binding.h"
#include "jit/compile.h"
#include "jit/compiled_graph.h"
#include "jit/executor.h"
#include "jit/profile.h"
#include "runtime/param_init.h"
#include "runtime/rng.h"
#include "runtime/tensor.h"

namespace shrew {


struct ProgramOptions {
  // Symbolic dimension values of the runtime configuration (they take
  // precedence over sizes bound from inputs, LANGUAGE.md §5.3).
  ir::DimBindings dims;
  bool training = false;                  // dropout active
  std::optional<uint64_t> seed;           // unset: CompileResult::seed, else 0
  // Of unadopted float literals in graphs compiled per input signature (and
  // by the interpreter). From a CompileResult: its default_float, whatever
  // this says (the other graphs' types were inferred with it). A float
  // dtype; another is an InvalidArgument error from Create.
  ir::DType default_dtype = ir::DType::kF32;
  // Per tensor (see above). 1 GiB in wasm (whose heap is at most a few GiB),
  // 16 GiB natively.
#ifdef __EMSCRIPTEN__
  uint64_t max_tensor_bytes = uint64_t{1} << 30;
#else
  uint64_t max_tensor_bytes = uint64_t{1} << 34;
#endif
  bool jit_fusion = true;                 // FC+activation as one instruction; transposed b read in place
  bool native_kernels = true;             // false: every node runs the ref fallback
  bool verify_plans = true;               // no-overlap check of every memory plan
  bool check_slots = false;               // empty-slot check while running (debug)
  // A run whose graph performs more operations than this once its calls and
  // repeats are unrolled (ir/run_steps.h) is refused before it starts, on
  // either executor: a few lines can ask for 2^64 calls. 2^26: seconds of
  // the tape's smallest operations, about a minute of calls; models are far
  // below (a repeat of 100 layers of 50 operations is 5,000).
  uint64_t max_steps_per_run = uint64_t{1} << 26;
  // The passes the IR was optimised with (nullopt: it was not). A graph
  // compiled per input signature (`input x: ?`) is optimised again with
  // them once its types are known: literals fold (in each node's dtype, as
  // the interpreter computes them) and merge in the inputs' dtypes, which the
  // generic graph cannot do. Create(CompileResult) sets it from the compile,
  // LoadBundle from the bundle.
  std::optional<opt::PassOptions> optimized_with;
  // The dims the IR's types were inferred with (CompileOptions::dims; they
  // may differ from `dims`, which only bind runs); unset means `dims`. A
  // bundle stores both and checks its IR against these. Create(CompileResult)
  // sets it from the compile, LoadBundle from the bundle.
  std::optional<ir::DimBindings> specialized_with;
  const ir::DimBindings& inference_dims() const { return specialized_with ? *specialized_with : dims; }
};

class Program {
 public:
  // A source error found only while the executors are built (a parameter's
  // init or unbound size, an input of a dtype no kernel runs) is
  // invalid_argument with its E150 diagnostic rendered as the message; when
  // `setup_error` is given it also receives that diagnostic, for tools that
  // list diagnostics (the JS binding's ShrewCompileError) rather than print
  // them. A limit met at a declaration (a parameter over max_tensor_bytes,
  // memory) is resource_exhausted with a plain message and the declaration
  // as its span, as a run's errors are; it leaves `setup_error` untouched.
  static Result<std::unique_ptr<Program>> Create(const CompileResult& compiled, ProgramOptions options = {},
                                                 std::optional<diag::Diagnostic>* setup_error = nullptr);
  // From an already checked, materialised (and usually optimised) IR program.
  static Result<std::unique_ptr<Program>> Create(ir::Program program, ProgramOptions options = {});
  // Like Create, but every parameter `previous` also has — same key, dtype
  // and shape — starts with previous's values (SetParam/LoadParams values
  // included). The seeded draws still happen in program order, so every
  // other parameter gets exactly the value a fresh Create gives it; then
  // both generators continue where previous's stood (its dropout masks go
  // on, they do not start over).
  // `carried` (if given) receives the carried keys, sorted. Used to change
  // the configured dims of a program (api/reconfigure.h).
  static Result<std::unique_ptr<Program>> CreateCarrying(const CompileResult& compiled, ProgramOptions options,
                                                         const Program& previous,
                                                         std::vector<std::string>* carried = nullptr);
  // Like Create, but the parameter values come from `blob` (a SaveParams
  // blob) instead of the initialisers: checked exactly like LoadParams (same
  // errors; nothing is created on error), written before any kernel packs a
  // weight, so each weight is packed once and no random values are drawn.
  // The generator is advanced as initialisation would have advanced it:
  // training-mode dropout then draws what it draws after Create + LoadParams.
  // `blob_read`, if given, is called once the blob has been read, before the
  // kernels pack the weights: a caller that owns the blob frees it there, so
  // the packed copies reuse its memory instead of touching fresh pages.
  // `setup_error` as in Create.
  static Result<std::unique_ptr<Program>> CreateWithParams(const CompileResult& compiled, ProgramOptions options,
                                                           std::span<const uint8_t> blob,
                                                           const std::function<void()>& blob_read = {},
                                                           std::optional<diag::Diagnostic>* setup_error = nullptr);
  // A program from an IR program that has been checked like a compiled one
  // (LoadBundle), with every parameter value from `blob` as in
  // CreateWithParams (`blob_read` as there); the seed is options.seed, else 0. Errors found while
  // the executors are built name file, line and column when `source` (the
  // text the IR's spans refer to) is given.
  static Result<std::unique_ptr<Program>> CreateWithParams(ir::Program program, ProgramOptions options,
                                                           std::span<const uint8_t> blob,
                                                           const diag::SourceFile* source,
                                                           const std::function<void()>& blob_read = {});
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  std::vector<std::string> GraphNames() const;
  // The index of graph `name` in GraphNames(); else NotFound naming it, the
  // graph it likely means and the graphs (every call taking a graph name
  // reports an unknown one with this error).
  Result<size_t> FindGraph(std::string_view name) const;
  // The inputs of a graph whose every input type the configuration fixes
  // (tensor, declared dtype, no dynamic or unbound dim): one spec per input
  // in declaration order. nullopt for other graphs and unknown names. These
  // graphs are planned at build time; Prepare with these specs does no
  // planning.
  std::optional<std::vector<InputSpec>> StaticInputs(std::string_view graph) const;
  const ir::Program& ir() const { return program_; }
  const ProgramOptions& options() const { return options_; }
  // The generator's seed (ProgramOptions::seed, else the compile result's).
  uint64_t seed() const { return seed_; }
  // Where each executor's generator stands (OPS.md §5: one per executor), to
  // put back after work that must draw nothing: a run whose results the
  // caller then refuses (a JS destination of the wrong size), warm-up runs.
  struct GeneratorStates {
    uint64_t tape = 0;
    uint64_t interpreter = 0;
  };
  GeneratorStates generator_states() const { return {rng_.state(), interp_rng_.state()}; }
  void set_generator_states(GeneratorStates s) {
    rng_.set_state(s.tape);
    interp_rng_.set_state(s.interpreter);
  }

  // The tape executor; outputs by name. On an input error `issue` (if
  // given) receives the input's name and expected/actual type as fields.
  Result<runtime::TensorMap> Run(std::string_view graph, const runtime::TensorMap& inputs,
                                 jit::InputIssue* issue = nullptr);
  // The reference interpreter on the same parameters (inputs checked like Run).
  Result<runtime::TensorMap> Interpret(std::string_view graph, const runtime::TensorMap& inputs,
                                       jit::InputIssue* issue = nullptr);

  // The lean path for repeated runs with the same input types (bindings,
  // benchmarks; prepared_run.h): checks the inputs described by `inputs`
  // exactly like Run (same errors), plans the binding and returns a handle
  // whose input buffers the caller fills before each PreparedRun::Run. The
  // handle must not outlive the program.
  Result<std::unique_ptr<PreparedRun>> Prepare(std::string_view graph, std::span<const InputSpec> inputs,
                                               jit::InputIssue* issue = nullptr);

  // (GRAPH/PARAM, tensor), sorted by key. Pointers stay valid until the
  // program is destroyed (SetParam writes in place).
  std::vector<std::pair<std::string, const runtime::Tensor*>> Params() const;
  Result<runtime::Tensor> GetParam(std::string_view key) const;
  // `value` needs the parameter's shape and storage type: like an input, an
  // f16 parameter takes f32 values and an i8 one i32 or i64, bytes as is.
  Status SetParam(std::string_view key, const runtime::Tensor& value);

  // Every parameter in one binary blob (format: api/param_blob.h), keys in
  // sorted order. LoadParams checks the whole blob first — structure, then
  // that it holds exactly this program's parameters with the same dtypes
  // and shapes — and changes nothing on any error (the message names the
  // parameter and the expected and actual dtype/shape). On success the
  // values are written in place and kernels that packed them are rebuilt.
  std::vector<uint8_t> SaveParams() const;
  Status LoadParams(std::span<const uint8_t> blob);
  // FNV-1a 64 of SaveParams() (same seed ⇒ same checksum, native and wasm).
  uint64_t ParamsChecksum() const;

  // Statistics, §7.7 dump (plus values and plan) and the plan as JSON, for
  // the binding last run (arena fields 0 / "not yet bound" before any run
  // of a graph with symbolic dims).
  Result<jit::CompileStats> Stats(std::string_view graph) const;
  Result<std::string> Dump(std::string_view graph) const;
  Result<std::string> PlanJson(std::string_view graph) const;
  // The tape as JSON, one object per instruction (jit::DumpTapeJson).
  Result<std::string> TapeJson(std::string_view graph) const;
  // Rebuilds one graph's tape, kernels and plans.
  Status Recompile(std::string_view graph);

  // XNNPACK operators owned by this program's kernels.
  int num_live_xnn_operators() const;

  // Ok, or the ResourceExhausted error a run of `graph` gets for performing
  // more than max_steps_per_run operations (Run, Interpret and Prepare check
  // it themselves; callers driving executor() directly should too).
  Status CheckSteps(std::string_view graph) const;

  // Kernel times of the graph's last binding (jit::ProfileTape). Its runs
  // leave the tape's generator as it was: a profile in training mode does
  // not change the masks of the runs after it.
  Result<jit::TapeProfile> Profile(std::string_view graph, int runs);

  // Low-level access (bindings, benchmarks): the compiled graph and its
  // executor, nullptr for an unknown name. A graph compiled per input
  // signature has them once it ran: those of its most recent signature.
  jit::Executor* executor(std::string_view graph);
  const jit::CompiledGraph* compiled(std::string_view graph) const;

 private:
  friend class PreparedRun;
  // Checked inputs of one graph: the full dim binding and one shape per
  // graph input (absent optional inputs get their concrete declared shape).
  struct CheckedInputs {
    ir::DimBindings dims;
    std::vector<runtime::Shape> shapes;
    std::vector<int> supplied;  // per graph input: index into the specs, -1 if absent
  };
  Result<CheckedInputs> CheckInputs(size_t graph, std::span<const InputSpec> inputs, jit::InputIssue* issue) const;
  Status CheckSteps(size_t graph) const;
  // Runs the tape; a run that fails draws nothing: the generator is as it
  // was before it (dropout in training mode), as for a failed interpreter
  // run, whichever step the two fail at (a callee's @assert: the tape at
  // binding, the interpreter at the call, after a dropout drew).
  Status RunDrawingNothingOnFailure(jit::Executor& ex);
  // Checks the @assert / @check conditions of a graph of the program
  // reached through a call on the dims the call bound (both executors, and
  // the specialisation of calls).
  jit::CallCheck CalleeCheck() const;
  // A graph compiled for one signature of its inputs (dtype and shape each,
  // nullopt when an optional input is left out).
  using InputSignature = std::vector<std::optional<std::pair<ir::DType, runtime::Shape>>>;
  struct Specialized {
    InputSignature signature;
    uint64_t generation = 0;  // Entry::generation when compiled
    std::unique_ptr<jit::CompiledGraph> compiled;
    std::unique_ptr<jit::Executor> executor;
  };
  struct Entry {
    std::unique_ptr<jit::CompiledGraph> compiled;
    std::unique_ptr<jit::Executor> executor;
    // A graph with an input of unknown type (`input x: ?`) has no kernels
    // before its inputs are known: it is compiled per input signature at run
    // time, the kMaxSpecializations most recently used kept (least recent first).
    bool deferred = false;
    std::vector<std::shared_ptr<Specialized>> specialized;
    // Counts the times `specialized` was dropped (a recompile, SetParam): a
    // call kernel or prepared run may still hold one of them, and must not
    // run it.
    uint64_t generation = 0;
  };
  static constexpr size_t kMaxSpecializations = 8;
  // What runs graph `gi` for inputs checked by CheckInputs: the graph's own
  // executor, or for a deferred graph the one compiled for this signature.
  struct Runner {
    jit::CompiledGraph* compiled = nullptr;
    jit::Executor* executor = nullptr;
    std::shared_ptr<Specialized> keep;  // keeps a specialisation alive
  };
  Result<Runner> RunnerFor(size_t gi, std::span<const InputSpec> inputs, const CheckedInputs& checked);
  // Makes `s` the most recently used of e's specialisations, if it is one of
  // them (an evicted one a kernel or prepared run still holds is not).
  static void Touch(Entry& e, const Specialized* s);
  // What a call kernel runs (jit::CalleeResolver): graph `index`'s executor,
  // or the one compiled for the call's input types and shapes.
  Status CalleeFor(int index, std::span<const jit::InputDesc> inputs, const ir::DimBindings& dims,
                   jit::CalleeTarget* target);
  jit::ExecutorOptions MakeExecutorOptions() const;
  // Deferred graphs: the most recently used specialisation, for dumps and stats.
  Result<const Specialized*> Latest(size_t gi) const;
  Program(ir::Program program, ProgramOptions options, uint64_t seed);
  // Where Init takes parameter values from, besides the initialisers.
  struct ParamSource {
    const Program* previous = nullptr;               // carry same-typed values (CreateCarrying)
    std::vector<std::string>* carried = nullptr;     // receives the carried keys
    const std::span<const uint8_t>* blob = nullptr;  // every value (CreateWithParams)
    const std::function<void()>* blob_read = nullptr;  // called once the blob is written
    std::optional<diag::Diagnostic>* setup_error = nullptr;  // receives a source error's diagnostic (Create)
  };
  static Result<std::unique_ptr<Program>> FromCompiled(const CompileResult& compiled, ProgramOptions options,
                                                       const ParamSource& source);
  static Result<std::unique_ptr<Program>> FromIr(ir::Program program, const diag::SourceFile* text, uint64_t seed,
                                                 ProgramOptions options, const ParamSource& source);
  Status Init(const ParamSource& source);
  // Checks a parameter blob against params_ and writes it (LoadParams
  // without re-creating kernels); returns the keys written.
  Result<std::vector<std::string>> WriteParamBlob(std::span<const uint8_t> blob);
  Result<std::vector<std::string>> WriteParamRecords(std::span<const ParamRecord> records);
  // Before Init allocates: each record that names a declared parameter has
  // its dtype and shape (the errors of WriteParamRecords).
  Status CheckRecordShapes(std::span<const ParamRecord> records) const;
  jit::CompileOptions MakeCompileOptions(const ir::Graph& graph);
  // The part of MakeCompileOptions that re-creating kernels reads.
  jit::CompileOptions MakeKernelOptions() const;
  Status CompileOne(size_t index);
  // After CompileOne (of every graph, at Init): plans a graph whose input
  // shapes are all fixed — for a deferred one, compiles its one signature.
  void PrepareStatic(size_t index);
  // Compiles (if new) and plans graph `index`, deferred, for these inputs;
  // a failure here resurfaces, with the input checks first, on Run.
  void PlanSignature(size_t index, const std::vector<InputSpec>& specs);
  // Re-creates the kernels that packed any of the parameters `keys`
  // ("Graph/name", after their values changed). Costs what those kernels
  // cost, not the program's size: SetParam in a loop stays linear.
  Status RefreshKernelsFor(std::span<const std::string> keys);
  Result<runtime::Tensor> CallGraph(std::string_view callee, std::span<const runtime::Tensor* const> operands);
  // Run; `from_caller`: the inputs are the caller's, whose narrow integer
  // values are checked (input_ranges.h); a graph call's operands are values
  // computed inside, held as i64 like every integer.
  Result<runtime::TensorMap> RunGraph(std::string_view graph, const runtime::TensorMap& inputs, jit::InputIssue* issue,
                                      bool from_caller);

  ir::Program program_;
  // Graph name -> index in program_.graphs (the first of a name): a scan per
  // lookup made a program of 32,000 graphs take 6 s to load (a lookup per graph).
  std::map<std::string, size_t, std::less<>> graph_index_;
  std::vector<ir::RunSteps> steps_;  // per graph (max_steps_per_run)
  ProgramOptions options_;
  uint64_t seed_;
  runtime::Rng rng_;
  // The interpreter's own generator (OPS.md §5: one per executor): rng_ as
  // the parameters' draws left it, so the two executors draw alike.
  runtime::Rng interp_rng_;
  runtime::ParamMap params_;
  // Where each key of params_ is declared: program_.graphs[graph].params()[param].
  struct ParamSlot {
    uint32_t graph = 0;
    uint32_t param = 0;
  };
  std::vector<ParamSlot> param_slots_;
  std::unordered_map<std::string_view, size_t> param_slot_of_key_;  // views of params_'s keys
  std::vector<Entry> graphs_;  // program_.graphs order
  std::vector<GraphAssertions> assertions_;  // program_.graphs order
  // Where Init failed, when one declaration is to blame (a parameter or a
  // node): FromCompiled renders the error at its source position.
  diag::Span init_error_span_;
};

}  // namespace shrew
