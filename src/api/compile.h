// The C++ entry point of the front end: source text -> checked, materialised
// and optimised IR program (PIPELINE.md §1).
//
//   shrew::CompileOptions options;
//   options.filename = "model.sw";
//   shrew::CompileResult r = shrew::Compile(text, options);
//   if (!r.ok) std::fputs(r.RenderDiagnostics().c_str(), stderr);
//   else use(r.program);   // r.unoptimized for dumps, r.stats for counters
//
// Stages, in order: parse -> lower -> validate -> infer shapes ->
// materialise -> optimise. Compile stops after the first stage that reports
// an error and returns every diagnostic of that stage (plus warnings of the
// stages before), each with its span; RenderDiagnostics() prints them as
// `FILE:LINE:COL: error[CODE]: MESSAGE` with the source line and a caret
// (`<input>` when no filename is given). Optimisation never fails.
//
// Guarantees: never aborts, throws or hangs on any input bytes (NUL bytes,
// invalid UTF-8, deep nesting, huge literals, huge repeat counts): problems
// become diagnostics. Deterministic: the same text and options give the same
// program, dumps and diagnostics. Time is linear in the input for the front
// end; the IR stages are linear in the graph size per optimiser round, and
// the rounds number about the depth of the deepest constant tree or chain of
// duplicate expressions (PIPELINE.md §6.4/§6.5 fold and merge one level per
// round), but rounds in which only those two rewrite cost what they
// rewrite: two identical 5,000-op chains take 5,000 rounds and a few ms.
//
// Metadata blocks stay available in `program`: `metadata` (@model),
// `config`, `type_aliases`, `training`, `inference`, `custom_ops`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "diag/diagnostic.h"
#include "diag/source.h"
#include "ir/dtype.h"
#include "ir/graph.h"
#include "ir/type.h"
#include "opt/pipeline.h"

namespace shrew {

struct CompileOptions {
  // Shown in diagnostics; empty means "<input>".
  std::string filename;
  // Values of symbolic dimensions known when compiling (e.g. Batch=8). They
  // specialise shape inference (input, parameter, declared and reshape
  // types) and give implicit attention parameters their model dimension.
  // @config values always win: they are substituted during lowering.
  ir::DimBindings dims;
  // Generator seed for the executors built from the result (OPS.md §5).
  // Unset: an integer `seed` key of @config, else 0 (see CompileResult::seed).
  std::optional<uint64_t> seed;
  // Run the optimiser (PIPELINE.md §6) with these passes.
  bool optimize = true;
  opt::PassOptions passes;
  // Dtype of float literals that no operation adopts (OPS.md §1.3): f16,
  // bf16, f32 or f64; another is error E143.
  ir::DType default_float = ir::DType::kF32;
  // Errors kept per compile (at least 1) before one "too many errors" diagnostic.
  size_t max_errors = 200;
  // Longer sources fail with E008 at the byte where the limit is crossed,
  // before anything else is done; at most kMaxSourceBytesCap.
  size_t max_source_bytes = size_t{64} << 20;
};
// Spans hold 32-bit offsets (and size_t may be 32-bit, as in wasm32).
inline constexpr size_t kMaxSourceBytesCap = size_t{0xFFFFFFFFu} - 1;

enum class CompileStage : uint8_t {
  kParse,
  kLower,
  kValidate,
  kInferShapes,
  kMaterialize,
  kOptimize,
  kJit,  // what the JIT cannot compile (a @custom_op call)
};
// "parse", "lower", "validate", "infer shapes", "materialise", "optimise", "jit".
const char* CompileStageName(CompileStage stage);

struct CompileResult {
  bool ok = false;
  // The last stage that ran: the failing one when !ok.
  CompileStage stage = CompileStage::kParse;
  // Errors of the failing stage and warnings of every stage that ran.
  std::vector<diag::Diagnostic> diagnostics;
  // The compiled text and its name; spans in diagnostics and nodes refer to it.
  std::unique_ptr<diag::SourceFile> source;
  // After optimisation (equal to `unoptimized` when options.optimize is
  // false). Complete only when ok.
  ir::Program program;
  // After materialisation, before optimisation (for dumps).
  ir::Program unoptimized;
  opt::OptStats stats;
  // The passes `program` was optimised with; nullopt when options.optimize
  // was false.
  std::optional<opt::PassOptions> passes;
  // The dims shape inference was specialised with (options.dims).
  ir::DimBindings dims;
  // The dtype unadopted float literals were given (options.default_float):
  // a Program built from this result types the graphs it compiles per
  // input signature with it too.
  ir::DType default_float = ir::DType::kF32;
  // Effective generator seed: options.seed, else @config `seed`, else 0.
  uint64_t seed = 0;
  // Symbolic dimension names of the source before any binding (in types,
  // declared types and shape attributes): the names `dims` can configure.
  // Set once lowering succeeded; independent of options.dims.
  std::set<std::string, std::less<>> dim_names;

  // Every diagnostic rendered with file:line:col, source line and caret.
  std::string RenderDiagnostics() const;
};

CompileResult Compile(std::string_view source, const CompileOptions& options = {});

// Every configured dim is a size: a negative one is an InvalidArgument
// "dimension 'N' = -1: a dimension is a non-negative integer". Checked by
// Compile (an E056 error), Program's Create and Reconfigure.
Status CheckDimValues(const ir::DimBindings& dims);

// Configured dims must change something: a name @config sets (it always
// wins, so the value would be ignored) or one the source never uses (most
// likely a typo) is an InvalidArgument naming it. `compiled` must be ok.
// The rule of both the package's compile option and Reconfigure (setDims).
Status CheckDims(const CompileResult& compiled, const ir::DimBindings& dims);

}  // namespace shrew
