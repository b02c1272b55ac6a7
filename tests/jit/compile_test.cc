// Order, slots, frees and the §7.7 dump of the MLP example.
#include "jit/compile.h"

#include <gtest/gtest.h>

#include "jit/dump.h"
#include "jit/jit_test_util.h"
#include "runtime/packed_weights.h"

namespace shrew::jit {
namespace {

using testing::F32;
using testing::MakeProgram;

constexpr const char* kMlp = R"SW(
@graph Forward {
    input x: Tensor<[2, 4], f32>;
    param w1: Tensor<[4, 8], f32> { init: "normal(0, 0.1)"; };
    param b1: Tensor<[8], f32>    { init: "zeros"; };
    param w2: Tensor<[8, 3], f32> { init: "normal(0, 0.1)"; };
    param b2: Tensor<[3], f32>    { init: "zeros"; };
    node h1     { op: matmul(x, w1) + b1; };
    node a1     { op: relu(h1); };
    node logits { op: matmul(a1, w2) + b2; };
    output probs: softmax(logits);
}
)SW";

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

TEST(JitCompile, MlpDumpMatchesSpec) {
  shrew::ProgramOptions o;
  o.jit_fusion = false;  // the §7.7 reference tape keeps relu separate
  std::unique_ptr<shrew::Program> p = MakeProgram(kMlp, o);
  ASSERT_NE(p, nullptr);
  Result<std::string> dump = p->Dump("Forward");
  ASSERT_TRUE(dump.ok());
  std::vector<std::string> lines = Lines(*dump);
  ASSERT_GE(lines.size(), 14u) << *dump;
  EXPECT_EQ(lines[0], "jit Forward");
  EXPECT_EQ(lines[1].rfind("stats: instructions=11 source_nodes=9 slots=9 reused=", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(" frees=2 fused=2 arena_bytes="), std::string::npos) << lines[1];
  const std::vector<std::string> expected = {
      "  0: load_param %0 <- Forward/b2",
      "  1: load_param %1 <- Forward/w2",
      "  2: load_param %2 <- Forward/b1",
      "  3: load_param %3 <- Forward/w1",
      "  4: load_input %4 <- x",
      "  5: fused_matmul_add %5 <- %4, %3, %2",
      "  6: relu %6 <- %5",
      "  7: free %5",
      "  8: fused_matmul_add %7 <- %6, %1, %0",
      "  9: free %6",
      "  10: softmax[dim=-1] %8 <- %7",
      "outputs: probs=%8",
  };
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(lines[2 + i], expected[i]) << *dump;
  const CompiledGraph* cg = p->compiled("Forward");
  ASSERT_NE(cg, nullptr);
  EXPECT_EQ(cg->stats.num_instructions, 11);
  EXPECT_EQ(cg->stats.num_frees, 2);
  EXPECT_EQ(cg->stats.num_fused, 2);
  // §7.4 lifetimes.
  EXPECT_EQ(cg->lifetimes[5].produced_at, 5);
  EXPECT_EQ(cg->lifetimes[5].last_used_at, 6);
  EXPECT_EQ(cg->lifetimes[7].last_used_at, 8);
  EXPECT_TRUE(cg->lifetimes[8].is_output);
  EXPECT_TRUE(cg->lifetimes[4].is_external);
}

TEST(JitCompile, ConstantsAreFreedAfterTheirLastRead) {
  // §7.4: a constant is neither an input nor a parameter, so its slot is
  // freed after its last read; it still holds its value in every run.
  shrew::ProgramOptions o;
  o.jit_fusion = false;
  std::unique_ptr<shrew::Program> p = MakeProgram(
      "@graph C { input x: Tensor<[4], f32>; node a { op: x * 2.0; }; node b { op: exp(a); }; output c: b + x; }",
      o);
  ASSERT_NE(p, nullptr);
  Result<std::string> dump = p->Dump("C");
  ASSERT_TRUE(dump.ok());
  std::vector<std::string> lines = Lines(*dump);
  ASSERT_GE(lines.size(), 10u) << *dump;
  EXPECT_EQ(lines[1].rfind("stats: instructions=7 source_nodes=5 slots=5 reused=", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(" frees=2 fused=0 "), std::string::npos) << lines[1];
  const std::vector<std::string> expected = {
      "  0: constant[2:f32] %0",
      "  1: load_input %1 <- x",
      "  2: mul %2 <- %1, %0",
      "  3: free %0",
      "  4: exp %3 <- %2",
      "  5: free %2",
      "  6: add %4 <- %3, %1",
      "outputs: c=%4",
  };
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(lines[2 + i], expected[i]) << *dump;
  runtime::TensorMap in;
  in.emplace("x", F32({4}, {0, 1, -1, 0.5f}));
  for (int run = 0; run < 2; ++run) {
    Result<runtime::TensorMap> out = p->Run("C", in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const float want[4] = {1.0f, std::exp(2.0f) + 1, std::exp(-2.0f) - 1, std::exp(1.0f) + 0.5f};
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out->at("c").GetDouble(i), want[i], 1e-5 * std::fabs(want[i]) + 1e-6);
  }
}

TEST(JitCompile, MlpRunsAndPlansWithinBound) {
  std::unique_ptr<shrew::Program> p = MakeProgram(kMlp);
  ASSERT_NE(p, nullptr);
  runtime::TensorMap in;
  in.emplace("x", F32({2, 4}, {1, 2, 3, 4, -1, -2, -3, -4}));
  testing::RunBoth(*p, "Forward", in);
  Result<CompileStats> st = p->Stats("Forward");
  ASSERT_TRUE(st.ok());
  EXPECT_GT(st->arena_bytes, 0u);
  EXPECT_LE(st->arena_bytes, st->arena_lower_bound * 105 / 100);
  // JIT-level fusion: relu folded into the first dense layer (one FC with a
  // clamp); the folded slot %5 is never produced, so its free disappears.
  Result<std::string> dump = p->Dump("Forward");
  ASSERT_TRUE(dump.ok());
  EXPECT_NE(dump->find("  5: fused_matmul_add+relu %6 <- %4, %3, %2\n  6: fused_matmul_add %7 <- %6, %1, %0\n"
                       "  7: free %6\n  8: softmax[dim=-1] %8 <- %7\n"),
            std::string::npos)
      << *dump;
  // Its type is shown (it holds no bytes).
  EXPECT_NE(dump->find("%5 h1_fused_matmul_add: f32[2, 8] fused away\n"), std::string::npos) << *dump;
  EXPECT_EQ(st->num_instructions, 9);
  EXPECT_EQ(st->num_frees, 1);
  EXPECT_EQ(st->num_fused, 2);
  // x (input, whole run) + %6 + %7 (softmax in place over it): 64 + 64 + 64.
  EXPECT_EQ(st->arena_bytes, 192u);
  EXPECT_EQ(st->arena_lower_bound, 192u);
}

TEST(JitCompile, AReleasedArenaIsAllocatedAgainByTheNextRun) {
  // What a run that failed for want of memory does after Bind grew the arena.
  std::unique_ptr<shrew::Program> p = MakeProgram(kMlp);
  ASSERT_NE(p, nullptr);
  runtime::TensorMap in;
  in.emplace("x", F32({2, 4}, {1, 2, 3, 4, -1, -2, -3, -4}));
  Result<runtime::TensorMap> before = p->Run("Forward", in);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  jit::Executor* ex = p->executor("Forward");
  ASSERT_NE(ex, nullptr);
  ex->ReleaseArena();
  EXPECT_FALSE(ex->CopyOutput(0).ok());  // the outputs went with the arena
  for (int run = 0; run < 2; ++run) {
    Result<runtime::TensorMap> after = p->Run("Forward", in);
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    const runtime::Tensor& y = after->at("probs");
    for (int64_t i = 0; i < y.num_elements(); ++i) EXPECT_EQ(y.GetDouble(i), before->at("probs").GetDouble(i)) << i;
  }
  testing::RunBoth(*p, "Forward", in);
}

TEST(JitCompile, ParamChangeRecreatesOnlyItsKernels) {
  // w is packed by two kernels (one fused with its relu), v by one, b by the
  // fused one. Setting w re-creates exactly the two kernels that read it.
  std::unique_ptr<shrew::Program> p = MakeProgram(R"SW(
@graph G {
    input x: Tensor<[2, 4], f32>;
    param w: Tensor<[4, 4], f32> { init: "normal(0, 1)"; };
    param v: Tensor<[4, 4], f32> { init: "normal(0, 1)"; };
    param b: Tensor<[4], f32>    { init: "normal(0, 1)"; };
    node h { op: relu(matmul(x, w) + b); };
    node k { op: matmul(h, w); };
    output y: matmul(k, v);
}
)SW");
  ASSERT_NE(p, nullptr);
  const CompiledGraph* cg = p->compiled("G");
  ASSERT_NE(cg, nullptr);
  auto param = [&](const char* name) { return static_cast<size_t>(cg->graph.FindParam(name)); };
  auto kernels_of = [&](size_t q) {
    return std::vector<int32_t>(cg->param_kernels.begin() + cg->param_kernel_begin[q],
                                 cg->param_kernels.begin() + cg->param_kernel_begin[q + 1]);
  };
  ASSERT_EQ(cg->param_kernel_begin.size(), cg->graph.params().size() + 1);
  const std::vector<int32_t> of_w = kernels_of(param("w")), of_v = kernels_of(param("v")), of_b = kernels_of(param("b"));
  ASSERT_EQ(of_w.size(), 2u);
  ASSERT_EQ(of_v.size(), 1u);
  ASSERT_EQ(of_b.size(), 1u);
  EXPECT_NE(cg->kernels[static_cast<size_t>(of_b[0])].fused_node, ir::kNoNode);  // relu(matmul + b): one kernel
  EXPECT_TRUE(of_b[0] == of_w[0] || of_b[0] == of_w[1]);
  for (int32_t k : of_w) EXPECT_NE(k, of_v[0]);
  std::vector<const runtime::Kernel*> before;
  for (const CompiledKernel& ck : cg->kernels) before.push_back(ck.kernel.get());

  runtime::TensorMap in;
  in.emplace("x", F32({2, 4}, {1, 2, 3, 4, -1, -2, -3, -4}));
  ASSERT_TRUE(p->Run("G", in).ok());
  ASSERT_TRUE(p->SetParam("G/w", testing::RandomTensor(ir::DType::kF32, {4, 4}, 7)).ok());
  for (size_t k = 0; k < cg->kernels.size(); ++k) {
    const bool reads_w = static_cast<int32_t>(k) == of_w[0] || static_cast<int32_t>(k) == of_w[1];
    EXPECT_EQ(cg->kernels[k].kernel.get() != before[k], reads_w) << "kernel " << k;
  }
  testing::RunBoth(*p, "G", in);  // the tape computes with the new w
}

TEST(JitCompile, ARepeatedMatmulKeepsOnePackedWeight) {
  // The repeats unroll 12 products by w and 3 by v: XNNPACK packs each
  // weight once per instruction, and the kernels keep one copy of each
  // (runtime/packed_weights.h), released with the program.
  const size_t packs_before = runtime::PackedWeights::LivePacks();
  std::unique_ptr<shrew::Program> p = MakeProgram(R"SW(
@graph G {
    input x: Tensor<[8, 32], f32>;
    param w: Tensor<[32, 32], f32> { init: "normal(0, 0.18)"; };
    param v: Tensor<[32, 32], f32> { init: "normal(0, 0.18)"; };
    node h { op: repeat(12) { matmul(x, w) }; };
    output y: repeat(3) { matmul(h, v) };
}
)SW");
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->compiled("G")->kernels.size(), 15u);
  EXPECT_EQ(runtime::PackedWeights::LivePacks(), packs_before + 2);
  runtime::TensorMap in;
  in.emplace("x", testing::RandomTensor(ir::DType::kF32, {8, 32}, 3, -1, 1));
  testing::RunBoth(*p, "G", in, /*slack=*/20);
  // A new w: its 12 kernels are re-created and share the new pack; the old is freed.
  ASSERT_TRUE(p->SetParam("G/w", testing::RandomTensor(ir::DType::kF32, {32, 32}, 9, -0.3, 0.3)).ok());
  EXPECT_EQ(runtime::PackedWeights::LivePacks(), packs_before + 2);
  testing::RunBoth(*p, "G", in, /*slack=*/20);
  p.reset();
  EXPECT_EQ(runtime::PackedWeights::LivePacks(), packs_before);
}

TEST(JitCompile, CompileErrorsNameTheNode) {
  CompileResult c = Compile(R"SW(
@custom_op my_op { }
@graph G {
  input x: Tensor<[2], f32>;
  output y: my_op(x);
}
)SW");
  // The compile says so at the call (OPS.md §3.19), with the stage that failed.
  ASSERT_FALSE(c.ok);
  EXPECT_STREQ(CompileStageName(c.stage), "jit");
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_STREQ(c.diagnostics[0].code(), "E150");
  EXPECT_EQ(c.diagnostics[0].message, "[G::y] custom op 'my_op' has no kernel");
  EXPECT_EQ(c.diagnostics[0].span.line, 5u);
  // An executor built from such an IR refuses it too.
  Result<std::unique_ptr<Program>> p = Program::Create(c.unoptimized);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("custom op 'my_op' has no kernel"), std::string::npos) << p.status().ToString();
}

}  // namespace
}  // namespace shrew::jit
