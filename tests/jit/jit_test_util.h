// Helpers shared by the JIT and Program tests: compiling source, building
// programs, random inputs and the JIT-versus-interpreter comparison with the
// tolerances of PIPELINE.md §9.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>

#include "api/compile.h"
#include "api/prepared_run.h"
#include "api/program.h"
#include "runtime/tensor.h"
#include "support/heap_counter.h"

namespace shrew::jit::testing {

inline std::string ReadTestdata(const std::string& relative) {
  std::ifstream f(std::string(SHREW_TESTDATA_DIR) + "/" + relative);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Compiles `source`; on failure the test fails with the diagnostics.
inline std::unique_ptr<shrew::Program> MakeProgram(const std::string& source, shrew::ProgramOptions options = {},
                                            shrew::CompileOptions copts = {}) {
  shrew::CompileResult c = shrew::Compile(source, copts);
  EXPECT_TRUE(c.ok) << c.RenderDiagnostics();
  if (!c.ok) return nullptr;
  options.verify_plans = true;
  options.check_slots = true;
  Result<std::unique_ptr<shrew::Program>> p = shrew::Program::Create(c, std::move(options));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (!p.ok()) return nullptr;
  return std::move(p).value();
}

// Uniform values in [lo, hi) for float dtypes, small integers otherwise.
inline runtime::Tensor RandomTensor(ir::DType dtype, runtime::Shape shape, uint32_t seed, double lo = -2.0,
                                    double hi = 2.0) {
  Result<runtime::Tensor> t = runtime::Tensor::Zeros(dtype, std::move(shape));
  EXPECT_TRUE(t.ok());
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    const double v = u(gen);
    t->SetDouble(i, ir::IsFloat(dtype) ? v : std::floor(v));
  }
  return std::move(t).value();
}

// Inputs of graph `g` by a formula that js/test implements too, so no input
// data is checked in: element i of input k (declaration order) is
//   float: ((i * 37 + k * 11) % 101) / 50 - 1
//   int:   (i * 7 + k) % 16
//   bool:  (i * 3 + k) % 2
// Symbolic dims take their sizes from `dims`.
inline runtime::TensorMap FormulaInputs(const ir::Graph& g, const ir::DimBindings& dims) {
  runtime::TensorMap in;
  int k = 0;
  for (const ir::GraphInput& gi : g.inputs()) {
    const ir::Node& node = g.node(gi.node);
    runtime::Shape shape;
    for (const ir::Dim& d : node.type.dims()) shape.push_back(d.is_fixed() ? d.size() : dims.at(d.name()));
    Result<runtime::Tensor> t = runtime::Tensor::Zeros(node.type.dtype(), shape);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    if (!t.ok()) continue;
    for (int64_t i = 0; i < t->num_elements(); ++i) {
      double v = 0;
      if (ir::IsFloat(node.type.dtype())) v = static_cast<double>((i * 37 + k * 11) % 101) / 50.0 - 1.0;
      else if (ir::IsBool(node.type.dtype())) v = static_cast<double>((i * 3 + k) % 2);
      else v = static_cast<double>((i * 7 + k) % 16);
      t->SetDouble(i, v);
    }
    in.emplace(node.name, std::move(t).value());
    ++k;
  }
  return in;
}

inline runtime::Tensor F32(runtime::Shape shape, std::vector<float> values) {
  Result<runtime::Tensor> t = runtime::Tensor::FromVector<float>(ir::DType::kF32, std::move(shape), values);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(t).value();
}

// PIPELINE.md §9: f32 within 1e-5 relative / 1e-6 absolute, f64 1e-12,
// integers and bools exact. `slack` scales the f32 tolerances for kernels
// whose accumulation order differs (XNNPACK GEMMs over long rows).
inline void ExpectAgree(const runtime::TensorMap& jit, const runtime::TensorMap& ref, double slack = 1.0) {
  ASSERT_EQ(jit.size(), ref.size());
  for (const auto& [name, expected] : ref) {
    auto it = jit.find(name);
    ASSERT_NE(it, jit.end()) << "missing output " << name;
    std::string why;
    double rtol = 1e-5 * slack, atol = 1e-6 * slack;
    if (expected.storage() == ir::StorageType::kF64) rtol = atol = 1e-12;
    EXPECT_TRUE(runtime::AllClose(it->second, expected, rtol, atol, &why)) << "output " << name << ": " << why;
  }
}

// "Plan, then compute; compute never allocates" (jit/executor.h): once a
// binding is planned, runs of the lean path (PreparedRun, what the bindings
// call) allocate nothing. Exempt by that contract: graphs with instructions
// on the interpreter fallback, and value-shaped graphs (each run evaluates
// their shapes first). A no-op where allocations cannot be counted.
inline void ExpectSteadyRunsAllocateNothing(shrew::Program& p, const std::string& graph,
                                            const runtime::TensorMap& inputs) {
  if (!shrew::testing::HeapCountingAvailable()) return;
  std::vector<shrew::InputSpec> specs;
  for (const auto& [name, t] : inputs) specs.push_back({name, t.dtype(), t.shape()});
  Result<std::unique_ptr<shrew::PreparedRun>> prepared = p.Prepare(graph, specs);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  shrew::PreparedRun& run = **prepared;
  for (size_t k = 0; k < specs.size(); ++k) {
    const int i = run.input_of_spec(static_cast<int>(k));
    const runtime::Tensor& t = inputs.at(specs[k].name);
    ASSERT_EQ(run.input_bytes(i), t.byte_size());
    if (t.byte_size() > 0) std::memcpy(run.input_data(i), t.raw_data(), t.byte_size());
  }
  Status first = run.Run();
  ASSERT_TRUE(first.ok()) << first.ToString();
  Result<CompileStats> stats = p.Stats(graph);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  if (stats->num_ref_kernels > 0 || run.shapes_vary()) return;
  int64_t allocations = 0;
  {
    shrew::testing::CountAllocations counted;
    for (int r = 0; r < 3 && allocations == 0; ++r) {
      const bool ok = run.Run().ok();
      allocations = counted.count();
      if (!ok) allocations = -1;
    }
  }
  EXPECT_EQ(allocations, 0) << "steady-state runs of graph '" << graph
                            << "' allocated (-1: a run failed after the first succeeded)";
}

// Runs both executors on the same inputs and compares; then checks that
// steady-state runs of the tape allocate nothing.
inline void RunBoth(shrew::Program& p, const std::string& graph, const runtime::TensorMap& inputs, double slack = 1.0) {
  Result<runtime::TensorMap> jit = p.Run(graph, inputs);
  ASSERT_TRUE(jit.ok()) << jit.status().ToString();
  Result<runtime::TensorMap> ref = p.Interpret(graph, inputs);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  ExpectAgree(*jit, *ref, slack);
  ExpectSteadyRunsAllocateNothing(p, graph, inputs);
}

// RunBoth where the executors must agree bit for bit; the tape's outputs
// (empty when either executor failed, which is a test failure).
inline runtime::TensorMap RunBothBitwise(shrew::Program& p, const std::string& graph,
                                         const runtime::TensorMap& inputs) {
  Result<runtime::TensorMap> jit = p.Run(graph, inputs);
  Result<runtime::TensorMap> ref = p.Interpret(graph, inputs);
  EXPECT_TRUE(jit.ok()) << jit.status().ToString();
  EXPECT_TRUE(ref.ok()) << ref.status().ToString();
  if (!jit.ok() || !ref.ok()) return {};
  EXPECT_EQ(jit->size(), ref->size());
  for (const auto& [name, t] : *ref) {
    auto it = jit->find(name);
    if (it == jit->end()) {
      ADD_FAILURE() << "missing output " << name;
      continue;
    }
    std::string why;
    EXPECT_TRUE(runtime::BitwiseEqual(it->second, t, &why)) << graph << " output " << name << ": " << why;
  }
  ExpectSteadyRunsAllocateNothing(p, graph, inputs);
  return std::move(jit).value();
}

}  // namespace shrew::jit::testing
