// ProfileTape (jit/profile.h): per-instruction kernel times on a bound
// executor, the run's outputs unchanged by the timing, and its errors.
#include "jit/profile.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "jit/jit_test_util.h"

namespace shrew::jit {
namespace {

using runtime::Tensor;
using runtime::TensorMap;
using testing::MakeProgram;

constexpr char kSource[] = R"(
  @graph G {
    input a: Tensor<[256, 256], f32>;
    input s: Tensor<[4], f32>;
    output big: relu(matmul(a, a));
    output small: s + 1.0;
  })";

TensorMap Inputs() {
  TensorMap m;
  m.emplace("a", testing::RandomTensor(ir::DType::kF32, {256, 256}, 3));
  m.emplace("s", testing::F32({4}, {1, 2, 3, 4}));
  return m;
}

// The tape index of the kernel instruction computing output `name`.
size_t InstructionOf(const CompiledGraph& cg, const char* name) {
  for (const auto& [out, slot] : cg.outputs) {
    if (out != name) continue;
    for (size_t i = 0; i < cg.tape.instrs.size(); ++i) {
      if (cg.tape.instrs[i].dst == slot && cg.tape.instrs[i].kernel >= 0) return i;
    }
  }
  ADD_FAILURE() << "no kernel computes " << name;
  return 0;
}

TEST(Profile, TimesEachKernelInstructionAndLeavesTheRestAtZero) {
  auto p = MakeProgram(kSource);
  ASSERT_NE(p, nullptr);
  Result<TensorMap> first = p->Run("G", Inputs());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Executor& ex = *p->executor("G");
  const CompiledGraph& cg = ex.graph();
  Result<TapeProfile> prof = ProfileTape(ex, 20);
  ASSERT_TRUE(prof.ok()) << prof.status().ToString();
  EXPECT_EQ(prof->runs, 20);
  ASSERT_EQ(prof->instruction_ns.size(), cg.tape.instrs.size());
  double sum = 0;
  for (size_t i = 0; i < cg.tape.instrs.size(); ++i) {
    if (cg.tape.instrs[i].kernel < 0) EXPECT_EQ(prof->instruction_ns[i], 0.0) << "instruction " << i;
    EXPECT_GE(prof->instruction_ns[i], 0.0) << "instruction " << i;
    sum += prof->instruction_ns[i];
  }
  EXPECT_NEAR(prof->kernels_ns, sum, 1e-6 * sum);
  EXPECT_GT(prof->run_ns, 0.0);
  EXPECT_GE(prof->clock_ns, 0.0);
  EXPECT_GT(prof->clock_step_ns, 0.0);  // natively about a nanosecond
  // 33.5 MFLOP against four additions: the product's instruction carries the time.
  const double big = prof->instruction_ns[InstructionOf(cg, "big")];
  const double small = prof->instruction_ns[InstructionOf(cg, "small")];
  EXPECT_GT(big, 100 * small) << big << " vs " << small;
  EXPECT_GT(big, 0.5 * prof->kernels_ns);
}

TEST(Profile, MeansOverCoarseClockStepsAndWithoutOutlierRuns) {
  // Two kernels of 20 and 5 us under a clock that steps by 100 us: most
  // runs read 0, one in five reads a step in the first, one in twenty in
  // the second. The means are the true times; a step is not an outlier.
  const size_t runs = 100;
  std::vector<float> times(2 * runs, 0.0f);
  for (size_t k = 0; k < runs; ++k) {
    if (k % 5 == 0) times[k] = 100e3f;
    if (k % 20 == 7) times[runs + k] = 100e3f;
  }
  KernelMeans coarse = MeanOverSteadyRuns(times, 2, runs, 100e3);
  EXPECT_EQ(coarse.kept, runs);
  EXPECT_DOUBLE_EQ(coarse.mean[0], 20e3);
  EXPECT_DOUBLE_EQ(coarse.mean[1], 5e3);
  EXPECT_DOUBLE_EQ(coarse.sum, 25e3);
  // A fine clock: runs of 10 + 2 us, one of them held up for 5 ms in its first kernel.
  std::vector<float> fine(2 * runs);
  for (size_t k = 0; k < runs; ++k) {
    fine[k] = 10e3f;
    fine[runs + k] = 2e3f;
  }
  fine[42] = 5e6f;
  KernelMeans steady = MeanOverSteadyRuns(fine, 2, runs, 1.0);
  EXPECT_EQ(steady.kept, runs - 1);
  EXPECT_DOUBLE_EQ(steady.mean[0], 10e3);
  EXPECT_DOUBLE_EQ(steady.mean[1], 2e3);
}

TEST(Profile, RunsLeaveTheOutputsOfThePlainRun) {
  auto p = MakeProgram(kSource);
  ASSERT_NE(p, nullptr);
  Result<TensorMap> first = p->Run("G", Inputs());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Executor& ex = *p->executor("G");
  ASSERT_TRUE(ProfileTape(ex, 3).ok());
  // The executor's outputs after profiling are the plain run's, bit for bit.
  for (int o = 0; o < ex.num_outputs(); ++o) {
    Result<Tensor> t = ex.CopyOutput(o);
    ASSERT_TRUE(t.ok());
    const Tensor& want = first->at(ex.graph().outputs[static_cast<size_t>(o)].first);
    ASSERT_EQ(t->byte_size(), want.byte_size());
    EXPECT_EQ(std::memcmp(t->raw_data(), want.raw_data(), want.byte_size()), 0) << "output " << o;
  }
  // small = s + 1 by hand.
  const Tensor& small = first->at("small");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(small.GetDouble(i), i + 2.0);
}

// Profiling runs the tape 2 x runs times: in training mode the dropouts
// would draw, and every later mask change. Program::Profile restores the
// generator; a graph without kernels profiles as all zeros.
TEST(Profile, LeavesTheGeneratorAndHandlesATapeWithoutKernels) {
  ProgramOptions training;
  training.training = true;
  training.seed = 3;
  const char* source =
      "@graph D {\n  input x: Tensor<[64], f32>;\n  output y: dropout(x, p: 0.5);\n}\n"
      "@graph I {\n  input x: Tensor<[4], f32>;\n  output y: x;\n}\n";
  auto p = MakeProgram(source, training), q = MakeProgram(source, training);
  ASSERT_TRUE(p && q);
  TensorMap in;
  in.emplace("x", testing::F32({64}, std::vector<float>(64, 1.0f)));
  ASSERT_TRUE(p->Run("D", in).ok() && q->Run("D", in).ok());
  Result<TapeProfile> prof = p->Profile("D", 5);
  ASSERT_TRUE(prof.ok()) << prof.status().ToString();
  Result<TensorMap> a = p->Run("D", in), b = q->Run("D", in);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(runtime::BitwiseEqual(a->at("y"), b->at("y")));
  Result<TapeProfile> none = p->Profile("I", 3);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->kernels_ns, 0.0);
  for (double t : none->instruction_ns) EXPECT_EQ(t, 0.0);
  EXPECT_EQ(p->Profile("Nope", 3).status().code(), StatusCode::kNotFound);
}

TEST(Profile, ErrorsBeforeABindingAndForRunsOutOfRange) {
  // A symbolic dim: no binding until a run gives one (a static graph is bound when compiled).
  auto sym = MakeProgram("@graph H { input s: Tensor<[N], f32>; output y: s * 2.0; }");
  ASSERT_NE(sym, nullptr);
  Result<TapeProfile> early = ProfileTape(*sym->executor("H"), 5);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(early.status().message().find("run it once"), std::string::npos) << early.status().message();
  // A graph typed per run has no tape before its first run: its failure says so
  // (it carried the OK status of finding the graph), and then it profiles.
  auto untyped = MakeProgram("@graph U { input x: ?; output y: x * 2.0; }");
  ASSERT_NE(untyped, nullptr);
  Result<TapeProfile> before = untyped->Profile("U", 2);
  ASSERT_FALSE(before.ok());
  EXPECT_EQ(before.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(before.status().message().find("graph 'U' has inputs of unknown type (?)"), std::string::npos)
      << before.status().message();
  TensorMap u;
  u.emplace("x", testing::F32({3}, {1, 2, 3}));
  ASSERT_TRUE(untyped->Run("U", u).ok());
  EXPECT_TRUE(untyped->Profile("U", 2).ok());
  auto p = MakeProgram(kSource);
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->Run("G", Inputs()).ok());
  Executor& ex = *p->executor("G");
  for (int runs : {0, -1, kMaxProfileRuns + 1}) {
    Result<TapeProfile> bad = ProfileTape(ex, runs);
    ASSERT_FALSE(bad.ok()) << runs;
    EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(bad.status().message().find("runs must be from 1 to"), std::string::npos) << bad.status().message();
  }
  std::vector<double> wrong(ex.graph().tape.instrs.size() + 1);
  EXPECT_EQ(ex.RunTimed(wrong).code(), StatusCode::kInvalidArgument);
  // Still usable: a profile and a run after the errors.
  EXPECT_TRUE(ProfileTape(ex, 1).ok());
  EXPECT_TRUE(p->Run("G", Inputs()).ok());
}

}  // namespace
}  // namespace shrew::jit
