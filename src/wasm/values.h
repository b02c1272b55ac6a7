// Conversions between C++ results and JS value objects for the Embind
// bindings (header-only: the shrew_wasm target compiles bindings.cc alone).
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstring>
#include <string_view>
#include <string>
#include <vector>

#include "api/compile.h"
#include "ir/dtype.h"
#include "ir/graph.h"
#include "ir/shapes.h"
#include "jit/binding.h"
#include "jit/compiled_graph.h"
#include "runtime/tensor.h"

namespace shrew::wasm {

using emscripten::val;

// A Uint8Array's bytes copied into wasm memory once, held as a u8 tensor:
// the allocation every tensor uses, which reports running out of memory (a
// std::vector would abort: without exceptions `new` does, even its nothrow
// form; and its resize value-initialises byte by byte at -Os, 8 ms for a
// 2.7 MB parameter blob, before the copy overwrites every byte).
inline Result<runtime::Tensor> BytesIn(val array, std::string_view what) {
  const double n = array["length"].as<double>();
  Result<runtime::Tensor> t = n >= 0 && n < 9007199254740992.0
                                  ? runtime::Tensor::Uninitialized(ir::DType::kU8, {static_cast<int64_t>(n)})
                                  : Result<runtime::Tensor>(InvalidArgument("not a length"));
  if (!t.ok()) {
    return ResourceExhausted(std::string(what) + ": no memory for a " + val(n).call<std::string>("toString") +
                             "-byte blob");
  }
  if (n > 0) val(emscripten::typed_memory_view(static_cast<size_t>(n), t->mutable_values<uint8_t>().data())).call<void>("set", array);
  return t;
}

// obj[key] = value as an own property, "__proto__" included (an assignment
// would set the prototype instead): keys named by the source or the caller.
inline void SetOwn(val obj, const std::string& key, val value) {
  if (key != "__proto__") {
    obj.set(key, value);
    return;
  }
  val desc = val::object();
  desc.set("value", value);
  desc.set("enumerable", true);
  desc.set("writable", true);
  desc.set("configurable", true);
  val::global("Object").call<void>("defineProperty", obj, key, desc);
}

// {line, column, length, offset}, as js/src/tape.ts's SourceSpan.
inline val SpanValue(const SourceSpan& span) {
  val o = val::object();
  o.set("line", span.line);
  o.set("column", span.column);
  o.set("length", span.length);
  o.set("offset", span.offset);
  return o;
}

// {ok: false, code, message, span?}: `span` when the failure is about a
// place in the source (Status::span).
inline val Error(const Status& status) {
  val out = val::object();
  out.set("ok", false);
  out.set("code", std::string(StatusCodeName(status.code())));
  out.set("message", status.message());
  if (status.span().valid()) out.set("span", SpanValue(status.span()));
  return out;
}

// {ok: true}, or Error(status).
inline val OkOrError(const Status& status) {
  if (!status.ok()) return Error(status);
  val out = val::object();
  out.set("ok", true);
  return out;
}

// An error value plus the input problem's fields (when there is one).
inline val ErrorWithIssue(const Status& status, const jit::InputIssue& issue) {
  val out = Error(status);
  if (!issue.input.empty()) out.set("input", issue.input);
  if (!issue.expected.empty()) out.set("expected", issue.expected);
  if (!issue.actual.empty()) out.set("actual", issue.actual);
  return out;
}

inline val StringList(const std::vector<std::string>& names) {
  val list = val::array();
  for (size_t i = 0; i < names.size(); ++i) list.set(i, names[i]);
  return list;
}

inline val TextOrError(const Result<std::string>& r) {
  if (!r.ok()) return Error(r.status());
  val out = val::object();
  out.set("ok", true);
  out.set("text", r.value());
  return out;
}

inline val Diagnostics(const CompileResult& r) {
  val list = val::array();
  for (size_t i = 0; i < r.diagnostics.size(); ++i) {
    const diag::Diagnostic& d = r.diagnostics[i];
    val o = val::object();
    o.set("code", std::string(d.code()));
    o.set("severity", std::string(diag::SeverityName(d.severity)));
    o.set("message", d.message);
    o.set("line", d.span.line);
    o.set("column", d.span.column);
    o.set("length", d.span.length);
    o.set("offset", d.span.offset);
    o.set("rendered", r.source ? diag::Render(d, *r.source) : d.message);
    list.set(i, o);
  }
  return list;
}

inline val OptStatsValue(const opt::OptStats& s) {
  val o = val::object();
  o.set("deadCodeRemoved", s.dead_code_removed);
  o.set("identitiesRemoved", s.identities_removed);
  o.set("constantsFolded", s.constants_folded);
  o.set("cseEliminated", s.cse_eliminated);
  o.set("opsFused", s.ops_fused);
  o.set("rounds", s.rounds);
  o.set("text", s.ToString());
  return o;
}

inline val CompileStatsValue(const jit::CompileStats& s) {
  val o = val::object();
  o.set("ok", true);
  o.set("numInstructions", s.num_instructions);
  o.set("numSourceNodes", s.num_source_nodes);
  o.set("numSlots", s.num_slots);
  o.set("numReused", s.num_reused);
  o.set("numFrees", s.num_frees);
  o.set("numFused", s.num_fused);
  o.set("compileTimeUs", static_cast<double>(s.compile_time_us));
  o.set("arenaBytes", static_cast<double>(s.arena_bytes));
  o.set("arenaLowerBound", static_cast<double>(s.arena_lower_bound));
  o.set("arenaNaive", static_cast<double>(s.arena_naive));
  o.set("numInPlace", s.num_in_place);
  o.set("numAliases", s.num_aliases);
  o.set("numRefKernels", s.num_ref_kernels);
  return o;
}

// Dims: numbers for fixed sizes, names for symbolic ones, null for dynamic.
inline val TypeValue(const std::string& name, const ir::Type& type) {
  val o = val::object();
  o.set("name", name);
  if (type.is_unknown()) {
    o.set("dtype", val::null());
    o.set("shape", val::null());
    o.set("type", std::string("?"));
    return o;
  }
  o.set("dtype", std::string(ir::DTypeName(type.dtype())));
  val shape = val::array();
  for (size_t i = 0; i < type.dims().size(); ++i) {
    const ir::Dim& d = type.dims()[i];
    if (d.is_fixed()) shape.set(i, static_cast<double>(d.size()));
    else if (d.is_symbolic()) shape.set(i, d.name());
    else shape.set(i, val::null());
  }
  o.set("shape", shape);
  o.set("type", type.ToString());
  return o;
}

inline val SignatureValue(const ir::Graph& g) {
  val inputs = val::array();
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const ir::Node& n = g.node(g.inputs()[i].node);
    val t = TypeValue(n.name, n.type);
    t.set("optional", g.inputs()[i].optional);
    inputs.set(i, t);
  }
  val outputs = val::array();
  const std::vector<bool> provisional = ir::ProvisionalTypes(g);
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const ir::GraphOutput& out = g.outputs()[i];
    const bool known = g.HasNode(out.node) && !provisional[static_cast<size_t>(out.node)];
    outputs.set(i, TypeValue(out.name, known ? g.node(out.node).type : ir::Type()));
  }
  val o = val::object();
  o.set("ok", true);
  o.set("name", g.name());
  o.set("inputs", inputs);
  o.set("outputs", outputs);
  return o;
}

// The JS dtype a declared dtype crosses as.
inline std::string JsDType(ir::DType d) {
  switch (d) {
    case ir::DType::kI32:
    case ir::DType::kI16:
    case ir::DType::kI8:
      return "i32";
    default:
      break;
  }
  switch (ir::StorageOf(d)) {
    case ir::StorageType::kF32: return "f32";
    case ir::StorageType::kF64: return "f64";
    case ir::StorageType::kI64: return "i64";
    case ir::StorageType::kU8: return "u8";
    case ir::StorageType::kBool: return "bool";
    default: return "unsupported";
  }
}

inline val ShapeValue(const runtime::Shape& shape) {
  val s = val::array();
  for (size_t i = 0; i < shape.size(); ++i) s.set(i, static_cast<double>(shape[i]));
  return s;
}

inline val TensorInfo(const std::string& name, const runtime::Tensor& t) {
  val o = val::object();
  o.set("name", name);
  o.set("dtype", JsDType(t.dtype()));
  o.set("declaredDtype", std::string(ir::DTypeName(t.dtype())));
  o.set("shape", ShapeValue(t.shape()));
  o.set("size", static_cast<double>(t.num_elements()));
  o.set("bytes", static_cast<double>(t.byte_size()));
  return o;
}

// {name, dtype, shape, bytes: Uint8Array (fresh copy)}.
inline val TensorOut(const std::string& name, const runtime::Tensor& t) {
  val o = TensorInfo(name, t);
  if (JsDType(t.dtype()) == "i32") {
    std::vector<int32_t> narrow(static_cast<size_t>(t.num_elements()));
    std::span<const int64_t> v = t.values<int64_t>();
    for (size_t i = 0; i < narrow.size(); ++i) narrow[i] = static_cast<int32_t>(v[i]);
    o.set("bytes", val(emscripten::typed_memory_view(narrow.size() * 4,
                                                     reinterpret_cast<const uint8_t*>(narrow.data())))
                       .call<val>("slice"));
  } else {
    o.set("bytes", val(emscripten::typed_memory_view(t.byte_size(),
                                                     reinterpret_cast<const uint8_t*>(t.raw_data())))
                       .call<val>("slice"));
  }
  return o;
}

// A JS array of non-negative integers as a shape.
inline Result<runtime::Shape> ShapeIn(val js_shape) {
  runtime::Shape shape;
  const int rank = js_shape["length"].as<int>();
  for (int i = 0; i < rank; ++i) {
    double d = js_shape[i].as<double>();
    if (!(d >= 0) || d > 9007199254740992.0 || d != static_cast<double>(static_cast<int64_t>(d))) {
      return InvalidArgument("invalid dimension " + std::to_string(d) + " in shape");
    }
    shape.push_back(static_cast<int64_t>(d));
  }
  return shape;
}

// From {dtype, shape, bytes: Uint8Array}: one copy into a host tensor.
inline Result<runtime::Tensor> TensorIn(val item) {
  std::string dtype_name = item["dtype"].as<std::string>();
  std::optional<ir::DType> dtype = ir::DTypeFromName(dtype_name);
  if (!dtype || JsDType(*dtype) != dtype_name) {
    return InvalidArgument("unsupported dtype '" + dtype_name + "' (expected f32, f64, i32, i64, u8 or bool)");
  }
  Result<runtime::Shape> parsed = ShapeIn(item["shape"]);
  if (!parsed.ok()) return parsed.status();
  runtime::Shape shape = std::move(parsed).value();
  // Every byte is written below (the length is checked first).
  Result<runtime::Tensor> t = runtime::Tensor::Uninitialized(*dtype, shape);
  if (!t.ok()) return t;
  val bytes = item["bytes"];
  const size_t n = bytes["length"].as<size_t>();
  const bool widen = dtype_name == "i32";
  const size_t expect = widen ? static_cast<size_t>(t->num_elements()) * 4 : t->byte_size();
  if (n != expect) {
    return InvalidArgument("shape " + runtime::ShapeToString(shape) + " needs " + std::to_string(expect) +
                           " bytes of " + dtype_name + " data, got " + std::to_string(n));
  }
  if (widen) {
    std::vector<int32_t> tmp(static_cast<size_t>(t->num_elements()));
    val(emscripten::typed_memory_view(n, reinterpret_cast<uint8_t*>(tmp.data()))).call<void>("set", bytes);
    std::span<int64_t> out = t->mutable_values<int64_t>();
    for (size_t i = 0; i < tmp.size(); ++i) out[i] = tmp[i];
  } else if (n > 0) {
    val(emscripten::typed_memory_view(n, reinterpret_cast<uint8_t*>(t->mutable_raw_data()))).call<void>("set", bytes);
    if (dtype_name == "bool") {
      uint8_t* p = reinterpret_cast<uint8_t*>(t->mutable_raw_data());
      for (size_t i = 0; i < n; ++i) p[i] = p[i] != 0;
    }
  }
  return t;
}

// An integer of the source as a JS value: a number, or beyond ±(2^53 − 1),
// which a number would round, a bigint (the seed's rule: a number when it
// can be one).
inline val IntegerToJs(int64_t i) {
  constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;
  if (i < -kMaxSafe || i > kMaxSafe) return val::global("BigInt")(val(std::to_string(i)));
  return val(static_cast<double>(i));
}

inline val ConfigValueToJs(const ir::ConfigValue& v) {
  switch (v.kind) {
    case ir::ConfigValue::Kind::kInt: return IntegerToJs(v.i);
    case ir::ConfigValue::Kind::kFloat: return val(v.f);
    case ir::ConfigValue::Kind::kBool: return val(v.b);
    case ir::ConfigValue::Kind::kString:
    case ir::ConfigValue::Kind::kOpaque: return val(v.s);
    case ir::ConfigValue::Kind::kList: {
      val list = val::array();
      for (size_t i = 0; i < v.list.size(); ++i) list.set(i, ConfigValueToJs(v.list[i]));
      return list;
    }
  }
  return val::null();
}

inline val SettingsValue(const ir::SettingsMap& m) {
  val o = val::object();
  for (const auto& [k, v] : m) SetOwn(o, k, ConfigValueToJs(v));
  return o;
}

inline val MetadataValue(const ir::Program& p) {
  val o = val::object();
  val model = val::object();
  for (const auto& [k, v] : p.metadata) SetOwn(model, k, val(v));
  o.set("model", model);
  o.set("config", SettingsValue(p.config));
  val aliases = val::object();
  for (const auto& [k, t] : p.type_aliases) SetOwn(aliases, k, val(t.ToString()));
  o.set("types", aliases);
  o.set("customOps", StringList(p.custom_ops));
  if (p.training) {
    const ir::TrainingSettings& t = *p.training;
    val tr = val::object();
    if (t.model) tr.set("model", *t.model);
    if (t.loss) tr.set("loss", *t.loss);
    val optimizer = SettingsValue(t.optimizer_extra);
    optimizer.set("type", t.optimizer_type);
    optimizer.set("lr", t.lr);
    tr.set("optimizer", optimizer);
    if (t.lr_schedule_kind) {
      val s = SettingsValue(t.lr_schedule);
      s.set("type", *t.lr_schedule_kind);
      tr.set("lrSchedule", s);
    }
    if (t.grad_clip_kind) {
      val s = SettingsValue(t.grad_clip);
      s.set("type", *t.grad_clip_kind);
      tr.set("gradClip", s);
    }
    tr.set("precision", t.precision);
    tr.set("epochs", IntegerToJs(t.epochs));
    tr.set("batchSize", IntegerToJs(t.batch_size));
    tr.set("accumulationSteps", IntegerToJs(t.accumulation_steps));
    o.set("training", tr);
  } else {
    o.set("training", val::null());
  }
  if (p.inference) {
    val inf = val::object();
    if (p.inference->model) inf.set("model", *p.inference->model);
    inf.set("quantization", SettingsValue(p.inference->quantization));
    inf.set("generation", SettingsValue(p.inference->generation));
    o.set("inference", inf);
  } else {
    o.set("inference", val::null());
  }
  return o;
}

}  // namespace shrew::wasm
