// libFuzzer entry point: the bytes are a parameter blob (api/param_blob.h).
// Decoding must never read out of bounds; a decoded record must be
// self-consistent; and Program::LoadParams of the bytes into a real program
// must either succeed (and then save and load back unchanged) or leave every
// parameter untouched (all-or-nothing).
// Seeds: fuzz/seeds/param_blob_fuzzer/ (blobs saved from the examples).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "api/compile.h"
#include "api/param_blob.h"
#include "api/program.h"

namespace {

// Two graphs, several dtypes and ranks, so loads that match in part are likely.
constexpr const char* kProgram = R"sw(
@graph A {
  input x: Tensor<[2, 3], f32>;
  param w: Tensor<[3, 4], f32> { init: "xavier_uniform"; };
  param b: Tensor<[4], f32> { init: "ones"; };
  output y: matmul(x, w) + b;
}
@graph B {
  input i: Tensor<[5], i64>;
  param t: Tensor<[7, 2], f64> { init: "normal(0, 1)"; };
  output e: embedding(i, t);
}
)sw";

shrew::Program* TheProgram() {
  static std::unique_ptr<shrew::Program> program = [] {
    shrew::CompileResult r = shrew::Compile(kProgram, {});
    if (!r.ok) __builtin_trap();
    auto p = shrew::Program::Create(r, {});
    if (!p.ok()) __builtin_trap();
    return std::move(p).value();
  }();
  return program.get();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> blob(data, size);
  auto records = shrew::DecodeParamBlob(blob);
  if (records.ok()) {
    for (const shrew::ParamRecord& r : *records) {
      auto count = shrew::runtime::CountElements(r.shape);
      if (!count.ok()) __builtin_trap();  // the decoder accepted an impossible shape
      const uint64_t elem = shrew::ir::StorageByteSize(shrew::ir::StorageOf(r.dtype));
      if (static_cast<uint64_t>(*count) * elem != r.data.size()) __builtin_trap();
      if (r.data.data() < data || r.data.data() + r.data.size() > data + size) __builtin_trap();
    }
  } else if (records.status().message().empty()) {
    __builtin_trap();  // an error must explain itself
  }
  shrew::Program* program = TheProgram();
  const uint64_t before = program->ParamsChecksum();
  shrew::Status loaded = program->LoadParams(blob);
  if (!loaded.ok()) {
    if (loaded.message().empty() || program->ParamsChecksum() != before) __builtin_trap();
  } else {
    // What was loaded saves and loads back to the same parameters (record
    // order and dtype spelling of the input may differ from the saved form).
    const std::vector<uint8_t> saved = program->SaveParams();
    const uint64_t after = program->ParamsChecksum();
    if (!program->LoadParams(saved).ok() || program->ParamsChecksum() != after) __builtin_trap();
  }
  return 0;
}
