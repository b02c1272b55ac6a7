// The rest of the OPS.md catalog on the tape: reductions, comparisons and
// logic, where, cast, mod/pow, concat/split, embedding, batch_norm, losses,
// range, training-mode dropout and f64 products. Each is compared with the reference
// interpreter (native kernels, and the whole-ref fallback as a control) on
// random inputs of every dtype it accepts, with broadcasting, rank 0,
// size-0 dims and negative axes; a few are checked against hand-written
// loops, and the tape must not fall back to the interpreter for them.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "jit/jit_test_util.h"
#include "runtime/float_pow.h"

namespace shrew::jit {
namespace {

using runtime::Shape;
using runtime::Tensor;
using runtime::TensorMap;
using testing::MakeProgram;
using testing::RandomTensor;

struct In {
  std::string name;
  Shape shape;
  ir::DType dtype = ir::DType::kF32;
  double lo = -2.0;
  double hi = 2.0;
};

// Size-0 dims cannot be declared (sizes start at 1): they are declared as
// a symbolic dim (Z<input><axis>) and bound to 0 by the input at run time.
std::string TypeOf(const std::string& name, const Shape& s, ir::DType dtype) {
  std::string t = "Tensor<[";
  for (size_t i = 0; i < s.size(); ++i) {
    t += (i == 0 ? "" : ", ") + (s[i] == 0 ? "Z" + name + std::to_string(i) : std::to_string(s[i]));
  }
  return t + "], " + ir::DTypeName(dtype) + ">";
}

TensorMap Feed(const std::vector<In>& inputs, uint32_t seed) {
  TensorMap feed;
  for (const In& in : inputs) feed.emplace(in.name, RandomTensor(in.dtype, in.shape, seed++, in.lo, in.hi));
  return feed;
}

std::string Source(const std::string& expr, const std::vector<In>& inputs, const std::string& extra = "") {
  std::string src = "@graph G {\n";
  for (const In& in : inputs) src += "  input " + in.name + ": " + TypeOf(in.name, in.shape, in.dtype) + ";\n";
  src += extra;
  src += "  node y { op: " + expr + "; };\n  output y;\n}\n";
  return src;
}

// Tape (native kernels, no ref fallback for the node) == interpreter, and
// the same with every node on the fallback.
void CheckOp(const std::string& expr, const std::vector<In>& inputs, const std::string& extra = "",
             uint32_t seed = 1) {
  const std::string src = Source(expr, inputs, extra);
  SCOPED_TRACE(src);
  const TensorMap feed = Feed(inputs, seed);
  for (bool native : {true, false}) {
    SCOPED_TRACE(native ? "native kernels" : "ref fallback");
    ProgramOptions o;
    o.native_kernels = native;
    std::unique_ptr<Program> p = MakeProgram(src, o);
    ASSERT_NE(p, nullptr);
    testing::RunBoth(*p, "G", feed, /*slack=*/4.0);
    if (native) {
      Result<CompileStats> st = p->Stats("G");
      ASSERT_TRUE(st.ok());
      EXPECT_EQ(st->num_ref_kernels, 0) << "an op ran through the interpreter fallback";
    }
  }
}

// Runs the tape only and returns its status (error-path tests).
Status RunTape(const std::string& src, const TensorMap& feed, TensorMap* out = nullptr) {
  std::unique_ptr<Program> p = MakeProgram(src);
  if (p == nullptr) return Internal("did not compile");
  Result<TensorMap> r = p->Run("G", feed);
  if (!r.ok()) return r.status();
  if (out != nullptr) *out = std::move(r).value();
  return Status::Ok();
}

constexpr ir::DType kF32 = ir::DType::kF32;
constexpr ir::DType kF64 = ir::DType::kF64;
constexpr ir::DType kI64 = ir::DType::kI64;
constexpr ir::DType kU8 = ir::DType::kU8;
constexpr ir::DType kBool = ir::DType::kBool;

TEST(JitCatalog, ReductionsAnyAxesKeepdimNegativeAxes) {
  for (const char* op : {"sum", "mean", "max", "min", "var"}) {
    SCOPED_TRACE(op);
    const std::string f = op;
    for (ir::DType dt : {kF32, kF64}) {
      CheckOp(f + "(x)", {{"x", {3, 4, 5}, dt}});
      CheckOp(f + "(x, dim: 1)", {{"x", {3, 4, 5}, dt}});
      CheckOp(f + "(x, dim: -1, keepdim: true)", {{"x", {3, 4, 5}, dt}});
      CheckOp(f + "(x, dim: 0)", {{"x", {6, 7}, dt}});
    }
    CheckOp(f + "(x)", {{"x", {}}});                                   // rank 0
    CheckOp(f + "(x, dim: 0, keepdim: true)", {{"x", {1, 5}}});        // size-1 axis
    CheckOp(f + "(x, dim: 1)", {{"x", {0, 3}}});                       // empty output
    if (f != "max" && f != "min") {
      CheckOp(f + "(x, dim: [0, 2])", {{"x", {3, 4, 5}}});
      CheckOp(f + "(x, dim: [-1, -3], keepdim: true)", {{"x", {2, 3, 4, 5}}});
      CheckOp(f + "(x, dim: [1, 3])", {{"x", {2, 3, 4, 5}}});
    }
  }
  CheckOp("sum(x, dim: 0)", {{"x", {0, 3}}});  // empty slices sum to 0
}

// Rows shorter than the row sums' lanes, one output each, take a loop of
// their own: bit for bit the interpreter's values (its sums in order from
// +0, the lanes' zeros changing nothing), −0 rows and NaNs included, and a
// hand-written sum in double.
TEST(JitCatalog, ReductionsOfShortRowsAreTheInterpretersBitForBit) {
  for (const char* op : {"sum", "mean", "variance"}) {
    for (ir::DType dt : {kF32, kF64}) {
      for (int64_t n : {2, 3, 4, 7}) {
        for (const std::vector<int64_t>& shape : {std::vector<int64_t>{301, n}, std::vector<int64_t>{7, 43, n}}) {
          const std::string src = Source(std::string(op) + "(x, dim: -1)", {{"x", shape, dt}});
          SCOPED_TRACE(src);
          Tensor x = testing::RandomTensor(dt, shape, 9, -1e3, 1e3);
          for (int64_t i = 0; i < n; ++i) x.SetDouble(i, -0.0);  // row 0: all −0
          x.SetDouble(n, std::numeric_limits<double>::quiet_NaN());
          TensorMap feed;
          feed.emplace("x", x);
          std::unique_ptr<Program> p = MakeProgram(src);
          ASSERT_NE(p, nullptr);
          const TensorMap out = testing::RunBothBitwise(*p, "G", feed);
          ASSERT_EQ(out.size(), 1u);
          const Tensor& y = out.begin()->second;
          if (std::string(op) == "sum") {
            EXPECT_EQ(std::bit_cast<uint64_t>(y.GetDouble(0)), std::bit_cast<uint64_t>(0.0));  // +0
            EXPECT_TRUE(std::isnan(y.GetDouble(1)));
            double want = 0;
            for (int64_t i = 0; i < n; ++i) want += x.GetDouble(2 * n + i);
            EXPECT_EQ(y.GetDouble(2), dt == kF32 ? static_cast<double>(static_cast<float>(want)) : want);
          }
        }
      }
    }
  }
}

TEST(JitCatalog, ReductionsMatchHandWrittenLoops) {
  const std::string src = Source("sum(x, dim: [-1, 0])", {{"x", {2, 3, 4}}}) ;
  TensorMap feed;
  std::vector<float> xv(24);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.5f - 3.0f;
  feed.emplace("x", testing::F32({2, 3, 4}, xv));
  TensorMap out;
  ASSERT_TRUE(RunTape(src, feed, &out).ok());
  const Tensor& y = out.at("y");
  ASSERT_EQ(y.shape(), (Shape{3}));
  for (int j = 0; j < 3; ++j) {
    double s = 0;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) s += xv[static_cast<size_t>(i * 12 + j * 4 + k)];
    EXPECT_FLOAT_EQ(y.values<float>()[static_cast<size_t>(j)], static_cast<float>(s));
  }
  // Population variance and max along the last axis.
  const std::string src2 = "@graph G {\n  input x: Tensor<[2, 4], f32>;\n  output v: var(x, dim: -1);\n"
                           "  output m: max(x, dim: 1, keepdim: true);\n}\n";
  TensorMap feed2;
  feed2.emplace("x", testing::F32({2, 4}, {1, 2, 3, 4, -1, -5, 7, 0}));
  TensorMap out2;
  ASSERT_TRUE(RunTape(src2, feed2, &out2).ok());
  EXPECT_FLOAT_EQ(out2.at("v").values<float>()[0], 1.25f);
  // Row 2: mean 0.25, deviations −1.25, −5.25, 6.75, −0.25.
  EXPECT_FLOAT_EQ(out2.at("v").values<float>()[1], (1.5625f + 27.5625f + 45.5625f + 0.0625f) / 4);
  EXPECT_EQ(out2.at("m").shape(), (Shape{2, 1}));
  EXPECT_FLOAT_EQ(out2.at("m").values<float>()[0], 4.0f);
  EXPECT_FLOAT_EQ(out2.at("m").values<float>()[1], 7.0f);
}

TEST(JitCatalog, ComparisonsGiveBoolWithBroadcasting) {
  for (const char* op : {"==", "!=", "<", ">", "<=", ">="}) {
    SCOPED_TRACE(op);
    const std::string e = std::string("a ") + op + " b";
    CheckOp(e, {{"a", {3, 4}}, {"b", {4}}});
    CheckOp(e, {{"a", {3, 1}, kF64}, {"b", {1, 4}, kF64}});
    CheckOp(e, {{"a", {5}, kI64}, {"b", {5}, kI64}});
    CheckOp(e, {{"a", {2, 3}, kU8, 0, 4}, {"b", {}, kU8, 0, 4}});
    CheckOp(e, {{"a", {}}, {"b", {}}});
    CheckOp(e, {{"a", {0, 3}}, {"b", {3}}});
    CheckOp(std::string("a ") + op + " 0.5", {{"a", {2, 3}}});
    CheckOp(std::string("0.5 ") + op + " a", {{"a", {2, 3}}});  // the scalar on the left
    CheckOp(e, {{"a", {2, 1, 5}, kI64, -3, 3}, {"b", {4, 1}, kI64, -3, 3}});
  }
  CheckOp("a == b", {{"a", {4}, kBool}, {"b", {2, 1}, kBool}});
}

TEST(JitCatalog, LogicalOpsAnyDtypeBroadcast) {
  CheckOp("a && b", {{"a", {3, 4}, kBool}, {"b", {4}, kBool}});
  CheckOp("a || b", {{"a", {3, 1}, kBool}, {"b", {1, 4}, kBool}});
  CheckOp("a && b", {{"a", {3, 4}}, {"b", {3, 4}}});  // floats: non-zero is true
  CheckOp("a || b", {{"a", {6}, kI64}, {"b", {6}, kI64}});
  CheckOp("!a", {{"a", {2, 3}, kBool}});
  CheckOp("!a", {{"a", {2, 3}}});
  CheckOp("!a", {{"a", {2, 3}, kU8, 0, 3}});  // u8 reads as bytes, like bool, and may run in place
  CheckOp("!a", {{"a", {7}, kI64, -2, 2}});
  CheckOp("!a", {{"a", {7}, kF64, -1, 1}});
  CheckOp("!(!(a < b))", {{"a", {4, 5}}, {"b", {5}}});
  CheckOp("!(a < b)", {{"a", {2, 3}}, {"b", {3}}});
}

TEST(JitCatalog, WhereAndCast) {
  CheckOp("where(c, a, b)", {{"c", {3, 1}, kBool}, {"a", {3, 4}}, {"b", {4}}});
  CheckOp("where(c, a, b)", {{"c", {4}}, {"a", {}}, {"b", {2, 4}}});  // float condition
  CheckOp("where(a > b, a, b)", {{"a", {2, 3}, kI64}, {"b", {3}, kI64}});
  CheckOp("where(c, a, 0.0)", {{"c", {5}, kBool}, {"a", {5}, kF64}});
  // Every value size (1, 4, 8 bytes) and condition type.
  CheckOp("where(c, a, b)", {{"c", {2, 3}, kBool}, {"a", {2, 3}, kU8, 0, 9}, {"b", {3}, kU8, 0, 9}});
  CheckOp("where(c, a, b)", {{"c", {6}, kI64, -1, 2}, {"a", {6}, kBool}, {"b", {6}, kBool}});
  CheckOp("where(c, a, b)", {{"c", {2, 1}, kF64}, {"a", {1, 7}, kI64}, {"b", {2, 7}, kI64}});
  CheckOp("where(c, a, b)", {{"c", {9}, kU8, 0, 2}, {"a", {9}}, {"b", {9}}});
  // A condition per row (a column): each row is a's or b's, copied or filled.
  CheckOp("where(c, a, b)", {{"c", {6, 1}, kBool}, {"a", {6, 1}, kF64}, {"b", {6, 37}, kF64}});
  CheckOp("where(c, a, b)", {{"c", {6, 1}, kBool}, {"a", {6, 37}, kU8, 0, 9}, {"b", {1, 37}, kU8, 0, 9}});
}

// A float condition is false only for ±0 (NaN is true), and the chosen
// values are copied bit for bit: −0.0 and NaN stay what they were.
TEST(JitCatalog, WhereTestsTheConditionAsItsTypeAndCopiesValuesExactly) {
  const std::string src = "@graph G {\n  input c: Tensor<[5], f32>;\n  input a: Tensor<[5], f32>;\n"
                          "  input b: Tensor<[5], f32>;\n  output y: where(c, a, b);\n}\n";
  const float nan = std::nanf("");
  TensorMap feed;
  feed.emplace("c", testing::F32({5}, {-0.0f, nan, 0.0f, 2.0f, -1e-30f}));
  feed.emplace("a", testing::F32({5}, {1, -0.0f, 3, nan, 5}));
  feed.emplace("b", testing::F32({5}, {-0.0f, 7, nan, 9, 10}));
  TensorMap out;
  ASSERT_TRUE(RunTape(src, feed, &out).ok());
  std::span<const float> y = out.at("y").values<float>();
  EXPECT_TRUE(y[0] == 0.0f && std::signbit(y[0]));  // b's −0.0
  EXPECT_TRUE(y[1] == 0.0f && std::signbit(y[1]));  // NaN is true: a's −0.0
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(y[4], 5.0f);
  for (const char* to : {"f32", "f64", "i32", "i64", "u8", "bool"}) {
    SCOPED_TRACE(to);
    const std::string e = std::string("cast(x, dtype: \"") + to + "\")";
    CheckOp(e, {{"x", {2, 5}, kF32, -300, 300}});
    CheckOp(e, {{"x", {4}, kI64, -300, 300}});
    CheckOp(e, {{"x", {3}, kBool}});
    CheckOp(e, {{"x", {}, kF64}});
  }
}

TEST(JitCatalog, ModAndPowFollowTheSpec) {
  CheckOp("a % b", {{"a", {3, 4}, kF32, -9, 9}, {"b", {4}, kF32, 0.5, 3}});
  CheckOp("a % b", {{"a", {3, 4}, kF32, -9, 9}, {"b", {4}, kF32, -3, -0.5}});
  CheckOp("a % b", {{"a", {6}, kI64, -20, 20}, {"b", {6}, kI64, 1, 6}});
  CheckOp("a % b", {{"a", {6}, kI64, -20, 20}, {"b", {}, kI64, -5, -1}});
  CheckOp("a ** b", {{"a", {3, 4}, kF32, -3, 3}, {"b", {4}, kF32, -2, 3}});
  CheckOp("a ** b", {{"a", {6}, kF64, -3, 3}, {"b", {6}, kF64, 0, 4}});
  CheckOp("a ** b", {{"a", {6}, kI64, -5, 5}, {"b", {6}, kI64, 0, 5}});
  CheckOp("a ** 2", {{"a", {2, 2}, kF32, -3, 3}});
  // Hand-computed values (OPS.md §3.4).
  const std::string src = "@graph G {\n  input a: Tensor<[4], f32>;\n  input b: Tensor<[4], f32>;\n"
                          "  output m: a % b;\n  output p: a ** b;\n}\n";
  TensorMap feed;
  feed.emplace("a", testing::F32({4}, {-7, 7, 5.5, -2}));
  feed.emplace("b", testing::F32({4}, {3, -3, 2, 3}));
  TensorMap out;
  ASSERT_TRUE(RunTape(src, feed, &out).ok());
  std::span<const float> m = out.at("m").values<float>();
  EXPECT_EQ(m[0], 2.0f);
  EXPECT_EQ(m[1], -2.0f);
  EXPECT_EQ(m[2], 1.5f);
  EXPECT_EQ(m[3], 1.0f);
  std::span<const float> p = out.at("p").values<float>();
  EXPECT_EQ(p[3], -8.0f);  // (−2)^3
  TensorMap feed0;
  feed0.emplace("a", testing::F32({4}, {0, -2, 0, -2}));
  feed0.emplace("b", testing::F32({4}, {0, 2, -1, 0.5}));
  ASSERT_TRUE(RunTape(src, feed0, &out).ok());
  p = out.at("p").values<float>();
  EXPECT_EQ(p[0], 1.0f);  // 0**0
  EXPECT_EQ(p[1], 4.0f);
  EXPECT_TRUE(std::isinf(p[2]) && p[2] > 0);
  EXPECT_TRUE(std::isnan(p[3]));
}

// Integer pow with one exponent for the tensor (2-4 with the exponent
// written into the loop, others element by element): wrapping modulo
// 2^bits as repeated multiplication, the values of a hand-written loop, for
// i64 and u8, of an input and of a computed value (which the planner may
// let the power overwrite).
TEST(JitCatalog, IntegerPowByOneExponentWrapsAsRepeatedMultiplication) {
  for (int64_t e : {0, 1, 2, 3, 4, 5, 63, 64, 200}) {
    for (const char* dt : {"i64", "u8"}) {
      for (bool in_place : {false, true}) {
        SCOPED_TRACE(std::string(dt) + " ** " + std::to_string(e) + (in_place ? " in place" : ""));
        const std::string expr = in_place ? "(a * 1) ** " + std::to_string(e) : "a ** " + std::to_string(e);
        const std::string src =
            std::string("@graph G {\n  input a: Tensor<[700], ") + dt + ">;\n  output y: " + expr + ";\n}\n";
        const bool u8 = std::string(dt) == "u8";
        Tensor a = testing::RandomTensor(u8 ? ir::DType::kU8 : kI64, {700}, 9, u8 ? 0 : -5000, u8 ? 255 : 5000);
        TensorMap feed;
        feed.emplace("a", a);
        TensorMap out;
        ASSERT_TRUE(RunTape(src, feed, &out).ok());
        for (size_t i = 0; i < 700; ++i) {
          uint64_t want = 1;
          const uint64_t x = u8 ? a.values<uint8_t>()[i] : static_cast<uint64_t>(a.values<int64_t>()[i]);
          for (int64_t k = 0; k < e; ++k) want *= x;
          if (u8) {
            ASSERT_EQ(out.at("y").values<uint8_t>()[i], static_cast<uint8_t>(want)) << i;
          } else {
            ASSERT_EQ(out.at("y").values<int64_t>()[i], static_cast<int64_t>(want)) << i;
          }
        }
      }
    }
  }
}

// x ** 2, x ** 1 and x ** 0.5 are exact (x·x, x, sqrt with C pow's +0 for
// −0 and +inf for −inf; runtime/float_pow.h), as one exponent for the tensor
// (a loop of their own) or element by element, on both executors.
TEST(JitCatalog, PowOfTwoOneAndAHalfIsExact) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> a = {-0.0f, 0.0f, -inf, inf, nan, -2.0f, 2.0f, 1e-40f, 3.3f, 1e20f, 0.1f, -1e-45f};
  const std::vector<float> want_sq = [&] {
    std::vector<float> v;
    for (float x : a) v.push_back(x * x);
    return v;
  }();
  const std::vector<float> want_half = [&] {
    std::vector<float> v;
    for (float x : a) v.push_back(x == -inf ? inf : x == 0.0f ? 0.0f : x < 0 ? nan : std::sqrt(x));
    return v;
  }();
  const int64_t n = static_cast<int64_t>(a.size());
  const std::string src = "@graph G {\n  input a: Tensor<[" + std::to_string(n) + "], f32>;\n  input e: Tensor<[" +
                          std::to_string(n) + "], f32>;\n  output s: a ** 2;\n  output r: a ** 0.5;\n"
                          "  output o: a ** 1;\n  output g: a ** e;\n}\n";
  for (float e : {2.0f, 0.5f, 1.0f}) {
    SCOPED_TRACE(e);
    TensorMap feed;
    feed.emplace("a", testing::F32({n}, a));
    feed.emplace("e", testing::F32({n}, std::vector<float>(a.size(), e)));
    std::unique_ptr<Program> p = MakeProgram(src);
    ASSERT_NE(p, nullptr);
    const TensorMap run = testing::RunBothBitwise(*p, "G", feed);
    ASSERT_EQ(run.size(), 4u);
    const TensorMap* out = &run;
    const std::vector<float>& want = e == 2.0f ? want_sq : e == 0.5f ? want_half : a;
    const std::pair<const char*, const std::vector<float>*> expected[] = {
        {"s", &want_sq}, {"r", &want_half}, {"o", &a}, {"g", &want}};
    for (const auto& [name, values] : expected) {
      // Bit for bit (the sign of zero included); a NaN's sign and payload are the machine's.
      std::span<const float> got = out->at(name).values<float>();
      for (size_t i = 0; i < a.size(); ++i) {
        const float w = (*values)[i];
        EXPECT_TRUE(std::isnan(w) ? std::isnan(got[i]) : std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(w))
            << name << "[" << i << "] = " << got[i] << ", want " << w;
      }
    }
  }
  CheckOp("a ** 0.5", {{"a", {5, 7}, kF32, -3, 3}});
  CheckOp("a ** 0.5", {{"a", {5, 7}, kF64, -3, 3}});
  CheckOp("a ** 2", {{"a", {5, 7}, kF64, -3, 3}});
  CheckOp("a ** 1", {{"a", {5, 7}, kF64, -3, 3}});
  CheckOp("a ** b", {{"a", {3, 4}, kF32, -3, 3}, {"b", {3, 1}, kF32, 2, 2}});
}

// Bit for bit, the sign of zero included; any NaN for a NaN.
void ExpectSameFloats(std::span<const float> got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(std::isnan(want[i]) ? std::isnan(got[i]) : std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(want[i]))
        << what << "[" << i << "] = " << got[i] << ", want " << want[i];
  }
}

// f32 to an integral power (runtime/float_pow.h): square-and-multiply in
// double, rounded once, the rules of C pow for the special values; the
// tensor-wide exponent's block loop, the per-element path and the
// interpreter give the same bits.
TEST(JitCatalog, F32IntegralPowersAreCorrectlyRoundedAndFollowCPow) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {-0.0f, 0.0f, -inf, inf, nan, -2.0f, 2.0f, 1e-40f, -1e-45f, 1e30f, -1e30f, 1e-30f, -1e-30f,
                          1.0f, -1.0f, 1.0000001f, 0.99999994f, 3.3f, -0.7f};
  for (int i = 0; i < 600; ++i) a.push_back(std::ldexp(std::sin(i * 0.37f + 0.1f) * 1.9f, i % 40 - 20));
  const int64_t n = static_cast<int64_t>(a.size());
  const std::string src = "@graph G {\n  input a: Tensor<[" + std::to_string(n) + "], f32>;\n  input e: Tensor<[" +
                          std::to_string(n) + "], f32>;\n  input k: Tensor<[], f32>;\n  output row: a ** k;\n"
                          "  output each: a ** e;\n}\n";
  std::unique_ptr<Program> p = MakeProgram(src);
  ASSERT_NE(p, nullptr);
  for (float k : {3.0f, -1.0f, -2.0f, 0.0f, -0.0f, 4.0f, 5.0f, 7.0f, -3.0f, 13.0f, 1024.0f, -1024.0f, 1025.0f, 2.5f}) {
    SCOPED_TRACE(k);
    std::vector<float> want;
    for (float x : a) {
      // C pow in double is within an ulp of double: rounded to f32 it is the
      // correctly rounded f32 power but for ties, which these values miss.
      want.push_back(std::fabs(k) <= 1024.0f ? static_cast<float>(std::pow(static_cast<double>(x), static_cast<double>(k)))
                                             : std::pow(x, k));
    }
    TensorMap feed;
    feed.emplace("a", testing::F32({n}, a));
    feed.emplace("e", testing::F32({n}, std::vector<float>(a.size(), k)));
    feed.emplace("k", testing::F32({}, {k}));
    const TensorMap run = testing::RunBothBitwise(*p, "G", feed);
    ASSERT_EQ(run.size(), 2u);
    ExpectSameFloats(run.at("row").values<float>(), want, "row");
    ExpectSameFloats(run.at("each").values<float>(), want, "each");
  }
  // C pow's special values, spelled out.
  EXPECT_EQ(runtime::FloatPow(nan, 0.0f), 1.0f);
  EXPECT_EQ(runtime::FloatPow(-0.0f, -3.0f), -inf);
  EXPECT_EQ(runtime::FloatPow(-0.0f, -2.0f), inf);
  EXPECT_EQ(runtime::FloatPow(-2.0f, 3.0f), -8.0f);
  EXPECT_TRUE(std::signbit(runtime::FloatPow(-inf, -3.0f)));
  EXPECT_EQ(runtime::FloatPow(-1e30f, 3.0f), -inf);
  EXPECT_TRUE(std::signbit(runtime::FloatPow(-1e-30f, 3.0f)) && runtime::FloatPow(-1e-30f, 3.0f) == 0.0f);
  EXPECT_EQ(runtime::FloatPow(1e-30f, -2.0f), inf);
  // x ** -0.5 and x ** 1.5 as 1 / sqrt(x) and x·sqrt(x): C pow's special values, and its
  // value within an f32 unit (f64: two units) over a sweep of magnitudes.
  for (float e : {-0.5f, 1.5f}) {
    for (float x : {0.0f, -0.0f, inf, -inf, nan, -1.0f, -1e-30f, 1.0f}) {
      const float got = runtime::FloatPow(x, e), want = std::pow(x, e);
      EXPECT_TRUE((std::isnan(got) && std::isnan(want)) || (got == want && std::signbit(got) == std::signbit(want)))
          << x << " ** " << e << ": " << got << " vs " << want;
      const double dgot = runtime::FloatPow(static_cast<double>(x), static_cast<double>(e)),
                   dwant = std::pow(static_cast<double>(x), static_cast<double>(e));
      EXPECT_TRUE((std::isnan(dgot) && std::isnan(dwant)) || (dgot == dwant && std::signbit(dgot) == std::signbit(dwant)))
          << x << " ** " << e << " (f64): " << dgot << " vs " << dwant;
    }
    for (int i = 0; i < 4000; ++i) {
      const float x = std::ldexp(1.0f + (i % 97) / 97.0f, i % 200 - 100);
      const float got = runtime::FloatPow(x, e), want = std::pow(x, e);
      EXPECT_TRUE(got == want || std::fabs(got - want) <= std::fabs(std::nextafter(want, inf) - want)) << x << " ** " << e;
      const double dx = x, dgot = runtime::FloatPow(dx, static_cast<double>(e)), dwant = std::pow(dx, static_cast<double>(e));
      EXPECT_TRUE(dgot == dwant || std::fabs(dgot - dwant) <= 2 * std::fabs(std::nextafter(dwant, 1.0 / 0.0) - dwant)) << dx << " ** " << e;
    }
  }
  // In place and broadcast along a column, on both executors.
  CheckOp("(a * 1.5) ** 3", {{"a", {4, 9}, kF32, -3, 3}});
  CheckOp("a ** -0.5 + a ** 1.5", {{"a", {4, 33}, kF32, -3, 3}});
  CheckOp("a ** -0.5 + a ** 1.5", {{"a", {4, 33}, kF64, -3, 3}});
  CheckOp("a ** b", {{"a", {3, 4}, kF32, -3, 3}, {"b", {3, 1}, kF32, -3, -3}});
}

// Float floored modulo (runtime/float_mod.h): fmod's exact value with the
// divisor's sign, by double arithmetic for f32 while |a / b| < 2^24 — the
// same bits as libm's fmod, on both executors, large quotients included.
TEST(JitCatalog, FloatModIsFmodsExactValueWithTheDivisorsSign) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {-0.0f, 0.0f, 7.0f, -7.0f, 5.5f, -5.5f, inf, -inf, nan, 1e-45f, -1e-45f, 16777215.0f, 16777216.0f,
                          -16777217.0f, 3e38f, 1e-38f, 6.2831855f, -6.2831855f, 12.566371f};
  std::vector<float> b = {3.0f, 3.0f, -3.0f, 3.0f, 2.0f, -2.0f, 2.0f, 1.0f, 1.0f, 3.0f, 3.0f, 1.0f, 1.0f, 1.0f, 1e-45f, -7.0f,
                          6.2831855f, 6.2831855f, 6.2831855f};
  for (float x : {1.0f, -1.0f, 0.0f, -0.0f}) {
    for (float y : {0.0f, -0.0f, inf, -inf, nan}) a.push_back(x), b.push_back(y);
  }
  for (int i = 0; i < 2000; ++i) {
    a.push_back(std::ldexp(std::sin(i * 0.61f) * 1.3f, i % 60 - 10));
    b.push_back(std::ldexp(std::cos(i * 0.23f + 0.4f) * 1.7f, i % 13 - 6));
  }
  std::vector<float> want;
  for (size_t i = 0; i < a.size(); ++i) {
    float r = std::fmod(a[i], b[i]);
    if (r != 0 && ((r < 0) != (b[i] < 0))) r += b[i];
    want.push_back(r);
  }
  const int64_t n = static_cast<int64_t>(a.size());
  const std::string src = "@graph G {\n  input a: Tensor<[" + std::to_string(n) + "], f32>;\n  input b: Tensor<[" +
                          std::to_string(n) + "], f32>;\n  output m: a % b;\n}\n";
  std::unique_ptr<Program> p = MakeProgram(src);
  ASSERT_NE(p, nullptr);
  TensorMap feed;
  feed.emplace("a", testing::F32({n}, a));
  feed.emplace("b", testing::F32({n}, b));
  const TensorMap run = testing::RunBothBitwise(*p, "G", feed);
  ASSERT_EQ(run.size(), 1u);
  ExpectSameFloats(run.at("m").values<float>(), want, "m");
  CheckOp("a % 6.2831855", {{"a", {8, 8}, kF32, -1e6, 1e6}});
  CheckOp("3.5 % a", {{"a", {700}, kF32, -9, 9}});
  CheckOp("(a * 1e9) % b", {{"a", {3, 300}, kF32, -9, 9}, {"b", {3, 1}, kF32, 0.5, 2}});
  // f64 rows in blocks, broadcast and computed operands: the scalar
  // FloatMod's values (float_mod_test.cc checks those against fmod; here
  // both executors share them), large quotients through libm.
  CheckOp("a % 6.283185307179586", {{"a", {8, 80}, kF64, -1e6, 1e6}});
  CheckOp("3.5 % a", {{"a", {700}, kF64, -9, 9}});
  CheckOp("(a * 1e17) % b", {{"a", {3, 300}, kF64, -9, 9}, {"b", {3, 1}, kF64, 0.5, 2}});
}

// Integer and f64 arithmetic on the tape, including in place (the output
// takes an operand's buffer) and with either operand broadcast.
TEST(JitCatalog, RefArithmeticBroadcastsAndRunsInPlace) {
  for (const char* op : {"+", "-", "*", "/", "%"}) {
    SCOPED_TRACE(op);
    const std::string e = std::string("(a ") + op + " b) " + op + " c";
    CheckOp(e, {{"a", {3, 4}, kI64, -50, 50}, {"b", {4}, kI64, 1, 9}, {"c", {3, 1}, kI64, 1, 9}});
    CheckOp(e, {{"a", {5}, kU8, 0, 255}, {"b", {}, kU8, 1, 9}, {"c", {5}, kU8, 1, 9}});
    CheckOp(e, {{"a", {2, 3}, kF64}, {"b", {2, 3}, kF64, 0.5, 2}, {"c", {3}, kF64, 0.5, 2}});
  }
  CheckOp("relu(a + b)", {{"a", {4, 4}, kF64}, {"b", {4}, kF64}});
  CheckOp("relu(a - b)", {{"a", {4, 4}, kF64}, {"b", {4, 1}, kF64}});
}

TEST(JitCatalog, IntegerModByZeroAndNegativeExponentAreErrors) {
  const std::string src = "@graph G {\n  input a: Tensor<[3], i64>;\n  input b: Tensor<[3], i64>;\n"
                          "  output m: a % b;\n}\n";
  TensorMap feed;
  feed.emplace("a", Tensor::FromVector<int64_t>(kI64, {3}, {1, 2, 3}).value());
  feed.emplace("b", Tensor::FromVector<int64_t>(kI64, {3}, {1, 0, 3}).value());
  Status s = RunTape(src, feed);
  EXPECT_NE(s.message().find("integer division by zero"), std::string::npos) << s.ToString();
  const std::string src2 = "@graph G {\n  input a: Tensor<[3], i64>;\n  input b: Tensor<[3], i64>;\n"
                           "  output m: a ** b;\n}\n";
  feed.insert_or_assign("b", Tensor::FromVector<int64_t>(kI64, {3}, {1, -1, 3}).value());
  s = RunTape(src2, feed);
  EXPECT_NE(s.message().find("negative integer exponent"), std::string::npos) << s.ToString();
}

TEST(JitCatalog, ConcatAndSplitAnyAxis) {
  CheckOp("concat(a, b, dim: 0)", {{"a", {2, 3}}, {"b", {4, 3}}});
  CheckOp("concat(a, b, c, dim: -1)", {{"a", {2, 3}}, {"b", {2, 1}}, {"c", {2, 0}}});
  CheckOp("concat(a, b, dim: 1)", {{"a", {2, 3, 2}, kI64}, {"b", {2, 1, 2}, kI64}});
  CheckOp("concat(a, dim: 0)", {{"a", {3}, kBool}});
  // Narrow slabs are copied in 8-, 4- or 1-byte words (the widest dividing
  // every slab), slabs of 64 bytes and more by memcpy.
  CheckOp("concat(a, b, dim: -1)", {{"a", {5, 1}, kU8, 0, 9}, {"b", {5, 2}, kU8, 0, 9}});
  CheckOp("concat(a, b, dim: -1)", {{"a", {40, 2}, kU8, 0, 9}, {"b", {40, 4}, kU8, 0, 9}});  // 2-byte words
  CheckOp("concat(a, b, c, dim: -1)", {{"a", {5, 1}}, {"b", {5, 3}}, {"c", {5, 2}}});
  CheckOp("concat(a, b, dim: -1)", {{"a", {5, 1}, kF64}, {"b", {5, 2}, kF64}});
  CheckOp("concat(a, b, dim: -1)", {{"a", {5, 20}}, {"b", {5, 1}}});
  CheckOp("concat(a, b, dim: -1)", {{"a", {5, 16}}, {"b", {5, 32}}});
  for (int index = 0; index < 3; ++index) {
    // L = 5, n = 4: c = 2, three chunks of 2, 2, 1.
    CheckOp("split(x, chunks: 4, dim: 1, index: " + std::to_string(index) + ")", {{"x", {3, 5, 2}}});
    CheckOp("split(x, chunks: 3, dim: -1, index: " + std::to_string(index) + ")", {{"x", {2, 7}, kF64}});
  }
  CheckOp("split(x, chunks: 2, index: 1)", {{"x", {4}, kU8, 0, 9}});
  // An empty axis gives one empty chunk (torch.chunk's rule): statically and
  // when a symbolic length is bound to 0 at run time.
  CheckOp("split(x, chunks: 2, index: 0)", {{"x", {0, 3}}});
  std::unique_ptr<Program> p = MakeProgram(
      "@graph G { input x: Tensor<[N, 3], f32>; node c { op: split(x, chunks: 2, index: 0); }; output c; }");
  ASSERT_NE(p, nullptr);
  for (int64_t n : {0, 1, 5}) {
    TensorMap feed;
    feed.emplace("x", RandomTensor(kF32, {n, 3}, 7));
    testing::RunBoth(*p, "G", feed);
    EXPECT_EQ(p->Run("G", feed)->at("c").shape(), (Shape{n == 0 ? 0 : (n + 1) / 2, 3}));
  }
}

TEST(JitCatalog, ShapeTargetsNamingADimBoundToZero) {
  // Zx0 is bound to 0 by x: both executors give the empty target (the tape
  // used to refuse the 0 as if it had been written).
  CheckOp("view(x, shape: [3, Zx0])", {{"x", {0, 3}}});
  CheckOp("expand(x, shape: [2, Zx0, 3])", {{"x", {0, 3}}});
  // A column filled across rows for every element size (vectors and a tail).
  for (ir::DType d : {kF32, kF64, kU8, kBool, kI64}) CheckOp("expand(x, shape: [3, 37])", {{"x", {3, 1}, d, 0, 9}});
  CheckOp("reshape(x, shape: [Zx0, 1, 3]) + 1", {{"x", {0, 3}}});
  const std::string src = Source("reshape(x, shape: [Zx0, -1])", {{"x", {0, 3}}});
  Status s = RunTape(src, Feed({{"x", {0, 3}}}, 1));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("cannot reshape [0, 3]"), std::string::npos) << s.ToString();
}

TEST(JitCatalog, EmbeddingGathersRowsAndRangeChecks) {
  const std::string params = "  param table: Tensor<[7, 5], f32> { init: \"uniform(-1, 1)\"; };\n";
  CheckOp("embedding(ids, table)", {{"ids", {2, 3}, kI64, 0, 7}}, params);
  CheckOp("embedding(ids, table)", {{"ids", {4}, kF32, 0, 7}}, params);  // float indices truncate
  CheckOp("embedding(ids, table)", {{"ids", {}, kU8, 0, 7}}, params);
  CheckOp("embedding(ids, table)", {{"ids", {0}, kI64, 0, 7}}, params);
  const std::string src = Source("embedding(ids, table)", {{"ids", {3}, kI64}}, params);
  for (int64_t bad : {7, -1}) {
    TensorMap feed;
    feed.emplace("ids", Tensor::FromVector<int64_t>(kI64, {3}, {0, bad, 2}).value());
    Status s = RunTape(src, feed);
    EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
    EXPECT_NE(s.message().find("embedding index " + std::to_string(bad) + " out of range for a table of 7 rows"),
              std::string::npos)
        << s.ToString();
    EXPECT_NE(s.message().find("indices 'ids'"), std::string::npos) << s.ToString();
  }
}

// Indices or a target computed by an expression are named by the node that
// holds it on both executors: the messages said "indices '__anon_3'", a
// name the user never wrote (LANGUAGE.md §9).
TEST(JitCatalog, AnIndexErrorOfAnExpressionNamesItsNode) {
  auto p = testing::MakeProgram(R"(@graph G {
    input t: Tensor<[2], i64>;
    input l: Tensor<[2, 3], f32>;
    param e: Tensor<[3, 2], f32> { init: "ones"; };
    output y: embedding(t + 1, e);
    output z: cross_entropy(l, t * 2);
  })");
  ASSERT_NE(p, nullptr);
  TensorMap feed;
  feed.emplace("t", Tensor::FromVector<int64_t>(kI64, {2}, {0, 2}).value());
  feed.emplace("l", testing::F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  for (bool interpret : {false, true}) {
    SCOPED_TRACE(interpret ? "interpreter" : "tape");
    Result<TensorMap> r = interpret ? p->Interpret("G", feed) : p->Run("G", feed);
    ASSERT_FALSE(r.ok());
    const std::string& m = r.status().message();
    EXPECT_TRUE(m.find("(indices computed in node 'y', element 1)") != std::string::npos ||
                m.find("(target computed in node 'z', element 1)") != std::string::npos)
        << m;
    EXPECT_EQ(m.find("__anon"), std::string::npos) << m;
  }
}

// batch_norm of x: [N, C] or with fewer than 128 elements per channel and
// sample walks x in memory order, every channel at once (it strode across x
// channel by channel); larger [N, C, H, W] goes channel by channel, each
// row's sums in partial sums (runtime/row_sums.h); each
// channel's statistics are summed in the interpreter's order,
// so the tape equals the interpreter bit for bit, with and without weights,
// f32 and f64, and a constant channel whose sqrt(σ² + eps) is below f32's
// range computed in double as before.
TEST(JitCatalog, BatchNormOfRowsIsTheInterpretersBitForBit) {
  for (const Shape& dims : std::vector<Shape>{{37, 19}, {5, 19, 3, 7}, {3, 19, 5, 11}, {6, 19, 2}, {4, 19, 1, 3},
                                              {3, 19, 2, 2}, {2, 19, 7}, {5, 19, 8}, {2, 19, 127}, {2, 19, 4, 32}}) {
    std::string shape;
    for (int64_t d : dims) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    for (const char* dtype : {"f32", "f64"}) {
      for (bool affine : {false, true}) {
        SCOPED_TRACE(shape + " " + dtype + (affine ? " w, b" : ""));
        const std::string src = std::string("@graph G {\n  input x: Tensor<[") + shape + "], " + dtype + ">;\n" +
                                (affine ? std::string("  input w: Tensor<[19], ") + dtype + ">;\n  input b: Tensor<[19], " +
                                              dtype + ">;\n  output y: batch_norm(x, w, b, eps: 0.001);\n}\n"
                                        : "  output y: batch_norm(x);\n}\n");
        const ir::DType dt = std::string(dtype) == "f32" ? kF32 : kF64;
        TensorMap feed;
        feed.emplace("x", testing::RandomTensor(dt, dims, 5, -40, 40));
        if (affine) {
          feed.emplace("w", testing::RandomTensor(dt, {19}, 6));
          feed.emplace("b", testing::RandomTensor(dt, {19}, 7));
        }
        std::unique_ptr<Program> p = MakeProgram(src);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(testing::RunBothBitwise(*p, "G", feed).size(), 1u);
      }
    }
  }
  // Channel 1 constant: σ² = 0 and sqrt(1e-300) is 0 in f32.
  const std::string tiny = "@graph G {\n  input x: Tensor<[3, 3], f32>;\n  output y: batch_norm(x, eps: 1e-300);\n}\n";
  TensorMap feed;
  feed.emplace("x", testing::F32({3, 3}, {1, 5, -2, 4, 5, 0.5f, -3, 5, 7}));
  std::unique_ptr<Program> p = MakeProgram(tiny);
  ASSERT_NE(p, nullptr);
  const TensorMap out = testing::RunBothBitwise(*p, "G", feed);
  ASSERT_EQ(out.size(), 1u);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(out.at("y").values<float>()[static_cast<size_t>(r * 3 + 1)], 0.0f);
}

// f64 products run in register tiles of 4 rows × 4 columns (ref_gemm.h),
// each element still summed over k in increasing order: the interpreter's
// value bit for bit, at every edge (rows and columns short of a tile),
// for matmul (b: [K, N]) and linear (w: [N, K]).
TEST(JitCatalog, F64ProductsAreTheInterpretersBitForBit) {
  // The edges: columns past the last 4-wide tile (1 to 3: a 2-wide vector
  // panel, then one scalar column), in 4-row tiles and in single rows.
  for (const auto& [m, k, n] : std::vector<std::array<int64_t, 3>>{
           {1, 1, 1}, {3, 7, 5}, {4, 33, 4}, {9, 16, 17}, {8, 5, 3}, {5, 9, 3}, {4, 12, 6}, {7, 10, 7}, {2, 9, 3},
           {1, 13, 1}, {6, 11, 2}, {9, 8, 1}}) {
    const std::string d = std::to_string(m) + ", " + std::to_string(k) + ", " + std::to_string(n);
    for (bool linear : {false, true}) {
      SCOPED_TRACE(d + (linear ? " linear" : " matmul"));
      const std::string w = linear ? std::to_string(n) + ", " + std::to_string(k) : std::to_string(k) + ", " + std::to_string(n);
      const std::string src = "@graph G {\n  input x: Tensor<[" + std::to_string(m) + ", " + std::to_string(k) +
                              "], f64>;\n  input w: Tensor<[" + w + "], f64>;\n  output y: " +
                              (linear ? "linear(x, w)" : "matmul(x, w)") + ";\n}\n";
      TensorMap feed;
      feed.emplace("x", testing::RandomTensor(kF64, {m, k}, 21, -3, 3));
      feed.emplace("w", testing::RandomTensor(kF64, linear ? Shape{n, k} : Shape{k, n}, 22, -3, 3));
      std::unique_ptr<Program> p = MakeProgram(src);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(testing::RunBothBitwise(*p, "G", feed).size(), 1u);
    }
  }
}

// f32 products of fewer than 4 rows against a b fed per run take the same
// row kernel (XNNPACK would pack b each run): the last 1 to 3 columns past
// a vector's as well are sums in k order in f32, a float loop's bit for bit.
TEST(JitCatalog, F32ProductsOfFewRowsAreAFloatLoopsBitForBit) {
  // (At most 4 columns take row_dots.h, which sums in other groupings.)
  for (const auto& [m, k, n] : std::vector<std::array<int64_t, 3>>{{1, 12, 5}, {2, 10, 6}, {3, 9, 7}, {2, 9, 13}, {3, 16, 14}}) {
    SCOPED_TRACE(std::to_string(m) + ", " + std::to_string(k) + ", " + std::to_string(n));
    const std::string src = "@graph G {\n  input x: Tensor<[" + std::to_string(m) + ", " + std::to_string(k) +
                            "], f32>;\n  input w: Tensor<[" + std::to_string(k) + ", " + std::to_string(n) +
                            "], f32>;\n  output y: matmul(x, w);\n}\n";
    TensorMap feed;
    feed.emplace("x", testing::RandomTensor(ir::DType::kF32, {m, k}, 41, -3, 3));
    feed.emplace("w", testing::RandomTensor(ir::DType::kF32, {k, n}, 42, -3, 3));
    std::unique_ptr<Program> p = MakeProgram(src);
    ASSERT_NE(p, nullptr);
    Result<TensorMap> out = p->Run("G", feed);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const float* x = feed.at("x").values<float>().data();
    const float* w = feed.at("w").values<float>().data();
    const float* y = out->at("y").values<float>().data();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0;
        for (int64_t q = 0; q < k; ++q) acc += x[i * k + q] * w[q * n + j];
        EXPECT_EQ(y[i * n + j], acc) << i << ", " << j;
      }
    }
  }
}

// A constant f64 linear weight is transposed once, when the kernel is
// created; setting the parameter re-creates it, so the new values are used.
TEST(JitCatalog, F64LinearWithAParameterWeightTracksSetParam) {
  const std::string src =
      "@graph G {\n  input x: Tensor<[5, 9], f64>;\n  param w: Tensor<[6, 9], f64> { init: \"xavier_uniform\"; };\n"
      "  output y: linear(x, w);\n}\n";
  std::unique_ptr<Program> p = MakeProgram(src);
  ASSERT_NE(p, nullptr);
  TensorMap feed;
  feed.emplace("x", testing::RandomTensor(kF64, {5, 9}, 31, -3, 3));
  EXPECT_EQ(testing::RunBothBitwise(*p, "G", feed).size(), 1u);
  ASSERT_TRUE(p->SetParam("G/w", testing::RandomTensor(kF64, {6, 9}, 32, -3, 3)).ok());
  const TensorMap out = testing::RunBothBitwise(*p, "G", feed);
  ASSERT_EQ(out.size(), 1u);
  // y[0, 0] by hand from the new weight.
  const Tensor w = testing::RandomTensor(kF64, {6, 9}, 32, -3, 3);
  double y00 = 0;
  for (int64_t q = 0; q < 9; ++q) y00 += feed.at("x").values<double>()[q] * w.values<double>()[q];
  EXPECT_EQ(out.at("y").values<double>()[0], y00);
}

TEST(JitCatalog, BatchNormLossesRange) {
  CheckOp("batch_norm(x)", {{"x", {4, 3}}});
  CheckOp("batch_norm(x, w, b, eps: 0.001)", {{"x", {2, 3, 4, 5}}, {"w", {3}}, {"b", {3}}});
  CheckOp("batch_norm(x)", {{"x", {2, 3, 4}, kF64}});
  CheckOp("cross_entropy(l, t)", {{"l", {4, 6}}, {"t", {4}, kI64, 0, 6}});
  CheckOp("cross_entropy(l, t)", {{"l", {2, 3, 5}}, {"t", {2, 3}, kI64, 0, 5}});
  CheckOp("cross_entropy(l, t)", {{"l", {4, 6}, kF64}, {"t", {4, 6}, kF64, 0, 1}});  // distribution
  CheckOp("mse_loss(p, t)", {{"p", {3, 4}}, {"t", {4}}});
  CheckOp("mse_loss(p, t)", {{"p", {5}, kF64}, {"t", {5}, kF64}});
  CheckOp("range(5)", {});
  CheckOp("range(2, 9) + x", {{"x", {7}, kI64}});
}

TEST(JitCatalog, AttentionAndTransformerBlockComposite) {
  CheckOp("multi_head_attention(x, n_heads: 2)", {{"x", {2, 3, 8}}});
  CheckOp("multi_head_attention(x, n_heads: 4, causal: true)", {{"x", {1, 5, 8}}});
  CheckOp("multi_head_attention(x, n_heads: 1)", {{"x", {2, 1, 4}, kF64}});
  CheckOp("transformer_block(x, n_heads: 2)", {{"x", {2, 4, 8}}});
  CheckOp("transformer_block(x, n_heads: 4, causal: false)", {{"x", {1, 3, 8}}});
  // Explicit weights given as inputs (not packed: batch-matmul path).
  CheckOp("multi_head_attention(x, a, b, c, d, n_heads: 2, causal: true)",
          {{"x", {2, 3, 4}}, {"a", {4, 4}}, {"b", {4, 4}}, {"c", {4, 4}}, {"d", {4, 4}}});
  // repeat unrolls into per-layer parameters, created once.
  const std::string src = Source("repeat(3) { transformer_block(x, n_heads: 2) }", {{"x", {1, 4, 8}}});
  std::unique_ptr<Program> p = MakeProgram(src);
  ASSERT_NE(p, nullptr);
  int layer_params[3] = {0, 0, 0};
  for (const auto& [key, t] : p->Params()) {
    for (int l = 0; l < 3; ++l) {
      if (key.find("y.layer" + std::to_string(l) + ".") != std::string::npos) ++layer_params[l];
    }
  }
  for (int l = 0; l < 3; ++l) EXPECT_EQ(layer_params[l], 12) << "layer " << l;
  const TensorMap feed = Feed({{"x", {1, 4, 8}}}, 5);
  Result<TensorMap> a = p->Run("G", feed);
  Result<TensorMap> b = p->Run("G", feed);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(runtime::BitwiseEqual(a->at("y"), b->at("y")));  // weights are not re-drawn per run
  testing::RunBoth(*p, "G", feed, 10.0);
}

TEST(JitCatalog, CrossEntropyClassIndexOutOfRange) {
  const std::string src = Source("cross_entropy(l, t)", {{"l", {2, 3}}, {"t", {2}, kI64}});
  TensorMap feed;
  feed.emplace("l", testing::F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  feed.emplace("t", Tensor::FromVector<int64_t>(kI64, {2}, {0, 3}).value());
  Status s = RunTape(src, feed);
  EXPECT_NE(s.message().find("class index 3 out of range for 3 classes (target 't', element 1)"), std::string::npos)
      << s.ToString();
  // Hand-computed loss for valid targets.
  feed.insert_or_assign("t", Tensor::FromVector<int64_t>(kI64, {2}, {2, 0}).value());
  TensorMap out;
  ASSERT_TRUE(RunTape(src, feed, &out).ok());
  const double lse0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  const double lse1 = std::log(std::exp(4.0) + std::exp(5.0) + std::exp(6.0));
  EXPECT_NEAR(out.at("y").values<float>()[0], -((3 - lse0) + (4 - lse1)) / 2, 1e-6);
}

// Training-mode dropout: tape == interpreter for the same seed (each on a
// fresh program so both start from the same generator state), and the
// same seed gives the same mask on every fresh program.
TEST(JitCatalog, TrainingDropoutIsSeededAndMatchesTheInterpreter) {
  const std::string src = "@graph G {\n  input x: Tensor<[8, 16], f32>;\n  output y: dropout(x, p: 0.4);\n}\n";
  const TensorMap feed = Feed({{"x", {8, 16}, kF32, 1, 2}}, 3);
  auto make = [&]() {
    ProgramOptions o;
    o.training = true;
    o.seed = 1234;
    return MakeProgram(src, o);
  };
  std::unique_ptr<Program> a = make(), b = make(), c = make();
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->Stats("G")->num_ref_kernels, 0);
  Result<TensorMap> ta = a->Run("G", feed);
  Result<TensorMap> tb = b->Run("G", feed);
  Result<TensorMap> ic = c->Interpret("G", feed);
  ASSERT_TRUE(ta.ok() && tb.ok() && ic.ok()) << ta.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(ta->at("y"), tb->at("y")));
  EXPECT_TRUE(runtime::BitwiseEqual(ta->at("y"), ic->at("y")));
  // About p of the elements are dropped, the rest scaled by 1/(1 − p).
  int zeros = 0;
  std::span<const float> y = ta->at("y").values<float>();
  std::span<const float> x = feed.at("x").values<float>();
  for (size_t i = 0; i < y.size(); ++i) {
    if (y[i] == 0) ++zeros;
    else EXPECT_FLOAT_EQ(y[i], x[i] * static_cast<float>(1.0 / 0.6));
  }
  EXPECT_GT(zeros, 25);
  EXPECT_LT(zeros, 80);
  // The stream continues: a second run draws a different mask.
  Result<TensorMap> ta2 = a->Run("G", feed);
  ASSERT_TRUE(ta2.ok());
  EXPECT_FALSE(runtime::BitwiseEqual(ta->at("y"), ta2->at("y")));
}

// Several dropouts — parallel branches, a chain, one inside a called graph
// and fused neighbours — draw in execution order on the tape exactly as in
// the interpreter, run after run (OPS.md: dropout instructions in execution order).
TEST(JitCatalog, ManyDropoutsDrawInTheSameOrderAsTheInterpreter) {
  const std::string src = R"sw(
@graph Inner {
    input h: Tensor<[4, 12], f32>;
    output out: relu(dropout(h, p: 0.3)) * 2.0;
}
@graph G {
    input x: Tensor<[4, 12], f32>;
    param w: Tensor<[12, 12], f32> { init: "xavier_uniform"; };
    node a { op: dropout(x, p: 0.5); };
    node b { op: dropout(tanh(x), p: 0.25); };
    node c { op: dropout(relu(matmul(a, w) + b), p: 0.1); };
    node d { op: Inner(c); };
    output y: dropout(d + a, p: 0.6);
    output z: b;
}
)sw";
  const TensorMap feed = Feed({{"x", {4, 12}, kF32, 1, 2}}, 9);
  auto make = [&]() {
    ProgramOptions o;
    o.training = true;
    o.seed = 77;
    return MakeProgram(src, o);
  };
  std::unique_ptr<Program> tape = make(), interp = make();
  ASSERT_TRUE(tape && interp);
  EXPECT_EQ(tape->Stats("G")->num_ref_kernels, 0);
  for (int run = 0; run < 3; ++run) {
    Result<TensorMap> t = tape->Run("G", feed);
    Result<TensorMap> r = interp->Interpret("G", feed);
    ASSERT_TRUE(t.ok() && r.ok()) << t.status().ToString() << " / " << r.status().ToString();
    for (const char* name : {"y", "z"}) {
      std::string why;
      EXPECT_TRUE(runtime::AllClose(t->at(name), r->at(name), 1e-5, 1e-6, &why)) << "run " << run << " " << name << ": " << why;
    }
  }
}

// Without the optimiser a dead dropout stays on the tape and, here, runs
// before the live one (LIFO order): the interpreter evaluates it too, so
// both draw the same stream (PIPELINE.md §9: every node is evaluated).
TEST(JitCatalog, DeadDropoutDrawsOnBothExecutors) {
  const std::string src =
      "@graph G {\n  input x: Tensor<[64], f32>;\n  node y { op: dropout(x, p: 0.5); };\n"
      "  node dead { op: dropout(x, p: 0.5); };\n  output y;\n}\n";
  const TensorMap feed = Feed({{"x", {64}, kF32, 1, 2}}, 4);
  ProgramOptions o;
  o.training = true;
  o.seed = 3;
  shrew::CompileOptions copts;
  copts.optimize = false;
  std::unique_ptr<Program> tape = MakeProgram(src, o, copts), interp = MakeProgram(src, o, copts);
  ASSERT_TRUE(tape && interp);
  ASSERT_EQ(tape->compiled("G")->tape.instrs.size(), 4u);  // x, y, dead, and nothing removed
  Result<TensorMap> t = tape->Run("G", feed);
  Result<TensorMap> r = interp->Interpret("G", feed);
  ASSERT_TRUE(t.ok() && r.ok()) << t.status().ToString() << " / " << r.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(t->at("y"), r->at("y")));
}

}  // namespace
}  // namespace shrew::jit
