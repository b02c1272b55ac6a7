// Embind bindings: the JS-facing surface of the wasm module. Only marshalling
// lives here; every decision is made by the C++ library. Errors come back as
// values ({ok:false, code, message}) since the module has no exceptions.
//
// Tensors cross as (dtype, shape, bytes): JS hands a Uint8Array view of its
// typed array, copied once into a host tensor; outputs come back as fresh
// Uint8Array copies that JS wraps in the typed array of the dtype. i32 is
// stored as i64 in C++ (OPS.md §1.3) and narrowed/widened here.
#include <emscripten/bind.h>
#include <emscripten/em_macros.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "api/bundle.h"
#include "api/compile.h"
#include "api/param_blob.h"
#include "api/prepared_run.h"
#include "api/program.h"
#include "api/reconfigure.h"
#include "diag/diagnostic.h"
#include "ir/dump.h"
#include "jit/profile.h"
#include "runtime/tensor.h"
#include "runtime/xnn_dense.h"
#include "wasm/out_of_memory.h"
#include "wasm/values.h"

namespace {

using emscripten::val;
using shrew::wasm::Error;
using shrew::wasm::OkOrError;
using shrew::wasm::ErrorWithIssue;
using shrew::wasm::StringList;

// A fresh JS Float32Array the caller owns (copied out of the wasm heap).
val CopyOut(const std::vector<float>& v) {
  return val(emscripten::typed_memory_view(v.size(), v.data())).call<val>("slice");
}

std::string Show(val v) { return val::global("String")(v).as<std::string>(); }
// "null", "string", "Float32Array", …: for values whose text could be huge.
std::string TypeName(val v) {
  if (v.isNull()) return "null";
  const std::string type = v.typeOf().as<std::string>();
  if (type != "object") return type;
  val ctor = v["constructor"];
  return ctor.isUndefined() || ctor.isNull() ? type : ctor["name"].as<std::string>();
}

// denseXnn(batch, in, out, x, w, bias) -> {ok, data} | {ok:false, code, message}
// Checked before anything is copied in (a failed allocation would abort the
// module): integer sizes, the array lengths they imply, and at most 1 GiB
// for x, w, bias, the packed weights and the result together.
val DenseXnn(double batch, double in, double out, val x, val w, val bias) {
  for (double d : {batch, in, out}) {
    if (!(d >= 0 && d == std::floor(d) && std::isfinite(d))) {
      return Error(shrew::InvalidArgument("dense: sizes must be non-negative integers, got " + Show(val(d))));
    }
    if (d > 2147483647.0) {
      return Error(shrew::ResourceExhausted("dense: size " + Show(val(d)) + " is over the limit of 2147483647"));
    }
  }
  // Exact up to 2^53; beyond, far over the limit either way.
  const double nx = batch * in, nw = out * in, ny = batch * out;
  const double lx = x["length"].as<double>(), lw = w["length"].as<double>(), lb = bias["length"].as<double>();
  const double bytes = 4.0 * (nx + 2.0 * nw + lb + ny);
  if (bytes > 1073741824.0) {
    return Error(shrew::ResourceExhausted("dense: x, w, bias, the packed weights and the result need " + Show(val(bytes)) +
                                          " bytes; at most 1073741824"));
  }
  if (lx != nx) return Error(shrew::InvalidArgument("dense: x has " + Show(val(lx)) + " elements, expected " + Show(val(nx))));
  if (lw != nw) return Error(shrew::InvalidArgument("dense: w has " + Show(val(lw)) + " elements, expected " + Show(val(nw))));
  if (lb != 0 && lb != out) {
    return Error(shrew::InvalidArgument("dense: bias has " + Show(val(lb)) + " elements, expected " + Show(val(out))));
  }
  shrew::runtime::DenseShape shape{static_cast<size_t>(batch), static_cast<size_t>(in), static_cast<size_t>(out)};
  auto result = shrew::runtime::DenseXnn(shape, emscripten::convertJSArrayToNumberVector<float>(x),
                                         emscripten::convertJSArrayToNumberVector<float>(w),
                                         emscripten::convertJSArrayToNumberVector<float>(bias));
  if (!result.ok()) return Error(result.status());
  val ok = val::object();
  ok.set("ok", true);
  ok.set("data", CopyOut(*result));
  return ok;
}

bool Simd128() {
#ifdef __wasm_simd128__
  return true;
#else
  return false;
#endif
}

// {heapBytes, usedBytes}: linear memory size and bytes malloc holds (leak tests).
val HeapStats() {
  struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("heapBytes", static_cast<double>(__builtin_wasm_memory_size(0)) * 65536.0);
  out.set("usedBytes", static_cast<double>(info.uordblks));
  return out;
}

// excerpt(source, line, column, length) -> string: that span's source line
// and a caret line under it, as diagnostics render them (diag::RenderExcerpt);
// "" when the line is not in the source.
std::string Excerpt(const std::string& source, int line, int column, int length) {
  const shrew::diag::SourceFile file("", source);
  if (line < 1 || column < 1 || length < 0 || static_cast<uint32_t>(line) > file.line_count()) return "";
  shrew::SourceSpan span;
  span.line = static_cast<uint32_t>(line);
  span.column = static_cast<uint32_t>(column);
  span.length = static_cast<uint32_t>(length);
  return shrew::diag::RenderExcerpt(span, file);
}

// A non-negative integer that a double holds exactly (at most 2^53 - 1).
// What IsCount accepts, for the messages: JS numbers are exact integers only up to 2^53 - 1.
constexpr const char* kCountRule = "must be a non-negative integer (at most 2^53 - 1), got ";

bool IsCount(val v) {
  return v.isNumber() && val::global("Number").call<bool>("isSafeInteger", v) && v.as<double>() >= 0;
}


// The dims option, {name: size}: every size a non-negative safe integer
// (1.5, NaN, "8" or 2^60 would otherwise be truncated or wrap silently).
shrew::Result<shrew::ir::DimBindings> DimsFrom(val dims) {
  shrew::ir::DimBindings out;
  if (dims.isUndefined() || dims.isNull()) return out;
  if (dims.typeOf().as<std::string>() != "object" || val::global("Array").call<bool>("isArray", dims)) {
    return shrew::InvalidArgument("dims must be an object {name: size}, got " + Show(dims));
  }
  val keys = val::global("Object").call<val>("keys", dims);
  const int n = keys["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const std::string key = keys[i].as<std::string>();
    val v = dims[key];
    if (!IsCount(v)) return shrew::InvalidArgument("dims." + key + " " + kCountRule + Show(v));
    out[key] = static_cast<int64_t>(v.as<double>());
  }
  return out;
}

// The seed option: a u64 as its decimal digits (the wrapper sends every seed
// so, bigints and numbers alike: a double holds integers exactly only up to
// 2^53 - 1, and @config's seed -1 is 2^64 - 1), a bigint, or a number that
// is a non-negative safe integer.
shrew::Result<uint64_t> SeedFrom(val v) {
  if (IsCount(v)) return static_cast<uint64_t>(v.as<double>());
  if (v.isString() || v.typeOf().as<std::string>() == "bigint") {
    const std::string digits = Show(v);
    uint64_t seed = 0;
    const char* end = digits.data() + digits.size();
    // from_chars into an unsigned type takes digits only (no sign, no
    // space) and reports a value past 2^64 - 1 as out of range.
    auto [stop, ec] = std::from_chars(digits.data(), end, seed);
    if (!digits.empty() && ec == std::errc() && stop == end) return seed;
  }
  return shrew::InvalidArgument(
      "seed must be a non-negative integer (a number of at most 2^53 - 1, or the decimal digits or bigint of one "
      "of at most 2^64 - 1), got " + Show(v));
}

struct CompileSettings {
  shrew::CompileOptions compile;
  shrew::ProgramOptions program;
  std::optional<shrew::runtime::Tensor> params;  // a saveParams blob (u8): the values instead of the initialisers
};

// The options a compiled and a loaded program share: training, maxTensorBytes,
// maxStepsPerRun.
shrew::Status RunSettingsFrom(val options, shrew::ProgramOptions* out) {
  if (!options["training"].isUndefined()) {
    if (options["training"].typeOf().as<std::string>() != "boolean") {
      return shrew::InvalidArgument("training must be true or false, got " + Show(options["training"]));
    }
    out->training = options["training"].as<bool>();
  }
  if (!options["maxTensorBytes"].isUndefined()) {
    if (!IsCount(options["maxTensorBytes"])) {
      return shrew::InvalidArgument(std::string("maxTensorBytes ") + kCountRule + Show(options["maxTensorBytes"]));
    }
    out->max_tensor_bytes = static_cast<uint64_t>(options["maxTensorBytes"].as<double>());
  }
  if (!options["maxStepsPerRun"].isUndefined()) {
    if (!IsCount(options["maxStepsPerRun"])) {
      return shrew::InvalidArgument(std::string("maxStepsPerRun ") + kCountRule + Show(options["maxStepsPerRun"]));
    }
    out->max_steps_per_run = static_cast<uint64_t>(options["maxStepsPerRun"].as<double>());
  }
  return shrew::Status::Ok();
}

// Every key of `options` is one of `known` (a misspelt key would otherwise
// be ignored without a word).
shrew::Status KnownKeys(val options, std::span<const char* const> known, const char* what) {
  val keys = val::global("Object").call<val>("keys", options);
  const int n = keys["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const std::string key = keys[i].as<std::string>();
    bool found = false;
    for (const char* k : known) found |= key == k;
    if (!found) {
      std::string list;
      for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return shrew::InvalidArgument("unknown " + std::string(what) + " option '" + key + "'; options: " + list);
    }
  }
  return shrew::Status::Ok();
}

// loadBundle(bytes, {training, maxTensorBytes, maxStepsPerRun}).
shrew::Result<shrew::ProgramOptions> LoadSettingsFrom(val options) {
  shrew::ProgramOptions out;
  if (options.isUndefined() || options.isNull()) return out;
  if (options.typeOf().as<std::string>() != "object") return shrew::InvalidArgument("load options must be an object");
  static const char* const kKnown[] = {"training", "maxTensorBytes", "maxStepsPerRun"};
  SHREW_RETURN_IF_ERROR(KnownKeys(options, kKnown, "load"));
  SHREW_RETURN_IF_ERROR(RunSettingsFrom(options, &out));
  return out;
}

// compile(source, options): every key known and every value of its type — a
// misspelt key, a string seed or a fractional byte cap would otherwise be
// ignored or truncated without a word. Absent (undefined) values keep their
// defaults.
shrew::Result<CompileSettings> CompileSettingsFrom(val options) {
  CompileSettings out;
  if (options.isUndefined() || options.isNull()) return out;
  if (options.typeOf().as<std::string>() != "object") return shrew::InvalidArgument("compile options must be an object");
  static const char* const kKnown[] = {"filename", "dims",           "seed",   "optimize",      "training",
                                       "maxTensorBytes", "params", "maxStepsPerRun", "defaultDtype"};
  SHREW_RETURN_IF_ERROR(KnownKeys(options, kKnown, "compile"));
  auto present = [&](const char* key) { return !options[key].isUndefined(); };
  if (present("filename")) {
    if (!options["filename"].isString()) return shrew::InvalidArgument("filename must be a string, got " + Show(options["filename"]));
    out.compile.filename = options["filename"].as<std::string>();
  }
  shrew::Result<shrew::ir::DimBindings> dims = DimsFrom(options["dims"]);
  if (!dims.ok()) return dims.status();
  out.compile.dims = std::move(dims).value();
  out.program.dims = out.compile.dims;
  if (present("seed")) {
    shrew::Result<uint64_t> seed = SeedFrom(options["seed"]);
    if (!seed.ok()) return seed.status();
    out.compile.seed = *seed;
  }
  for (const char* key : {"optimize", "training"}) {
    if (present(key) && options[key].typeOf().as<std::string>() != "boolean") {
      return shrew::InvalidArgument(std::string(key) + " must be true or false, got " + Show(options[key]));
    }
  }
  if (present("optimize")) out.compile.optimize = options["optimize"].as<bool>();
  if (present("defaultDtype")) {
    const std::optional<shrew::ir::DType> d =
        options["defaultDtype"].isString() ? shrew::ir::DTypeFromName(options["defaultDtype"].as<std::string>()) : std::nullopt;
    if (!d || !shrew::ir::IsFloat(*d)) {
      // The JS wrapper checks it first (with the closest name, js/src/index.ts): this guards the binding alone.
      return shrew::InvalidArgument("defaultDtype must be \"f16\", \"bf16\", \"f32\" or \"f64\", got " + Show(options["defaultDtype"]));
    }
    out.compile.default_float = *d;
    out.program.default_dtype = *d;
  }
  SHREW_RETURN_IF_ERROR(RunSettingsFrom(options, &out.program));
  if (present("params")) {
    if (!options["params"].instanceof(val::global("Uint8Array"))) {
      return shrew::InvalidArgument("params must be a Uint8Array (a saveParams() blob), got " + TypeName(options["params"]));
    }
    shrew::Result<shrew::runtime::Tensor> blob = shrew::wasm::BytesIn(options["params"], "params");
    if (!blob.ok()) return blob.status();
    out.params = std::move(blob).value();
  }
  return out;
}

// One compiled program: the compile result (diagnostics, unoptimised IR) and
// the runnable Program built from it.
class ProgramHandle {
 public:
  // compile(source, {filename, dims, seed, optimize, training, maxTensorBytes, params, maxStepsPerRun, defaultDtype})
  //   -> {ok, diagnostics, rendered, stage, seed, optStats, graphs}
  // (seed: the effective seed's decimal digits, exact past 2^53, as in the
  // results of loadBundle and setDims)
  // or {ok:false, code, message} when the program cannot be built (params
  // that do not fit the program included: Program::CreateWithParams).
  val Compile(const std::string& source, val options) {
    shrew::Result<CompileSettings> settings = CompileSettingsFrom(options);
    if (!settings.ok()) return Error(settings.status());
    prepared_.clear();
    program_.reset();
    compiled_.reset();
    bundle_ = {};
    // The AST and IR take a few dozen bytes per byte of source: a longer
    // source than the memory could ever hold so is said as such (it read "not
    // enough wasm memory left", advising to dispose of programs).
    if (source.size() > shrew::wasm::kMaxSourceBytes) {
      return Error(shrew::ResourceExhausted(
          "the source is " + std::to_string(source.size()) + " bytes, more than the " +
          std::to_string(shrew::wasm::kMaxSourceBytes) + " (" + std::to_string(shrew::wasm::kMaxSourceBytes >> 20) +
          " MiB) this module compiles (compiling takes up to " +
          std::to_string(shrew::wasm::kCompileBytesPerSourceByte) +
          " bytes of memory per byte of source, and its memory is at most 2 GiB)"));
    }
    shrew::Status room = shrew::wasm::EnsureHeadroom("compile", source.size(), shrew::wasm::kCompileBytesPerSourceByte);
    if (!room.ok()) return Error(room);
    shrew::CompileOptions opts = std::move(settings->compile);
    shrew::ProgramOptions popts = std::move(settings->program);
    compiled_ = std::make_unique<shrew::CompileResult>(shrew::Compile(source, opts));
    val out = val::object();
    out.set("ok", compiled_->ok);
    out.set("stage", std::string(shrew::CompileStageName(compiled_->stage)));
    out.set("diagnostics", shrew::wasm::Diagnostics(*compiled_));
    out.set("rendered", compiled_->RenderDiagnostics());
    if (!compiled_->ok) return out;
    shrew::Status dims_used = shrew::CheckDims(*compiled_, opts.dims);
    if (!dims_used.ok()) return Error(dims_used);
    shrew::Status build_room = shrew::wasm::EnsureBuildHeadroom(compiled_->program);
    if (!build_room.ok()) return Error(build_room);
    out.set("seed", std::to_string(compiled_->seed));
    out.set("optStats", shrew::wasm::OptStatsValue(compiled_->stats));
    // The blob is freed once read: the packed weights then reuse its pages
    // (a fresh page costs up to 16 µs on a first touch in some VMs).
    std::optional<shrew::diag::Diagnostic> setup_error;
    auto program = settings->params
                       ? shrew::Program::CreateWithParams(*compiled_, popts, settings->params->values<uint8_t>(),
                                                          [&settings] { settings->params.reset(); }, &setup_error)
                       : shrew::Program::Create(*compiled_, popts, &setup_error);
    if (!program.ok()) {
      if (!setup_error) return Error(program.status());
      // A source error found while the program is built (E150 at a
      // declaration) is the compile's last diagnostic, stage jit, as a
      // @custom_op call is: compile() then throws ShrewCompileError with it.
      compiled_->diagnostics.push_back(*std::move(setup_error));
      compiled_->ok = false;
      compiled_->stage = shrew::CompileStage::kJit;
      out.set("ok", false);
      out.set("stage", std::string(shrew::CompileStageName(compiled_->stage)));
      out.set("diagnostics", shrew::wasm::Diagnostics(*compiled_));
      out.set("rendered", compiled_->RenderDiagnostics());
      return out;
    }
    program_ = std::move(program).value();
    copts_ = std::move(opts);
    popts_ = std::move(popts);
    out.set("graphs", GraphsValue());
    return out;
  }

  // loadBundle(bytes, {training, maxTensorBytes}) -> {ok, seed, dims, optStats, graphs}
  // or an error value: the program of a bundle (api/bundle.h), no compiler
  // involved. The copy of the bundle is freed once read, so the packed
  // weights reuse its pages (as compile's params).
  val LoadBundle(val bytes, val options) {
    shrew::Result<shrew::ProgramOptions> popts = LoadSettingsFrom(options);
    if (!popts.ok()) return Error(popts.status());
    if (!bytes.instanceof(val::global("Uint8Array"))) {
      return Error(shrew::InvalidArgument("a bundle must be a Uint8Array (a saveBundle() result), got " + TypeName(bytes)));
    }
    shrew::Result<shrew::runtime::Tensor> blob = shrew::wasm::BytesIn(bytes, "loadBundle");
    if (!blob.ok()) return Error(blob.status());
    prepared_.clear();
    program_.reset();
    compiled_.reset();
    bundle_ = {};
    // The parameters are tensors (their failure is an error); the margin is for the graphs.
    shrew::Status room = shrew::wasm::EnsureHeadroom("load a bundle");
    if (!room.ok()) return Error(room);
    std::optional<shrew::runtime::Tensor> held(std::move(blob).value());
    shrew::Result<std::unique_ptr<shrew::Program>> program =
        shrew::LoadBundle(held->values<uint8_t>(), *popts, &bundle_, [&held] { held.reset(); });
    if (!program.ok()) return Error(program.status());
    program_ = std::move(program).value();
    popts_ = program_->options();
    val out = val::object();
    out.set("ok", true);
    out.set("seed", std::to_string(program_->seed()));
    val dims = val::object();
    for (const auto& [name, value] : popts_.dims) shrew::wasm::SetOwn(dims, name, val(static_cast<double>(value)));
    out.set("dims", dims);
    out.set("optStats", shrew::wasm::OptStatsValue(bundle_.opt_stats));
    out.set("graphs", GraphsValue());
    return out;
  }

  // saveBundle() -> {ok, bytes: Uint8Array}: this program as a bundle, with
  // its current parameter values.
  val SaveBundle() const {
    if (!program_) return NotReady();
    // The weights' blob, written in place, and the program and source,
    // in a vector that doubles: about three times their size at once.
    const shrew::diag::SourceFile* source = compiled_ ? compiled_->source.get() : bundle_.source.get();
    const uint64_t rest = (source != nullptr ? source->text().size() : 0) + shrew::wasm::NodeCount(program_->ir()) * kBundleBytesPerNode;
    shrew::Status room = shrew::wasm::EnsureHeadroom("save a bundle", shrew::ParamBlobSize(program_->Params()) + 3 * rest, 1);
    if (!room.ok()) return Error(room);
    return BytesValue(compiled_ ? shrew::EncodeBundle(*program_, compiled_->source.get(), compiled_->stats)
                                : shrew::EncodeBundle(*program_, bundle_.source.get(), bundle_.opt_stats));
  }

  // source() -> {ok, filename, bytes: Uint8Array}: the text this program's
  // spans refer to (its source as compiled, or as its bundle carries it),
  // a fresh copy; {ok} alone for a bundle that carries none.
  val Source() const {
    if (!program_) return NotReady();
    const shrew::diag::SourceFile* source = compiled_ ? compiled_->source.get() : bundle_.source.get();
    if (source == nullptr) {
      val out = val::object();
      out.set("ok", true);
      return out;
    }
    const std::string& text = source->text();
    val out = BytesValue({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
    out.set("filename", source->name());
    return out;
  }

  // setDims({name: size}) -> {ok, dims, carried, initialised, seed, optStats, diagnostics}:
  // compiles the same source with the changed dims and swaps in the new
  // program (api/reconfigure.h); on error the current program stays.
  val SetDims(val dims) {
    if (!program_) return NotReady();
    if (!compiled_) {
      return Error(shrew::FailedPrecondition(
          "setDims compiles the source again, and a program loaded from a bundle is not compiled: build the bundle "
          "with these dims, or leave them symbolic so that each run's inputs bind them"));
    }
    shrew::Result<shrew::ir::DimBindings> change = DimsFrom(dims);
    if (!change.ok()) return Error(change.status());
    shrew::Status room = shrew::wasm::EnsureHeadroom("compile with new dims", compiled_->source->text().size(),
                                                      shrew::wasm::kCompileBytesPerSourceByte);
    if (room.ok()) room = shrew::wasm::EnsureBuildHeadroom(compiled_->program);  // its nodes, as before
    if (!room.ok()) return Error(room);
    shrew::Result<shrew::Reconfigured> r =
        shrew::Reconfigure(compiled_->source->text(), copts_, popts_, *program_, *change);
    if (!r.ok()) return Error(r.status());
    prepared_.clear();  // they point into the program being replaced
    program_ = std::move(r->program);
    compiled_ = std::move(r->compiled);
    copts_.dims = r->dims;
    popts_.dims = r->dims;
    val out = val::object();
    out.set("ok", true);
    val effective = val::object();
    for (const auto& [name, value] : r->dims) shrew::wasm::SetOwn(effective, name, val(static_cast<double>(value)));
    out.set("dims", effective);
    out.set("carried", StringList(r->carried));
    out.set("initialised", StringList(r->initialised));
    out.set("seed", std::to_string(compiled_->seed));
    out.set("optStats", shrew::wasm::OptStatsValue(compiled_->stats));
    out.set("diagnostics", shrew::wasm::Diagnostics(*compiled_));
    out.set("graphs", GraphsValue());
    return out;
  }

  // Part of the compile and setDims results: per graph in source order
  // {name, signature, key?, prepared?}. A graph whose input types the
  // configuration fixes is prepared here for those types (key: the specs in
  // declaration order, as the lean path keys them; prepared: the prepare()
  // value), so the program's first run with them does no preparing and
  // nothing crosses for its signature. Only while its inputs total at most
  // kEagerInputBytes: the prepared run holds a copy of each input, memory a
  // graph that is never run would not otherwise take.
  static constexpr uint64_t kEagerInputBytes = uint64_t{16} << 20;
  val GraphsValue() {
    val list = val::array();
    int k = 0;
    for (const shrew::ir::Graph& g : program_->ir().graphs) {
      val v = val::object();
      v.set("name", g.name());
      v.set("signature", shrew::wasm::SignatureValue(g));
      if (std::optional<std::vector<shrew::InputSpec>> specs = EagerSpecs(g.name())) {
        // If these types fail the input checks, the first run prepares (and reports).
        val prepared = PrepareSpecs(g.name(), *specs, true);
        if (prepared["ok"].as<bool>()) {
          val key = val::array();
          for (size_t i = 0; i < specs->size(); ++i) {
            val item = val::object();
            item.set("name", (*specs)[i].name);
            item.set("dtype", shrew::wasm::JsDType((*specs)[i].dtype));
            item.set("shape", shrew::wasm::ShapeValue((*specs)[i].shape));
            key.set(i, item);
          }
          v.set("key", key);
          v.set("prepared", prepared);
        }
      }
      list.set(k++, v);
    }
    return list;
  }

  // The input specs GraphsValue prepares a graph for: its declared inputs
  // with each dtype as a typed array crosses (f16 → f32); nullopt when the
  // configuration does not fix them or they total over kEagerInputBytes.
  std::optional<std::vector<shrew::InputSpec>> EagerSpecs(const std::string& graph) const {
    std::optional<std::vector<shrew::InputSpec>> specs = program_->StaticInputs(graph);
    if (!specs) return std::nullopt;
    uint64_t bytes = 0;
    for (shrew::InputSpec& spec : *specs) {
      const std::string js = shrew::wasm::JsDType(spec.dtype);
      std::optional<shrew::ir::DType> crossed = shrew::ir::DTypeFromName(js);
      shrew::Result<int64_t> n = shrew::runtime::CountElements(spec.shape);
      if (!crossed || !n.ok() || static_cast<uint64_t>(*n) > kEagerInputBytes) return std::nullopt;
      spec.dtype = *crossed;
      bytes += static_cast<uint64_t>(*n) * shrew::ir::StorageByteSize(shrew::ir::StorageOf(spec.dtype));
      if (bytes > kEagerInputBytes) return std::nullopt;
    }
    return specs;
  }

  val Graphs() const {
    if (!program_) return val::array();
    return StringList(program_->GraphNames());
  }

  val Signature(const std::string& graph) const {
    const shrew::ir::Graph* g = FindGraph(graph);
    if (g == nullptr) return NoGraph(graph);
    return shrew::wasm::SignatureValue(*g);
  }

  val Run(const std::string& graph, val inputs) { return Execute(graph, inputs, false); }
  val Interpret(const std::string& graph, val inputs) { return Execute(graph, inputs, true); }

  // The lean run path (program.ts uses it for `run` with the input types of
  // a graph's recent bindings, each prepared once). prepare(graph, [{name, dtype, shape}]) checks the inputs
  // like run (same structured errors) and returns
  //   {ok, id, lean, handle, inputs: [{ptr, bytes}] (specs order), outputs: [{name, dtype, shape, bytes}], outPtrs}
  // Per call JS writes each input's bytes at its ptr (buffers stay put until
  // release(id)), calls the export _shrew_run_prepared(handle, id) (0 = ok,
  // else lastError() has the error value) and copies output o from
  // HEAPU32[outPtrs/4 + o]. An i32 input or output (i64 inside) crosses
  // through a 32-bit copy of its own. lean is false when output shapes
  // depend on values: the caller then uses run().
  val Prepare(const std::string& graph, val specs) {
    if (!program_) return NotReady();
    if (FindGraph(graph) == nullptr) return NoGraph(graph);
    std::vector<shrew::InputSpec> in;
    bool lean = true;
    const int n = specs["length"].as<int>();
    for (int i = 0; i < n; ++i) {
      val item = specs[i];
      shrew::InputSpec spec;
      spec.name = item["name"].as<std::string>();
      const std::string dtype_name = item["dtype"].as<std::string>();
      std::optional<shrew::ir::DType> dtype = shrew::ir::DTypeFromName(dtype_name);
      if (!dtype || shrew::wasm::JsDType(*dtype) != dtype_name) {
        val e = Error(shrew::InvalidArgument("input '" + spec.name + "': unsupported dtype '" + dtype_name +
                                             "' (expected f32, f64, i32, i64, u8 or bool)"));
        e.set("input", spec.name);
        return e;
      }
      spec.dtype = *dtype;
      auto shape = shrew::wasm::ShapeIn(item["shape"]);
      if (!shape.ok()) {
        val e = Error(shape.status().Prefixed("input '" + spec.name + "': "));
        e.set("input", spec.name);
        return e;
      }
      spec.shape = std::move(shape).value();
      in.push_back(std::move(spec));
    }
    return PrepareSpecs(graph, in, lean);
  }

  // prepare() once the specs are parsed; `lean` false to check only.
  val PrepareSpecs(const std::string& graph, std::span<const shrew::InputSpec> in, bool lean) {
    const int n = static_cast<int>(in.size());
    // Planning (or compiling for these input types) builds containers.
    shrew::Status room = shrew::wasm::EnsureHeadroom("run");
    if (!room.ok()) return Error(room);
    shrew::jit::InputIssue issue;
    auto prepared = program_->Prepare(graph, in, &issue);
    if (!prepared.ok()) return ErrorWithIssue(prepared.status(), issue);
    shrew::PreparedRun& p = **prepared;
    for (int o = 0; o < p.num_outputs(); ++o) {
      const std::string js = shrew::wasm::JsDType(p.output(o).dtype);
      lean = lean && js != "unsupported";
    }
    // Output shapes that depend on values are known per run: the value path.
    lean = lean && !p.shapes_vary();
    val out = val::object();
    out.set("ok", true);
    out.set("lean", lean);
    if (!lean) return out;
    auto slot = std::make_unique<Prepared>();
    slot->run = std::move(prepared).value();
    slot->out_ptrs.assign(static_cast<size_t>(p.num_outputs()), 0);
    val inputs = val::array();
    for (int k = 0; k < n; ++k) {
      const int i = p.input_of_spec(k);
      const void* ptr = p.input_data(i);
      uint64_t bytes = p.input_bytes(i);
      if (shrew::wasm::JsDType(in[static_cast<size_t>(k)].dtype) == "i32") {
        shrew::Result<int32_t*> narrow = slot->AddNarrow(&slot->narrow_inputs, i, bytes);
        if (!narrow.ok()) {
          val e = Error(narrow.status().Prefixed("input '" + in[static_cast<size_t>(k)].name + "': "));
          e.set("input", in[static_cast<size_t>(k)].name);
          return e;
        }
        ptr = *narrow;
        bytes /= 2;
      }
      val d = val::object();
      d.set("ptr", static_cast<double>(reinterpret_cast<uintptr_t>(ptr)));
      d.set("bytes", static_cast<double>(bytes));
      inputs.set(k, d);
    }
    val outputs = val::array();
    for (int o = 0; o < p.num_outputs(); ++o) {
      const shrew::PreparedRun::Output& po = p.output(o);
      const std::string js = shrew::wasm::JsDType(po.dtype);
      uint64_t bytes = po.bytes;
      if (js == "i32") {
        shrew::Result<int32_t*> narrow = slot->AddNarrow(&slot->narrow_outputs, o, bytes);
        if (!narrow.ok()) return Error(narrow.status().Prefixed("output '" + po.name + "': "));
        bytes /= 2;
      }
      val d = val::object();
      d.set("name", po.name);
      d.set("dtype", js);
      d.set("shape", shrew::wasm::ShapeValue(po.shape));
      d.set("bytes", static_cast<double>(bytes));
      outputs.set(o, d);
    }
    out.set("inputs", inputs);
    out.set("outputs", outputs);
    out.set("outPtrs", static_cast<double>(reinterpret_cast<uintptr_t>(slot->out_ptrs.data())));
    out.set("handle", static_cast<double>(reinterpret_cast<uintptr_t>(this)));
    int id = 0;
    while (id < static_cast<int>(prepared_.size()) && prepared_[static_cast<size_t>(id)]) ++id;
    if (id == static_cast<int>(prepared_.size())) prepared_.emplace_back();
    prepared_[static_cast<size_t>(id)] = std::move(slot);
    out.set("id", id);
    return out;
  }

  // 0 on success (output pointers written to outPtrs), else 1 with the error
  // value kept for lastError(). No allocation while the binding is active.
  int RunPrepared(int id) {
    Prepared* slot = PreparedAt(id);
    if (slot == nullptr) {
      last_error_ = shrew::Status(shrew::StatusCode::kFailedPrecondition, "no prepared run " + std::to_string(id));
      last_issue_ = {};
      return 1;
    }
    last_issue_ = {};
    for (Prepared::Narrow& in : slot->narrow_inputs) {
      int64_t* wide = reinterpret_cast<int64_t*>(slot->run->input_data(in.index));
      const int32_t* narrow = in.data();
      for (int64_t j = 0; j < in.count; ++j) wide[j] = narrow[j];
    }
    shrew::Status s = slot->run->Run(&last_issue_);
    if (!s.ok()) {
      last_error_ = std::move(s);
      return 1;
    }
    for (size_t o = 0; o < slot->out_ptrs.size(); ++o) {
      slot->out_ptrs[o] = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(slot->run->output_data(static_cast<int>(o))));
    }
    // i32 wraps to 32 bits at the boundary, as on the value path (TensorOut).
    for (Prepared::Narrow& out : slot->narrow_outputs) {
      const int64_t* wide = static_cast<const int64_t*>(slot->run->output_data(out.index));
      int32_t* narrow = out.data();
      for (int64_t j = 0; j < out.count; ++j) narrow[j] = static_cast<int32_t>(wide[j]);
      slot->out_ptrs[static_cast<size_t>(out.index)] = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(narrow));
    }
    return 0;
  }

  val LastError() const { return ErrorWithIssue(last_error_, last_issue_); }

  void Release(int id) {
    if (PreparedAt(id) != nullptr) prepared_[static_cast<size_t>(id)].reset();
  }

  // benchRun(graph, n): mean ns per Executor::Run over n runs inside wasm,
  // on the binding of the graph's last run (no input or output copies); -1
  // when the graph is unknown, not bound yet, or a run fails.
  double BenchRun(const std::string& graph, int n) {
    // A graph over the step limit has a plan (its shapes are static) but no run may start.
    if (!program_ || n <= 0 || !program_->CheckSteps(graph).ok()) return -1;
    shrew::jit::Executor* ex = program_->executor(graph);
    if (ex == nullptr || ex->plan() == nullptr) return -1;
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
      if (!ex->Run().ok()) return -1;
    }
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / n;
  }

  // profile(graph, runs) -> {ok, runs, instructionNs, kernelsNs, runNs,
  // clockNs, clockStepNs} (jit/profile.h) on the binding of the graph's last run.
  val Profile(const std::string& graph, int runs) {
    if (!program_) return NotReady();
    // Its table: a float per timed instruction and run (at most
    // kMaxProfileSamples: more runs are refused as such), and a few per
    // instruction and per run.
    const shrew::ir::Graph* g = FindGraph(graph);
    const uint64_t nodes = g != nullptr ? g->nodes().size() : 0;
    const uint64_t r = std::min<uint64_t>(static_cast<uint64_t>(std::max(runs, 0)), shrew::jit::kMaxProfileSamples);
    const uint64_t cells = std::min<uint64_t>(nodes * r, shrew::jit::kMaxProfileSamples) + 4 * (nodes + r);
    shrew::Status room = shrew::wasm::EnsureHeadroom("profile", cells, 4);
    if (!room.ok()) return Error(room);
    shrew::Result<shrew::jit::TapeProfile> p = program_->Profile(graph, runs);
    if (!p.ok()) return Error(p.status());
    val times = val::array();
    for (size_t i = 0; i < p->instruction_ns.size(); ++i) times.set(i, p->instruction_ns[i]);
    val out = val::object();
    out.set("ok", true);
    out.set("runs", p->runs);
    out.set("instructionNs", times);
    out.set("kernelsNs", p->kernels_ns);
    out.set("runNs", p->run_ns);
    out.set("clockNs", p->clock_ns);
    out.set("clockStepNs", p->clock_step_ns);
    return out;
  }

  val Dump(const std::string& graph) const {
    if (!program_) return NotReady();
    if (shrew::Status room = RoomForText("dump", graph, 512); !room.ok()) return Error(room);
    return shrew::wasm::TextOrError(program_->Dump(graph));
  }
  val Plan(const std::string& graph) const {
    if (!program_) return NotReady();
    if (shrew::Status room = RoomForText("write the plan", graph, 1024); !room.ok()) return Error(room);
    return shrew::wasm::TextOrError(program_->PlanJson(graph));
  }
  // tape(graph) -> {ok, text}: the tape as JSON (jit::DumpTapeJson).
  val Tape(const std::string& graph) const {
    if (!program_) return NotReady();
    if (shrew::Status room = RoomForText("write the tape", graph, 2048); !room.ok()) return Error(room);
    return shrew::wasm::TextOrError(program_->TapeJson(graph));
  }
  val Stats(const std::string& graph) const {
    if (!program_) return NotReady();
    auto s = program_->Stats(graph);
    if (!s.ok()) return Error(s.status());
    return shrew::wasm::CompileStatsValue(*s);
  }
  // ir(graph, optimized) -> {ok, text, json}
  val Ir(const std::string& graph, bool optimized) const {
    if (!program_) return NotReady();
    if (!compiled_ && !optimized) {
      return Error(shrew::FailedPrecondition("a program loaded from a bundle has only its optimised IR"));
    }
    const shrew::ir::Program& p = !compiled_ ? program_->ir() : optimized ? compiled_->program : compiled_->unoptimized;
    const shrew::ir::Graph* g = p.FindGraph(graph);
    if (g == nullptr) return NoGraph(graph);
    if (shrew::Status room = RoomForText("write the IR", graph, 1024); !room.ok()) return Error(room);
    val out = val::object();
    out.set("ok", true);
    out.set("text", shrew::ir::DumpGraph(*g));
    out.set("json", shrew::ir::DumpGraphJson(*g));
    return out;
  }

  val Params() const {
    val list = val::array();
    if (!program_) return list;
    int i = 0;
    for (const auto& [key, t] : program_->Params()) list.set(i++, shrew::wasm::TensorInfo(key, *t));
    return list;
  }
  val GetParam(const std::string& key) const {
    if (!program_) return NotReady();
    auto t = program_->GetParam(key);
    if (!t.ok()) return Error(t.status());
    val out = shrew::wasm::TensorOut(key, *t);
    out.set("ok", true);
    return out;
  }
  val SetParam(const std::string& key, val tensor) {
    if (!program_) return NotReady();
    auto t = shrew::wasm::TensorIn(tensor);
    if (!t.ok()) return Error(t.status());
    shrew::Status s = program_->SetParam(key, *t);
    if (!s.ok()) return SetParamError(s, key, *t);
    val out = val::object();
    out.set("ok", true);
    return out;
  }

  val Metadata() const {
    if (!program_) return val::null();
    return shrew::wasm::MetadataValue(program_->ir());
  }

  // Params blob (api/param_blob.h): {ok, bytes: Uint8Array} / {ok} / {ok, checksum: "16 hex digits"}.
  val SaveParams() const {
    if (!program_) return NotReady();
    shrew::Status room = shrew::wasm::EnsureHeadroom("save the parameters", shrew::ParamBlobSize(program_->Params()), 1);
    if (!room.ok()) return Error(room);
    return BytesValue(program_->SaveParams());
  }
  val LoadParams(val bytes) {
    if (!program_) return NotReady();
    shrew::Result<shrew::runtime::Tensor> blob = shrew::wasm::BytesIn(bytes, "loadParams");
    if (!blob.ok()) return Error(blob.status());
    return OkOrError(program_->LoadParams(blob->values<uint8_t>()));
  }
  // checkSteps(graph) -> {ok} or the error a run over the step limit gets
  // (benchRun asks first: its -1 cannot say why).
  val CheckSteps(const std::string& graph) const {
    if (!program_) return NotReady();
    return OkOrError(program_->CheckSteps(graph));
  }

  // Rebuilds one graph's tape, kernels and plans (Program::Recompile).
  val Recompile(const std::string& graph) {
    if (!program_) return NotReady();
    return OkOrError(program_->Recompile(graph));
  }
  // Both generators' states as decimal strings (64-bit values): JS puts them
  // back after runs whose results it refuses, and around a profile's warm-up.
  val Generators() const {
    if (!program_) return NotReady();
    const shrew::Program::GeneratorStates g = program_->generator_states();
    val out = val::object();
    out.set("ok", true);
    out.set("tape", std::to_string(g.tape));
    out.set("interpreter", std::to_string(g.interpreter));
    return out;
  }
  val SetGenerators(const std::string& tape, const std::string& interpreter) {
    if (!program_) return NotReady();
    uint64_t t = 0, i = 0;
    const auto parse = [](const std::string& text, uint64_t* v) {
      const char* end = text.data() + text.size();
      return !text.empty() && std::from_chars(text.data(), end, *v).ptr == end;
    };
    if (!parse(tape, &t) || !parse(interpreter, &i)) {
      return Error(shrew::InvalidArgument("generator states must be decimal 64-bit values"));
    }
    program_->set_generator_states({t, i});
    val out = val::object();
    out.set("ok", true);
    return out;
  }

  val ParamsChecksum() const {
    if (!program_) return NotReady();
    val out = val::object();
    out.set("ok", true);
    out.set("checksum", shrew::ChecksumHex(program_->ParamsChecksum()));
    return out;
  }

 private:
  // What a bundle's program takes per node, at most (its operands, attributes, name and type).
  static constexpr uint64_t kBundleBytesPerNode = 1024;
  // Room for text about `graph`: dump, tape, plan and IR write a line or a
  // JSON object per node (the tape's about 900 bytes), in strings that
  // double as they grow. A nearly full memory aborted the module on a
  // 20,000-node dump.
  shrew::Status RoomForText(const char* what, const std::string& graph, uint64_t per_node) const {
    const shrew::ir::Graph* g = FindGraph(graph);
    return shrew::wasm::EnsureHeadroom(what, g != nullptr ? static_cast<uint64_t>(g->num_nodes()) : 0, per_node);
  }

  const shrew::ir::Graph* FindGraph(const std::string& name) const {
    if (!program_) return nullptr;
    shrew::Result<size_t> gi = program_->FindGraph(name);
    return gi.ok() ? &program_->ir().graphs[*gi] : nullptr;
  }
  val NoGraph(const std::string& name) const {
    if (!program_) return NotReady();
    return Error(program_->FindGraph(name).status());
  }
  // A SetParam error with the input fields of a run's input errors.
  val SetParamError(const shrew::Status& s, const std::string& key, const shrew::runtime::Tensor& given) const {
    val e = Error(s);
    e.set("input", key);
    if (s.code() != shrew::StatusCode::kInvalidArgument) return e;
    for (const auto& [name, param] : program_->Params()) {
      if (name != key) continue;
      e.set("expected", param->TypeString());
      e.set("actual", given.TypeString());
    }
    return e;
  }
  // {ok: true, bytes}: a fresh Uint8Array the caller owns.
  static val BytesValue(std::span<const uint8_t> b) {
    val bytes = val::global("Uint8Array").new_(b.size());
    bytes.call<void>("set", val(emscripten::typed_memory_view(b.size(), b.data())));
    val out = val::object();
    out.set("ok", true);
    out.set("bytes", bytes);
    return out;
  }
  static val NotReady() {
    return Error(shrew::Status(shrew::StatusCode::kFailedPrecondition, "no compiled program"));
  }

  val Execute(const std::string& graph, val inputs, bool interpret) {
    if (!program_) return NotReady();
    const shrew::ir::Graph* g = FindGraph(graph);
    if (g == nullptr) return NoGraph(graph);
    shrew::Status room = shrew::wasm::EnsureHeadroom(interpret ? "interpret" : "run");
    if (!room.ok()) return Error(room);
    shrew::runtime::TensorMap in;
    const int n = inputs["length"].as<int>();
    for (int i = 0; i < n; ++i) {
      val item = inputs[i];
      std::string name = item["name"].as<std::string>();
      auto t = shrew::wasm::TensorIn(item);
      if (!t.ok()) {
        val e = Error(t.status().Prefixed("input '" + name + "': "));
        e.set("input", name);
        return e;
      }
      in.emplace(std::move(name), std::move(t).value());
    }
    shrew::jit::InputIssue issue;
    auto out = interpret ? program_->Interpret(graph, in, &issue) : program_->Run(graph, in, &issue);
    if (!out.ok()) return ErrorWithIssue(out.status(), issue);
    val list = val::array();
    int i = 0;
    for (const shrew::ir::GraphOutput& o : g->outputs()) {
      auto it = out->find(o.name);
      if (it == out->end()) continue;
      list.set(i++, shrew::wasm::TensorOut(o.name, it->second));
    }
    val result = val::object();
    result.set("ok", true);
    result.set("outputs", list);
    return result;
  }

  struct Prepared {
    std::unique_ptr<shrew::PreparedRun> run;
    std::vector<uint32_t> out_ptrs;  // wasm32 addresses of the outputs after a run
    // An i32 input or output is i64 inside: JS writes (reads) a 32-bit copy,
    // widened before each run (narrowed after it).
    struct Narrow {
      int index;  // graph input or output
      int64_t count;
      shrew::runtime::Tensor bytes;  // count int32 values (a Tensor: running out of memory is an error)
      int32_t* data() { return reinterpret_cast<int32_t*>(bytes.mutable_raw_data()); }
    };
    std::vector<Narrow> narrow_inputs, narrow_outputs;
    // The copy for `wide_bytes` bytes of i64, or ResourceExhausted.
    shrew::Result<int32_t*> AddNarrow(std::vector<Narrow>* list, int index, uint64_t wide_bytes) {
      const int64_t count = static_cast<int64_t>(wide_bytes / sizeof(int64_t));
      shrew::Result<shrew::runtime::Tensor> t =
          shrew::runtime::Tensor::Zeros(shrew::ir::DType::kU8, {count * static_cast<int64_t>(sizeof(int32_t))});
      if (!t.ok()) {
        return shrew::ResourceExhausted("out of memory for its " + std::to_string(count * 4) + "-byte 32-bit copy");
      }
      list->push_back({index, count, std::move(t).value()});
      return list->back().data();
    }
  };
  Prepared* PreparedAt(int id) {
    if (id < 0 || id >= static_cast<int>(prepared_.size())) return nullptr;
    return prepared_[static_cast<size_t>(id)].get();
  }

  std::unique_ptr<shrew::CompileResult> compiled_;  // null for a program loaded from a bundle
  shrew::BundleInfo bundle_;                          // its source and optimiser counters
  shrew::CompileOptions copts_;  // what program_ was built with (setDims)
  shrew::ProgramOptions popts_;
  // Declared after program_: destroyed first (a PreparedRun must not outlive its program).
  std::unique_ptr<shrew::Program> program_;
  std::vector<std::unique_ptr<Prepared>> prepared_;
  shrew::Status last_error_;
  shrew::jit::InputIssue last_issue_;  // with last_error_: an input error's fields
};

}  // namespace

// The lean path's per-call entry: a plain export, not an Embind method.
// Embind's invoker (generic: the glue is built without eval) runs a few µs
// of JS and V8 runtime code per call, and a graph that streams more weights
// than the cache holds evicts that code, so it runs cold on every call
// (mlp/1: about 9 µs of 100). `handle` is the address prepare() reports;
// the caller (program.ts) checks the program is live before calling.
extern "C" EMSCRIPTEN_KEEPALIVE int shrew_run_prepared(uintptr_t handle, int id) {
  return reinterpret_cast<ProgramHandle*>(handle)->RunPrepared(id);
}

EMSCRIPTEN_BINDINGS(shrew) {
  emscripten::function("denseXnn", &DenseXnn);
  emscripten::function("simd128", &Simd128);
  emscripten::function("heapStats", &HeapStats);
  emscripten::function("excerpt", &Excerpt);
  emscripten::class_<ProgramHandle>("ProgramHandle")
      .constructor<>()
      .function("compile", &ProgramHandle::Compile)
      .function("loadBundle", &ProgramHandle::LoadBundle)
      .function("saveBundle", &ProgramHandle::SaveBundle)
      .function("source", &ProgramHandle::Source)
      .function("graphs", &ProgramHandle::Graphs)
      .function("signature", &ProgramHandle::Signature)
      .function("run", &ProgramHandle::Run)
      .function("interpret", &ProgramHandle::Interpret)
      .function("prepare", &ProgramHandle::Prepare)
      .function("lastError", &ProgramHandle::LastError)
      .function("release", &ProgramHandle::Release)
      .function("benchRun", &ProgramHandle::BenchRun)
      .function("profile", &ProgramHandle::Profile)
      .function("checkSteps", &ProgramHandle::CheckSteps)
      .function("dump", &ProgramHandle::Dump)
      .function("plan", &ProgramHandle::Plan)
      .function("stats", &ProgramHandle::Stats)
      .function("ir", &ProgramHandle::Ir)
      .function("params", &ProgramHandle::Params)
      .function("getParam", &ProgramHandle::GetParam)
      .function("setParam", &ProgramHandle::SetParam)
      .function("metadata", &ProgramHandle::Metadata)
      .function("tape", &ProgramHandle::Tape)
      .function("saveParams", &ProgramHandle::SaveParams)
      .function("loadParams", &ProgramHandle::LoadParams)
      .function("paramsChecksum", &ProgramHandle::ParamsChecksum)
      .function("generators", &ProgramHandle::Generators)
      .function("setGenerators", &ProgramHandle::SetGenerators)
      .function("recompile", &ProgramHandle::Recompile)
      .function("setDims", &ProgramHandle::SetDims);
}
