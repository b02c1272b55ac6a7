// The lean run path: Program::Prepare checks inputs like Run (same errors,
// with the input issue as fields), PreparedRun::Run gives bitwise the same
// outputs as Run, keeps its buffers put and re-binds after the program ran
// other shapes, changed a parameter or recompiled.
#include "api/prepared_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "api/program.h"
#include "jit/jit_test_util.h"
#include "support/heap_counter.h"

namespace shrew {
namespace {

using jit::testing::MakeProgram;
using jit::testing::RandomTensor;
using runtime::Tensor;
using runtime::TensorMap;

std::unique_ptr<Program> Mlp() { return MakeProgram(jit::testing::ReadTestdata("examples/mlp_classifier.sw")); }

// Fills the prepared input from `t` and runs; the outputs as host tensors by name.
TensorMap RunPrepared(PreparedRun& p, const Tensor& t) {
  EXPECT_EQ(p.input_bytes(0), t.byte_size());
  std::memcpy(p.input_data(0), t.raw_data(), t.byte_size());
  Status s = p.Run();
  EXPECT_TRUE(s.ok()) << s.ToString();
  TensorMap out;
  for (int o = 0; s.ok() && o < p.num_outputs(); ++o) {
    const PreparedRun::Output& spec = p.output(o);
    auto bytes = std::span<const std::byte>(static_cast<const std::byte*>(p.output_data(o)), spec.bytes);
    out.emplace(spec.name, Tensor::FromBytes(spec.dtype, spec.shape, bytes).value());
  }
  return out;
}

void ExpectSame(const TensorMap& a, const TensorMap& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, t] : a) {
    std::string why;
    EXPECT_TRUE(runtime::BitwiseEqual(t, b.at(name), &why)) << name << ": " << why;
  }
}

TEST(PreparedRun, MatchesRunAndSurvivesOtherBindingsParamsAndRecompile) {
  std::unique_ptr<Program> p = Mlp();
  ASSERT_NE(p, nullptr);
  const Tensor x = RandomTensor(ir::DType::kF32, {3, 784}, 5, 0.0, 1.0);
  std::vector<InputSpec> specs = {{"images", ir::DType::kF32, {3, 784}}};
  Result<std::unique_ptr<PreparedRun>> prepared = p->Prepare("Classifier", specs);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  PreparedRun& run = **prepared;
  ASSERT_EQ(run.num_inputs(), 1);
  EXPECT_EQ(run.input_bytes(0), 3u * 784 * 4);
  ASSERT_EQ(run.num_outputs(), 2);  // graph output order
  EXPECT_EQ(run.output(0).name, "probs");
  EXPECT_EQ(run.output(1).name, "logits");
  EXPECT_EQ(run.output(0).shape, (runtime::Shape{3, 10}));
  EXPECT_EQ(run.output(0).dtype, ir::DType::kF32);
  EXPECT_EQ(run.output(1).bytes, 3u * 10 * 4);
  std::byte* buffer = run.input_data(0);

  TensorMap in;
  in.emplace("images", x.Clone().value());
  ExpectSame(RunPrepared(run, x), p->Run("Classifier", in).value());

  // Another binding moves the executor (and may grow its arena).
  TensorMap big;
  big.emplace("images", RandomTensor(ir::DType::kF32, {40, 784}, 6, 0.0, 1.0));
  ASSERT_TRUE(p->Run("Classifier", big).ok());
  EXPECT_EQ(run.input_data(0), buffer);
  ExpectSame(RunPrepared(run, x), p->Run("Classifier", in).value());

  // New weights are used (kernels re-created, plans invalidated).
  ASSERT_TRUE(p->SetParam("Classifier/w2", Tensor::Zeros(ir::DType::kF32, {128, 10}).value()).ok());
  TensorMap after = RunPrepared(run, x);
  const Tensor b2 = p->GetParam("Classifier/b2").value();
  for (int64_t i = 0; i < after.at("logits").num_elements(); ++i) {
    EXPECT_EQ(after.at("logits").values<float>()[static_cast<size_t>(i)], b2.values<float>()[static_cast<size_t>(i % 10)]);
  }
  ExpectSame(after, p->Run("Classifier", in).value());

  // A new executor after Recompile.
  ASSERT_TRUE(p->Recompile("Classifier").ok());
  ExpectSame(RunPrepared(run, x), p->Run("Classifier", in).value());
}

// A graph with an input of unknown type is compiled per input signature.
// A prepared run reuses the last run's specialisation while it is still the
// program's most recently used one: steady runs allocate nothing, and runs
// of other signatures, SetParam (new weights) and Recompile in between
// still give Run's results.
TEST(PreparedRun, DeferredGraphReusesItsSpecialisationUntilItChanges) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph D {\n"
      "  input x: ?;\n"
      "  param w: Tensor<[4, 3], f32> { init: \"uniform(-1, 1)\"; };\n"
      "  output y: relu(matmul(x, w));\n"
      "}\n");
  ASSERT_NE(p, nullptr);
  const Tensor x = RandomTensor(ir::DType::kF32, {2, 4}, 7);
  TensorMap in;
  in.emplace("x", x.Clone().value());
  std::vector<InputSpec> specs = {{"x", ir::DType::kF32, {2, 4}}};
  Result<std::unique_ptr<PreparedRun>> prepared = p->Prepare("D", specs);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  PreparedRun& run = **prepared;
  ExpectSame(RunPrepared(run, x), p->Run("D", in).value());

  if (testing::HeapCountingAvailable()) {
    testing::CountAllocations counted;
    for (int r = 0; r < 5; ++r) ASSERT_TRUE(run.Run().ok());
    EXPECT_EQ(counted.count(), 0);
  }

  // Another signature becomes the most recently used specialisation.
  TensorMap other;
  other.emplace("x", RandomTensor(ir::DType::kF32, {5, 4}, 8));
  ASSERT_TRUE(p->Run("D", other).ok());
  ExpectSame(RunPrepared(run, x), p->Run("D", in).value());

  // New weights: every specialisation is dropped and made again.
  Tensor w = RandomTensor(ir::DType::kF32, {4, 3}, 9);
  ASSERT_TRUE(p->SetParam("D/w", w.Clone().value()).ok());
  const TensorMap after = RunPrepared(run, x);
  ExpectSame(after, p->Run("D", in).value());
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      float dot = 0;
      for (int64_t k = 0; k < 4; ++k) dot += x.values<float>()[static_cast<size_t>(i * 4 + k)] * w.values<float>()[static_cast<size_t>(k * 3 + j)];
      EXPECT_NEAR(after.at("y").values<float>()[static_cast<size_t>(i * 3 + j)], std::max(dot, 0.0f), 1e-5f);
    }
  }

  ASSERT_TRUE(p->Recompile("D").ok());
  ExpectSame(RunPrepared(run, x), p->Run("D", in).value());
}

TEST(PreparedRun, ErrorsAreRunsErrorsWithFields) {
  std::unique_ptr<Program> p = Mlp();
  ASSERT_NE(p, nullptr);
  struct Case {
    std::vector<InputSpec> specs;
    StatusCode code;
    std::string fragment;
    jit::InputIssue issue;
  };
  const std::vector<Case> cases = {
      {{}, StatusCode::kInvalidArgument, "missing input 'images'", {"images", "Tensor<[Batch, 784], f32>", ""}},
      {{{"images", ir::DType::kF64, {2, 784}}}, StatusCode::kInvalidArgument, "expected dtype f32, got f64",
       {"images", "f32", "f64"}},
      {{{"images", ir::DType::kF32, {2, 783}}}, StatusCode::kInvalidArgument, "dimension 1 must be 784",
       {"images", "[Batch, 784]", "[2, 783]"}},
      {{{"images", ir::DType::kF32, {784}}}, StatusCode::kInvalidArgument, "expected rank 2, got rank 1",
       {"images", "[Batch, 784]", "[784]"}},
      {{{"images", ir::DType::kF32, {2, 784}}, {"labels", ir::DType::kF32, {2}}}, StatusCode::kInvalidArgument,
       "no input named 'labels'", {"labels", "", ""}},
      {{{"images", ir::DType::kF32, {2, 784}}, {"images", ir::DType::kF32, {2, 784}}}, StatusCode::kInvalidArgument,
       "supplied twice", {"images", "", ""}},
      {{{"images", ir::DType::kF32, {int64_t{1} << 40, 784}}}, StatusCode::kResourceExhausted, "over the limit",
       {"images", "Tensor<[Batch, 784], f32>", "f32[1099511627776, 784]"}},
      {{{"images", ir::DType::kF32, {int64_t{1} << 62, int64_t{1} << 62}}}, StatusCode::kInvalidArgument,
       "too many elements", {"images", "Tensor<[Batch, 784], f32>", "f32[4611686018427387904, 4611686018427387904]"}},
  };
  for (const Case& c : cases) {
    jit::InputIssue issue;
    Result<std::unique_ptr<PreparedRun>> r = p->Prepare("Classifier", c.specs, &issue);
    ASSERT_FALSE(r.ok()) << c.fragment;
    EXPECT_EQ(r.status().code(), c.code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.fragment), std::string::npos) << r.status().message();
    EXPECT_EQ(issue.input, c.issue.input) << c.fragment;
    EXPECT_EQ(issue.expected, c.issue.expected) << c.fragment;
    EXPECT_EQ(issue.actual, c.issue.actual) << c.fragment;
  }
  EXPECT_EQ(p->Prepare("Nope", {}).status().code(), StatusCode::kNotFound);
  // Run reports the same fields; the program still works.
  jit::InputIssue issue;
  TensorMap in;
  in.emplace("images", RandomTensor(ir::DType::kF64, {2, 784}, 1));
  EXPECT_FALSE(p->Run("Classifier", in, &issue).ok());
  EXPECT_EQ(issue.expected, "f32");
  EXPECT_EQ(issue.actual, "f64");
  jit::InputIssue interp_issue;
  EXPECT_FALSE(p->Interpret("Classifier", in, &interp_issue).ok());
  EXPECT_EQ(interp_issue.input, "images");
  EXPECT_EQ(interp_issue.actual, "f64");
  jit::testing::RunBoth(*p, "Classifier", [] {
    TensorMap m;
    m.emplace("images", RandomTensor(ir::DType::kF32, {2, 784}, 2, 0.0, 1.0));
    return m;
  }(), /*slack=*/4.0);  // 784-long f32 GEMM rows against the interpreter's double sums
}

TEST(PreparedRun, BoolInputsAreNormalised) {
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph G {
  input m: Tensor<[4], bool>;
  input x: Tensor<[4], f32>;
  output y: where(m, x, -x);
}
)SW");
  ASSERT_NE(p, nullptr);
  std::vector<InputSpec> specs = {{"x", ir::DType::kF32, {4}}, {"m", ir::DType::kBool, {4}}};
  Result<std::unique_ptr<PreparedRun>> r = p->Prepare("G", specs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  PreparedRun& run = **r;
  // Graph declaration order: m is input 0, x is input 1.
  EXPECT_EQ(run.input_of_spec(0), 1);  // specs[0] is x
  EXPECT_EQ(run.input_of_spec(1), 0);
  const uint8_t mask[4] = {0, 7, 1, 255};
  const float x[4] = {1, 2, 3, 4};
  std::memcpy(run.input_data(0), mask, 4);
  std::memcpy(run.input_data(1), x, 16);
  ASSERT_TRUE(run.Run().ok());
  const float* y = static_cast<const float*>(run.output_data(0));
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(y[1], 2.0f);
  EXPECT_EQ(y[2], 3.0f);
  EXPECT_EQ(y[3], 4.0f);
}

}  // namespace
}  // namespace shrew
