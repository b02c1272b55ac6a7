// Inputs declared as a narrow integer dtype take only its values, whatever
// integer data carries them (input_ranges.h): on both executors and on a
// prepared run, and the program keeps running after the error.
#include "api/input_ranges.h"

#include <gtest/gtest.h>

#include <cstring>

#include "api/prepared_run.h"
#include "jit/jit_test_util.h"

namespace shrew {
namespace {

using runtime::Tensor;
using runtime::TensorMap;

TensorMap I64Input(std::vector<int64_t> v) {
  TensorMap in;
  const int64_t n = static_cast<int64_t>(v.size());
  in.emplace("a", Tensor::FromVector<int64_t>(ir::DType::kI64, {n}, v).value());
  return in;
}

TEST(InputRanges, NarrowDtypesHaveTheirRanges) {
  EXPECT_EQ(NarrowIntRange(ir::DType::kI8)->lo, -128);
  EXPECT_EQ(NarrowIntRange(ir::DType::kI32)->hi, 2147483647);
  EXPECT_EQ(NarrowIntRange(ir::DType::kU32)->hi, 4294967295);
  EXPECT_EQ(NarrowIntRange(ir::DType::kU16)->lo, 0);
  EXPECT_EQ(NarrowIntRange(ir::DType::kU64)->lo, 0);  // held as i64: 0 to 2^63 - 1
  EXPECT_EQ(NarrowIntRange(ir::DType::kU64)->hi, INT64_MAX);
  EXPECT_FALSE(NarrowIntRange(ir::DType::kI64));
  EXPECT_FALSE(NarrowIntRange(ir::DType::kU8));  // held as u8: it cannot hold another value
  EXPECT_FALSE(NarrowIntRange(ir::DType::kF32));
}

TEST(InputRanges, AnI64ValueOutsideADeclaredI32IsAnErrorOnBothExecutors) {
  std::unique_ptr<Program> p = jit::testing::MakeProgram(
      "@graph G {\n  input a: Tensor<[N], i32>;\n  output same: a + 0;\n  output positive: a > 0;\n}\n");
  ASSERT_NE(p, nullptr);
  for (bool tape : {true, false}) {
    jit::InputIssue issue;
    const TensorMap bad = I64Input({7, int64_t{1} << 32, -1});
    Result<TensorMap> out = tape ? p->Run("G", bad, &issue) : p->Interpret("G", bad, &issue);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(out.status().message(),
              "input 'a' of graph 'G': value 4294967296 (at index 1) does not fit i32, its declared dtype (-2147483648 to 2147483647)");
    EXPECT_EQ(issue.input, "a");
    EXPECT_EQ(issue.actual, "4294967296 at index 1");
    // The extremes of i32 are taken, and the program runs on.
    Result<TensorMap> ok = tape ? p->Run("G", I64Input({2147483647, -2147483648LL, 0}))
                                : p->Interpret("G", I64Input({2147483647, -2147483648LL, 0}));
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ(ok->at("same").GetDouble(0), 2147483647.0);
    EXPECT_EQ(ok->at("positive").GetDouble(1), 0.0);
  }
}

TEST(InputRanges, ANegativeValueForADeclaredU64IsAnErrorForInputsAndParameters) {
  std::unique_ptr<Program> p = jit::testing::MakeProgram(
      "@graph G {\n  input a: Tensor<[N], u64>;\n  param w: Tensor<[2], u64> { init: \"zeros\"; };\n"
      "  output positive: a > 0;\n  output ww: w;\n}\n");
  ASSERT_NE(p, nullptr);
  for (bool tape : {true, false}) {
    const TensorMap bad = I64Input({5, -1});
    Result<TensorMap> out = tape ? p->Run("G", bad) : p->Interpret("G", bad);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().message(),
              "input 'a' of graph 'G': value -1 (at index 1) does not fit u64, its declared dtype (0 to 9223372036854775807)");
    Result<TensorMap> ok = tape ? p->Run("G", I64Input({INT64_MAX, 0})) : p->Interpret("G", I64Input({INT64_MAX, 0}));
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ(ok->at("positive").GetDouble(0), 1.0);
    EXPECT_EQ(ok->at("positive").GetDouble(1), 0.0);
  }
  const Tensor negative = Tensor::FromVector<int64_t>(ir::DType::kI64, {2}, {-1, 5}).value();
  Status set = p->SetParam("G/w", negative);
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.message().find("value -1 (at index 0) does not fit u64"), std::string::npos) << set.message();
  Result<TensorMap> after = p->Run("G", I64Input({1, 2}));
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->at("ww").GetDouble(0), 0.0);  // the parameter kept its value
}

TEST(InputRanges, APreparedRunChecksEachRunsValues) {
  std::unique_ptr<Program> p =
      jit::testing::MakeProgram("@graph G {\n  input a: Tensor<[2], u16>;\n  output b: a + 1;\n}\n");
  ASSERT_NE(p, nullptr);
  const InputSpec spec{"a", ir::DType::kI64, {2}};
  Result<std::unique_ptr<PreparedRun>> prepared = p->Prepare("G", {&spec, 1});
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  PreparedRun& run = **prepared;
  const int i = run.input_of_spec(0);
  const int64_t good[2] = {65535, 0}, bad[2] = {3, 65536};
  std::memcpy(run.input_data(i), bad, sizeof bad);
  Status s = run.Run();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("value 65536 (at index 1) does not fit u16"), std::string::npos) << s.ToString();
  std::memcpy(run.input_data(i), good, sizeof good);
  ASSERT_TRUE(run.Run().ok());
  int64_t out[2];
  std::memcpy(out, run.output_data(0), sizeof out);
  EXPECT_EQ(out[0], 65536);
  EXPECT_EQ(out[1], 1);
}

}  // namespace
}  // namespace shrew
