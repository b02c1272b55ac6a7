// Embind bindings: the JS-facing surface of the wasm module. Only marshalling
// lives here; every decision is made by the C++ library. Errors come back as
// values ({ok:false, code, message}) since the module has no exceptions.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <vector>

#include "runtime/xnn_dense.h"

namespace {

using emscripten::val;

// A fresh JS Float32Array the caller owns (copied out of the wasm heap).
val CopyOut(const std::vector<float>& v) {
  return val(emscripten::typed_memory_view(v.size(), v.data())).call<val>("slice");
}

val Error(const shrew::Status& status) {
  val out = val::object();
  out.set("ok", false);
  out.set("code", std::string(shrew::StatusCodeName(status.code())));
  out.set("message", status.message());
  return out;
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

}  // namespace

EMSCRIPTEN_BINDINGS(shrew) {
  emscripten::function("denseXnn", &DenseXnn);
  emscripten::function("simd128", &Simd128);
}
