// The catalog kernels against the interpreter fallback they replaced.
//
//   build/<dir>/bench_ops [runs] [path/to/tiny_gpt.sw]   (run from the repo root)
//
// For each graph: median µs per tape run (Executor::Run after one
// Program::Run has bound the inputs, so input/output copies are excluded)
// with native kernels and with every node on the ref fallback
// (interp::EvalNode per instruction, ProgramOptions::native_kernels =
// false), over >= 30 interleaved runs (native, ref, native, …), and the
// speed-up.
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api/compile.h"
#include "api/program.h"
#include "runtime/tensor.h"

namespace {

using shrew::runtime::Tensor;
using shrew::runtime::TensorMap;

struct Case {
  const char* label;
  std::string source;
  const char* graph;
  std::vector<std::pair<std::string, std::pair<shrew::ir::DType, shrew::runtime::Shape>>> inputs;
  double hi = 1.0;  // inputs drawn from [0, hi) (integers: floor)
};

Tensor Random(shrew::ir::DType dt, const shrew::runtime::Shape& shape, double hi, uint32_t seed) {
  Tensor t = Tensor::Zeros(dt, shape).value();
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(0, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetDouble(i, shrew::ir::IsFloat(dt) ? u(g) - hi / 2 : std::floor(u(g)));
  return t;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(30, std::atoi(argv[1])) : 60;
  using shrew::ir::DType;
  const std::string g1 = "@graph G {\n  input x: Tensor<[256, 512], f32>;\n";
  std::vector<Case> cases = {
      {"sum(x, dim: -1) [256,512]", g1 + "  output y: sum(x, dim: -1);\n}\n", "G", {{"x", {DType::kF32, {256, 512}}}}},
      {"mean(x, dim: 0) [256,512]", g1 + "  output y: mean(x, dim: 0);\n}\n", "G", {{"x", {DType::kF32, {256, 512}}}}},
      {"var(x, dim: -1) [256,512]", g1 + "  output y: var(x, dim: -1);\n}\n", "G", {{"x", {DType::kF32, {256, 512}}}}},
      {"max(x, dim: 1) [256,512]", g1 + "  output y: max(x, dim: 1);\n}\n", "G", {{"x", {DType::kF32, {256, 512}}}}},
      {"x > 0.25 && x < 0.4 [256,512]", g1 + "  output y: x > 0.25 && x < 0.4;\n}\n", "G",
       {{"x", {DType::kF32, {256, 512}}}}},
      {"where(x > 0, x, 0.1 * x)", g1 + "  output y: where(x > 0.0, x, x * 0.1);\n}\n", "G",
       {{"x", {DType::kF32, {256, 512}}}}},
      {"x >= row [256,512] + [512]",
       g1 + "  input r: Tensor<[512], f32>;\n  output y: x >= r;\n}\n", "G",
       {{"x", {DType::kF32, {256, 512}}}, {"r", {DType::kF32, {512}}}}},
      {"i64 a + b [256,512]",
       "@graph G {\n  input a: Tensor<[256, 512], i64>;\n  input b: Tensor<[256, 512], i64>;\n"
       "  output y: a + b;\n}\n",
       "G",
       {{"a", {DType::kI64, {256, 512}}}, {"b", {DType::kI64, {256, 512}}}},
       1000.0},
      {"f64 a * col [256,512] * [256,1]",
       "@graph G {\n  input a: Tensor<[256, 512], f64>;\n  input c: Tensor<[256, 1], f64>;\n"
       "  output y: a * c;\n}\n",
       "G",
       {{"a", {DType::kF64, {256, 512}}}, {"c", {DType::kF64, {256, 1}}}}},
      {"i64 a % 7 [256,512]",
       "@graph G {\n  input a: Tensor<[256, 512], i64>;\n  output y: a % 7;\n}\n", "G",
       {{"a", {DType::kI64, {256, 512}}}},
       1000.0},
      {"concat(x, x, dim: -1)", g1 + "  output y: concat(x, x, dim: -1);\n}\n", "G", {{"x", {DType::kF32, {256, 512}}}}},
      {"embedding [32,128] ids, 1000x256",
       "@graph G {\n  input ids: Tensor<[32, 128], i64>;\n"
       "  param t: Tensor<[1000, 256], f32> { init: \"normal(0, 1)\"; };\n  output y: embedding(ids, t);\n}\n",
       "G",
       {{"ids", {DType::kI64, {32, 128}}}},
       1000.0},
      {"cross_entropy [512,100] idx",
       "@graph G {\n  input l: Tensor<[512, 100], f32>;\n  input t: Tensor<[512], i64>;\n"
       "  output y: cross_entropy(l, t);\n}\n",
       "G",
       {{"l", {DType::kF32, {512, 100}}}, {"t", {DType::kI64, {512}}}},
       100.0},
      {"tiny_gpt LanguageModel B=4", ReadFile(argc > 2 ? argv[2] : "tests/testdata/examples/tiny_gpt.sw"), "LanguageModel",
       {{"tokens", {DType::kI64, {4, 16}}}, {"targets", {DType::kI64, {4, 16}}}},
       96.0},
  };
  std::printf("%-34s %12s %12s %9s\n", "graph", "native µs", "ref µs", "speed-up");
  for (const Case& c : cases) {
    shrew::CompileResult compiled = shrew::Compile(c.source);
    if (!compiled.ok) {
      std::fprintf(stderr, "%s: %s\n", c.label, compiled.RenderDiagnostics().c_str());
      return 1;
    }
    shrew::ProgramOptions native_opts, ref_opts;
    ref_opts.native_kernels = false;
    auto native = shrew::Program::Create(compiled, native_opts);
    auto ref = shrew::Program::Create(compiled, ref_opts);
    if (!native.ok() || !ref.ok()) {
      std::fprintf(stderr, "%s: create failed\n", c.label);
      return 1;
    }
    TensorMap in;
    uint32_t seed = 1;
    for (const auto& [name, spec] : c.inputs) in.emplace(name, Random(spec.first, spec.second, c.hi, seed++));
    std::vector<double> tn, tr;
    for (shrew::Program* p : {native->get(), ref->get()}) {
      auto out = p->Run(c.graph, in);  // binds and writes the inputs into the arena
      if (!out.ok()) {
        std::fprintf(stderr, "%s: %s\n", c.label, out.status().ToString().c_str());
        return 1;
      }
    }
    for (int r = 0; r < runs + 3; ++r) {
      for (int which = 0; which < 2; ++which) {
        shrew::jit::Executor* ex = (which == 0 ? **native : **ref).executor(c.graph);
        const auto t0 = std::chrono::steady_clock::now();
        shrew::Status s = ex->Run();
        const auto t1 = std::chrono::steady_clock::now();
        if (!s.ok()) {
          std::fprintf(stderr, "%s: %s\n", c.label, s.ToString().c_str());
          return 1;
        }
        if (r >= 3) (which == 0 ? tn : tr).push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
    }
    const double mn = Median(tn), mr = Median(tr);
    std::printf("%-34s %12.1f %12.1f %8.1fx\n", c.label, mn, mr, mr / mn);
  }
  return 0;
}
