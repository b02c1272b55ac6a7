// Tape executor versus reference interpreter.
//
//   build/<dir>/bench_jit [runs]
//
// Graphs: a dispatch-bound chain (20 small element-wise ops on 16-wide
// tensors, where per-instruction overhead dominates) and an MLP
// 784 -> 512 -> 512 -> 10 at batch 1 and 64. For each: median µs per run
// over >= 50 interleaved runs (tape, interpreter, tape, …), the tape's
// overhead per instruction (ns; from the dispatch-bound graph: median time
// divided by instruction count), and the memory plan (arena vs lower bound
// vs naive).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/compile.h"
#include "api/program.h"
#include "runtime/tensor.h"

namespace {

using shrew::runtime::Tensor;
using shrew::runtime::TensorMap;

constexpr const char* kDispatch = R"SW(
@graph Chain {
  input x: Tensor<[1, 16], f32>;
  input y: Tensor<[1, 16], f32>;
  node a1 { op: x + y; };
  node a2 { op: tanh(a1); };
  node a3 { op: a2 * y; };
  node a4 { op: sigmoid(a3); };
  node a5 { op: a4 - x; };
  node a6 { op: exp(a5); };
  node a7 { op: a6 / y; };
  node a8 { op: neg(a7); };
  node a9 { op: a8 + a1; };
  node a10 { op: relu(a9); };
  node a11 { op: a10 * a3; };
  node a12 { op: silu(a11); };
  node a13 { op: a12 + y; };
  node a14 { op: tanh(a13); };
  node a15 { op: a14 - a5; };
  node a16 { op: sigmoid(a15); };
  node a17 { op: a16 * x; };
  node a18 { op: gelu(a17); };
  node a19 { op: a18 + a12; };
  node a20 { op: exp(a19); };
  output a20;
}
)SW";

constexpr const char* kMlp = R"SW(
@graph Mlp {
  input x: Tensor<[Batch, 784], f32>;
  param w1: Tensor<[784, 512], f32> { init: "kaiming_normal"; };
  param b1: Tensor<[512], f32>      { init: "zeros"; };
  param w2: Tensor<[512, 512], f32> { init: "kaiming_normal"; };
  param b2: Tensor<[512], f32>      { init: "zeros"; };
  param w3: Tensor<[512, 10], f32>  { init: "xavier_uniform"; };
  param b3: Tensor<[10], f32>       { init: "zeros"; };
  node h1 { op: relu(matmul(x, w1) + b1); };
  node h2 { op: relu(matmul(h1, w2) + b2); };
  output logits: matmul(h2, w3) + b3;
}
)SW";

Tensor Random(shrew::runtime::Shape shape, uint32_t seed) {
  Tensor t = std::move(Tensor::Zeros(shrew::ir::DType::kF32, std::move(shape))).value();
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.SetDouble(i, static_cast<double>(s >> 8) / 16777216.0 - 0.5);
  }
  return t;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Row {
  std::string name;
  double tape_us = 0, interp_us = 0;
  int instructions = 0, ref_kernels = 0;
  unsigned long long arena = 0, lower = 0, naive = 0;
};

bool Bench(shrew::Program& p, const std::string& graph, const TensorMap& in, int runs, Row* row) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < 5; ++i) {  // warm up (and plan the binding)
    if (!p.Run(graph, in).ok() || !p.Interpret(graph, in).ok()) return false;
  }
  std::vector<double> tape, interp;
  for (int i = 0; i < runs; ++i) {
    auto t0 = Clock::now();
    auto a = p.Run(graph, in);
    auto t1 = Clock::now();
    auto b = p.Interpret(graph, in);
    auto t2 = Clock::now();
    if (!a.ok() || !b.ok()) return false;
    tape.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    interp.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
  }
  row->tape_us = Median(tape);
  row->interp_us = Median(interp);
  auto st = p.Stats(graph);
  row->instructions = st->num_instructions;
  row->ref_kernels = st->num_ref_kernels;
  row->arena = st->arena_bytes;
  row->lower = st->arena_lower_bound;
  row->naive = st->arena_naive;
  return true;
}

// The executor alone (inputs already in the arena, no output copies): what
// the tape costs per instruction.
double BenchExecutorOnly(shrew::Program& p, const std::string& graph, int runs) {
  shrew::jit::Executor* ex = p.executor(graph);
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!ex->Run().ok()) return -1;
    t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  return Median(t);
}

std::unique_ptr<shrew::Program> Make(const char* src) {
  shrew::CompileResult c = shrew::Compile(src);
  if (!c.ok) {
    std::fprintf(stderr, "%s", c.RenderDiagnostics().c_str());
    return nullptr;
  }
  shrew::ProgramOptions o;
  o.verify_plans = false;
  auto p = shrew::Program::Create(c, o);
  if (!p.ok()) {
    std::fprintf(stderr, "%s\n", p.status().ToString().c_str());
    return nullptr;
  }
  return std::move(p).value();
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(50, std::atoi(argv[1])) : 200;
  std::vector<Row> rows;
  double ns_per_instr = 0;
  {
    auto p = Make(kDispatch);
    if (!p) return 1;
    TensorMap in;
    in.emplace("x", Random({1, 16}, 1));
    in.emplace("y", Random({1, 16}, 2));
    Row r{"dispatch 20 ops x16"};
    if (!Bench(*p, "Chain", in, runs, &r)) return 1;
    const double exec_ns = BenchExecutorOnly(*p, "Chain", runs * 10);
    ns_per_instr = exec_ns / std::max(1, r.instructions);
    rows.push_back(r);
  }
  {
    auto p = Make(kMlp);
    if (!p) return 1;
    for (int64_t batch : {1, 64}) {
      TensorMap in;
      in.emplace("x", Random({batch, 784}, 3));
      Row r{"mlp 784-512-512-10 b" + std::to_string(batch)};
      if (!Bench(*p, "Mlp", in, runs, &r)) return 1;
      rows.push_back(r);
    }
  }
  std::printf("%-26s %10s %12s %8s %6s %4s %10s %10s %10s\n", "graph", "tape_us", "interp_us", "speedup", "instr",
              "ref", "arena", "lower", "naive");
  for (const Row& r : rows) {
    std::printf("%-26s %10.2f %12.2f %7.1fx %6d %4d %10llu %10llu %10llu\n", r.name.c_str(), r.tape_us, r.interp_us,
                r.interp_us / std::max(1e-9, r.tape_us), r.instructions, r.ref_kernels, r.arena, r.lower, r.naive);
  }
  std::printf("tape overhead (executor only, dispatch graph): %.1f ns per instruction (median of %d runs)\n",
              ns_per_instr, runs * 10);
  return 0;
}
