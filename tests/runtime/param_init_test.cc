#include "runtime/param_init.h"

#include <gtest/gtest.h>

#include <cmath>

// The per-element reference formulas below must not be contracted into FMA
// either (OPS.md §5), like src/runtime/param_init.cc.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace shrew::runtime {
namespace {

using ir::DType;
using Kind = ir::InitSpec::Kind;

ir::InitSpec Init(Kind kind, double a = 0, double b = 0, std::string text = "test") {
  ir::InitSpec s;
  s.kind = kind;
  s.a = a;
  s.b = b;
  s.text = std::move(text);
  return s;
}

Tensor MustInit(const ir::InitSpec& init, DType dtype, Shape shape, Rng& rng) {
  Result<Tensor> t = InitTensor(init, dtype, std::move(shape), rng);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : Tensor();
}

struct Stats {
  double mean = 0, std = 0, min = 1e300, max = -1e300;
};
Stats StatsOf(const Tensor& t) {
  Stats s;
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const double v = t.GetDouble(i);
    sum += v;
    sq += v * v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  const double n = static_cast<double>(t.num_elements());
  s.mean = sum / n;
  s.std = std::sqrt(sq / n - s.mean * s.mean);
  return s;
}

TEST(ParamInitTest, Fans) {
  EXPECT_EQ(ComputeFans(Shape{}).fan_in, 1);
  EXPECT_EQ(ComputeFans(Shape{}).fan_out, 1);
  EXPECT_EQ(ComputeFans(Shape{7}).fan_in, 7);
  EXPECT_EQ(ComputeFans(Shape{7}).fan_out, 7);
  EXPECT_EQ(ComputeFans(Shape{3, 5}).fan_in, 5);
  EXPECT_EQ(ComputeFans(Shape{3, 5}).fan_out, 3);
  EXPECT_EQ(ComputeFans(Shape{8, 4, 3, 2}).fan_in, 4 * 6);
  EXPECT_EQ(ComputeFans(Shape{8, 4, 3, 2}).fan_out, 8 * 6);
}

TEST(ParamInitTest, ZerosOnesConsumeNoDraws) {
  Rng rng(3);
  const uint64_t before = rng.state();
  Tensor z = MustInit(Init(Kind::kZeros), DType::kF32, {2, 3}, rng);
  Tensor o = MustInit(Init(Kind::kOnes), DType::kF64, {4}, rng);
  Tensor oi = MustInit(Init(Kind::kOnes), DType::kI32, {2}, rng);
  Tensor ob = MustInit(Init(Kind::kOnes), DType::kBool, {2}, rng);
  EXPECT_EQ(rng.state(), before);
  for (float v : z.values<float>()) EXPECT_EQ(v, 0.0f);
  for (double v : o.values<double>()) EXPECT_EQ(v, 1.0);
  EXPECT_EQ(oi.dtype(), DType::kI32);
  for (int64_t v : oi.values<int64_t>()) EXPECT_EQ(v, 1);
  for (bool v : ob.values<bool>()) EXPECT_TRUE(v);
}

TEST(ParamInitTest, AllocateModeAdvancesTheGeneratorLikeFilling) {
  for (Kind kind : {Kind::kUniform, Kind::kXavierUniform, Kind::kKaimingUniform, Kind::kNormal, Kind::kXavierNormal,
                    Kind::kKaimingNormal, Kind::kZeros, Kind::kOnes}) {
    for (DType dtype : {DType::kF32, DType::kF64}) {
      const ir::InitSpec init = Init(kind, kind == Kind::kUniform ? -1.0 : 0.0, 1.0);
      Rng filled(11), allocated(11);
      Result<Tensor> a = InitTensor(init, dtype, {7, 5}, filled, InitMode::kFill);
      Result<Tensor> b = InitTensor(init, dtype, {7, 5}, allocated, InitMode::kAllocate);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(b->dtype(), dtype);
      EXPECT_EQ(b->shape(), (Shape{7, 5}));
      EXPECT_EQ(filled.state(), allocated.state()) << static_cast<int>(kind);
    }
  }
  // The same errors as filling.
  Rng rng(1);
  Result<Tensor> t = InitTensor(Init(Kind::kNormal, 0, 1, "normal"), DType::kI64, {2}, rng, InitMode::kAllocate);
  EXPECT_FALSE(t.ok());
  EXPECT_EQ(rng.state(), 1u);
}

TEST(ParamInitTest, RandomInitNeedsFloat) {
  Rng rng(0);
  Result<Tensor> t = InitTensor(Init(Kind::kNormal, 0, 1, "normal(0, 1)"), DType::kI64, {2}, rng);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "init 'normal(0, 1)' needs a float dtype, got i64");
}

// Exact values: uniform(0, 1) in f64 is the raw stream; cross-checked with
// the Python reimplementation used for the Rng golden values.
TEST(ParamInitTest, UniformExactStream) {
  Rng rng(42);
  Tensor t = MustInit(Init(Kind::kUniform, 0, 1), DType::kF64, {2, 2}, rng);
  EXPECT_EQ(t.values<double>()[0], 0x1.7bae644c5fd6dp-1);
  EXPECT_EQ(t.values<double>()[1], 0x1.477f199d93378p-3);
  EXPECT_EQ(t.values<double>()[2], 0x1.1d499d5c4c3e6p-2);
  EXPECT_EQ(t.values<double>()[3], 0x1.607387fc392b8p-2);
  // f32 parameters are the same doubles rounded to nearest.
  Rng rng2(42);
  Tensor f = MustInit(Init(Kind::kUniform, -2, 3), DType::kF32, {2}, rng2);
  EXPECT_EQ(f.values<float>()[0], static_cast<float>(-2.0 + 5.0 * 0x1.7bae644c5fd6dp-1));
  EXPECT_EQ(f.values<float>()[1], static_cast<float>(-2.0 + 5.0 * 0x1.477f199d93378p-3));
}

TEST(ParamInitTest, NormalExactStream) {
  Rng rng(42);
  Tensor t = MustInit(Init(Kind::kNormal, 1, 2), DType::kF64, {2}, rng);
  EXPECT_EQ(t.values<double>()[0], 1.0 + 2.0 * 0x1.f8c80e851c08cp-2);
  EXPECT_EQ(t.values<double>()[1], 1.0 + 2.0 * -0x1.47f4af60c7f94p+0);
}

// InitTensor draws in chunks with hoisted constants; every element of a
// tensor spanning several chunks must equal the OPS.md §5 formula evaluated
// per element on the same stream, and the stream must end where it would.
TEST(ParamInitTest, LargeTensorsMatchPerElementFormulas) {
  const Shape shape = {130, 70};  // 9100 elements: more than two chunks
  const double fan_in = 70, fan_out = 130;
  struct Case {
    ir::InitSpec init;
    double (*formula)(Rng&, double fan_in, double fan_out);
  };
  const Case cases[] = {
      {Init(Kind::kUniform, -0.25, 0.75), [](Rng& r, double, double) { return -0.25 + (0.75 - -0.25) * r.NextUniform(); }},
      {Init(Kind::kNormal, 0.5, 2.0), [](Rng& r, double, double) { return 0.5 + 2.0 * r.NextNormal(); }},
      {Init(Kind::kXavierUniform), [](Rng& r, double fi, double fo) {
         const double a = std::sqrt(6.0 / (fi + fo));
         return -a + 2.0 * a * r.NextUniform();
       }},
      {Init(Kind::kXavierNormal), [](Rng& r, double fi, double fo) { return std::sqrt(2.0 / (fi + fo)) * r.NextNormal(); }},
      {Init(Kind::kKaimingUniform), [](Rng& r, double fi, double) {
         const double b = std::sqrt(6.0 / fi);
         return -b + 2.0 * b * r.NextUniform();
       }},
      {Init(Kind::kKaimingNormal), [](Rng& r, double fi, double) { return std::sqrt(2.0 / fi) * r.NextNormal(); }},
  };
  for (const Case& c : cases) {
    for (DType dtype : {DType::kF32, DType::kF64}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(c.init.kind)) + " " + ir::DTypeName(dtype));
      Rng rng(1234), want(1234);
      Tensor t = MustInit(c.init, dtype, shape, rng);
      ASSERT_EQ(t.num_elements(), 9100);
      int mismatches = 0;
      for (int64_t i = 0; i < t.num_elements(); ++i) {
        const double v = c.formula(want, fan_in, fan_out);
        const double expected = dtype == DType::kF32 ? static_cast<double>(static_cast<float>(v)) : v;
        if (t.GetDouble(i) != expected && ++mismatches <= 3) ADD_FAILURE() << "element " << i;
      }
      EXPECT_EQ(mismatches, 0);
      EXPECT_EQ(rng.state(), want.state());
    }
  }
}

TEST(ParamInitTest, UniformStatistics) {
  Rng rng(1);
  Tensor t = MustInit(Init(Kind::kUniform, -0.1, 0.3), DType::kF32, {200, 250}, rng);
  Stats s = StatsOf(t);
  EXPECT_GE(s.min, -0.1);
  EXPECT_LT(s.max, 0.3);
  EXPECT_NEAR(s.mean, 0.1, 0.002);
  EXPECT_NEAR(s.std, 0.4 / std::sqrt(12.0), 0.002);
}

TEST(ParamInitTest, NormalStatistics) {
  Rng rng(2);
  Tensor t = MustInit(Init(Kind::kNormal, 0.5, 0.02), DType::kF64, {50000}, rng);
  Stats s = StatsOf(t);
  EXPECT_NEAR(s.mean, 0.5, 0.0005);
  EXPECT_NEAR(s.std, 0.02, 0.0005);
}

TEST(ParamInitTest, XavierUniformBoundAndStd) {
  Rng rng(3);
  // [out=300, in=100]: a = sqrt(6 / 400).
  Tensor t = MustInit(Init(Kind::kXavierUniform), DType::kF32, {300, 100}, rng);
  const double a = std::sqrt(6.0 / 400.0);
  Stats s = StatsOf(t);
  EXPECT_GE(s.min, -a - 1e-7);
  EXPECT_LE(s.max, a + 1e-7);
  EXPECT_GT(s.max, a * 0.999);  // bound is actually reached
  EXPECT_LT(s.min, -a * 0.999);
  EXPECT_NEAR(s.mean, 0.0, 0.003);
  EXPECT_NEAR(s.std, a / std::sqrt(3.0), 0.002);
}

TEST(ParamInitTest, XavierNormalStd) {
  Rng rng(4);
  Tensor t = MustInit(Init(Kind::kXavierNormal), DType::kF64, {200, 300}, rng);
  Stats s = StatsOf(t);
  EXPECT_NEAR(s.mean, 0.0, 0.001);
  EXPECT_NEAR(s.std, std::sqrt(2.0 / 500.0), 0.001);
}

TEST(ParamInitTest, KaimingUniformUsesHeBound) {
  Rng rng(5);
  // [out=64, in=8, 3, 3]: fan_in = 72, b = sqrt(6/72) (not the original sqrt(3/fan_in)).
  Tensor t = MustInit(Init(Kind::kKaimingUniform), DType::kF32, {64, 8, 3, 3}, rng);
  const double b = std::sqrt(6.0 / 72.0);
  Stats s = StatsOf(t);
  EXPECT_LE(s.max, b + 1e-7);
  EXPECT_GE(s.min, -b - 1e-7);
  EXPECT_GT(s.max, b * 0.99);
  EXPECT_NEAR(s.std, std::sqrt(2.0 / 72.0), 0.005);  // variance 2/fan_in
}

TEST(ParamInitTest, KaimingNormalStd) {
  Rng rng(6);
  Tensor t = MustInit(Init(Kind::kKaimingNormal), DType::kF32, {400, 50}, rng);
  Stats s = StatsOf(t);
  EXPECT_NEAR(s.mean, 0.0, 0.002);
  EXPECT_NEAR(s.std, std::sqrt(2.0 / 50.0), 0.002);
}

TEST(ParamInitTest, Deterministic) {
  Rng a(99), b(99), c(100);
  Tensor ta = MustInit(Init(Kind::kXavierNormal), DType::kF32, {16, 16}, a);
  Tensor tb = MustInit(Init(Kind::kXavierNormal), DType::kF32, {16, 16}, b);
  Tensor tc = MustInit(Init(Kind::kXavierNormal), DType::kF32, {16, 16}, c);
  EXPECT_TRUE(BitwiseEqual(ta, tb));
  EXPECT_FALSE(BitwiseEqual(ta, tc));
}

ir::Type T(std::vector<ir::Dim> dims, DType d = DType::kF32) { return ir::Type::Tensor(std::move(dims), d); }

TEST(ParamInitTest, ResolveSymbolicDims) {
  ir::Param p;
  p.name = "W";
  p.type = T({ir::Dim::Symbolic("D"), ir::Dim::Fixed(4)});
  p.init = Init(Kind::kOnes);
  Rng rng(0);
  Result<Tensor> missing = InitParam(p, {}, rng);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "unresolved symbolic dimension 'D' in parameter 'W': set it in @config or in the dims option");
  Result<Tensor> ok = InitParam(p, {{"D", 3}}, rng);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->shape(), (Shape{3, 4}));
  p.type = T({ir::Dim::Dynamic()});
  EXPECT_FALSE(InitParam(p, {}, rng).ok());
}

// Parameters draw from one stream in program order: graphs in source order,
// parameters in declaration order; zeros/ones draw nothing.
TEST(ParamInitTest, ProgramOrder) {
  ir::Program prog;
  prog.graphs.emplace_back("A");
  prog.graphs.emplace_back("B");
  prog.graphs[0].AddParam("w1", T({ir::Dim::Fixed(3)}), Init(Kind::kUniform, 0, 1));
  prog.graphs[0].AddParam("z", T({ir::Dim::Fixed(2)}), Init(Kind::kZeros));
  prog.graphs[0].AddParam("w2", T({ir::Dim::Fixed(2)}, DType::kF64), Init(Kind::kUniform, 0, 1));
  prog.graphs[1].AddParam("w1", T({ir::Dim::Fixed(1)}, DType::kF64), Init(Kind::kNormal, 0, 1));
  Rng rng(42);
  Result<ParamMap> params = InitProgramParams(prog, {}, rng);
  ASSERT_TRUE(params.ok()) << params.status().ToString();
  ASSERT_EQ(params->size(), 4u);
  Rng ref(42);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(params->at("A/w1").values<float>()[static_cast<size_t>(i)], static_cast<float>(ref.NextUniform()));
  }
  EXPECT_EQ(params->at("A/w2").values<double>()[0], ref.NextUniform());
  EXPECT_EQ(params->at("A/w2").values<double>()[1], ref.NextUniform());
  EXPECT_EQ(params->at("B/w1").values<double>()[0], ref.NextNormal());
  EXPECT_EQ(rng.state(), ref.state());  // dropout continues from here
  EXPECT_EQ(params->begin()->first, "A/w1");  // sorted keys
}

TEST(ParamInitTest, ProgramErrorNamesGraphAndParam) {
  ir::Program prog;
  prog.graphs.emplace_back("G");
  prog.graphs[0].AddParam("E", T({ir::Dim::Symbolic("V"), ir::Dim::Fixed(2)}), Init(Kind::kNormal, 0, 1));
  Rng rng(0);
  Result<ParamMap> params = InitProgramParams(prog, {}, rng);
  ASSERT_FALSE(params.ok());
  EXPECT_EQ(params.status().message(), "graph 'G': unresolved symbolic dimension 'V' in parameter 'E': set it in @config or in the dims option");
}

}  // namespace
}  // namespace shrew::runtime
