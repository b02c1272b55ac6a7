// Graphs whose shapes depend on computed values (OPS.md §3.14: a `range` of
// computed operands has the static shape `[?]`): the executor evaluates what
// those shapes need on each run, plans for the shapes found and runs the
// tape. Every result is checked against the interpreter and hand values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "jit/jit_test_util.h"

namespace shrew::jit {
namespace {

using runtime::Tensor;
using runtime::TensorMap;
using testing::MakeProgram;
using testing::RunBoth;

constexpr ir::DType kF32 = ir::DType::kF32;
constexpr ir::DType kI64 = ir::DType::kI64;

TensorMap Feed(const std::string& name, Tensor t) {
  TensorMap m;
  m.emplace(name, std::move(t));
  return m;
}

Tensor F32(runtime::Shape shape, std::vector<float> v) { return testing::F32(std::move(shape), std::move(v)); }
Tensor I64Scalar(int64_t v) { return Tensor::FromVector<int64_t>(kI64, {}, {v}).value(); }

std::vector<int64_t> I64Values(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(static_cast<int64_t>(t.GetDouble(i)));
  return out;
}

TEST(ExecutorValueShapes, RangeOfASumIsPlannedPerRun) {
  auto p = MakeProgram(R"(
    @graph G {
      input x: Tensor<[4], f32>;
      node n { op: sum(x); };
      node r { op: range(n); };
      output r;
      output twice: cast(r, dtype: "f32") * 2.0;
    })");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->executor("G")->value_shaped());
  for (const std::vector<float>& x : {std::vector<float>{1, 1, 1, 2}, {2, 2, 2, 2.5f}, {1, 1, 1, 2}}) {
    float sum = 0;
    for (float v : x) sum += v;
    const int64_t n = static_cast<int64_t>(sum);
    Result<TensorMap> out = p->Run("G", Feed("x", F32({4}, x)));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& r = out->at("r");
    ASSERT_EQ(r.shape(), runtime::Shape({n}));
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(I64Values(r)[static_cast<size_t>(i)], i);
      EXPECT_EQ(out->at("twice").GetDouble(i), 2.0 * static_cast<double>(i));
    }
    RunBoth(*p, "G", Feed("x", F32({4}, x)));
  }
  // Two distinct lengths, the first one's plan reused.
  EXPECT_EQ(p->executor("G")->num_plans(), 2);
}

TEST(ExecutorValueShapes, ComputedStartAndEndFeedLaterOps) {
  auto p = MakeProgram(R"(
    @graph G {
      input x: Tensor<[B, 3], f32>;
      node lo { op: min(x); };
      node hi { op: max(x); };
      node r  { op: range(lo, hi); };
      node y  { op: cast(r, dtype: "f32") * 0.5; };
      node outer { op: matmul(reshape(y, shape: [-1, 1]), reshape(y, shape: [1, -1])); };
      output y;
      output total: sum(outer);
    })");
  ASSERT_NE(p, nullptr);
  // min -2.5 → -2 and max 3.9 → 3 (truncated toward zero): [-2, 3) has 5 elements.
  Tensor x = F32({2, 3}, {-2.5f, 0, 1, 3.9f, 2, -1});
  Result<TensorMap> out = p->Run("G", Feed("x", x.Clone().value()));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->at("y").shape(), runtime::Shape({5}));
  double s = 0;
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(out->at("y").GetDouble(i), 0.5 * static_cast<double>(i - 2));
    s += 0.5 * static_cast<double>(i - 2);
  }
  EXPECT_NEAR(out->at("total").GetDouble(0), s * s, 1e-6);
  RunBoth(*p, "G", Feed("x", std::move(x)));
  // Another batch size: a new binding of B, then a new value shape.
  RunBoth(*p, "G", Feed("x", F32({1, 3}, {0, 7, 1})));
}

TEST(ExecutorValueShapes, ARangeOfARangeAndACalledGraph) {
  auto p = MakeProgram(R"(
    @graph Seq(n: Tensor<[], i64>) -> Tensor<[?], i64> {
      output r: range(n);
    }
    @graph G {
      input k: Tensor<[], i64>;
      node a { op: range(k); };
      node b { op: range(sum(cast(a, dtype: "f32"))); };
      node c { op: Seq(k); };
      output b;
      output c3: c * 3;
    })");
  ASSERT_NE(p, nullptr);
  for (int64_t k : {4, 2, 6}) {
    Result<TensorMap> out = p->Run("G", Feed("k", I64Scalar(k)));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const int64_t len_b = k * (k - 1) / 2;
    ASSERT_EQ(out->at("b").shape(), runtime::Shape({len_b}));
    EXPECT_EQ(I64Values(out->at("b")).back(), len_b - 1);
    ASSERT_EQ(out->at("c3").shape(), runtime::Shape({k}));
    EXPECT_EQ(I64Values(out->at("c3")).back(), 3 * (k - 1));
    RunBoth(*p, "G", Feed("k", I64Scalar(k)));
  }
}

// A failing sub-expression is named by the statement that holds it, on both
// executors: "range in node 'r'", not the compiler's "node '__anon_3' (range)".
TEST(ExecutorValueShapes, RunTimeErrorsInSubExpressionsNameTheDeclaredNode) {
  auto p = MakeProgram(R"(
    @graph G {
      input x: Tensor<[2], f32>;
      node r { op: range(sum(x)) * 2; };
      output r;
    })");
  ASSERT_NE(p, nullptr);
  for (bool tape : {true, false}) {
    SCOPED_TRACE(tape ? "tape" : "interpreter");
    auto run = [&](float a) {
      TensorMap feeds = Feed("x", F32({2}, {a, 0}));
      return tape ? p->Run("G", feeds) : p->Interpret("G", feeds);
    };
    Result<TensorMap> empty = run(0.5f);
    ASSERT_FALSE(empty.ok());
    EXPECT_NE(empty.status().message().find("range in node 'r': range is empty"), std::string::npos)
        << empty.status().ToString();
    EXPECT_EQ(empty.status().message().find("__anon"), std::string::npos) << empty.status().ToString();
    Result<TensorMap> huge = run(2e15f);
    ASSERT_FALSE(huge.ok());
    // Both executors check the cap before making the range.
    EXPECT_NE(huge.status().message().find("range in node 'r' would be Tensor<[1999999973982208], i64>"),
              std::string::npos)
        << huge.status().ToString();
    Result<TensorMap> ok = run(2);
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ(I64Values(ok->at("r")), (std::vector<int64_t>{0, 2}));
  }
}

// A computed-length value passed to a called graph: the call's result is
// found with the values too (the tape refused "operand shapes of call[Twice]
// unknown"), for a typed callee and for one typed per run (`input a: ?`).
TEST(ExecutorValueShapes, ACalledGraphTakesARangeOfComputedLength) {
  for (const char* input : {"Tensor<[K], i64>", "?"}) {
    SCOPED_TRACE(input);
    auto p = MakeProgram(std::string(R"(
      @graph Twice {
        input a: )") + input + R"(;
        output y: a * 2 + 1;
      }
      @graph G {
        input x: Tensor<[N], f32>;
        node r { op: range(sum(relu(x)) + 1.0); };
        node t { op: Twice(r); };
        output t;
        output total: sum(cast(t, dtype: "f32")) + sum(x);
      })");
    ASSERT_NE(p, nullptr);
    for (const std::vector<float>& x : {std::vector<float>{1, 2, -1}, {0.5f}, {2, 2, 2, 2, 0}, {1, 2, -1}}) {
      const TensorMap feed = Feed("x", F32({static_cast<int64_t>(x.size())}, x));
      Result<TensorMap> out = p->Run("G", feed);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      float relu_sum = 0;
      for (float v : x) relu_sum += v > 0 ? v : 0;
      const int64_t n = static_cast<int64_t>(relu_sum + 1);
      ASSERT_EQ(out->at("t").shape(), runtime::Shape({n}));
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(I64Values(out->at("t"))[static_cast<size_t>(i)], 2 * i + 1);
      RunBoth(*p, "G", feed);
    }
    EXPECT_TRUE(p->Dump("G").ok());
    EXPECT_TRUE(p->PlanJson("G").ok());
  }
}

// The same through two levels of calls typed per run: G → Mid → Twice, the
// range's length known only from values.
TEST(ExecutorValueShapes, NestedUntypedCalleesTakeARangeOfComputedLength) {
  auto p = MakeProgram(R"(
    @graph Twice {
      input a: ?;
      output y: a * 2 + 1;
    }
    @graph Mid {
      input b: ?;
      output z: Twice(b) + 1;
    }
    @graph G {
      input x: Tensor<[N], f32>;
      node r { op: range(sum(relu(x)) + 1.0); };
      node t { op: Mid(r); };
      output t;
    })");
  ASSERT_NE(p, nullptr);
  for (const std::vector<float>& x : {std::vector<float>{1, 2, -1}, {0.5f}, {2, 2, 2, 2, 0}, {1, 2, -1}}) {
    const TensorMap feed = Feed("x", F32({static_cast<int64_t>(x.size())}, x));
    Result<TensorMap> out = p->Run("G", feed);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    float relu_sum = 0;
    for (float v : x) relu_sum += v > 0 ? v : 0;
    const int64_t n = static_cast<int64_t>(relu_sum + 1);
    ASSERT_EQ(out->at("t").shape(), runtime::Shape({n}));
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(I64Values(out->at("t"))[static_cast<size_t>(i)], 2 * i + 2);
    RunBoth(*p, "G", feed);
  }
  // And a range made two calls down, whose length the caller's values set.
  auto q = MakeProgram(R"(
    @graph Seq {
      input a: ?;
      output r: range(sum(cast(a, dtype: "f32")) + 1.0);
    }
    @graph Mid {
      input b: ?;
      output z: Seq(b) * 2;
    }
    @graph G {
      input v: Tensor<[P], i64>;
      node c { op: Mid(v); };
      output y: c + 1;
    })");
  ASSERT_NE(q, nullptr);
  for (const std::vector<int64_t>& v : {std::vector<int64_t>{0, 1, 2}, {4}, {0, 0}, {0, 1, 2}}) {
    int64_t sum = 0;
    for (int64_t e : v) sum += e;
    const TensorMap feed = Feed("v", Tensor::FromVector<int64_t>(kI64, {static_cast<int64_t>(v.size())}, v).value());
    Result<TensorMap> out = q->Run("G", feed);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->at("y").shape(), runtime::Shape({sum + 1}));
    for (int64_t i = 0; i <= sum; ++i) EXPECT_EQ(I64Values(out->at("y"))[static_cast<size_t>(i)], 2 * i + 1);
    RunBoth(*q, "G", feed);
  }
}

// A callee typed per run (`input a: ?`) whose result length depends on
// values: the caller's plan keeps the length the values gave, where the
// callee's static `[?]` overwrote it ("the shape of node 'c' cannot be
// determined before running"; the interpreter ran it).
TEST(ExecutorValueShapes, AnUntypedCalleeOfComputedLength) {
  auto p = MakeProgram(R"(
    @graph Seq {
      input a: ?;
      output r: range(sum(cast(a, dtype: "f32")) + 1.0);
    }
    @graph G {
      input v: Tensor<[P], i64>;
      node c { op: Seq(v); };
      output y: c * 2;
    })");
  ASSERT_NE(p, nullptr);
  for (const std::vector<int64_t>& v : {std::vector<int64_t>{0, 1, 2}, {4}, {0, 0}, {0, 1, 2}}) {
    int64_t sum = 0;
    for (int64_t e : v) sum += e;
    const TensorMap feed = Feed("v", Tensor::FromVector<int64_t>(kI64, {static_cast<int64_t>(v.size())}, v).value());
    Result<TensorMap> out = p->Run("G", feed);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->at("y").shape(), runtime::Shape({sum + 1}));
    EXPECT_EQ(I64Values(out->at("y")).back(), 2 * sum);
    RunBoth(*p, "G", feed);
  }
  // A declared length is planned as written; a run whose values contradict
  // it is the interpreter's error on the tape too.
  auto q = MakeProgram(R"(
    @graph Seq {
      input a: ?;
      output r: range(sum(cast(a, dtype: "f32")) + 1.0);
    }
    @graph G {
      input v: Tensor<[P], i64>;
      node c: Tensor<[3], i64> { op: Seq(v); };
      output y: c * 2;
    })");
  ASSERT_NE(q, nullptr);
  const TensorMap fits = Feed("v", Tensor::FromVector<int64_t>(kI64, {2}, {1, 1}).value());
  RunBoth(*q, "G", fits);
  const TensorMap other = Feed("v", Tensor::FromVector<int64_t>(kI64, {2}, {0, 1}).value());
  for (bool tape : {true, false}) {
    Result<TensorMap> out = tape ? q->Run("G", other) : q->Interpret("G", other);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().ToString();
    EXPECT_NE(out.status().message().find("computed i64[2] does not match its type Tensor<[3], i64>"), std::string::npos)
        << out.status().ToString();
  }
}

// The static length of a float literal's range is the one the run computes:
// the literal as its dtype holds it (f32: 2.9999999 is 3.0), truncated.
// Inference truncated the double, planned [2], and every run failed.
TEST(ExecutorValueShapes, ARangeOfAFloatLiteralHasTheLengthTheRunGives) {
  for (ir::DType dtype : {ir::DType::kF32, ir::DType::kF64}) {
    SCOPED_TRACE(ir::DTypeName(dtype));
    shrew::CompileOptions copts;
    copts.default_float = dtype;
    shrew::ProgramOptions popts;
    popts.default_dtype = dtype;
    auto p = MakeProgram("@graph G { output r: range(2.9999999); }", popts, copts);
    ASSERT_NE(p, nullptr);
    const std::vector<int64_t> want = dtype == ir::DType::kF32 ? std::vector<int64_t>{0, 1, 2} : std::vector<int64_t>{0, 1};
    for (bool interpret : {false, true}) {
      Result<TensorMap> r = interpret ? p->Interpret("G", {}) : p->Run("G", {});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_TRUE(runtime::BitwiseEqual(r->at("r"), Tensor::FromVector<int64_t>(ir::DType::kI64, {static_cast<int64_t>(want.size())}, want).value()));
    }
  }
}

TEST(ExecutorValueShapes, RunTimeErrorsLeaveTheProgramUsable) {
  auto p = MakeProgram(R"(
    @graph G {
      input x: Tensor<[2], f32>;
      node r { op: range(sum(x)); };
      output r;
    })");
  ASSERT_NE(p, nullptr);
  Result<TensorMap> empty = p->Run("G", Feed("x", F32({2}, {0.5f, -0.25f})));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("node 'r' (range): range is empty"), std::string::npos)
      << empty.status().ToString();
  Result<TensorMap> nan = p->Run("G", Feed("x", F32({2}, {NAN, 1})));
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.status().message().find("node 'r' (range)"), std::string::npos) << nan.status().ToString();
  // Longer than the per-tensor byte cap: an error naming the node, no allocation.
  Result<TensorMap> huge = p->Run("G", Feed("x", F32({2}, {1e15f, 1e15f})));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted) << huge.status().ToString();
  EXPECT_NE(huge.status().message().find("node 'r' (range) would be Tensor<[1999999973982208], i64>, over the limit of"),
            std::string::npos)
      << huge.status().ToString();
  // A graph of no inputs fails on its own values, as the interpreter says it.
  auto none = MakeProgram("@graph N { output r: range(0 - 3); }");
  ASSERT_NE(none, nullptr);
  Result<TensorMap> neg = none->Run("N", {});
  ASSERT_FALSE(neg.ok());
  Result<TensorMap> neg_ref = none->Interpret("N", {});
  ASSERT_FALSE(neg_ref.ok());
  EXPECT_EQ(neg.status().message(), neg_ref.status().message());
  EXPECT_EQ(neg.status().message().rfind("graph 'N': node 'r' (range): ", 0), 0u) << neg.status().ToString();
  // A round length is written as an integer (it read "[4e+15]").
  auto round = MakeProgram("@graph R { input n: Tensor<[], f64>; output r: range(n); }");
  ASSERT_NE(round, nullptr);
  Result<TensorMap> four = round->Run("R", Feed("n", Tensor::FromVector<double>(ir::DType::kF64, {}, {4e15}).value()));
  ASSERT_FALSE(four.ok());
  EXPECT_NE(four.status().message().find("would be Tensor<[4000000000000000], i64>"), std::string::npos)
      << four.status().ToString();
  // Integer bounds past 2^53 are named exactly (the double said ...992).
  auto exact = MakeProgram("@graph E { input n: Tensor<[], i64>; output r: range(n); }");
  ASSERT_NE(exact, nullptr);
  Result<TensorMap> odd = exact->Run("E", Feed("n", I64Scalar((int64_t{1} << 53) + 1)));
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("would be Tensor<[9007199254740993], i64>"), std::string::npos)
      << odd.status().ToString();
  // A bound that is no int64 at all is invalid, on both executors (the
  // tape called inf a length over the cap).
  for (float bad : {INFINITY, 1e19f}) {
    Result<TensorMap> tape = p->Run("G", Feed("x", F32({2}, {bad, 0})));
    Result<TensorMap> interp = p->Interpret("G", Feed("x", F32({2}, {bad, 0})));
    ASSERT_FALSE(tape.ok());
    ASSERT_FALSE(interp.ok());
    EXPECT_EQ(tape.status().code(), StatusCode::kInvalidArgument) << tape.status().ToString();
    EXPECT_EQ(interp.status().code(), StatusCode::kInvalidArgument) << interp.status().ToString();
    // The operand as its f32 reads (1e19f was 9.999999980506448e+18).
    const char* why = std::isinf(bad) ? "range operand inf is not a finite number"
                                      : "range operand 1e+19 is outside the i64 range";
    EXPECT_NE(tape.status().message().find(why), std::string::npos) << tape.status().ToString();
    EXPECT_NE(interp.status().message().find(why), std::string::npos) << interp.status().ToString();
  }
  // Bounds that are int64s, a length that is none: the same error on both
  // (the tape called it a tensor of 18400000535877910528 elements).
  auto q = MakeProgram(R"(
    @graph G {
      input x: Tensor<[1], f32>;
      output r: range(0.0 - sum(x), sum(x));
    })");
  ASSERT_NE(q, nullptr);
  for (bool tape : {true, false}) {
    TensorMap feeds = Feed("x", F32({1}, {9.2e18f}));
    Result<TensorMap> out = tape ? q->Run("G", feeds) : q->Interpret("G", feeds);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().ToString();
    EXPECT_NE(out.status().message().find("has more elements than an i64 can count"), std::string::npos)
        << out.status().ToString();
  }
  Result<TensorMap> ok = p->Run("G", Feed("x", F32({2}, {1, 2})));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(I64Values(ok->at("r")), (std::vector<int64_t>{0, 1, 2}));
}

// A value the executor computes to find a shape is held to the per-tensor
// byte cap before it is made, like every planned value and every
// interpreter value: the probe allocated this 2 PiB expand (failing, at
// best, with "out of memory allocating ...").
TEST(ExecutorValueShapes, ProbedValuesOverTheByteCapAreRefusedUnmade) {
  auto p = MakeProgram(R"(
    @graph G {
      input x: Tensor<[2], f32>;
      node e { op: expand(x, shape: [65536, 65536, 65536, 2]); };
      output r: range(sum(e) * 0.0 + 3.0);
    })");
  ASSERT_NE(p, nullptr);
  const std::string expected =
      "graph 'G': node 'e' (expand) would be Tensor<[65536, 65536, 65536, 2], f32>, over the limit of";
  for (bool tape : {true, false}) {
    Result<TensorMap> out = tape ? p->Run("G", Feed("x", F32({2}, {1, 2})))
                                 : p->Interpret("G", Feed("x", F32({2}, {1, 2})));
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted) << out.status().ToString();
    EXPECT_NE(out.status().message().find(expected), std::string::npos) << out.status().ToString();
  }
}

TEST(ExecutorValueShapes, ARangeOverTheByteCapPointsAtItsNodeOnBothExecutors) {
  shrew::ProgramOptions options;
  options.max_tensor_bytes = 1000;
  auto p = MakeProgram("@graph G {\n  input n: Tensor<[], i64>;\n  output r: range(n);\n}\n", options);
  ASSERT_NE(p, nullptr);
  for (bool tape : {true, false}) {
    TensorMap in = Feed("n", Tensor::FromVector<int64_t>(kI64, {}, {200}).value());
    Result<TensorMap> out = tape ? p->Run("G", in) : p->Interpret("G", in);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted) << out.status().ToString();
    EXPECT_NE(out.status().message().find("node 'r' (range) would be"), std::string::npos) << out.status().ToString();
    EXPECT_EQ(out.status().span().line, 3u) << tape;
    EXPECT_EQ(out.status().span().column, 3u) << tape;
  }
}

TEST(ExecutorValueShapes, PreparedRunsReportEachRunsShapes) {
  auto p = MakeProgram(R"(
    @graph G {
      input x: Tensor<[3], f32>;
      output r: range(max(x));
    })");
  ASSERT_NE(p, nullptr);
  std::vector<InputSpec> specs = {{"x", kF32, {3}}};
  Result<std::unique_ptr<PreparedRun>> prep = p->Prepare("G", specs);
  ASSERT_TRUE(prep.ok()) << prep.status().ToString();
  PreparedRun& run = **prep;
  EXPECT_TRUE(run.shapes_vary());
  EXPECT_EQ(run.output(0).bytes, 0u);
  for (float m : {3.0f, 5.0f, 1.0f}) {
    const float x[3] = {0.5f, m, -1};
    std::memcpy(run.input_data(0), x, sizeof x);
    ASSERT_TRUE(run.Run().ok());
    const int64_t n = static_cast<int64_t>(m);
    ASSERT_EQ(run.output(0).shape, runtime::Shape({n}));
    EXPECT_EQ(run.output(0).bytes, static_cast<uint64_t>(n) * 8);
    const int64_t* y = static_cast<const int64_t*>(run.output_data(0));
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(y[i], i);
  }
}

TEST(ExecutorValueShapes, PlansStayBoundedForEverNewLengths) {
  auto p = MakeProgram(R"(
    @graph G {
      input n: Tensor<[], i64>;
      output s: sum(cast(range(n), dtype: "f32"));
    })");
  ASSERT_NE(p, nullptr);
  for (int64_t n = 1; n <= 80; ++n) {
    Result<TensorMap> out = p->Run("G", Feed("n", I64Scalar(n)));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->at("s").GetDouble(0), static_cast<double>(n * (n - 1) / 2));
  }
  EXPECT_LE(p->executor("G")->num_plans(), 64);
}

TEST(ExecutorValueShapes, TrainingDropoutUpstreamIsAClearError) {
  ProgramOptions o;
  o.training = true;
  auto p = MakeProgram(R"(
    @graph G {
      input x: Tensor<[4], f32>;
      node d { op: dropout(x, p: 0.5); };
      output r: range(sum(d) + 1.0);
    })",
                       o);
  ASSERT_NE(p, nullptr);
  Result<TensorMap> out = p->Run("G", Feed("x", F32({4}, {1, 1, 1, 1})));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("training-mode dropout 'd'"), std::string::npos) << out.status().ToString();
  // The interpreter runs it.
  EXPECT_TRUE(p->Interpret("G", Feed("x", F32({4}, {1, 1, 1, 1}))).ok());
}

// Finding a call's result shape runs the callee, and the call instruction
// runs it again: a training-mode dropout anywhere in it would draw twice
// (the tape's later draws then differed from the interpreter's), even one
// that no shape depends on. The same clear error as above.
TEST(ExecutorValueShapes, TrainingDropoutInAProbedCalleeIsAClearError) {
  ProgramOptions o;
  o.training = true;
  auto p = MakeProgram(R"(
    @graph Seq {
      input a: Tensor<[K], f32>;
      node d { op: dropout(a, p: 0.5); };
      output y: range(sum(a) + 1.0);
      output z: d;
    }
    @graph G {
      input x: Tensor<[4], f32>;
      node t { op: Seq(x); };
      output t;
      output after: dropout(x, p: 0.5);
    })",
                       o);
  ASSERT_NE(p, nullptr);
  Result<TensorMap> out = p->Run("G", Feed("x", F32({4}, {1, 2, 0.5f, 1})));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("training-mode dropout 'd' (graph 'Seq') would draw twice"),
            std::string::npos)
      << out.status().ToString();
  EXPECT_TRUE(p->Interpret("G", Feed("x", F32({4}, {1, 2, 0.5f, 1}))).ok());
  // In evaluation mode dropout draws nothing: both executors agree.
  auto q = MakeProgram(R"(
    @graph Seq {
      input a: Tensor<[K], f32>;
      node d { op: dropout(a, p: 0.5); };
      output y: range(sum(a) + 1.0);
      output z: d;
    }
    @graph G {
      input x: Tensor<[4], f32>;
      node t { op: Seq(x); };
      output t;
    })");
  ASSERT_NE(q, nullptr);
  RunBoth(*q, "G", Feed("x", F32({4}, {1, 2, 0.5f, 1})));
}

}  // namespace
}  // namespace shrew::jit
