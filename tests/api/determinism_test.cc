// Determinism: the same source, seed and inputs give bit-identical outputs —
// over repeated runs of one Program, after Recompile, and in a Program built
// from a fresh compile — on both executors, for every conformance example.
//
// The interpreter's output checksums are also kept in tests/testdata/
// determinism/outputs.txt (regenerate with SHREW_UPDATE_GOLDEN=1): this test
// holds the native build to them and js/test/determinism.test.mjs the wasm
// build, so native and wasm agree bit for bit. Tape outputs are only
// compared within a platform: XNNPACK picks other micro-kernels (other
// summation orders) per CPU and on wasm SIMD.
//
// Inputs are a formula (jit::testing::FormulaInputs) the JS test implements too, so no
// input data is checked in: element i of input k (declaration order) is
//   float: ((i * 37 + k * 11) % 101) / 50 - 1
//   int:   (i * 7 + k) % 16
//   bool:  (i * 3 + k) % 2
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "api/program.h"
#include "jit/jit_test_util.h"

namespace shrew {
namespace {

using jit::testing::FormulaInputs;
using jit::testing::ReadTestdata;
using runtime::Tensor;
using runtime::TensorMap;

struct Example {
  const char* file;
  const char* graph;
  ir::DimBindings dims;
};

// The same bindings as js/test/helpers.mjs CASES.
const std::vector<Example>& Examples() {
  static const std::vector<Example> v = {
      {"mlp_classifier.sw", "Classifier", {{"Batch", 3}}},
      {"logistic_regression.sw", "Train", {{"N", 5}}},
      {"patch_mixer.sw", "Forward", {{"Batch", 2}}},
      {"transformer_block.sw", "Block", {{"Batch", 2}, {"Seq", 5}}},
      {"config_dims.sw", "Regressor", {}},
      {"graph_calls.sw", "Model", {{"Rows", 3}}},
      {"logic_reductions.sw", "Stats", {{"Time", 7}}},
      {"fusion_showcase.sw", "Fusions", {{"Rows", 4}}},
      {"tiny_gpt.sw", "LanguageModel", {{"Batch", 2}}},
  };
  return v;
}

constexpr uint64_t kSeed = 1234;

// FNV-1a 64 of the storage bytes, as 16 hex digits.
std::string Checksum(const Tensor& t) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < t.byte_size(); ++i) h = (h ^ static_cast<uint8_t>(t.raw_data()[i])) * 0x100000001b3ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// "FILE GRAPH EXECUTOR OUTPUT TYPE CHECKSUM"
std::string Row(const Example& e, const char* executor, const std::string& name, const Tensor& t) {
  return std::string(e.file) + " " + e.graph + " " + executor + " " + name + " " + t.TypeString() + " " + Checksum(t);
}

std::unique_ptr<Program> Build(const Example& e) {
  // As the wasm bindings do it: dims and seed given to the compiler, dims
  // also to the program.
  CompileOptions copts;
  copts.filename = e.file;
  copts.dims = e.dims;
  copts.seed = kSeed;
  CompileResult c = Compile(ReadTestdata(std::string("examples/") + e.file), copts);
  EXPECT_TRUE(c.ok) << c.RenderDiagnostics();
  if (!c.ok) return nullptr;
  ProgramOptions o;
  o.dims = e.dims;
  Result<std::unique_ptr<Program>> p = Program::Create(c, o);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? std::move(p).value() : nullptr;
}

void ExpectSame(const TensorMap& a, const TensorMap& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto& [name, t] : a) {
    std::string why;
    EXPECT_TRUE(runtime::BitwiseEqual(t, b.at(name), &why)) << what << " " << name << ": " << why;
  }
}

TEST(DeterminismTest, RepeatedRunsRecompileAndFreshProgramsAreBitIdentical) {
  std::vector<std::string> rows;
  for (const Example& e : Examples()) {
    SCOPED_TRACE(e.file);
    std::unique_ptr<Program> p = Build(e);
    ASSERT_NE(p, nullptr);
    const TensorMap in = FormulaInputs(*p->ir().FindGraph(e.graph), e.dims);
    Result<TensorMap> tape = p->Run(e.graph, in);
    ASSERT_TRUE(tape.ok()) << tape.status().ToString();
    Result<TensorMap> ref = p->Interpret(e.graph, in);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    for (int i = 0; i < 3; ++i) {
      Result<TensorMap> again = p->Run(e.graph, in);
      ASSERT_TRUE(again.ok());
      ExpectSame(*tape, *again, "tape run " + std::to_string(i));
      Result<TensorMap> ref_again = p->Interpret(e.graph, in);
      ASSERT_TRUE(ref_again.ok());
      ExpectSame(*ref, *ref_again, "interpreter run " + std::to_string(i));
    }
    ASSERT_TRUE(p->Recompile(e.graph).ok());
    Result<TensorMap> recompiled = p->Run(e.graph, in);
    ASSERT_TRUE(recompiled.ok());
    ExpectSame(*tape, *recompiled, "after Recompile");
    std::unique_ptr<Program> fresh = Build(e);
    ASSERT_NE(fresh, nullptr);
    Result<TensorMap> fresh_tape = fresh->Run(e.graph, in);
    ASSERT_TRUE(fresh_tape.ok());
    ExpectSame(*tape, *fresh_tape, "fresh program, tape");
    Result<TensorMap> fresh_ref = fresh->Interpret(e.graph, in);
    ASSERT_TRUE(fresh_ref.ok());
    ExpectSame(*ref, *fresh_ref, "fresh program, interpreter");
    for (const auto& [name, t] : *ref) rows.push_back(Row(e, "interp", name, t));
  }

  const std::filesystem::path golden =
      std::filesystem::path(SHREW_TESTDATA_DIR) / "determinism" / "outputs.txt";
  std::string actual = "# FILE GRAPH EXECUTOR OUTPUT TYPE FNV1A64 (tests/api/determinism_test.cc, seed 1234)\n";
  for (const std::string& r : rows) actual += r + "\n";
  if (std::getenv("SHREW_UPDATE_GOLDEN") != nullptr) {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << actual;
    GTEST_SKIP() << "wrote " << golden;
  }
  EXPECT_EQ(ReadTestdata("determinism/outputs.txt"), actual)
      << "outputs changed; if intended, regenerate with SHREW_UPDATE_GOLDEN=1";
}

}  // namespace
}  // namespace shrew
