// Compile + run of arbitrary bytes, shared by the libFuzzer target
// fuzz/run_fuzzer.cc and the regression test tests/api/fuzz_regressions_test.cc:
// when the bytes compile, every graph is built into a Program and run on
// both executors (tape and reference interpreter) with inputs filled from a
// generator seeded by the bytes.
//
// Sizes stay small so a run cannot allocate much: every symbolic dimension
// is bound to 1..3, inputs over 64 Ki elements are skipped, and the
// program's byte cap (max_tensor_bytes = 16 MiB) turns any larger parameter
// or intermediate value into an error. Integer inputs are drawn from
// [-2, 6), so embedding indices and similar are sometimes out of range or
// negative: that must be an error, never a crash.
//
// When both executors succeed their outputs must agree in names, dtypes and
// shapes (values are not compared: XNNPACK's kernels and the reference
// loops round differently, and random programs overflow to inf/NaN freely).
// A failed step must explain itself, and the program must stay usable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <memory>

#include "api/compile.h"
#include "api/program.h"
#include "ir/dtype.h"
#include "runtime/tensor.h"

namespace shrew::fuzz {

inline constexpr int64_t kMaxInputElements = 1 << 16;

inline uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline uint64_t Fnv1a(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ULL;
  return h;
}

// Inputs for `g` under `dims`; false when some input cannot be built small.
inline bool MakeInputs(const shrew::ir::Graph& g, const shrew::ir::DimBindings& dims, uint64_t* rng,
                shrew::runtime::TensorMap* inputs) {
  using shrew::ir::DType;
  for (const shrew::ir::GraphInput& in : g.inputs()) {
    const shrew::ir::Node& node = g.node(in.node);
    if (!node.type.is_tensor() || !shrew::ir::IsExecutable(node.type.dtype())) return false;
    shrew::runtime::Shape shape;
    int64_t count = 1;
    for (const shrew::ir::Dim& d : node.type.dims()) {
      int64_t size = 2;
      if (d.is_fixed()) size = d.size();
      if (d.is_symbolic()) {
        auto it = dims.find(d.name());
        if (it == dims.end()) return false;
        size = it->second;
      }
      if (size < 0 || size > kMaxInputElements) return false;
      count *= size;
      if (count > kMaxInputElements) return false;
      shape.push_back(size);
    }
    const DType dtype = node.type.dtype();
    shrew::Result<shrew::runtime::Tensor> t = shrew::runtime::Tensor::Zeros(dtype, shape);
    if (!t.ok()) return false;
    for (int64_t i = 0; i < t->num_elements(); ++i) {
      const uint64_t r = SplitMix(rng);
      double v = 0;
      if (shrew::ir::IsFloat(dtype)) {
        v = static_cast<double>(r >> 11) * 0x1.0p-53 * 4.0 - 2.0;
      } else if (shrew::ir::IsBool(dtype)) {
        v = static_cast<double>(r & 1);
      } else {
        v = static_cast<double>(static_cast<int64_t>(r % 8) - 2);
      }
      t->SetDouble(i, v);
    }
    inputs->insert_or_assign(node.name, std::move(t).value());
  }
  return true;
}

// "" when everything behaved; otherwise what went wrong.
inline std::string CheckCompileAndRun(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  shrew::CompileOptions copts;
  copts.filename = "fuzz.sw";
  shrew::CompileResult c = shrew::Compile(text, copts);
  if (!c.ok) return c.diagnostics.empty() ? "failed compile without diagnostics" : "";

  uint64_t rng = Fnv1a(data, size);
  shrew::ProgramOptions popts;
  popts.max_tensor_bytes = uint64_t{16} << 20;
  // Every symbolic dimension any graph input or parameter mentions: 1..3.
  auto bind_dims = [&](const shrew::ir::Type& t) {
    if (!t.is_tensor()) return;
    for (const shrew::ir::Dim& d : t.dims()) {
      if (d.is_symbolic() && popts.dims.find(d.name()) == popts.dims.end()) {
        popts.dims[d.name()] = static_cast<int64_t>(1 + SplitMix(&rng) % 3);
      }
    }
  };
  for (const shrew::ir::Graph& g : c.program.graphs) {
    for (const shrew::ir::GraphInput& in : g.inputs()) bind_dims(g.node(in.node).type);
    for (const shrew::ir::Param& p : g.params()) bind_dims(p.type);
  }
  shrew::Result<std::unique_ptr<shrew::Program>> p = shrew::Program::Create(c, popts);
  if (!p.ok()) {
    if (p.status().message().empty()) return "Program::Create failed without a message";
    return "";
  }
  for (const shrew::ir::Graph& g : c.program.graphs) {
    shrew::runtime::TensorMap inputs;
    if (!MakeInputs(g, popts.dims, &rng, &inputs)) continue;
    shrew::Result<shrew::runtime::TensorMap> tape = (*p)->Run(g.name(), inputs);
    shrew::Result<shrew::runtime::TensorMap> ref = (*p)->Interpret(g.name(), inputs);
    if (!tape.ok() && tape.status().message().empty()) return "tape error without a message";
    if (!ref.ok() && ref.status().message().empty()) return "interpreter error without a message";
    // The oracle runs every node as the tape does: they accept and reject the same runs.
    if (tape.ok() != ref.ok()) {
      return "graph " + g.name() + ": " + (tape.ok() ? "only the interpreter failed: " + ref.status().ToString()
                                                    : "only the tape failed: " + tape.status().ToString());
    }
    if (tape.ok() && ref.ok()) {
      if (tape->size() != ref->size()) return "graph " + g.name() + ": executors give different outputs";
      for (const auto& [name, t] : *tape) {
        auto it = ref->find(name);
        if (it == ref->end()) return "graph " + g.name() + ": output " + name + " missing from the interpreter";
        if (it->second.dtype() != t.dtype() || it->second.shape() != t.shape()) {
          return "graph " + g.name() + ": output " + name + " is " + t.TypeString() + " on the tape, " +
                 it->second.TypeString() + " in the interpreter";
        }
      }
    }
    // After any error the program must still run: a second tape run.
    shrew::Result<shrew::runtime::TensorMap> again = (*p)->Run(g.name(), inputs);
    if (tape.ok() != again.ok()) {
      return "graph " + g.name() + ": a second tape run " + (again.ok() ? std::string("succeeded") : "failed: " + again.status().ToString());
    }
  }
  return "";
}

}  // namespace shrew::fuzz
