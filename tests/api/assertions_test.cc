// @assert / @check conditions evaluated at the start of a run (LANGUAGE.md
// §6): on the run's bound dims and the config, for both executors and the
// lean path; conditions about anything else are left alone.
#include "api/assertions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/bundle.h"
#include "api/compile.h"
#include "jit/jit_test_util.h"

namespace shrew {
namespace {

using runtime::Tensor;
using runtime::TensorMap;

TensorMap X(int64_t n) {
  TensorMap m;
  m.emplace("x", runtime::Tensor::Zeros(ir::DType::kF32, {n, 4}).value());
  return m;
}

constexpr char kProgram[] = R"(@config { H: 4; }
@graph G {
  input x: Tensor<[N, H], f32>;
  @assert N > 1, "need at least two rows";
  @check shape {
    assert N % 2 == 0 && N <= H * 2, "an even batch of at most 2H";
  }
  output y: x * 2.0;
}
)";

TEST(Assertions, AFalseConditionFailsTheRunWithItsMessageOnBothExecutors) {
  auto p = jit::testing::MakeProgram(kProgram);
  ASSERT_NE(p, nullptr);
  for (bool interp : {false, true}) {
    Result<TensorMap> one = interp ? p->Interpret("G", X(1)) : p->Run("G", X(1));
    ASSERT_FALSE(one.ok());
    EXPECT_EQ(one.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(one.status().message(),
              "graph 'G': assertion failed: need at least two rows (N > 1, with N = 1)");
    EXPECT_EQ(one.status().span().line, 4u);
    EXPECT_EQ(one.status().span().column, 3u);
    Result<TensorMap> odd = interp ? p->Interpret("G", X(3)) : p->Run("G", X(3));
    ASSERT_FALSE(odd.ok());
    EXPECT_EQ(odd.status().message(),
              "graph 'G': assertion failed: an even batch of at most 2H (N % 2 == 0 && N <= H * 2, with H = 4, "
              "N = 3)");
    Result<TensorMap> big = interp ? p->Interpret("G", X(10)) : p->Run("G", X(10));
    ASSERT_FALSE(big.ok());
    // Holds: the program stays usable.
    Result<TensorMap> ok = interp ? p->Interpret("G", X(4)) : p->Run("G", X(4));
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ(ok->at("y").shape(), runtime::Shape({4, 4}));
  }
  std::vector<InputSpec> specs = {{"x", ir::DType::kF32, {5, 4}}};
  Result<std::unique_ptr<PreparedRun>> prep = p->Prepare("G", specs);
  ASSERT_FALSE(prep.ok());
  EXPECT_NE(prep.status().message().find("an even batch"), std::string::npos) << prep.status().ToString();
}

// A graph reached through a call checks its conditions on the dims the
// call binds, on both executors, whichever path runs the call (the call
// kernel, the interpreter, a `?` callee's own executor), before its shapes:
// the assertion guards a reshape that D = 6 cannot take.
constexpr char kCalls[] = R"(@graph Heads {
  input v: Tensor<[R, D], f32>;
  @assert D % 4 == 0, "D must split into 4 heads";
  output o: reshape(v, shape: [R, 4, -1]);
}
@graph Any { input v: ?; output o: Heads(v); }
@graph Top { input x: Tensor<[2, N], f32>; output y: Heads(x); output z: Any(x); }
)";

TEST(Assertions, ACalledGraphChecksItsConditionsOnTheCallsDims) {
  auto p = jit::testing::MakeProgram(kCalls);
  ASSERT_NE(p, nullptr);
  for (bool interp : {false, true}) {
    SCOPED_TRACE(interp ? "interpreter" : "tape");
    TensorMap six;
    six.emplace("x", runtime::Tensor::Zeros(ir::DType::kF32, {2, 6}).value());
    Result<TensorMap> bad = interp ? p->Interpret("Top", six) : p->Run("Top", six);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), StatusCode::kFailedPrecondition) << bad.status().ToString();
    EXPECT_NE(bad.status().message().find("graph 'Heads': assertion failed: D must split into 4 heads "
                                          "(D % 4 == 0, with D = 6)"),
              std::string::npos)
        << bad.status().ToString();
    TensorMap eight;
    eight.emplace("x", runtime::Tensor::Zeros(ir::DType::kF32, {2, 8}).value());
    Result<TensorMap> ok = interp ? p->Interpret("Top", eight) : p->Run("Top", eight);
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ(ok->at("y").shape(), runtime::Shape({2, 4, 2}));
  }
}

// The position is the status's span, not part of the text (the CLI then
// showed it twice): the same whatever the program's file.
TEST(Assertions, ThePositionIsTheSpanOnly) {
  CompileOptions copts;
  copts.filename = "model.sw";
  auto p = jit::testing::MakeProgram(kProgram, {}, copts);
  ASSERT_NE(p, nullptr);
  for (bool interp : {false, true}) {
    Result<TensorMap> one = interp ? p->Interpret("G", X(1)) : p->Run("G", X(1));
    ASSERT_FALSE(one.ok());
    EXPECT_EQ(one.status().message(), "graph 'G': assertion failed: need at least two rows (N > 1, with N = 1)");
    EXPECT_EQ(one.status().span().line, 4u);
    EXPECT_EQ(one.status().span().column, 3u);
  }
}

TEST(Assertions, ConditionsAboutOtherThingsAreNotEvaluated) {
  // A tensor, a dimension no input binds, a number instead of a bool, forms
  // no run evaluates (W006 says so): none can be decided from config and dims.
  auto p = jit::testing::MakeProgram(R"(@config { H: 4; mode: fast; }
@graph G {
  input x: Tensor<[N, H], f32>;
  @assert x > 100.0, "about values";
  @assert M > 100, "M is not bound";
  @assert N + 100;
  @assert if N > 5 { true } else { false };
  @assert [N] == [5];
  @assert (N & 1) == 1;
  @assert ~N == 1;
  @assert mode == "fast" && !(H != 4), "holds";
  output y: x + 1.0;
})");
  ASSERT_NE(p, nullptr);
  Result<TensorMap> out = p->Run("G", X(2));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y").GetDouble(0), 1.0);
}

// A condition its bound values leave without a value is no check that
// passed: it fails the run saying why (each was skipped in silence).
TEST(Assertions, AConditionItsValuesBreakFailsTheRun) {
  for (const auto& [condition, failing, holding, why] :
       std::vector<std::tuple<std::string, int64_t, int64_t, std::string>>{
           {"1 / (N - 2) < 2", 2, 3, "division by zero in '1 / (N - 2)'"},
           {"N % (N - 3) >= 0", 3, 4, "division by zero in 'N % (N - 3)'"},
           {"N * 9223372036854775807 > 0", 2, 1, "integer overflow in 'N * 9223372036854775807'"},
           {"mode < N", 1, 0, "'mode < N' compares a string with a number"},
           {"N > 0 && mode", 1, 0, "'N > 0 && mode' joins a bool and a string (&& takes bools)"}}) {
    auto p = jit::testing::MakeProgram("@config { mode: fast; }\n@graph G {\n  input x: Tensor<[N, 4], f32>;\n  @assert " +
                                       condition + ", \"checked\";\n  output y: x + 1.0;\n}\n");
    ASSERT_NE(p, nullptr) << condition;
    for (bool interp : {false, true}) {
      Result<TensorMap> bad = interp ? p->Interpret("G", X(failing)) : p->Run("G", X(failing));
      ASSERT_FALSE(bad.ok()) << condition;
      EXPECT_EQ(bad.status().code(), StatusCode::kFailedPrecondition);
      const std::string mode = condition.find("mode") != std::string::npos ? ", mode = fast" : "";
      EXPECT_EQ(bad.status().message(), "graph 'G': assertion cannot be evaluated: checked (" + condition + ", with N = " +
                                            std::to_string(failing) + mode + "): " + why);
      EXPECT_EQ(bad.status().span().line, 4u);
      if (holding > 0) {
        Result<TensorMap> ok = interp ? p->Interpret("G", X(holding)) : p->Run("G", X(holding));
        EXPECT_TRUE(ok.ok()) << condition << ": " << ok.status().ToString();
      }
    }
  }
  // && and || decide as in C: a guarded division is not reached (they failed
  // N = 2 with "division by zero"), and a false guard is a plain failure.
  for (const auto& [condition, passes] : std::vector<std::pair<std::string, bool>>{
           {"N == 2 || 16 / (N - 2) > 1", true}, {"N < 3 || 16 % (N - 2) == 0", true},
           {"N != 2 && 16 / (N - 2) > 1", false}, {"N == 2 || N == 3 || 1 / (N - 2) > 0", true}}) {
    auto p = jit::testing::MakeProgram("@graph G {\n  input x: Tensor<[N, 4], f32>;\n  @assert " + condition +
                                       ", \"guarded\";\n  output y: x + 1.0;\n}\n");
    ASSERT_NE(p, nullptr) << condition;
    for (bool interp : {false, true}) {
      Result<TensorMap> out = interp ? p->Interpret("G", X(2)) : p->Run("G", X(2));
      if (passes) {
        EXPECT_TRUE(out.ok()) << condition << ": " << out.status().ToString();
      } else {
        ASSERT_FALSE(out.ok()) << condition;
        EXPECT_EQ(out.status().message(), "graph 'G': assertion failed: guarded (" + condition + ", with N = 2)");
      }
    }
  }
}

// A name no run can bind (no config key, dimension or value) makes the
// condition one that is never checked: misspelt, it silently passed every
// run. The compile warns (W006) at the @assert, with the likely name; and
// of a condition about a tensor (never evaluated), one that is a number
// (never false) or one dividing by a config key of 0, which passed as
// silently.
TEST(Assertions, AConditionNamingNothingBindableIsWarnedOf) {
  CompileResult c = Compile(R"(@config { H: 4; mode: fast; Z: 0; }
@graph G {
  input x: Tensor<[Batch, H], f32>;
  @assert Btach % 2 == 0, "Batch must be even";
  @assert x > 100.0, "about values";
  @assert mode == "fast" && Batch > 0 && H == 4;
  @assert Batch / 0 > 1;
  @assert (Batch - 2), "Batch must not be 2";
  @assert Batch * 2;
  @assert "fast";
  @assert (Batch & 1) == 0 || (Batch == 2) | (Batch == 3);
  @assert Batch / Z < 10;
  @assert if Batch > 5 { true } else { false };
  @assert H > 10, "never";
  @assert mode < 3;
  @assert Batch / 0.0 > 1;
  @assert if Batch > 0 { 1 / 0 > 0 } else { true };
  @assert Q / 0 > 1;
  @assert 0 < Batch < 10;
  @assert Batch == 2 || Batch / 0 > 1;
  @assert Batch % Z == 0 || Batch == 2;
  @assert H == 4 || 0 < H < 10;
  @assert Batch ** -1 / 0 > 0;
  @assert Batch > 100 && ~Batch < 0;
  @assert H;
  @assert (Batch);
  @assert mode;
  output y: x + 1.0;
})",
                            CompileOptions{.filename = "a.sw"});
  ASSERT_TRUE(c.ok) << c.RenderDiagnostics();
  std::vector<std::string> warnings;
  for (const diag::Diagnostic& d : c.diagnostics) {
    warnings.push_back(std::string(d.code()) + " " + std::to_string(d.span.line) + ":" + std::to_string(d.span.column) +
                       " " + d.message);
  }
  EXPECT_EQ(warnings,
            (std::vector<std::string>{"W006 4:3 @assert can never be checked: 'Btach' is neither a config key "
                                      "nor a dimension of the program; did you mean 'Batch'?",
                                      "W006 5:3 @assert can never be checked: it reads 'x', a value of graph 'G'; only "
                                      "config keys and dimensions are evaluated, at the start of a run",
                                      "W006 7:3 @assert fails every run: its condition divides by 0",
                                      "W006 8:3 @assert can never fail: its condition '(Batch - 2)' is a number, not "
                                      "true or false; write a comparison, as in '(Batch - 2) != 0'",
                                      "W006 9:3 @assert can never fail: its condition 'Batch * 2' is a number, not "
                                      "true or false; write a comparison, as in '(Batch * 2) != 0'",
                                      "W006 10:3 @assert can never fail: its condition '\"fast\"' is a string, not "
                                      "true or false",
                                      "W006 11:3 @assert can never be checked: its condition uses '&', which a run does "
                                      "not evaluate (arithmetic, comparisons, &&, || and ! only); for and, write &&",
                                      "W006 12:3 @assert fails every run: its condition divides by 'Z', which is 0",
                                      "W006 13:3 @assert can never be checked: its condition uses an if-expression, "
                                      "which a run does not evaluate (arithmetic, comparisons, &&, || and ! only)",
                                      "W006 14:3 @assert fails every run: it is false",
                                      "W006 15:3 @assert fails every run: 'mode < 3' compares a string with a number",
                                      // 16:3 divides by a float 0: IEEE's inf, no failure, no warning.
                                      "W006 17:3 @assert can never be checked: its condition uses an if-expression, "
                                      "which a run does not evaluate (arithmetic, comparisons, &&, || and ! only)",
                                      "W006 18:3 @assert can never be checked: 'Q' is neither a config key nor a "
                                      "dimension of the program",
                                      "W006 19:3 @assert fails every run: '0 < Batch < 10' compares the bool of "
                                      "'0 < Batch' with '10'; write '0 < Batch && Batch < 10'",
                                      // 20:3's division is guarded by Batch == 2: no warning.
                                      "W006 21:3 @assert fails every run: its condition divides by 'Z', which is 0",
                                      // Behind &&: checked where Batch > 100 decides it (false fails the run).
                                      "W006 24:3 @assert is skipped whenever its evaluation reaches '~', which a run "
                                      "does not evaluate (arithmetic, comparisons, &&, || and ! only)",
                                      // A bare config key or dimension holding a number or a string.
                                      "W006 25:3 @assert can never fail: its condition 'H' is a number, not true or "
                                      "false; write a comparison, as in 'H != 0'",
                                      "W006 26:3 @assert can never fail: its condition '(Batch)' is a number, not "
                                      "true or false; write a comparison, as in '(Batch) != 0'",
                                      "W006 27:3 @assert can never fail: its condition 'mode' is a string, not true "
                                      "or false"}));
  // 22:3's chain is guarded by H == 4, and 23:3 divides a float (Batch ** -1) by 0: IEEE's inf. No warnings.
}

// A node named like a config key (H) or a dim (N) shadows it (LANGUAGE.md
// §6), also when optimisation removes the node (dead), bypasses it (an
// identity) or merges it (CSE) and after a bundle: the condition is about
// tensors. Optimised, these runs failed "with H = 0" and "with N = 2".
TEST(Assertions, AConditionNamingANodeIsNotEvaluatedWhateverTheOptimiserDoes) {
  const char* source = R"(@config { H: 0; }
@graph G {
  input x: Tensor<[N], f32>;
  node H { op: x * 2.0; };
  node N { op: x; };
  node a { op: x + 1.0; };
  node b { op: x + 1.0; };
  @assert H > 0, "tensor H positive";
  @assert N > 5, "tensor N";
  @assert b > 0 && C > 0, "b merged into a; C declared later";
  node C { op: relu(x); };
  output y: N + a + b + C;
})";
  for (bool optimize : {true, false}) {
    SCOPED_TRACE(optimize ? "optimised" : "as written");
    CompileOptions copts;
    copts.optimize = optimize;
    auto p = jit::testing::MakeProgram(source, {}, copts);
    ASSERT_NE(p, nullptr);
    TensorMap in;
    in.emplace("x", jit::testing::F32({2}, {1, -3}));
    TensorMap out = jit::testing::RunBothBitwise(*p, "G", in);
    ASSERT_FALSE(out.empty());
    EXPECT_TRUE(runtime::BitwiseEqual(out.at("y"), jit::testing::F32({2}, {6, -7})));
    CompileResult c = Compile(source, copts);
    Result<std::unique_ptr<Program>> loaded = LoadBundle(EncodeBundle(*p, c.source.get(), c.stats));
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    Result<TensorMap> again = (*loaded)->Run("G", in);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
  }
}

TEST(Assertions, ConfigOnlyConditionsAndFloats) {
  auto p = jit::testing::MakeProgram(R"(@config { H: 4; rate: 0.5; }
@graph G {
  input x: Tensor<[N, H], f32>;
  @assert rate * H >= 2.5, "rate too small for H";
  output y: x;
})");
  ASSERT_NE(p, nullptr);
  Result<TensorMap> out = p->Run("G", X(2));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "graph 'G': assertion failed: rate too small for H (rate * H >= 2.5, with H = 4, rate = 0.5)");
}

}  // namespace
}  // namespace shrew
