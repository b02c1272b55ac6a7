// Binding symbolic dimensions from run-time inputs and checking the inputs
// against their declared types (LANGUAGE.md §5.3, PIPELINE.md §8 step 2).
//
// Precedence: the runtime configuration's dims first, then the inputs in
// declaration order (the first input with `N` at some position binds it);
// every other occurrence is checked. Messages name the input, the expected
// type and the actual shape/dtype:
//   input 'x' of graph 'G': expected dtype f32, got f64 (declared Tensor<[Batch, 4], f32>)
//   input 'x' of graph 'G': expected rank 2, got rank 3: expected [Batch, 4], got [1, 2, 4]
//   input 'x' of graph 'G': expected [Batch, 4], got [2, 5]: dimension 1 must be 4
//   input 'm' of graph 'G': expected [Seq, Seq], got [5, 7]: dimension 'Seq' is 7 here but 5 (bound by input 'x')
#pragma once

#include <span>
#include <string>

#include "base/status.h"
#include "ir/graph.h"
#include "runtime/tensor.h"

namespace shrew::jit {

// What the check needs to know about one supplied input.
struct InputDesc {
  bool present = false;
  ir::DType dtype = ir::DType::kF32;
  runtime::Shape shape;
};

// A rejected input as fields, for callers that report errors structurally
// (the wasm bindings) instead of as message text.
struct InputIssue {
  std::string input;     // the input's name
  std::string expected;  // "f32" (dtype errors), "[Batch, 784]" (shape errors), the declared type (missing)
  std::string actual;    // "f64", "[2, 783]"; empty when nothing was supplied
};

// `inputs` has one entry per graph input (declaration order). Absent inputs
// are skipped (the caller decides whether absence is allowed). Returns the
// full binding (config dims plus those bound from inputs). On an input error
// `issue` (if given) receives its fields.
Result<ir::DimBindings> BindInputs(const ir::Graph& graph, const ir::DimBindings& config_dims,
                                   std::span<const InputDesc> inputs, InputIssue* issue = nullptr);

// The concrete shape of a declared type under `dims`; dynamic or unbound
// symbolic dims become `fallback` (used for absent optional inputs).
runtime::Shape ConcreteShape(const ir::Type& type, const ir::DimBindings& dims, int64_t fallback);

}  // namespace shrew::jit
