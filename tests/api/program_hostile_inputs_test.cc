// Hostile inputs at run time through the public Program API, on both
// executors (tape and interpreter): wrong dtypes, NaN/Inf (propagated, never
// a crash), embedding indices out of range or negative, zero-size dims and
// the per-tensor byte cap (inputs, parameters, intermediate values). After
// every error the same program must run a correct input and give the same
// result as before the error.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "api/program.h"
#include "ir/validate.h"
#include "jit/jit_test_util.h"

namespace shrew {
namespace {

using jit::testing::MakeProgram;
using jit::testing::RandomTensor;
using jit::testing::ReadTestdata;
using runtime::Tensor;
using runtime::TensorMap;

void ExpectError(const Status& s, StatusCode code, std::initializer_list<const char*> fragments) {
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s.ToString();
  for (const char* f : fragments) EXPECT_NE(s.message().find(f), std::string::npos) << "'" << f << "' in: " << s.message();
}

TensorMap Images(int64_t batch, uint32_t seed = 3) {
  TensorMap in;
  in.emplace("images", RandomTensor(ir::DType::kF32, {batch, 784}, seed, 0.0, 1.0));
  return in;
}

// Runs `in` on both executors and expects the same error code from each.
void ExpectBothFail(Program& p, const std::string& graph, const TensorMap& in, StatusCode code,
                    std::initializer_list<const char*> fragments) {
  SCOPED_TRACE("tape");
  ExpectError(p.Run(graph, in).status(), code, fragments);
  SCOPED_TRACE("interpreter");
  ExpectError(p.Interpret(graph, in).status(), code, fragments);
}

// The program still gives `expected` (bit for bit) on `in`, tape and interpreter.
void ExpectStillRuns(Program& p, const std::string& graph, const TensorMap& in, const TensorMap& expected_tape,
                     const TensorMap& expected_interp) {
  Result<TensorMap> tape = p.Run(graph, in);
  ASSERT_TRUE(tape.ok()) << tape.status().ToString();
  Result<TensorMap> ref = p.Interpret(graph, in);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  for (const auto& [name, t] : expected_tape) {
    std::string why;
    EXPECT_TRUE(runtime::BitwiseEqual(tape->at(name), t, &why)) << name << ": " << why;
  }
  for (const auto& [name, t] : expected_interp) {
    std::string why;
    EXPECT_TRUE(runtime::BitwiseEqual(ref->at(name), t, &why)) << name << ": " << why;
  }
}

class MlpHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    p_ = MakeProgram(ReadTestdata("examples/mlp_classifier.sw"));
    ASSERT_NE(p_, nullptr);
    Result<TensorMap> t = p_->Run("Classifier", Images(2));
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    tape_ = std::move(t).value();
    Result<TensorMap> r = p_->Interpret("Classifier", Images(2));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ref_ = std::move(r).value();
  }
  void TearDown() override {
    if (p_ != nullptr) ExpectStillRuns(*p_, "Classifier", Images(2), tape_, ref_);
  }
  std::unique_ptr<Program> p_;
  TensorMap tape_;
  TensorMap ref_;
};

TEST_F(MlpHostile, WrongDtypes) {
  for (ir::DType dtype : {ir::DType::kI64, ir::DType::kF64, ir::DType::kBool, ir::DType::kU8}) {
    SCOPED_TRACE(ir::DTypeName(dtype));
    TensorMap in;
    in.emplace("images", RandomTensor(dtype, {2, 784}, 1));
    ExpectBothFail(*p_, "Classifier", in, StatusCode::kInvalidArgument, {"input 'images'", "f32"});
  }
}

TEST_F(MlpHostile, WrongRanksAndSizes) {
  for (const runtime::Shape& shape : std::vector<runtime::Shape>{{784}, {2, 784, 1}, {2, 785}, {}}) {
    SCOPED_TRACE(runtime::ShapeToString(shape));
    TensorMap in;
    in.emplace("images", RandomTensor(ir::DType::kF32, shape, 1));
    ExpectBothFail(*p_, "Classifier", in, StatusCode::kInvalidArgument, {"input 'images'", "784"});
  }
}

TEST_F(MlpHostile, NanAndInfRowsDoNotDisturbFiniteRows) {
  // Rows 0-2 hold NaN, +inf, -inf. What relu makes of NaN is
  // implementation-defined (OPS.md §3.4), so only the finite row is checked:
  // it must equal what that row gives on its own, on both executors.
  TensorMap in = Images(4);
  Tensor& x = in.at("images");
  x.SetDouble(0 * 784 + 5, std::numeric_limits<double>::quiet_NaN());
  x.SetDouble(1 * 784 + 7, std::numeric_limits<double>::infinity());
  x.SetDouble(2 * 784 + 9, -std::numeric_limits<double>::infinity());
  Result<Tensor> row3 = Tensor::Zeros(ir::DType::kF32, {1, 784});
  ASSERT_TRUE(row3.ok());
  for (int64_t i = 0; i < 784; ++i) row3->SetDouble(i, x.GetDouble(3 * 784 + i));
  TensorMap alone;
  alone.emplace("images", std::move(row3).value());
  for (bool tape : {true, false}) {
    SCOPED_TRACE(tape ? "tape" : "interpreter");
    Result<TensorMap> out = tape ? p_->Run("Classifier", in) : p_->Interpret("Classifier", in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    Result<TensorMap> one = tape ? p_->Run("Classifier", alone) : p_->Interpret("Classifier", alone);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    const Tensor& probs = out->at("probs");
    ASSERT_EQ(probs.shape(), (runtime::Shape{4, 10}));
    double sum = 0;
    for (int64_t c = 0; c < 10; ++c) {
      const double v = probs.GetDouble(30 + c);
      EXPECT_TRUE(std::isfinite(v));
      EXPECT_NEAR(v, one->at("probs").GetDouble(c), 1e-6);
      sum += v;
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

// No relu: NaN and Inf must reach the outputs of their own rows.
constexpr const char* kSoftmaxNet =
    "@graph Net {\n"
    "  input x: Tensor<[B, 4], f32>;\n"
    "  param w: Tensor<[4, 3], f32> { init: \"uniform(0.5, 1.5)\"; };\n"
    "  output probs: softmax(matmul(x, w), dim: -1);\n"
    "  output doubled: x * 2.0;\n"
    "}\n";

TEST(ProgramNonFiniteTest, NanAndInfPropagateOnBothExecutors) {
  std::unique_ptr<Program> p = MakeProgram(kSoftmaxNet);
  ASSERT_NE(p, nullptr);
  Result<Tensor> x = Tensor::FromVector<float>(
      ir::DType::kF32, {3, 4},
      {std::numeric_limits<float>::quiet_NaN(), 1, 2, 3,    // row 0: NaN
       std::numeric_limits<float>::infinity(), 1, 2, 3,     // row 1: +inf (w > 0, so logits are all +inf)
       0.5f, -1, 2, 0.25f});                                // row 2: finite
  ASSERT_TRUE(x.ok());
  TensorMap in;
  in.emplace("x", std::move(x).value());
  for (bool tape : {true, false}) {
    SCOPED_TRACE(tape ? "tape" : "interpreter");
    Result<TensorMap> out = tape ? p->Run("Net", in) : p->Interpret("Net", in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& probs = out->at("probs");
    const Tensor& doubled = out->at("doubled");
    // inf - inf inside softmax is NaN: both non-finite rows are all NaN.
    for (int64_t c = 0; c < 6; ++c) EXPECT_TRUE(std::isnan(probs.GetDouble(c))) << c;
    double sum = 0;
    for (int64_t c = 6; c < 9; ++c) {
      EXPECT_TRUE(std::isfinite(probs.GetDouble(c)));
      sum += probs.GetDouble(c);
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
    EXPECT_TRUE(std::isnan(doubled.GetDouble(0)));
    EXPECT_EQ(doubled.GetDouble(4), std::numeric_limits<double>::infinity());
    EXPECT_EQ(doubled.GetDouble(9), -2.0);
  }
}

TEST_F(MlpHostile, ZeroBatchGivesEmptyOutputsOrAClearError) {
  // Batch = 0 is a legal binding: [0, 10] outputs on both executors.
  TensorMap in = Images(0);
  Result<TensorMap> tape = p_->Run("Classifier", in);
  ASSERT_TRUE(tape.ok()) << tape.status().ToString();
  Result<TensorMap> ref = p_->Interpret("Classifier", in);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(tape->at("probs").shape(), (runtime::Shape{0, 10}));
  EXPECT_EQ(ref->at("probs").shape(), (runtime::Shape{0, 10}));
  EXPECT_EQ(tape->at("logits").shape(), (runtime::Shape{0, 10}));
}

TEST(ProgramByteCapTest, ParameterOverTheCapFailsBeforeAllocating) {
  ProgramOptions o;
  o.max_tensor_bytes = 100000;  // w1 is f32[784, 128] = 401408 bytes
  CompileResult c = Compile(ReadTestdata("examples/mlp_classifier.sw"));
  ASSERT_TRUE(c.ok);
  Result<std::unique_ptr<Program>> p = Program::Create(c, o);
  ASSERT_FALSE(p.ok());
  ExpectError(p.status(), StatusCode::kResourceExhausted,
              {"parameter 'w1'", "graph 'Classifier'", "f32[784, 128]", "limit of 100000 bytes"});
}

TEST(ProgramByteCapTest, HugeParameterFromTheConfigIsAnErrorNotAnAllocation) {
  // 2^40 floats: would be 4 TiB. The default cap stops it up front.
  CompileResult c = Compile(
      "@config { N: 1048576; }\n"
      "@graph G { input x: Tensor<[N], f32>; param w: Tensor<[N, N], f32>; output y: matmul(w, x); }\n");
  ASSERT_TRUE(c.ok) << c.RenderDiagnostics();
  Result<std::unique_ptr<Program>> p = Program::Create(c);
  ASSERT_FALSE(p.ok());
  ExpectError(p.status(), StatusCode::kResourceExhausted, {"parameter 'w'", "f32[1048576, 1048576]"});
}

// An i32 input is held as i64 (OPS.md §1.3): the message says which bytes it
// counted (it said "1600 bytes (i32[200])" of what the caller passed as 800).
TEST(ProgramByteCapTest, AnInputOverTheCapSaysItsBytesAreThoseHeld) {
  ProgramOptions o;
  o.max_tensor_bytes = 1024;
  std::unique_ptr<Program> p = MakeProgram("@graph G { input x: Tensor<[N], i32>; output y: x; }\n", o);
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", Tensor::Zeros(ir::DType::kI32, {200}).value());
  Result<TensorMap> out = p->Run("G", in);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "input 'x' of graph 'G' is 1600 bytes (i32[200], held as i64), over the limit of 1024 bytes");
  in.clear();
  in.emplace("x", Tensor::Zeros(ir::DType::kI32, {128}).value());
  EXPECT_TRUE(p->Run("G", in).ok());
}

// An input of the wrong shape is told so even when it is also over the cap
// (it read "is 128 bytes (f64[16]), over the limit of 64 bytes" for a
// declared [2], hiding the mistake behind another code), on both executors.
TEST(ProgramByteCapTest, AWrongShapeOverTheCapIsToldAsTheWrongShape) {
  ProgramOptions o;
  o.max_tensor_bytes = 64;
  std::unique_ptr<Program> p = MakeProgram("@graph G { input x: Tensor<[2], f64>; output y: x * 2.0; }\n", o);
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", Tensor::Zeros(ir::DType::kF64, {16}).value());
  for (bool interpret : {false, true}) {
    Result<TensorMap> out = interpret ? p->Interpret("G", in) : p->Run("G", in);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().ToString();
    EXPECT_NE(out.status().message().find("expected [2], got [16]"), std::string::npos) << out.status().message();
  }
  // The cap still holds where the shape is right.
  std::unique_ptr<Program> open = MakeProgram("@graph G { input x: Tensor<[N], f64>; output y: x * 2.0; }\n", o);
  ASSERT_NE(open, nullptr);
  for (bool interpret : {false, true}) {
    Result<TensorMap> out = interpret ? open->Interpret("G", in) : open->Run("G", in);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted) << out.status().ToString();
  }
}

// An outer product: the [N, N] value is what outgrows the cap, not the inputs.
constexpr const char* kOuter =
    "@graph Outer {\n"
    "  input a: Tensor<[N, 1], f32>;\n"
    "  input b: Tensor<[1, N], f32>;\n"
    "  node prod { op: matmul(a, b); };\n"
    "  output total: sum(prod);\n"
    "}\n";

TensorMap OuterInputs(int64_t n) {
  TensorMap in;
  in.emplace("a", RandomTensor(ir::DType::kF32, {n, 1}, 1));
  in.emplace("b", RandomTensor(ir::DType::kF32, {1, n}, 2));
  return in;
}

TEST(ProgramByteCapTest, IntermediateValueOverTheCapOnBothExecutors) {
  ProgramOptions o;
  o.max_tensor_bytes = 1 << 20;  // 1 MiB: [512, 512] f32 fits, [600, 600] does not
  std::unique_ptr<Program> p = MakeProgram(kOuter, o);
  ASSERT_NE(p, nullptr);
  Result<TensorMap> good_tape = p->Run("Outer", OuterInputs(100));
  ASSERT_TRUE(good_tape.ok()) << good_tape.status().ToString();
  Result<TensorMap> good_ref = p->Interpret("Outer", OuterInputs(100));
  ASSERT_TRUE(good_ref.ok()) << good_ref.status().ToString();
  // The reference: sum(a) * sum(b), by hand in double.
  const TensorMap in = OuterInputs(100);
  double sa = 0;
  double sb = 0;
  for (int64_t i = 0; i < 100; ++i) {
    sa += in.at("a").GetDouble(i);
    sb += in.at("b").GetDouble(i);
  }
  EXPECT_NEAR(good_tape->at("total").GetDouble(0), sa * sb, 1e-3 * (1 + std::abs(sa * sb)));

  ExpectBothFail(*p, "Outer", OuterInputs(600), StatusCode::kResourceExhausted,
                 {"'prod'", "[600, 600]", "limit of 1048576 bytes"});
  // 2^20 x 2^20 elements: the cap, not the allocator, answers (here already
  // for the 4 MiB inputs).
  ExpectBothFail(*p, "Outer", OuterInputs(1 << 20), StatusCode::kResourceExhausted, {"input 'a'", "limit of"});
  ExpectStillRuns(*p, "Outer", OuterInputs(100), *good_tape, *good_ref);
  EXPECT_TRUE(p->Run("Outer", OuterInputs(512)).ok());
}

// An empty tensor whose other sizes multiply past 2^63: it has no elements
// and no bytes, wherever its 0 is (the product from the left overflowed
// first: "too many elements" from the tape, "over the limit" from the
// interpreter, for a transpose of an input either took; the sanitized
// build found the interpreter's count and the concat and split kernels'
// products overflowing too).
TEST(ProgramByteCapTest, AnEmptyTensorOfHugeSizesRunsOnBothExecutors) {
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G {\n  input x: Tensor<[A, B, C], f32>;\n  output t: transpose(x);\n"
      "  output c: concat(x, x, dim: 1);\n  output s: split(x, chunks: 2, dim: 2, index: 1);\n}\n");
  ASSERT_NE(p, nullptr);
  const int64_t big = int64_t{1} << 32;
  for (const runtime::Shape& shape : {runtime::Shape{big, 0, big}, runtime::Shape{0, big, big}}) {
    TensorMap in;
    in.emplace("x", Tensor::Zeros(ir::DType::kF32, shape).value());
    for (bool tape : {true, false}) {
      Result<TensorMap> out = tape ? p->Run("G", in) : p->Interpret("G", in);
      ASSERT_TRUE(out.ok()) << (tape ? "tape: " : "interpreter: ") << out.status().ToString();
      EXPECT_EQ(out->at("t").shape(), runtime::Shape({shape[0], shape[2], shape[1]}));
      EXPECT_EQ(out->at("c").shape(), runtime::Shape({shape[0], 2 * shape[1], shape[2]}));
      EXPECT_EQ(out->at("t").byte_size(), 0u);
      EXPECT_EQ(out->at("s").shape(), runtime::Shape({shape[0], shape[1], shape[2] / 2}));
    }
  }
}

// tiny_gpt: tokens index a [96, 32] table.
class GptHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    p_ = MakeProgram(ReadTestdata("examples/tiny_gpt.sw"));
    ASSERT_NE(p_, nullptr);
  }
  TensorMap Tokens(int64_t bad_value, int64_t bad_index) {
    TensorMap in;
    for (const char* name : {"tokens", "targets"}) {
      Result<Tensor> t = Tensor::Zeros(ir::DType::kI64, {2, 16});
      EXPECT_TRUE(t.ok());
      for (int64_t i = 0; i < 32; ++i) t->SetDouble(i, static_cast<double>((i * 7) % 96));
      if (std::string(name) == "tokens" && bad_index >= 0) t->SetDouble(bad_index, static_cast<double>(bad_value));
      in.emplace(name, std::move(t).value());
    }
    return in;
  }
  std::unique_ptr<Program> p_;
};

TEST_F(GptHostile, EmbeddingIndexOutOfRangeOrNegative) {
  const TensorMap good = Tokens(0, -1);
  Result<TensorMap> tape = p_->Run("LanguageModel", good);
  ASSERT_TRUE(tape.ok()) << tape.status().ToString();
  Result<TensorMap> ref = p_->Interpret("LanguageModel", good);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  for (int64_t bad : {int64_t{96}, int64_t{-1}, int64_t{1} << 40, std::numeric_limits<int64_t>::min()}) {
    SCOPED_TRACE(bad);
    ExpectBothFail(*p_, "LanguageModel", Tokens(bad, 17), StatusCode::kOutOfRange,
                   {"embedding", "out of range", "table of 96"});
    // Both point at the embedding in the source (tiny_gpt.sw line 34), for tools.
    for (bool interpret : {false, true}) {
      const Status s = interpret ? p_->Interpret("LanguageModel", Tokens(bad, 17)).status()
                                 : p_->Run("LanguageModel", Tokens(bad, 17)).status();
      EXPECT_EQ(s.span().line, 34u) << (interpret ? "interpreter: " : "tape: ") << s.ToString();
    }
    ExpectStillRuns(*p_, "LanguageModel", good, *tape, *ref);
  }
}

}  // namespace
}  // namespace shrew

namespace shrew {
namespace {

// A graph header's return type can only be checked once a run binds its
// symbolic dims: here Gidth (a parameter's dim) makes the result [Rows,
// Gidth] while the header says [Rows, Width]. Both executors must refuse
// the run (the run fuzzer found the interpreter accepting it).
// A program whose runtime configuration binds `dims`.
std::unique_ptr<Program> WithDims(const std::string& src, ir::DimBindings dims) {
  ProgramOptions opts;
  opts.dims = std::move(dims);
  return MakeProgram(src, opts);
}

TEST(ProgramDeclaredTypes, SymbolicHeaderReturnTypeIsCheckedOnBothExecutors) {
  const std::string src = R"(
@graph Dense {
    input v: Tensor<[Rows, Width], f32>;
    param w: Tensor<[Width, Gidth], f32> { init: "ones"; };
    output out: matmul(v, w);
}
@graph Residual(v: Tensor<[Rows, Width], f32>) -> Tensor<[Rows, Width], f32> {
    node inner { op: Dense(v); };
    output out: v + inner;
}
)";
  auto run_with = [&](int64_t gidth) { return WithDims(src, {{"Rows", 3}, {"Width", 1}, {"Gidth", gidth}}); };
  TensorMap in;
  in.emplace("v", jit::testing::F32({3, 1}, {1, 2, 3}));

  std::unique_ptr<Program> bad = run_with(2);
  ASSERT_NE(bad, nullptr);
  ExpectBothFail(*bad, "Residual", in, StatusCode::kInvalidArgument,
                 {"graph 'Residual': the header declares -> Tensor<[3, 1], f32> but its first output 'out' is Tensor<[3, 2], f32>"});

  // With Gidth = Width the header holds: v + v·w = v + v (w is ones) on both.
  std::unique_ptr<Program> good = run_with(1);
  ASSERT_NE(good, nullptr);
  for (bool interpret : {false, true}) {
    Result<TensorMap> r = interpret ? good->Interpret("Residual", in) : good->Run("Residual", in);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::span<const float> y = r->at("out").values<float>();
    ASSERT_EQ(y.size(), 3u);
    EXPECT_FLOAT_EQ(y[0], 2.f);
    EXPECT_FLOAT_EQ(y[1], 4.f);
    EXPECT_FLOAT_EQ(y[2], 6.f);
  }
}

}  // namespace
}  // namespace shrew

namespace shrew {
namespace {

// A called graph's parameters take their dims from the runtime
// configuration, like the caller's: the tape must size the call's result
// from them (it left `?` and refused to plan; found by the run fuzzer).
TEST(ProgramGraphCalls, CalleeParameterDimsComeFromTheConfiguration) {
  const std::string src = R"(
@graph Dense {
    input v: Tensor<[R, 2], f32>;
    param w: Tensor<[2, G], f32> { init: "ones"; };
    param b: Tensor<[H], f32> { init: "zeros"; };
    output out: matmul(v, w) + b;
}
@graph Top(v: Tensor<[R, 2], f32>) -> Tensor<[R, G], f32> {
    node inner { op: Dense(v); };
    output out: inner;
}
)";
  auto with = [&](int64_t h) { return WithDims(src, {{"R", 2}, {"G", 3}, {"H", h}}); };
  TensorMap in;
  in.emplace("v", jit::testing::F32({2, 2}, {1, 1, 1, 1}));
  for (int64_t h : {1, 3}) {  // b broadcasts ([1]) or matches ([3])
    std::unique_ptr<Program> p = with(h);
    ASSERT_NE(p, nullptr);
    for (bool interpret : {false, true}) {
      SCOPED_TRACE(std::string(interpret ? "interpreter" : "tape") + ", H = " + std::to_string(h));
      Result<TensorMap> r = interpret ? p->Interpret("Top", in) : p->Run("Top", in);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      const Tensor& out = r->at("out");
      EXPECT_EQ(out.shape(), (runtime::Shape{2, 3}));
      for (float v : out.values<float>()) EXPECT_FLOAT_EQ(v, 2.f);  // ones · ones over 2, + zeros
    }
  }
  std::unique_ptr<Program> bad = with(2);
  ASSERT_NE(bad, nullptr);
  ExpectBothFail(*bad, "Top", in, StatusCode::kInvalidArgument, {"[2, 3] and [2] cannot be broadcast"});
}

// OPS.md §3.16: a call may leave out trailing optional inputs. Unread,
// they are simply absent; read, the call is an error on both executors
// (both refused every such call before).
TEST(ProgramGraphCalls, TrailingOptionalInputsMayBeLeftOut) {
  const std::string src = R"(
@graph Scale(a: Tensor<[N], f32>, unused: Tensor<[N], f32>?) -> Tensor<[N], f32> {
    output out: a * 2.0;
}
@graph Sum(a: Tensor<[N], f32>, b: Tensor<[N], f32>?) -> Tensor<[N], f32> {
    output out: a + b;
}
@graph Top {
    input x: Tensor<[3], f32>;
    node p { op: Scale(x); };
    node q { op: Scale(x, x); };
    output o: p + q;
}
@graph Reads {
    input x: Tensor<[3], f32>;
    output o: Sum(x);
}
)";
  std::unique_ptr<Program> p = MakeProgram(src);
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", jit::testing::F32({3}, {1, 2, 3}));
  for (bool interpret : {false, true}) {
    Result<TensorMap> r = interpret ? p->Interpret("Top", in) : p->Run("Top", in);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::span<const float> o = r->at("o").values<float>();
    EXPECT_FLOAT_EQ(o[0], 4.f);
    EXPECT_FLOAT_EQ(o[1], 8.f);
    EXPECT_FLOAT_EQ(o[2], 12.f);
  }
  ExpectBothFail(*p, "Reads", in, StatusCode::kInvalidArgument, {"'b'"});
  // Still usable afterwards.
  EXPECT_TRUE(p->Run("Top", in).ok());
}

// OPS.md §3.16 asks only that every non-optional input be bound: an optional
// input may be left out before a bound one too (lowering refused it: the
// IR's operands were positional). Operand k binds the input the call's
// "inputs" attribute names, on both executors, through the JIT's call
// kernel and the interpreter; the repeat of such a call binds alike.
TEST(ProgramGraphCalls, OptionalInputsMayBeLeftOutBeforeBoundOnes) {
  const std::string src = R"(
@graph Mix(a: Tensor<[N], f32>, bias: Tensor<[N], f32>?, scale: Tensor<[N], f32>) -> Tensor<[N], f32> {
    output out: a * scale;
}
@graph Shift(a: Tensor<[N], f32>, bias: Tensor<[N], f32>?, scale: Tensor<[N], f32>) -> Tensor<[N], f32> {
    output out: a * scale + bias;
}
@graph Top {
    input x: Tensor<[3], f32>;
    input s: Tensor<[3], f32>;
    node p { op: Mix(x, scale: s); };
    node q { op: Mix(s, x, x); };
    node r { op: Mix(a: s, scale: p); };
    node t { op: repeat(2) { Mix(x, scale: s) }; };
    output o: p + q + r;
    output u: t;
}
@graph Reads {
    input x: Tensor<[3], f32>;
    output o: Shift(x, scale: x);
}
)";
  std::unique_ptr<Program> p = MakeProgram(src);
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", jit::testing::F32({3}, {1, 2, 3}));
  in.emplace("s", jit::testing::F32({3}, {10, 20, 30}));
  // p = x·s, q = s·x (bias bound, unread), r = s·p: 10+10+100, 40+40+800, 90+90+2700.
  const float want[] = {120.f, 880.f, 2880.f};
  for (bool interpret : {false, true}) {
    Result<TensorMap> r = interpret ? p->Interpret("Top", in) : p->Run("Top", in);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::span<const float> o = r->at("o").values<float>();
    ASSERT_EQ(o.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(o[i], want[i]) << (interpret ? "interpreter" : "tape") << " " << i;
    // u = (x·s)·s: the carried value binds `a`, s binds `scale`.
    std::span<const float> u = r->at("u").values<float>();
    ASSERT_EQ(u.size(), 3u);
    EXPECT_FLOAT_EQ(u[0], 100.f);
    EXPECT_FLOAT_EQ(u[1], 800.f);
    EXPECT_FLOAT_EQ(u[2], 2700.f);
  }
  // The tape runs the calls through call kernels, not a fallback.
  Result<std::string> dump = p->Dump("Top");
  ASSERT_TRUE(dump.ok()) << dump.status().ToString();
  EXPECT_NE(dump->find("call[Mix, inputs=[0, 2]]"), std::string::npos) << *dump;
  // Reading the left-out input names it, on both executors; the program stays usable.
  TensorMap only_x;
  only_x.emplace("x", jit::testing::F32({3}, {1, 2, 3}));
  ExpectBothFail(*p, "Reads", only_x, StatusCode::kInvalidArgument, {"'bias'"});
  EXPECT_TRUE(p->Run("Top", in).ok());
}

// One callee, two calls with differently named (and sized) caller dims; a
// name set in the configuration binds the callee too (LANGUAGE.md §4.1).
TEST(ProgramGraphCalls, CalleeNamesAreLocalExceptConfiguredOnes) {
  const std::string src = R"(
@graph Twice {
    input v: Tensor<[K], f32>;
    output out: v * 2.0;
}
@graph Outer {
    input a: Tensor<[N], f32>;
    input b: Tensor<[M], f32>;
    node x { op: Twice(a); };
    node y { op: Twice(b); };
    output s: sum(x) + sum(y);
}
)";
  TensorMap in;
  in.emplace("a", jit::testing::F32({2}, {1, 2}));
  in.emplace("b", jit::testing::F32({3}, {3, 4, 5}));
  std::unique_ptr<Program> p = MakeProgram(src);
  ASSERT_NE(p, nullptr);
  for (bool interpret : {false, true}) {
    Result<TensorMap> r = interpret ? p->Interpret("Outer", in) : p->Run("Outer", in);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FLOAT_EQ(r->at("s").values<float>()[0], 30.f);  // 2·(1+2) + 2·(3+4+5)
  }
  std::unique_ptr<Program> pinned = WithDims(src, {{"K", 2}});  // every Twice input must now have 2 elements
  ASSERT_NE(pinned, nullptr);
  ExpectBothFail(*pinned, "Outer", in, StatusCode::kInvalidArgument, {"input 'v'"});
}

// The deepest chain of calls the language allows (64 nested, ir::kMaxCallDepth)
// runs on both executors; one more is a compile error (E091).
TEST(ProgramGraphCalls, SixtyFourNestedCallsRunOnBothExecutors) {
  std::string src;
  for (int i = 0; i <= ir::kMaxCallDepth; ++i) {
    src += "@graph G" + std::to_string(i) + " { input x: Tensor<[3], f32>; output y: ";
    src += i < ir::kMaxCallDepth ? "G" + std::to_string(i + 1) + "(x) + 1.0" : "relu(x)";
    src += "; }\n";
  }
  std::unique_ptr<Program> p = MakeProgram(src);
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", jit::testing::F32({3}, {-1, 0, 2}));
  jit::testing::RunBoth(*p, "G0", in);
  Result<TensorMap> out = p->Run("G0", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(out->at("y"), jit::testing::F32({3}, {64, 64, 66})));
}

// Errors found only while the executors are built still name file, line and
// column (E150), with the source line and a caret under the declaration; a
// limit met there is a run-time error at the declaration (its span).
TEST(ProgramSetupErrors, NameTheDeclarationsPosition) {
  struct Case {
    std::string source;
    std::string where;     // "LINE:COL"
    std::string fragment;  // of the message
    ProgramOptions options = {};
  };
  ProgramOptions small;
  small.max_tensor_bytes = 1024;
  const std::vector<Case> cases = {
      {"@graph G {\n  input x: Tensor<[2], f32>;\n  param w: Tensor<[2], i64> { init: \"normal(0, 1)\"; };\n"
       "  output y: x;\n}\n",
       "3:3", "needs a float dtype, got i64"},
      {"@graph G {\n  input x: Tensor<[2], f32>;\n  param w: Tensor<[N], f32>;\n  output y: x;\n}\n", "3:3",
       "unresolved symbolic dimension 'N'"},
      {"@graph G {\n  input x: Tensor<[2], f32>;\n  param w: Tensor<[1000], f32>;\n  output y: x;\n}\n", "3:3",
       "over the limit of 1024 bytes", small},
      {"@graph G {\n  input x: Tensor<[2], complex64>;\n  output y: x;\n}\n", "2:3",
       "input 'x' of graph 'G': dtype complex64 is not supported for execution"},
      // (A @custom_op call is the compile's own E150 now: jit/compile_test.cc.)
  };
  for (const Case& c : cases) {
    CompileOptions co;
    co.filename = "setup.sw";
    CompileResult compiled = Compile(c.source, co);
    ASSERT_TRUE(compiled.ok) << compiled.RenderDiagnostics();
    std::optional<diag::Diagnostic> setup_error;
    Result<std::unique_ptr<Program>> p = Program::Create(compiled, c.options, &setup_error);
    ASSERT_FALSE(p.ok()) << c.source;
    const std::string& m = p.status().message();
    const SourceSpan& at = p.status().span();
    EXPECT_EQ(std::to_string(at.line) + ":" + std::to_string(at.column), c.where) << m;
    EXPECT_GT(at.length, 0u);
    if (p.status().code() == StatusCode::kResourceExhausted) {
      // A limit is no source error: a plain message, the position its span
      // only (it was rendered as an E150 too, and the playground showed it twice).
      EXPECT_EQ(m.rfind("parameter 'w' of graph 'G'", 0), 0u) << m;
      EXPECT_NE(m.find(c.fragment), std::string::npos) << m;
      EXPECT_FALSE(setup_error.has_value());
      continue;
    }
    // The diagnostic itself, unrendered, for tools that show their own.
    ASSERT_TRUE(setup_error.has_value()) << m;
    EXPECT_EQ(setup_error->kind, diag::Kind::ExecutorSetup);
    EXPECT_EQ(std::to_string(setup_error->span.line) + ":" + std::to_string(setup_error->span.column), c.where);
    EXPECT_NE(setup_error->message.find(c.fragment), std::string::npos) << setup_error->message;
    EXPECT_EQ(setup_error->message.find("E150"), std::string::npos) << "rendered: " << setup_error->message;
    EXPECT_EQ(m.rfind("setup.sw:" + c.where + ": error[E150]: ", 0), 0u) << m;
    EXPECT_NE(m.find(c.fragment), std::string::npos) << m;
    EXPECT_NE(m.find("\n"), std::string::npos) << "no source line: " << m;
    EXPECT_NE(m.find('^'), std::string::npos) << "no caret: " << m;
  }
}

// Errors found when a run's shapes are planned point at the node (its span),
// on both executors: a node over the byte cap for this run's dims, and a
// dimension nothing binds (the tape said "the shape of node 'y' cannot be
// determined before running", without a position).
TEST(ProgramRunErrors, PlanningErrorsNameTheNodesPosition) {
  ProgramOptions small;
  small.max_tensor_bytes = 4096;
  std::unique_ptr<Program> big = jit::testing::MakeProgram(
      "@graph G {\n  input a: Tensor<[N, 1], f32>;\n  input b: Tensor<[1, N], f32>;\n"
      "  node p { op: matmul(a, b); };\n  output y: p * 2.0;\n}\n",
      small);
  ASSERT_NE(big, nullptr);
  TensorMap in;
  in.emplace("a", Tensor::Zeros(ir::DType::kF32, {64, 1}).value());
  in.emplace("b", Tensor::Zeros(ir::DType::kF32, {1, 64}).value());
  std::unique_ptr<Program> unbound = jit::testing::MakeProgram(
      "@graph G {\n  input x: Tensor<[N, 2], f32>;\n  output y: reshape(x, shape: [M, 2]);\n}\n");
  ASSERT_NE(unbound, nullptr);
  TensorMap x;
  x.emplace("x", Tensor::Zeros(ir::DType::kF32, {3, 2}).value());
  for (bool interpret : {false, true}) {
    SCOPED_TRACE(interpret ? "interpreter" : "tape");
    Result<TensorMap> out = interpret ? big->Interpret("G", in) : big->Run("G", in);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted);
    EXPECT_NE(out.status().message().find("over the limit of 4096 bytes"), std::string::npos) << out.status().message();
    EXPECT_EQ(out.status().span().line, 4u) << out.status().message();  // p, which the tape fuses with y
    out = interpret ? unbound->Interpret("G", x) : unbound->Run("G", x);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("unresolved symbolic dimension 'M'"), std::string::npos)
        << out.status().message();
    EXPECT_EQ(out.status().span().line, 3u) << out.status().message();
  }
}

}  // namespace
}  // namespace shrew
