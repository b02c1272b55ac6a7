// Reconfigure: changing the configured dims of a built program carries the
// parameters whose shape did not change, gives the others the values a fresh
// compile with the new dims gives them, runs tape == interpreter, and leaves
// the previous program untouched on every error.
#include "api/reconfigure.h"

#include <gtest/gtest.h>

#include "jit/jit_test_util.h"

namespace shrew {
namespace {

using jit::testing::RandomTensor;
using runtime::Tensor;
using runtime::TensorMap;

// w and the block's implicit parameters depend on D; b on H; s on @config.
const std::string kSource = jit::testing::ReadTestdata("api/reconfigure_net.sw");

struct Built {
  CompileOptions copts;
  ProgramOptions popts;
  std::unique_ptr<Program> program;
};

Built Build(ir::DimBindings dims) {
  Built b;
  b.copts.dims = dims;
  b.popts.dims = dims;
  b.popts.verify_plans = true;
  b.popts.check_slots = true;
  CompileResult c = Compile(kSource, b.copts);
  EXPECT_TRUE(c.ok) << c.RenderDiagnostics();
  Result<std::unique_ptr<Program>> p = Program::Create(c, b.popts);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (p.ok()) b.program = std::move(p).value();
  return b;
}

TensorMap Input(int64_t n, int64_t t, int64_t d, uint32_t seed = 5) {
  TensorMap in;
  in.emplace("x", RandomTensor(ir::DType::kF32, {n, t, d}, seed));
  return in;
}

Tensor Filled(ir::DType dtype, runtime::Shape shape, float value) {
  Result<Tensor> t = Tensor::Zeros(dtype, std::move(shape));
  EXPECT_TRUE(t.ok());
  float* p = t->mutable_data<float>();
  for (int64_t i = 0; i < t->num_elements(); ++i) p[i] = value;
  return std::move(t).value();
}

Tensor Param(const Program& p, std::string_view key) {
  Result<Tensor> t = p.GetParam(key);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : Tensor();
}

TEST(Reconfigure, ReshapedParamsAreFreshAndUnchangedOnesAreCarried) {
  Built old = Build({{"D", 8}, {"H", 4}});
  ASSERT_NE(old.program, nullptr);
  // User-set values of parameters that keep their shape must survive.
  ASSERT_TRUE(old.program->SetParam("Net/b", Filled(ir::DType::kF32, {4}, 0.25f)).ok());
  ASSERT_TRUE(old.program->SetParam("Net/s", Filled(ir::DType::kF32, {3}, 2.0f)).ok());
  const Tensor old_w = Param(*old.program, "Net/w");

  Result<Reconfigured> r = Reconfigure(kSource, old.copts, old.popts, *old.program, {{"D", 16}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->dims, (ir::DimBindings{{"D", 16}, {"H", 4}}));
  EXPECT_EQ(r->carried, (std::vector<std::string>{"Net/b", "Net/s"}));
  ASSERT_FALSE(r->initialised.empty());
  for (const std::string& key : r->initialised) EXPECT_NE(key, "Net/b");
  const Program& now = *r->program;
  EXPECT_EQ(Param(now, "Net/w").shape(), (runtime::Shape{16, 4}));
  EXPECT_TRUE(runtime::BitwiseEqual(Param(now, "Net/b"), Filled(ir::DType::kF32, {4}, 0.25f)));
  EXPECT_TRUE(runtime::BitwiseEqual(Param(now, "Net/s"), Filled(ir::DType::kF32, {3}, 2.0f)));

  // Every re-initialised parameter equals a fresh build's with D = 16.
  Built fresh = Build({{"D", 16}, {"H", 4}});
  ASSERT_NE(fresh.program, nullptr);
  for (const std::string& key : r->initialised) {
    EXPECT_TRUE(runtime::BitwiseEqual(Param(now, key), Param(*fresh.program, key))) << key;
  }
  // With the carried values set on the fresh build, outputs agree bit for
  // bit, and the tape agrees with the interpreter.
  ASSERT_TRUE(fresh.program->SetParam("Net/b", Filled(ir::DType::kF32, {4}, 0.25f)).ok());
  ASSERT_TRUE(fresh.program->SetParam("Net/s", Filled(ir::DType::kF32, {3}, 2.0f)).ok());
  Result<TensorMap> got = r->program->Run("Net", Input(2, 5, 16));
  Result<TensorMap> want = fresh.program->Run("Net", Input(2, 5, 16));
  Result<TensorMap> interp = r->program->Interpret("Net", Input(2, 5, 16));
  ASSERT_TRUE(got.ok() && want.ok() && interp.ok()) << got.status().ToString();
  EXPECT_EQ(got->at("y").shape(), (runtime::Shape{2, 5, 4}));
  EXPECT_TRUE(runtime::BitwiseEqual(got->at("y"), want->at("y")));
  EXPECT_TRUE(runtime::AllClose(got->at("y"), interp->at("y"), 1e-5, 1e-6));
  EXPECT_FLOAT_EQ(got->at("total").data<float>()[0], 6.0f);

  // The previous program is untouched: old shapes, old values, still runs.
  EXPECT_TRUE(runtime::BitwiseEqual(Param(*old.program, "Net/w"), old_w));
  EXPECT_TRUE(old.program->Run("Net", Input(1, 3, 8)).ok());
  // The old width is now an input error naming the input.
  Result<TensorMap> wrong = r->program->Run("Net", Input(1, 3, 8));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("'x'"), std::string::npos) << wrong.status().message();
}

TEST(Reconfigure, SavedParamsOfTheNewShapeLoadAfterwards) {
  // The workflow for loading a wider model's weights into a program built narrow.
  Built wide = Build({{"D", 16}, {"H", 6}});
  Built narrow = Build({{"D", 8}, {"H", 6}});
  ASSERT_NE(wide.program, nullptr);
  ASSERT_NE(narrow.program, nullptr);
  ASSERT_TRUE(wide.program->SetParam("Net/b", Filled(ir::DType::kF32, {6}, -0.5f)).ok());
  const std::vector<uint8_t> blob = wide.program->SaveParams();
  EXPECT_FALSE(narrow.program->LoadParams(blob).ok());  // shapes differ: refused
  Result<Reconfigured> r = Reconfigure(kSource, narrow.copts, narrow.popts, *narrow.program, {{"D", 16}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->program->LoadParams(blob).ok());
  EXPECT_EQ(r->program->ParamsChecksum(), wide.program->ParamsChecksum());
  Result<TensorMap> a = r->program->Run("Net", Input(3, 4, 16, 9));
  Result<TensorMap> b = wide.program->Run("Net", Input(3, 4, 16, 9));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(runtime::BitwiseEqual(a->at("y"), b->at("y")));
}

TEST(Reconfigure, SameDimsCarryEverything) {
  Built old = Build({{"D", 8}, {"H", 4}});
  ASSERT_NE(old.program, nullptr);
  ASSERT_TRUE(old.program->SetParam("Net/w", Filled(ir::DType::kF32, {8, 4}, 0.125f)).ok());
  Result<Reconfigured> r = Reconfigure(kSource, old.copts, old.popts, *old.program, {{"D", 8}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->initialised.empty());
  EXPECT_EQ(r->program->ParamsChecksum(), old.program->ParamsChecksum());
}

TEST(Reconfigure, ErrorsLeaveThePreviousProgramAlone) {
  Built old = Build({{"D", 8}, {"H", 4}});
  ASSERT_NE(old.program, nullptr);
  const uint64_t checksum = old.program->ParamsChecksum();
  Result<Reconfigured> negative = Reconfigure(kSource, old.copts, old.popts, *old.program, {{"D", -2}});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(negative.status().message().find("dimension 'D' = -2"), std::string::npos);
  Result<Reconfigured> config = Reconfigure(kSource, old.copts, old.popts, *old.program, {{"Fixed", 5}});
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("'Fixed' is set by @config"), std::string::npos);
  // A name the program does not use (a typo) would change nothing.
  Result<Reconfigured> typo = Reconfigure(kSource, old.copts, old.popts, *old.program, {{"d", 16}});
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("dimension 'd' is not used by this program; did you mean 'D'? its dimensions: D, H, N, T"),
            std::string::npos)
      << typo.status().message();
  // n_heads = 2 must divide D: 7 fails when compiling, named in the message.
  Result<Reconfigured> odd = Reconfigure(kSource, old.copts, old.popts, *old.program, {{"D", 7}});
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("with D = 7 the program does not compile"), std::string::npos)
      << odd.status().message();
  // A byte cap the new shapes exceed.
  ProgramOptions capped = old.popts;
  capped.max_tensor_bytes = 8 * 1024;
  Result<Reconfigured> big = Reconfigure(kSource, old.copts, capped, *old.program, {{"D", 64}});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted) << big.status().ToString();
  EXPECT_EQ(old.program->ParamsChecksum(), checksum);
  EXPECT_TRUE(old.program->Run("Net", Input(2, 3, 8)).ok());
}

}  // namespace
}  // namespace shrew
