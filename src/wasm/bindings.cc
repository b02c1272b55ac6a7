// Embind bindings: the JS-facing surface of the wasm module. Only marshalling
// lives here; every decision is made by the C++ library. Errors come back as
// values ({ok:false, code, message}) since the module has no exceptions.
//
// Tensors cross as (dtype, shape, bytes): JS hands a Uint8Array view of its
// typed array, copied once into a host tensor; outputs come back as fresh
// Uint8Array copies that JS wraps in the typed array of the dtype. i32 is
// stored as i64 in C++ (OPS.md §1.3) and narrowed/widened here.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/compile.h"
#include "api/program.h"
#include "ir/dump.h"
#include "runtime/tensor.h"
#include "runtime/xnn_dense.h"
#include "wasm/values.h"

namespace {

using emscripten::val;
using shrew::wasm::Error;
using shrew::wasm::StringList;

// A fresh JS Float32Array the caller owns (copied out of the wasm heap).
val CopyOut(const std::vector<float>& v) {
  return val(emscripten::typed_memory_view(v.size(), v.data())).call<val>("slice");
}

// denseXnn(batch, in, out, x, w, bias) -> {ok, data} | {ok:false, code, message}
val DenseXnn(double batch, double in, double out, val x, val w, val bias) {
  if (batch < 0 || in < 0 || out < 0) return Error(shrew::InvalidArgument("dense: negative size"));
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

// One compiled program: the compile result (diagnostics, unoptimised IR) and
// the runnable Program built from it.
class ProgramHandle {
 public:
  // compile(source, {filename, dims, seed, optimize, training, maxTensorBytes}) -> {ok, diagnostics, rendered, stage, seed, optStats}
  // or {ok:false, code, message} when the program cannot be built.
  val Compile(const std::string& source, val options) {
    program_.reset();
    compiled_.reset();
    shrew::CompileOptions opts;
    shrew::ProgramOptions popts;
    if (options.typeOf().as<std::string>() == "object" && !options.isNull()) {
      if (options["filename"].isString()) opts.filename = options["filename"].as<std::string>();
      val dims = options["dims"];
      if (!dims.isUndefined() && !dims.isNull()) {
        val keys = val::global("Object").call<val>("keys", dims);
        const int n = keys["length"].as<int>();
        for (int i = 0; i < n; ++i) {
          std::string key = keys[i].as<std::string>();
          double v = dims[key].as<double>();
          opts.dims[key] = static_cast<int64_t>(v);
        }
      }
      if (options["seed"].isNumber()) opts.seed = static_cast<uint64_t>(options["seed"].as<double>());
      if (!options["optimize"].isUndefined()) opts.optimize = options["optimize"].as<bool>();
      if (options["training"].isTrue()) popts.training = true;
      if (options["maxTensorBytes"].isNumber() && options["maxTensorBytes"].as<double>() >= 0) {
        popts.max_tensor_bytes = static_cast<uint64_t>(options["maxTensorBytes"].as<double>());
      }
    }
    popts.dims = opts.dims;
    compiled_ = std::make_unique<shrew::CompileResult>(shrew::Compile(source, opts));
    val out = val::object();
    out.set("ok", compiled_->ok);
    out.set("stage", std::string(shrew::CompileStageName(compiled_->stage)));
    out.set("diagnostics", shrew::wasm::Diagnostics(*compiled_));
    out.set("rendered", compiled_->RenderDiagnostics());
    if (!compiled_->ok) return out;
    out.set("seed", static_cast<double>(compiled_->seed));
    out.set("optStats", shrew::wasm::OptStatsValue(compiled_->stats));
    auto program = shrew::Program::Create(*compiled_, popts);
    if (!program.ok()) return Error(program.status());
    program_ = std::move(program).value();
    return out;
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

  val Dump(const std::string& graph) const {
    if (!program_) return NotReady();
    return shrew::wasm::TextOrError(program_->Dump(graph));
  }
  val Plan(const std::string& graph) const {
    if (!program_) return NotReady();
    return shrew::wasm::TextOrError(program_->PlanJson(graph));
  }
  val Stats(const std::string& graph) const {
    if (!program_) return NotReady();
    auto s = program_->Stats(graph);
    if (!s.ok()) return Error(s.status());
    return shrew::wasm::CompileStatsValue(*s);
  }
  // ir(graph, optimized) -> {ok, text, json}
  val Ir(const std::string& graph, bool optimized) const {
    if (!compiled_ || !compiled_->ok) return NotReady();
    const shrew::ir::Program& p = optimized ? compiled_->program : compiled_->unoptimized;
    const shrew::ir::Graph* g = p.FindGraph(graph);
    if (g == nullptr) return NoGraph(graph);
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
    if (!s.ok()) return Error(s);
    val out = val::object();
    out.set("ok", true);
    return out;
  }

  val Metadata() const {
    if (!compiled_ || !compiled_->ok) return val::null();
    return shrew::wasm::MetadataValue(compiled_->program);
  }

 private:
  const shrew::ir::Graph* FindGraph(const std::string& name) const {
    if (!program_) return nullptr;
    return program_->ir().FindGraph(name);
  }
  val NoGraph(const std::string& name) const {
    if (!program_) return NotReady();
    std::string names;
    for (const std::string& n : program_->GraphNames()) names += (names.empty() ? "" : ", ") + n;
    return Error(shrew::NotFound("no graph named '" + name + "'; graphs: " + names));
  }
  static val NotReady() {
    return Error(shrew::Status(shrew::StatusCode::kFailedPrecondition, "no compiled program"));
  }

  val Execute(const std::string& graph, val inputs, bool interpret) {
    if (!program_) return NotReady();
    const shrew::ir::Graph* g = FindGraph(graph);
    if (g == nullptr) return NoGraph(graph);
    shrew::runtime::TensorMap in;
    const int n = inputs["length"].as<int>();
    for (int i = 0; i < n; ++i) {
      val item = inputs[i];
      std::string name = item["name"].as<std::string>();
      auto t = shrew::wasm::TensorIn(item);
      if (!t.ok()) {
        val e = Error(shrew::Status(t.status().code(), "input '" + name + "': " + t.status().message()));
        e.set("input", name);
        return e;
      }
      in.emplace(std::move(name), std::move(t).value());
    }
    auto out = interpret ? program_->Interpret(graph, in) : program_->Run(graph, in);
    if (!out.ok()) return Error(out.status());
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

  std::unique_ptr<shrew::CompileResult> compiled_;
  std::unique_ptr<shrew::Program> program_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(shrew) {
  emscripten::function("denseXnn", &DenseXnn);
  emscripten::function("simd128", &Simd128);
  emscripten::function("heapStats", &HeapStats);
  emscripten::class_<ProgramHandle>("ProgramHandle")
      .constructor<>()
      .function("compile", &ProgramHandle::Compile)
      .function("graphs", &ProgramHandle::Graphs)
      .function("signature", &ProgramHandle::Signature)
      .function("run", &ProgramHandle::Run)
      .function("interpret", &ProgramHandle::Interpret)
      .function("dump", &ProgramHandle::Dump)
      .function("plan", &ProgramHandle::Plan)
      .function("stats", &ProgramHandle::Stats)
      .function("ir", &ProgramHandle::Ir)
      .function("params", &ProgramHandle::Params)
      .function("getParam", &ProgramHandle::GetParam)
      .function("setParam", &ProgramHandle::SetParam)
      .function("metadata", &ProgramHandle::Metadata);
}
